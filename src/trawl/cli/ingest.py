"""``trawl ingest SOURCE… -o COLLECTION``: read WARC/ARC, TREC Web files and directories."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from trawl.cli.common import (
    add_config_options,
    err_console,
    human_bytes,
    out_console,
    removed_if_failed,
    sentence,
)
from trawl.document import Document
from trawl.errors import InputError
from trawl.jobs.ingest import IngestResult, ingest
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

HELP = "read WARC/ARC files, TREC Web files and directories into a collection"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "ingest",
        help=HELP,
        description=sentence(HELP) + ". Formats and compression are detected from the bytes, "
        "not the file names. Bad records are counted and recorded, never fatal.",
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="WARC/ARC/TREC files (any compression) or directories (one document per file)",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        type=Path,
        metavar="COLLECTION",
        help="the collection directory (created if missing, appended to if it exists)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the run's counters as one JSON object")
    add_config_options(p)
    p.set_defaults(func=run)


def summary_table(result: IngestResult) -> RichTable:
    """The end-of-run table: what was read, stored, skipped, dropped and failed."""
    stats = result.stats
    t = RichTable(title=f"ingest run {result.run}", show_header=True, header_style="bold")
    t.add_column("counter")
    t.add_column("value", justify="right")
    stored = stats.get("store/records")
    rate = stored / result.seconds if result.seconds > 0 else 0.0
    t.add_row("files read", str(stats.get("read/files")))
    t.add_row("records read (files and archive records)", str(stats.get("read/records")))
    t.add_row("captures stored", f"[green]{stored}[/]")
    t.add_row("already stored (skipped)", str(stats.get("store/skipped/already-stored")))
    t.add_row("WARC bytes written", human_bytes(stats.get("store/warc-bytes")))
    t.add_row("time", f"{result.seconds:.2f} s ({rate:,.0f} docs/s)")
    for key, value in stats.prefix("read/skipped/").items():
        t.add_row(key.replace("read/skipped/", "skipped: "), str(value))
    for key, value in stats.prefix("drop/").items():
        t.add_row(f"[yellow]{key}[/]", f"[yellow]{value}[/]")
    for key, value in stats.prefix("error/").items():
        t.add_row(f"[red]{key}[/]", f"[red]{value}[/]")
    return t


def run(args: argparse.Namespace) -> int:
    with removed_if_failed(args.output):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    collection = Collection.create(args.output, config_file=args.config, overrides=args.overrides)
    console = err_console()
    show_progress = not args.no_progress and not args.json
    with (
        collection,
        Progress(
            SpinnerColumn(),
            TextColumn("[bold]ingest[/]"),
            BarColumn(bar_width=None),
            TextColumn("{task.completed:,} docs"),
            TextColumn("{task.fields[drops]} dropped"),
            TimeElapsedColumn(),
            console=console,
            disable=not show_progress,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("ingest", total=None, drops=0)

        def tick(_doc: Document, stats: Stats) -> None:
            drops = sum(stats.prefix("drop/").values())
            progress.update(task, advance=1, drops=drops)

        result = ingest(args.sources, collection, on_document=tick)
    read = result.stats.get("read/records") + sum(result.stats.prefix("drop/").values())
    if not read:  # a run that could do nothing says so
        skipped = ", ".join(
            f"{n} {k.split('/')[-1]}" for k, n in result.stats.prefix("read/skipped/").items()
        )
        raise InputError(
            f"nothing to ingest: {', '.join(map(str, args.sources))} held no file or record"
            + (f" ({skipped} skipped)" if skipped else "")
        )
    if args.json:
        import json  # noqa: PLC0415

        print(json.dumps({"run": result.run, "collection": str(args.output), **result.stats.to_dict()}))
    else:
        out = out_console()
        out.print(summary_table(result))
        out.print(f"collection: {args.output}   counters: {result.stats_file}")
        if sum(result.stats.prefix("drop/").values()) or sum(result.stats.prefix("error/").values()):
            out.print(f"dropped and failed records, with reasons: {result.drops_file}")
        out.print(f"next: trawl show {args.output}")
    return 0
