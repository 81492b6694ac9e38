"""Plots of the statistics: Zipf's rank/probability curve and Heaps' vocabulary growth.

PNG and SVG through matplotlib (the ``stats`` extra, imported here only), plus the same data as
JSON for the web UI (:func:`plot_data`), which needs nothing. Figures are built with
:class:`matplotlib.figure.Figure` directly, without pyplot's global state, so plotting is safe in
a server; SVG output carries no date and a fixed id salt, so the same statistics give the same
bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trawl.errors import MissingDependency
from trawl.textstats.report import TextStats

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_data", "write_plots"]


def plot_data(stats: TextStats) -> dict[str, Any]:
    """Everything the two plots show, as JSON-ready data (for the web UI)."""
    zipf = stats.zipf
    heaps = stats.heaps
    n = stats.tokens or 1
    ranks = stats.rank_frequency
    growth = stats.growth
    return {
        "zipf": {
            "points": [[r, f / n] for r, f in ranks],
            "fit": zipf.as_dict() if zipf else None,
            "line": [[r, zipf.probability(r)] for r, _ in (ranks[0], ranks[-1])] if zipf and ranks else [],
        },
        "heaps": {
            "points": [list(p) for p in growth],
            "fit": heaps.as_dict() if heaps else None,
            "line": [[t, heaps.vocabulary(t)] for t, _ in growth] if heaps else [],
        },
    }


def _figures(stats: TextStats) -> tuple[Figure, Figure]:
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415 - optional, heavy
    except ImportError as exc:
        raise MissingDependency("matplotlib", "stats", "trawl stats --plot") from exc
    data = plot_data(stats)
    zipf = stats.zipf
    heaps = stats.heaps

    fig_z = Figure(figsize=(6.4, 4.8), dpi=100)
    ax = fig_z.add_subplot()
    pts = data["zipf"]["points"]
    if pts:
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], ".", ms=3, label="observed")
    if zipf and pts:
        xs = [pts[0][0], pts[-1][0]]
        ax.loglog(
            xs,
            [zipf.probability(x) for x in xs],
            "-",
            lw=1,
            label=f"Zipf fit: P = {zipf.c:.3g}·r^-{zipf.exponent:.3g} (R² {zipf.r2:.3f})",
        )
        ax.loglog(xs, [zipf.c_classic / x for x in xs], ":", lw=1, label=f"r·P = {zipf.c_classic:.3g}")
        for bend in (zipf.head_bend, zipf.tail_bend):
            ax.axvline(bend, color="grey", lw=0.6, ls="--")
    ax.set_xlabel("rank r")
    ax.set_ylabel("probability P_r")
    ax.set_title(f"Zipf: {stats.tokens:,} tokens, {stats.vocabulary:,} terms")
    ax.legend(fontsize="small")

    fig_h = Figure(figsize=(6.4, 4.8), dpi=100)
    ax = fig_h.add_subplot()
    growth = data["heaps"]["points"]
    if growth:
        ax.plot([p[0] for p in growth], [p[1] for p in growth], ".", ms=3, label="observed")
    if heaps and growth:
        ax.plot(
            [p[0] for p in data["heaps"]["line"]],
            [p[1] for p in data["heaps"]["line"]],
            "-",
            lw=1,
            label=f"Heaps fit: V = {heaps.k:.3g}·n^{heaps.beta:.3f} (R² {heaps.r2:.3f})",
        )
    ax.set_xlabel("tokens n")
    ax.set_ylabel("vocabulary V")
    ax.set_title("Vocabulary growth")
    ax.legend(fontsize="small")
    return fig_z, fig_h


def write_plots(stats: TextStats, directory: Path) -> list[Path]:
    """``zipf.png``, ``zipf.svg``, ``heaps.png``, ``heaps.svg`` and ``plots.json`` in ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fig_z, fig_h = _figures(stats)
    import matplotlib  # noqa: PLC0415 - present: _figures imported it

    written = []
    with matplotlib.rc_context({"svg.hashsalt": "trawl", "svg.fonttype": "none"}):
        for name, fig in (("zipf", fig_z), ("heaps", fig_h)):
            for ext in ("png", "svg"):
                path = directory / f"{name}.{ext}"
                metadata = {"Date": None} if ext == "svg" else {}
                fig.savefig(path, format=ext, metadata=metadata)
                written.append(path)
    path = directory / "plots.json"
    path.write_text(json.dumps(plot_data(stats), ensure_ascii=False), encoding="utf-8")
    written.append(path)
    return written
