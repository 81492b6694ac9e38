"""``trawl dedup C --workers N``: map, shuffle and reduce tasks find what one process finds."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trawl.cli.main import main
from trawl.dedup.engine import DedupOptions
from trawl.jobs.dedup import discover_collection
from trawl.jobs.executors import LocalExecutor, RayExecutor, TaskOutcome
from trawl.jobs.ingest import ingest
from trawl.jobs.sharded_dedup import key_ranges, sharded_discover
from trawl.store.collection import Collection

HAVE_RAY = importlib.util.find_spec("ray") is not None
VOCAB = [f"{a}{b}{c}{d}" for a in "bcdfgklmnprstvz" for b in "aeiou" for c in "nrstlmk" for d in "aeiouy"]
GROUPS = 30


def make_pages(src: Path, singles: int = 300) -> set[frozenset[str]]:
    """Text pages: GROUPS groups of three variants (0, 1, 2 words changed: Jaccard > 0.9), some
    with an exact copy (other case and spacing) named to sort far from its group, singletons and
    two pages without words. Returns the groups as sets of file names (the expected clusters)."""
    rng = random.Random(37)
    src.mkdir(parents=True)
    groups: set[frozenset[str]] = set()
    for g in range(GROUPS):
        base = [rng.choice(VOCAB) for _ in range(200)]
        names = []
        for v in range(3):
            words = list(base)
            for _ in range(v):
                words[rng.randrange(len(words))] = rng.choice(VOCAB)
            names.append(f"g{g:03d}-v{v}.txt")
            (src / names[-1]).write_text(" ".join(words) + "\n", encoding="utf-8")
        if g % 7 == 0:
            names.append(f"zz-copy-{g:03d}.txt")
            (src / names[-1]).write_text("  ".join(base).upper(), encoding="utf-8")
        groups.add(frozenset(names))
    for s in range(singles):
        (src / f"s{s:04d}.txt").write_text(" ".join(rng.choice(VOCAB) for _ in range(200)), encoding="utf-8")
    for name in ("blank-a.txt", "blank-b.txt"):
        (src / name).write_text("... --- ...\n", encoding="utf-8")
    return groups


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[frozenset[str]], Path]:
    """The pages, their groups, and their collection with its one-process discovery stored."""
    root = tmp_path_factory.mktemp("sharded-dedup")
    groups = make_pages(root / "docs")
    with Collection.create(root / "plain") as coll:
        ingest([root / "docs"], coll, incremental=False)
    return root / "docs", groups, root / "plain"


def _copy(collection: Path, to: Path) -> Path:
    shutil.copytree(collection, to, ignore=shutil.ignore_patterns("index"))
    return to


def _json_pairs(collection: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["dedup", str(collection), "--json", *flags]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def stored(collection: Path) -> dict[str, Any]:
    """What a discovery stored: clusters (sets of URL sets), report counters, pairs file, dup
    cells of every row, and the search index's arrays and strings."""
    report = json.loads((collection / "index" / "dedup" / "report.json").read_text(encoding="utf-8"))
    near = collection / "index" / "dedup" / "near"
    with Collection.open(collection) as coll:
        cells = {r.row: r.cells.get("dup") for r in coll.records()}
    return {
        "clusters": {frozenset(c["members"]) for c in report["clusters"]},
        "representatives": sorted(c["representative"] for c in report["clusters"]),
        "counters": report["counters"],
        "pairs": (collection / "index" / "dedup" / "pairs.jsonl").read_text(encoding="utf-8"),
        "cells": cells,
        "index": {p.name: np.load(p).tolist() for p in sorted(near.glob("*.npy"))},
        "strings": json.loads((near / "strings.json").read_text(encoding="utf-8")),
    }


def _names(clusters: set[frozenset[str]]) -> set[frozenset[str]]:
    return {frozenset(url.rsplit("/", 1)[1] for url in c) for c in clusters}


@pytest.fixture(scope="module")
def reference(
    corpus: tuple[Path, set[frozenset[str]], Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``trawl dedup C --json`` (one process): its lines and what it stored; its clusters are the
    generated groups."""
    _, groups, plain = corpus
    coll = _copy(plain, tmp_path_factory.mktemp("reference") / "c")
    proc = subprocess.run(
        [sys.executable, "-m", "trawl.cli.main", "dedup", str(coll), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    result = stored(coll)
    assert _names(result["clusters"]) == groups
    assert result["counters"]["dedup/skipped/empty-text"] == 2
    assert result["counters"]["dedup/pairs/exact"] == len([g for g in range(GROUPS) if g % 7 == 0])
    return lines, result


def test_key_ranges_cover_every_row_once(corpus: tuple[Path, set[frozenset[str]], Path]) -> None:
    with Collection.open(corpus[2]) as coll:
        rows = list(coll.table.rows())
        for world in (1, 2, 3, 7, len(rows) + 5):
            ranges = key_ranges(coll.table, world)
            assert ranges[0][0] == "" and ranges[-1][1] is None and len(ranges) <= world
            counts = [sum(1 for r in rows if lo <= r and (hi is None or r < hi)) for lo, hi in ranges]
            assert sum(counts) == len(rows) and min(counts) > 0
            if world <= 3:
                assert max(counts) - min(counts) <= 1


def test_local_workers_find_and_store_what_one_process_does(
    corpus: tuple[Path, set[frozenset[str]], Path],
    reference: tuple[list[dict[str, Any]], dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines, want = reference
    coll = _copy(corpus[2], tmp_path / "c")
    assert _json_pairs(coll, capsys, "--workers", "2", "--tasks", "3") == lines  # the same lines, in order
    assert stored(coll) == want
    assert not (coll / "tasks" / "dedup").exists(), "a finished job leaves no work behind"
    # the plain output (summary, clusters) is the same but for the time it took
    capsys.readouterr()
    assert main(["dedup", str(coll)]) == 0
    plain = capsys.readouterr()
    assert main(["dedup", str(coll), "--workers", "2"]) == 0
    sharded = capsys.readouterr()
    cut = slice(plain.out.index(" s)"), None)
    assert plain.out[cut] == sharded.out[cut] and "4 map and 4 reduce tasks on local" in sharded.err


def test_a_killed_map_task_is_redone_and_the_result_is_the_same(
    corpus: tuple[Path, set[frozenset[str]], Path],
    reference: tuple[list[dict[str, Any]], dict[str, Any]],
    tmp_path: Path,
) -> None:
    coll_path = _copy(corpus[2], tmp_path / "c")
    killed: list[str] = []
    stop = threading.Event()

    def kill_a_map_task() -> None:
        while not stop.is_set() and not killed:
            for pid_file in (coll_path / "tasks" / "dedup").glob("job-*/running/map-*.pid"):
                try:
                    pid = int(pid_file.read_text())
                    os.kill(pid, signal.SIGKILL)
                except (OSError, ValueError):
                    continue
                killed.append(pid_file.stem)
                return
            time.sleep(0.005)

    outcomes: list[tuple[str, TaskOutcome]] = []
    killer = threading.Thread(target=kill_a_map_task)
    killer.start()
    try:
        with Collection.open(coll_path) as coll:
            run = sharded_discover(
                coll,
                DedupOptions(),
                LocalExecutor(2),
                tasks=2,
                on_task=lambda p, o, n: outcomes.append((p, o)),
            )
    finally:
        stop.set()
        killer.join()
    assert killed, "no map task was killed (they ended too fast)"
    rank = int(killed[0].split("-")[1])
    tries = {(p, o.rank): o.tries for p, o in outcomes}
    assert tries[("map", rank)] == 2 and sum(tries.values()) == 5  # only it ran twice
    assert run.maps == run.reducers == 2 and run.resumed == 0
    assert stored(coll_path) == reference[1]


def test_a_killed_job_is_resumed_by_the_same_command(
    corpus: tuple[Path, set[frozenset[str]], Path],
    reference: tuple[list[dict[str, Any]], dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The driver itself killed once a map task is done: the next run keeps that task's output,
    runs the rest, and stores what one process does; a job of other options is removed."""
    coll = _copy(corpus[2], tmp_path / "c")
    stale = coll / "tasks" / "dedup" / "job-0000000000000000"
    stale.mkdir(parents=True)
    cmd = [sys.executable, "-m", "trawl.cli.main", "dedup", str(coll), "--workers", "1", "--tasks", "3"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(coll.glob("tasks/dedup/job-*/done/map-*.json")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the job ended before it was killed"
    assert not stale.exists()
    capsys.readouterr()
    assert main(["dedup", str(coll), "--workers", "2", "--tasks", "3"]) == 0
    err = capsys.readouterr().err
    assert "3 map and 3 reduce tasks" in err and "done before" in err
    assert stored(coll) == reference[1]


@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'trawl[scale]')")
def test_ray_executor_finds_the_same_clusters(
    corpus: tuple[Path, set[frozenset[str]], Path],
    reference: tuple[list[dict[str, Any]], dict[str, Any]],
    tmp_path: Path,
) -> None:
    coll_path = _copy(corpus[2], tmp_path / "c")
    with Collection.open(coll_path) as coll:
        run = sharded_discover(coll, DedupOptions(), RayExecutor(2), tasks=2)
    assert run.executor == "ray" and run.maps == 2
    assert stored(coll_path) == reference[1]


def test_what_a_sharded_discovery_refuses(
    corpus: tuple[Path, set[frozenset[str]], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coll = _copy(corpus[2], tmp_path / "c")
    assert main(["dedup", str(coll), "--workers", "2", "--method", "simhash"]) == 2
    assert "minhash method only" in capsys.readouterr().err
    assert main(["dedup", str(coll), "--tasks", "2"]) == 2
    assert main(["dedup", "near", str(coll), "--text", "a b c", "--workers", "2"]) == 2
    assert main(["dedup", str(coll), "--executor", "local", "--ray-address", "auto"]) == 2
    assert not (coll / "index").exists()


def test_a_plain_table_collection_and_no_store(tmp_path: Path) -> None:
    """A collection made before tablets (one RocksDB table) is read the same way, read-only; with
    ``store=False`` nothing is written to it."""
    groups = make_pages(tmp_path / "docs", singles=20)
    with Collection.create(tmp_path / "c", overrides=["table.tablets=false"]) as coll:
        ingest([tmp_path / "docs"], coll, incremental=False)
    assert (tmp_path / "c" / "table" / "CURRENT").is_file()
    with Collection.open(tmp_path / "c") as coll:
        one = discover_collection(coll, DedupOptions(), store=False)
        run = sharded_discover(coll, DedupOptions(), LocalExecutor(2), tasks=3, store=False)
    assert run.result.pairs == one.pairs and run.result.report == one.report
    assert _names({frozenset(c["members"]) for c in one.report["clusters"]}) == groups
    assert not (tmp_path / "c" / "index" / "dedup").exists()
