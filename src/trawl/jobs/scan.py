"""Sharded jobs over a stored collection: its rows cut into key ranges, one idempotent task each.

``trawl stats --workers N`` and ``trawl export --workers N`` (and the map phase of ``trawl dedup
--workers N``) read a collection in parallel the same way:

* :func:`key_ranges` cuts the table's row keys into ``world`` ranges ``[start, end)`` of about as
  many rows each, in row order; with ``hosts=True`` a cut is moved back to the start of its host
  (``com,example)``) when that costs less than half a range, so most hosts fall whole in one range
  (what per-host statistics need to come out as one process counts them);
* a task reads its range *read-only* (:func:`records`, :func:`captures`: every tablet, the plain
  table or a crawl's partitions; the job holds the writer's lock so nothing changes meanwhile),
  does its work, writes its output beside its place and renames it there, then its completion
  marker (:func:`~trawl.jobs.executors.write_marker`);
* :func:`run_scan` plans the job in ``<collection>/tasks/<kind>/job-<key>/`` — the key a hash of
  the kind, its options, the collection's state (:func:`~trawl.jobs.dedup.collection_state`) and
  the task count — and runs the ranks that have no marker on an executor (local processes or
  Ray). The same command after a failed task or a killed job finds the folder and runs only what
  is missing; a folder of another key is stale and removed. The caller reads the outputs, then
  removes the folder (:meth:`ScanJob.close`).

A task is ``FUNCTION(collection, share, options) -> dict``, named ``module:function`` in the plan;
its :class:`Share` holds its rank, its range and ``out``, its own empty folder (the leftovers of a
killed try removed).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import importlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trawl.jobs.executors import Executor, TaskOutcome, begin_task, run_unfinished, write_marker
from trawl.store.collection import Collection, StoredRecord
from trawl.store.table import RowStore

__all__ = [
    "ScanJob",
    "ScanSpec",
    "Share",
    "captures",
    "host_boundary",
    "key_ranges",
    "records",
    "run_scan",
    "run_task",
]

TASKS = Path("tasks")
MODULE = "trawl.jobs.scan"
#: tasks per worker by default: a slow range is then evened out by the others
TASKS_PER_WORKER = 2

OnTask = Callable[[str, TaskOutcome, int], None]
TaskFunction = Callable[[Collection, "Share", dict[str, Any]], dict[str, Any]]


@dataclass(slots=True, frozen=True)
class Share:
    """What one task has to do: its rank, its key range ``[start, end)``, its output folder."""

    rank: int
    start: str
    end: str | None
    out: Path


def host_boundary(row: str) -> str:
    """The least key of ``row``'s host: ``com,example)/a`` → ``com,example)``; a key that is not
    a SURT (``file:/x``) gives its scheme, ``file:``."""
    if ")" in row:
        return row.split(")", 1)[0] + ")"
    return row.split(":", 1)[0] + ":"


def key_ranges(table: RowStore, world: int, *, hosts: bool = False) -> list[list[str | None]]:
    """At most ``world`` row-key ranges ``[start, end)`` with about as many rows each, in row order
    (the first starts at "", the last ends at None: every row is in one range). ``hosts``: move
    each cut back to its host's first row when that is less than half a range away."""
    if world <= 1:
        return [["", None]]
    rows = list(table.rows())
    n = len(rows)
    cuts: set[str] = set()
    for k in range(1, world):
        i = k * n // world
        if i <= 0:
            continue
        cut = rows[i]
        if hosts:
            boundary = host_boundary(cut)
            j = bisect.bisect_left(rows, boundary)
            if j > 0 and (i - j) * 2 * world < n:
                cut = rows[j]
        cuts.add(cut)
    bounds: list[str | None] = ["", *sorted(cuts), None]
    return [[bounds[i], bounds[i + 1]] for i in range(len(bounds) - 1)]


def records(coll: Collection, start: str, end: str | None, prefix: str = "") -> Iterator[StoredRecord]:
    """The newest stored record of each row of ``[start, end)`` (as :meth:`Collection.records`)."""
    return coll.records(prefix, start=start, end=end)


def captures(coll: Collection, start: str, end: str | None) -> Iterator[StoredRecord]:
    """Every kept capture of each row of ``[start, end)`` (as :meth:`Collection.captures`)."""
    return coll.captures(start=start, end=end)


@dataclass(slots=True)
class ScanSpec:
    """One job's plan, written once as ``plan.json``."""

    kind: str
    function: str  # module:function
    workdir: str
    collection: str
    ranges: list[list[str | None]]
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> ScanSpec:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


@dataclass(slots=True)
class ScanJob:
    """A finished job: each rank's result and output folder, in rank order."""

    work: Path
    results: list[dict[str, Any]]
    resumed: int  # tasks an earlier, interrupted run of the same job had finished
    executor: str
    seconds: float

    def output(self, rank: int) -> Path:
        return self.work / "out" / f"{rank:05d}"

    def counters(self) -> dict[str, int]:
        """The tasks' ``counters`` added up."""
        out: dict[str, int] = {}
        for result in self.results:
            for name, n in result.get("counters", {}).items():
                out[name] = out.get(name, 0) + int(n)
        return out

    def close(self) -> None:
        """Remove the job's folder (and its kind's, when no other job is there)."""
        shutil.rmtree(self.work, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.work.parent.rmdir()


def _function(name: str) -> TaskFunction:
    module, _, attr = name.partition(":")
    fn: TaskFunction = getattr(importlib.import_module(module), attr)
    return fn


def run_task(spec_path: str, rank: int) -> dict[str, Any]:
    """Task ``rank`` of the job in ``spec_path``: its range through the job's function, its output
    renamed into ``out/<rank>``, then its marker. Idempotent: a marker already written is
    returned as it is."""
    spec = ScanSpec.load(spec_path)
    work = Path(spec.workdir)
    done = begin_task(work, f"{rank:05d}")
    if done is not None:
        return done
    out = work / "out" / f"{rank:05d}"
    tmp = work / "out" / f".{rank:05d}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)  # an earlier try's leftovers count for nothing
    shutil.rmtree(out, ignore_errors=True)
    tmp.mkdir(parents=True)
    start, end = spec.ranges[rank]
    t0 = time.perf_counter()
    with Collection.open(Path(spec.collection), read_only=True) as coll:
        data = _function(spec.function)(coll, Share(rank, str(start), end, tmp), spec.options)
    tmp.rename(out)
    data.update(rank=rank, seconds=round(time.perf_counter() - t0, 3), pid=os.getpid())
    write_marker(work / "done" / f"{rank:05d}.json", data)
    return data


def run_scan(
    coll: Collection,
    kind: str,
    function: str,
    options: dict[str, Any],
    executor: Executor,
    *,
    tasks: int | None = None,
    hosts: bool = False,
    on_task: OnTask | None = None,
) -> ScanJob:
    """Run ``function`` over ``coll`` cut into ``tasks`` key ranges (default: two per worker) on
    ``executor``; see the module's docstring. A task that failed every try fails the job with
    a :class:`~trawl.errors.TrawlError` (the finished ones are kept for the next run)."""
    from trawl.jobs.dedup import collection_state  # noqa: PLC0415 - the dedup job imports this module

    t0 = time.perf_counter()
    table = coll.table  # the writer's lock, held to the end: no row changes under the tasks
    table.flush()
    world = max(1, tasks or TASKS_PER_WORKER * executor.workers)
    ident: dict[str, Any] = {"kind": kind, "function": function, "options": options, "tasks": world}
    ident["state"] = collection_state(coll)
    key = hashlib.sha1(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]
    root = coll.path / TASKS / kind
    work = root / f"job-{key}"
    for other in root.glob("job-*") if root.is_dir() else []:
        if other != work:  # other options, or the collection changed since: nothing there serves
            shutil.rmtree(other, ignore_errors=True)
    plan = work / "plan.json"
    if not plan.is_file():
        spec = ScanSpec(
            kind,
            function,
            str(work.resolve()),
            str(coll.path.resolve()),
            key_ranges(table, world, hosts=hosts),
            options,
        )
        write_marker(plan, asdict(spec))
    spec = ScanSpec.load(plan)
    count = len(spec.ranges)

    def done(outcome: TaskOutcome) -> None:
        if on_task is not None:
            on_task(kind, outcome, count)

    names = [f"{rank:05d}" for rank in range(count)]
    with executor.session():
        results, resumed = run_unfinished(
            executor, MODULE, plan, names, logs=work / "logs", what=kind, on_done=done
        )
    return ScanJob(work, results, resumed, executor.name, time.perf_counter() - t0)
