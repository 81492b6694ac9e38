"""A collection read as the union of its partitions (a distributed crawl's shards): the union
table against one table that took every write, tablets opened read-only, and real collections
crawled from the test web by two shards into two partitions, one of them held open for writing
by another process."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from trawl.cli.main import main
from trawl.crawl.crawler import CrawlSettings
from trawl.errors import StoreError
from trawl.jobs.crawl import crawl
from trawl.jobs.ingest import ingest
from trawl.store.collection import PARTITIONS, Collection, StoredRecord
from trawl.store.table import Mutation, RowStore, Table
from trawl.store.tablets import TabletTable
from trawl.store.union import UnionTable
from trawl.testweb import ServerThread, TestWeb
from trawl.urls import url_hash
from trawl.web.index import generation_marker

PLAIN = ["extract.enabled=false", "langid.enabled=false"]
VERSIONS = {"f": 10, "g": 10, "anchor": 10}
HOSTS = 4

# -- the union table against one table that took every write ------------------------------------


def _random_writes(rng: random.Random, n: int) -> list[tuple[Mutation, list[tuple[str, str, str]]]]:
    rows = ["com,a)/", "com,a)/x", "com,a)/x/y", "com,ab)/", "com,b)/é", "org,c)/", "org,c)/\U0001f600", "z"]
    stamps = rng.sample(range(1, 10_000), n)  # distinct: one table keeps one value per timestamp
    out = []
    for i, ts in enumerate(stamps):
        row = rng.choice(rows)
        put = {fam: {q: f"{fam}{q}-{i}" for q in rng.sample(["a", "b", "c"], rng.randint(1, 2))}
               for fam in rng.sample(["f", "g", "anchor"], rng.randint(1, 2))}  # fmt: skip
        postings = {"anchor": rng.sample(["red", "green", "blue"], rng.randint(0, 2))}
        indexes = [("hash", f"k{i}", row)]
        out.append((Mutation(row, ts, put=put, postings=postings), indexes))
    return out


def _same_reads(union: RowStore, one: RowStore, rows: list[str], stamps: list[int]) -> None:
    assert list(union.rows()) == list(one.rows())
    assert list(union.scan()) == list(one.scan())
    for prefix in ("com,a)/x", "com,a", "org", "nothing"):
        assert list(union.rows(prefix)) == list(one.rows(prefix))
        assert list(union.scan(prefix=prefix)) == list(one.scan(prefix=prefix))
    assert list(union.scan("com,a)/x", "org,c)/")) == list(one.scan("com,a)/x", "org,c)/"))
    assert list(union.scan(families={"g"})) == list(one.scan(families={"g"}))
    for at in stamps:
        assert list(union.scan(as_of=at)) == list(one.scan(as_of=at))
        assert list(union.scan(as_of=at, families={"f", "anchor"})) == list(
            one.scan(as_of=at, families={"f", "anchor"})
        )
    for row in [*rows, "absent"]:
        assert (row in union) == (row in one)
        assert union.get_row(row) == one.get_row(row)
        assert union.get_row(row, families={"f"}) == one.get_row(row, families={"f"})
        for at in stamps[::3]:
            assert union.get_row(row, as_of=at) == one.get_row(row, as_of=at)
        for fam in ("f", "g", "anchor"):
            for q in ("a", "b", "c"):
                assert union.versions_of(row, fam, q) == one.versions_of(row, fam, q)
                assert union.get_cell(row, fam, q) == one.get_cell(row, fam, q)
                for at in stamps[::5]:
                    assert union.get_cell(row, fam, q, as_of=at) == one.get_cell(row, fam, q, as_of=at)
    for term in ("red", "green", "blue", "grey"):
        assert union.postings("anchor", term) == one.postings("anchor", term)


def test_a_union_reads_as_one_table_that_took_every_write(tmp_path: Path) -> None:
    rng = random.Random(37)
    writes = _random_writes(rng, 60)
    members: list[RowStore] = [
        Table(tmp_path / "own", versions=VERSIONS),
        TabletTable(tmp_path / "p0", versions=VERSIONS, split_bytes=1, check_every=4),  # splits as it goes
        Table(tmp_path / "p1", versions=VERSIONS),
    ]
    with Table(tmp_path / "one", versions=VERSIONS) as one, UnionTable(members) as union:
        for mutation, indexes in writes:
            rng.choice(members).write([mutation], indexes=indexes)
            one.write([mutation], indexes=indexes)
        assert isinstance(members[1], TabletTable) and len(members[1].tablets) > 1
        rows = sorted({m.row for m, _ in writes})
        # rows with cells in several members, one cell in several: the merge is exercised
        assert any(sum(r in m for m in members) >= 2 for r in rows)
        stamps = sorted(m.ts for m, _ in writes)
        _same_reads(union, one, rows, [stamps[0] - 1, *stamps[::7], stamps[-1]])
        for i in range(len(writes)):
            assert union.lookup("hash", f"k{i}") == one.lookup("hash", f"k{i}")
        # writes go to the first member only
        union.put_row("com,new)/", {"f": {"a": 1}}, ts=20_000)
        union.put_entry("note", "k", {"v": 1})
        assert union.get_cell("com,new)/", "f", "a") == 1 and union.get_entry("note", "k") == {"v": 1}
        assert "com,new)/" in members[0] and not any("com,new)/" in m for m in members[1:])
        assert members[0].get_entry("note", "k") == {"v": 1}


def test_first_member_wins_lookups_and_equal_timestamps(tmp_path: Path) -> None:
    with Table(tmp_path / "a") as a, Table(tmp_path / "b") as b:
        a.put_row("r", {"f": {"q": "own"}}, ts=5)
        b.put_row("r", {"f": {"q": "partition", "p": 1}}, ts=5)
        b.put_row("s", {"f": {"q": "newer"}}, ts=9)
        a.put_row("s", {"f": {"q": "older"}}, ts=3)
        a.put_index("hash", "k", "r")
        b.put_index("hash", "k", "s")
        b.put_index("hash", "only-b", "s")
        union = UnionTable([a, b])
        assert union.get_row("r") == {"f": {"q": "own", "p": 1}}
        assert union.versions_of("r", "f", "q") == [(5, "own")]
        assert union.get_row("s") == {"f": {"q": "newer"}}
        assert union.get_cell("s", "f", "q", as_of=4) == "older"
        assert union.lookup("hash", "k") == "r" and union.lookup("hash", "only-b") == "s"
        with pytest.raises(StoreError, match="at least one"):
            UnionTable([])


def test_a_tablet_table_opens_read_only_beside_its_writer(tmp_path: Path) -> None:
    path = tmp_path / "tt"
    with pytest.raises(StoreError, match="no tablet table"):
        TabletTable(path, read_only=True)
    with TabletTable(path, split_bytes=20_000, check_every=32) as writer:
        with TabletTable(path, read_only=True) as empty:  # its first tablet not made yet
            assert list(empty.scan()) == [] and "com,a)/" not in empty
        rows = sorted(f"com,h{i % 7})/p{i:04d}" for i in range(600))
        for i, row in enumerate(rows):
            writer.put_row(row, {"fetch": {"i": i}, "text": {"t": "y" * 120}}, ts=1)
        writer.put_index("hash", "k", rows[3])
        assert writer.splits >= 1
        with TabletTable(path, read_only=True) as reader:
            assert [r for r, _ in reader.scan()] == rows
            assert reader.get_row(rows[10]) == writer.get_row(rows[10])
            assert reader.lookup("hash", "k") == rows[3]
            for refused in (
                lambda: reader.put_row("com,x)/", {"fetch": {"i": 0}}, ts=2),
                lambda: reader.put_entry("e", "k", 1),
                lambda: reader.split(reader.tablets[0].id),
                reader.compact,
            ):
                with pytest.raises(StoreError, match="read-only"):
                    refused()
            assert reader.maybe_split(reader.tablets[0].id) is False
        # the reader cleared nothing and the writer goes on
        writer.put_row("com,z)/", {"fetch": {"i": -1}}, ts=2)
        assert len(list(writer.rows())) == len(rows) + 1


# -- real collections: two crawl shards, each into its partition -----------------------------------


def _crawl_into(part: Path, root: Path, server: ServerThread, shard: int, shards: int) -> None:
    settings = CrawlSettings(
        min_delay=0.0,
        delay_factor=0.0,
        resolve=tuple(server.resolve_rules()),
        shard=shard,
        shards=shards,
        store_workers=0,
    )
    overrides = [f"warc.prefix=trawl-{part.name}"]
    with Collection.create(part, config_file=root / "trawl.toml", overrides=overrides) as coll:
        crawl([f"http://h{i}.test/" for i in range(HOSTS)], coll, settings)


@pytest.fixture(scope="module")
def web() -> TestWeb:
    return TestWeb(5, hosts=HOSTS, pages=4, special=False, change_rates=(0.0,))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, web: TestWeb) -> Path:
    """C: two partitions crawled by shards 0/2 and 1/2, and a dup cell in C's own table."""
    root = tmp_path_factory.mktemp("union") / "C"
    Collection.create(root, overrides=PLAIN).close()
    with ServerThread(web) as server:
        for i in range(2):
            _crawl_into(root / PARTITIONS / f"crawl-{i}-of-2", root, server, i, 2)
    with Collection.open(root) as coll:
        row = next(r.row for r in coll.records() if r.row.endswith("/p/1.html"))
        coll.table.put_row(row, {"dup": {"cluster": {"size": 2, "representative": row}}}, ts=1)
    return root


def _parts(root: Path) -> list[Path]:
    return sorted((root / PARTITIONS).iterdir())


def _records_of(part: Path) -> list[StoredRecord]:
    with Collection.open(part) as coll:
        return list(coll.records())


def test_every_partition_record_appears_once_in_surt_order(base: Path) -> None:
    by_part = [_records_of(p) for p in _parts(base)]
    assert all(len(records) > 5 for records in by_part)
    hosts = [{r.row.split(")")[0] for r in records} for records in by_part]
    assert not hosts[0] & hosts[1]  # each host was crawled by one shard
    with Collection.open(base) as coll:
        assert isinstance(coll.table, UnionTable) and [p.path for p in coll.partitions] == _parts(base)
        records = list(coll.records())
        rows = [r.row for r in records]
        assert rows == sorted(rows) and len(set(rows)) == len(rows)
        assert sorted(rows) == sorted(r.row for part in by_part for r in part)
        mine = {r.row: r for r in records}
        for part in by_part:
            for r in part:
                assert mine[r.row].capture == r.capture
        assert [r.row for r in coll.records("test,h1)")] == [r for r in rows if r.startswith("test,h1)")]
        assert [r.row for r in coll.captures()] == rows  # one capture of each
        # the dup cell lives in C's own table, beside the partition's cells of that row
        dup = next(r for r in records if r.cells.get("dup"))
        assert dup.capture and dup.cells["dup"]["cluster"]["size"] == 2
    with TabletTable(base / "table", read_only=True) as own:
        assert own.get_row(dup.row) == {"dup": dup.cells["dup"]}
        assert [row for row, _ in own.scan()] == [dup.row]


def test_find_and_read_every_record_by_each_key(base: Path) -> None:
    with Collection.open(base) as coll:
        for part in _parts(base):
            with Collection.open(part) as alone:
                for record in alone.records():
                    raw = alone.read(record).raw
                    p = record.capture["pointer"]
                    where = f"{p['file']}@{p['offset']}"
                    assert p["file"].startswith(f"trawl-{part.name}-")
                    for key in (record.url, url_hash(record.url), record.row, where):
                        found = coll.find(key)
                        assert found.row == record.row and found.capture == record.capture, key
                    assert coll.read(coll.find(record.url)).raw == raw
                    assert coll.read_at(p["file"], p["offset"]).url == record.url
                    assert coll.versions(record.url)[-1].capture == record.capture
        names = sorted(p.name for p in coll.warc_files())
        assert names == sorted(p.name for part in _parts(base) for p in (part / "warc").iterdir())


def test_anchor_text_from_both_partitions_is_merged(base: Path) -> None:
    anchors: list[dict[str, dict[str, str]]] = []
    for part in _parts(base):
        with Collection.open(part) as alone:
            anchors.append({row: cells["anchor"] for row, cells in alone.table.scan(families={"anchor"})})
    both = sorted(set(anchors[0]) & set(anchors[1]))
    assert both  # pages linked from hosts of both shards
    with Collection.open(base) as coll:
        for row in both:
            merged = coll.table.get_row(row, families={"anchor"})["anchor"]
            assert merged == {**anchors[0][row], **anchors[1][row]}
            assert len(merged) > max(len(anchors[0][row]), len(anchors[1][row]))
        row = both[0]
        text = next(iter(anchors[0][row].values()))
        found = {r.row: votes for r, votes in coll.find_by_anchor(text, limit=1000)}
        assert row in found and found[row] >= 1
        record = coll.find(row) if coll.table.get_cell(row, "fetch", "capture") else None
        if record is not None:
            assert record.anchors == {**anchors[0][row], **anchors[1][row]}


def test_show_and_get_read_the_union(base: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    capsys = capsysbinary
    counts = [len(_records_of(p)) for p in _parts(base)]
    capsys.readouterr()
    assert main(["show", str(base), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["urls"] == sum(counts)
    assert [p["name"] for p in info["partitions"]] == ["crawl-0-of-2", "crawl-1-of-2"]
    assert info["warc_files"] == sum(p["warc_files"] for p in info["partitions"])
    assert info["runs"] == 2 and info["counters"]["store/records"] >= sum(counts)
    assert main(["show", str(base)]) == 0
    assert b"crawl-0-of-2, crawl-1-of-2" in capsys.readouterr().out
    for part in _parts(base):
        record = _records_of(part)[2]
        assert main(["get", str(base), record.url, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["url"] == record.url and data["warc"] == record.capture["pointer"]
        assert main(["get", str(base), record.url, "--raw"]) == 0
        with Collection.open(part) as alone:
            assert capsys.readouterr().out == alone.read(record).raw


def test_a_url_captured_in_two_partitions_has_both_versions(base: Path, web: TestWeb, tmp_path: Path) -> None:
    root = tmp_path / "C"
    shutil.copytree(base, root)
    with ServerThread(web) as server:  # a later crawl of every host into a third partition
        _crawl_into(root / PARTITIONS / "crawl-again", root, server, 0, 1)
    before = {r.row: r for part in _parts(base) for r in _records_of(part)}
    again = {r.row: r for r in _records_of(root / PARTITIONS / "crawl-again")}
    with Collection.open(root) as coll:
        rows = [r.row for r in coll.records()]
        assert len(rows) == len(set(rows)) and set(rows) == set(before) | set(again)
        url = next(r.url for row, r in before.items() if row in again and r.row.endswith("/p/2.html"))
        old, new = coll.versions(url)
        assert old.capture == before[old.row].capture and new.capture == again[new.row].capture
        assert old.capture["fetched_at"] < new.capture["fetched_at"]
        assert coll.find(url).capture == new.capture
        p = old.capture["pointer"]
        assert coll.find(f"{p['file']}@{p['offset']}").capture == old.capture
        assert coll.read(old).raw == coll.read(new).raw  # the same page, from two partitions' WARCs


def test_writes_to_a_union_collection_go_to_its_own_table_and_warc(base: Path, tmp_path: Path) -> None:
    root = tmp_path / "C"
    shutil.copytree(base, root)
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text("<html><title>Own page</title><p>Written to the collection itself.</p>")
    listing = {p.name: sorted(f.name for f in (p / "warc").iterdir()) for p in _parts(root)}
    with Collection.open(root) as coll:
        result = ingest([pages], coll)
    assert result.stats.counters["store/records"] == 1
    with Collection.open(root) as coll:
        record = coll.find((pages / "a.html").as_uri())
        assert (root / "warc" / record.capture["pointer"]["file"]).is_file()
        assert coll.read(record).raw.startswith(b"<html><title>Own page")
        assert record.row in {r.row for r in coll.records()}
    assert {p.name: sorted(f.name for f in (p / "warc").iterdir()) for p in _parts(root)} == listing
    for part in _parts(root):
        with Collection.open(part) as alone:
            assert record.row not in alone.table


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from trawl.jobs.ingest import ingest
    from trawl.store.collection import Collection
    with Collection.open(Path(sys.argv[1])) as coll:
        ingest([Path(sys.argv[2])], coll)
        # one more write, left in RocksDB's log: no flush before the reader opens the partition
        coll.table.put_row("zz,held)/", {"fetch": {"note": "unflushed"}}, ts=time.time_ns() // 1000)
        print("ready", flush=True)
        sys.stdin.read()  # the table (and its LOCK) held until the test closes stdin
    """
)


def test_a_partition_held_open_by_its_writer_is_still_read(base: Path, tmp_path: Path) -> None:
    root = tmp_path / "C"
    shutil.copytree(base, root)
    part = _parts(root)[1]
    pages = tmp_path / "new"
    pages.mkdir()
    for i in range(3):
        (pages / f"n{i}.html").write_text(f"<html><title>New {i}</title><p>A page the shard adds, {i}.</p>")
    marker = generation_marker(root)
    held = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(part), str(pages)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match="another process"), Collection.open(part) as writer:
            writer.table  # noqa: B018 - the shard holds the partition's lock
        assert generation_marker(root) != marker  # the side index of trawl serve notices
        with Collection.open(root) as coll:
            for i in range(3):
                record = coll.find((pages / f"n{i}.html").as_uri())
                assert coll.read(record).raw.startswith(f"<html><title>New {i}".encode())
                assert record.capture["pointer"]["file"].startswith(f"trawl-{part.name}-")
            assert coll.table.get_row("zz,held)/") == {"fetch": {"note": "unflushed"}}
            rows = [r.row for r in coll.records()]
            assert (
                len(rows)
                == len(set(rows))
                == len(_records_of(_parts(base)[0])) + len(_records_of(_parts(base)[1])) + 3
            )
            assert coll.info()["urls"] == len(rows)
    finally:
        assert held.stdin is not None
        held.stdin.close()
        assert held.wait(timeout=30) == 0


def test_a_plain_collection_is_as_before(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text("<html><title>A</title><p>One page.</p>")
    with Collection.create(tmp_path / "C", overrides=PLAIN) as coll:
        ingest([pages], coll)
    (tmp_path / "C" / PARTITIONS / "not-a-collection").mkdir(parents=True)  # ignored
    with Collection.open(tmp_path / "C") as coll:
        assert isinstance(coll.table, TabletTable) and coll.partitions == []
        info: dict[str, Any] = coll.info()
        assert info["urls"] == 1 and info["partitions"] == []
        assert [p.parent for p in coll.warc_files()] == [tmp_path / "C" / "warc"]
