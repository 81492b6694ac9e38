"""The worker-process plumbing that the crawl's store workers and ingest's step workers share.

Workers are fresh interpreters (``python -m <module> ...``) over inherited pipes, not a
``multiprocessing`` spawn, so a script that starts a crawl or an ingest needs no ``__main__``
guard. They die with their parent, send their counters, stage timings and audit entries with each
answer (:func:`drain`), and the parent adds them to its run (:func:`merge`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from multiprocessing.connection import Connection
from typing import Any

from trawl.document import Document
from trawl.pipeline.base import AuditEntry, RunContext, Step
from trawl.subproc import die_with_parent, spawn  # below every stage: the converters' guard uses it

__all__ = ["Drained", "die_with_parent", "drain", "merge", "run_steps", "spawn", "wait"]

#: What a worker sends with each answer: counters, stage timings, audit entries (as dicts).
Drained = tuple[dict[str, int], dict[str, float], list[dict[str, Any]]]


def wait(inbox: Connection, parent: int) -> Any:
    """The next message; exit if the parent died meanwhile (where no PDEATHSIG exists)."""
    while not inbox.poll(1.0):
        if os.getppid() != parent:
            os._exit(1)
    return inbox.recv()


def run_steps(steps: Iterable[Step], docs: list[Document], ctx: RunContext) -> list[Document]:
    """``docs`` through each of ``steps`` in turn."""
    for step in steps:
        docs = list(step.run(docs, ctx))
    return docs


def drain(ctx: RunContext) -> Drained:
    """The counters, timings and audit entries gathered since the last drain, cleared from ``ctx``."""
    counters = dict(ctx.stats.counters)
    timings = dict(ctx.stats.timings)
    ctx.stats.counters.clear()
    ctx.stats.timings.clear()
    audit = [e.as_dict() for e in ctx.audit.entries]
    ctx.audit.entries.clear()
    return counters, timings, audit


def merge(
    ctx: RunContext, counters: dict[str, int], timings: dict[str, float], audit: list[dict[str, Any]]
) -> None:
    """A worker's :func:`drain` added to the run's own counters, timings and audit trail."""
    ctx.stats.counters.update(counters)
    for stage, seconds in timings.items():
        ctx.stats.add_time(stage, seconds)
    for entry in audit:
        ctx.audit.record(AuditEntry(**entry))
