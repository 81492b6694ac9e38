"""Runs ``trawl serve`` starts for a user (a crawl, a dedup discovery), each a ``trawl`` command
in a process of its own.

A job is ``python -m trawl.web.jobs JOBFILE``: it reads its command line from ``JOBFILE``
(``<collection>/web/jobs/<id>.json``), runs it as ``trawl`` would (:func:`trawl.cli.main.main`),
its output going to ``<id>.log`` beside it, and writes its exit status and end time into the job
file when it ends, so a job outlives the server that started it and still says how it ended. A
job killed before it could say so reads as ``gone`` (its process no longer exists).

One job at a time per collection: a collection has one writer, and while a job started here runs,
the server does not open the collection itself (its pages say so), so the job's writer is never
refused because the server held the store at the moment it opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "Job", "JobBusy", "Jobs", "main"]

#: the ``trawl`` commands a job may run
KINDS = ("crawl", "dedup")
#: jobs listed (newest first); older job files stay on disk
LISTED = 20
#: bytes of a job's log shown
LOG_TAIL = 4000
_ID = re.compile(r"^[0-9]{8}T[0-9]{6}-[0-9]{3}-(crawl|dedup)$")


class JobBusy(Exception):
    """A job already runs on the collection."""


@dataclass(slots=True)
class Job:
    """One command started for a user, as its job file holds it."""

    id: str
    kind: str
    argv: list[str]
    started: float
    pid: int = 0
    ended: float | None = None
    returncode: int | None = None
    #: running, finished (exit status 0), failed (another), gone (killed before it could say)
    state: str = "running"
    log: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _write(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Jobs:
    """The jobs of one collection: started, listed, each with the tail of its log."""

    def __init__(self, collection: Path) -> None:
        self.collection = Path(collection)
        self.dir = self.collection / "web" / "jobs"
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()

    def _load(self, path: Path) -> Job | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            job = Job(**{k: data[k] for k in Job.__dataclass_fields__ if k in data})
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if not _ID.match(job.id) or job.kind not in KINDS:
            return None
        proc = self._procs.get(job.id)
        if proc is not None and proc.poll() is not None:  # reaped: no zombie left behind
            del self._procs[job.id]
            if job.returncode is None:  # it died before writing its end
                job.state, job.returncode, job.ended = "gone", proc.returncode, time.time()
        if job.returncode is None and job.state == "running" and proc is None and not _alive(job.pid):
            job.state = "gone"
        return job

    def listed(self) -> list[Job]:
        """The newest :data:`LISTED` jobs, newest first."""
        with self._lock:
            if not self.dir.is_dir():
                return []
            files = sorted(self.dir.glob("*.json"), reverse=True)[:LISTED]
            return [job for f in files if (job := self._load(f)) is not None]

    def running(self) -> Job | None:
        """The job running on the collection now, if any."""
        return next((j for j in self.listed() if j.state == "running"), None)

    def get(self, ident: str) -> Job | None:
        if not _ID.match(ident):
            return None
        with self._lock:
            return self._load(self.dir / f"{ident}.json")

    def log_tail(self, job: Job, size: int = LOG_TAIL) -> str:
        """The last ``size`` bytes of the job's output (progress lines and the summary)."""
        path = self.dir / f"{job.id}.log"
        try:
            with path.open("rb") as f:
                f.seek(max(0, path.stat().st_size - size))
                tail = f.read()
        except OSError:
            return ""
        text = tail.decode("utf-8", "replace").replace("\r", "\n")
        return "\n".join(line for line in text.split("\n") if line.strip())

    def start(self, kind: str, args: list[str], **extra: Any) -> Job:
        """Start ``trawl KIND ARGS…`` (``args`` are passed as they are: the caller builds them
        from checked values); :class:`JobBusy` when a job runs on the collection."""
        if kind not in KINDS:
            raise ValueError(f"no job kind {kind!r}: use one of {', '.join(KINDS)}")
        running = self.running()
        if running is not None:
            raise JobBusy(f"a {running.kind} started here runs on the collection (job {running.id})")
        with self._lock:
            self.dir.mkdir(parents=True, exist_ok=True)
            now = time.time()
            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
            ident = f"{stamp}-{int(now * 1000) % 1000:03d}-{kind}"
            while (self.dir / f"{ident}.json").exists():  # two in one millisecond
                now += 0.001
                ident = f"{stamp}-{int(now * 1000) % 1000:03d}-{kind}"
            job = Job(ident, kind, [kind, *args], now, log=f"{ident}.log", extra=dict(extra))
            path = self.dir / f"{ident}.json"
            _write(path, job.as_dict())
            with (self.dir / job.log).open("wb") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "trawl.web.jobs", str(path)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # the server's Ctrl-C does not stop a crawl it started
                    env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"},
                )
            job.pid = proc.pid  # the job writes its pid into its file itself, first thing
            self._procs[ident] = proc
            return job


def main(argv: list[str] | None = None) -> int:
    """Run the job whose file is ``argv[0]``: its ``trawl`` command, then record how it ended."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m trawl.web.jobs JOBFILE", file=sys.stderr)
        return 2
    path = Path(args[0])
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pid"] = os.getpid()
    _write(path, data)
    from trawl.cli.main import main as trawl  # noqa: PLC0415 - the whole CLI, only in the job

    code = 1
    try:
        print("$ trawl " + " ".join(data["argv"]), flush=True)
        code = trawl(list(data["argv"]))
    finally:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(path.read_text(encoding="utf-8"))
            data.update(ended=time.time(), returncode=code, state="finished" if code == 0 else "failed")
            _write(path, data)
    return code


if __name__ == "__main__":
    sys.exit(main())
