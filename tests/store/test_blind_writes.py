"""Blind writes and batches: a new row is written without reading, an existing one still has its
version policy applied, and a table made before row markers keeps the old, scanning path."""

from __future__ import annotations

from pathlib import Path

from trawl.store.table import Mutation, Table
from trawl.store.tablets import TabletTable


def test_new_rows_are_blind_and_rewrites_keep_the_policy(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 2}) as t:
        assert t.marked
        t.write([Mutation(f"r{i}", 1, put={"fetch": {"x": i}}) for i in range(100)])
        for ts in (2, 3, 4):
            t.write([Mutation("r7", ts, put={"fetch": {"x": ts}})])
        # physically only the policy's two versions remain: the rewrite scanned and deleted
        raw = [k for k, _ in t._scan(b"rr7\x00")]
        assert len(raw) == 2
        assert t.versions_of("r7", "fetch", "x") == [(4, 4), (3, 3)]


def test_one_write_holds_rows_indexes_entries_and_postings(tmp_path: Path) -> None:
    for table in (Table(tmp_path / "t"), TabletTable(tmp_path / "tt")):
        with table:
            table.write(
                [
                    Mutation("a", 1, put={"f": {"q": 1}}, postings={"w": ["blue"]}),
                    Mutation("b", 1, put={"f": {"q": 2}}),
                ],
                indexes=[("hash", "h1", "a")],
                entries=[("payload", "d1", {"row": "b"})],
            )
            assert table.get_row("b") == {"f": {"q": 2}}
            assert table.lookup("hash", "h1") == "a"
            assert table.get_entry("payload", "d1") == {"row": "b"}
            assert table.postings("w", "blue") == ["a"]


def test_a_table_without_markers_keeps_applying_the_policy_on_write(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 1}) as t:
        t.put_row("r", {"fetch": {"x": 1}}, ts=1)
        t.unmark()  # as a table written before markers existed
        t._db.delete(b"xr")
    with Table(tmp_path / "t", versions={"fetch": 1}) as t:
        assert not t.marked  # not empty, no marker flag: never trusted
        t.put_row("r", {"fetch": {"x": 2}}, ts=2)
        assert len([k for k, _ in t._scan(b"rr\x00")]) == 1
        assert t.get_row("r") == {"fetch": {"x": 2}}
