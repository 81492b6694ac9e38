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
    python bench/freshness.py --live               # the same policies crawling the test web, ~3 minutes

``--live`` crawls the test web (its pages change as Poisson processes at known rates, served
with ETag/Last-Modified) with ``trawl crawl --revisit --policy …`` under one budget, and judges
each crawl against the ground truth: at every moment (a grid of 0.05 s after every page was
fetched once) a page's copy is fresh if the page has not changed since the crawler last fetched
it, and its age is how long ago it first changed since then; the means over pages and time are
each policy's measured freshness and age. It also measures the change checks: the bytes on the
wire (head and body) of a revisit the server answered 304 against a full fetch of that page.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.crawl.revisit import policy_frequencies, policy_quality
from trawl.testweb import ServerThread, TestWeb

#: the test web's change rates for --live (changes a second; a page's is rates[i % len(rates)])
LIVE_RATES = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 2.0, 4.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--budget", type=float, default=0.25, help="visits as a share of all changes (0.25)")
    ap.add_argument("--weighted", action="store_true", help="Zipf-like importance weights")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--live", action="store_true", help="the policies in real crawls of the test web instead")
    ap.add_argument("--seconds", type=float, default=40.0, help="(--live) how long each crawl runs")
    args = ap.parse_args()
    if args.live:
        live(args)
        return
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


def live(args: argparse.Namespace) -> None:
    hosts, per_host = 4, 8
    pages = [(f"h{h}.test", i) for h in range(hosts) for i in range(per_host)]  # i < 8: no duplicates
    budget = args.budget * sum(LIVE_RATES[i % len(LIVE_RATES)] for _, i in pages)
    contestants = [("uniform", "freshness"), ("proportional", "freshness"), ("optimal", "freshness"),
                   ("optimal", "age")]  # fmt: skip
    rows = []
    for policy, metric in contestants:
        web = TestWeb(args.seed, hosts=hosts, pages=20, special=False, change_rates=LIVE_RATES)
        with ServerThread(web) as server:
            settings = CrawlSettings(
                min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.02, revisit_max=args.seconds,
                policy=policy, policy_metric=metric, budget=budget, max_seconds=args.seconds,
                sitemaps=False, store=False, include=(r"/p/[0-7]\.html$",),
                resolve=tuple(server.resolve_rules()),
            )  # fmt: skip
            asyncio.run(Crawler(settings, Frontier()).run([f"http://{h}/p/{i}.html" for h, i in pages]))
            t0 = server.server.started
            log = [e for e in server.server.log if e.target.startswith("/p/")]
        fetched: dict[tuple[str, int], list[float]] = {p: [] for p in pages}
        full: dict[tuple[str, int], int] = {}
        wire_304 = wire_full = 0
        for e in log:
            page = (e.host, int(e.target[3:-5]))
            fetched[page].append(e.start - t0)
            if e.status == 200:
                full[page] = e.wire
        for e in log:
            page = (e.host, int(e.target[3:-5]))
            if e.status == 304 and page in full:
                wire_304 += e.wire
                wire_full += full[page]
        end = max(e.start - t0 for e in log)
        begin = max(times[0] for times in fetched.values() if times)
        grid = [begin + k * 0.05 for k in range(int((end - begin) / 0.05))]
        fresh = age = late_age = 0.0
        half = grid[len(grid) // 2] if grid else end  # the second half: once the rates are learnt
        for (host, i), times in fetched.items():
            web.version(host, i, end)  # the change events up to the end
            changes = [web.start + c for c in web._events.get((host, i), [])]
            times.sort()
            for t in grid:
                last = times[bisect.bisect_right(times, t) - 1]
                first = bisect.bisect_right(changes, last)  # the first change after the last fetch
                if first < len(changes) and changes[first] <= t:
                    age += t - changes[first]
                    if t >= half:
                        late_age += t - changes[first]
                else:
                    fresh += 1
        n = len(grid) * len(pages)
        revisits = (len(log) - len(pages)) / max(end - begin, 1e-9)
        true_rates = [LIVE_RATES[i % len(LIVE_RATES)] for _, i in pages]
        predicted = policy_quality(true_rates, policy_frequencies(true_rates, budget, policy, metric=metric))
        late_n = sum(1 for t in grid if t >= half) * len(pages)
        rows.append((f"{policy} ({metric})" if policy == "optimal" else policy, fresh / n, age / n, revisits,
                     1 - wire_304 / wire_full if wire_full else float("nan"), predicted,
                     late_age / max(late_n, 1)))  # fmt: skip
        print(f"  {rows[-1][0]} done", file=sys.stderr, flush=True)
    base, late_base = rows[0][2], rows[0][6]
    print(f"Live: {len(pages)} test-web pages changing {', '.join(map(str, LIVE_RATES))} times a second, "
          f"a budget of {budget:.1f} revisits a second, {args.seconds:.0f} s a crawl\n")  # fmt: skip
    print("| policy | measured freshness | measured age (s) | age vs uniform | second half: age vs uniform "
          "| closed form (true rates): freshness, age | revisits/s | bytes saved by 304s |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, f, a, r, saved, (pf, pa), late in rows:
        cells = (f"{f:.3f} | {a:.3f} | {a / base:.2f}x | {late / late_base:.2f}x | {pf:.3f}, {pa:.3f} "
                 f"| {r:.1f} | {100 * saved:.1f} %")  # fmt: skip
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
