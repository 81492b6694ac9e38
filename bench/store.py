"""Benchmark: the document store — compression on real HTML, random access, write throughput.

    python bench/store.py [--docs 1000000] [--payload 1000] [--lookups 20000] [--quick] [--json OUT]

Part 1, compression (real pages: the 1,337 WCXB pages in ../shared/data/extraction/wcxb-dev/html,
ordered by SURT so a host's pages are neighbours). Each codec, in one process:

* ``gzip/record``: one gzip member per record (zlib level 6), what a WARC file holds;
* ``zstd/record``: one zstd frame per record (level 6);
* ``zstd+dict/record``: one zstd frame per record with a 112 KiB dictionary trained on the other
  half of the pages (held out: every page is compressed with a dictionary that never saw it);
* ``zstd/block 64K|256K|1M``: consecutive pages compressed together (level 6), what a store
  with block compression does; reading one page costs decompressing its block;
* ``table``: the pages in a trawl :class:`Table` (RocksDB, zstd on 32 KiB data blocks, SURT
  order), measured on disk after compaction; ``table zstd-dict``: the same with the family's
  zstd-dict codec.

* ``zstd+site reference/record``: one zstd frame per record, each page compressed against its
  site's first three pages used as a raw-content dictionary (what a collection with
  ``warc.codec=zstd`` does); reading one page decompresses its frame (and its site's references,
  when not cached).

Ratio = raw bytes / stored bytes; speeds are raw MB per second of compression and of reading one
record back (decompressing all a record needs: its frame, or its whole block).

Part 1b, the collection itself (``--collection``, on by default): the same pages, in the corpus's
own order (not sorted), as HTTP responses with their real URLs, written by the collection's writer
(``Collection.writer()``: WARC records, rows, indexes, anchors; extraction off) with
``warc.codec=gzip`` and with ``warc.codec=zstd``; stored = WARC files + table directory on disk
(after compaction).
Then every page is read back by URL (``find`` + ``read``: one record decompressed) and checked.
The same for the host-clustered subset (sites with at least 3 pages). ``--ingest`` also runs
``trawl ingest`` on the pages written out as ``.html`` files (``file:`` URLs: the directory is one
"site", so references are unrelated pages; and the corpus's ``.html.gz`` files would be stored as
the gzip bytes they are), both ways.

Part 2, random access and writes, with ``--docs`` records (default one million) whose payloads
are ``--payload``-byte windows of the real pages (so they compress like HTML) plus a unique line:

* ``trawl table``: row = SURT, payload in a ``content`` cell, one ``put_row`` per record; a lookup
  is one ``get_cell``; ``trawl table, bulk``: the same written with ``put_rows`` (1,000 rows per
  atomic batch);
* ``trawl warc+table``: what a collection does: payload in a per-record-gzip WARC written by
  ``WarcFileWriter``, the (file, offset, length) pointer in the table; a lookup reads the pointer
  and then exactly one gzip member (``read_record_at``);
* ``warcio+cdxj``: the usual archive stack: the WARC written by warcio, a sorted CDXJ index
  (``surt timestamp {json}`` lines) searched by binary search in the memory-mapped file, the
  record read by warcio's ``ArchiveIterator`` at that offset;
* ``trawl collection``: the whole collection path (``--peers collection``): each record a
  ``Document`` written by ``Collection.writer()`` with ``warc.codec=zstd``, ``warc.zstd_level=3``
  (WARC record compressed
  against its site's reference, row, indexes, one table write per record); a lookup is
  ``find(url)`` + ``read`` (one frame decompressed, the site's reference from a small cache);
* ``sqlite``: one table ``(id INTEGER PRIMARY KEY, surt TEXT UNIQUE, payload BLOB)``, WAL mode,
  one transaction per 10,000 rows; a lookup is one ``SELECT`` by ``surt``.

Write throughput = raw payload MB / second to store every record (including building the index).
Latency: ``--lookups`` random keys looked up one by one after one warm-up pass (page cache warm),
p50 and p99 per lookup in microseconds.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import mmap
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.document import Document
from trawl.store.table import FamilyPolicy, Table
from trawl.store.warcfile import WarcFileWriter, read_record_at
from trawl.urls import surt

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction" / "wcxb-dev"
OUT = Path(__file__).resolve().parent / "out" / "store"
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def load_pages() -> list[tuple[str, bytes]]:
    """(SURT, html) of every WCXB page, in SURT order (a host's pages together)."""
    pages = []
    for path in sorted((DATA / "html").glob("*.html.gz")):
        truth = json.loads((DATA / "truth" / path.name.replace(".html.gz", ".json")).read_text())
        pages.append((surt(truth["url"]), gzip.decompress(path.read_bytes())))
    pages.sort()
    seen: dict[str, int] = {}
    for i, (key, html) in enumerate(pages):  # a few URLs occur twice: keep both pages, distinct keys
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            pages[i] = (f"{key} {seen[key]}", html)
    return pages


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# -- part 1: compression ------------------------------------------------------------------------


def compression(pages: list[tuple[str, bytes]], repeat: int) -> list[dict[str, Any]]:
    html = [h for _, h in pages]
    raw = sum(map(len, html))
    results: list[dict[str, Any]] = []

    def per_record(name: str, pack: Callable[[bytes], bytes], unpack: Callable[[bytes], bytes]) -> None:
        best_c = best_d = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            packed = [pack(h) for h in html]
            best_c = min(best_c, time.perf_counter() - t)
            t = time.perf_counter()
            for p in packed:
                unpack(p)
            best_d = min(best_d, time.perf_counter() - t)
        assert unpack(packed[7]) == html[7]
        size = sum(map(len, packed))
        results.append(_row(name, raw, size, best_c, best_d))

    def gz(data: bytes) -> bytes:
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        return c.compress(data) + c.flush()

    per_record("gzip/record (WARC)", gz, lambda p: zlib.decompress(p, 31))
    zc, zd = zstandard.ZstdCompressor(level=6), zstandard.ZstdDecompressor()
    per_record("zstd/record", zc.compress, zd.decompress)
    # held-out dictionaries: pages with an even index are compressed with the one trained on odd
    # ones (a sample of them, ~100x the dictionary's size, as zstd advises), and the other way round
    dicts = [zstandard.train_dictionary(112 << 10, list[Any](html[1 - k :: 12])) for k in (0, 1)]
    for d in dicts:
        d.precompute_compress(level=6)
    cs = [zstandard.ZstdCompressor(level=6, dict_data=d) for d in dicts]
    ds = {d.dict_id(): zstandard.ZstdDecompressor(dict_data=d) for d in dicts}
    position = {id(h): i for i, h in enumerate(html)}

    def dict_pack(h: bytes) -> bytes:  # page i with the dictionary that never saw it
        return bytes(cs[position[id(h)] % 2].compress(h))

    def dict_unpack(p: bytes) -> bytes:
        return bytes(ds[zstandard.get_frame_parameters(p).dict_id].decompress(p))

    per_record("zstd+dict/record", dict_pack, dict_unpack)
    # each site's first three pages are its references; a page is compressed against the ones
    # before it (the collection's warc.codec=zstd does the same, in the order pages arrive)
    site_refs: dict[str, list[bytes]] = {}
    ref_dict: dict[int, Any] = {}
    for key, h in pages:
        refs = site_refs.setdefault(key.split(")", 1)[0], [])
        if refs:
            joined = b"".join(refs)[-(2 << 20) :]
            ref_dict[id(h)] = zstandard.ZstdCompressionDict(joined, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
        if len(refs) < 3:
            refs.append(h)
    frames: dict[bytes, Any] = {}

    def ref_pack(h: bytes) -> bytes:
        d = ref_dict.get(id(h))
        if d is None:
            return bytes(zc.compress(h))
        frame = bytes(zstandard.ZstdCompressor(level=6, dict_data=d).compress(h))
        frames[frame] = d
        return frame

    def ref_unpack(p: bytes) -> bytes:
        d = frames.get(p)
        return bytes((zstandard.ZstdDecompressor(dict_data=d) if d is not None else zd).decompress(p))

    per_record("zstd+site reference/record", ref_pack, ref_unpack)
    for block in (64 << 10, 256 << 10, 1 << 20):
        blocks: list[list[bytes]] = [[]]
        size_in = 0
        for h in html:
            if size_in >= block:
                blocks.append([])
                size_in = 0
            blocks[-1].append(h)
            size_in += len(h)
        best_c = best_d = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            packed = [zc.compress(b"".join(b)) for b in blocks]
            best_c = min(best_c, time.perf_counter() - t)
            t = time.perf_counter()
            for b, p in zip(blocks, packed, strict=True):  # reading each record decompresses its block
                for _ in b:
                    zd.decompress(p)
            best_d = min(best_d, time.perf_counter() - t)
        results.append(_row(f"zstd/block {block >> 10}K", raw, sum(map(len, packed)), best_c, best_d))
    for codec in ("json", "zstd-dict"):
        path = OUT / f"table-{codec}"
        shutil.rmtree(path, ignore_errors=True)
        with Table(path, policies={"content": FamilyPolicy(codec=codec)}) as table:
            if codec == "zstd-dict":  # trained once, on a sample (~100x the dictionary), not timed
                table.train_dictionary("content", html[::12])
            t = time.perf_counter()
            for key, h in pages:
                table.put_row(key, {"content": {"html": h}}, ts=1)
            table.compact()
            write = time.perf_counter() - t
            t = time.perf_counter()
            for key, h in pages:
                assert table.get_cell(key, "content", "html") == h
            read = time.perf_counter() - t
        name = "table (RocksDB zstd blocks)" if codec == "json" else "table zstd-dict codec"
        results.append(_row(name, raw, _du(path), write, read))
    # the host-clustered subset: hosts with at least 3 pages, compressed in blocks (one block per host)
    hosts: dict[str, list[bytes]] = {}
    for key, h in pages:
        hosts.setdefault(key.split(")", 1)[0], []).append(h)
    clustered = [v for v in hosts.values() if len(v) >= 3]
    raw_c = sum(len(h) for v in clustered for h in v)
    gz_c = sum(len(gz(h)) for v in clustered for h in v)
    blk_c = sum(len(zc.compress(b"".join(v))) for v in clustered)
    dict_c = sum(len(dict_pack(h)) for v in clustered for h in v)
    ref_c = sum(len(ref_pack(h)) for v in clustered for h in v)
    results.append(
        {
            "codec": f"host-clustered subset ({len(clustered)} hosts, {sum(map(len, clustered))} pages)",
            "raw_mb": round(raw_c / 1e6, 2),
            "ratio_gzip_record": round(raw_c / gz_c, 2),
            "ratio_zstd_host_block": round(raw_c / blk_c, 2),
            "ratio_zstd_dict_record": round(raw_c / dict_c, 2),
            "ratio_zstd_site_reference": round(raw_c / ref_c, 2),
        }
    )
    return results


def _row(name: str, raw: int, size: int, compress_s: float, read_s: float) -> dict[str, Any]:
    return {
        "codec": name,
        "raw_mb": round(raw / 1e6, 2),
        "stored_mb": round(size / 1e6, 2),
        "ratio": round(raw / size, 2),
        "write_mb_s": round(raw / 1e6 / compress_s, 1),
        "read_one_mb_s": round(raw / 1e6 / read_s, 1),
    }


# -- part 1b: the collection's own path ------------------------------------------------------------


def load_pages_unsorted() -> list[tuple[str, bytes]]:
    """(URL, html) of every WCXB page in the corpus's file order (sites interleaved, as in a crawl)."""
    out = []
    for path in sorted((DATA / "html").glob("*.html.gz")):
        truth = json.loads((DATA / "truth" / path.name.replace(".html.gz", ".json")).read_text())
        out.append((str(truth["url"]), gzip.decompress(path.read_bytes())))
    return out


def collection_path(pages: list[tuple[str, bytes]], label: str) -> list[dict[str, Any]]:
    """The pages written by the collection writer, gzip and zstd WARC, then each read back by URL."""
    from trawl.pipeline import Pipeline, RunContext, Source  # noqa: PLC0415
    from trawl.store.collection import Collection  # noqa: PLC0415

    class Pages(Source):
        def read(self, ctx: RunContext) -> Any:
            for i, (url, html) in enumerate(pages):
                ctx.stats.inc("read/records")
                # a URL twice (the corpus has a few) would be a second capture: make it distinct
                yield Document(
                    url=url if url not in seen else f"{url}#copy{i}",
                    fetched_at=T0,
                    status=200,
                    http_headers=[("Content-Type", "text/html")],
                    raw=html,
                )
                seen.add(url)

    seen: set[str] = set()
    raw = sum(len(h) for _, h in pages)
    results: list[dict[str, Any]] = []
    for codec in ("gzip", "zstd"):
        seen.clear()
        path = OUT / f"collection-{label}-{codec}"
        shutil.rmtree(path, ignore_errors=True)
        coll = Collection.create(path, overrides=[f"warc.codec={codec}"])
        with coll:
            t = time.perf_counter()
            stats = Pipeline([Pages()], [coll.writer()]).run()
            write = time.perf_counter() - t
            assert stats["store/records"] == len(pages), stats.to_dict()
        with Collection.open(path) as coll:
            coll.table.compact()
            t = time.perf_counter()
            n = 0
            for record in coll.records():
                coll.read(record)
                n += 1
            read = time.perf_counter() - t
            assert n == len(pages)
        warc = _du(path / "warc")
        table = _du(path / "table")
        results.append(
            {
                "codec": f"collection {label}, warc.codec={codec}",
                "raw_mb": round(raw / 1e6, 2),
                "warc_mb": round(warc / 1e6, 2),
                "table_mb": round(table / 1e6, 2),
                "ratio_warc": round(raw / warc, 2),
                "ratio_collection": round(raw / (warc + table), 2),
                "write_mb_s": round(raw / 1e6 / write, 1),
                "read_one_mb_s": round(raw / 1e6 / read, 1),
            }
        )
        print(json.dumps(results[-1]), flush=True)
    gz, zs = results[-2]["warc_mb"], results[-1]["warc_mb"]
    results[-1]["warc_vs_gzip"] = round(gz / zs, 2)
    return results


def cli_ingest() -> list[dict[str, Any]]:
    """``trawl ingest`` of the page files (extraction and language tagging off), gzip and zstd."""
    import subprocess  # noqa: PLC0415

    from trawl.store.collection import Collection  # noqa: PLC0415

    # the files are gzipped and an archive keeps what it ingested, bytes as they are: ingest the
    # decompressed pages (written to the bench's scratch folder), as a crawl would store them
    pages_dir = OUT / "wcxb-html"
    pages_dir.mkdir(parents=True, exist_ok=True)
    raw = 0
    for p in sorted((DATA / "html").glob("*.html.gz")):
        html = gzip.decompress(p.read_bytes())
        (pages_dir / p.name.removesuffix(".gz")).write_bytes(html)
        raw += len(html)
    results = []
    for codec in ("gzip", "zstd"):
        path = OUT / f"ingest-{codec}"
        shutil.rmtree(path, ignore_errors=True)
        cmd = [sys.executable, "-m", "trawl.cli.main", "ingest", str(pages_dir), "-o", str(path)]
        cmd += ["--no-progress", "--json", "--set", f"warc.codec={codec}"]
        cmd += ["--set", "extract.enabled=false", "--set", "langid.enabled=false"]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        write = time.perf_counter() - t
        with Collection.open(path) as coll:
            coll.table.compact()
        warc, table = _du(path / "warc"), _du(path / "table")
        results.append(
            {
                "codec": f"trawl ingest of the pages as .html files (file: URLs), warc.codec={codec}",
                "raw_mb": round(raw / 1e6, 2),
                "warc_mb": round(warc / 1e6, 2),
                "table_mb": round(table / 1e6, 2),
                "ratio_warc": round(raw / warc, 2),
                "ratio_collection": round(raw / (warc + table), 2),
                "wall_s": round(write, 1),
            }
        )
        print(json.dumps(results[-1]), flush=True)
    return results


# -- part 2: random access and writes ---------------------------------------------------------------


def make_records(pages: list[tuple[str, bytes]], n: int, payload: int) -> list[tuple[str, str, bytes]]:
    """n (url, surt, payload) records, host-clustered: 1,000 hosts, payloads cut from real pages."""
    rng = random.Random(8)
    html = [h for _, h in pages if len(h) > payload * 2]
    out = []
    for i in range(n):
        page = html[(i // 1000) % len(html)]  # one host's pages come from the same real page
        start = rng.randrange(0, len(page) - payload)
        url = f"http://www.host{i % 1000}.example/section/{i // 1000}/page{i}.html"
        body = page[start : start + payload] + f"\n<!-- record {i} -->".encode()
        out.append((url, surt(url), body))
    return out


def latencies(
    lookup: Callable[[int], bytes], keys: list[int], check: Callable[[int, bytes], bool]
) -> dict[str, float]:
    for k in keys[: min(len(keys), 2000)]:  # warm-up
        lookup(k)
    times = []
    for k in keys:
        t = time.perf_counter_ns()
        got = lookup(k)
        times.append(time.perf_counter_ns() - t)
        if not check(k, got):
            raise AssertionError(f"lookup {k} returned the wrong payload")
    times.sort()
    return {
        "p50_us": round(times[len(times) // 2] / 1000, 1),
        "p99_us": round(times[int(len(times) * 0.99)] / 1000, 1),
        "mean_us": round(statistics.fmean(times) / 1000, 1),
    }


def access(records: list[tuple[str, str, bytes]], lookups: int, peers: set[str]) -> list[dict[str, Any]]:
    raw_mb = sum(len(r[2]) for r in records) / 1e6
    rng = random.Random(9)
    keys = [rng.randrange(len(records)) for _ in range(lookups)]

    def check(k: int, got: bytes) -> bool:
        return got == records[k][2]

    results = []

    def report(name: str, write_s: float, path: Path, lat: dict[str, float]) -> None:
        results.append(
            {
                "store": name,
                "records": len(records),
                "raw_mb": round(raw_mb, 1),
                "write_s": round(write_s, 1),
                "write_mb_s": round(raw_mb / write_s, 1),
                "stored_mb": round(_du(path) / 1e6, 1),
                **lat,
            }
        )
        print(json.dumps(results[-1]), flush=True)

    if "table" in peers:
        path = OUT / "access-table"
        shutil.rmtree(path, ignore_errors=True)
        t = time.perf_counter()
        table = Table(path)
        for _, key, body in records:
            table.put_row(key, {"content": {"html": body}}, ts=1)
        table.flush()
        write_s = time.perf_counter() - t
        table.compact()
        report(
            "trawl table",
            write_s,
            path,
            latencies(lambda k: table.get_cell(records[k][1], "content", "html"), keys, check),
        )
        table.close()

    if "bulk" in peers:
        path = OUT / "access-bulk"
        shutil.rmtree(path, ignore_errors=True)
        t = time.perf_counter()
        table = Table(path)
        table.put_rows(((key, {"content": {"html": body}}) for _, key, body in records), ts=1)
        table.flush()
        write_s = time.perf_counter() - t
        table.compact()
        report(
            "trawl table, bulk put_rows",
            write_s,
            path,
            latencies(lambda k: table.get_cell(records[k][1], "content", "html"), keys, check),
        )
        table.close()

    if "warc" in peers:
        path = OUT / "access-warc"
        shutil.rmtree(path, ignore_errors=True)
        t = time.perf_counter()
        table = Table(path / "table")
        with WarcFileWriter(path / "warc", prefix="b", max_bytes=1 << 30, level=6) as w:
            for url, key, body in records:
                p = w.write(
                    Document(
                        url=url,
                        fetched_at=T0,
                        status=200,
                        raw=body,
                        http_headers=[("Content-Type", "text/html")],
                    )
                )
                table.put_row(key, {"fetch": {"p": [p.file, p.offset, p.length]}}, ts=1)
        table.flush()
        write_s = time.perf_counter() - t
        table.compact()
        warc_dir = path / "warc"

        def warc_lookup(k: int) -> bytes:
            f, o, n = table.get_cell(records[k][1], "fetch", "p")
            return read_record_at(warc_dir / f, o, n).raw

        report("trawl warc+table", write_s, path, latencies(warc_lookup, keys, check))
        table.close()

    if "warcio" in peers:
        from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - the peer is optional
        from warcio.statusandheaders import StatusAndHeaders  # noqa: PLC0415
        from warcio.warcwriter import WARCWriter  # noqa: PLC0415

        path = OUT / "access-warcio"
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        t = time.perf_counter()
        index: list[str] = []
        with (path / "a.warc.gz").open("wb") as fh:
            writer = WARCWriter(fh, gzip=True)
            for url, key, body in records:
                headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                rec = writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=headers
                )
                offset = fh.tell()
                writer.write_record(rec)
                index.append(f'{key} 20240501120000 {{"offset": {offset}, "length": {fh.tell() - offset}}}\n')
        index.sort()
        (path / "a.cdxj").write_text("".join(index))
        write_s = time.perf_counter() - t
        cdx_fh = (path / "a.cdxj").open("rb")
        cdx = mmap.mmap(cdx_fh.fileno(), 0, access=mmap.ACCESS_READ)
        starts = [0]  # line starts, so binary search jumps straight to whole lines (as pywb's bisect does)
        pos = cdx.find(b"\n")
        while pos != -1 and pos + 1 < len(cdx):
            starts.append(pos + 1)
            pos = cdx.find(b"\n", pos + 1)
        warc_fh = (path / "a.warc.gz").open("rb")

        def cdxj_lookup(k: int) -> bytes:
            want = records[k][1].encode() + b" "
            lo, hi = 0, len(starts)
            while lo < hi:
                mid = (lo + hi) // 2
                s = starts[mid]
                if cdx[s : s + len(want)] < want:
                    lo = mid + 1
                else:
                    hi = mid
            s = starts[lo]
            line = cdx[s : cdx.find(b"\n", s)]
            meta = json.loads(line[line.index(b"{") :])
            warc_fh.seek(meta["offset"])
            for rec in ArchiveIterator(io.BytesIO(warc_fh.read(meta["length"]))):
                return bytes(rec.content_stream().read())
            return b""

        report("warcio+cdxj", write_s, path, latencies(cdxj_lookup, keys, check))

    if "collection" in peers:
        from trawl.pipeline import Pipeline, RunContext, Source  # noqa: PLC0415
        from trawl.store.collection import Collection  # noqa: PLC0415

        class Records(Source):
            def read(self, ctx: RunContext) -> Any:
                for url, _, body in records:
                    yield Document(
                        url=url,
                        fetched_at=T0,
                        status=200,
                        http_headers=[("Content-Type", "text/html")],
                        raw=body,
                    )

        path = OUT / "access-collection"
        shutil.rmtree(path, ignore_errors=True)
        t = time.perf_counter()
        coll = Collection.create(path, overrides=["warc.codec=zstd", "warc.zstd_level=3"])
        Pipeline([Records()], [coll.writer(dedup=False)]).run()
        write_s = time.perf_counter() - t
        coll.table.compact()

        def coll_lookup(k: int) -> bytes:
            return coll.read(coll.find(records[k][0])).raw

        report(
            "trawl collection (warc.codec=zstd, zstd_level=3)",
            write_s,
            path,
            latencies(coll_lookup, keys, check),
        )
        coll.close()

    if "sqlite" in peers:
        path = OUT / "access-sqlite"
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        t = time.perf_counter()
        con = sqlite3.connect(path / "db.sqlite")
        con.execute("PRAGMA journal_mode=WAL")
        # a rowid table with a unique index on the key: SQLite's advice for rows over ~200 bytes
        # (WITHOUT ROWID with 1 KB rows in random key order grew to 4x the data and crawled)
        con.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, surt TEXT NOT NULL UNIQUE, payload BLOB)")
        for i in range(0, len(records), 10_000):
            with con:
                con.executemany(
                    "INSERT OR REPLACE INTO pages (surt, payload) VALUES (?, ?)",
                    [(r[1], r[2]) for r in records[i : i + 10_000]],
                )
        write_s = time.perf_counter() - t
        cur = con.cursor()

        def sqlite_lookup(k: int) -> bytes:
            row = cur.execute("SELECT payload FROM pages WHERE surt = ?", (records[k][1],)).fetchone()
            return bytes(row[0])

        report("sqlite", write_s, path, latencies(sqlite_lookup, keys, check))
        con.close()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000, help="records stored for the random-access part")
    ap.add_argument("--payload", type=int, default=1000, help="payload bytes per record")
    ap.add_argument("--lookups", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peers", default="table,bulk,warc,warcio,sqlite")
    ap.add_argument("--skip-compression", action="store_true")
    ap.add_argument("--skip-access", action="store_true")
    ap.add_argument("--skip-collection", action="store_true", help="skip part 1b (the collection path)")
    ap.add_argument("--ingest", action="store_true", help="part 1b also runs `trawl ingest` on the files")
    ap.add_argument("--quick", action="store_true", help="20,000 records, 1 repeat")
    ap.add_argument("--json", type=Path, help="write the results here too")
    args = ap.parse_args()
    if args.quick:
        args.docs, args.repeat, args.lookups = 20_000, 1, 5000
    global OUT  # noqa: PLW0603 - one output folder per run, so runs can overlap
    OUT = OUT / f"run-{os.getpid()}"
    OUT.mkdir(parents=True, exist_ok=True)
    pages = load_pages()
    out: dict[str, Any] = {}
    if args.skip_access:
        args.docs = 0
    if not args.skip_compression:
        print(f"# compression: {len(pages)} real pages, {sum(len(h) for _, h in pages) / 1e6:.1f} MB of HTML")
        out["compression"] = compression(pages, args.repeat)
        for row in out["compression"]:
            print(json.dumps(row), flush=True)
    if not args.skip_collection:
        unsorted = load_pages_unsorted()
        print(f"# the collection path: {len(unsorted)} pages in corpus order, and the host-clustered subset")
        sites: dict[str, int] = {}
        for url, _ in unsorted:
            sites[surt(url).split(")", 1)[0]] = sites.get(surt(url).split(")", 1)[0], 0) + 1
        clustered = [(u, h) for u, h in unsorted if sites[surt(u).split(")", 1)[0]] >= 3]
        out["collection"] = collection_path(unsorted, "all pages") + collection_path(
            clustered, "host-clustered"
        )
        if args.ingest:
            out["collection"] += cli_ingest()
    if args.skip_access:
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
        return
    records = make_records(pages, args.docs, args.payload)
    print(
        f"# random access: {len(records)} records of {args.payload} B (+ a unique line), "
        f"{args.lookups} lookups"
    )
    out["access"] = access(records, args.lookups, set(args.peers.split(",")))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    shutil.rmtree(OUT, ignore_errors=True)


if __name__ == "__main__":
    main()
