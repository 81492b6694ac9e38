"""Small server-side SVG plots for the statistics pages: markup strings, no scripts, no styles.

A plot is a ``<svg>`` element with a ``viewBox`` (it scales to its container's width), axes with
tick labels (decades on a log axis), a title and axis labels, and one or more series drawn as
lines or points. Every text is escaped; colours come from CSS classes (``series-0``…), so the
page's ``default-src 'self'`` policy holds (no inline style attributes are needed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Series", "plot"]

WIDTH = 640
HEIGHT = 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 28, 48


@dataclass(slots=True, frozen=True)
class Series:
    """One series: its label, its (x, y) points, and whether it is drawn as a line or points."""

    label: str
    points: Sequence[tuple[float, float]]
    kind: str = "line"  # "line" or "points"


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Tick positions in data units: decades on a log axis, 1-2-5 steps on a linear one."""
    if log:
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        step = max(1, math.ceil((last - first) / 8))
        mantissas = (1, 2, 5) if last - first <= 2 else (1,)  # under two decades: 1-2-5 ticks
        ticks = [m * 10.0**e for e in range(first, last + 1, step) for m in mantissas]
        return [t for t in ticks if lo * 0.9999 <= t <= hi * 1.0001]
    span = hi - lo
    raw = span / 6 if span > 0 else 1.0
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step + 1e-9) + 1)]


def _label(v: float) -> str:
    if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
        mantissa, exp = f"{v:.0e}".split("e")
        return f"{mantissa}e{int(exp)}"
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:.3g}"


def plot(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """An SVG plot of ``series`` (points with a non-positive coordinate on a log axis are left
    out); an empty plot says "no data"."""

    def keep(p: tuple[float, float]) -> bool:
        x, y = p
        ok = math.isfinite(x) and math.isfinite(y)
        return ok and (x > 0 or not log_x) and (y > 0 or not log_y)

    drawn = [(s, [p for p in s.points if keep(p)]) for s in series]
    xs = [x for _, pts in drawn for x, _ in pts]
    ys = [y for _, pts in drawn for _, y in pts]
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    )
    if not xs:
        return head + f'<text x="{width / 2}" y="{height / 2}" class="axis-label">no data</text></svg>'
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x0 == x1:
        x0, x1 = (x0 / 2, x1 * 2) if log_x else (x0 - 1, x1 + 1)
    if y0 == y1:
        y0, y1 = (y0 / 2, y1 * 2) if log_y else (y0 - 1, y1 + 1)
    fx = math.log10 if log_x else float
    fy = math.log10 if log_y else float
    left, right = _LEFT, width - _RIGHT
    top, bottom = _TOP, height - _BOTTOM

    def px(x: float) -> float:
        return left + (fx(x) - fx(x0)) / (fx(x1) - fx(x0)) * (right - left)

    def py(y: float) -> float:
        return bottom - (fy(y) - fy(y0)) / (fy(y1) - fy(y0)) * (bottom - top)

    out = [head, f'<text x="{width / 2}" y="18" class="plot-title">{escape(title)}</text>']
    out.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" class="frame"/>')
    for t in _ticks(x0, x1, log_x):
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{x:.1f}" y="{bottom + 16}" class="tick tick-x">{escape(_label(t))}</text>')
    for t in _ticks(y0, y1, log_y):
        y = py(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick tick-y">{escape(_label(t))}</text>')
    out.append(f'<text x="{(left + right) / 2}" y="{height - 8}" class="axis-label">{escape(x_label)}</text>')
    out.append(
        f'<text x="14" y="{(top + bottom) / 2}" class="axis-label" '
        f'transform="rotate(-90 14 {(top + bottom) / 2})">{escape(y_label)}</text>'
    )
    for i, (s, pts) in enumerate(drawn):
        cls = f"series-{i % 6}"
        if s.kind == "points":
            out.extend(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2" class="{cls}"/>' for x, y in pts)
        elif pts:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" class="line {cls}"/>')
        ly = top + 14 + 16 * i
        out.append(f'<rect x="{right - 150}" y="{ly - 9}" width="10" height="10" class="{cls}"/>')
        out.append(f'<text x="{right - 135}" y="{ly}" class="legend">{escape(s.label)}</text>')
    out.append("</svg>")
    return "".join(out)
