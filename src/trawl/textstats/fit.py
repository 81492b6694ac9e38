"""Fitting Zipf's and Heaps' laws to counts, in plain Python (no numpy needed).

**Zipf**: the r-th most frequent word has probability P_r ≈ c · r^(-a); with a = 1 this is the
textbook form r · P_r = c (c ≈ 0.1 for English). Real rank/frequency curves bend away from the
line at both ends — the head is flatter (the few function words are less frequent than the line
predicts; Mandelbrot's correction) and the tail drops in steps where many words share the same
small frequency. :func:`fit_zipf` therefore looks for the *longest stretch* of the log-log curve
that a straight line fits within a tolerance, fits the line there, and reports where that stretch
starts and ends: the ranks at which the curve bends.

Points: the head is one point per rank; a group of words sharing one frequency (the tail's steps)
becomes one point at the group's middle rank; the points are then averaged in bins of equal width
in log-rank, so every decade of ranks weighs the same in the fit (otherwise the tens of thousands
of tail ranks would decide the slope).

**Heaps**: vocabulary size V after n tokens grows as V = K · n^β (K ≈ 10-100, β ≈ 0.4-0.6 for
English). :func:`fit_heaps` fits log V against log n on the growth curve sampled at geometrically
spaced n, over the last decade of the stream by default (n ≥ N/10): early on nearly every token
is a new word and the local exponent is higher (on the inaugural addresses β falls from ~0.68
fitted from n = 100 to ~0.53 over the last decade), and the law is used to predict growth
beyond N, where the last decade is the better guide.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "HeapsFit",
    "LineFit",
    "ZipfFit",
    "fit_heaps",
    "fit_line",
    "fit_zipf",
    "rank_groups",
    "zipf_points",
]

#: The largest RMS residual (in log10 units, ≈ ±12%) of the stretch :func:`fit_zipf` calls straight.
ZIPF_TOLERANCE = 0.05
#: Bins per decade of rank when the rank/frequency points are thinned for the fit.
BINS_PER_DECADE = 20


@dataclass(slots=True, frozen=True)
class LineFit:
    """y = intercept + slope · x by least squares, with the coefficient of determination."""

    slope: float
    intercept: float
    r2: float
    rms: float
    n: int


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> LineFit:
    """Ordinary least squares of ``ys`` on ``xs`` (at least two distinct x values)."""
    n = len(xs)
    if n != len(ys) or n < 2:
        raise ValueError(f"fit_line needs two or more (x, y) pairs, got {n} x and {len(ys)} y")
    mx = sum(xs) / n
    my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    if sxx == 0:
        raise ValueError("fit_line needs at least two distinct x values")
    slope = sxy / sxx
    sse = max(0.0, syy - slope * sxy)
    r2 = 1.0 - sse / syy if syy > 0 else 1.0
    return LineFit(slope, my - slope * mx, r2, math.sqrt(sse / n), n)


@dataclass(slots=True, frozen=True)
class ZipfFit:
    """P_r ≈ c · r^(-exponent) over ranks ``head_bend``…``tail_bend``; ``c_classic`` = mean r·P_r there."""

    c: float
    exponent: float
    c_classic: float
    r2: float
    rms: float
    head_bend: int
    tail_bend: int
    points: int

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in d.items()}

    def probability(self, rank: float) -> float:
        """The fitted P_r at ``rank``."""
        return float(self.c * rank ** (-self.exponent))


@dataclass(slots=True, frozen=True)
class HeapsFit:
    """V(n) ≈ k · n^beta, fitted on n ≥ ``min_tokens``."""

    k: float
    beta: float
    r2: float
    rms: float
    min_tokens: int
    points: int

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in d.items()}

    def vocabulary(self, tokens: float) -> float:
        """The fitted vocabulary size after ``tokens`` tokens."""
        return float(self.k * tokens**self.beta)


def rank_groups(freq_of_freq: Mapping[int, int]) -> list[tuple[int, int, int]]:
    """``(first_rank, last_rank, frequency)`` for each frequency, most frequent first.

    ``freq_of_freq`` maps a frequency to how many terms have it (the whole rank/frequency curve in
    a few thousand numbers, however large the vocabulary).
    """
    out = []
    rank = 0
    for f in sorted(freq_of_freq, reverse=True):
        m = freq_of_freq[f]
        if m <= 0 or f <= 0:
            continue
        out.append((rank + 1, rank + m, f))
        rank += m
    return out


def zipf_points(freq_of_freq: Mapping[int, int], tokens: int) -> list[tuple[float, float]]:
    """(log10 rank, log10 P_r) points, tie groups at their middle rank, binned in log-rank."""
    bins: dict[int, list[tuple[float, float]]] = {}
    for first, last, f in rank_groups(freq_of_freq):
        x = math.log10((first + last) / 2)
        y = math.log10(f / tokens)
        bins.setdefault(math.floor(x * BINS_PER_DECADE), []).append((x, y))
    points = []
    for key in sorted(bins):
        group = bins[key]
        points.append((sum(p[0] for p in group) / len(group), sum(p[1] for p in group) / len(group)))
    return points


def fit_zipf(
    freq_of_freq: Mapping[int, int], tokens: int, *, tolerance: float = ZIPF_TOLERANCE
) -> ZipfFit | None:
    """Zipf's law over the longest straight stretch of the log-log rank/probability curve.

    The stretch is the run of consecutive points, spanning the most decades of rank, whose
    straight-line fit has an RMS residual of at most ``tolerance`` (log10 units). None when the
    vocabulary is too small to fit (fewer than four points).
    """
    pts = zipf_points(freq_of_freq, tokens)
    n = len(pts)
    if n < 4:
        return None
    # Prefix sums make each candidate stretch's fit O(1): O(n²) stretches, n ≤ ~200.
    sx = [0.0]
    sy = [0.0]
    sxx = [0.0]
    syy = [0.0]
    sxy = [0.0]
    for x, y in pts:
        sx.append(sx[-1] + x)
        sy.append(sy[-1] + y)
        sxx.append(sxx[-1] + x * x)
        syy.append(syy[-1] + y * y)
        sxy.append(sxy[-1] + x * y)
    best: tuple[float, int, int] | None = None
    for i in range(n):
        for j in range(n - 1, i + 2, -1):  # at least 4 points
            span = pts[j][0] - pts[i][0]
            if best is not None and span <= best[0]:
                break
            m = j - i + 1
            ax = sx[j + 1] - sx[i]
            ay = sy[j + 1] - sy[i]
            vxx = (sxx[j + 1] - sxx[i]) - ax * ax / m
            vyy = (syy[j + 1] - syy[i]) - ay * ay / m
            vxy = (sxy[j + 1] - sxy[i]) - ax * ay / m
            if vxx <= 0:
                continue
            sse = max(0.0, vyy - vxy * vxy / vxx)
            if math.sqrt(sse / m) <= tolerance:
                best = (span, i, j)
                break
    if best is None:  # nothing straight enough: fit everything and say so through rms
        best = (pts[-1][0] - pts[0][0], 0, n - 1)
    _, i, j = best
    line = fit_line([p[0] for p in pts[i : j + 1]], [p[1] for p in pts[i : j + 1]])
    # An RMS bound lets a single end point stray; trim ends further off the line than twice the
    # tolerance (the first word of a small text sits well under the line, for one).
    while j - i + 1 > 4:
        res_i = abs(pts[i][1] - (line.intercept + line.slope * pts[i][0]))
        res_j = abs(pts[j][1] - (line.intercept + line.slope * pts[j][0]))
        if max(res_i, res_j) <= 2 * tolerance:
            break
        if res_i >= res_j:
            i += 1
        else:
            j -= 1
        line = fit_line([p[0] for p in pts[i : j + 1]], [p[1] for p in pts[i : j + 1]])
    head = max(1, round(10 ** pts[i][0]))
    tail = max(head, round(10 ** pts[j][0]))
    # The textbook constant: r · P_r averaged over the straight stretch, rank by rank.
    products = []
    for first, last, f in rank_groups(freq_of_freq):
        if last < head or first > tail:
            continue
        lo, hi = max(first, head), min(last, tail)
        products.append(((lo + hi) / 2 * f / tokens, hi - lo + 1))
    weight = sum(w for _, w in products)
    c_classic = sum(p * w for p, w in products) / weight if weight else 0.0
    return ZipfFit(
        c=10**line.intercept,
        exponent=-line.slope,
        c_classic=c_classic,
        r2=line.r2,
        rms=line.rms,
        head_bend=head,
        tail_bend=tail,
        points=line.n,
    )


def fit_heaps(growth: Sequence[tuple[int, int]], *, min_tokens: int | None = None) -> HeapsFit | None:
    """Heaps' law from ``(tokens, vocabulary)`` points of the growth curve.

    ``min_tokens`` defaults to a tenth of the tokens (the last decade). None when fewer than three
    points remain.
    """
    if not growth:
        return None
    total = growth[-1][0]
    if min_tokens is None:
        min_tokens = max(1, total // 10)
    use = [(n, v) for n, v in growth if n >= min_tokens and v > 0]
    if len(use) < 3:
        return None
    line = fit_line([math.log10(n) for n, _ in use], [math.log10(v) for _, v in use])
    return HeapsFit(
        k=10**line.intercept, beta=line.slope, r2=line.r2, rms=line.rms, min_tokens=min_tokens, points=line.n
    )
