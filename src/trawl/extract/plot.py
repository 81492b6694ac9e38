"""Plot a page's cumulative tag curve with the chosen content spans (PNG or SVG).

matplotlib is imported here, on request only, so that extraction itself never loads it.
"""

from __future__ import annotations

from pathlib import Path

from trawl.errors import MissingDependency
from trawl.extract.bte import TokenCurve

__all__ = ["plot_curve"]


def plot_curve(curve: TokenCurve, path: str | Path, *, title: str = "") -> Path:
    """Draw tags seen against tokens read, shading the content spans; the suffix picks the format."""
    try:
        import matplotlib  # noqa: PLC0415 - optional, loaded only to plot

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError as exc:
        raise MissingDependency("matplotlib", "stats", "plot_curve") from exc
    path = Path(path)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        ax.plot(range(len(curve.curve)), curve.curve, linewidth=1.0, color="#333333", label="tags seen")
        for k, (start, end) in enumerate(curve.spans):
            ax.axvspan(start, end, color="#4c9be8", alpha=0.25, label="content" if k == 0 else None)
        ax.set_xlabel("tokens read")
        ax.set_ylabel("tags seen (cumulative)")
        ax.set_title(title or f"token curve (score {curve.score:.2f})")
        ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(path, format=path.suffix.lstrip(".").lower() or "png")
    finally:
        plt.close(fig)
    return path
