"""A crawl whose disk fills up (or fails) stops with one clear line, marks nothing done that it did
not store, and ``--resume`` ends it, once the space is back, with every page stored exactly once.

The disk is real and so are the writes: ``tests/faults/enospc.c``, preloaded into the crawl's
processes, fails writes under the collection (WARC files, the table, the frontier, the stats)
with ENOSPC or EIO while a flag file exists, after a given number went through. The judge is an
uninterrupted crawl of the same test web and the server's request log.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.faults import build_shim, fault_env
from trawl.crawl.crawler import CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

PLAIN = ["extract.enabled=false", "langid.enabled=false", "crawl.revisit_min=3600"]
WHAT = {
    "ENOSPC": ("disk full", "No space left on device", "free space"),
    "EIO": ("I/O error", "Input/output error", "check the disk"),
    "EDQUOT": ("disk quota exceeded", "Disk quota exceeded", "free space or raise the quota"),
    "EROFS": ("read-only file system", "Read-only file system", "make the file system writable"),
}


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shim(tmp_path_factory.mktemp("shim"))


def _crawl_cmd(out: Path, rules: list[str], *extra: str) -> list[str]:
    cmd = [sys.executable, "-c", "import sys; from trawl.cli.main import main; sys.exit(main())", "crawl"]
    cmd += ["-o", str(out), "--no-progress", "--json", "--delay", "0", "--delay-factor", "0", *extra]
    for option in PLAIN:
        cmd += ["--set", option]
    for rule in rules:
        cmd += ["--resolve", rule]
    return cmd


def _web(seed: int) -> TestWeb:
    return TestWeb(seed, hosts=4, pages=15, special=False, change_rates=(0.0,))


_REFERENCES: dict[int, set[str]] = {}


def _reference(seed: int, path: Path) -> set[str]:
    """The URLs one crawl of the test web stores on a disk with room (once per seed)."""
    if seed not in _REFERENCES:
        web = _web(seed)
        with ServerThread(web) as server:
            rules = tuple(server.resolve_rules())
            settings = CrawlSettings(min_delay=0.0, delay_factor=0.0, resolve=rules, store_workers=0)
            with Collection.create(path, overrides=PLAIN) as coll:
                crawl(web.seeds(), coll, settings)
                _REFERENCES[seed] = {r.url for r in coll.records() if r.capture}
    return _REFERENCES[seed]


def _frontier_urls(out: Path, state: int) -> set[str]:
    with sqlite3.connect(out / "frontier" / "crawl.sqlite") as con:
        return {url for (url,) in con.execute("SELECT url FROM urls WHERE state = ?", (state,))}


def fill_and_resume(
    tmp_path: Path,
    shim: Path,
    *,
    match: str,
    errno: str,
    workers: int,
    after: int = 0,
    at_done: int = 0,
    short: bool = False,
) -> None:
    """Crawl with the disk filling after ``after`` writes to files matching ``match`` (or once
    the frontier has committed ``at_done`` pages as done); check the stop; free the space;
    resume; check the collection against an uninterrupted crawl."""
    out, flag = tmp_path / "victim", tmp_path / "disk-full"
    env = fault_env(shim, out, flag, match=match, errno=errno, after=after, short=short)
    # SQLite reports every write error but ENOSPC as SQLITE_IOERR, the errno unsaid
    said = errno if match != "/frontier/" or errno == "ENOSPC" else "EIO"
    if not at_done:
        flag.touch()
        stop_and_resume(tmp_path, out, env, flag.unlink, errno=said, workers=workers)
        return

    def fill(proc: subprocess.Popen[str]) -> None:
        while proc.poll() is None and _done(out) < at_done:
            time.sleep(0.002)
        flag.touch()

    # a gap between a host's pages spreads the crawl past the moment
    extra = ("--delay", "0.02")
    stop_and_resume(tmp_path, out, env, flag.unlink, errno=said, workers=workers, fill=fill, extra=extra)


def _done(out: Path) -> int:
    """URLs the running crawl's frontier has committed as done (0 while it cannot be read)."""
    try:
        with sqlite3.connect(
            f"file:{out / 'frontier' / 'crawl.sqlite'}?mode=ro", uri=True, timeout=0.05
        ) as con:
            return int(con.execute("SELECT COUNT(*) FROM urls WHERE state = 1").fetchone()[0])
    except sqlite3.Error:
        return 0


def stop_and_resume(
    tmp_path: Path,
    out: Path,
    env: dict[str, str],
    free: Callable[[], object],
    *,
    errno: str,
    workers: int,
    fill: Callable[[subprocess.Popen[str]], None] | None = None,
    extra: Sequence[str] = (),
) -> None:
    """Crawl into ``out`` on a disk that fills up; check the stop (a message naming ``errno``);
    ``free`` the space; resume; check the collection against an uninterrupted crawl."""
    from warcio.archiveiterator import ArchiveIterator

    seed = 35
    web = _web(seed)
    expected = _reference(seed, tmp_path / "ref")
    with ServerThread(web) as server:
        rules = server.resolve_rules()
        before = len(server.log)
        workers_option = ["--store-workers", str(workers)]
        with subprocess.Popen(
            _crawl_cmd(out, rules, *workers_option, *extra, *web.seeds()),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as proc:
            if fill is not None:
                fill(proc)  # fills the disk at its moment
            stdout, stderr = proc.communicate(timeout=120)
        r = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
        what, strerror, fix = WHAT[errno]
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "Traceback" not in r.stderr, r.stderr
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, r.stderr  # one line says it all
        pattern = (
            rf"trawl crawl: {re.escape(what)} writing {re.escape(str(out))}/\S+ \({re.escape(strerror)}\); "
            rf"stopped after \d+ pages; {re.escape(fix)}.* and run again with --resume"
        )
        assert re.fullmatch(pattern, lines[0]), lines[0]
        report = json.loads(r.stdout)
        assert report["stopped"] == "store-failed"
        assert report["failure"] and report["failure"] in lines[0]
        assert report["counters"][f"store/error/{errno.lower()}"] == 1
        assert report["pages"] < len(expected)  # it stopped: the disk filled before the end

        free()  # space again (opening the table writes too: RocksDB replays its log)
        # what the frontier took for done is stored; the collection opens
        done = _frontier_urls(out, 1)
        with Collection.open(out) as coll:
            stored = {r.url for r in coll.records() if r.capture}
        assert done <= stored, sorted(done - stored)[:5]
        assert _frontier_urls(out, 0), "nothing left queued for --resume"
        r = subprocess.run(
            _crawl_cmd(out, rules, *workers_option, "--resume"),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert r.returncode == 0, r.stderr
        answered = {f"http://{e.host}{e.target}" for e in server.log[before:] if e.status == 200}

    with Collection.open(out) as coll:
        records = [r for r in coll.records() if r.capture]
        got = {r.url for r in records}
        assert answered <= got, sorted(answered - got)[:10]  # nothing fetched was lost
        assert got == expected, (sorted(expected - got)[:10], sorted(got - expected)[:10])
        twice = {
            r.url: n
            for r in records
            if not r.url.endswith("/robots.txt")  # fetched again by each run, by design
            and (n := len(coll.table.versions_of(r.row, "fetch", "capture"))) != 1
        }
        assert not twice, sorted(twice.items())[:10]
        files = coll.warc_files()
    assert not _frontier_urls(out, 0)
    for path in files:  # the record the disk refused was cut off: every file reads to its end
        with path.open("rb") as fh:
            for _rec in ArchiveIterator(fh, check_digests=True):
                pass


def test_warc_files_fill_up(tmp_path: Path, shim: Path) -> None:
    # the store worker's WARC writes, half a write going through first (a filling disk)
    fill_and_resume(tmp_path, shim, match=".warc", errno="ENOSPC", after=20, workers=2, short=True)


def test_table_fills_up(tmp_path: Path, shim: Path) -> None:
    # RocksDB's own writes (its log, its tablets' files), in the one store worker
    fill_and_resume(tmp_path, shim, match="/table/", errno="ENOSPC", after=150, workers=1)


def test_frontier_io_error(tmp_path: Path, shim: Path) -> None:
    # EIO on the frontier's SQLite commits, pages stored in the crawler's own loop
    fill_and_resume(tmp_path, shim, match="/frontier/", errno="EIO", after=50, workers=0)


@pytest.mark.slow
@pytest.mark.parametrize("errno", sorted(WHAT))
@pytest.mark.parametrize("match", [".warc", "/table/", "/frontier/", "-requests-"])
def test_every_errno_every_file_kind(tmp_path: Path, shim: Path, errno: str, match: str) -> None:
    rng = random.Random(f"{errno}{match}")  # a moment of its own for each pair, the same each run
    fill_and_resume(
        tmp_path,
        shim,
        match=match,
        errno=errno,
        at_done=rng.randint(2, 40),
        workers=rng.choice([0, 1, 2]),
        short=rng.random() < 0.5,
    )


def test_a_small_file_system_fills_up(tmp_path: Path) -> None:
    """No shim: a real tmpfs too small for the crawl, grown (remounted larger) for the resume."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=320k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {made.stderr.strip()}")

    def grow() -> None:
        subprocess.run(["mount", "-o", "remount,size=64m", str(mount)], check=True)

    try:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        stop_and_resume(tmp_path, mount / "coll", env, grow, errno="ENOSPC", workers=2)
    finally:
        if subprocess.run(["umount", str(mount)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], check=False)  # still busy: detached now
