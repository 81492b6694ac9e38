"""Crawl throughput on the local test web: trawl vs Scrapy vs a bare aiohttp loop, in one run.

Each contestant runs in its own process against the same test-web server (its own process too,
pages rendered before it listens: ``trawl testweb --prerender``), fetches the same number of pages
from the same seed with the same limits (no delay, robots.txt obeyed, at most one request in
flight per host for the two crawlers, 128 in flight overall) and extracts the links of every
page. All run on uvloop when it is installed (Scrapy through its asyncio reactor). The bare
loop has no politeness, robots or persistence: it is what aiohttp itself costs. ``trawl +
store`` is the whole ``trawl crawl`` path (pipeline and collection in worker processes).
Besides pages/s, each row gives the contestant's CPU per page (its own process and children) and
the server's CPU per request, which a busy shared machine disturbs far less than wall time.

A second part measures memory over a 1,000,000-URL frontier: 1 M URLs over 500 hosts are queued
and then taken and finished one by one (Mercator queues, SQLite WAL, the seen set), with the
process's resident memory sampled every 100 k URLs. ``--crawl-memory N`` crawls N pages for real
(a test web of N/100 hosts, the frontier on disk) and samples the whole crawler's memory.

    python bench/crawl.py [--pages 3000] [--hosts 500] [--urls 1000000] [--quick]
    python bench/crawl.py --only-memory --crawl-memory 1000000
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
from typing import Any

import numpy as np

from trawl.crawl.frontier import DONE, Entry, Frontier
from trawl.crawl.seen import SeenSet
from trawl.crawl.urlnorm import url_key

ROOT = Path(__file__).resolve().parent.parent

TRAWL = r"""
import json, sys, time
from trawl.crawl import aio
from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
port, pages = int(sys.argv[1]), int(sys.argv[2])
s = CrawlSettings(min_delay=0, delay_factor=0, concurrency=128, max_pages=pages, store=False,
                  resolve=(f"*.test=127.0.0.1:{port}",), sitemaps=False)
c = Crawler(s, Frontier())
cpu, t = time.process_time(), time.perf_counter()
r = aio.run(c.run(["http://h0.test/"]))
dt, cpu = time.perf_counter() - t, time.process_time() - cpu
print(json.dumps({"pages": r.pages, "seconds": dt, "cpu": cpu, "requests": r.stats.get("fetch/requests"),
                  "links": r.stats.get("discover/links"), "uvloop": aio.uvloop_enabled()}))
"""

TRAWL_STORE = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
from typing import Any
from trawl.crawl import aio
from trawl.crawl.crawler import CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
port, pages = int(sys.argv[1]), int(sys.argv[2])
WORKERS, OVERRIDES = 2, []
s = CrawlSettings(min_delay=0, delay_factor=0, concurrency=128, max_pages=pages,
                  resolve=(f"*.test=127.0.0.1:{port}",), sitemaps=False, store_workers=WORKERS)
def children():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime
with tempfile.TemporaryDirectory() as tmp, Collection.create(Path(tmp) / "c", overrides=OVERRIDES) as coll:
    cpu, kids, t = time.process_time(), children(), time.perf_counter()
    r = crawl(["http://h0.test/"], coll, s)
    dt, cpu, kids = time.perf_counter() - t, time.process_time() - cpu, children() - kids
    stored = r.stats.get("store/records")
print(json.dumps({"pages": r.pages, "seconds": dt, "cpu": cpu + kids, "worker_cpu": kids,
                  "requests": r.stats.get("fetch/requests"), "links": r.stats.get("discover/links"),
                  "stored": stored, "uvloop": aio.uvloop_enabled()}))
"""

BARE = r"""
import asyncio, json, sys, time
from urllib.parse import urljoin
import aiohttp
from selectolax.lexbor import LexborHTMLParser
from trawl.crawl import aio
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
        cpu, t = time.process_time(), time.perf_counter()
        tasks = [asyncio.create_task(worker()) for _ in range(128)]
        while done < pages:
            await asyncio.sleep(0.01)
        dt, cpu = time.perf_counter() - t, time.process_time() - cpu
        for task in tasks: task.cancel()
    print(json.dumps({"pages": done, "seconds": dt, "cpu": cpu, "requests": requests, "links": links,
                      "uvloop": aio.uvloop_enabled()}))
aio.run(main())
"""

# Scrapy as configured for every crawl benchmark (robots.txt, one request a host, 128 in flight, no delay,
# its asyncio reactor on uvloop); bench/pipeline.py adds an item pipeline to the same settings
SCRAPY_SETTINGS = r"""
settings = {
    "LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": True, "CONCURRENT_REQUESTS": 128,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0, "CLOSESPIDER_PAGECOUNT": pages,
    "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False, "RETRY_ENABLED": False,
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", "DEPTH_PRIORITY": 1,
    "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
    "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
}
if aio.uvloop_enabled():  # the same loop trawl runs on, where Scrapy can use it
    settings["ASYNCIO_EVENT_LOOP"] = "uvloop.Loop"
"""

SCRAPY = (
    r"""
import json, os, sys, time
port, pages = int(sys.argv[1]), int(sys.argv[2])
os.environ["http_proxy"] = f"http://127.0.0.1:{port}"
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from trawl.crawl import aio
class Bench(scrapy.Spider):
    name = "bench"
    start_urls = ["http://h0.test/"]
    extractor = LinkExtractor()
    def parse(self, response):
        for link in self.extractor.extract_links(response):
            yield response.follow(link.url, self.parse)
"""
    + SCRAPY_SETTINGS
    + r"""process = CrawlerProcess(settings=settings)
crawler = process.create_crawler(Bench)
cpu, t = time.process_time(), time.perf_counter()
process.crawl(crawler)
process.start()
dt, cpu = time.perf_counter() - t, time.process_time() - cpu
s = crawler.stats.get_stats()
print(json.dumps({"pages": s.get("response_received_count", 0), "seconds": dt, "cpu": cpu,
                  "requests": s.get("downloader/request_count", 0), "links": None,
                  "uvloop": "ASYNCIO_EVENT_LOOP" in settings}))
"""
)


def start_server(hosts: int, pages: int, *, prerender: bool = True) -> tuple[subprocess.Popen[str], int]:
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
    if prerender:
        cmd.append("--prerender")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r":(\d+) ", line)
    if not m:
        proc.kill()
        raise SystemExit(f"testweb did not start: {line!r}")
    return proc, int(m.group(1))


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (Linux ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_contestant(
    code: str, port: int, pages: int, server_pid: int | None = None, *, stream: bool = False
) -> dict[str, Any]:
    # a real file, not -c: Scrapy inspects the spider's source
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    t = time.perf_counter()
    server0 = process_cpu(server_pid) if server_pid else float("nan")
    try:
        r = subprocess.run(
            [sys.executable, fh.name, str(port), str(pages)],
            stdout=subprocess.PIPE,
            stderr=None if stream else subprocess.PIPE,  # stream: progress lines as they come
            text=True,
            check=False,
            cwd=ROOT,
        )
    finally:
        os.unlink(fh.name)
    if r.returncode != 0:
        raise SystemExit((r.stderr or "")[-3000:] or f"exit status {r.returncode}")
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    out["server_cpu"] = (process_cpu(server_pid) - server0) if server_pid else float("nan")
    out["load"] = os.getloadavg()[0]
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


CRAWL_MEMORY = r"""
import json, os, resource, sys, tempfile, time
from pathlib import Path
from typing import Any
from trawl.crawl import aio
from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
port, pages = int(sys.argv[1]), int(sys.argv[2])
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
samples, step = [], max(1, pages // 20)
next_mark = [step]
def progress(p):
    if p.pages >= next_mark[0]:
        next_mark[0] += step
        samples.append((p.pages, p.queued, round(rss(), 1), round(p.pages_per_second)))
        print(f"  {p.pages:>9,} pages  {p.queued:>9,} queued  RSS {samples[-1][2]} MiB  "
              f"{samples[-1][3]} pages/s", file=sys.stderr, flush=True)
s = CrawlSettings(min_delay=0, delay_factor=0, concurrency=128, max_pages=pages, store=False,
                  resolve=(f"*.test=127.0.0.1:{port}",), sitemaps=False, max_pages_per_host=100_000)
with tempfile.TemporaryDirectory() as tmp:
    c = Crawler(s, Frontier(Path(tmp) / "frontier.sqlite"), on_progress=progress)
    cpu, t = time.process_time(), time.perf_counter()
    r = aio.run(c.run(["http://h0.test/"]))
    dt, cpu = time.perf_counter() - t, time.process_time() - cpu
    counts = r.frontier
print(json.dumps({"pages": r.pages, "seconds": dt, "cpu": cpu, "requests": r.stats.get("fetch/requests"),
                  "links": r.stats.get("discover/links"), "urls": sum(counts.values()), "frontier": counts,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "samples": samples}))
"""


_PLAIN = ["extract.enabled=false", "langid.enabled=false"]


def crawl_memory(pages: int, hosts: int = 0) -> dict[str, Any]:
    """A real crawl of ``pages`` pages (fetch and links, frontier on disk), resident memory sampled."""
    hosts = hosts or max(500, pages // 100)
    server, port = start_server(hosts, 100, prerender=False)
    try:
        return run_contestant(CRAWL_MEMORY, port, pages, server.pid, stream=True)
    finally:
        server.terminate()
        server.wait()


def _rate(r: dict[str, Any]) -> float:
    return float(r["pages"]) / float(r["seconds"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--hosts", type=int, default=500)
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="1000 pages, 200 k URLs")
    ap.add_argument("--skip-scrapy", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="rounds (rotated order, best kept)")
    ap.add_argument("--seen", type=int, default=10_000_000, help="URLs in the seen-set measurement")
    ap.add_argument(
        "--crawl-memory",
        type=int,
        default=0,
        metavar="N",
        help="also crawl N pages for real (frontier on disk) and sample the crawler's memory",
    )
    ap.add_argument("--only-memory", action="store_true", help="only the --crawl-memory run")
    ap.add_argument(
        "--memory-hosts",
        type=int,
        default=0,
        metavar="H",
        help="hosts of that test web (N/100), 100 pages each",
    )
    ap.add_argument(
        "--contestants",
        nargs="*",
        help="a subset of trawl, aiohttp, store, scrapy (the default), convert, convert1, convert0",
    )
    args = ap.parse_args()
    if args.quick:
        args.pages, args.urls, args.seen, args.repeat = 1000, 200_000, 1_000_000, 1
    if not args.only_memory:
        speed(args)
    if args.crawl_memory:
        mem = crawl_memory(args.crawl_memory, args.memory_hosts)
        print(
            f"\nA real crawl of {int(mem['pages']):,} pages ({int(mem['requests']):,} requests, "
            f"{int(mem['urls']):,} URLs discovered, frontier on disk) in {mem['seconds']:.0f} s, "
            f"{_rate(mem):.0f} pages/s, crawler CPU {mem['cpu']:.0f} s, load {mem['load']:.1f}: "
            f"peak RSS {mem['peak_rss_mib']:.1f} MiB"
        )
        for n, queued, rss, rate in mem["samples"]:
            print(f"  {n:>9,} pages  {queued:>9,} queued  RSS {rss} MiB  {rate} pages/s")
    if args.only_memory:
        return
    mem2 = frontier_memory(args.urls, args.hosts)
    print(
        f"\nFrontier of {mem2['urls']:,} URLs over {args.hosts} hosts: "
        f"queued {mem2['add_per_s']:,.0f} URLs/s, "
        f"taken {mem2['take_per_s']:,.0f} URLs/s, peak RSS {mem2['peak_rss_mib']} MiB"
    )
    for kind, n, rss in mem2["samples"]:  # type: ignore[attr-defined]
        print(f"  {kind:6s} {n:>9,}  RSS {rss} MiB")
    seen = seen_set_size(args.seen)
    print(
        f"\nSeen-URL set at {seen['urls']:,} URLs: {seen['mib']:.0f} MiB "
        f"({seen['bytes_per_url']:.1f} bytes/URL), "
        f"{seen['adds_per_s']:,.0f} adds/s"
    )


def speed(args: argparse.Namespace) -> None:
    server, port = start_server(args.hosts, 40)
    results: dict[str, dict[str, Any]] = {}
    every = {
        "trawl": TRAWL,
        "aiohttp": BARE,
        "store": TRAWL_STORE,
        "scrapy": SCRAPY,
        # the whole path without main-content extraction and language tagging (conversion only),
        # in two worker processes, one, or inside the event loop (as before the workers)
        "convert": TRAWL_STORE.replace("WORKERS, OVERRIDES = 2, []", f"WORKERS, OVERRIDES = 2, {_PLAIN}"),
        "convert1": TRAWL_STORE.replace("WORKERS, OVERRIDES = 2, []", f"WORKERS, OVERRIDES = 1, {_PLAIN}"),
        "convert0": TRAWL_STORE.replace("WORKERS, OVERRIDES = 2, []", f"WORKERS, OVERRIDES = 0, {_PLAIN}"),
    }
    names = {
        "trawl": "trawl",
        "aiohttp": "aiohttp loop",
        "store": "trawl + store",
        "scrapy": "scrapy",
        "convert": "store, convert only",
        "convert1": "convert, 1 worker",
        "convert0": "convert, in loop",
    }
    chosen = args.contestants or ["trawl", "aiohttp", "store", "scrapy"]
    if args.skip_scrapy and "scrapy" in chosen:
        chosen.remove("scrapy")
    contestants = [(names[c], every[c]) for c in chosen]
    try:
        # rounds in rotated order, best round kept: a busy moment of a shared machine then falls on
        # every contestant in turn rather than on one (as bench/harness.py does in-process)
        for round_no in range(args.repeat):
            k = round_no % len(contestants)
            for name, code in contestants[k:] + contestants[:k]:
                r = run_contestant(code, port, args.pages, server.pid)
                print(f"round {round_no + 1} {name:14s} {r}", flush=True)
                best = results.get(name)
                if best is None or _rate(r) > _rate(best):
                    results[name] = r
    finally:
        server.terminate()
        server.wait()
    print(
        f"\nFetch + link extraction, test web of {args.hosts} hosts, {args.pages} pages, no delay "
        f"(machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})"
    )
    print(
        f"{'contestant':20s} {'pages':>6s} {'requests':>8s} {'seconds':>7s} {'pages/s':>7s} "
        f"{'vs scrapy':>9s} {'CPU ms/page':>11s} {'server ms/req':>13s} {'CPU vs scrapy':>13s} {'load':>5s}"
    )
    ref = results.get("scrapy")
    for name, r in results.items():
        ratio = f"{_rate(r) / _rate(ref):.1f}x" if ref else "-"
        cpu_page = 1000 * r["cpu"] / r["pages"]
        cpu_ratio = f"{(1000 * ref['cpu'] / ref['pages']) / cpu_page:.1f}x" if ref else "-"
        server_req = 1000 * r["server_cpu"] / r["requests"]
        print(
            f"{name:20s} {int(r['pages']):6d} {int(r['requests']):8d} {r['seconds']:7.2f} {_rate(r):7.0f} "
            f"{ratio:>9s} {cpu_page:11.2f} {server_req:13.3f} {cpu_ratio:>13s} {r['load']:5.1f}"
        )


if __name__ == "__main__":
    main()
