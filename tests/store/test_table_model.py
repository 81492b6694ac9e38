"""The table's BigTable model beyond the basics: policies, mutations, scans, postings, codecs."""

from __future__ import annotations

from pathlib import Path

import pytest

from trawl.errors import StoreError
from trawl.store.table import FamilyPolicy, Table


def test_age_policy_keeps_the_newest_and_drops_old_versions(tmp_path: Path) -> None:
    with Table(tmp_path / "t", policies={"fetch": FamilyPolicy(versions=10, max_age_us=1000)}) as t:
        for ts in (100, 600, 1200, 1500):
            t.put_row("r", {"fetch": {"x": ts}}, ts=ts)
        # newest is 1500: versions older than 500 go at write time (100), the rest stay
        assert [ts for ts, _ in t.versions_of("r", "fetch", "x")] == [1500, 1200, 600]
        # a sweep with a later "now" drops all but the newest version of each cell
        assert t.collect_garbage(now_us=5000) == 2
        assert t.versions_of("r", "fetch", "x") == [(1500, 1500)]


def test_mutate_row_puts_and_deletes_atomically(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"anchor": 3}) as t:
        t.put_row("r", {"anchor": {"a": "one", "b": "two"}, "fetch": {"s": 1}}, ts=1)
        t.mutate_row("r", 2, put={"anchor": {"c": "three"}}, delete=[("anchor", "a")])
        assert t.get_row("r") == {"anchor": {"b": "two", "c": "three"}, "fetch": {"s": 1}}
        t.mutate_row("r", 3, delete=[("anchor", None)])
        assert t.get_row("r") == {"fetch": {"s": 1}}
        t.delete_row("r")
        assert "r" not in t


def test_scans_by_range_prefix_family_and_time(tmp_path: Path) -> None:
    with Table(tmp_path / "t") as t:
        for host in ("com,a", "com,b", "org,c"):
            for page in range(3):
                t.put_row(f"{host})/{page}", {"fetch": {"n": page}, "text": {"t": host}}, ts=10 + page)
        rows = [r for r, _ in t.scan()]
        assert rows == sorted(rows) and len(rows) == 9
        assert [r for r, _ in t.scan(prefix="com,b)")] == ["com,b)/0", "com,b)/1", "com,b)/2"]
        assert [r for r, _ in t.scan("com,a)/2", "com,b)/1")] == ["com,a)/2", "com,b)/0"]
        assert dict(t.scan(prefix="org", families={"text"})) == {
            f"org,c)/{i}": {"text": {"t": "org,c"}} for i in range(3)
        }
        # as of ts 10 only page 0 of each host existed
        assert [r for r, _ in t.scan(as_of=10)] == ["com,a)/0", "com,b)/0", "org,c)/0"]
        assert t.get_row("com,a)/1", families={"fetch"}) == {"fetch": {"n": 1}}
        assert t.get_cell("com,a)/1", "fetch", "n", as_of=5) is None
        assert t.get_cell("com,a)/1", "fetch", "n") == 1


def test_postings_entries_and_bytes_values(tmp_path: Path) -> None:
    with Table(tmp_path / "t") as t:
        t.put_row("b", {"raw": {"html": b"\x00\xffbytes"}}, ts=1, postings={"anchor": ["news", "daily"]})
        t.put_row("a", {"raw": {"html": b""}}, ts=1, postings={"anchor": ["news"]})
        assert t.postings("anchor", "news") == ["a", "b"]
        assert t.postings("anchor", "nothing") == []
        assert t.get_row("b") == {"raw": {"html": b"\x00\xffbytes"}}
        t.put_entry("payload", "sha1:X", {"row": "b", "n": 2})
        assert t.get_entry("payload", "sha1:X") == {"row": "b", "n": 2}
        assert t.get_entry("payload", "sha1:Y") is None


def test_zstd_codecs_round_trip_and_dictionary_helps(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    pages = [
        (
            f"<html><head><title>Shop item {i}</title><link rel=stylesheet href=/s.css></head><body>"
            f"<nav>Home | Shop | Basket | Account | Help</nav><p>Item {i} costs {i * 3} euros.</p>"
            "<footer>Copyright Example Shop. All rights reserved.</footer></body></html>"
        ).encode()
        for i in range(400)
    ]
    policies = {"plain": FamilyPolicy(codec="zstd"), "dict": FamilyPolicy(codec="zstd-dict")}
    with Table(tmp_path / "t", policies=policies) as t:
        t.train_dictionary("dict", pages[:300], size=4096)
        for i, page in enumerate(pages):
            t.put_row(f"r{i:04d}", {"plain": {"h": page}, "dict": {"h": page}, "meta": {"i": i}}, ts=1)
        assert t.get_row("r0123") == {
            "plain": {"h": pages[123]},
            "dict": {"h": pages[123]},
            "meta": {"i": 123},
        }
        plain = len(t._encode("plain", pages[350]))
        with_dict = len(t._encode("dict", pages[350]))
        assert with_dict < plain / 2, (with_dict, plain)
    with Table(tmp_path / "t", policies=policies) as t:  # the dictionary is stored in the table
        assert t.get_row("r0399")["dict"]["h"] == pages[399]


def test_bad_keys_and_policies_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="at least one version"):
        FamilyPolicy(versions=0)
    with pytest.raises(StoreError, match="unknown codec"):
        FamilyPolicy(codec="lzma")
    with Table(tmp_path / "t") as t, pytest.raises(StoreError, match="NUL"):
        t.put_row("a\x00b", {"f": {"q": 1}}, ts=1)
    with Table(tmp_path / "t", read_only=True) as ro, pytest.raises(StoreError, match="read-only"):
        ro.put_row("a", {"f": {"q": 1}}, ts=1)


def test_bulk_load_applies_the_version_policy_like_single_puts(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 2}) as t:
        rows = [(f"r{i % 50:03d}", {"fetch": {"n": i}}) for i in range(120)]  # rows repeat within batches
        assert t.put_rows(rows[:60], ts=10, batch_rows=16) == 60
        assert t.put_rows(rows[60:], ts=20, batch_rows=16) == 60
        assert t.put_rows([("r000", {"fetch": {"n": -1}})], ts=30) == 1
        assert t.versions_of("r000", "fetch", "n") == [(30, -1), (20, 100)]
        assert t.get_row("r049") == {"fetch": {"n": 99}}
        assert len(list(t.rows())) == 50
