"""SIGKILL at random points: acknowledged mutations survive, no row is half-written, no repair needed.

The writer is a child forked from a zygote process (no interpreter start-up per trial, so 50+
trials stay fast); after each mutation returns it appends the row's number to an acknowledgement
file. The test kills it at a random moment, reads every acknowledgement, reopens the table
(RocksDB replays its write-ahead log) and checks each row.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from trawl.store.table import Table
from trawl.store.tablets import TabletTable

TRIALS = 50


def _row_cells(trial: int, i: int) -> dict[str, dict[str, object]]:
    return {
        "fetch": {"capture": {"trial": trial, "i": i}, "status": 200 + i % 3},
        "text": {"title": f"t{trial}-{i}", "text": "words " * (i % 40)},
        "anchor": {f"http://from/{i}": f"anchor {i}"},
    }


# The zygote: a fresh interpreter that imports trawl but never opens a database, and forks one
# writer per trial. Forking the test process itself is not safe once it has used RocksDB: its
# background flush threads do not survive a fork, so a child's flush would wait forever.
ZYGOTE = """
import os, struct, sys
from pathlib import Path
from trawl.store.table import Table
from trawl.store.tablets import TabletTable

def cells(trial, i):
    return {
        "fetch": {"capture": {"trial": trial, "i": i}, "status": 200 + i % 3},
        "text": {"title": f"t{trial}-{i}", "text": "words " * (i % 40)},
        "anchor": {f"http://from/{i}": f"anchor {i}"},
    }

def writer(path, trial, ack, tablets):
    table = (
        TabletTable(path, versions={"fetch": 3}, split_bytes=20_000, check_every=4)
        if tablets else Table(path, versions={"fetch": 3})
    )
    fd = os.open(ack, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
    i = 0
    while True:
        table.put_row(f"com,host{i % 5})/t{trial:02d}/{i:06d}", cells(trial, i), ts=1000 + i)
        if i >= 10:  # a second version of an earlier row: the policy's deletes in the same batch
            j = i - 10
            table.put_row(f"com,host{j % 5})/t{trial:02d}/{j:06d}", {"fetch": {"status": 999}}, ts=5000 + j)
        os.write(fd, struct.pack(">I", i))  # the acknowledgement: in the kernel once write returns
        i += 1

for line in sys.stdin:
    path, trial, ack, tablets = line.split()
    pid = os.fork()
    if pid == 0:
        try:
            writer(Path(path), int(trial), ack, tablets == "1")
        finally:
            os._exit(1)
    print(pid, flush=True)
    sys.stdin.readline()  # the parent has sent SIGKILL
    _, status = os.waitpid(pid, 0)
    print(status, flush=True)
"""


def _run_trials(path: Path, trials: int, *, tablets: bool, seed: int, window: tuple[float, float]) -> int:
    rng = random.Random(seed)
    checked = 0
    zygote = subprocess.Popen(
        [sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert zygote.stdin is not None and zygote.stdout is not None
    try:
        for trial in range(trials):
            ack = path.parent / f"ack-{trial}"
            zygote.stdin.write(f"{path} {trial} {ack} {int(tablets)}\n")
            pid = int(zygote.stdout.readline())
            # wait for the first acknowledgement (a loaded machine may take a while to start the
            # writer), then kill at a random moment after it
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and (not ack.exists() or ack.stat().st_size < 4):
                time.sleep(0.002)
            time.sleep(rng.uniform(*window))
            os.kill(pid, signal.SIGKILL)
            zygote.stdin.write("killed\n")
            status = int(zygote.stdout.readline())
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
            data = ack.read_bytes() if ack.exists() else b""
            acked = len(data) // 4  # rows 0..acked-1 were acknowledged (a torn last int is not an ack)
            checked += _check(path, trial, acked, tablets)
    finally:
        zygote.stdin.close()
        zygote.wait(timeout=30)
    return checked


def _check(path: Path, trial: int, acked: int, tablets: bool) -> int:
    table = TabletTable(path, versions={"fetch": 3}) if tablets else Table(path, versions={"fetch": 3})
    try:
        present = {row: cells for row, cells in table.scan() if f"/t{trial:02d}/" in row}
        for i in range(acked):
            row = f"com,host{i % 5})/t{trial:02d}/{i:06d}"
            assert row in present, f"trial {trial}: acknowledged row {i} of {acked} is missing"
        for row, cells in present.items():  # acknowledged or not, no row is half-written
            i = int(row.rsplit("/", 1)[1])
            want = _row_cells(trial, i)
            assert cells["text"] == want["text"] and cells["anchor"] == want["anchor"], row
            assert cells["fetch"]["capture"] == want["fetch"]["capture"], row
            if i + 10 < acked:  # its second version was acknowledged too
                assert cells["fetch"]["status"] == 999, row
    finally:
        table.close()
    return acked


def test_sigkill_at_random_points_loses_no_acknowledged_write(tmp_path: Path) -> None:
    checked = _run_trials(tmp_path / "t", TRIALS, tablets=False, seed=8, window=(0.0, 0.1))
    assert checked >= TRIALS  # every kill landed after real work


def test_sigkill_during_tablet_splits_leaves_a_consistent_map(tmp_path: Path) -> None:
    # each split takes ~0.1 s (two new RocksDB directories): a wider window, so kills land in them
    checked = _run_trials(tmp_path / "tt", 10, tablets=True, seed=9, window=(0.0, 0.5))
    assert checked >= 10
    with TabletTable(tmp_path / "tt") as t:
        assert len(t.tablets) > 1  # splits happened, some of them cut short by kills
        rows = [r for r, _ in t.scan()]
        assert rows == sorted(set(rows))
