"""``ingest``: sources → type sniffing → decoding → HTML/text conversion → the collection.

The library function behind ``trawl ingest`` and ``trawl demo``; the CLI only adds a progress
bar and a summary table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from trawl.acquire.detect import sources_for
from trawl.config import Config
from trawl.document import Document
from trawl.jobs.workers import StepWorkers
from trawl.pipeline.base import Pipeline, Source, Step
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

__all__ = ["IngestResult", "build_sources", "ingest"]


@dataclass(slots=True)
class IngestResult:
    """What one ingest run did: its id, its counters, and where they were saved."""

    run: str
    stats: Stats
    stats_file: Path
    drops_file: Path
    seconds: float


def build_sources(
    inputs: Sequence[str | Path], config: Config, *, output: Path | None = None
) -> list[Source]:
    """The sources for ``inputs``, by sniffing each one (never by its extension); ``output``, the
    collection being written, is never read, also when it lies inside an input folder."""
    options = {"local": {"exclude_paths": [output]}} if output is not None else None
    return sources_for([str(p) for p in inputs], config=config, options=options)


def ingest(
    inputs: Sequence[str | Path],
    collection: Collection,
    *,
    on_document: Callable[[Document, Stats], None] | None = None,
) -> IngestResult:
    """Read ``inputs`` into ``collection``; every drop and error is counted and recorded."""
    run, ctx = collection.new_run()
    config = collection.config
    steps: list[Step] = [StepWorkers(config, config.ingest.workers), collection.writer()]
    pipeline = Pipeline(build_sources(inputs, collection.config, output=collection.path), steps, ctx)
    t0 = time.perf_counter()
    try:
        for doc in pipeline:
            if on_document is not None:
                on_document(doc, ctx.stats)
    finally:
        ctx.stats.finished = time.time()
        ctx.audit.close()
        stats_file = collection.save_run(run, ctx.stats)
    drops = collection.path / "stats" / f"{run}.drops.jsonl"
    return IngestResult(run, ctx.stats, stats_file, drops, time.perf_counter() - t0)
