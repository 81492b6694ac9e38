"""The logical dump and load of a table: every version, index, entry and posting survives a move
between tables of either kind, through a file, twice, and into a table that has rows of its own."""

from __future__ import annotations

import gzip
import io
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from trawl.errors import StoreError
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection
from trawl.store.dump import read_dump, write_dump
from trawl.store.table import (
    DumpCell,
    DumpEntry,
    DumpIndex,
    DumpItem,
    DumpPostings,
    FamilyPolicy,
    Mutation,
    RowStore,
    Table,
)
from trawl.store.tablets import TabletTable

POLICIES = {
    "fetch": FamilyPolicy(versions=3),
    "text": FamilyPolicy(versions=2, codec="zstd-dict"),
    "raw": FamilyPolicy(versions=2, codec="zstd"),
    "anchor": FamilyPolicy(versions=1),
}
TIMES = (1_000, 2_000, 3_000, 4_000)
#: as_of reads: before everything, between versions, at a version, after everything
AS_OF = (None, 500, 1_000, 1_500, 2_500, 3_000, 3_999, 10_000)
ROWS = [f"com,site{i % 3})/page/{i:03d}" for i in range(24)] + ["file:/tmp/caf\udce9.html"]
WARC = Path(__file__).resolve().parents[1] / "data" / "warc" / "good.warc.gz"

Opener = Callable[[Path], RowStore]
#: the id of the dictionary each source's ``text`` family was trained with
DICT_IDS: dict[str, int | None] = {}


def _table(path: Path) -> RowStore:
    return Table(path, policies=POLICIES)


def _tablets(path: Path) -> RowStore:
    return TabletTable(path, policies=POLICIES, split_bytes=1 << 40)


def _page(i: int, ts: int) -> str:
    return (
        f"<html><head><title>Page {i}</title></head><body><p>rivers and banks {i} at {ts}</p></body></html>"
    )


def _dictionary(t: RowStore, salt: str) -> int | None:
    """Train the ``text`` family's dictionary of a plain table (a tablet table has none)."""
    if not isinstance(t, Table):
        return None
    samples = [f"{salt} {_page(i, i * 7)} {salt * (i % 5)}".encode() for i in range(400)]
    return t.train_dictionary("text", samples, size=4096)


def _fill(t: RowStore) -> None:
    """Rows written through the real API: versions at several times, deletes, bytes, indexes,
    JSON entries and posting lists; a row (the middle one) is rewritten out of time order."""
    for ts in TIMES:
        for i, row in enumerate(ROWS):
            if (i + ts // 1000) % 4 == 0:
                continue  # not every row at every time: versions differ per row
            t.mutate_row(
                row,
                ts,
                put={
                    "fetch": {"capture": {"url": row, "ts": ts, "len": [i, ts / 3]}, "status": 200 + i},
                    "text": {"title": f"Page {i}", "html": _page(i, ts)},
                    "raw": {"body": _page(i, ts).encode() + b"\x00\xff"},
                    "anchor": {f"http://from{ts}/": f"words {i}"},
                },
                postings={"anchor": ["words", f"w{i}"], "title": [f"page{i % 5}"]},
            )
    t.mutate_row(ROWS[12], 2_500, put={"fetch": {"status": 304}})  # between two versions
    t.mutate_row(ROWS[3], 5_000, delete=[("text", "title")])  # a cell's every version
    t.mutate_row(ROWS[4], 5_000, delete=[("raw", None)])  # a whole family
    t.mutate_row(ROWS[5], 5_000, delete=[("anchor", None)], put={"fetch": {"status": 410}})
    t.write(
        [],
        indexes=[("hash", f"h{i}", row) for i, row in enumerate(ROWS)]
        + [("pointer", "a.warc.gz@0\x00x", ROWS[0])],
        entries=[
            ("payload", f"sha1:{i}", {"len": len(row), "n": i, "f": 0.1 * i}) for i, row in enumerate(ROWS)
        ],
    )
    t.put_entry("ref", "com,site1)", [{"file": "a.warc.gz", "offset": 7}])


def _readable(t: RowStore) -> dict[str, Any]:
    """Everything the reading API shows, keyed so that two tables compare with ``==``."""
    view: dict[str, Any] = {}
    for as_of in AS_OF:
        view[f"scan@{as_of}"] = list(t.scan(as_of=as_of))
    view["rows"] = list(t.rows())
    view["host"] = list(t.scan(prefix="com,site1)"))
    for row in [*ROWS, "com,none)/"]:
        for family in POLICIES:
            for qualifier in ("capture", "status", "title", "html", "body", "http://from1000/"):
                view[f"v:{row}:{family}:{qualifier}"] = t.versions_of(row, family, qualifier)
        view[f"in:{row}"] = row in t
    for i in range(len(ROWS) + 1):
        view[f"hash:{i}"] = t.lookup("hash", f"h{i}")
        view[f"payload:{i}"] = t.get_entry("payload", f"sha1:{i}")
        view[f"anchor:w{i}"] = t.postings("anchor", f"w{i}")
    view["pointer"] = t.lookup("pointer", "a.warc.gz@0\x00x")
    view["ref"] = t.get_entry("ref", "com,site1)")
    view["words"] = t.postings("anchor", "words")
    view["titles"] = [t.postings("title", f"page{k}") for k in range(5)]
    return view


def _split(t: RowStore) -> None:
    """Split a tablet table into three tablets (a plain table is left as it is)."""
    if isinstance(t, TabletTable):
        t.split(t.tablets[0].id, "com,site1)")
        t.split(t.tablets[-1].id, "com,site2)/page/011")
        assert len(t.tablets) == 3


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, RowStore]]:
    base = tmp_path_factory.mktemp("sources")
    made = {"table": _table(base / "table"), "tablets": _tablets(base / "tablets")}
    for kind, t in made.items():
        DICT_IDS[kind] = _dictionary(t, "source")
        _fill(t)
        _split(t)
    yield made
    for t in made.values():
        t.close()


def test_the_two_kinds_of_source_read_alike(sources: dict[str, RowStore]) -> None:
    """The fixture itself: deletes took, versions differ by row, both kinds hold the same."""
    t = sources["table"]
    view = _readable(t)
    assert view == _readable(sources["tablets"])
    assert t.versions_of(ROWS[3], "text", "title") == []
    assert t.versions_of(ROWS[4], "raw", "body") == []
    assert [ts for ts, _ in t.versions_of(ROWS[1], "fetch", "status")] == [4_000, 2_000, 1_000]
    assert [ts for ts, _ in t.versions_of(ROWS[12], "fetch", "status")] == [3_000, 2_500, 2_000]
    assert t.get_cell(ROWS[12], "fetch", "status", as_of=2_600) == 304
    assert isinstance(t.get_cell(ROWS[1], "raw", "body"), bytes)
    assert len(view["words"]) == len(ROWS) and view["ref"] == [{"file": "a.warc.gz", "offset": 7}]


@pytest.mark.parametrize("source_kind", ["table", "tablets"])
@pytest.mark.parametrize("dest", [_table, _tablets], ids=["to-table", "to-tablets"])
def test_dump_then_load_reads_the_same_and_twice_changes_nothing(
    sources: dict[str, RowStore], source_kind: str, dest: Opener, tmp_path: Path
) -> None:
    source = sources[source_kind]
    items = list(source.dump())
    kinds = {type(i).__name__ for i in items}
    assert kinds == {"DumpCell", "DumpIndex", "DumpEntry", "DumpPostings"}
    cells = [i for i in items if isinstance(i, DumpCell)]
    # every stored version, not only the newest
    assert sum(1 for c in cells if c.row == ROWS[1] and c.family == "fetch" and c.qualifier == "status") == 3
    with dest(tmp_path / "d") as t:
        dict_id = _dictionary(t, "another sample")  # the destination's own, not the source's
        counts = t.load(items, batch=37)
        assert counts == {
            "cells": len(cells),
            "indexes": sum(isinstance(i, DumpIndex) for i in items),
            "entries": sum(isinstance(i, DumpEntry) for i in items),
            "postings": sum(len(i.rows) for i in items if isinstance(i, DumpPostings)),
        }
        assert _readable(t) == _readable(source)
        once = list(t.dump())
        assert once == items
        assert t.load(items) == counts  # a re-run after a crash mid-merge
        assert list(t.dump()) == once
        assert _readable(t) == _readable(source)
    if dict_id is not None and DICT_IDS[source_kind] is not None:
        assert dict_id != DICT_IDS[source_kind]  # the two dictionaries really differ
    with dest(tmp_path / "d") as t:  # and it is all durable
        assert _readable(t) == _readable(source)


def test_a_load_cut_short_and_run_again_is_one_load(sources: dict[str, RowStore], tmp_path: Path) -> None:
    """Every prefix of a load (what a crash leaves: whole writes) then the whole load again."""
    source = sources["tablets"]
    items = list(source.dump())
    with _tablets(tmp_path / "whole") as t:
        t.load(items, batch=50)
        whole = list(t.dump())
    for cut in (1, len(items) // 3, len(items) - 5):
        with _tablets(tmp_path / f"cut{cut}") as t:
            t.load(items[:cut], batch=50)
            t.load(items, batch=50)
            assert list(t.dump()) == whole


def test_load_unions_with_rows_already_there(sources: dict[str, RowStore], tmp_path: Path) -> None:
    source = sources["tablets"]
    with _tablets(tmp_path / "d") as t:
        t.mutate_row("com,other)/", 7, put={"fetch": {"status": 201}}, postings={"anchor": ["words", "own"]})
        t.mutate_row(ROWS[0], 9_000, put={"fetch": {"status": 100}, "own": {"x": b"mine"}})
        t.put_index("hash", "own", "com,other)/")
        t.put_entry("payload", "own", {"own": True})
        before = _readable(t)
        t.load(source.dump(), batch=100)
        t.load(source.dump(), batch=1000)
        after = _readable(t)
        # nothing of the destination's own is lost
        assert t.get_row("com,other)/") == {"fetch": {"status": 201}}
        assert t.get_row(ROWS[0], as_of=9_000)["fetch"]["status"] == 100
        assert t.get_cell(ROWS[0], "own", "x") == b"mine"
        assert t.lookup("hash", "own") == "com,other)/" and t.get_entry("payload", "own") == {"own": True}
        assert t.postings("anchor", "own") == ["com,other)/"]
        assert after["words"] == sorted([*before["words"], *source.postings("anchor", "words")])
        # and everything of the source is there, versions of a row both hold merged by the policy
        assert after["rows"] == sorted({*before["rows"], *source.rows()})
        status = source.versions_of(ROWS[0], "fetch", "status")
        assert len(status) == 3 and t.versions_of(ROWS[0], "fetch", "status") == [(9_000, 100), *status[:2]]
        assert t.versions_of(ROWS[0], "text", "html") == source.versions_of(ROWS[0], "text", "html")
        for row in ROWS[1:]:
            assert t.get_row(row) == source.get_row(row)
            assert t.versions_of(row, "text", "html") == source.versions_of(row, "text", "html")
        for i in range(len(ROWS)):
            assert t.lookup("hash", f"h{i}") == source.lookup("hash", f"h{i}")


def test_the_destination_policy_decides_how_many_versions(
    sources: dict[str, RowStore], tmp_path: Path
) -> None:
    source = sources["table"]
    items = list(source.dump())
    fewer = {**POLICIES, "fetch": FamilyPolicy(versions=1), "text": FamilyPolicy(versions=1)}
    with Table(tmp_path / "d", policies=fewer) as t:
        for order in (items, items[::-1]):  # newest first or oldest first: the newest stays
            t.load(order, batch=10)
            for row in ROWS:
                for family, qualifier in (("fetch", "status"), ("text", "html"), ("raw", "body")):
                    want = source.versions_of(row, family, qualifier)[: 1 if family != "raw" else 2]
                    assert t.versions_of(row, family, qualifier) == want
            assert list(t.scan()) == list(source.scan())


def test_a_postings_list_longer_than_a_chunk_comes_in_pieces(tmp_path: Path) -> None:
    with Table(tmp_path / "s") as s, TabletTable(tmp_path / "d") as d:
        rows = [f"r{i:05d}" for i in range(5000)]
        s.write([Mutation(row, 0, postings={"anchor": ["the"]}) for row in rows])
        pieces = [i for i in s.dump() if isinstance(i, DumpPostings)]
        assert len(pieces) == 2 and sum(len(p.rows) for p in pieces) == len(rows)
        assert d.load(s.dump(), batch=999)["postings"] == len(rows)
        assert d.postings("anchor", "the") == rows


@pytest.mark.parametrize("codec", ["zstd", "gzip", "none"])
def test_dump_file_round_trip_keeps_types(sources: dict[str, RowStore], codec: str, tmp_path: Path) -> None:
    source = sources["table"]
    extra: list[DumpItem] = [
        DumpCell("r\udcff", "f", "q\u2603", 0, b""),
        DumpCell("r", "f", "q", (1 << 64) - 1, {"a": [1, 1.0, -2.5e300, None, True, "\u00e9"]}),
        DumpEntry("e", "k", [1, "x", {"y": 2}]),
        DumpIndex("i", "key\x00with nul", "row"),
        DumpPostings("p", "t", ()),
    ]
    items = [*source.dump(), *extra]
    path = tmp_path / "part.dump"
    assert write_dump(items, path, codec=codec) == len(items)
    raw = path.read_bytes()
    assert raw.startswith(
        {"zstd": b"\x28\xb5\x2f\xfd", "gzip": b"\x1f\x8b", "none": b"trawl-dump 1\n"}[codec]
    )
    back = list(read_dump(path))
    assert back == items
    assert repr(back) == repr(items)  # 1.0 stays a float, bytes stay bytes
    assert list(read_dump(io.BytesIO(raw))) == items  # a stream that cannot seek or peek
    with _tablets(tmp_path / "d") as t:
        t.load(i for i in read_dump(path) if i not in extra)
        assert _readable(t) == _readable(source)


def test_a_damaged_or_foreign_dump_file_is_an_error(sources: dict[str, RowStore], tmp_path: Path) -> None:
    items = list(sources["table"].dump())
    whole = io.BytesIO()
    write_dump(items, whole, codec="none")
    raw = whole.getvalue()
    for cut in (len(raw) - 1, len(raw) - 13, len(raw) // 2, 20):  # inside the end record, mid-way
        with pytest.raises(StoreError, match="ends"):
            list(read_dump(io.BytesIO(raw[:cut])))
    packed = gzip.compress(raw)
    with pytest.raises(StoreError, match=r"damaged|ends"):
        list(read_dump(io.BytesIO(packed[: len(packed) // 2])))
    with pytest.raises(StoreError, match="not a trawl table dump"):
        list(read_dump(io.BytesIO(b"WARC/1.1\r\n")))
    with pytest.raises(StoreError, match="not a trawl table dump"):
        list(read_dump(io.BytesIO(b"")))
    with pytest.raises(StoreError, match="not a dump item"):
        write_dump([("not", "an item")], io.BytesIO())  # type: ignore[list-item]
    with pytest.raises(StoreError, match="unknown dump codec"):
        write_dump(items, io.BytesIO(), codec="lz4")
    with Table(tmp_path / "t") as t, pytest.raises(StoreError, match="not a dump item"):
        t.load([{"row": "r"}])  # type: ignore[list-item]


def _warc(path: Path, pages: list[tuple[str, str, bytes]]) -> None:
    """A WARC of ``(url, date, html)`` responses, one gzip member each."""
    with path.open("wb") as fh:
        for n, (url, date, html) in enumerate(pages):
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html
            head = (
                f"WARC/1.1\r\nWARC-Type: response\r\n"
                f"WARC-Record-ID: <urn:uuid:{n:08d}-0000-4000-8000-000000000000>\r\n"
                f"WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\n"
                f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
            )
            fh.write(gzip.compress(head.encode() + http + b"\r\n\r\n"))


def test_a_part_collection_merges_into_another(tmp_path: Path) -> None:
    """A part made by ingest, dumped, loaded into another collection with its WARC files moved:
    the other finds, lists and reads the same records, every capture of each."""
    pages = []
    for i in range(6):
        links = "".join(f"<a href='/p{j}'>river page {j}</a> " for j in range(6) if j != i)
        prose = f"Ordinary prose about rivers and their banks, page {i}. " * 20
        html = f"<html><head><title>P{i}</title></head><body><p>{prose}</p>{links}</body></html>"
        pages.append((f"http://example.org/p{i}", "2024-05-06T07:08:09Z", html.encode()))
    pages.append(("http://example.org/p0", "2024-06-01T00:00:00Z", pages[1][2].replace(b"P1", b"P0 again")))
    pages.append(("http://example.org/copy", "2024-06-02T00:00:00Z", pages[2][2]))  # an exact duplicate
    _warc(tmp_path / "site.warc.gz", pages)
    with Collection.create(tmp_path / "part") as part:
        ingest([WARC, tmp_path / "site.warc.gz"], part)
        part_records = [r.as_dict() for r in part.records()]
        part_captures = [r.as_dict() for r in part.captures()]
        items = list(part.table.dump())
        dump = tmp_path / "part.dump"
        write_dump(items, dump)
        reads = {r.url: part.read(r).raw for r in part.records()}
        keys = [(r.url, r.capture.get("docno"), r.capture["pointer"]) for r in part.records()]
        by_anchor = [(r.as_dict(), n) for r, n in part.find_by_anchor("river page")]
    assert len(part_records) == 13 and len(part_captures) == 14, (part_records, part_captures)
    assert by_anchor and any(r["revisit_of"] for r in part_records)
    assert any(isinstance(i, DumpPostings) and i.index == "anchor" for i in items)
    with Collection.create(tmp_path / "merged") as merged:
        for warc in (tmp_path / "part" / "warc").iterdir():
            shutil.move(warc, tmp_path / "merged" / "warc" / warc.name)
        counts = merged.table.load(read_dump(dump))
        assert counts["cells"] == sum(isinstance(i, DumpCell) for i in items)
        assert [r.as_dict() for r in merged.records()] == part_records
        assert [r.as_dict() for r in merged.captures()] == part_captures
        assert [(r.as_dict(), n) for r, n in merged.find_by_anchor("river page")] == by_anchor
        for url, docno, pointer in keys:
            found = merged.find(url)
            assert merged.read(found).raw == reads[url]
            assert merged.find(f"{pointer['file']}@{pointer['offset']}").row == found.row
            if docno:
                assert merged.find(docno).row == found.row
