"""The conversion steps of an ingest in worker processes, so a run uses more than one core.

:class:`StepWorkers` is a :class:`~trawl.pipeline.base.Step` that stands for the default steps
(:func:`~trawl.jobs.steps.build_steps`): documents go to worker interpreters in batches, each runs
the steps, and the documents come back in the order they went, with the workers' counters, stage
timings and audit entries merged into the run's own. The writer stays in the parent, the one
process that writes the collection, so reading and storing overlap the conversion of the pages
after them.

``workers`` is how many processes; ``0`` runs the steps in this process, and ``-1`` (the
``ingest.workers`` default) decides by itself: the steps run here until they have taken a few
seconds of CPU (a small ingest, a test, the demo never pays for starting interpreters), then
``cpu_count - 1`` workers take over.

Nothing is lost when a worker dies on a document (a crash in a parser, the kernel's OOM killer):
its batches are sent again one document at a time to a fresh worker, and a document that kills
that one too is dropped with the reason ``workers/died``, counted and recorded
(``TRAWL_FAULT_WORKER_EXIT_ON=<part of a URL>`` makes a worker exit on such a document, for the
tests).

The workers are fresh interpreters over inherited pipes (``python -m trawl.jobs.workers``), as
the crawl's store workers are: no ``multiprocessing`` spawn, so a script that calls
:func:`~trawl.jobs.ingest.ingest` needs no ``__main__`` guard; they die with their parent
(the plumbing is :mod:`trawl.jobs.procs`, shared with the crawl's store workers).
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any, ClassVar

from trawl.config import Config
from trawl.document import Document
from trawl.jobs.procs import die_with_parent, drain, merge, run_steps, spawn, wait
from trawl.pipeline.base import RunContext, Step
from trawl.pipeline.stats import Stats

__all__ = ["StepWorkers", "auto_workers", "main"]

#: Documents a batch holds at most, and the bytes of raw payload after which it is sent anyway.
BATCH_DOCS = 32
BATCH_BYTES = 8 << 20
#: Batches in flight per worker (bounds the memory the pipes and the parent hold).
DEPTH = 2
#: In the automatic mode, the CPU seconds the steps may take here before workers start.
AUTO_AFTER_SECONDS = 3.0


def auto_workers() -> int:
    """One worker per core but the parent's: ``cpu_count - 1``, none on one core."""
    return max(0, (os.cpu_count() or 1) - 1)


class _Worker:
    """One worker interpreter, its pipes and the thread that writes to it."""

    def __init__(self, config: Config) -> None:
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        self.proc = spawn("trawl.jobs.workers", [str(down_r), str(up_w), str(os.getpid())], (down_r, up_w))
        os.close(down_r)
        os.close(up_w)
        self.out = Connection(down_w, readable=False)
        self.inbox = Connection(up_r, writable=False)
        self.jobs: queue.Queue[Any] = queue.Queue()
        self.jobs.put(("config", config))
        self.thread = threading.Thread(target=self._send, name="trawl-ingest-worker-send", daemon=True)
        self.thread.start()

    def _send(self) -> None:
        while True:
            msg = self.jobs.get()
            try:
                self.out.send(msg)
            except (OSError, ValueError):
                return
            if msg is None:
                return

    def submit(self, docs: list[Document]) -> None:
        self.jobs.put(docs)

    def receive(self) -> tuple[list[Document], dict[str, int], dict[str, float], list[dict[str, Any]]] | None:
        """The next batch's answer, or None when the worker died."""
        try:
            msg = self.inbox.recv()
        except (EOFError, OSError):
            return None
        docs, counters, timings, audit = msg
        return docs, counters, timings, audit

    def close(self, *, kill: bool = False) -> None:
        if kill:
            with contextlib.suppress(OSError):
                self.proc.kill()
        else:
            self.jobs.put(None)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.thread.join(5)
        for conn in (self.out, self.inbox):
            with contextlib.suppress(OSError):
                conn.close()


class StepWorkers(Step):
    """The default steps for ``config``, run in worker processes (see the module docstring)."""

    name: ClassVar[str] = "workers"

    def __init__(self, config: Config, workers: int = -1) -> None:
        self.config = config
        self.workers = workers
        self._local: list[Step] | None = None
        self._pool: list[_Worker] = []
        self.started = 0  # worker processes started, restarts included

    def _local_steps(self) -> list[Step]:
        if self._local is None:
            from trawl.jobs.steps import build_steps  # noqa: PLC0415 - steps import this module's users

            self._local = build_steps(self.config)
        return self._local

    def check(self) -> None:
        for step in self._local_steps():
            step.check()

    def close(self) -> None:
        for worker in self._pool:
            worker.close()
        self._pool = []
        for step in self._local or []:
            step.close()

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        self.ctx = ctx
        count = self.workers if self.workers >= 0 else auto_workers()
        stream = iter(docs)
        if self.workers < 0 and count:
            # here first: a short run never starts a worker
            local = self._local_steps()
            spent = 0.0
            while spent < AUTO_AFTER_SECONDS:
                doc = next(stream, None)
                if doc is None:
                    return
                t0 = time.process_time()
                yield from run_steps(local, [doc], ctx)
                spent += time.process_time() - t0
        if not count:
            yield from _chain_stream(self._local_steps(), stream, ctx)
            return
        yield from self._distributed(stream, ctx, count)

    def _start(self) -> _Worker:
        self.started += 1
        return _Worker(self.config)

    def _distributed(self, stream: Iterator[Document], ctx: RunContext, count: int) -> Iterator[Document]:
        self._pool = [self._start() for _ in range(count)]
        ctx.stats.inc("workers/started", count)
        # (worker index, the documents sent), oldest first: answers are read in this order
        pending: deque[tuple[int, list[Document]]] = deque()
        in_flight = [0] * count
        turn = 0
        exhausted = False
        while True:
            while not exhausted and min(in_flight) < DEPTH:
                batch = _batch(stream)
                if not batch:
                    exhausted = True
                    break
                k = min(range(count), key=lambda i: (in_flight[i], (i - turn) % count))
                turn = (k + 1) % count
                self._pool[k].submit(batch)
                in_flight[k] += 1
                pending.append((k, batch))
            if not pending:
                return
            k, batch = pending.popleft()
            answer = self._pool[k].receive()
            if answer is None:  # the worker died: redo its batches, one document at a time
                lost = [batch] + [b for j, b in pending if j == k]
                pending = deque((j, b) for j, b in pending if j != k)
                self._pool[k].close(kill=True)
                self._pool[k] = self._start()
                in_flight[k] = 0
                ctx.stats.inc("workers/restarted")
                for docs in lost:
                    yield from self._one_by_one(docs, ctx)
                continue
            in_flight[k] -= 1
            out, counters, timings, audit = answer
            merge(ctx, counters, timings, audit)
            yield from out

    def _one_by_one(self, docs: list[Document], ctx: RunContext) -> Iterator[Document]:
        """``docs`` again, one at a time, in one fresh worker while it lives."""
        worker: _Worker | None = None
        try:
            for doc in docs:
                if worker is None:
                    worker = self._start()
                worker.submit([doc])
                answer = worker.receive()
                if answer is None:
                    worker.close(kill=True)
                    worker = None
                    reason = "workers/died"
                    doc.dropped = reason
                    doc.error(self.name, "the worker process died converting this document")
                    message = "the worker process died converting it"
                    ctx.drop(self.name, reason, message, url=doc.url, source=doc.source)
                    continue
                out, counters, timings, audit = answer
                merge(ctx, counters, timings, audit)
                yield from out
        finally:
            if worker is not None:
                worker.close()


def _batch(stream: Iterator[Document]) -> list[Document]:
    batch: list[Document] = []
    size = 0
    for doc in stream:
        batch.append(doc)
        size += len(doc.raw)
        if len(batch) >= BATCH_DOCS or size >= BATCH_BYTES:
            break
    return batch


def _chain_stream(steps: list[Step], docs: Iterator[Document], ctx: RunContext) -> Iterator[Document]:
    stream: Iterable[Document] = docs
    for step in steps:
        stream = step.run(stream, ctx)
    yield from stream


# --------------------------------------------------------------------------- the worker's side


def _serve(inbox: Connection, outbox: Connection, parent: int) -> None:
    from trawl.jobs.steps import build_steps  # noqa: PLC0415
    from trawl.pipeline.base import Audit  # noqa: PLC0415

    die_with_parent(parent)
    steps: list[Step] = []
    ctx = RunContext(Stats(), Audit(None))
    # Fault injection for the tests: a worker handed a document whose URL holds this exits at once,
    # as one killed by a crashing parser or the OOM killer would.
    fault = os.environ.get("TRAWL_FAULT_WORKER_EXIT_ON")
    try:
        while True:
            msg = wait(inbox, parent)
            if msg is None:
                return
            if isinstance(msg, tuple) and msg[0] == "config":
                steps = build_steps(msg[1])
                continue
            if fault and any(fault in doc.url for doc in msg):
                os._exit(70)
            out = run_steps(steps, msg, ctx)
            outbox.send((out, *drain(ctx)))
    finally:
        for step in steps:
            step.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m trawl.jobs.workers INBOX_FD OUTBOX_FD PARENT_PID`` (from :class:`StepWorkers`)."""
    args = sys.argv[1:] if argv is None else argv
    inbox = Connection(int(args[0]), writable=False)
    outbox = Connection(int(args[1]), readable=False)
    with contextlib.suppress(EOFError, BrokenPipeError, KeyboardInterrupt):
        _serve(inbox, outbox, int(args[2]))


if __name__ == "__main__":
    # run the imported module, not this ``__main__`` copy, so pickled classes resolve
    import importlib

    importlib.import_module("trawl.jobs.workers").main()
