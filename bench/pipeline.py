"""The headline benchmark: the whole path a user runs, against what they would assemble instead.

(a) **ingest**: a Common-Crawl-shaped WARC of real-size HTML pages (every WCXB page of
``../shared/data/extraction/wcxb-dev`` wrapped as a response, with its request record, split into
``--files`` files) through ``trawl ingest`` with the defaults (sniff, decode, the page's one parse,
main content, language tags, the collection), against **datatrove** as its README builds a
web-text pipeline: ``WarcReader`` → ``Trafilatura`` (its defaults: ``favour_precision``, a 1 s
timeout per page in a sandbox process) → a language tag from a model that ships in its package
(py3langid: datatrove's ``LanguageFilter`` downloads its fastText model at run time) →
``JsonlWriter``, one task per file, one worker per core.

(b) **crawl**: ``trawl crawl`` of the test web with the defaults (fetch, the same steps, the
collection, in its worker processes), against **Scrapy** with a trafilatura item pipeline that
tags the language (py3langid) and writes each response to a WARC file (warcio), as a user would
bolt extraction onto a Scrapy crawl. Both obey robots.txt, keep one request per host in flight
and 128 overall, no delay.

Each contestant runs in its own process (its CPU includes its children); the table gives
documents a second, CPU milliseconds a document (and, for trawl, per stage, from its own
counters), and peak resident memory. Ratios, measured in the same run, are what to compare:
the machine is a shared 2-core VM.

    python bench/pipeline.py                    # both parts
    python bench/pipeline.py --part ingest --pages 400
    python bench/pipeline.py --part crawl --crawl-pages 3000
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WCXB = ROOT.parent / "shared" / "data" / "extraction" / "wcxb-dev"
OUT = ROOT / "bench" / "out" / "pipeline"
sys.path.insert(0, str(ROOT / "bench"))

from crawl import SCRAPY_SETTINGS, TRAWL_STORE, run_contestant, start_server  # noqa: E402 - bench/ is not a package

# --------------------------------------------------------------------------- (a) the WARC input


def _member(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def _record(kind: str, url: str, date: str, block: bytes, extra: str = "") -> bytes:
    ctype = (
        f"application/http; msgtype={kind}" if kind in ("request", "response") else "application/warc-fields"
    )
    head = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:{abs(hash((kind, url))):032x}>\r\n"
        + (f"WARC-Target-URI: {url}\r\n" if url else "")
        + extra
        + f"Content-Type: {ctype}\r\nContent-Length: {len(block)}\r\n\r\n"
    )
    return _member(head.encode() + block + b"\r\n\r\n")


def build_warcs(pages: int, files: int) -> tuple[Path, int, int]:
    """``files`` WARC files holding the first ``pages`` WCXB pages (request + response each, as
    Common Crawl writes them); made once per shape under bench/out/."""
    folder = OUT / f"wcxb-{pages}-{files}"
    names = sorted((WCXB / "html").glob("*.html.gz"))[:pages]
    if not names:
        raise SystemExit(f"no WCXB pages in {WCXB}")
    marker = folder / "done.json"
    if marker.exists():
        done = json.loads(marker.read_text())
        return folder, int(done["pages"]), int(done["bytes"])
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    outs = [(folder / f"part-{i:02d}.warc.gz").open("wb") for i in range(files)]
    try:
        for out in outs:
            info = b"software: trawl bench/pipeline.py\r\nformat: WARC File Format 1.0\r\n"
            out.write(_record("warcinfo", "", "2024-05-06T07:08:09Z", info))
        for k, path in enumerate(names):
            truth = json.loads((WCXB / "truth" / path.name.replace(".html.gz", ".json")).read_text("utf-8"))
            url = truth.get("url") or f"http://wcxb.example/{path.name}"
            body = gzip.decompress(path.read_bytes())
            total += len(body)
            date = "2024-05-06T07:08:09Z"
            host = url.split("/")[2] if "//" in url else "wcxb.example"
            request = f"GET / HTTP/1.1\r\nHost: {host}\r\nUser-Agent: bench\r\n\r\n".encode()
            response = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nServer: bench\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)
            ) + body
            out = outs[k % files]
            out.write(_record("request", url, date, request))
            out.write(_record("response", url, date, response, "WARC-Identified-Payload-Type: text/html\r\n"))
    finally:
        for out in outs:
            out.close()
    marker.write_text(json.dumps({"pages": len(names), "bytes": total}))
    return folder, len(names), total


# --------------------------------------------------------------------------- (a) the contestants

#: trawl ingest with one option changed (``--variants``): what a hand-written part buys on the path.
VARIANTS = {
    "one table": ["table.tablets=false"],  # one RocksDB directory instead of tablets
}

TRAWL_INGEST = r"""
import json, resource, sys, time
from pathlib import Path
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection
folder, out = Path(sys.argv[1]), Path(sys.argv[2])
overrides = sys.argv[3:]  # a variant's options, e.g. table.tablets=false
files = sorted(folder.glob("*.warc.gz"))
cpu, t = time.process_time(), time.perf_counter()
with Collection.create(out, overrides=overrides) as coll:
    result = ingest(files, coll)
dt = time.perf_counter() - t
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = time.process_time() - cpu + kids.ru_utime + kids.ru_stime
stats = result.stats
print(json.dumps({"docs": stats.get("store/records"), "seconds": dt, "cpu": cpu,
                  "stages": stats.timings, "html": stats.get("convert/html"),
                  "langs": sum(v for k, v in stats.counters.items() if k.startswith("langid/lang/")),
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

DATATROVE = r"""
import json, resource, sys, time
from pathlib import Path
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.base import PipelineStep
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter


class LangTag(PipelineStep):
    # a language tag from a model shipped in its package (py3langid), as LanguageFilter would add
    name = "py3langid"

    def run(self, data, rank=0, world_size=1):
        import py3langid
        for doc in data:
            with self.track_time():
                lang, score = py3langid.classify(doc.text)
                doc.metadata["language"] = lang
                doc.metadata["language_score"] = float(score)
            yield doc


def main():
    folder, out, workers = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    tasks = len(list(Path(folder).glob("*.warc.gz")))
    executor = LocalPipelineExecutor(
        pipeline=[
            WarcReader(folder, glob_pattern="*.warc.gz"),
            Trafilatura(),
            LangTag(),
            JsonlWriter(str(out / "docs")),
        ],
        tasks=tasks, workers=workers, logging_dir=str(out / "logs"),
    )
    cpu, t = time.process_time(), time.perf_counter()
    executor.run()
    dt = time.perf_counter() - t
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu + kids.ru_utime + kids.ru_stime
    docs = 0
    for f in (out / "docs").glob("*.jsonl.gz"):
        import gzip
        with gzip.open(f, "rt") as fh:
            docs += sum(1 for _ in fh)
    stats = json.loads((out / "logs" / "stats.json").read_text())
    stages = {}
    for step in stats:
        name = step.get("name", "?")
        total = (step.get("time_stats") or {}).get("total")
        if total is not None:
            stages[name] = total
    print(json.dumps({"docs": docs, "seconds": dt, "cpu": cpu, "stages": stages,
                      "maxrss_mib": kids.ru_maxrss / 1024}))


if __name__ == "__main__":  # the executor starts its workers by forkserver
    main()
"""


def _tree(root: int) -> list[int]:
    """``root`` and every process below it (Linux ``/proc``)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += [child for child, parent in parents.items() if parent == pid]
    return out


def _sample(pid: int) -> tuple[float, int]:
    """CPU seconds so far and resident bytes of one process (0, 0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), int(
            fields[21]
        ) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0.0, 0


def _run(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` as a script; its JSON answer, plus the CPU and peak memory of its whole process
    tree, sampled every 50 ms (datatrove's workers are children of a fork server, which the
    script's own rusage never sees)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
    cpu: dict[int, float] = {}
    peak = 0
    try:
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(
                [sys.executable, fh.name, *args], stdout=out, stderr=err, text=True, cwd=ROOT
            )
            while proc.poll() is None:
                rss = 0
                for pid in _tree(proc.pid):
                    seconds, size = _sample(pid)
                    if seconds:
                        cpu[pid] = max(cpu.get(pid, 0.0), seconds)
                    rss += size
                peak = max(peak, rss)
                time.sleep(0.05)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
    finally:
        os.unlink(fh.name)
    if proc.returncode != 0:
        raise SystemExit(stderr[-3000:] or f"exit status {proc.returncode}")
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    result["tree_cpu"] = sum(cpu.values())
    result["peak_rss_mib"] = peak / 2**20
    result["load"] = os.getloadavg()[0]
    return result


def ingest_part(args: argparse.Namespace) -> list[str]:
    folder, pages, size = build_warcs(args.pages, args.files)
    results: dict[str, dict[str, Any]] = {}
    order = ["trawl", "datatrove", *(f"trawl, {v}" for v in args.variants)]
    for round_no in range(args.repeat):
        for name in order[round_no % len(order) :] + order[: round_no % len(order)]:
            with tempfile.TemporaryDirectory() as tmp:
                if name.startswith("trawl"):
                    variant = VARIANTS[name.removeprefix("trawl, ")] if name != "trawl" else []
                    r = _run(TRAWL_INGEST, str(folder), str(Path(tmp) / "c"), *variant)
                else:
                    r = _run(DATATROVE, str(folder), tmp, str(args.workers))
            print(f"round {round_no + 1} {name:10s} {json.dumps(r)[:300]}", flush=True)
            if r["docs"] < pages // 2:  # a broken contestant (a missing module, every page timed out)
                raise SystemExit(f"{name} stored {r['docs']} of {pages} pages: the comparison is void")
            if (
                name not in results
                or r["docs"] / r["seconds"] > results[name]["docs"] / results[name]["seconds"]
            ):
                results[name] = r
    lines = [
        f"(a) ingest: {pages:,} WCXB pages ({size / 2**20:.0f} MiB of HTML) in {args.files} WARC files; "
        f"{os.cpu_count()} cores; best of {args.repeat}",
        "",
        "| contestant | docs | seconds | docs/s | vs datatrove | CPU ms/doc | peak RSS MiB (all processes) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    ref = results.get("datatrove")
    for name, r in results.items():
        rate = r["docs"] / r["seconds"]
        ratio = f"{rate / (ref['docs'] / ref['seconds']):.1f}x" if ref and ref["docs"] else "-"
        lines.append(
            f"| {name} | {r['docs']:,} | {r['seconds']:.1f} | {rate:.1f} | {ratio} | "
            f"{1000 * max(r['cpu'], r['tree_cpu']) / max(r['docs'], 1):.1f} | {r['peak_rss_mib']:.0f} |"
        )
    for name, r in results.items():
        stages = ", ".join(
            f"{k} {1000 * v / max(r['docs'], 1):.2f}"
            for k, v in sorted(r["stages"].items(), key=lambda kv: -kv[1])
        )
        lines.append(f"\n{name}: ms a document per stage: {stages}")
    return lines


# --------------------------------------------------------------------------- (b) the crawl

SCRAPY_TRAFILATURA = (
    r"""
import json, os, resource, sys, tempfile, time
port, pages = int(sys.argv[1]), int(sys.argv[2])
os.environ["http_proxy"] = f"http://127.0.0.1:{port}"
import py3langid
import scrapy
import trafilatura
from io import BytesIO
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter
from trawl.crawl import aio

class Store:
    # the item pipeline: main content (trafilatura), a language tag (py3langid), a WARC record
    def open_spider(self, spider):
        self.fh = tempfile.TemporaryFile()
        self.writer = WARCWriter(self.fh, gzip=True)
        self.stored = 0
    def close_spider(self, spider):
        self.fh.close()
        spider.crawler.stats.set_value("bench/stored", self.stored)
    def process_item(self, item, spider):
        text = trafilatura.extract(item["html"]) or ""
        item["lang"] = py3langid.classify(text)[0] if text else "und"
        headers = StatusAndHeaders(f"{item['status']} OK", item["headers"], protocol="HTTP/1.1")
        record = self.writer.create_warc_record(item["url"], "response", payload=BytesIO(item["body"]),
                                                http_headers=headers)
        self.writer.write_record(record)
        self.stored += 1
        return {"url": item["url"], "lang": item["lang"], "chars": len(text)}

class Bench(scrapy.Spider):
    name = "bench"
    start_urls = ["http://h0.test/"]
    extractor = LinkExtractor()
    def parse(self, response):
        headers = [(k.decode(), b", ".join(v).decode()) for k, v in response.headers.items()]
        yield {"url": response.url, "status": response.status, "headers": headers, "body": response.body,
               "html": response.text}
        for link in self.extractor.extract_links(response):
            yield response.follow(link.url, self.parse)

"""
    + SCRAPY_SETTINGS
    + r"""settings["ITEM_PIPELINES"] = {"__main__.Store": 100}
process = CrawlerProcess(settings=settings)
crawler = process.create_crawler(Bench)
cpu, t = time.process_time(), time.perf_counter()
process.crawl(crawler)
process.start()
dt, cpu = time.perf_counter() - t, time.process_time() - cpu
s = crawler.stats.get_stats()
print(json.dumps({"pages": s.get("response_received_count", 0), "stored": s.get("bench/stored", 0),
                  "seconds": dt, "cpu": cpu, "requests": s.get("downloader/request_count", 0),
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
)

TRAWL_CRAWL = TRAWL_STORE.replace(
    '"stored": stored, "uvloop": aio.uvloop_enabled()}))',
    '"stored": stored, "uvloop": aio.uvloop_enabled(), "stages": r.stats.timings,\n'
    '                  "maxrss_mib": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,\n'
    "                                    resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024}))",
)
assert TRAWL_CRAWL != TRAWL_STORE


def crawl_part(args: argparse.Namespace) -> list[str]:
    server, port = start_server(args.hosts, 40)
    results: dict[str, dict[str, Any]] = {}
    contestants = [("trawl crawl", TRAWL_CRAWL), ("scrapy + trafilatura", SCRAPY_TRAFILATURA)]
    try:
        for round_no in range(args.repeat):
            k = round_no % 2
            for name, code in contestants[k:] + contestants[:k]:
                r = run_contestant(code, port, args.crawl_pages, server.pid)
                print(f"round {round_no + 1} {name:20s} {json.dumps(r)[:300]}", flush=True)
                if (
                    name not in results
                    or r["pages"] / r["seconds"] > results[name]["pages"] / results[name]["seconds"]
                ):
                    results[name] = r
    finally:
        server.terminate()
        server.wait()
    lines = [
        f"(b) crawl: the test web ({args.hosts} hosts), {args.crawl_pages:,} pages, robots.txt obeyed, "
        f"one request a host, 128 in flight, no delay; {os.cpu_count()} cores; best of {args.repeat}",
        "",
        "| contestant | pages | stored | seconds | pages/s | vs scrapy + trafilatura | CPU ms/page "
        "| peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ref = results.get("scrapy + trafilatura")
    for name, r in results.items():
        rate = r["pages"] / r["seconds"]
        ratio = f"{rate / (ref['pages'] / ref['seconds']):.1f}x" if ref else "-"
        lines.append(
            f"| {name} | {int(r['pages']):,} | {int(r.get('stored') or 0):,} | {r['seconds']:.1f} | "
            f"{rate:.0f} | {ratio} | {1000 * r['cpu'] / r['pages']:.2f} | {r.get('maxrss_mib', 0):.0f} |"
        )
    trawl = results.get("trawl crawl")
    if trawl and trawl.get("stages"):
        stages = ", ".join(
            f"{k} {1000 * v / trawl['pages']:.2f}"
            for k, v in sorted(trawl["stages"].items(), key=lambda kv: -kv[1])
        )
        lines.append(f"\ntrawl crawl: ms a page per stage (worker processes): {stages}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["ingest", "crawl", "both"], default="both")
    ap.add_argument("--pages", type=int, default=1337, help="WCXB pages in the WARC (all: 1337)")
    ap.add_argument("--files", type=int, default=4, help="WARC files (datatrove runs one task a file)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="datatrove's workers")
    ap.add_argument("--crawl-pages", type=int, default=3000)
    ap.add_argument("--hosts", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=1, help="rounds in rotated order, best kept")
    ap.add_argument(
        "--variants",
        nargs="*",
        default=[],
        choices=sorted(VARIANTS),
        help="(a) also runs trawl with these options changed, e.g. 'one table' (table.tablets=false)",
    )
    args = ap.parse_args()
    report: list[str] = []
    t = time.perf_counter()
    if args.part in ("ingest", "both"):
        report += [*ingest_part(args), ""]
    if args.part in ("crawl", "both"):
        report += crawl_part(args)
    print("\n" + "\n".join(report))
    print(f"\n({time.perf_counter() - t:.0f} s, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
