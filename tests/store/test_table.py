from __future__ import annotations

from pathlib import Path

from trawl.store.table import Table


def test_rows_cells_versions_and_as_of(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 2}) as t:
        t.put_row("com,example)/a", {"fetch": {"status": 200}, "text": {"title": "A1"}}, ts=100)
        t.put_row("com,example)/a", {"fetch": {"status": 304}, "text": {"title": "A2"}}, ts=200)
        t.put_row("com,example)/a", {"fetch": {"status": 500}}, ts=300)
        t.put_row("com,example)/b", {"fetch": {"status": 404}}, ts=100)
        t.put_row("org,example)/", {"fetch": {"status": 200}}, ts=100)
        row = t.get_row("com,example)/a")
        assert row == {"fetch": {"status": 500}, "text": {"title": "A2"}}
        # fetch keeps 2 versions, text keeps 1
        assert t.versions_of("com,example)/a", "fetch", "status") == [(300, 500), (200, 304)]
        assert t.versions_of("com,example)/a", "text", "title") == [(200, "A2")]
        assert t.get_row("com,example)/a", as_of=250) == {"fetch": {"status": 304}, "text": {"title": "A2"}}
        assert t.get_row("com,example)/zzz") == {}
        assert list(t.rows()) == ["com,example)/a", "com,example)/b", "org,example)/"]
        assert list(t.rows("com,example)")) == ["com,example)/a", "com,example)/b"]
        assert "com,example)/b" in t and "com,example)/" not in t


def test_indexes_and_reopen_after_close(tmp_path: Path) -> None:
    with Table(tmp_path / "t") as t:
        t.put_row("r1", {"fetch": {"x": 1}}, ts=1)
        t.put_index("docno", "WTX-1", "r1")
    with Table(tmp_path / "t") as t:  # the write-ahead log / SST files survive the reopen
        assert t.lookup("docno", "WTX-1") == "r1"
        assert t.lookup("docno", "nope") is None
        assert t.get_row("r1") == {"fetch": {"x": 1}}


def test_same_timestamp_overwrites_one_version(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 5}) as t:
        t.put_row("r", {"fetch": {"x": 1}}, ts=7)
        t.put_row("r", {"fetch": {"x": 2}}, ts=7)
        assert t.versions_of("r", "fetch", "x") == [(7, 2)]


def test_rows_survive_a_killed_writer(tmp_path: Path) -> None:
    """The engine's write-ahead log is the commit log: a process killed without closing loses nothing."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from trawl.store.table import Table\n"
        "t = Table(__import__('pathlib').Path(sys.argv[1]))\n"
        "for i in range(500):\n"
        "    t.put_row(f'row{i:04d}', {'fetch': {'i': i}}, ts=i)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t")], check=False)
    assert proc.returncode == -9
    with Table(tmp_path / "t") as t:
        assert len(list(t.rows())) == 500
        assert t.get_row("row0499") == {"fetch": {"i": 499}}


def test_writing_an_older_version_keeps_the_newest(tmp_path: Path) -> None:
    with Table(tmp_path / "t", versions={"fetch": 2}) as t:
        t.put_row("r", {"fetch": {"x": "new"}}, ts=300)
        t.put_row("r", {"fetch": {"x": "mid"}}, ts=200)
        t.put_row("r", {"fetch": {"x": "old"}}, ts=100)  # back-filled: beyond the policy at once
        assert t.versions_of("r", "fetch", "x") == [(300, "new"), (200, "mid")]
        assert t.get_row("r") == {"fetch": {"x": "new"}}


def test_a_put_reads_only_the_cells_it_touches(tmp_path: Path) -> None:
    """A page with thousands of incoming anchors is not scanned whole for each new one, and the
    version policy still holds for the cells written."""
    from trawl.store.table import Mutation

    with Table(tmp_path / "t", versions={"anchor": 1, "fetch": 2}) as t:
        t.put_row("home", {"anchor": {f"http://a/{i}": f"home {i}" for i in range(3000)}}, ts=1)
        t.put_row("home", {"fetch": {"capture": {"v": 1}}}, ts=1)
        read: list[bytes] = []
        scan = t._scan

        def counting(prefix: bytes, start: bytes | None = None):  # type: ignore[no-untyped-def]
            for key, it in scan(prefix, start):
                read.append(key)
                yield key, it

        t._scan = counting  # type: ignore[method-assign]
        t.write(
            [
                Mutation(
                    "home", 2, put={"anchor": {"http://a/7": "home again"}, "fetch": {"capture": {"v": 2}}}
                )
            ]
        )
        t.write([Mutation("home", 3, put={"fetch": {"capture": {"v": 3}}})])
        assert len(read) <= 4, len(read)
        t._scan = scan  # type: ignore[method-assign]
        assert t.get_cell("home", "anchor", "http://a/7") == "home again"
        assert [v for _, v in t.versions_of("home", "anchor", "http://a/7")] == ["home again"]  # 1 kept
        assert [v["v"] for _, v in t.versions_of("home", "fetch", "capture")] == [3, 2]  # 2 kept
        assert t.get_cell("home", "anchor", "http://a/8") == "home 8"
