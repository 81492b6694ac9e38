"""Benchmark: read every record's payload of a WARC with trawl, FastWARC and warcio.

    python bench/warc_read.py [--captures 20000] [--repeat 3] [--no-warcio]

Generates (once, deterministically, into bench/out/) a WARC shaped like a Common Crawl
segment: a warcinfo record, then per capture a request, a response (HTTP headers + an HTML
body of 2-30 KB) and a metadata record; written both as per-record gzip and uncompressed.
Then it times, side by side in one process:

* trawl: ``WarcSource`` → ``Document`` with url, date, headers and ``raw`` payload;
* FastWARC: ``ArchiveIterator`` with ``record.reader.read()``;
* warcio: ``ArchiveIterator`` with ``record.content_stream().read()``;
* fastwarc+docs: FastWARC plus the bare minimum to build the same ``Document`` objects (header
  lists and the dataclass, no checks): the floor for any FastWARC-based document reader;

in two scenarios: *all records* (every record's payload: 3 per capture + warcinfo) and
*content records* (responses only, the records a search engine keeps: trawl's default filter,
FastWARC's ``record_types`` bitmask, a ``rec_type`` check for warcio).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import sys
import uuid
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fastwarc.warc import ArchiveIterator as FastArchiveIterator
from fastwarc.warc import WarcRecordType
from warcio.archiveiterator import ArchiveIterator as WarcioArchiveIterator

from harness import Bench, Result
from trawl.acquire.warc import WarcSource
from trawl.document import Document
from trawl.pipeline.base import RunContext

OUT = Path(__file__).resolve().parent / "out"
GENERATOR_VERSION = 1
ALL_TYPES = (
    "warcinfo",
    "response",
    "resource",
    "request",
    "metadata",
    "revisit",
    "conversion",
    "continuation",
)


# ---------------------------------------------------------------------------------------------
# data


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _record(headers: list[tuple[str, str]], block: bytes) -> bytes:
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + block + b"\r\n\r\n"


class _Pages:
    """Deterministic HTML that looks like the web: a template, navigation, Zipf-distributed text."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        letters = "etaoinshrdlucmfwypvbgkjqxz"
        weights = [
            12,
            9,
            8,
            7.5,
            7,
            6.7,
            6.3,
            6,
            5.9,
            4.3,
            4,
            2.8,
            2.7,
            2.4,
            2.2,
            2,
            2,
            1.9,
            1,
            1.5,
            2,
            0.8,
            0.2,
            0.1,
            0.2,
            0.1,
        ]
        vocab = {"".join(rng.choices(letters, weights, k=rng.randint(2, 11))) for _ in range(30000)}
        self.words = sorted(vocab)
        zipf = [1 / (i + 1) for i in range(len(self.words))]
        self.paragraphs = [
            " ".join(rng.choices(self.words, zipf, k=rng.randint(20, 140))).capitalize() + "."
            for _ in range(4000)
        ]
        self.nav = "".join(
            f'<li class="nav-item"><a class="nav-link" href="/{w}/">{w.title()}</a></li>\n'
            for w in rng.sample(self.words[:2000], 24)
        )

    def page(self, i: int, size: int) -> bytes:
        rng = self.rng
        title = " ".join(rng.sample(self.words[:5000], 5)).title()
        head = (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}</title>\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<link rel="stylesheet" href="/static/css/main.{i % 97:02x}.css">\n'
            '<script async src="/static/js/analytics.js"></script>\n'
            '</head>\n<body class="page">\n<header class="site-header"><nav><ul class="nav">\n'
            f'{self.nav}</ul></nav></header>\n<main id="content"><article>\n<h1>{title}</h1>\n'
        )
        foot = (
            '</article></main>\n<footer class="site-footer"><p>&copy; 2024 Example Media. '
            'All rights reserved. <a href="/privacy">Privacy</a> | <a href="/terms">Terms</a></p>'
            "</footer>\n</body>\n</html>\n"
        )
        parts = [head]
        total = len(head) + len(foot)
        while total < size:
            p = f"<p>{rng.choice(self.paragraphs)}</p>\n"
            parts.append(p)
            total += len(p)
        parts.append(foot)
        return "".join(parts).encode()


def generate(captures: int, seed: int = 20240101) -> tuple[Path, Path]:
    """Write (or reuse) the benchmark WARC, per-record gzip and plain. Returns both paths."""
    OUT.mkdir(parents=True, exist_ok=True)
    stem = OUT / f"warc-read-{captures}-s{seed}"
    gz_path, plain_path = stem.with_suffix(".warc.gz"), stem.with_suffix(".warc")
    manifest = stem.with_suffix(".json")
    want = {"generator": GENERATOR_VERSION, "captures": captures, "seed": seed}
    if manifest.exists() and gz_path.exists() and plain_path.exists():
        have = json.loads(manifest.read_text())
        if {k: have.get(k) for k in want} == want and have.get("gzip_bytes") == gz_path.stat().st_size:
            return gz_path, plain_path
    print(f"generating {captures} captures into {OUT} ...", flush=True)
    rng = random.Random(seed)
    pages = _Pages(rng)
    t0 = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    info_id = f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"
    servers = ["nginx", "Apache/2.4.57 (Ubuntu)", "cloudflare", "Microsoft-IIS/10.0", "LiteSpeed"]
    records = 0
    with gz_path.open("wb") as fgz, plain_path.open("wb") as fplain:

        def emit(rec: bytes) -> None:
            nonlocal records
            fplain.write(rec)
            packer = zlib.compressobj(6, zlib.DEFLATED, 31)
            fgz.write(packer.compress(rec) + packer.flush())
            records += 1

        info = b"software: trawl-bench\r\nformat: WARC File Format 1.1\r\nisPartOf: bench\r\n"
        emit(_record([
            ("WARC-Type", "warcinfo"), ("WARC-Date", t0.strftime("%Y-%m-%dT%H:%M:%SZ")),
            ("WARC-Record-ID", info_id), ("WARC-Filename", gz_path.name),
            ("Content-Type", "application/warc-fields"), ("Content-Length", str(len(info))),
        ], info))  # fmt: skip
        for i in range(captures):
            host = f"www.site{rng.randint(0, 2500)}.example"
            path = "/" + "/".join(rng.sample(pages.words[:3000], rng.randint(1, 4))) + f"-{i}.html"
            url = f"https://{host}{path}"
            when = (t0 + timedelta(seconds=i // 3)).strftime("%Y-%m-%dT%H:%M:%SZ")
            ip = f"93.184.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            req_id = f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"
            resp_id = f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"
            request = (
                f"GET {path} HTTP/1.1\r\nHost: {host}\r\n"
                "User-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n"
                "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
                "Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: br,gzip\r\n"
                "Connection: Keep-Alive\r\n\r\n"
            ).encode()
            emit(_record([
                ("WARC-Type", "request"), ("WARC-Date", when), ("WARC-Record-ID", req_id),
                ("Content-Length", str(len(request))), ("Content-Type", "application/http; msgtype=request"),
                ("WARC-Warcinfo-ID", info_id), ("WARC-IP-Address", ip), ("WARC-Target-URI", url),
            ], request))  # fmt: skip
            body = pages.page(i, int(rng.uniform(2000, 30000)))
            http = (
                f"HTTP/1.1 200 OK\r\nDate: Tue, 02 Jan 2024 03:04:05 GMT\r\nServer: {rng.choice(servers)}\r\n"
                "Content-Type: text/html; charset=UTF-8\r\nX-Crawler-Content-Length: "
                f"{len(body)}\r\nContent-Length: {len(body)}\r\nVary: Accept-Encoding\r\n"
                f"Last-Modified: Mon, 01 Jan 2024 {i % 24:02d}:00:00 GMT\r\n"
                f'ETag: "{i:x}-{len(body):x}"\r\nCache-Control: max-age=600\r\n'
                f"Set-Cookie: sid={rng.getrandbits(64):016x}; Path=/; HttpOnly\r\n"
                "X-Frame-Options: SAMEORIGIN\r\nConnection: close\r\n\r\n"
            ).encode()
            block = http + body
            emit(_record([
                ("WARC-Type", "response"), ("WARC-Date", when), ("WARC-Record-ID", resp_id),
                ("Content-Length", str(len(block))), ("Content-Type", "application/http; msgtype=response"),
                ("WARC-Warcinfo-ID", info_id), ("WARC-Concurrent-To", req_id), ("WARC-IP-Address", ip),
                ("WARC-Target-URI", url), ("WARC-Payload-Digest", _sha1(body)),
                ("WARC-Block-Digest", _sha1(block)), ("WARC-Identified-Payload-Type", "text/html"),
            ], block))  # fmt: skip
            meta = (
                f"fetchTimeMs: {rng.randint(20, 3000)}\r\ncharset-detected: UTF-8\r\n"
                'languages-cld2: {"reliable":true,"text-bytes":' + str(len(body) // 3) + ',"languages":'
                '[{"code":"en","code-iso-639-3":"eng","text-covered":0.99,"score":1000.0,"name":"ENGLISH"}]}\r\n'
            ).encode()
            emit(_record([
                ("WARC-Type", "metadata"), ("WARC-Date", when),
                ("WARC-Record-ID", f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"),
                ("Content-Length", str(len(meta))), ("Content-Type", "application/warc-fields"),
                ("WARC-Warcinfo-ID", info_id), ("WARC-Concurrent-To", resp_id), ("WARC-Target-URI", url),
            ], meta))  # fmt: skip
    manifest.write_text(
        json.dumps(
            want
            | {
                "records": records,
                "gzip_bytes": gz_path.stat().st_size,
                "plain_bytes": plain_path.stat().st_size,
            }
        )
    )
    return gz_path, plain_path


# ---------------------------------------------------------------------------------------------
# contestants (each returns the number of records whose payload it read)


def trawl_reader(path: Path, types: tuple[str, ...]) -> Callable[[], int]:
    def run() -> int:
        n = 0
        for doc in WarcSource([path], record_types=types).read(RunContext()):
            n += doc.raw is not None
        return n

    return run


def _type_mask(types: tuple[str, ...]) -> WarcRecordType:
    """FastWARC's record-type bit mask for ``types``."""
    mask = WarcRecordType.no_type
    for t in types:
        mask |= getattr(WarcRecordType, t)
    return mask


def fastwarc_reader(path: Path, types: tuple[str, ...]) -> Callable[[], int]:
    mask = _type_mask(types)

    def run() -> int:
        n = 0
        with path.open("rb") as fh:
            for record in FastArchiveIterator(fh, record_types=mask):
                record.reader.read()
                n += 1
        return n

    return run


def fastwarc_docs_reader(path: Path, types: tuple[str, ...]) -> Callable[[], int]:
    """The floor for any FastWARC-based reader that builds trawl documents: FastWARC plus the
    bare minimum to make each ``Document`` (header lists and the dataclass), no checks at all."""
    mask = _type_mask(types)

    def run() -> int:
        n = 0
        with path.open("rb") as fh:
            for record in FastArchiveIterator(fh, record_types=mask):
                payload = record.reader.read()
                http = list(record.http_headers.items()) if record.is_http else []
                Document(url="", raw=payload, warc_headers=list(record.headers.items()), http_headers=http)
                n += 1
        return n

    return run


def warcio_reader(path: Path, types: tuple[str, ...]) -> Callable[[], int]:
    wanted = frozenset(types)

    def run() -> int:
        n = 0
        with path.open("rb") as fh:
            for record in WarcioArchiveIterator(fh):
                if record.rec_type in wanted:
                    record.content_stream().read()
                    n += 1
        return n

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--captures", type=int, default=20000, help="captures (x3 records + warcinfo)")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds per contestant")
    ap.add_argument("--no-warcio", action="store_true", help="leave out warcio (the slowest)")
    ap.add_argument("--scenario", choices=["all", "content", "both"], default="both")
    args = ap.parse_args()
    gz_path, plain_path = generate(args.captures)
    meta = json.loads(gz_path.with_suffix("").with_suffix(".json").read_text())
    gz_mb, plain_mb = meta["gzip_bytes"] / 1e6, meta["plain_bytes"] / 1e6
    print(f"{meta['records']} records; gzip {gz_mb:.1f} MB, plain {plain_mb:.1f} MB")
    scenarios = {"all": ALL_TYPES, "content": ("response", "resource", "revisit", "conversion")}
    if args.scenario != "both":
        scenarios = {args.scenario: scenarios[args.scenario]}
    tables: list[str] = []
    summary: list[str] = []
    for label, types in scenarios.items():
        for kind, path in (("gzip", gz_path), ("plain", plain_path)):
            title = f"{kind}, {label} records"
            bench = Bench(title, units="records", size_bytes=path.stat().st_size)
            bench.add("trawl", trawl_reader(path, types))
            bench.add("fastwarc", fastwarc_reader(path, types))
            bench.add("fastwarc+docs", fastwarc_docs_reader(path, types))
            if not args.no_warcio:
                bench.add("warcio", warcio_reader(path, types))
            results: list[Result] = bench.run(repeat=args.repeat)
            tables.append(bench.table(results, reference="fastwarc"))
            line = f"{title}: trawl/fastwarc = {bench.ratio(results, 'trawl', 'fastwarc'):.2f}x"
            if not args.no_warcio:
                line += f", trawl/warcio = {bench.ratio(results, 'trawl', 'warcio'):.2f}x"
            summary.append(line)
    print()
    print("\n\n".join(tables))
    print()
    print("\n".join(summary))


if __name__ == "__main__":
    main()
