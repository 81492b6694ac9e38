"""Executors: run a sharded job's tasks (ranks ``0 … world-1``) on local processes or on Ray.

A task is a function ``MODULE:run_task(spec, rank) -> dict`` (its result, JSON) that is
*idempotent*: it writes a completion marker when done and, run again, returns the marker's result
without redoing anything; a task killed part-way leaves nothing that counts and is simply run
again. So an executor only has to run each rank until it succeeds, a bounded number of times:

* :class:`LocalExecutor` (the default): ``workers`` processes at once, each a fresh interpreter
  (``python -m trawl.jobs.executors MODULE SPEC RANK``, no ``multiprocessing`` spawn, so no
  ``__main__`` guard is needed in a caller's script); a process that exits with an error or is
  killed (``SIGKILL``, the OOM killer) is started again, at most ``retries`` more times; its
  output goes to ``logs/<rank>.log`` in the job's folder.
* :class:`RayExecutor`: the same function as Ray tasks (``ray.remote``, ``max_retries`` for a
  worker that dies, ``retry_exceptions`` for one that raises), on a local Ray started for the job
  (``num_cpus=workers``) or on the cluster at ``address`` (``ray://…`` or ``auto``).

Both report each finished rank to ``on_done`` as it finishes (progress), and return one
:class:`TaskOutcome` per rank; a rank that failed every try is ``ok=False`` with the error, and
the caller decides (a sharded ingest merges what finished and says what did not).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trawl.errors import ConfigError, MissingDependency
from trawl.subproc import die_with_parent

__all__ = [
    "EXECUTORS",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "TaskOutcome",
    "begin_task",
    "make_executor",
    "run_unfinished",
    "write_marker",
]

EXECUTORS = ("local", "ray")
#: the last bytes of a failed local task's log kept in its outcome
ERROR_TAIL = 2000


@dataclass(slots=True)
class TaskOutcome:
    """How one rank ended: its result (the task's dict) or the last error, and how many tries."""

    rank: int
    ok: bool
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    tries: int = 0


OnDone = Callable[[TaskOutcome], None]


def _function(module: str) -> Callable[[str, int], dict[str, Any]]:
    fn = importlib.import_module(module).run_task
    return fn  # type: ignore[no-any-return]


class Executor(ABC):
    """Runs ranks of a task function until each succeeds or has failed ``1 + retries`` times."""

    name: str = ""

    def __init__(self, workers: int, retries: int = 2) -> None:
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.retries = retries

    @abstractmethod
    def run(
        self, module: str, spec: str, ranks: Sequence[int], logs: Path, on_done: OnDone | None = None
    ) -> list[TaskOutcome]:
        """Run ``module.run_task(spec, rank)`` for each rank; ``logs``: a folder for their output."""

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """Keep what the executor starts up across several :meth:`run` calls (the phases of one
        job: a local Ray is then started once, not once per phase)."""
        yield


class LocalExecutor(Executor):
    """Tasks as local processes, ``workers`` at a time."""

    name = "local"

    def run(
        self, module: str, spec: str, ranks: Sequence[int], logs: Path, on_done: OnDone | None = None
    ) -> list[TaskOutcome]:
        logs.mkdir(parents=True, exist_ok=True)
        waiting = list(ranks)
        tries: dict[int, int] = dict.fromkeys(ranks, 0)
        running: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
        outcomes: dict[int, TaskOutcome] = {}
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        env[_PARENT] = str(os.getpid())
        try:
            while waiting or running:
                while waiting and len(running) < self.workers:
                    rank = waiting.pop(0)
                    tries[rank] += 1
                    log = logs / f"{rank:05d}.log"
                    with log.open("ab") as out:
                        out.write(f"--- try {tries[rank]}\n".encode())
                        out.flush()
                        cmd = [sys.executable, "-m", "trawl.jobs.executors", module, spec, str(rank)]
                        proc = subprocess.Popen(
                            cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env
                        )
                    running[rank] = (proc, log)
                time.sleep(0.05)
                for rank, (proc, log) in list(running.items()):
                    code = proc.poll()
                    if code is None:
                        continue
                    del running[rank]
                    result = _result_line(log) if code == 0 else None
                    if result is not None:
                        outcomes[rank] = TaskOutcome(rank, True, result, tries=tries[rank])
                    elif tries[rank] <= self.retries:
                        waiting.append(rank)  # killed or failed: its next try starts clean
                        continue
                    else:
                        why = f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
                        outcomes[rank] = TaskOutcome(
                            rank, False, error=f"{why}: {_tail(log)}", tries=tries[rank]
                        )
                    if on_done is not None:
                        on_done(outcomes[rank])
        finally:
            for proc, _ in running.values():  # interrupted: no task outlives its job
                proc.kill()
                proc.wait()
        return [outcomes[r] for r in ranks]


_RESULT = "trawl-task-result: "
_PARENT = "TRAWL_TASK_PARENT"


def _result_line(log: Path) -> dict[str, Any] | None:
    """The result a task printed last (one line, JSON), if it printed one."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, log.stat().st_size - 1_000_000))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith(_RESULT):
            try:
                data = json.loads(line[len(_RESULT) :])
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
        if line.startswith("--- try "):
            return None
    return None


def _tail(log: Path) -> str:
    try:
        with log.open("rb") as f:
            f.seek(max(0, log.stat().st_size - ERROR_TAIL))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


class RayExecutor(Executor):
    """Tasks as Ray tasks, on a local Ray started for the job or on the cluster at ``address``."""

    name = "ray"

    def __init__(self, workers: int, retries: int = 2, address: str | None = None) -> None:
        super().__init__(workers, retries)
        self.address = address

    @staticmethod
    def ray() -> Any:
        """The ``ray`` module (the scale extra), or :class:`MissingDependency` saying so."""
        try:
            import ray  # noqa: PLC0415 - the scale extra, only for this executor
        except ImportError as exc:
            raise MissingDependency("ray", "scale", "--executor ray") from exc
        return ray

    def _start(self, ray: Any) -> bool:
        """Start (or connect to) Ray unless it is up already; whether it was started here."""
        if ray.is_initialized():
            return False
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if self.address:
            ray.init(address=self.address, **options)
        else:  # a small local Ray: one CPU per worker, a small object store (tasks pass paths)
            ray.init(num_cpus=self.workers, object_store_memory=80 * 1024 * 1024, **options)
        return True

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        ray = self.ray()
        started = self._start(ray)
        try:
            yield
        finally:
            if started:
                ray.shutdown()

    def run(
        self, module: str, spec: str, ranks: Sequence[int], logs: Path, on_done: OnDone | None = None
    ) -> list[TaskOutcome]:
        ray = self.ray()
        started = self._start(ray)
        try:
            remote = ray.remote(_ray_task).options(
                num_cpus=1, max_retries=self.retries, retry_exceptions=True
            )
            # at most `workers` tasks at once, on a cluster too (Ray would run one a CPU)
            waiting = list(ranks)
            pending: dict[Any, int] = {}
            outcomes: dict[int, TaskOutcome] = {}
            while waiting or pending:
                while waiting and len(pending) < self.workers:
                    rank = waiting.pop(0)
                    pending[remote.remote(module, spec, rank)] = rank
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    rank = pending.pop(ref)
                    try:
                        outcomes[rank] = TaskOutcome(rank, True, ray.get(ref), tries=0)
                    except Exception as exc:  # every try failed: said, the other ranks go on
                        outcomes[rank] = TaskOutcome(rank, False, error=f"{type(exc).__name__}: {exc}")
                    if on_done is not None:
                        on_done(outcomes[rank])
            return [outcomes[r] for r in ranks]
        finally:
            if started:
                ray.shutdown()


def _ray_task(module: str, spec: str, rank: int) -> dict[str, Any]:
    return _function(module)(spec, rank)


def write_marker(path: Path, data: Any) -> None:
    """A task's JSON file (its plan, its completion marker) written whole or not at all: a
    temporary file, synced, then renamed, so a task killed while writing leaves no marker."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def begin_task(work: Path, name: str) -> dict[str, Any] | None:
    """A task's first step: its completion marker ``work/done/<name>.json`` if an earlier try
    wrote one (the task is done: return it), else None after noting the process running it
    (``work/running/<name>.pid``)."""
    with contextlib.suppress(OSError, ValueError):
        done: dict[str, Any] = json.loads((work / "done" / f"{name}.json").read_text(encoding="utf-8"))
        return done
    (work / "running").mkdir(parents=True, exist_ok=True)
    (work / "running" / f"{name}.pid").write_text(f"{os.getpid()}\n", encoding="utf-8")
    return None


def run_unfinished(
    executor: Executor,
    module: str,
    spec: Path,
    names: Sequence[str],
    *,
    logs: Path,
    what: str,
    on_done: OnDone | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Run the ranks ``0 … len(names)-1`` of the job planned in ``spec`` that have no completion
    marker (``done/<names[rank]>.json`` beside ``spec``) yet. Returns every rank's result and how
    many were found done. Ranks that failed every try fail the job with a
    :class:`~trawl.errors.TrawlError` naming ``what`` (the finished ones are kept for a rerun)."""
    from trawl.errors import TrawlError  # noqa: PLC0415 - errors imports nothing of this

    work = spec.parent
    results: dict[int, dict[str, Any]] = {}
    for rank, name in enumerate(names):
        with contextlib.suppress(OSError, ValueError):
            results[rank] = json.loads((work / "done" / f"{name}.json").read_text(encoding="utf-8"))
    found = len(results)
    todo = [r for r in range(len(names)) if r not in results]
    if todo:
        outcomes = executor.run(module, str(spec), todo, logs, on_done)
        failed = [o for o in outcomes if not o.ok]
        if failed:
            first = failed[0]
            raise TrawlError(
                f"{len(failed)} {what} task(s) failed, e.g. task {first.rank} after "
                f"{first.tries or 'every'} tries: {first.error[-500:]}; run the same command again: the "
                f"finished tasks are kept in {work}"
            )
        results.update({o.rank: o.result for o in outcomes})
    return [results[r] for r in range(len(names))], found


def make_executor(name: str, workers: int, *, address: str | None = None, retries: int = 2) -> Executor:
    """The executor called ``name`` (``local``, ``ray``)."""
    if name == "local":
        if address:
            raise ConfigError("--ray-address is for --executor ray")
        return LocalExecutor(workers, retries)
    if name == "ray":
        return RayExecutor(workers, retries, address)
    raise ConfigError(f"no executor {name!r}: use one of {', '.join(EXECUTORS)}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m trawl.jobs.executors MODULE SPEC RANK``: one task, its result on the last line."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 3:
        print("usage: python -m trawl.jobs.executors MODULE SPEC RANK", file=sys.stderr)
        return 2
    module, spec, rank = args
    parent = os.environ.get(_PARENT, "")
    if parent.isdigit():  # a task never outlives the job that started it (and may start it again)
        die_with_parent(int(parent))
    result = _function(module)(spec, int(rank))
    sys.stdout.flush()
    print(_RESULT + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
