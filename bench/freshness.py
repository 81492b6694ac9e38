"""Revisit policies under a budget, simulated: uniform, proportional, optimal (Cho & Garcia-Molina).

Pages change as Poisson processes with rates drawn from a log-normal (a few pages change far
more often than most, as on the web), each optionally weighted by importance (a Zipf-like weight,
as in-links give); a budget of visits a unit of time is spent by each policy, and each one's
mean freshness and mean age follow from the closed forms (``trawl.crawl.revisit``), which
``tests/crawl/test_revisit_policies.py`` checks against simulated changes. The textbook results
to reproduce: uniform beats proportional on freshness, the optimal policy beats both, and the
age-optimal policy has the lowest age.

    python bench/freshness.py                      # 5,000 pages, budget a quarter of the changes
    python bench/freshness.py --pages 20000 --budget 0.1 --weighted
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.crawl.revisit import policy_frequencies, policy_quality


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--budget", type=float, default=0.25, help="visits as a share of all changes (0.25)")
    ap.add_argument("--weighted", action="store_true", help="Zipf-like importance weights")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rates = [rng.lognormvariate(-2.0, 1.5) for _ in range(args.pages)]
    weights = (
        [1.0 / (1 + i) ** 0.8 for i in rng.sample(range(args.pages), args.pages)] if args.weighted else None
    )
    budget = args.budget * sum(rates)
    rows = []
    for policy, metric in (("uniform", "freshness"), ("proportional", "freshness"), ("optimal", "freshness"),
                           ("optimal", "age")):  # fmt: skip
        t0 = time.perf_counter()
        f = policy_frequencies(rates, budget, policy, weights=weights, metric=metric)
        fresh, age = policy_quality(rates, f, weights)
        name = policy if policy != "optimal" else f"optimal ({metric})"
        rows.append((name, fresh, age, sum(1 for x in f if x == 0), time.perf_counter() - t0))
    uniform_age = rows[0][2]
    kind = "weighted" if args.weighted else "equal weights"
    print(f"{args.pages:,} pages, budget {args.budget:g} of the changes, {kind}\n")
    print("| policy | mean freshness | mean age | age vs uniform | pages never revisited | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, fresh, age, never, secs in rows:
        ratio = f"{age / uniform_age:.2f}x" if age != float("inf") else "-"
        print(f"| {name} | {fresh:.4f} | {age:.3f} | {ratio} | {never:,} | {secs:.2f} |")


if __name__ == "__main__":
    main()
