"""``trawl ingest SOURCE… -o COLLECTION``: read WARC/ARC, TREC Web files and directories.

A folder is a desktop crawl: incremental (only what changed is read again; deletions and renames
are marked), optionally watched (``--watch``), paced (``--max-files-per-second``,
``--max-mb-per-second``, ``--low-priority``, ``--pause-on-battery``) and filtered (``--exclude``,
ignore files, hidden and system folders).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from trawl.cli.common import (
    add_config_options,
    add_scale_options,
    bounded,
    collection_dir,
    err_console,
    human_bytes,
    out_console,
    removed_if_failed,
    sentence,
)
from trawl.convert.ocr import OCR_MODES
from trawl.document import Document
from trawl.errors import ConfigError, InputError
from trawl.jobs.ingest import IngestResult, ingest
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection
from trawl.store.disk import advice

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
        type=collection_dir,
        metavar="COLLECTION",
        help="the collection directory (created if missing, appended to if it exists)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the run's counters as one JSON object")
    p.add_argument(
        "--ocr",
        choices=OCR_MODES,
        help="OCR with Tesseract: images and PDF pages without a text layer (auto, the default), "
        "every PDF page too (always), or none (never); the same as --set convert.ocr=MODE",
    )
    add_scale_options(
        p.add_argument_group("sharded tasks (several processes or machines)"),
        "run the ingest as sharded tasks, N at a time, merged into the collection at the end "
        "(idempotent: run the same command again after a failure)",
        "split the input files into T tasks (2 per worker)",
    )
    desk = p.add_argument_group("folders (a desktop crawl)")
    desk.add_argument(
        "--full",
        action="store_true",
        help="read every file again (default: only files whose size, mtime or inode changed since "
        "the last ingest into this collection; deleted files get a tombstone version, renamed ones move)",
    )
    desk.add_argument(
        "--watch",
        action="store_true",
        help="keep running: pick up new, changed and deleted files as the file system reports them "
        "(watchfiles, pip install 'trawl[desktop]'; else polling); Ctrl-C or SIGTERM ends it cleanly",
    )
    desk.add_argument(
        "--poll-interval",
        type=bounded(float, 0, above=True),
        metavar="SECONDS",
        help="with --watch and no watchfiles: seconds between two stat walks (local.poll_interval, 1)",
    )
    desk.add_argument(
        "--max-files-per-second",
        type=bounded(float, 0),
        metavar="N",
        help="read at most N files a second (files unchanged by stat are not read; 0: no limit)",
    )
    desk.add_argument(
        "--max-mb-per-second",
        type=bounded(float, 0),
        metavar="MB",
        help="read at most MB megabytes a second (0: no limit)",
    )
    desk.add_argument(
        "--low-priority",
        action="store_true",
        help="run at the lowest CPU priority (nice 19) and the idle I/O class (Linux), where allowed",
    )
    desk.add_argument(
        "--pause-on-battery",
        action="store_true",
        help="wait while the machine runs on battery (Linux: /sys/class/power_supply)",
    )
    desk.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip files and folders whose name or path below the folder matches (repeatable; "
        "also ignore files: .gitignore, .trawlignore)",
    )
    desk.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="read only files whose name or path below the folder matches one of these (repeatable)",
    )
    desk.add_argument(
        "--include-hidden", action="store_true", help="also read names starting with '.' (skipped by default)"
    )
    desk.add_argument(
        "--include-system",
        action="store_true",
        help="also walk system folders ($RECYCLE.BIN, lost+found, __pycache__, node_modules...: "
        "local.system_folders)",
    )
    add_config_options(p)
    p.set_defaults(func=run)


def apply_flags(args: argparse.Namespace, collection: Collection) -> None:
    """This run's folder flags, on top of the collection's configuration (not saved in it)."""
    local = collection.config.local
    if getattr(args, "full", False):
        local.incremental = False
    for flag, name in (
        ("poll_interval", "poll_interval"),
        ("max_files_per_second", "max_files_per_second"),
        ("max_mb_per_second", "max_mb_per_second"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            setattr(local, name, float(value))
    if getattr(args, "low_priority", False):
        local.low_priority = True
    if getattr(args, "pause_on_battery", False):
        local.pause_on_battery = True
    if getattr(args, "exclude", None):
        local.exclude = [*local.exclude, *args.exclude]
    if getattr(args, "include", None):
        base = [] if list(local.include) == ["*"] else list(local.include)
        local.include = [*base, *args.include]
    if getattr(args, "include_hidden", False):
        local.skip_hidden = False
    if getattr(args, "include_system", False):
        local.skip_system = False


@contextlib.contextmanager
def stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C and SIGTERM set ``stop`` (the run ends after the file it is on, with everything
    written); a second Ctrl-C interrupts at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.set()
        print("trawl: stopping after the current file (Ctrl-C again to interrupt)", file=sys.stderr)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


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
    for key, value in stats.prefix("local/").items():  # a desktop crawl: what changed on disk
        t.add_row(key, str(value))
    if result.passes > 1:
        t.add_row("passes (--watch)", str(result.passes))
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
    if getattr(args, "ocr", None):
        args.overrides = [*args.overrides, f"convert.ocr={args.ocr}"]
    with removed_if_failed(args.output):
        return _run(args)


def file_url_path(url: str) -> Path:
    """The local path a ``file:`` URL names (``file:///home/me/docs/``, ``file://localhost/...``)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file":
        raise ConfigError(f"{url!r} is not a file: URL")
    if parts.netloc not in ("", "localhost"):
        raise InputError(
            f"{url!r} names a file on the host {parts.netloc!r}; trawl reads only this machine's "
            "files: mount the share and give its local path"
        )
    return Path(url2pathname(parts.path))


def run_file_urls(args: argparse.Namespace) -> int:
    """``trawl crawl file:///dir/ -o COLLECTION``: the desktop ingest of those folders (what
    ``trawl ingest DIR -o COLLECTION`` does: incremental, deletions and renames marked). The
    caller (``trawl crawl``) guards the collection with ``removed_if_failed``."""
    others = [seed for seed in args.seeds if not seed.lower().startswith("file:")]
    if others:
        raise ConfigError(
            f"file: seeds are read as a desktop ingest, web seeds are crawled: give them in two "
            f"commands ({others[0]!r} is not a file: URL)"
        )
    if getattr(args, "resume", False):
        raise ConfigError(
            "--resume continues a web crawl; a folder needs none: run the same command again and "
            "only what changed is read"
        )
    paths = [str(file_url_path(seed)) for seed in args.seeds]
    ingest_args = argparse.Namespace(
        sources=paths,
        output=args.output,
        no_progress=args.no_progress,
        json=args.json,
        config=args.config,
        overrides=args.overrides,
    )
    return _run(ingest_args)


def _sharded(args: argparse.Namespace) -> bool:
    """Whether the command asks for sharded tasks; refuses what they cannot do."""
    if getattr(args, "workers", None) is None and getattr(args, "executor", None) is None:
        if getattr(args, "tasks", None) is not None or getattr(args, "ray_address", None):
            raise ConfigError("--tasks and --ray-address are for a sharded ingest: add --workers N")
        return False
    for flag, given in (
        ("--watch", args.watch),
        ("--full", args.full),
        ("--include", args.include),
        ("--exclude", args.exclude),
        ("--include-hidden", args.include_hidden),
        ("--include-system", args.include_system),
    ):
        if given:
            raise ConfigError(
                f"{flag} is for the desktop ingest of a folder; a sharded ingest (--workers, --executor) "
                "reads every file of its inputs once: give them without it"
            )
    return True


def _run_sharded(args: argparse.Namespace) -> int:
    from trawl.jobs.executors import make_executor  # noqa: PLC0415 - only on this path
    from trawl.jobs.sharded import sharded_ingest  # noqa: PLC0415 - same

    executor = make_executor(args.executor or "local", args.workers or 2, address=args.ray_address)
    collection = Collection.create(args.output, config_file=args.config, overrides=args.overrides)
    console = err_console()
    show = not args.no_progress and not args.json
    with collection:
        done = [0]

        def on_task(outcome: Any, world: int) -> None:
            done[0] += 1
            if show:
                stored = outcome.result.get("counters", {}).get("store/records", 0)
                what = f"{stored:,} records" if outcome.ok else f"[red]failed[/]: {outcome.error[:200]}"
                line = f"task {outcome.rank + 1}/{world} done ({done[0]}/{world}): {what}"
                console.print(line, highlight=False)

        result = sharded_ingest(
            args.sources, collection, executor, tasks=args.tasks, overrides=args.overrides, on_task=on_task
        )
    stats = result.stats
    failed = [{"rank": f.rank, "error": f.error} for f in result.failed]
    if args.json:
        import json  # noqa: PLC0415

        extra = {"tasks": result.tasks, "executor": result.executor, "failed_tasks": failed}
        print(json.dumps({"run": result.run, "collection": str(args.output), **extra, **stats.to_dict()}))
    else:
        out = out_console()
        shown = IngestResult(result.run, stats, result.stats_file, result.drops_file, result.seconds)
        out.print(summary_table(shown))
        out.print(
            f"{result.tasks} tasks on {result.executor} ({executor.workers} at a time), "
            f"{result.skipped_files} files merged before (skipped)"
        )
        out.print(f"collection: {args.output}   counters: {result.stats_file}")
        out.print(f"next: trawl show {args.output}")
    for f in result.failed:
        print(f"trawl ingest: task {f.rank} failed: {f.error}", file=sys.stderr)
    if result.failed:
        print(
            "trawl ingest: what the other tasks did is merged; run the same command again to retry the rest",
            file=sys.stderr,
        )
        return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    if _sharded(args):
        return _run_sharded(args)
    collection = Collection.create(args.output, config_file=args.config, overrides=args.overrides)
    apply_flags(args, collection)
    watch = bool(getattr(args, "watch", False))
    stop = threading.Event()
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

        before: dict[str, int] = {}

        def passed(n: int, stats: Stats) -> None:
            now = stats.prefix("local/")
            if watch and not args.json:
                changes = ", ".join(
                    f"{k.split('/', 1)[1]} {v - before.get(k, 0)}"
                    for k, v in now.items()
                    if v != before.get(k, 0)
                )
                console.print(f"pass {n} done ({changes or 'nothing'}); watching", highlight=False)
            before.update(now)

        with stopped_by_signals(stop):
            result = ingest(
                args.sources, collection, on_document=tick, watch=watch, stop=stop, on_pass=passed
            )
    for note in result.notes:
        print(f"trawl: {note}", file=sys.stderr)
    read = (
        result.stats.get("read/records")
        + sum(result.stats.prefix("drop/").values())
        + sum(result.stats.prefix("local/").values())
    )
    if not read and result.fault is None:  # a run that could do nothing says so
        skipped = ", ".join(
            f"{n} {k.split('/')[-1]}" for k, n in result.stats.prefix("read/skipped/").items()
        )
        raise InputError(
            f"nothing to ingest: {', '.join(map(str, args.sources))} held no file or record"
            + (f" ({skipped} skipped)" if skipped else "")
        )
    if args.json:
        import json  # noqa: PLC0415

        failure = {"failure": str(result.fault)} if result.fault is not None else {}
        print(
            json.dumps(
                {"run": result.run, "collection": str(args.output), **failure, **result.stats.to_dict()}
            )
        )
    else:
        out = out_console()
        out.print(summary_table(result))
        out.print(f"collection: {args.output}   counters: {result.stats_file}")
        if sum(result.stats.prefix("drop/").values()) or sum(result.stats.prefix("error/").values()):
            out.print(f"dropped and failed records, with reasons: {result.drops_file}")
        out.print(f"next: trawl show {args.output}")
    if result.fault is not None:  # a full or failing disk: one line, and what to do
        print(
            f"trawl ingest: {result.fault}; stopped after {result.stats.get('store/records'):,} records; "
            f"{advice(result.fault, 'run the same command again (what is stored is not stored twice)')}",
            file=sys.stderr,
        )
        return 1
    return 0
