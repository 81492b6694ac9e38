"""One file through the steps ingest runs: what ``trawl convert`` and ``trawl detect-encoding`` show.

A single-file command shows what ingest would store only if it runs what ingest runs: the same
document built from the file (:func:`file_document`, the desktop crawl's reading of a name and
its bytes) and the same steps (:func:`~trawl.jobs.steps.default_steps` from the configuration),
so the decoding evidence chain, the mojibake repair, NFC, the HTML reading and the format
converters are the ingest ones, not a second copy of them. :class:`OneByOne` runs one document at
a time through a list of steps and reports what happened to it: kept or dropped, the counters it
moved, the time it took.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter

from trawl.acquire.localdir import file_document
from trawl.document import Document
from trawl.pipeline.base import AuditEntry, RunContext, Step

__all__ = ["OneByOne", "Outcome", "file_document"]


@dataclass(slots=True)
class Outcome:
    """What the steps did to one document."""

    doc: Document
    kept: bool  # False: a step dropped it (``doc.dropped`` says why)
    counters: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    audit: list[AuditEntry] = field(default_factory=list)  # drops and step failures, in order

    def counted(self, prefix: str) -> list[str]:
        """The counter names under ``prefix``, without it (``convert/metadata/`` → the flags)."""
        return sorted(key[len(prefix) :] for key in self.counters if key.startswith(prefix))


class OneByOne:
    """Runs documents one at a time through ``steps`` (checked once, closed by :meth:`close`)."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        for step in self.steps:
            step.check()

    def run(self, doc: Document) -> Outcome:
        ctx = RunContext()
        t0 = perf_counter()
        docs = [doc]
        for step in self.steps:
            docs = list(step.run(docs, ctx))
            if not docs:
                break
        seconds = perf_counter() - t0
        counters = dict(ctx.stats.counters)
        return Outcome(doc, bool(docs), counters, seconds, list(ctx.audit.entries))

    def close(self) -> None:
        for step in self.steps:
            step.close()

    def __enter__(self) -> OneByOne:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
