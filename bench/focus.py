"""Benchmark: focused crawling — the harvest rate (share of fetched pages on the topic) of trawl's
focused crawl against breadth-first, at the same number of pages.

    python bench/focus.py                       # 400 hosts x 20 pages, 8 subjects, 600 pages a crawl
    python bench/focus.py --pages 300 --topic music --threshold 0.3

The test web (``TestWeb(topics=8)``, served on loopback) has hosts writing English about one of
eight subjects each, a cross-host link leading to a host of the same subject 80 % of the time;
the seed (``h0.test``, astronomy) is off the topic asked for (cooking by default), so the crawl
has to find its way there. Ground truth is the subject of each fetched page's host
(:meth:`TestWeb.topic`); an article or home page of an ordinary host counts, robots.txt, sitemaps
and feeds do not. Contestants, each a fresh ``trawl crawl`` (the library call, one process) with
the same limits: breadth-first (no topic), focused by a few topic words, focused by example pages
(five pages of topic hosts the crawl is not seeded with), and each focused one with a pruning
threshold. Reported: harvest rate, pages, the crawl's own harvest rate (its classifier's
judgement), links pruned, seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.crawl.crawler import CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.testweb.site import TOPIC_NAMES, TOPICS

#: the topic words a user would type for each subject (a few of the subject's own words)
QUERIES = {name: words[:4] for name, words in TOPICS.items()}


def harvest(web: TestWeb, coll: Collection, topic: str) -> tuple[int, int]:
    """Pages of ordinary hosts fetched, and how many of them are on ``topic``."""
    pages = on = 0
    for record in coll.records():
        if not record.capture or not record.url.startswith("http://h"):
            continue
        path = record.url.split("/", 3)[-1] if record.url.count("/") >= 3 else ""
        if path and not path.startswith("p/"):
            continue  # robots.txt, sitemaps, feeds, private pages
        host = record.url.split("/")[2]
        pages += 1
        on += web.topic(host) == topic
    return pages, on


def run(web: TestWeb, rules: list[str], pages: int, topic: str, **focus: Any) -> dict[str, Any]:
    settings = CrawlSettings(
        min_delay=0.0,
        delay_factor=0.0,
        concurrency=32,
        max_pages=pages,
        resolve=tuple(rules),
        sitemaps=False,
        feeds=False,
        **focus,
    )
    with tempfile.TemporaryDirectory() as tmp, Collection.create(Path(tmp) / "c") as coll:
        t0 = time.perf_counter()
        result = crawl(web.seeds(), coll, settings)
        seconds = time.perf_counter() - t0
        fetched, on = harvest(web, coll, topic)
    stats = result.stats
    judged = stats.get("focus/pages")
    return {
        "pages": fetched,
        "on": on,
        "harvest": on / fetched if fetched else 0.0,
        "judged": stats.get("focus/relevant") / judged if judged else None,
        "pruned": stats.get("focus/pruned"),
        "seconds": seconds,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=400)
    ap.add_argument("--host-pages", type=int, default=20)
    ap.add_argument("--pages", type=int, default=600, help="pages a crawl fetches")
    ap.add_argument("--topic", default="cooking", choices=TOPIC_NAMES)
    ap.add_argument("--threshold", type=float, default=0.3, help="the pruning threshold tried")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="crawls a contestant (the order of a concurrent crawl varies; the harvest rates are averaged)",
    )
    args = ap.parse_args()
    web = TestWeb(5, hosts=args.hosts, pages=args.host_pages, special=False, topics=len(TOPIC_NAMES),
                  change_rates=(0.0,))  # fmt: skip
    first = TOPIC_NAMES.index(args.topic)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "examples"
        folder.mkdir()
        # five pages of the topic, from hosts far from the seed (the crawl's later finds, at best)
        for k in range(5):
            host = f"h{first + len(TOPIC_NAMES) * (args.hosts // len(TOPIC_NAMES) - 1 - k)}.test"
            (folder / f"{k}.html").write_bytes(web.respond(host, "/p/1.html", {}, 0.0).body)
        contestants: list[tuple[str, dict[str, Any]]] = [
            ("breadth-first", {}),
            ("focus: words", {"focus": tuple(QUERIES[args.topic])}),
            (f"focus: words, threshold {args.threshold}", {"focus": tuple(QUERIES[args.topic]),
                                                          "focus_threshold": args.threshold}),
            ("focus: examples", {"focus_examples": str(folder)}),
            (f"focus: examples, threshold {args.threshold}", {"focus_examples": str(folder),
                                                             "focus_threshold": args.threshold}),
        ]  # fmt: skip
        rows = []
        with ServerThread(web) as server:
            rules = server.resolve_rules()
            for name, focus in contestants:
                runs = [run(web, rules, args.pages, args.topic, **focus) for _ in range(args.repeat)]
                r = {k: sum(x[k] for x in runs) / len(runs) if runs[0][k] is not None else None
                     for k in runs[0]}  # fmt: skip
                r["spread"] = (min(x["harvest"] for x in runs), max(x["harvest"] for x in runs))
                rows.append((name, r))
                print(f"  {name}: {r}", file=sys.stderr, flush=True)
    base = rows[0][1]["harvest"] or 1e-9
    print(f"Focused crawling: {args.hosts} hosts x {args.host_pages} pages, 8 subjects, topic "
          f"{args.topic!r} (the seed's host is on astronomy), {args.pages} pages a crawl\n")  # fmt: skip
    print(f"(mean of {args.repeat} crawls each; the harvest rate's range in brackets)\n")
    print(
        "| crawl | pages | on topic | harvest rate | vs breadth-first | the crawl's own judgement "
        "| links pruned | seconds |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        judged = "-" if r["judged"] is None else f"{100 * r['judged']:.1f} %"
        lo, hi = r["spread"]
        print(f"| {name} | {r['pages']:.0f} | {r['on']:.0f} | {100 * r['harvest']:.1f} % "
              f"[{100 * lo:.1f}-{100 * hi:.1f}] | {r['harvest'] / base:.1f}x | {judged} | {r['pruned']:,.0f} "
              f"| {r['seconds']:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
