"""Exactly once under SIGKILL: a crawl killed at random moments and resumed until it ends stores
every page once, loses no discovered URL and leaves WARC files that warcio reads to their end.

The judge is the server's request log: every URL it answered 200 for is in the collection.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from trawl.crawl.crawler import CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

# sitemaps are read again by a resumed crawl once ``revisit_min`` has passed, by design: not here
PLAIN = ["extract.enabled=false", "langid.enabled=false", "crawl.revisit_min=3600"]
POLL = 0.002


def _crawl_cmd(out: Path, rules: list[str], delay: float, *extra: str) -> list[str]:
    cmd = [sys.executable, "-c", "import sys; from trawl.cli.main import main; sys.exit(main())", "crawl"]
    cmd += ["-o", str(out), "--no-progress", "--json", "--delay", str(delay), "--delay-factor", "0", *extra]
    for option in PLAIN:
        cmd += ["--set", option]
    for rule in rules:
        cmd += ["--resolve", rule]
    return cmd


def _done(db: Path) -> int:
    """URLs the frontier has committed as done (0 while it cannot be read)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05) as con:
            return int(con.execute("SELECT COUNT(*) FROM urls WHERE state = 1").fetchone()[0])
    except sqlite3.Error:
        return 0


def _warc_bytes(out: Path) -> int:
    try:
        return sum(p.stat().st_size for p in (out / "warc").iterdir())
    except OSError:
        return 0


def _kill_at_random(proc: subprocess.Popen[bytes], out: Path, rng: random.Random) -> str:
    """Wait for a moment chosen by ``rng`` and SIGKILL ``proc`` then; the moment's kind, or
    ``"exited"`` when the crawl ended first."""
    db = out / "frontier" / "crawl.sqlite"
    mode = rng.choice(["start", "fetching", "fetching", "storing", "storing"])
    if mode == "start":  # imports, opening the collection, recovery, the first fetches
        deadline = time.monotonic() + rng.uniform(0.0, 0.6)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(POLL)
    elif mode == "fetching":  # just after the frontier commits some URLs as done
        target = _done(db) + rng.randint(1, 3)
        while proc.poll() is None and _done(db) < target:
            time.sleep(POLL)
        time.sleep(rng.uniform(0.0, 0.02))
    else:  # while a WARC record is being written and its row committed
        target = _warc_bytes(out) + rng.randint(1, 5_000)
        while proc.poll() is None and _warc_bytes(out) < target:
            time.sleep(POLL)
        time.sleep(rng.uniform(0.0, 0.005))
    if proc.poll() is not None:
        return "exited"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return mode


def _killed_and_resumed(tmp_path: Path, kills: int, seed: int, pages: int, delay: float) -> None:
    """``delay``: a pause between a host's fetches, to spread the crawl over ``kills`` kills."""
    from warcio.archiveiterator import ArchiveIterator

    web = TestWeb(seed, hosts=4, pages=pages, special=False, change_rates=(0.0,))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    rng = random.Random(seed)
    with ServerThread(web) as server:
        rules = server.resolve_rules()
        ref = tmp_path / "ref"  # the reference: one uninterrupted crawl
        settings = CrawlSettings(min_delay=0.0, delay_factor=0.0, resolve=tuple(rules), store_workers=0)
        with Collection.create(ref, overrides=PLAIN) as coll:
            crawl(web.seeds(), coll, settings)
            expected = {r.url for r in coll.records() if r.capture}
        before = len(server.log)

        out = tmp_path / "victim"
        moments: Counter[str] = Counter()
        runs = 0
        while True:
            extra = ["--resume"] if (out / "frontier" / "crawl.sqlite").exists() else web.seeds()
            proc = subprocess.Popen(
                _crawl_cmd(out, rules, delay, *extra),
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            runs += 1
            if sum(moments.values()) >= kills:
                _, err = proc.communicate(timeout=120)
                assert proc.returncode == 0, err.decode()
                break
            moment = _kill_at_random(proc, out, rng)
            if moment == "exited":  # the crawl ended between two kills
                _, err = proc.communicate()
                assert proc.returncode == 0, err.decode()
                break
            moments[moment] += 1
            assert proc.stderr is not None
            proc.stderr.close()
        answered = {f"http://{e.host}{e.target}" for e in server.log[before:] if e.status == 200}
    print(f"kills: {dict(moments)}, runs: {runs}, pages: {len(answered)}")
    assert sum(moments.values()) >= kills, moments  # killed that often before the crawl ended

    with Collection.open(out) as coll:
        records = [r for r in coll.records() if r.capture]
        got = {r.url for r in records}
        assert answered <= got, sorted(answered - got)[:10]  # nothing fetched was lost
        assert got == expected, (sorted(expected - got)[:10], sorted(got - expected)[:10])
        twice = {}
        for record in records:
            if record.url.endswith("/robots.txt"):
                continue  # fetched again by each run, by design
            versions = coll.table.versions_of(record.row, "fetch", "capture")
            if len(versions) != 1:
                twice[record.url] = len(versions)
        assert not twice, (len(twice), sorted(twice.items())[:10], dict(moments), runs)
        files = coll.warc_files()
    with sqlite3.connect(out / "frontier" / "crawl.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM urls WHERE state = 0").fetchone()[0] == 0
    for path in files:  # every file, a torn tail included, reads to its end
        with path.open("rb") as fh:
            for _rec in ArchiveIterator(fh, check_digests=True):
                pass


def test_ten_kills_and_resumes_store_every_page_once(tmp_path: Path) -> None:
    _killed_and_resumed(tmp_path, kills=10, seed=35, pages=15, delay=0.03)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fifty_kills_and_resumes_store_every_page_once(tmp_path: Path, seed: int) -> None:
    _killed_and_resumed(tmp_path, kills=50, seed=seed, pages=40, delay=0.2)
