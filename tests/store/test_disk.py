"""trawl.store.disk: the write errors that stop a run, found behind what raised them; a WARC record
the disk refused is cut off; the audit trail and the frontier survive a full disk.

Real errors only: ``/dev/full`` (every write ENOSPC), SQLite's ``max_page_count`` (SQLITE_FULL),
and ``tests/faults/enospc.c`` preloaded into a subprocess (RocksDB, short writes).
"""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.faults import build_shim, fault_env
from trawl.crawl.frontier import Entry, Frontier
from trawl.errors import DiskError, StoreError
from trawl.pipeline.base import Audit, AuditEntry
from trawl.store.disk import advice, counter, disk_error

DEV_FULL = Path("/dev/full")


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shim(tmp_path_factory.mktemp("shim"))


def _full_write() -> OSError:
    if not DEV_FULL.exists():
        pytest.skip("no /dev/full on this system")
    try:
        with DEV_FULL.open("wb", buffering=0) as fh:
            fh.write(b"x")
    except OSError as exc:
        return exc
    raise AssertionError("/dev/full took a write")


def test_an_os_error_of_a_full_disk_is_a_disk_error() -> None:
    exc = _full_write()
    disk = disk_error(exc, "/data/coll/warc/a.warc.gz")
    assert isinstance(disk, DiskError) and isinstance(disk, StoreError)
    assert disk.errno == errno.ENOSPC
    assert str(disk) == "disk full writing /data/coll/warc/a.warc.gz (No space left on device)"
    assert counter(disk) == "store/error/enospc"
    assert advice(disk, "run again with --resume") == "free space and run again with --resume"
    # also as the cause of a StoreError (how the WARC writer reports what it cannot create)
    try:
        raise StoreError("cannot create WARC file 'x.warc.gz'") from exc
    except StoreError as wrapped:
        behind = disk_error(wrapped, "/data/x.warc.gz")
    assert behind is not None and behind.errno == errno.ENOSPC
    assert disk_error(behind) is behind


def test_other_errors_are_not_disk_errors(tmp_path: Path) -> None:
    try:
        (tmp_path / "missing" / "file").write_text("x")
    except OSError as exc:
        assert disk_error(exc) is None  # ENOENT: a bug or a bad path, not the disk
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
    db.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError) as caught:
        db.execute("INSERT INTO t VALUES (1)")
    assert disk_error(caught.value) is None
    assert disk_error(ValueError("IO error: No space left on device")) is None  # not from RocksDB


def test_sqlite_full_is_a_disk_error(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.sqlite")
    db.execute("CREATE TABLE t (v TEXT)")
    db.execute("PRAGMA max_page_count = 4")  # a database that cannot grow: SQLite says SQLITE_FULL
    with pytest.raises(sqlite3.OperationalError) as caught:
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,) for _ in range(100)])
    disk = disk_error(caught.value, tmp_path / "x.sqlite")
    assert disk is not None and disk.errno == errno.ENOSPC and disk.path.endswith("x.sqlite")


def test_the_frontier_stops_committing_on_a_full_disk_and_keeps_what_it_committed(tmp_path: Path) -> None:
    path = tmp_path / "crawl.sqlite"
    frontier = Frontier(path)
    frontier.add_many([Entry(i, f"http://a.test/{i}", "a.test") for i in range(1, 11)])
    frontier.flush()
    pages = frontier.db.execute("PRAGMA page_count").fetchone()[0]
    frontier.db.execute(f"PRAGMA max_page_count = {pages}")  # full from now on
    frontier.add_many([Entry(i, f"http://a.test/{i}/" + "x" * 500, "a.test") for i in range(100, 400)])
    with pytest.raises(DiskError) as caught:
        frontier.flush()
    assert caught.value.errno == errno.ENOSPC and str(path) in str(caught.value)
    assert frontier.failed is caught.value
    with pytest.raises(DiskError):
        frontier.flush()  # no second try in this run
    assert frontier.counts()["queued"] == 10  # what is committed
    frontier.close()
    again = Frontier(path)
    assert again.counts()["queued"] == 10 and again.resumed
    again.close()


def test_the_audit_trail_of_a_full_disk_keeps_its_entries_in_memory() -> None:
    _full_write()  # skips without /dev/full
    audit = Audit(DEV_FULL)
    for i in range(2000):  # past the file's buffer: the write fails inside record()
        audit.record(AuditEntry("drop", "store", "x", "y" * 50, url=f"http://a.test/{i}"))
    audit.close()
    assert isinstance(audit.failed, OSError) and audit.failed.errno == errno.ENOSPC
    assert audit.total == 2000 and len(audit.entries) == audit.keep


_WARC_SCRIPT = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime
    from pathlib import Path
    from trawl.document import Document
    from trawl.errors import DiskError
    from trawl.store.warcfile import WarcFileWriter

    out, flag = Path(sys.argv[1]), Path(sys.argv[2])
    def doc(i):
        return Document(url=f"http://a.test/{i}", status=200, raw=bytes(range(256)) * (40 + i),
                        fetched_at=datetime(2024, 1, 1, tzinfo=UTC))
    with WarcFileWriter(out, prefix="t") as w:
        for i in range(5):
            w.write(doc(i))
        size = w._size
        flag.touch()
        try:
            w.write(doc(5))
        except DiskError as exc:
            print("refused", exc.errno, exc.path)
        print("size", size, (out / w.files[0]).stat().st_size)
        flag.unlink()
        print("pointer", w.write(doc(6)).offset)
    """
)


def test_a_warc_record_the_disk_refused_is_cut_off(tmp_path: Path, shim: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    out, flag = tmp_path / "warc", tmp_path / "full"
    env = fault_env(shim, out, flag, short=True)  # half the record goes through, then ENOSPC
    r = subprocess.run(
        [sys.executable, "-c", _WARC_SCRIPT, str(out), str(flag)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    said = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    number, where = said["refused"].split(" ", 1)
    assert int(number) == errno.ENOSPC and where.startswith(str(out))
    size, on_disk = map(int, said["size"].split())
    assert on_disk == size  # the half that got through is gone
    assert int(said["pointer"]) == size  # the next record follows the last whole one
    (path,) = out.iterdir()
    with path.open("rb") as fh:
        urls = [
            rec.rec_headers.get_header("WARC-Target-URI") for rec in ArchiveIterator(fh, check_digests=True)
        ]
    assert urls == [None] + [f"http://a.test/{i}" for i in (0, 1, 2, 3, 4, 6)]  # warcinfo first


_TABLE_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from trawl.store.disk import disk_error
    from trawl.store.table import Table

    path, flag = Path(sys.argv[1]), Path(sys.argv[2])
    table = Table(path, versions={"f": 1})
    table.put_row("com,a)/", {"f": {"q": 1}}, 1)
    flag.touch()
    try:
        table.put_row("com,a)/2", {"f": {"q": 2}}, 1)
    except Exception as exc:
        disk = disk_error(exc)
        print(disk.errno if disk else "none", disk.path if disk else repr(exc))
    """
)


def test_rocksdb_refusing_a_write_is_a_disk_error(tmp_path: Path, shim: Path) -> None:
    # RocksDB is linked into rocksdict: the shim must catch its writes, and its error must be read
    path, flag = tmp_path / "table", tmp_path / "full"
    env = fault_env(shim, path, flag, errno="EIO")
    r = subprocess.run(
        [sys.executable, "-c", _TABLE_SCRIPT, str(path), str(flag)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    number, where = r.stdout.split()
    assert int(number) == errno.EIO
    assert where.startswith(str(path)) and where.endswith(".log")  # its write-ahead log, named
