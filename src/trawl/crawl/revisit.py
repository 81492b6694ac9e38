"""Revisit scheduling: estimate how often each page changes, and come back accordingly.

A page is modelled as changing at the events of a Poisson process of unknown rate λ. A crawler
only sees, at each visit, whether the page changed since the previous one (not how many times),
so the naive estimate X/T (changes seen / time watched) is biased low for pages that change
faster than they are visited. :func:`estimate_rate` uses Cho & Garcia-Molina's bias-reduced
estimator (*Estimating frequency of change*, ACM TOIT 2003) for n visits at mean interval I with
X changes detected: λ̂ = -ln((n - X + 0.5) / (n + 0.5)) / I, blended with a prior (a sitemap
``changefreq``, or a default) while there are few visits.

:func:`revisit_interval` chooses the next interval: proportional to 1/λ̂ (so each page gets
about ``changes_per_visit`` changes between two visits), clamped to ``[min, max]``; a page that
never changed drifts to ``max``. :func:`expected_freshness` and :func:`expected_age` give the
two standard quality measures of a revisit interval I for a rate λ (Cho & Garcia-Molina 2000):
freshness F = (1 - e^{-λI}) / (λI), age A = I/2 - 1/λ + (1 - e^{-λI}) / (λ² I).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "POLICIES",
    "ChangeHistory",
    "estimate_rate",
    "expected_age",
    "expected_freshness",
    "policy_frequencies",
    "policy_quality",
    "revisit_interval",
]


@dataclass(slots=True)
class ChangeHistory:
    """What a crawler knows about one page's changes."""

    visits: int = 0  # fetches after the first
    changes: int = 0  # of those, how many found the page changed
    watched: float = 0.0  # seconds between the first and the last fetch

    def observe(self, interval: float, changed: bool) -> None:
        self.visits += 1
        self.changes += int(changed)
        self.watched += max(0.0, interval)


def estimate_rate(history: ChangeHistory, prior: float = 1 / 86400, prior_weight: float = 1.0) -> float:
    """λ̂ in changes per second (the prior counts as ``prior_weight`` pseudo-visits)."""
    n, x = history.visits, history.changes
    if n == 0 or history.watched <= 0:
        return prior
    mean_interval = history.watched / n
    estimate = -math.log((n - x + 0.5) / (n + 0.5)) / mean_interval
    return (estimate * n + prior * prior_weight) / (n + prior_weight)


def revisit_interval(rate: float, *, minimum: float, maximum: float, changes_per_visit: float = 0.5) -> float:
    """Seconds until the next visit of a page changing at ``rate`` per second."""
    if rate <= 0:
        return maximum
    return min(maximum, max(minimum, changes_per_visit / rate))


def expected_freshness(rate: float, interval: float) -> float:
    """Probability that the copy is up to date at a random time, revisiting every ``interval`` s."""
    if rate <= 0 or interval <= 0:
        return 1.0
    x = rate * interval
    return (1 - math.exp(-x)) / x


def expected_age(rate: float, interval: float) -> float:
    """Expected seconds since the copy went stale, at a random time (0 when fresh)."""
    if rate <= 0 or interval <= 0:
        return 0.0
    x = rate * interval
    return interval / 2 - 1 / rate + (1 - math.exp(-x)) / (rate * rate * interval)


# -- revisit policies under a budget ------------------------------------------------------------

#: The policies :func:`policy_frequencies` knows.
POLICIES = ("uniform", "proportional", "optimal")


def _freshness_gain(rate: FloatArray, f: FloatArray) -> FloatArray:
    """dF/df: what one more visit a second adds to a page's freshness (falls with f)."""
    x = rate / f
    out: FloatArray = (1.0 - np.exp(-x)) / rate - np.exp(-x) / f
    return out


def _age_gain(rate: FloatArray, f: FloatArray) -> FloatArray:
    """-dA/df: what one more visit a second takes off a page's expected age (falls with f)."""
    x = rate / f
    out: FloatArray = 1.0 / (2 * f * f) - (1.0 - np.exp(-x)) / (rate * rate) + np.exp(-x) / (rate * f)
    return out


def policy_frequencies(
    rates: list[float],
    budget: float,
    policy: str = "optimal",
    *,
    weights: list[float] | None = None,
    metric: str = "freshness",
) -> list[float]:
    """Visits a second for each page, spending ``budget`` visits a second in all.

    ``uniform``: every page as often; ``proportional``: in proportion to its change rate;
    ``optimal``: Cho & Garcia-Molina's solution (*Effective page refresh policies for Web
    crawlers*, TODS 2003) maximising the weighted mean freshness (``metric="freshness"``) or
    minimising the weighted mean age (``"age"``): each page gets the frequency at which one
    more visit a second is worth the same to it as to every other, so a page that changes far
    faster than the budget can follow is, for freshness, not visited at all.
    """
    n = len(rates)
    if n == 0:
        return []
    if budget <= 0:
        raise ValueError(f"a revisit budget must be positive, not {budget}")
    w = weights or [1.0] * n
    if policy == "uniform":
        return [budget / n] * n
    if policy == "proportional":
        total = sum(rates)
        return [budget * r / total for r in rates] if total > 0 else [budget / n] * n
    if policy != "optimal":
        raise ValueError(f"unknown revisit policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if metric not in ("freshness", "age"):
        raise ValueError(f"unknown metric {metric!r}; choose freshness or age")
    gain_of = _freshness_gain if metric == "freshness" else _age_gain
    r = np.asarray(rates, dtype=float)
    wt = np.asarray(w, dtype=float)
    live = (r > 0) & (wt > 0)  # a page that never changes needs no revisit
    r_live, w_live = r[live], wt[live]
    # for freshness a page is worth visiting at all only while w/λ (its gain at f → 0) beats the price
    first = w_live / r_live if metric == "freshness" else np.full(r_live.shape, np.inf)

    def frequencies(mu: float) -> FloatArray:
        lo = np.zeros_like(r_live)
        hi = np.maximum(budget, r_live) * 1e3
        for _ in range(70):
            mid = (lo + hi) / 2
            more = w_live * gain_of(r_live, mid) > mu
            lo = np.where(more, mid, lo)
            hi = np.where(more, hi, mid)
        out: FloatArray = np.where(first > mu, (lo + hi) / 2, 0.0)
        return out

    # the price mu of a visit: bisection in log space until the frequencies spend the budget
    lo_mu, hi_mu = -700.0, 700.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(100):
            mid_mu = (lo_mu + hi_mu) / 2
            if float(frequencies(math.exp(mid_mu)).sum()) > budget:
                lo_mu = mid_mu
            else:
                hi_mu = mid_mu
        chosen = frequencies(math.exp((lo_mu + hi_mu) / 2))
    out = np.zeros_like(r)
    out[live] = chosen
    return [float(x) for x in out]


def policy_quality(
    rates: list[float], frequencies: list[float], weights: list[float] | None = None
) -> tuple[float, float]:
    """The weighted mean freshness and mean age (seconds) of revisiting at ``frequencies``."""
    w = weights or [1.0] * len(rates)
    total = sum(w)
    fresh = age = 0.0
    for rate, f, wt in zip(rates, frequencies, w, strict=True):
        if f <= 0:
            fresh += wt * (1.0 if rate <= 0 else 0.0)
            age += wt * (0.0 if rate <= 0 else math.inf)
            continue
        fresh += wt * expected_freshness(rate, 1.0 / f)
        age += wt * expected_age(rate, 1.0 / f)
    return fresh / total, age / total
