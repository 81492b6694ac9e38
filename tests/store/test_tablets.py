"""Tablets: splits, the master map, moving a tablet, serving one alone, scans during splits."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import orjson
import pytest

from trawl.errors import StoreError
from trawl.store.table import Table
from trawl.store.tablets import MASTER, TabletTable


def _fill(t: TabletTable, n: int) -> list[str]:
    rows = [f"com,host{i % 13})/page/{i:05d}" for i in range(n)]
    for i, row in enumerate(rows):
        t.put_row(row, {"fetch": {"i": i}, "text": {"t": "x" * 200}}, ts=1)
    return sorted(rows)


def test_rows_split_past_a_size_and_stay_readable(tmp_path: Path) -> None:
    with TabletTable(tmp_path / "tt", split_bytes=40_000, check_every=64) as t:
        rows = _fill(t, 1500)
        assert t.splits >= 2 and len(t.tablets) == t.splits + 1
        assert [r for r, _ in t.scan()] == rows
        assert list(t.rows()) == rows
        assert list(t.rows("com,host3)")) == [r for r in rows if r.startswith("com,host3)")]
        assert [r for r, _ in t.scan(prefix="com,host12)")] == [
            r for r in rows if r.startswith("com,host12)")
        ]
        assert [r for r, _ in t.scan(rows[100], rows[900])] == rows[100:900]
        for row in rows[::97]:
            assert t.get_row(row)["text"] == {"t": "x" * 200}
        # the map covers every key once, in order, and is what is on disk
        tablets = t.tablets
        assert tablets[0].start == "" and tablets[-1].end is None
        assert all(a.end == b.start for a, b in itertools.pairwise(tablets))
        on_disk = orjson.loads((tmp_path / "tt" / MASTER).read_bytes())["tablets"]
        assert [d["id"] for d in on_disk] == [x.id for x in tablets]
    with TabletTable(tmp_path / "tt") as t:  # reopen from the master map; split originals are gone
        assert list(t.rows()) == rows
        assert sorted(p.name for p in (tmp_path / "tt").glob("t[0-9]*")) == sorted(x.path for x in t.tablets)


def test_a_split_under_concurrent_reads_returns_every_row_exactly_once(tmp_path: Path) -> None:
    with TabletTable(tmp_path / "tt", split_bytes=1 << 40) as t:
        rows = _fill(t, 2000)
        results: list[list[str]] = []
        stop = threading.Event()

        def reader() -> None:
            while not stop.is_set():
                results.append([r for r, _ in t.scan()])

        threads = [threading.Thread(target=reader) for _ in range(2)]
        for th in threads:
            th.start()
        for _ in range(6):  # split the biggest tablet again and again while the readers scan
            biggest = max(t.tablets, key=lambda x: sum(1 for _ in t.open_tablet(x.id).rows()))
            assert t.split(biggest.id) is not None
        stop.set()
        for th in threads:
            th.join()
        assert len(t.tablets) == 7 and results
        for seen in results:
            assert seen == rows  # every row exactly once, in order


def test_a_tablet_is_served_alone_and_moved(tmp_path: Path) -> None:
    with TabletTable(tmp_path / "tt", split_bytes=1 << 40) as t:
        rows = _fill(t, 400)
        t.flush()
        left, right = t.split(t.tablets[0].id, at=rows[200]) or pytest.fail("no split")
        # another reader opens just the right tablet read-only, while the writer holds it
        with t.open_tablet(right.id) as served:
            assert list(served.rows()) == rows[200:]
            with pytest.raises(StoreError, match="read-only"):
                served.put_row("x", {"f": {"q": 1}}, ts=1)
        moved = t.move(left.id, tmp_path / "other-disk")
        assert Path(moved.path).is_absolute() and (tmp_path / "other-disk" / left.id).is_dir()
        assert list(t.rows()) == rows
        t.put_row(rows[0], {"fetch": {"i": -1}}, ts=2)
    with TabletTable(tmp_path / "tt") as t:
        assert t.get_row(rows[0])["fetch"] == {"i": -1}
        with Table(Path(t.tablets[0].path), read_only=True) as alone:
            assert next(alone.rows()) == rows[0]


def test_indexes_and_postings_span_tablets(tmp_path: Path) -> None:
    with TabletTable(tmp_path / "tt", split_bytes=1 << 40) as t:
        rows = _fill(t, 300)
        t.split(t.tablets[0].id)
        t.put_row(rows[-1], {"anchor": {"http://x/": "blue widgets"}}, ts=5, postings={"anchor": ["blue"]})
        t.put_row(rows[0], {"anchor": {"http://y/": "blue"}}, ts=5, postings={"anchor": ["blue"]})
        t.put_index("docno", "D1", rows[-1])
        assert t.postings("anchor", "blue") == [rows[0], rows[-1]]
        assert t.lookup("docno", "D1") == rows[-1]
        assert t.versions_of(rows[-1], "anchor", "http://x/") == [(5, "blue widgets")]


def test_a_broken_master_map_is_a_clear_error(tmp_path: Path) -> None:
    with TabletTable(tmp_path / "tt"):
        pass
    (tmp_path / "tt" / MASTER).write_text(
        '{"tablets": [{"id": "t000000", "start": "b", "end": null, "path": "x"}]}'
    )
    with pytest.raises(StoreError, match="does not cover"):
        TabletTable(tmp_path / "tt")
    with pytest.raises(StoreError, match="no tablet table"):
        TabletTable(tmp_path / "none", create=False)
