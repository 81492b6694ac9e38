"""``trawl ingest --workers N``: sharded tasks on local processes and on Ray, merged exactly once."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.s3 import S3Server
from trawl.cli.main import main
from trawl.jobs.executors import Executor, LocalExecutor, RayExecutor
from trawl.jobs.ingest import ingest
from trawl.jobs.sharded import ShardedResult, deal, input_files, sharded_ingest
from trawl.store.collection import Collection

HAVE_RAY = importlib.util.find_spec("ray") is not None


def make_inputs(root: Path, pages: int = 60, folders: int = 3) -> Path:
    """Folders of HTML pages (each a few paragraphs, distinct)."""
    src = root / "in"
    for f in range(folders):
        d = src / f"f{f}"
        d.mkdir(parents=True)
        for i in range(pages):
            words = " ".join(f"w{f}x{i}y{k}" for k in range(60))
            (d / f"p{i:03d}.html").write_text(
                f"<html><head><title>Page {f}/{i}</title></head><body><p>{words}</p>"
                f"<p>Second paragraph of page {f} {i}, with more words.</p></body></html>"
            )
    return src


def add_warcs(src: Path, test_data: Path) -> None:
    """A WARC and a TREC file (no capture in both: the same URL and date with two payloads
    would leave which one is newest to the order they are read in)."""
    shutil.copy(test_data / "warc" / "good.warc.gz", src / "good.warc.gz")
    shutil.copy(test_data / "trec" / "gov2-sample.trec.gz", src / "gov2.trec.gz")


def contents(path: Path) -> Counter[tuple[str, str]]:
    """(URL, text) of every stored record, counted: equal for two collections holding the same."""
    with Collection.open(path) as coll:
        return Counter((r.url, r.text) for r in coll.records())


def warc_responses(path: Path) -> Counter[str]:
    """Target URIs of the capture records (response, resource, or revisit: an exact duplicate of
    a payload stored before, which a task sees only within its own files) in every WARC file."""
    from warcio.archiveiterator import ArchiveIterator

    seen: Counter[str] = Counter()
    for file in sorted((path / "warc").iterdir()):
        with file.open("rb") as f:
            for record in ArchiveIterator(f):
                if record.rec_type in ("response", "resource", "revisit"):
                    seen[record.rec_headers.get_header("WARC-Target-URI")] += 1
    return seen


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory, test_data: Path) -> tuple[Path, Path]:
    """The inputs and their plain (one-process) ingest, to compare with."""
    root = tmp_path_factory.mktemp("sharded")
    src = make_inputs(root)
    add_warcs(src, test_data)
    with Collection.create(root / "plain") as coll:
        ingest([src], coll, incremental=False)
    return src, root / "plain"


def test_deal_balances_by_size(tmp_path: Path) -> None:
    files = []
    for i, size in enumerate([100, 90, 10, 10, 10, 5]):
        f = tmp_path / f"f{i}"
        f.write_bytes(b"x" * size)
        files.append(f)
    names = [str(f) for f in files]
    shares = deal(names, 2)
    weights = [sum(Path(p).stat().st_size for p in s) for s in shares]
    assert sorted(weights) == [110, 115] and deal(names, 2) == shares
    assert all(s == sorted(s) for s in shares)  # each share in the order given
    assert sum(len(s) for s in deal(names, 4)) == 6


def test_local_workers_store_what_one_process_does_and_rerun_adds_nothing(
    plain: tuple[Path, Path], tmp_path: Path
) -> None:
    src, reference = plain
    out = tmp_path / "c"
    with Collection.create(out) as coll:
        result = sharded_ingest([src], coll, LocalExecutor(2), tasks=4)
    assert result.tasks == 4 and not result.failed
    assert result.stats.get("tasks/merged") == 4
    assert contents(out) == contents(reference)
    assert warc_responses(out) == warc_responses(reference)
    assert not list((out / "tasks" / "ingest").glob("job-*")), "a finished job leaves no work behind"
    # the same command again: every file was merged, nothing is read or stored twice
    with Collection.create(out) as coll:
        again = sharded_ingest([src], coll, LocalExecutor(2), tasks=4)
    assert again.tasks == 0 and again.skipped_files == result.stats.get("tasks/files")
    assert contents(out) == contents(reference)
    # one more file: only it is ingested
    more = tmp_path / "more"
    more.mkdir()
    (more / "new.html").write_text("<html><title>New</title><body><p>A new page here.</p></body></html>")
    with Collection.create(out) as coll:
        third = sharded_ingest([src, more], coll, LocalExecutor(2))
    assert third.tasks == 1 and third.stats.get("store/records") == 1
    assert sum(contents(out).values()) == sum(contents(reference).values()) + 1


def test_the_cli_flags_and_json(
    plain: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, reference = plain
    out = tmp_path / "c"
    assert main(["ingest", str(src), "-o", str(out), "--workers", "2", "--tasks", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tasks"] == 3 and data["executor"] == "local" and data["failed_tasks"] == []
    assert data["counters"]["tasks/merged"] == 3
    assert contents(out) == contents(reference)
    for bad in (["--watch"], ["--include", "*.html"], ["--tasks", "2"]):
        extra = [] if bad == ["--tasks", "2"] else ["--workers", "2"]
        assert main(["ingest", str(src), "-o", str(tmp_path / "x"), *extra, *bad]) == 2, bad


def _kill_a_task_once(work_root: Path, stop: threading.Event, killed: list[int]) -> None:
    """SIGKILL the first task process seen running (its pid file), once, mid-task."""
    while not stop.is_set():
        for pid_file in work_root.glob("job-*/running/*.pid"):
            try:
                pid = int(pid_file.read_text())
            except (OSError, ValueError):
                continue
            time.sleep(0.3)  # well inside the task: it ingests for seconds
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed.append(pid)
            return
        time.sleep(0.02)


def ingest_killing_a_task(src: Path, out: Path, executor: Executor) -> tuple[ShardedResult, list[int]]:
    """A sharded ingest of ``src`` into ``out`` in 2 tasks, one task SIGKILLed mid-way; the result
    and the pids killed."""
    stop, killed = threading.Event(), []
    with Collection.create(out) as coll:
        killer = threading.Thread(target=_kill_a_task_once, args=(out / "tasks" / "ingest", stop, killed))
        killer.start()
        try:
            result = sharded_ingest([src], coll, executor, tasks=2)
        finally:
            stop.set()
            killer.join()
    return result, killed


def test_a_task_killed_is_redone_and_every_document_is_stored_once(tmp_path: Path, test_data: Path) -> None:
    src = make_inputs(tmp_path, pages=150, folders=2)
    add_warcs(src, test_data)
    with Collection.create(tmp_path / "plain") as coll:
        ingest([src], coll, incremental=False)
    out = tmp_path / "c"
    result, killed = ingest_killing_a_task(src, out, LocalExecutor(2))
    assert killed, "no task was killed (they ended too fast)"
    assert not result.failed
    assert contents(out) == contents(tmp_path / "plain")
    responses = warc_responses(out)
    assert responses == warc_responses(tmp_path / "plain")  # each capture once, as one process stores it


def test_a_task_failing_every_try_is_said_and_the_rest_merged(tmp_path: Path) -> None:
    src = make_inputs(tmp_path, pages=5, folders=2)
    out = tmp_path / "c"
    # a file that goes away after the plan was made fails its task on every try (it is read then)
    doomed = src / "f1" / "p000.html"
    with Collection.create(out) as coll:
        executor = LocalExecutor(1, retries=1)
        original = executor.run

        def run_after_removing(*args: object, **kwargs: object) -> object:
            doomed.unlink()
            return original(*args, **kwargs)  # type: ignore[arg-type]

        executor.run = run_after_removing  # type: ignore[method-assign]
        result = sharded_ingest([src], coll, executor, tasks=2)
    assert len(result.failed) == 1 and result.failed[0].tries == 2
    assert "does not exist" in result.failed[0].error or "p000.html" in result.failed[0].error
    stored = sum(contents(out).values())
    assert 0 < stored < 10
    # the file is back: the same command does the failed task's files, and only those
    doomed.write_text("<html><title>Back</title><body><p>It is back again.</p></body></html>")
    with Collection.create(out) as coll:
        again = sharded_ingest([src], coll, LocalExecutor(2))
    assert not again.failed and sum(contents(out).values()) == 10


@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'trawl[scale]')")
def test_ray_executor_gives_the_same_collection_and_redoes_a_killed_task(
    plain: tuple[Path, Path], tmp_path: Path
) -> None:
    src, reference = plain
    out = tmp_path / "c"
    result, killed = ingest_killing_a_task(src, out, RayExecutor(2))
    assert killed, "no Ray task was killed (they ended too fast)"
    assert result.executor == "ray" and not result.failed
    assert contents(out) == contents(reference)
    responses = warc_responses(out)
    assert responses == warc_responses(reference)  # each capture once, as one process stores it


def test_a_killed_job_is_finished_by_the_next_run(
    plain: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The driver itself killed mid-job: the next run merges what finished, redoes the rest."""
    src, reference = plain
    out = tmp_path / "c"
    cmd = [sys.executable, "-m", "trawl.cli.main", "ingest", str(src), "-o", str(out), "--workers", "1"]
    cmd += ["--tasks", "4", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(out.glob("tasks/ingest/job-*/done/*.merged.json")):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the job ended before it was killed"
    capsys.readouterr()
    assert main(["ingest", str(src), "-o", str(out), "--workers", "2", "--json"]) == 0
    counters = json.loads(capsys.readouterr().out)["counters"]
    assert counters["tasks/skipped-files"] >= 1  # what the killed job merged is not read again
    assert counters["tasks/skipped-files"] < counters["tasks/files"]
    assert contents(out) == contents(reference)
    responses = warc_responses(out)
    assert responses == warc_responses(reference)  # each capture once, as one process stores it


def test_one_capture_in_two_files_is_one_record(tmp_path: Path, test_data: Path) -> None:
    """The same captures (URL and date) in two input files: one record each in the table, as a
    plain ingest keeps; the second file's copy stays in its WARC file (a task sees its own files
    only), pointed at by the table, and the first copy's record is left unreferenced."""
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a.warc.gz", "b.warc.gz"):
        shutil.copy(test_data / "warc" / "good.warc.gz", src / name)
    with Collection.create(tmp_path / "plain") as coll:
        ingest([src], coll, incremental=False)
    with Collection.create(tmp_path / "c") as coll:
        result = sharded_ingest([src], coll, LocalExecutor(2), tasks=2)
        for record in coll.records():
            assert coll.read(record).raw is not None  # every pointer reads
    assert result.tasks == 2 and contents(tmp_path / "c") == contents(tmp_path / "plain")
    assert set(warc_responses(tmp_path / "c")) == set(warc_responses(tmp_path / "plain"))


def test_inputs_on_s3_as_sharded_tasks(s3: S3Server, tmp_path: Path, test_data: Path) -> None:
    """Input files named by an s3:// glob (a real S3 server on loopback), dealt to tasks whose
    processes read them from there: the collection equals the one-process ingest of the same URLs."""
    base = s3.prefix("sharded")
    src = make_inputs(tmp_path, pages=4, folders=2)
    add_warcs(src, test_data)
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        s3.upload(path, f"{base}/{path.relative_to(src).as_posix().replace('/', '-')}")
    with Collection.create(tmp_path / "plain") as coll:
        ingest([f"{base}/*"], coll, incremental=False)
    with Collection.create(tmp_path / "c") as coll:
        result = sharded_ingest([f"{base}/*"], coll, LocalExecutor(2), tasks=3)
    assert result.tasks == 3 and not result.failed and result.stats.get("tasks/files") == 10
    assert contents(tmp_path / "c") == contents(tmp_path / "plain")
    assert all(url.startswith(("s3://", "http://")) for url, _ in contents(tmp_path / "c"))
    with Collection.create(tmp_path / "c") as coll:  # run again: every URL merged already
        assert sharded_ingest([f"{base}/*"], coll, LocalExecutor(2)).skipped_files == 10


def test_inputs_are_named_by_absolute_paths_and_the_output_is_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A task on another machine runs in another folder: the plan names files absolutely. A
    collection is a folder on a disk, never a URL."""
    src = make_inputs(tmp_path, pages=2, folders=1)
    monkeypatch.chdir(tmp_path)
    files = input_files(["in"])
    assert files and all(Path(f).is_absolute() and Path(f).is_file() for f in files)
    assert main(["ingest", str(src), "-o", "s3://bucket/c", "--workers", "2"]) == 2
    assert "is a URL" in capsys.readouterr().err and not (tmp_path / "s3:").exists()
