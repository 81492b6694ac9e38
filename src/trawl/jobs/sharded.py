"""``trawl ingest --workers N``: an ingest as sharded, idempotent tasks, merged into the collection.

The input files are dealt to ``world`` tasks (largest first, each to the task with the fewest
bytes so far). Task ``rank`` ingests its files into a *part* of its own, a complete small
collection (``<collection>/tasks/ingest/<job>/parts/<rank>/``, the collection's configuration,
WARC files named ``<prefix>-<job>-t<rank>-…``, every stage on), then writes its completion marker
(``done/<rank>.json``: its files, counters, WARC files). Tasks run on an executor
(:mod:`trawl.jobs.executors`: local processes by default, or Ray); a task killed part-way is run
again from nothing (its part is removed first), so it is never half counted.

The job (the one writer of the collection, holding its lock from start to end) merges each
finished part as it finishes: its WARC files are moved into ``warc/`` (their names are unique),
its table is loaded into the collection's (:meth:`~trawl.store.table.RowStore.dump` /
:meth:`~trawl.store.table.RowStore.load`, idempotent), its counters added to the run's and its
drops appended; then each of its input files is marked merged (``merged/<file key>``, the key a
hash of the file's path, size and modification time) and the part removed. A step interrupted
anywhere is finished by the next run: a part whose marker exists is merged (again: the load is
idempotent, a WARC file already moved is not moved twice); a part without one is removed and its
files dealt again; a file already merged is skipped (``tasks/skipped-files``), so running the
same command twice stores nothing twice, and a command given one more file ingests that file.

Folders are walked into their files (hidden files and folders skipped, as the folder reader
does by default); a sharded ingest keeps no desktop state (no deletions or renames noticed: the
plain ``trawl ingest DIR`` does that).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trawl import fsio
from trawl.errors import InputError
from trawl.jobs.executors import Executor, TaskOutcome, begin_task, write_marker
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

__all__ = ["ShardedResult", "input_files", "run_task", "sharded_ingest"]

TASKS = Path("tasks") / "ingest"
#: tasks per worker by default: enough to even out files of unequal cost, few enough that
#: starting a task (an interpreter, a part) and merging its part stay a small share
TASKS_PER_WORKER = 2


@dataclass(slots=True)
class Spec:
    """What every task of one job needs, written once as ``job.json``."""

    job: str
    collection: str
    workdir: str
    shares: list[list[str]]
    overrides: list[str] = field(default_factory=list)
    prefix: str = "trawl"

    @classmethod
    def load(cls, path: str | Path) -> Spec:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


@dataclass(slots=True)
class ShardedResult:
    """What a sharded ingest did."""

    run: str
    stats: Stats
    stats_file: Path
    drops_file: Path
    seconds: float
    tasks: int
    failed: list[TaskOutcome]
    skipped_files: int
    executor: str


def input_files(inputs: Sequence[str | Path], exclude: Path | None = None) -> list[str]:
    """Every file the inputs name: files as given, folders walked (sorted; hidden entries and
    ``exclude``, the collection being written, skipped), URLs expanded (:func:`trawl.fsio.expand`:
    a glob or a prefix gives its files)."""
    files: list[str] = []
    skip = exclude.resolve() if exclude is not None else None
    for given in inputs:
        if fsio.is_remote(given):
            files += fsio.expand([given])
            continue
        path = Path(given).absolute()  # tasks on other machines (Ray) run in another folder
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                here = Path(root)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and (here / d).resolve() != skip)
                files += [
                    str(here / n) for n in sorted(names) if not n.startswith(".") and (here / n).is_file()
                ]
        elif path.is_file():
            files.append(str(path))
        elif path.exists():
            raise InputError(f"input {str(given)!r} is not a file or a folder")
        else:
            raise InputError(f"input {str(given)!r} does not exist")
    return files


def file_key(path: str, info: fsio.FileInfo) -> str:
    """A file's identity for "already merged": where it is, its size and modification time."""
    where = path if fsio.is_remote(path) else str(Path(path).resolve())
    ident = f"{where}\0{info.size}\0{info.modified.isoformat() if info.modified else ''}"
    if not fsio.is_remote(path):  # a local file's time to the nanosecond
        ident += f"\0{os.stat(path).st_mtime_ns}"
    return hashlib.sha1(ident.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def deal(files: Sequence[str], world: int, sizes: dict[str, int] | None = None) -> list[list[str]]:
    """``files`` dealt to ``world`` shares, largest first to the lightest share (deterministic);
    each share in the order the files were given."""
    size = sizes if sizes is not None else {f: fsio.size(f) for f in files}
    order = {f: n for n, f in enumerate(files)}
    shares: list[list[str]] = [[] for _ in range(world)]
    weight = [0] * world
    for path in sorted(files, key=lambda f: (-size[f], f)):
        i = min(range(world), key=lambda k: (weight[k], k))
        shares[i].append(path)
        weight[i] += size[path] + 1
    return [sorted(share, key=order.__getitem__) for share in shares]  # each read in the inputs' order


def run_task(spec_path: str, rank: int) -> dict[str, Any]:
    """Task ``rank`` of the job in ``spec_path``: its files into its part, then its marker.
    Idempotent: a marker already written is returned as it is."""
    from trawl.jobs.ingest import ingest  # noqa: PLC0415 - the whole pipeline, only in a task

    spec = Spec.load(spec_path)
    work = Path(spec.workdir)
    done = begin_task(work, f"{rank:05d}")
    if done is not None:
        return done
    part = work / "parts" / f"{rank:05d}"
    shutil.rmtree(part, ignore_errors=True)  # an earlier try's leftovers count for nothing
    overrides = [
        *spec.overrides,
        f"warc.prefix={spec.prefix}-{spec.job}-t{rank:05d}",
        "ingest.workers=0",  # the task is the process: its steps run in it
    ]
    t0 = time.perf_counter()
    config = Path(spec.collection) / "trawl.toml"
    with Collection.create(part, config_file=config, overrides=overrides) as coll:
        result = ingest(spec.shares[rank], coll, incremental=False)
        warc = sorted(p.name for p in coll.warc_files())
    if result.fault is not None:
        raise result.fault
    data = {
        "rank": rank,
        "files": spec.shares[rank],
        "run": result.run,
        "counters": dict(result.stats.counters),
        "timings": dict(result.stats.timings),
        "warc": warc,
        "seconds": round(time.perf_counter() - t0, 3),
        "pid": os.getpid(),
    }
    write_marker(work / "done" / f"{rank:05d}.json", data)
    return data


class _Merger:
    """Merges finished parts into the collection (the only writer), each exactly once."""

    def __init__(self, collection: Collection, stats: Stats, drops: Path) -> None:
        self.collection = collection
        self.stats = stats
        self.drops = drops
        self.root = collection.path / TASKS

    def merge(self, work: Path, done: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        self._merge(work, done)
        self.stats.add_time("tasks/merge", time.perf_counter() - t0)

    def _merge(self, work: Path, done: dict[str, Any]) -> None:
        rank = int(done["rank"])
        part = work / "parts" / f"{rank:05d}"
        keys = [str(k) for k in done.get("keys", [])]
        if part.is_dir():
            warc_dir = self.collection.path / "warc"
            for name in done.get("warc", []):
                src, dst = part / "warc" / name, warc_dir / name
                if src.exists():  # else moved by an earlier, interrupted merge
                    shutil.move(src, dst)  # a rename on one file system; a copy left half done is replaced
            with Collection.open(part) as source:
                counts = self.collection.table.load(source.table.dump())
                for kind, n in counts.items():
                    self.stats.inc(f"tasks/merged/{kind}", n)
            drops = part / "stats" / f"{done['run']}.drops.jsonl"
            if drops.is_file():
                with drops.open("rb") as src_f, self.drops.open("ab") as dst_f:
                    shutil.copyfileobj(src_f, dst_f)
                drops.unlink()
            self.collection.table.flush()
        for key in keys:
            (self.root / "merged").mkdir(parents=True, exist_ok=True)
            (self.root / "merged" / key).touch()
        for name, n in done.get("counters", {}).items():
            self.stats.inc(name, int(n))
        for stage, seconds in done.get("timings", {}).items():
            self.stats.add_time(stage, float(seconds))
        self.stats.inc("tasks/merged")
        shutil.rmtree(part, ignore_errors=True)
        (work / "done" / f"{rank:05d}.json").replace(work / "done" / f"{rank:05d}.merged.json")


def _finish_earlier(merger: _Merger, root: Path) -> int:
    """Merge what earlier, interrupted jobs finished; remove what they left half done."""
    merged = 0
    for work in (
        sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("job-")) if root.is_dir() else []
    ):
        for marker in sorted((work / "done").glob("*[0-9].json")) if (work / "done").is_dir() else []:
            with contextlib.suppress(OSError, ValueError):
                done = json.loads(marker.read_text(encoding="utf-8"))
                done["keys"] = json.loads((work / "keys.json").read_text(encoding="utf-8")).get(
                    str(done["rank"]), []
                )
                merger.merge(work, done)
                merged += 1
        shutil.rmtree(work, ignore_errors=True)
    return merged


def sharded_ingest(
    inputs: Sequence[str | Path],
    collection: Collection,
    executor: Executor,
    *,
    tasks: int | None = None,
    overrides: Sequence[str] = (),
    on_task: Callable[[TaskOutcome, int], None] | None = None,
) -> ShardedResult:
    """Ingest ``inputs`` into ``collection`` as ``tasks`` sharded tasks (default: two per
    worker, at most one per file) on ``executor``; see the module's docstring."""
    t0 = time.perf_counter()
    run, ctx = collection.new_run()
    stats = ctx.stats
    ctx.audit.close()
    drops = collection.path / "stats" / f"{run}.drops.jsonl"
    collection.table  # noqa: B018 - the writer's lock, held from here to the end
    root = collection.path / TASKS
    merger = _Merger(collection, stats, drops)
    stats.inc("tasks/resumed", _finish_earlier(merger, root))
    merged_dir = root / "merged"
    files = input_files(inputs, exclude=collection.path)
    infos = {f: fsio.info(f) for f in files}
    keys = {f: file_key(f, infos[f]) for f in files}
    pending = [f for f in files if not (merged_dir / keys[f]).exists()]
    skipped = len(files) - len(pending)
    stats.inc("tasks/files", len(files))
    stats.inc("tasks/skipped-files", skipped)
    failed: list[TaskOutcome] = []
    world = 0
    if pending:
        world = max(1, min(len(pending), tasks or TASKS_PER_WORKER * executor.workers))
        job = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
        work = root / f"job-{job}"
        shares = deal(pending, world, {f: infos[f].size for f in pending})
        spec = Spec(job, str(collection.path.resolve()), str(work.resolve()), shares, list(overrides))
        spec.prefix = collection.config.warc.prefix
        write_marker(work / "job.json", asdict(spec))
        write_marker(work / "keys.json", {str(r): [keys[f] for f in share] for r, share in enumerate(shares)})
        stats.inc("tasks/started", world)

        # parts are merged by a thread of their own as tasks finish, so the executor goes on
        # starting tasks meanwhile; the merges themselves run one at a time (one writer)
        finished_q: queue.Queue[TaskOutcome | None] = queue.Queue()
        merge_error: list[BaseException] = []

        def merging() -> None:
            while (outcome := finished_q.get()) is not None:
                if merge_error:
                    continue  # a merge failed: the rest stay for the next run
                try:
                    if outcome.ok:
                        done = dict(outcome.result)
                        done["keys"] = [keys[f] for f in shares[outcome.rank]]
                        merger.merge(work, done)
                    else:
                        failed.append(outcome)
                        stats.inc("tasks/failed")
                    if on_task is not None:
                        on_task(outcome, world)
                except BaseException as exc:  # raised by the job below, once the tasks end
                    merge_error.append(exc)

        thread = threading.Thread(target=merging, name="trawl-merge", daemon=True)
        thread.start()
        try:
            executor.run(
                "trawl.jobs.sharded", str(work / "job.json"), range(world), work / "logs", finished_q.put
            )
        finally:
            finished_q.put(None)
            thread.join()
        if merge_error:
            raise merge_error[0]
        if not failed:
            shutil.rmtree(work, ignore_errors=True)
    stats.finished = time.time()
    stats_file = collection.save_run(run, stats)
    return ShardedResult(
        run, stats, stats_file, drops, time.perf_counter() - t0, world, failed, skipped, executor.name
    )
