"""``trawl export COLLECTION --format parquet|trec|jsonl|warc -o PATH``: the collection in other formats."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from trawl.cli.common import add_scale_options, err_console, human_bytes, output_file
from trawl.errors import ConfigError
from trawl.fsio import is_remote
from trawl.store.collection import Collection
from trawl.store.export import FORMATS, export_collection

__all__ = ["HELP", "register", "run"]

HELP = "export a collection: Parquet URL index (Common Crawl columns), TREC Web, JSONL text, or WARC"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "export",
        help=HELP,
        description=HELP[0].upper() + HELP[1:] + ". parquet: one row per record with Common Crawl's "
        "columnar-index columns (url, url_surtkey, fetch_time, warc_filename, warc_record_offset...), "
        "queryable with DuckDB; trec: the captured pages as TREC Web <DOC> blocks plus a DOCNO index "
        "(PATH.idx); jsonl: one JSON object per record with its text; warc: every record as standard "
        "WARC/1.1, one gzip member each (also from a collection written with warc.codec=zstd). "
        "With --workers N: the export as sharded tasks, one part file each (part-00000.jsonl…) in "
        "the folder or URL (s3://bucket/prefix/) PATH, and PATH/_manifest.json written last.",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument("--format", "-f", choices=FORMATS, required=True, help="what to write")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="the file to write (- for standard output; a symlink is written through); with "
        "--workers: a folder or an fsspec URL for the parts",
    )
    p.add_argument("--json", action="store_true", help="print the counts as one JSON object")
    add_scale_options(
        p.add_argument_group("sharded export"),
        "export as sharded tasks, N at a time, one part file each in the folder or URL PATH",
        "how many tasks (parts): default two per worker",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.workers is not None or args.executor is not None:
        return _sharded(args)
    if args.tasks is not None or args.ray_address:
        raise ConfigError("--tasks and --ray-address are for a sharded export: add --workers N")
    if is_remote(args.output):
        raise ConfigError(f"-o {args.output}: a URL takes a sharded export (its parts): add --workers N")
    args.output = Path(args.output)
    started = time.perf_counter()
    with Collection.open(args.collection) as collection, output_file(args.output) as target:
        counts = export_collection(collection, args.format, target)
        size = target.stat().st_size
    summary = {
        "format": args.format,
        "output": str(args.output),
        "bytes": size,
        "seconds": round(time.perf_counter() - started, 3),
        **counts,
    }
    if args.json:  # on standard error when the export itself went to standard output
        print(json.dumps(summary), file=sys.stderr if str(args.output) == "-" else sys.stdout)
    else:
        skipped = (
            f", {counts['skipped']} unreadable (see {args.output}.errors)" if counts.get("skipped") else ""
        )
        err_console().print(
            f"exported {counts['records']} records as {args.format} to {args.output} "
            f"({human_bytes(summary['bytes'])}, {summary['seconds']} s){skipped}"
        )
    return 0


def _sharded(args: argparse.Namespace) -> int:
    from trawl.jobs.executors import make_executor  # noqa: PLC0415 - only on this path
    from trawl.jobs.sharded_export import sharded_export  # noqa: PLC0415

    if args.output == "-":
        raise ConfigError("-o -: a sharded export writes part files; give a folder or a URL")
    executor = make_executor(args.executor or "local", args.workers or 2, address=args.ray_address)
    with Collection.open(args.collection) as collection:
        run = sharded_export(collection, args.format, args.output, executor, tasks=args.tasks)
    summary = {
        "format": args.format,
        "output": run.output,
        "parts": [p["part"] for p in run.parts],
        "tasks": run.tasks,
        "executor": run.executor,
        "resumed": run.resumed,
        "seconds": round(run.seconds, 3),
        **run.counts,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        skipped = (
            f", {run.counts['skipped']} unreadable (see the parts' .errors)"
            if run.counts.get("skipped")
            else ""
        )
        err_console().print(
            f"exported {run.counts.get('records', 0)} records as {args.format} to {run.output}: "
            f"{run.tasks} parts on {run.executor} ({human_bytes(run.counts['bytes'])}, "
            f"{summary['seconds']} s){skipped}; the list in _manifest.json"
        )
    return 0
