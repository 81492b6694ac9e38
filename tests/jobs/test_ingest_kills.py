"""Exactly once under SIGKILL: ``trawl ingest`` of a WARC file, a TREC file and a folder, killed at
random moments and run again until it ends, stores every input document exactly once and leaves
WARC files every reader reads to their end.

The judge is a clean run of the same ingest: the same documents (URL, capture id, payload digest),
each row with one capture, no torn WARC tail. Records a killed run wrote whose rows it did not
commit stay in the WARC files (at-least-once writing; the table names each document once): they
are counted, not failed.
"""

from __future__ import annotations

import base64
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.store.test_tails import warcio_reads_to_end
from trawl.document import Document, Link
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection
from trawl.store.tails import check_tail, codec_of
from trawl.store.warcfile import WarcFileWriter

PLAIN = ["extract.enabled=false", "langid.enabled=false"]
POLL = 0.002
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WORDS = ["river", "bank", "water", "stone", "bridge", "field", "meadow", "hill", "valley", "forest"]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _inputs(root: Path, pages: int, seed: int, *, large: bool = False) -> list[Path]:
    """A WARC file of ``pages`` pages, a TREC file of ``pages // 4`` documents (half of them with
    no date: stored at the time of writing) and a folder of ``pages // 10`` files; ``large``: every
    hundredth page is megabytes long."""
    rng = random.Random(seed)
    warc = root / "in-warc"
    with WarcFileWriter(warc, prefix="in") as w:
        for i in range(pages):
            text = _text(rng, 150)
            if large and i % 100 == 50:  # a record of megabytes: a kill can land inside its write
                text += " " + base64.b64encode(rng.randbytes(3 << 20)).decode()
            body = f"<html><title>Page {i}</title><p>{text}</p><a href='/p/{i + 1}'>next</a></html>"
            w.write(
                Document(
                    url=f"http://site{i % 5}.example/p/{i}",
                    fetched_at=T0 + timedelta(seconds=i),
                    status=200,
                    http_headers=[("Content-Type", "text/html; charset=utf-8")],
                    raw=body.encode(),
                    links=[Link(f"http://site{i % 5}.example/p/{i + 1}", "next")],
                )
            )
    trec = root / "docs.trec"
    parts = []
    for i in range(pages // 4):
        date = f"<DATE>1988021{i % 10}</DATE>\n" if i % 2 else ""
        parts.append(
            f"<DOC>\n<DOCNO> KILL-{i:05d} </DOCNO>\n{date}<TEXT>\n{_text(rng, 80)}\n</TEXT>\n</DOC>\n"
        )
    trec.write_text("".join(parts), encoding="utf-8")
    folder = root / "files"
    folder.mkdir()
    for i in range(pages // 10):
        name = f"note-{i:03d}.txt" if i % 2 else f"page-{i:03d}.html"
        text = _text(rng, 120)
        (folder / name).write_text(text if i % 2 else f"<html><title>F{i}</title><p>{text}</p></html>")
    return [next(warc.iterdir()), trec, folder]


# The zygote: an interpreter that has imported trawl (and the pipeline's steps) but opened no
# database, forking one ``trawl ingest`` per run, so a run starts in milliseconds, not a second of
# imports. Per line of arguments (JSON) on stdin: it forks, prints the child's pid, waits for it and
# prints its wait status. Its stderr goes to a file, for the last run's error.
ZYGOTE = """
import json, os, sys
from trawl.cli.main import main
from trawl.config import load_config
from trawl.jobs.steps import build_steps

for step in build_steps(load_config()):  # the imports a pipeline's check does
    step.check()
for line in sys.stdin:
    argv, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            code = main(argv)
        finally:
            os._exit(code)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(status, flush=True)
"""


class Runner:
    """Runs ``trawl ingest`` in children of a zygote: :meth:`start`, :meth:`poll`, :meth:`kill`."""

    def __init__(self, err: Path) -> None:
        self.err = err
        self.zygote = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.pid = 0
        self.status: int | None = None

    def start(self, argv: list[str]) -> None:
        assert self.zygote.stdin is not None and self.zygote.stdout is not None
        self.zygote.stdin.write(json.dumps([argv, str(self.err)]) + "\n")
        self.pid, self.status = int(self.zygote.stdout.readline()), None

    def poll(self, timeout: float = 0.0) -> int | None:
        """The run's wait status once it has ended, else None."""
        assert self.zygote.stdout is not None
        if self.status is None and select.select([self.zygote.stdout], [], [], timeout)[0]:
            self.status = int(self.zygote.stdout.readline())
        return self.status

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        while self.poll(1.0) is None:
            pass

    def close(self) -> None:
        assert self.zygote.stdin is not None
        self.zygote.stdin.close()
        self.zygote.wait(timeout=30)


def _argv(inputs: list[Path], out: Path, workers: int) -> list[str]:
    argv = ["ingest", *map(str, inputs), "-o", str(out), "--no-progress"]
    for option in [*PLAIN, f"ingest.workers={workers}"]:
        argv += ["--set", option]
    return argv


def _warc_bytes(out: Path) -> int:
    try:
        return sum(p.stat().st_size for p in (out / "warc").iterdir())
    except OSError:
        return 0


def _kill_at_random(run: Runner, out: Path, rng: random.Random) -> str:
    """SIGKILL the run at a moment ``rng`` chooses; the moment's kind, or ``"exited"`` when the
    ingest ended first."""
    mode = rng.choice(["start", "storing", "storing", "storing"])
    if mode == "start":  # opening the collection, the tail repair, the first documents
        deadline = time.monotonic() + rng.uniform(0.0, 0.3)
        while time.monotonic() < deadline and run.poll(POLL) is None:
            pass
    else:  # while records are written and their rows committed
        target = _warc_bytes(out) + rng.randint(1, 4_000)
        while run.poll(POLL) is None and _warc_bytes(out) < target:
            pass
        time.sleep(rng.uniform(0.0, 0.004))
    if run.poll() is not None:
        return "exited"
    run.kill()
    return mode


def _stored(coll: Collection) -> dict[str, tuple[Any, Any, int]]:
    """Every stored document: URL -> (capture id, payload digest, captures of its row)."""
    return {
        r.url: (
            r.capture.get("id"),
            r.capture.get("payload_digest"),
            len(coll.table.versions_of(r.row, "fetch", "capture")),
        )
        for r in coll.records()
    }


def killed_ingest(
    tmp_path: Path, kills: int, pages: int, seed: int, *, workers: int = 0, large: bool = False
) -> dict[str, Any]:
    """Ingest, SIGKILLed ``kills`` times at random moments and run again until it ends; the
    figures: kills by moment, runs, documents expected, lost, stored twice (or more), stored but
    not expected, stored differently, torn tails left, WARC files warcio cannot read to their end,
    torn tails the runs repaired, records written whose rows were never committed."""
    inputs = _inputs(tmp_path, pages, seed, large=large)
    with Collection.create(tmp_path / "ref", overrides=[*PLAIN, "ingest.workers=0"]) as ref:
        ingest(inputs, ref)
        expected = _stored(ref)
    out = tmp_path / "victim"
    rng = random.Random(seed)
    moments: Counter[str] = Counter()
    runs = 0
    runner = Runner(tmp_path / "stderr")
    try:
        while True:
            runner.start(_argv(inputs, out, workers))
            runs += 1
            moment = "last" if sum(moments.values()) >= kills else _kill_at_random(runner, out, rng)
            if moment in ("last", "exited"):
                while (status := runner.poll(1.0)) is None:
                    pass
                assert os.waitstatus_to_exitcode(status) == 0, (tmp_path / "stderr").read_text()
                break
            moments[moment] += 1
    finally:
        runner.close()
    with Collection.open(out) as coll:
        got = _stored(coll)
        runs_stats = [s for _, s in coll.runs()]
        files = coll.warc_files()
    unreadable, torn = [], []
    for path in files:
        codec = codec_of(path.name)
        if codec is not None and check_tail(path, codec).torn:
            torn.append(path.name)
        try:
            warcio_reads_to_end(path)
        except Exception as exc:  # any failure to read is the figure
            unreadable.append(f"{path.name}: {type(exc).__name__}: {exc}")
    responses = sum(1 for p in files for _ in _record_ids(p))
    return {
        "kills": sum(moments.values()),
        "moments": dict(moments),
        "runs": runs,
        "documents": len(expected),
        "lost": sorted(set(expected) - set(got)),
        "twice": sorted(url for url, (_, _, n) in got.items() if n > 1),
        "unexpected": sorted(set(got) - set(expected)),
        "different": sorted(
            url
            for url in set(got) & set(expected)
            if got[url][1] != expected[url][1]
            or (
                expected[url][0] != got[url][0]
                and not url.startswith("trec:")  # no date: the id holds no time
            )
        ),
        "torn": torn,
        "unreadable": unreadable,
        "tails_repaired": sum(s["store/torn-tail-repaired"] for s in runs_stats),
        "orphan_records": responses - len(got),
    }


def _record_ids(path: Path) -> list[str]:
    """The ids of the document records (no warcinfo) of a WARC file."""
    from warcio.archiveiterator import ArchiveIterator

    with path.open("rb") as fh:
        return [
            str(r.rec_headers.get_header("WARC-Record-ID"))
            for r in ArchiveIterator(fh)
            if r.rec_type != "warcinfo"
        ]


def _check(figures: dict[str, Any], kills: int) -> None:
    assert figures["kills"] >= kills, figures  # killed that often before the ingest ended
    for what in ("lost", "twice", "unexpected", "different", "torn", "unreadable"):
        assert not figures[what], (what, figures[what][:10], figures)
    assert figures["orphan_records"] >= 0


def test_five_kills_and_reruns_store_every_document_once(tmp_path: Path) -> None:
    figures = killed_ingest(tmp_path, kills=5, pages=300, seed=35)
    print(figures)
    _check(figures, kills=5)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_fifty_kills_and_reruns_store_every_document_once(tmp_path: Path, seed: int) -> None:
    figures = killed_ingest(tmp_path, kills=50, pages=1000, seed=seed, workers=-1, large=True)
    print(figures)
    _check(figures, kills=50)
