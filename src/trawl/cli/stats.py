"""``trawl stats COLLECTION``: term statistics, Zipf and Heaps fits, estimates, anomaly hints, plots."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table as RichTable

from trawl.cli.common import add_scale_options, bounded, err_console, out_console
from trawl.errors import ConfigError, InputError
from trawl.store.collection import Collection
from trawl.textstats import DocText, TextStats, collection_documents, file_documents, text_stats
from trawl.textstats.counter import DEFAULT_MAX_TERMS
from trawl.urls import surt

__all__ = ["register", "run"]

HELP = "term statistics of a collection: top terms, Zipf and Heaps fits, hapax legomena, anomaly hints"

CSV_FIELDS = ["rank", "term", "frequency", "probability", "r_times_p", "df"]


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "stats",
        help=HELP,
        description=HELP[0].upper() + HELP[1:] + ". Counts tokens, vocabulary, term and document "
        "frequencies in bounded memory (exact; the vocabulary spills to disk past --max-terms), "
        "prints the top-N table (rank, frequency, P_r, r·P_r), fits Zipf's law (c, exponent, and "
        "the ranks where the curve bends) and Heaps' law (K, β), estimates result-set and "
        "collection sizes from term statistics (Croft §4.2.2) and flags markup leftovers, "
        "encoding damage and boilerplate. Text is tokenized by trawl.tokenize.",
    )
    p.add_argument("collection", nargs="?", type=Path, metavar="COLLECTION", help="a trawl collection")
    p.add_argument(
        "--files",
        nargs="+",
        metavar="PATH",
        help="count plain text files or directories of them instead of a collection",
    )
    p.add_argument("--pattern", default="*", metavar="GLOB", help="with --files: file names to read")
    p.add_argument("--prefix", default="", metavar="SURT", help="only records under this SURT prefix")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help="one JSON object: tokens, vocabulary, hapax, top [{rank, term, frequency, probability, "
        "r_times_p, df}], zipf, heaps, estimates, anomalies, curves…",
    )
    fmt.add_argument("--csv", action="store_true", help="the top-N table as CSV: " + ",".join(CSV_FIELDS))
    p.add_argument(
        "--top", type=bounded(int, 1), default=50, metavar="N", help="rows in the top table (default 50)"
    )
    p.add_argument(
        "--query",
        action="append",
        default=None,
        metavar="'TERM TERM…'",
        help="count a conjunctive query's result set beside its §4.2.2 estimate (repeatable); "
        "default: a few automatic pairs of content words",
    )
    p.add_argument(
        "--plot",
        type=Path,
        metavar="DIR",
        help="write zipf.png/.svg, heaps.png/.svg and plots.json (data for the web UI) to DIR",
    )
    p.add_argument(
        "--vocabulary",
        type=Path,
        metavar="FILE",
        help="write every term's frequency, document frequency and first position (TSV)",
    )
    p.add_argument(
        "--max-terms",
        type=bounded(int, 1),
        default=DEFAULT_MAX_TERMS,
        metavar="N",
        help=f"distinct terms held in memory before spilling to disk (default {DEFAULT_MAX_TERMS:,}; "
        "~400 bytes each)",
    )
    p.add_argument("--no-curves", action="store_true", help="leave the curve points out of --json")
    add_scale_options(
        p.add_argument_group("sharded count"),
        "count a collection as sharded tasks, N at a time, merged into the same report",
        "how many tasks: default two per worker",
    )
    p.set_defaults(func=run)


def _source(args: argparse.Namespace, skipped: Counter[str]) -> Callable[[], Iterable[DocText]]:
    if args.files:
        if args.collection is not None:
            raise ConfigError("give a COLLECTION or --files PATH…, not both")
        files = list(args.files)
        return lambda: file_documents(files, pattern=args.pattern, skipped=skipped)
    if args.collection is None:
        raise ConfigError("give a COLLECTION (made by trawl ingest) or --files PATH…")
    collection = Collection.open(args.collection)
    if "://" in args.prefix:  # a URL where a SURT prefix belongs: read it as the SURT it stands for
        key = surt(args.prefix)
        print(f"trawl: --prefix takes a SURT; reading {args.prefix!r} as {key!r}", file=sys.stderr)
        args.prefix = key
    return lambda: collection_documents(collection, args.prefix)


def _with_progress(
    source: Callable[[], Iterable[DocText]], console: Console
) -> Callable[[], Iterable[DocText]]:
    """The same documents, with a live count on the terminal (a large collection takes minutes)."""

    def documents() -> Iterator[DocText]:
        with console.status("counting terms…") as status:
            for i, doc in enumerate(source(), 1):
                if i % 500 == 0:
                    status.update(f"counting terms… {i:,} documents")
                yield doc

    return documents


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise ConfigError(f"--top {args.top}: must be at least 1")
    if args.max_terms < 1:
        raise ConfigError(f"--max-terms {args.max_terms}: must be at least 1")
    sharded = args.workers is not None or args.executor is not None
    if not sharded and (args.tasks is not None or args.ray_address):
        raise ConfigError("--tasks and --ray-address are for a sharded count: add --workers N")
    if sharded and args.files:
        raise ConfigError("--workers counts a collection's records; --files are counted by one process")
    skipped: Counter[str] = Counter()
    source = _source(args, skipped)
    console = err_console()
    if console.is_terminal and not (args.json or args.csv):
        source = _with_progress(source, console)
    vocab = args.vocabulary.open("w", encoding="utf-8") if args.vocabulary else None
    try:
        if sharded:
            stats = _sharded(args, vocab)
        else:
            stats = text_stats(
                source, queries=args.query, top=args.top, max_terms=args.max_terms, vocabulary_out=vocab
            )
    finally:
        if vocab is not None:
            vocab.close()
    stats.skipped.update(skipped)
    if not stats.documents:  # a run that could do nothing says so
        if args.files:
            left = (
                f" ({', '.join(f'{n} {why}' for why, n in sorted(skipped.items()))} skipped)"
                if skipped
                else ""
            )
            raise InputError(
                f"no text file under {', '.join(map(str, args.files))} "
                f"matches --pattern {args.pattern!r}{left}"
            )
        where = f" under the SURT prefix {args.prefix!r}" if args.prefix else ""
        raise InputError(f"no record{where} in {str(args.collection)!r}")
    plots: list[Path] = []
    if args.plot:
        from trawl.textstats.plot import write_plots  # noqa: PLC0415 - matplotlib is optional

        plots = write_plots(stats, args.plot)
    if args.json:
        out = stats.as_dict(curves=not args.no_curves)
        if plots:
            out["plots"] = [str(p) for p in plots]
        print(json.dumps(out, ensure_ascii=False))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in stats.top:
            writer.writerow(row.as_dict())
    else:
        _print_report(stats, plots)
    return 0


def _sharded(args: argparse.Namespace, vocab: IO[str] | None) -> TextStats:
    from trawl.jobs.executors import make_executor  # noqa: PLC0415 - only on this path
    from trawl.jobs.sharded_stats import sharded_stats  # noqa: PLC0415

    executor = make_executor(args.executor or "local", args.workers or 2, address=args.ray_address)
    with Collection.open(args.collection) as coll:
        stats, run = sharded_stats(
            coll,
            executor,
            prefix=args.prefix,
            queries=[(q,) for q in args.query] if args.query else None,
            top=args.top,
            max_terms=args.max_terms,
            vocabulary_out=vocab,
            tasks=args.tasks,
        )
    if not (args.json or args.csv):
        err_console().print(
            f"counted in {run['tasks']} tasks on {run['executor']} ({executor.workers} at a time), "
            f"{run['seconds']:.1f} s" + (f", {run['resumed']} done before" if run["resumed"] else "")
        )
    return stats


def _print_report(stats: TextStats, plots: list[Path]) -> None:
    con = out_console()
    summary = RichTable(title="Text statistics", show_header=False)
    summary.add_column("", style="bold")
    summary.add_column("", justify="right")
    rows: list[tuple[str, str]] = [
        (
            "documents",
            f"{stats.documents:,}" + (f" ({stats.empty_documents:,} empty)" if stats.empty_documents else ""),
        ),
        ("tokens", f"{stats.tokens:,}"),
        ("vocabulary", f"{stats.vocabulary:,}"),
        ("hapax legomena", f"{stats.hapax:,}"),
        ("hapax share", f"{stats.hapax_share:.1%} of terms, {stats.hapax_token_share:.2%} of tokens"),
        ("top two terms' share", f"{stats.top_two_share:.2%}"),
    ]
    if stats.zipf:
        z = stats.zipf
        rows.append(("Zipf P_r = c·r^-a", f"c {z.c:.4g}, a {z.exponent:.3f}, R² {z.r2:.4f}"))
        rows.append(("Zipf r·P_r (a = 1)", f"{z.c_classic:.3f}"))
        rows.append(("Zipf straight from/to rank", f"{z.head_bend:,} … {z.tail_bend:,}"))
    if stats.heaps:
        h = stats.heaps
        rows.append(("Heaps V = K·n^β", f"K {h.k:.3g}, β {h.beta:.3f}, R² {h.r2:.4f}"))
    if stats.memory.get("runs_spilled"):
        rows.append(("spilled to disk", f"{stats.memory['runs_spilled']} runs"))
    for key, value in sorted(stats.skipped.items()):
        rows.append((f"skipped ({key})", f"{value:,}"))
    for k, v in rows:
        summary.add_row(k, v)
    con.print(summary)

    top = RichTable(title=f"Top {len(stats.top)} terms")
    for col in ("rank", "term", "frequency", "P_r", "r·P_r", "df"):
        top.add_column(col, justify="left" if col == "term" else "right")
    for row in stats.top:
        top.add_row(
            str(row.rank),
            row.term,
            f"{row.frequency:,}",
            f"{row.probability:.4f}",
            f"{row.rank_times_probability:.3f}",
            f"{row.df:,}",
        )
    con.print(top)

    est = stats.estimates
    if est.get("result_sets"):
        t = RichTable(title=f"Result-set estimates, Croft §4.2.2 (N = {est['documents']:,} documents)")
        for col in ("query", "df", "estimated f_ab", "actual", "N estimated from f_a·f_b/f_ab"):
            t.add_column(col, justify="left" if col == "query" else "right")
        for r in est["result_sets"]:
            t.add_row(
                " AND ".join(r["terms"]),
                ", ".join(str(d) for d in r["df"]),
                f"{r['estimated']:,}",
                f"{r['actual']:,}",
                f"{r['collection_size_estimate']:,}" if "collection_size_estimate" in r else "—",
            )
        con.print(t)

    hints = stats.anomalies
    lines = [
        f"  {h['term']!r} (rank {h['rank']}, {h['frequency']:,} times): {h['reason']}"
        for h in hints["markup"]
    ]
    lines += [f"  {h['term']!r}: {h['reason']}" for h in hints["boilerplate"][:20]]
    enc = hints["encoding"]
    if enc["documents"]:
        seqs = ", ".join(repr(s["sequence"]) for s in enc["top_sequences"][:5])
        lines.append(f"  encoding damage in {enc['documents']:,} documents (seen: {seqs})")
    con.print("[bold]Anomaly hints[/bold]" + (":" if lines else ": none"))
    for line in lines:
        con.print(line, markup=False)
    if plots:
        err_console().print("plots: " + ", ".join(str(p) for p in plots))
