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

__all__ = ["ChangeHistory", "estimate_rate", "expected_age", "expected_freshness", "revisit_interval"]


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
