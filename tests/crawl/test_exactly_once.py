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
from typing import Any

import pytest

from tests.store.test_tails import warcio_reads_to_end
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


def killed_and_resumed(tmp_path: Path, kills: int, seed: int, pages: int, delay: float) -> dict[str, Any]:
    """Crawl the test web, SIGKILLed ``kills`` times at random moments and resumed until it ends;
    the figures (``bench/reliability.py`` reports them): kills by moment, runs, pages, pages
    lost (answered 200 by the server or in the uninterrupted reference crawl, but not stored),
    pages stored more than once, pages stored but not expected, URLs left pending, WARC files
    warcio cannot read to their end. ``delay``: a pause between a host's fetches, to spread the
    crawl over ``kills`` kills."""
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

    with Collection.open(out) as coll:
        records = [r for r in coll.records() if r.capture]
        got = {r.url for r in records}
        twice = {}
        for record in records:
            if record.url.endswith("/robots.txt"):
                continue  # fetched again by each run, by design
            versions = coll.table.versions_of(record.row, "fetch", "capture")
            if len(versions) != 1:
                twice[record.url] = len(versions)
        files = coll.warc_files()
    with sqlite3.connect(out / "frontier" / "crawl.sqlite") as con:
        pending = int(con.execute("SELECT COUNT(*) FROM urls WHERE state = 0").fetchone()[0])
    unreadable = []
    for path in files:  # every file, a torn tail included, reads to its end, every block whole
        try:
            warcio_reads_to_end(path)
        except Exception as exc:  # any failure to read is the figure (AssertionError included)
            unreadable.append(f"{path.name}: {exc!r}"[:300])
    return {
        "kills": sum(moments.values()),
        "moments": dict(moments),
        "runs": runs,
        "items": len(got),
        "lost": sorted((answered | expected) - got),
        "twice": twice,
        "unexpected": sorted(got - expected),
        "pending": pending,
        "torn": unreadable,
    }


def _check(figures: dict[str, Any], kills: int) -> None:
    assert figures["kills"] >= kills, figures["moments"]  # killed that often before the crawl ended
    assert not figures["lost"], figures["lost"][:10]  # nothing fetched was lost
    assert not figures["unexpected"], figures["unexpected"][:10]
    assert not figures["twice"], (len(figures["twice"]), sorted(figures["twice"].items())[:10], figures)
    assert figures["pending"] == 0
    assert not figures["torn"], figures["torn"]


def test_ten_kills_and_resumes_store_every_page_once(tmp_path: Path) -> None:
    _check(killed_and_resumed(tmp_path, kills=10, seed=35, pages=25, delay=0.03), kills=10)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fifty_kills_and_resumes_store_every_page_once(tmp_path: Path, seed: int) -> None:
    _check(killed_and_resumed(tmp_path, kills=50, seed=seed, pages=40, delay=0.2), kills=50)
