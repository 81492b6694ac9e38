"""``trawl export COLLECTION --format F -o DIR --workers N``: an export as sharded tasks, one part each.

The collection's rows are cut into key ranges (:mod:`trawl.jobs.scan`); task ``rank`` exports its
range in the format asked (:func:`~trawl.store.export.export_collection` with ``start``/``end``:
the same records, columns and bytes as the one-file export gives for those rows) to
``part-<rank>.<ext>`` in its own folder, then puts the part (and a TREC part's DOCNO index, and
an ``.errors`` list where records could not be read) into ``DIR`` — a local folder or an fsspec
URL such as ``s3://bucket/export/`` (:mod:`trawl.fsio`): each file is put whole or not at all, by
the task, so parts travel from the machine that made them. Then it writes its marker. The job
writes ``DIR/_manifest.json`` last (the parts, their records and bytes, the totals): a reader
that finds the manifest finds every part.

Parts are in row order, so reading them in name order gives the one-file export's records in its
order (a WARC export's revisits follow their originals within each part, since a URL's captures
are all in one row). Parquet parts are one dataset (``read_parquet('DIR/*.parquet')`` in DuckDB).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trawl import fsio
from trawl.jobs.executors import Executor, write_marker
from trawl.jobs.scan import OnTask, Share, run_scan
from trawl.store.collection import Collection
from trawl.store.export import FORMATS, export_collection

__all__ = ["EXTENSIONS", "ShardedExport", "export_part", "sharded_export"]

EXTENSIONS = {"parquet": "parquet", "trec": "trec", "jsonl": "jsonl", "warc": "warc.gz"}
MANIFEST = "_manifest.json"


@dataclass(slots=True)
class ShardedExport:
    """What a sharded export wrote."""

    output: str
    parts: list[dict[str, Any]]
    counts: dict[str, int]
    tasks: int
    resumed: int
    executor: str
    seconds: float


def _put(local: Path, target: str) -> None:
    """``local`` to ``target`` whole: renamed on a local disk, uploaded to a URL."""
    if fsio.is_remote(target):
        fsio.put_file(local, target)
        return
    try:
        os.replace(local, target)
    except OSError:  # another file system: a copy, renamed into place
        fsio.put_file(local, target)


def export_part(coll: Collection, share: Share, options: dict[str, Any]) -> dict[str, Any]:
    """A task (:mod:`trawl.jobs.scan`): the rows of its range as ``part-<rank>.<ext>``."""
    fmt = str(options["format"])
    name = f"part-{share.rank:05d}.{EXTENSIONS[fmt]}"
    out = share.out
    local = out / name
    counts = export_collection(coll, fmt, local, start=share.start, end=share.end)
    files = [name]
    size = local.stat().st_size
    for extra in (".idx", ".errors"):
        if Path(str(local) + extra).is_file():
            files.append(name + extra)
    for file in files:
        _put(out / file, fsio.join(str(options["output"]), file))
    return {"part": name, "files": files, "bytes": size, "counts": counts}


def sharded_export(
    coll: Collection,
    fmt: str,
    output: str,
    executor: Executor,
    *,
    tasks: int | None = None,
    on_task: OnTask | None = None,
) -> ShardedExport:
    """Export ``coll`` in ``fmt`` to the folder or URL ``output`` as ``tasks`` parts (default: two
    per worker) on ``executor``; see the module's docstring."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    t0 = time.perf_counter()
    if not fsio.is_remote(output):
        output = str(Path(output).absolute())
        Path(output).mkdir(parents=True, exist_ok=True)
    options = {"format": fmt, "output": output}
    with contextlib.suppress(OSError):
        fsio.remove(fsio.join(output, MANIFEST))  # a reader must not take old parts for new ones
    job = run_scan(
        coll,
        "export",
        "trawl.jobs.sharded_export:export_part",
        options,
        executor,
        tasks=tasks,
        on_task=on_task,
    )
    parts = [
        {"part": r["part"], "files": r["files"], "bytes": r["bytes"], **r["counts"]} for r in job.results
    ]
    counts: dict[str, int] = {}
    for part in parts:
        for key in ("records", "skipped"):
            if key in part:
                counts[key] = counts.get(key, 0) + int(part[key])
    counts["bytes"] = sum(int(p["bytes"]) for p in parts)
    manifest = {"format": fmt, "collection": str(coll.path), "parts": parts, **counts}
    tmp = job.work / MANIFEST
    write_marker(tmp, manifest)
    _put(tmp, fsio.join(output, MANIFEST))
    job.close()
    return ShardedExport(
        output, parts, counts, len(parts), job.resumed, job.executor, time.perf_counter() - t0
    )
