"""The collection's storage: zstd records compressed against their site's reference, and tablets.

A collection made with ``warc.codec=zstd`` must read back every record exactly (by URL, by
``FILE@OFFSET``, after reopening), be much smaller than the same pages as per-record gzip when a
site's pages share a template, and fail only that site's records, clearly, when its reference is
damaged. A collection that grows past its tablets' split size splits, and every row is read exactly
once, also by a reader scanning while the splits happen.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.document import Document, Link
from trawl.errors import RecordNotFound, TrawlError
from trawl.pipeline import Pipeline, RunContext, Source
from trawl.store.collection import Collection
from trawl.store.tablets import TabletTable

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
TEMPLATE = "".join(
    f'<div class="nav-{k}"><a href="/section/{k}">Section {k} of the site</a>'
    f"<span>menu item {k * 7}</span></div>\n"
    for k in range(120)
)


class Docs(Source):
    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
        for d in self.docs:
            ctx.stats.inc("read/records")
            yield d


def page(i: int, sites: int = 6) -> Document:
    """Pages of ``sites`` sites, each site's pages sharing one template (as real sites do)."""
    site = i % sites
    body = f"<html><head><title>P{i}</title></head><body>{TEMPLATE.replace('site', f'site {site}')}"
    body += (
        f"<p>article {i}: " + " ".join(f"word{(i * 31 + k) % 997}" for k in range(60)) + "</p></body></html>"
    )
    return Document(
        url=f"http://www.site{site}.example/articles/{i}.html",
        fetched_at=T0,
        status=200,
        http_headers=[("Content-Type", "text/html; charset=utf-8")],
        raw=body.encode(),
        title=f"P{i}",
        text=f"article {i}",
        links=[Link(f"http://www.site{site}.example/articles/{i + sites}.html", f"next {i}")],
        docno=f"D-{i:04d}",
    )


def _ingest(path: Path, docs: list[Document], codec: str) -> Collection:
    coll = Collection.create(path, overrides=[f"warc.codec={codec}"])
    with coll:
        stats = Pipeline([Docs(docs)], [coll.writer()]).run()
        assert stats["store/records"] == len(docs)
    return coll


def test_zstd_collection_reads_back_every_record_and_beats_gzip(tmp_path: Path) -> None:
    docs = [page(i) for i in range(120)]
    _ingest(tmp_path / "gz", docs, "gzip")
    _ingest(tmp_path / "zst", docs, "zstd")
    with Collection.open(tmp_path / "zst") as coll:  # reopened: references are read from disk
        files = coll.warc_files()
        assert files and all(f.name.endswith(".warc.zst") for f in files)
        refs = 0
        for d in docs:
            rec = coll.find(d.url)
            refs += bool(rec.references)
            assert coll.read(rec).raw == d.raw
            p = rec.pointer
            assert coll.find(f"{p.file}@{p.offset}").row == rec.row
            assert coll.read_at(p.file, p.offset, p.length).raw == d.raw
            assert coll.read_at(p.file, p.offset).raw == d.raw  # length found by reading the frame
        assert refs == len(docs) - 6  # every page but each site's first is compressed against references
    gz = sum(f.stat().st_size for f in (tmp_path / "gz" / "warc").iterdir())
    zst = sum(f.stat().st_size for f in (tmp_path / "zst" / "warc").iterdir())
    assert zst * 3 < gz, (zst, gz)  # a shared template costs once per site, not once per page


def test_zstd_exact_duplicates_and_anchors_still_work(tmp_path: Path) -> None:
    docs = [page(i) for i in range(12)]
    dup = page(3)
    dup.url = "http://mirror.example/copy.html"
    _ingest(tmp_path / "c", [*docs, dup], "zstd")
    with Collection.open(tmp_path / "c") as coll:
        rec = coll.find(dup.url)
        assert rec.revisit_of is not None
        assert coll.read(rec).raw == docs[3].raw
        found = coll.find_by_anchor("next 3")
        assert [r.url for r, _ in found] == ["http://www.site3.example/articles/9.html"]


def test_a_damaged_reference_fails_its_sites_records_only(tmp_path: Path) -> None:
    docs = [page(i) for i in range(24)]
    _ingest(tmp_path / "c", docs, "zstd")
    with Collection.open(tmp_path / "c") as coll:
        first = coll.find(docs[0].url)  # site 0's first reference
        p = first.pointer
        path = coll.path / "warc" / p.file
        data = bytearray(path.read_bytes())
        data[p.offset + p.length // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    with Collection.open(tmp_path / "c") as coll:
        for d in docs:
            rec = coll.find(d.url)
            if d.url.startswith("http://www.site0."):
                with pytest.raises(TrawlError, match=r"@\d+"):
                    coll.read(rec)
            else:
                assert coll.read(rec).raw == d.raw


def test_missing_reference_file_is_a_clear_error(tmp_path: Path) -> None:
    docs = [page(i) for i in range(12)]
    _ingest(tmp_path / "c", docs, "zstd")
    with Collection.open(tmp_path / "c") as coll:
        rec = coll.find(docs[7].url)
        assert rec.references
        (coll.path / "warc" / rec.references[0]["file"]).unlink()
        with pytest.raises(RecordNotFound, match="reference record"):
            coll.read(rec)


def test_a_growing_collection_splits_into_tablets_and_reads_every_row_once(tmp_path: Path) -> None:
    n = 600
    docs = [page(i, sites=40) for i in range(n)]
    for d in docs:
        d.links = []  # rows only for pages: each row is one record
    coll = Collection.create(tmp_path / "c", split_bytes=100_000)
    seen_by_reader: list[list[str]] = []
    stop = threading.Event()
    errors: list[BaseException] = []

    def reader() -> None:  # scans while the writer splits tablets
        try:
            while not stop.is_set():
                rows = [r.row for r in coll.records()]
                seen_by_reader.append(rows)
                stop.wait(0.05)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with coll:
        table = coll.table
        assert isinstance(table, TabletTable)
        table.check_every = 32
        t = threading.Thread(target=reader)
        t.start()
        try:
            Pipeline([Docs(docs)], [coll.writer()]).run()
        finally:
            stop.set()
            t.join()
        assert not errors, errors
        assert table.splits >= 2 and len(table.tablets) >= 3
        rows = [r.row for r in coll.records()]
        assert len(rows) == n and len(set(rows)) == n and rows == sorted(rows)
        for scan in seen_by_reader:  # each concurrent scan: in order, no row twice
            assert scan == sorted(set(scan))
        for d in docs[::97]:
            assert coll.read(coll.find(d.url)).raw == d.raw
    with Collection.open(tmp_path / "c") as again:  # the map survives reopening
        assert len(list(again.records())) == n
        assert again.find(docs[5].docno or "").url == docs[5].url


def test_a_collection_made_before_tablets_still_opens(tmp_path: Path) -> None:
    from trawl.store.table import Table

    coll = Collection.create(tmp_path / "c")
    coll.close()
    # the old layout: table/ is one RocksDB directory
    with Table(tmp_path / "c" / "table") as t:
        t.put_row("com,old)/", {"fetch": {"capture": {"url": "http://old/", "id": "x"}}}, ts=1)
    with Collection.open(tmp_path / "c") as coll:
        assert isinstance(coll.table, Table) and not isinstance(coll.table, TabletTable)
        assert [r.url for r in coll.records()] == ["http://old/"]


def test_a_collection_made_with_one_table_stays_one_table(tmp_path: Path) -> None:
    from trawl.store.table import Table

    docs = [page(i) for i in range(10)]
    with Collection.create(tmp_path / "c", overrides=["table.tablets=false"]) as coll:
        Pipeline([Docs(docs)], [coll.writer()]).run()
        assert isinstance(coll.table, Table) and not isinstance(coll.table, TabletTable)
    assert (tmp_path / "c" / "table" / "CURRENT").is_file()
    # reopened with the default (tablets): what the directory holds decides
    with Collection.open(tmp_path / "c") as coll:
        assert isinstance(coll.table, Table) and not isinstance(coll.table, TabletTable)
        assert sorted(r.url for r in coll.records()) == sorted(d.url for d in docs)
        assert coll.find(docs[3].docno or "").url == docs[3].url
    with Collection.create(tmp_path / "t") as coll:  # the default: tablets
        Pipeline([Docs(docs[:2])], [coll.writer()]).run()
        assert isinstance(coll.table, TabletTable)


def test_a_zstd_collection_exports_standard_warc(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    from trawl.cli.main import main

    docs = [page(i) for i in range(14)]
    _ingest(tmp_path / "c", docs, "zstd")
    out = tmp_path / "all.warc.gz"
    assert main(["export", str(tmp_path / "c"), "--format", "warc", "-o", str(out), "--json"]) == 0
    payloads = {}
    with out.open("rb") as fh:
        for rec in ArchiveIterator(fh, check_digests=True):
            if rec.rec_type == "response":
                payloads[rec.rec_headers.get_header("WARC-Target-URI")] = rec.content_stream().read()
    assert payloads == {d.url: d.raw for d in docs}


def test_an_unknown_codec_or_level_is_a_clear_error(tmp_path: Path) -> None:
    from trawl.errors import StoreError

    for i, (setting, message) in enumerate(
        [("warc.codec=lzma", "unknown WARC codec"), ("warc.zstd_level=40", "zstd level 40")]
    ):
        codec = [] if "codec" in setting else ["warc.codec=zstd"]
        with (
            Collection.create(tmp_path / f"c{i}", overrides=[setting, *codec]) as coll,
            pytest.raises(StoreError, match=message),
        ):
            coll.writer()
