"""The crawl monitor's cost: the share of a crawl's CPU its live state takes (issue 36: < 5 %).

Crawls the test web with the monitor's tick timed (the file it writes and the control file it
reads, every half second), and times one tick on a frontier of ``--hosts-synthetic`` hosts (the
hosts table is the 50 longest queues of all of them: one pass a tick).

    python bench/monitor.py                 # a few seconds
    python bench/monitor.py --hosts 16 --pages 60 --hosts-synthetic 200000
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.crawl import live
from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb


def _cpu() -> float:
    """CPU seconds of this process and its ended children (the crawl's store workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--hosts-synthetic", type=int, default=50_000)
    args = ap.parse_args()

    spent = [0.0, 0.0]
    tick = live.LiveMonitor.tick

    def timed(self: live.LiveMonitor, crawler: Crawler, *, force: bool = False) -> None:
        t = time.process_time()
        tick(self, crawler, force=force)
        spent[0] += time.process_time() - t
        spent[1] += 1

    live.LiveMonitor.tick = timed  # type: ignore[method-assign]
    web = TestWeb(1, hosts=args.hosts, pages=args.pages, special=False, change_rates=(0.0,))
    with tempfile.TemporaryDirectory() as d, ServerThread(web) as server:
        settings = CrawlSettings(min_delay=0.05, delay_factor=0.0, resolve=tuple(server.resolve_rules()))
        cpu0, wall0 = _cpu(), time.perf_counter()
        with Collection.create(Path(d) / "c", overrides=["langid.enabled=false"]) as coll:
            result = crawl(web.seeds(), coll, settings)
        cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    live.LiveMonitor.tick = tick  # type: ignore[method-assign]
    print(
        f"crawl of the test web: {result.pages} pages in {wall:.2f} s, {cpu:.2f} s CPU (store workers too); "
        f"monitor: {int(spent[1])} ticks, {spent[0] * 1000:.1f} ms CPU = "
        f"{100 * spent[0] / cpu:.2f} % of the crawl's"
    )

    frontier = Frontier(None)
    for i in range(args.hosts_synthetic):
        frontier.host(f"h{i}.example")
    crawler = Crawler(CrawlSettings(), frontier)
    for i in range(live.RECENT_FETCHES):
        crawler.recent.append((time.time(), f"http://h{i}.example/a/long/path/page.html", 200, 12345, 12.5))
    with tempfile.TemporaryDirectory() as d:
        monitor = live.LiveMonitor(Path(d))
        n = 20
        t = time.process_time()
        for _ in range(n):
            monitor.tick(crawler, force=True)
        per = (time.process_time() - t) / n
        size = monitor.path.stat().st_size
    out: dict[str, Any] = {
        "hosts": args.hosts_synthetic,
        "ms_a_tick": round(per * 1000, 2),
        "file_bytes": size,
    }
    print(
        f"{out['hosts']:,} hosts: {out['ms_a_tick']} ms CPU a tick = {per / 0.5 * 100:.1f} % of one core "
        f"at two ticks a second; live.json {size:,} bytes"
    )


if __name__ == "__main__":
    main()
