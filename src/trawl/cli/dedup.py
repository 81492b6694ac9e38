"""``trawl dedup COLLECTION`` (discovery) and ``trawl dedup near COLLECTION URL|--text`` (search).

Both shapes share one argparse sub-parser: argparse cannot have a sub-command and a free
positional in the same place, so the first positional decides — ``near`` means search, anything
else is the collection. A collection directory literally called ``near`` is written ``./near``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, cast

from trawl.cli.common import add_config_options, add_scale_options, bounded, out_console
from trawl.config import DedupConfig, load_config
from trawl.dedup.engine import METHODS, DedupOptions
from trawl.errors import ConfigError
from trawl.jobs.dedup import DiscoveryResult, discover_collection, near_in_collection, pair_row
from trawl.store.collection import Collection

HELP = "find exact and near-duplicate documents in a collection (discovery), or one document's (search)"

USAGE = """trawl dedup COLLECTION [--json] [--method M]... [--threshold J] [--workers N] [options]
       trawl dedup near COLLECTION (URL | --text TEXT) [--json] [--method M]... [options]"""


SEARCH_USAGE = "trawl dedup near COLLECTION (URL | --text TEXT) [--json] [--method M]... [options]"
SEARCH = (
    "Search: the near duplicates of one stored document (by URL) or of a text (--text), with "
    "their similarity, most similar first, from the search index stored in COLLECTION/index/dedup "
    "(built on first use, rebuilt when the collection or the options changed). --method, "
    "--threshold, --shingle, --simhash-k and --modp-p are those of discovery; --limit caps the "
    "answers. Exact duplicates (the same normalised text) come with similarity 1.0."
)


class _Help(argparse.Action):
    """``-h``: the help of the form asked about, ``trawl dedup near --help`` the search's."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *_: Any) -> None:
        if getattr(namespace, "collection", None) == "near":
            parser.usage, parser.description = SEARCH_USAGE, SEARCH
        parser.print_help()
        parser.exit()


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "dedup",
        help=HELP,
        usage=USAGE,
        add_help=False,
        description="Discovery (trawl dedup COLLECTION): every near-duplicate pair and cluster, each "
        "cluster with its representative (the fullest copy); stored in the table's dup family and in "
        "COLLECTION/index/dedup/report.json. Search (trawl dedup near COLLECTION URL, or --text): the "
        "near duplicates of one document, with their similarity. Exact duplicates (same normalised "
        "text) are always reported, with similarity 1.0. Methods: minhash (LSH candidates verified "
        "by exact shingle Jaccard; the default), simhash (64-bit, Hamming ≤ k via Manku's permuted "
        "tables), winnow (winnowed n-gram fingerprints, inverted index), modp (the n-gram hashes "
        "≡ 0 mod p as fingerprints, same index).",
    )
    p.add_argument("-h", "--help", action=_Help, nargs=0, help="show this help message and exit")
    p.add_argument("collection", metavar="COLLECTION", help="the collection (or the word 'near', see usage)")
    p.add_argument("rest", nargs="*", metavar="URL", help=argparse.SUPPRESS)
    p.add_argument("--text", metavar="TEXT", help="search: find the near duplicates of this text")
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per pair and nothing else: a, b (URLs), similarity, method",
    )
    p.add_argument(
        "--method",
        action="append",
        choices=[m for m in METHODS if m != "exact"] + ["all"],
        help="near-duplicate method (repeatable; default minhash)",
    )
    p.add_argument(
        "--threshold",
        type=bounded(float, 0, 1, above=True),
        help="Jaccard threshold (default 0.8, dedup.threshold)",
    )
    p.add_argument(
        "--shingle", type=bounded(int, 1), metavar="N", help="words per shingle (default 5, dedup.shingle)"
    )
    p.add_argument(
        "--simhash-k", type=bounded(int, 0, 63), default=None, metavar="K", help="simhash Hamming radius"
    )
    p.add_argument(
        "--modp-p",
        type=bounded(int, 1),
        default=None,
        metavar="P",
        help="modp: keep the n-gram hashes ≡ 0 mod P (default 4)",
    )
    p.add_argument("--limit", type=bounded(int, 1), help="search: at most this many results (default 100)")
    p.add_argument("--no-store", action="store_true", help="discovery: do not write dup cells or the report")
    add_scale_options(
        p.add_argument_group("sharded discovery (several processes or machines; minhash only)"),
        "discovery as map and reduce tasks, N at a time (band records shuffled by band and bucket): "
        "the same pairs and clusters, stored the same way; run the same command again after a failure",
        "T map and T reduce tasks (default 2 per worker)",
    )
    add_config_options(p)
    p.set_defaults(func=run)


def options_from(args: argparse.Namespace, config: DedupConfig | None = None) -> DedupOptions:
    """The options ``[dedup]`` gives (defaults < config file < environment < ``--set``), with the
    flags given on top."""
    cfg = config or load_config().dedup
    chosen = args.method or list(cfg.methods) or ["minhash"]
    if "all" in chosen:
        chosen = [m for m in METHODS if m != "exact"]
    unknown = [m for m in chosen if m not in METHODS]
    if unknown:
        raise ConfigError(
            f"dedup.methods: unknown method(s) {unknown}; choose from {', '.join(METHODS)} or all"
        )
    threshold = cfg.threshold if args.threshold is None else args.threshold
    shingle = cfg.shingle if args.shingle is None else args.shingle
    if not 0.0 < threshold < 1.0:
        raise ConfigError(f"--threshold must be between 0 and 1 (exclusive), got {threshold}")
    if shingle < 1:
        raise ConfigError(f"--shingle must be at least 1, got {shingle}")
    modp_p = cfg.modp_p if args.modp_p is None else args.modp_p
    if modp_p < 1:
        raise ConfigError(f"--modp-p must be at least 1, got {modp_p}")
    methods = tuple(dict.fromkeys(["exact", *chosen]))
    return DedupOptions(
        shingle=shingle,
        threshold=threshold,
        num_perm=cfg.num_perm,
        bands=cfg.bands,
        rows=cfg.rows,
        simhash_k=cfg.simhash_k if args.simhash_k is None else args.simhash_k,
        simhash_weighting=cast(Any, cfg.simhash_weighting),
        simhash_features=cast(Any, cfg.simhash_features),
        winnow_window=cfg.winnow_window,
        modp_p=modp_p,
        max_run=cfg.max_run,
        max_df=cfg.max_df,
        seed=cfg.seed,
        methods=cast(Any, methods),
    )


def run(args: argparse.Namespace) -> int:
    if args.collection == "near":
        return _near(args)
    if args.rest:
        print(
            f"trawl dedup: error: unexpected argument(s) {args.rest}; did you mean 'trawl dedup near'?",
            file=sys.stderr,
        )
        return 2
    if args.text is not None:
        print(
            "trawl dedup: error: --text needs the search form: trawl dedup near COLLECTION --text TEXT",
            file=sys.stderr,
        )
        return 2
    sharded = args.workers is not None or args.executor is not None
    if not sharded and (args.tasks is not None or args.ray_address):
        raise ConfigError("--tasks and --ray-address are for a sharded discovery: add --workers N")
    with Collection.open(Path(args.collection), overrides=args.overrides) as coll:
        options = options_from(args, coll.config.dedup)
        if sharded:
            result = _sharded(args, coll, options)
        else:
            result = discover_collection(coll, options, store=not args.no_store)
    finder = result.finder
    if args.json:
        for pair in result.pairs:
            print(json.dumps(pair_row(finder, pair), ensure_ascii=False))
        return 0
    out = out_console()
    c = result.report["counters"]
    out.print(
        f"{len(finder)} documents, {c.get('dedup/pairs/exact', 0)} exact-duplicate pairs, "
        f"{len(result.pairs) - c.get('dedup/pairs/exact', 0)} near-duplicate pairs, "
        f"{len(result.clusters)} clusters ({result.seconds:.1f} s)"
    )
    for cl in result.clusters[:50]:
        out.print(f"[bold]{finder.names[cl.representative]}[/]  ({cl.size} documents)")
        for m in cl.members[1:]:
            out.print(f"    {finder.names[m]}")
    if len(result.clusters) > 50:
        out.print(f"… {len(result.clusters) - 50} more clusters in the report")
    if result.report_path is not None:
        out.print(f"report: {result.report_path}")
    return 0


def _sharded(args: argparse.Namespace, coll: Collection, options: DedupOptions) -> DiscoveryResult:
    from trawl.jobs.executors import make_executor  # noqa: PLC0415 - only on this path
    from trawl.jobs.sharded_dedup import sharded_discover  # noqa: PLC0415 - same

    executor = make_executor(args.executor or "local", args.workers or 2, address=args.ray_address)
    run = sharded_discover(coll, options, executor, tasks=args.tasks, store=not args.no_store)
    if not args.json:  # stderr: stdout is what one process prints
        print(
            f"trawl dedup: {run.maps} map and {run.reducers} reduce tasks on {run.executor} "
            f"({executor.workers} at a time)" + (f", {run.resumed} done before" if run.resumed else ""),
            file=sys.stderr,
        )
    return run.result


def _near(args: argparse.Namespace) -> int:
    rest = list(args.rest)
    if not rest:
        print("trawl dedup: error: usage: trawl dedup near COLLECTION (URL | --text TEXT)", file=sys.stderr)
        return 2
    collection, targets = rest[0], rest[1:]
    if args.workers is not None or args.executor is not None or args.tasks is not None or args.ray_address:
        print("trawl dedup: error: --workers, --tasks and --executor are for discovery", file=sys.stderr)
        return 2
    if (args.text is None) == (len(targets) != 1):
        print("trawl dedup: error: give one URL or --text TEXT (not both)", file=sys.stderr)
        return 2
    with Collection.open(Path(collection), overrides=args.overrides) as coll:
        options = options_from(args, coll.config.dedup)
        limit = coll.config.dedup.limit if args.limit is None else args.limit
        result = near_in_collection(
            coll, options, url=targets[0] if targets else None, text=args.text, limit=limit
        )
    finder, pairs, name = result.finder, result.pairs, result.name
    if result.index != "loaded":  # stderr: --json output stays pairs only
        print(f"trawl dedup: search index {result.index}", file=sys.stderr)
    for pair in pairs:
        row = pair_row(finder, pair)
        row["a"] = name
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        else:
            print(f"{row['similarity']:.4f}\t{row['method']}\t{row['b']}")
    if not pairs and not args.json:
        print(f"no near duplicates of {name}", file=sys.stderr)
    return 0
