"""Crawl throughput on the local test web: trawl vs Scrapy vs a bare aiohttp loop, in one run.

Each contestant runs in its own process against the same test-web server (its own process too),
fetches the same number of pages from the same seed with the same limits (no delay, robots.txt
obeyed, at most one request in flight per host for the two crawlers, 128 in flight overall) and
extracts the links of every page. The bare loop has no politeness, robots or persistence: it is
the practical limit of Python + aiohttp on this machine.

A second part measures memory over a 1,000,000-URL frontier: 1 M URLs over 500 hosts are queued
and then taken and finished one by one (Mercator queues, SQLite WAL, the seen set), with the
process's resident memory sampled every 100 k URLs.

    python bench/crawl.py [--pages 3000] [--hosts 500] [--urls 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from trawl.crawl.frontier import DONE, Entry, Frontier
from trawl.crawl.seen import SeenSet
from trawl.crawl.urlnorm import url_key

ROOT = Path(__file__).resolve().parent.parent

TRAWL = r"""
import asyncio, json, sys, time
from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
port, pages = int(sys.argv[1]), int(sys.argv[2])
s = CrawlSettings(min_delay=0, delay_factor=0, concurrency=128, max_pages=pages, store=False,
                  resolve=(f"*.test=127.0.0.1:{port}",), sitemaps=False)
c = Crawler(s, Frontier())
t = time.perf_counter()
r = asyncio.run(c.run(["http://h0.test/"]))
dt = time.perf_counter() - t
print(json.dumps({"pages": r.pages, "seconds": dt, "requests": r.stats.get("fetch/requests"),
                  "links": r.stats.get("discover/links")}))
"""

TRAWL_STORE = r"""
import json, sys, tempfile, time
from pathlib import Path
from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.job import crawl
from trawl.store.collection import Collection
port, pages = int(sys.argv[1]), int(sys.argv[2])
s = CrawlSettings(min_delay=0, delay_factor=0, concurrency=128, max_pages=pages,
                  resolve=(f"*.test=127.0.0.1:{port}",), sitemaps=False)
with tempfile.TemporaryDirectory() as tmp, Collection.create(Path(tmp) / "c") as coll:
    t = time.perf_counter()
    r = crawl(["http://h0.test/"], coll, s)
    dt = time.perf_counter() - t
print(json.dumps({"pages": r.pages, "seconds": dt, "requests": r.stats.get("fetch/requests"),
                  "links": r.stats.get("discover/links")}))
"""

BARE = r"""
import asyncio, json, sys, time
from urllib.parse import urljoin
import aiohttp
from selectolax.lexbor import LexborHTMLParser
from trawl.crawl.transport import RuleResolver, parse_resolve_rules
port, pages = int(sys.argv[1]), int(sys.argv[2])
async def main():
    rules = parse_resolve_rules([f"*.test=127.0.0.1:{port}"])
    conn = aiohttp.TCPConnector(resolver=RuleResolver(rules), limit=256)
    seen = {"http://h0.test/"}; queue = asyncio.Queue(); queue.put_nowait("http://h0.test/")
    done = 0; links = 0; requests = 0
    async with aiohttp.ClientSession(connector=conn) as session:
        async def worker():
            nonlocal done, links, requests
            while done < pages:
                url = await queue.get()
                requests += 1
                async with session.get(url) as resp:
                    body = await resp.read()
                done += 1
                for a in LexborHTMLParser(body.decode("utf-8", "replace")).css("a[href]"):
                    u = urljoin(url, a.attributes.get("href") or "").split("#")[0]
                    links += 1
                    if u.startswith("http") and u not in seen:
                        seen.add(u); queue.put_nowait(u)
        t = time.perf_counter()
        tasks = [asyncio.create_task(worker()) for _ in range(128)]
        while done < pages:
            await asyncio.sleep(0.01)
        dt = time.perf_counter() - t
        for task in tasks: task.cancel()
    print(json.dumps({"pages": done, "seconds": dt, "requests": requests, "links": links}))
asyncio.run(main())
"""

SCRAPY = r"""
import json, os, sys, time
port, pages = int(sys.argv[1]), int(sys.argv[2])
os.environ["http_proxy"] = f"http://127.0.0.1:{port}"
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
stats = {}
class Bench(scrapy.Spider):
    name = "bench"
    start_urls = ["http://h0.test/"]
    extractor = LinkExtractor()
    def parse(self, response):
        for link in self.extractor.extract_links(response):
            yield response.follow(link.url, self.parse)
process = CrawlerProcess(settings={
    "LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": True, "CONCURRENT_REQUESTS": 128,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0, "CLOSESPIDER_PAGECOUNT": pages,
    "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False, "RETRY_ENABLED": False,
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", "DEPTH_PRIORITY": 1,
    "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
    "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
})
crawler = process.create_crawler(Bench)
t = time.perf_counter()
process.crawl(crawler)
process.start()
dt = time.perf_counter() - t
s = crawler.stats.get_stats()
print(json.dumps({"pages": s.get("response_received_count", 0), "seconds": dt,
                  "requests": s.get("downloader/request_count", 0), "links": None}))
"""


def start_server(hosts: int, pages: int) -> tuple[subprocess.Popen[str], int]:
    cmd = [
        sys.executable,
        "-c",
        "import sys; from trawl.cli.main import main; sys.exit(main())",
        "testweb",
        "--plain",
        "--hosts",
        str(hosts),
        "--pages",
        str(pages),
        "--seed",
        "7",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r":(\d+) ", line)
    if not m:
        proc.kill()
        raise SystemExit(f"testweb did not start: {line!r}")
    return proc, int(m.group(1))


def run_contestant(code: str, port: int, pages: int) -> dict[str, float]:
    # a real file, not -c: Scrapy inspects the spider's source
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    t = time.perf_counter()
    try:
        r = subprocess.run(
            [sys.executable, fh.name, str(port), str(pages)],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
    finally:
        os.unlink(fh.name)
    if r.returncode != 0:
        raise SystemExit(r.stderr[-3000:])
    out: dict[str, float] = json.loads(r.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def frontier_memory(n_urls: int, hosts: int) -> dict[str, object]:

    def rss_mib() -> float:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        f = Frontier(Path(tmp) / "f.sqlite")
        t = time.perf_counter()
        batch: list[Entry] = []
        for i in range(n_urls):
            url = f"http://h{i % hosts}.test/p/{i // hosts}.html"
            batch.append(Entry(url_key(url), url, f"h{i % hosts}.test", 0.0, 1))
            if len(batch) == 10000:
                f.add_many(batch)
                batch = []
                f.maybe_flush()
            if (i + 1) % 100_000 == 0:
                samples.append(("queued", i + 1, round(rss_mib(), 1)))
        f.add_many(batch)
        f.flush()
        add_s = time.perf_counter() - t
        t = time.perf_counter()
        taken = 0
        while True:
            h, _ = f.next_host(float("inf"))
            if h is None:
                break
            e = f.pop(h)
            if e is not None:
                f.finish(e, DONE)
                taken += 1
                if taken % 100_000 == 0:
                    samples.append(("taken", taken, round(rss_mib(), 1)))
            f.release(h)
            f.maybe_flush()
        take_s = time.perf_counter() - t
        f.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "urls": n_urls,
        "add_per_s": n_urls / add_s,
        "take_per_s": taken / take_s,
        "taken": taken,
        "peak_rss_mib": round(peak, 1),
        "samples": samples,
    }


def seen_set_size(n: int) -> dict[str, float]:
    """The seen set at ``n`` URLs: bytes per URL and insertion rate (random 64-bit keys)."""

    rng = np.random.default_rng(1)
    seen = SeenSet()
    t = time.perf_counter()
    for start in range(0, n, 100_000):
        keys = rng.integers(-(2**63), 2**63 - 1, size=min(100_000, n - start), dtype=np.int64).tolist()
        seen.add_many(keys)
    dt = time.perf_counter() - t
    return {"urls": n, "bytes_per_url": seen.nbytes / n, "mib": seen.nbytes / 2**20, "adds_per_s": n / dt}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--hosts", type=int, default=500)
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="1000 pages, 200 k URLs")
    ap.add_argument("--skip-scrapy", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="rounds (rotated order, best kept)")
    ap.add_argument("--seen", type=int, default=10_000_000, help="URLs in the seen-set measurement")
    args = ap.parse_args()
    if args.quick:
        args.pages, args.urls, args.seen, args.repeat = 1000, 200_000, 1_000_000, 1
    server, port = start_server(args.hosts, 40)
    results = {}
    try:
        contestants = [("trawl", TRAWL), ("aiohttp loop", BARE), ("trawl + store", TRAWL_STORE)]
        if not args.skip_scrapy:
            contestants.append(("scrapy", SCRAPY))
        # rounds in rotated order, best round kept: a busy moment of a shared machine then falls on
        # every contestant in turn rather than on one (as bench/harness.py does in-process)
        for round_no in range(args.repeat):
            k = round_no % len(contestants)
            for name, code in contestants[k:] + contestants[:k]:
                r = run_contestant(code, port, args.pages)
                print(f"round {round_no + 1} {name:14s} {r}", flush=True)
                best = results.get(name)
                if best is None or r["pages"] / r["seconds"] > best["pages"] / best["seconds"]:
                    results[name] = r
    finally:
        server.terminate()
        server.wait()
    print(
        f"\nFetch + link extraction, test web of {args.hosts} hosts, {args.pages} pages, no delay "
        f"(machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})"
    )
    print(f"{'contestant':14s} {'pages':>7s} {'requests':>8s} {'seconds':>8s} {'pages/s':>8s}  vs scrapy")
    ref = results.get("scrapy")
    for name, r in results.items():
        rate = r["pages"] / r["seconds"]
        ratio = f"{rate / (ref['pages'] / ref['seconds']):.1f}x" if ref else "-"
        print(
            f"{name:14s} {int(r['pages']):7d} {int(r['requests']):8d} {r['seconds']:8.2f} "
            f"{rate:8.0f}  {ratio}"
        )
    mem = frontier_memory(args.urls, args.hosts)
    print(
        f"\nFrontier of {mem['urls']:,} URLs over {args.hosts} hosts: queued {mem['add_per_s']:,.0f} URLs/s, "
        f"taken {mem['take_per_s']:,.0f} URLs/s, peak RSS {mem['peak_rss_mib']} MiB"
    )
    for kind, n, rss in mem["samples"]:  # type: ignore[attr-defined]
        print(f"  {kind:6s} {n:>9,}  RSS {rss} MiB")
    seen = seen_set_size(args.seen)
    print(
        f"\nSeen-URL set at {seen['urls']:,} URLs: {seen['mib']:.0f} MiB "
        f"({seen['bytes_per_url']:.1f} bytes/URL), "
        f"{seen['adds_per_s']:,.0f} adds/s"
    )


if __name__ == "__main__":
    main()
