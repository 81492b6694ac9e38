"""Revisit policies under a budget (Cho & Garcia-Molina): the textbook results, reproduced."""

from __future__ import annotations

import math
import random

import pytest

from trawl.crawl.revisit import expected_age, expected_freshness, policy_frequencies, policy_quality


def _rates(n: int = 400, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rng.lognormvariate(-2.0, 1.5) for _ in range(n)]


def test_every_policy_spends_exactly_the_budget() -> None:
    rates = _rates()
    budget = sum(rates) / 4
    for policy in ("uniform", "proportional", "optimal"):
        for metric in ("freshness", "age"):
            f = policy_frequencies(rates, budget, policy, metric=metric)
            assert len(f) == len(rates) and all(x >= 0 for x in f)
            assert math.isclose(sum(f), budget, rel_tol=1e-6), (policy, metric, sum(f))


def test_uniform_beats_proportional_and_optimal_beats_both() -> None:
    """Uniform beats proportional on freshness; the freshness-optimal policy beats both (and
    gives up on pages that change far faster than it could follow); the age-optimal policy has
    the lowest mean age."""
    rates = _rates()
    budget = sum(rates) / 4
    fresh = {
        p: policy_quality(rates, policy_frequencies(rates, budget, p))[0] for p in ("uniform", "proportional")
    }
    opt = policy_frequencies(rates, budget, "optimal")
    fresh["optimal"] = policy_quality(rates, opt)[0]
    assert fresh["uniform"] > fresh["proportional"] and fresh["optimal"] > fresh["uniform"], fresh
    fastest = max(range(len(rates)), key=lambda i: rates[i])
    assert opt[fastest] == 0.0  # not worth a visit: it is stale again before anyone reads it
    age = {p: policy_quality(rates, policy_frequencies(rates, budget, p, metric="age"))[1]
           for p in ("uniform", "proportional", "optimal")}  # fmt: skip
    assert age["optimal"] < age["uniform"] < age["proportional"], age


def test_weights_buy_visits_and_still_pages_get_none() -> None:
    rates = [0.1, 0.1, 0.0]
    f = policy_frequencies(rates, 0.2, "optimal", weights=[5.0, 1.0, 1.0])
    assert f[0] > f[1] > 0 and f[2] == 0.0


def test_the_formulas_match_a_simulation() -> None:
    """Expected freshness and age of visiting every I seconds a page changing at λ, checked
    against Poisson changes simulated over many intervals."""
    rng = random.Random(7)
    rate, interval, periods = 0.5, 3.0, 20000
    fresh_time = stale_age = 0.0
    for _ in range(periods):
        first = rng.expovariate(rate)  # the first change after a visit
        if first >= interval:
            fresh_time += interval
        else:
            fresh_time += first
            stale_age += (interval - first) ** 2 / 2  # integral of the age over the stale stretch
    total = periods * interval
    assert fresh_time / total == pytest.approx(expected_freshness(rate, interval), rel=0.02)
    assert stale_age / total == pytest.approx(expected_age(rate, interval), rel=0.03)


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(ValueError, match="budget"):
        policy_frequencies([0.1], 0.0)
    with pytest.raises(ValueError, match="policy"):
        policy_frequencies([0.1], 1.0, "random")
    assert policy_frequencies([], 1.0) == []
