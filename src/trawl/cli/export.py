"""``trawl export COLLECTION --format parquet|trec|jsonl|warc -o PATH``: the collection in other formats."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from trawl.cli.common import err_console, human_bytes, output_file
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
        "WARC/1.1, one gzip member each (also from a collection written with warc.codec=zstd).",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument("--format", "-f", choices=FORMATS, required=True, help="what to write")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="PATH",
        help="the file to write (- for standard output; a symlink is written through)",
    )
    p.add_argument("--json", action="store_true", help="print the counts as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
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
