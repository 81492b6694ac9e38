"""``ingest``: sources → type sniffing → decoding → HTML/text conversion → the collection.

The library function behind ``trawl ingest`` and ``trawl demo``; the CLI only adds a progress
bar and a summary table.

A folder is ingested incrementally by default (``local.incremental``): the collection keeps the
state of every file read (:mod:`trawl.acquire.desktop`), so a second run reads only what
changed and marks what was deleted or renamed. ``watch=True`` keeps going: after each pass it
waits for the file system to report a change (or for the next poll) and runs another pass, until
``stop`` is set (the CLI sets it on Ctrl-C and SIGTERM); each pass ends with everything written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from trawl import fsio
from trawl.acquire.budget import ResourceBudget, lower_priority
from trawl.acquire.desktop import STATE_FILE, ChangeTracker, ChangeWatcher, FileState
from trawl.acquire.detect import sources_for
from trawl.config import Config
from trawl.document import Document
from trawl.errors import ConfigError, DiskError
from trawl.jobs.workers import StepWorkers
from trawl.pipeline.base import Pipeline, RunContext, Source, Step
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection
from trawl.store.disk import counter, disk_error, refused

__all__ = ["IngestResult", "build_sources", "ingest"]


@dataclass(slots=True)
class IngestResult:
    """What one ingest run did: its id, its counters, and where they were saved."""

    run: str
    stats: Stats
    stats_file: Path
    drops_file: Path
    seconds: float
    passes: int = 1
    notes: list[str] = field(default_factory=list)  # what could not be done as asked, said once
    #: the write the disk refused (full, failing), which stopped the run: what was stored before
    #: stays, and the same command run again stores the rest (each record once)
    fault: DiskError | None = None


def build_sources(
    inputs: Sequence[str | Path],
    config: Config,
    *,
    output: Path | None = None,
    local: dict[str, Any] | None = None,
) -> list[Source]:
    """The sources for ``inputs``, by sniffing each one (never by its extension); ``output``, the
    collection being written, is never read, also when it lies inside an input folder; ``local``:
    more options for the folder reader (a change tracker, a budget, a stop event)."""
    options: dict[str, Any] = dict(local or {})
    if output is not None:
        options["exclude_paths"] = [output]
    paths = [str(p) for p in inputs]
    return sources_for(paths, config=config, options={"local": options} if options else None)


class _Held(Step):
    """A step kept open over the passes of a watch: its pipeline's end does not close it."""

    name: ClassVar[str] = "held"

    def __init__(self, inner: Step) -> None:
        self.inner = inner

    def check(self) -> None:
        self.inner.check()

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        return self.inner.run(docs, ctx)

    def close(self) -> None:
        """Left open; :meth:`release` closes it."""

    def release(self) -> None:
        self.inner.close()


def ingest(
    inputs: Sequence[str | Path],
    collection: Collection,
    *,
    on_document: Callable[[Document, Stats], None] | None = None,
    incremental: bool | None = None,
    watch: bool = False,
    stop: threading.Event | None = None,
    on_pass: Callable[[int, Stats], None] | None = None,
) -> IngestResult:
    """Read ``inputs`` into ``collection``; every drop and error is counted and recorded.

    ``incremental`` (default ``local.incremental``): folders and files are compared with the
    state the collection keeps of them. ``watch``: run passes until ``stop`` is set, each after
    a change (``on_pass`` hears of each pass's end with its number).

    A write the disk refuses (full, failing: :mod:`trawl.store.disk`) ends the run early; the
    result's ``fault`` says which. What was stored stays, and the same call again stores the rest.
    """
    remote = [str(p) for p in inputs if fsio.is_remote(str(p))]
    if watch and remote:
        raise ConfigError(
            f"--watch follows local folders; {remote[0]!r} is a URL: run the same ingest again instead"
        )
    run, ctx = collection.new_run()
    config = collection.config
    local = config.local
    incremental = local.incremental if incremental is None else incremental
    stop = stop if stop is not None else threading.Event()
    notes: list[str] = []
    budget = ResourceBudget(
        files_per_second=local.max_files_per_second,
        mb_per_second=local.max_mb_per_second,
        pause_on_battery=local.pause_on_battery,
        stop=stop,
    )
    if local.low_priority:
        for what, outcome in lower_priority().items():
            if outcome == "done":
                ctx.stats.inc(f"budget/{what}")
            else:
                ctx.stats.inc(f"budget/{what}-unavailable")
                notes.append(f"low priority: {what} {outcome}")
    state = FileState(collection.path / STATE_FILE) if incremental else None
    workers = _Held(StepWorkers(config, config.ingest.workers))
    writer = _Held(collection.writer())
    watcher: ChangeWatcher | None = None
    passes = 0
    fault: DiskError | None = None
    t0 = time.perf_counter()
    try:
        if watch:
            watcher = ChangeWatcher(
                inputs,
                stop=stop,
                interval=local.poll_interval,
                backend=local.watch_backend,
                ignore=[collection.path],
            )
        while True:
            tracker = ChangeTracker(state, collection) if state is not None else None
            options: dict[str, Any] = {"stop": stop}
            if tracker is not None:
                options["changes"] = tracker
            if budget.limited:
                options["budget"] = budget
            sources = build_sources(inputs, config, output=collection.path, local=options)
            for doc in Pipeline(sources, [workers, writer], ctx):
                if tracker is not None:
                    tracker.stored(ctx, doc)
                if on_document is not None:
                    on_document(doc, ctx.stats)
            if tracker is not None:
                tracker.finish(ctx)
            passes += 1
            ctx.stats.inc("ingest/passes")
            if watcher is not None:
                collection.table.flush()  # a pass of a watch ends durable
            if on_pass is not None:
                on_pass(passes, ctx.stats)
            if watcher is None or stop.is_set() or not watcher.wait():
                break
    except Exception as exc:  # a full or failing disk stops the run; any other error is raised
        if (fault := disk_error(exc)) is None:
            raise
    finally:
        try:
            workers.release()
            writer.release()
        finally:
            if watcher is not None:
                watcher.close()
            if state is not None:  # the files stored before a fault are remembered, if the disk lets it
                closing = refused(state.close, collection.path / STATE_FILE)
                fault = fault or closing
            ctx.stats.finished = time.time()
            ctx.audit.close()
            stats_file = collection.path / "stats" / f"{run}.json"
            if fault is not None:
                ctx.stats.inc(counter(fault))
            saving = refused(lambda: collection.save_run(run, ctx.stats), stats_file)
            fault = fault or saving
    fault = fault or collection.disk_failure
    drops = collection.path / "stats" / f"{run}.drops.jsonl"
    return IngestResult(run, ctx.stats, stats_file, drops, time.perf_counter() - t0, passes, notes, fault)
