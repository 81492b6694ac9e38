"""Stages and pipelines: iterator of documents in, iterator of documents out.

A pipeline is a plain list: one or more :class:`Source` objects followed by :class:`Step` objects
(a :class:`Filter` is a step that keeps or drops with a reason; a sink is a step that writes and
passes documents on). Every stage shares one :class:`RunContext` holding the run's
:class:`~trawl.pipeline.stats.Stats` and its :class:`Audit` trail.

Failure isolation: when a step raises on one document, the error is counted as
``error/<stage>/<ExceptionType>``, recorded on the document and in the audit trail, and the run goes
on (the document continues, or is dropped if the step says ``on_error = "drop"``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar, Literal

from trawl.document import Document
from trawl.errors import MissingDependency
from trawl.pipeline.stats import Stats

__all__ = [
    "Audit",
    "AuditEntry",
    "FanOutStep",
    "Filter",
    "InputsSource",
    "Pipeline",
    "RunContext",
    "Source",
    "Step",
    "Verdict",
    "check_shard",
]


@dataclass(slots=True)
class AuditEntry:
    """One dropped or failed record: what, where, and why (quoting the bad input)."""

    kind: Literal["drop", "error"]
    stage: str
    reason: str
    message: str = ""
    url: str | None = None
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "stage": self.stage,
            "reason": self.reason,
            "message": self.message,
            "url": self.url,
            "source": self.source,
        }


class Audit:
    """The audit trail of a run: every drop and error, as JSON lines in a file and in memory.

    Memory keeps only the first ``keep`` entries (for the end-of-run summary); the file keeps all.
    """

    def __init__(self, path: Path | None = None, keep: int = 1000) -> None:
        self.path = path
        self.keep = keep
        self.entries: list[AuditEntry] = []
        self.total = 0
        #: why the file stopped taking entries (a full disk): the run's own writes stop it, not these
        self.failed: OSError | None = None
        self._fh: IO[str] | None = None

    def record(self, entry: AuditEntry) -> None:
        self.total += 1
        if len(self.entries) < self.keep:
            self.entries.append(entry)
        if self.path is not None and self.failed is None:
            try:
                if self._fh is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._fh = self.path.open("a", encoding="utf-8")
                self._fh.write(json.dumps(entry.as_dict(), ensure_ascii=False) + "\n")
            except OSError as exc:  # called from anywhere, a drop's record must not raise
                self.failed = exc
                self.close()

    def close(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                fh.close()
            except OSError as exc:  # its buffer could not be written
                self.failed = self.failed or exc
                with contextlib.suppress(OSError):
                    fh.close()  # the buffer is given up now: the file is closed


@dataclass(slots=True)
class RunContext:
    """What every stage of one run shares: counters and the audit trail."""

    stats: Stats = field(default_factory=Stats)
    audit: Audit = field(default_factory=Audit)

    def drop(
        self,
        stage: str,
        reason: str,
        message: str = "",
        *,
        url: str | None = None,
        source: str | None = None,
    ) -> None:
        """Count and record a dropped record (``drop/<reason>``)."""
        self.stats.inc(f"drop/{reason}")
        self.audit.record(AuditEntry("drop", stage, reason, message, url, source))

    def error(
        self, stage: str, exc: BaseException, *, url: str | None = None, source: str | None = None
    ) -> None:
        """Count and record a stage failure (``error/<stage>/<type>``)."""
        kind = type(exc).__name__
        self.stats.inc(f"error/{stage}/{kind}")
        self.audit.record(AuditEntry("error", stage, kind, str(exc)[:500], url, source))


def _check_requires(owner: str, requires: Sequence[tuple[str, str]]) -> None:
    for module, extra in requires:
        if importlib.util.find_spec(module) is None:
            raise MissingDependency(module, extra, owner)


class Source(ABC):
    """Yields documents. Bad records are counted and recorded through ``ctx``, never raised."""

    name: ClassVar[str] = "source"
    requires: ClassVar[tuple[tuple[str, str], ...]] = ()

    def check(self) -> None:
        """Raise :class:`MissingDependency` now, at build time, if an extra is missing."""
        _check_requires(type(self).__name__, self.requires)

    @abstractmethod
    def read(self, ctx: RunContext) -> Iterator[Document]:
        """Yield the documents of this source, counting ``read/records`` and drops in ``ctx``."""

    def read_shard(self, ctx: RunContext, rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        """The documents of task ``rank`` of ``world_size`` (datatrove's shape): every task
        together reads each document once. This default keeps every ``world_size``-th document
        of :meth:`read` (each task reads the whole source); a source of many inputs overrides it
        to split its inputs instead."""
        check_shard(rank, world_size)
        if world_size == 1:
            yield from self.read(ctx)
            return
        for i, doc in enumerate(self.read(ctx)):
            if i % world_size == rank:
                yield doc


def check_shard(rank: int, world_size: int) -> None:
    """Refuse a task that is not one of its run's: ``0 <= rank < world_size``."""
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"task {rank} of {world_size}: need 0 <= rank < world_size")


class InputsSource(Source):
    """A source of several inputs (files, streams), each read on its own by :meth:`read_input`:
    :meth:`read` reads them in turn, and task ``rank`` of ``world_size`` reads every
    ``world_size``-th of them (every ``world_size``-th document when there are fewer inputs than
    tasks, so that no task is idle)."""

    inputs: list[Any]

    @abstractmethod
    def read_input(self, ctx: RunContext, src: Any) -> Iterator[Document]:
        """The documents of one input; bad input is dropped and counted, never raised."""

    def read(self, ctx: RunContext) -> Iterator[Document]:
        for src in self.inputs:
            yield from self.read_input(ctx, src)

    def read_shard(self, ctx: RunContext, rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        check_shard(rank, world_size)
        if world_size > 1 and len(self.inputs) < world_size:
            yield from super().read_shard(ctx, rank, world_size)
            return
        for src in self.inputs[rank::world_size]:
            yield from self.read_input(ctx, src)


class Step:
    """A stage: documents in, documents out.

    Override :meth:`process` for a one-in, one-out transformation, or :meth:`run` for anything
    else (batching, fan-out). ``requires`` lists ``(module, extra)`` pairs checked when the
    pipeline is built.
    """

    name: ClassVar[str] = "step"
    requires: ClassVar[tuple[tuple[str, str], ...]] = ()
    on_error: ClassVar[Literal["keep", "drop"]] = "keep"
    #: The context of the run in progress, set by :meth:`run` so ``process`` can count things.
    ctx: RunContext | None = None

    def check(self) -> None:
        _check_requires(type(self).__name__, self.requires)

    def count(self, key: str, n: int = 1) -> None:
        """Increment a counter of the current run (no-op outside a run)."""
        if self.ctx is not None:
            self.ctx.stats.inc(key, n)

    def process(self, doc: Document) -> Document:
        return doc

    def close(self) -> None:
        """Release resources at the end of the run (files, databases)."""

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        """Apply the step to each document, timing it and isolating failures."""
        self.ctx = ctx
        name = self.name
        stats = ctx.stats
        for doc in docs:
            t0 = time.perf_counter()
            try:
                out = self._apply(doc)
            except Exception as exc:  # isolation: one bad document never stops the run
                doc.error(name, exc)
                ctx.error(name, exc, url=doc.url, source=doc.source)
                out = self._after_failure(doc)
            finally:
                stats.add_time(name, time.perf_counter() - t0)
            if out is not None:
                yield out

    def _apply(self, doc: Document) -> Document | None:
        """One document through the step; ``None`` means it left the stream."""
        return self.process(doc)

    def _after_failure(self, doc: Document) -> Document | None:
        if self.on_error == "drop":
            doc.dropped = f"error/{self.name}"
            return None
        return doc


@dataclass(slots=True, frozen=True)
class Verdict:
    """A filter's decision, always with a reason when it drops."""

    keep: bool
    reason: str = ""

    @classmethod
    def ok(cls) -> Verdict:
        return cls(True)

    @classmethod
    def drop(cls, reason: str) -> Verdict:
        return cls(False, reason)


class FanOutStep(Step):
    """A step that follows each document with documents cut from it (its units): subclasses
    give :meth:`split`. A document whose split fails goes on whole, the failure recorded and
    counted (``error/<step>/<type>``), its units unmade."""

    def split(self, doc: Document) -> Iterable[Document]:
        """``doc`` followed by its units."""
        raise NotImplementedError

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        """Each document, followed by its units (a fan-out, so not :meth:`Step.process`)."""
        self.ctx = ctx
        for doc in docs:
            t0 = time.perf_counter()
            try:
                out = list(self.split(doc))
            except Exception as exc:  # isolation: the document goes on whole, its units unmade
                doc.error(self.name, exc)
                ctx.error(self.name, exc, url=doc.url, source=doc.source)
                out = [doc]
            finally:
                ctx.stats.add_time(self.name, time.perf_counter() - t0)
            yield from out


class Filter(Step, ABC):
    """A step that keeps or drops documents, counting ``filter/<name>/kept`` and ``drop/<reason>``."""

    name: ClassVar[str] = "filter"
    on_error: ClassVar[Literal["keep", "drop"]] = "drop"

    @abstractmethod
    def verdict(self, doc: Document) -> Verdict:
        """Keep the document, or drop it with a reason."""

    def _apply(self, doc: Document) -> Document | None:
        return self._decide(doc, self.verdict(doc))

    def _after_failure(self, doc: Document) -> Document | None:
        return self._decide(doc, Verdict(self.on_error == "keep", f"{self.name}/error"))

    def _decide(self, doc: Document, verdict: Verdict) -> Document | None:
        if verdict.keep:
            self.count(f"filter/{self.name}/kept")
            return doc
        reason = verdict.reason or f"{self.name}/unspecified"
        doc.dropped = reason
        if self.ctx is not None:
            self.ctx.drop(self.name, reason, url=doc.url, source=doc.source)
        return None


class Pipeline:
    """Sources followed by steps; build it, :meth:`check` it, then iterate or :meth:`run` it."""

    def __init__(
        self,
        sources: Sequence[Source],
        steps: Sequence[Step] = (),
        ctx: RunContext | None = None,
        *,
        rank: int = 0,
        world_size: int = 1,
    ) -> None:
        check_shard(rank, world_size)
        self.sources = list(sources)
        self.steps = list(steps)
        self.ctx = ctx or RunContext()
        self.rank, self.world_size = rank, world_size  # this run is task rank of world_size
        self.check()

    def check(self) -> None:
        """Fail fast, before reading anything, if a stage lacks its optional dependency."""
        for source in self.sources:
            source.check()
        for step in self.steps:
            step.check()

    def _read(self) -> Iterator[Document]:
        for source in self.sources:
            yield from source.read_shard(self.ctx, self.rank, self.world_size)

    def __iter__(self) -> Iterator[Document]:
        stream: Iterable[Document] = self._read()
        for step in self.steps:
            stream = step.run(stream, self.ctx)
        try:
            yield from stream
        finally:
            for step in self.steps:
                step.close()

    def run(self) -> Stats:
        """Drain the pipeline and return its counters."""
        for _ in self:
            pass
        self.ctx.stats.finished = time.time()
        self.ctx.audit.close()
        return self.ctx.stats
