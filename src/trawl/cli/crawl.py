"""``trawl crawl SEED… -o COLLECTION``: a polite, resumable crawl into a collection."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
from pathlib import Path
from typing import Any

from rich.live import Live
from rich.table import Table as RichTable

from trawl.cli.common import (
    add_config_options,
    add_scale_options,
    bounded,
    collection_dir,
    err_console,
    human_bytes,
    out_console,
    regex,
    removed_if_failed,
    sentence,
)
from trawl.config import Config, load_config
from trawl.crawl.crawler import TRANSPORTS, CrawlResult, CrawlSettings, Progress
from trawl.errors import ConfigError, InputError
from trawl.jobs.crawl import crawl, saved_settings
from trawl.store.collection import Collection
from trawl.store.disk import advice

HELP = "crawl the web from seed URLs into a collection (polite, robots.txt-obeying, resumable)"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "crawl",
        help=HELP,
        description=sentence(HELP) + ". One request in flight per host, delays from the "
        "response time and robots.txt Crawl-delay, Retry-After obeyed; every response is stored "
        "as WARC and in the table. Kill it at any time and continue with --resume.",
    )
    p.add_argument("seeds", nargs="*", metavar="SEED", help="start URLs (none needed with --resume)")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        type=collection_dir,
        metavar="COLLECTION",
        help="the collection directory",
    )
    limits = p.add_argument_group("limits")
    limits.add_argument(
        "--max-pages",
        type=bounded(int, 1),
        metavar="N",
        help="stop after N pages (over all runs of this crawl)",
    )
    limits.add_argument(
        "--max-depth", type=bounded(int, 0), metavar="N", help="links followed from a seed (0: seeds only)"
    )
    limits.add_argument(
        "--max-time", type=bounded(float, 0, above=True), metavar="SECONDS", help="stop after this long"
    )
    limits.add_argument(
        "--max-bytes",
        type=bounded(float, 0, above=True),
        metavar="BYTES",
        help="stop after this many body bytes",
    )
    limits.add_argument(
        "--max-pages-per-host", type=bounded(int, 1), metavar="N", help="trap budget per host (2000)"
    )
    limits.add_argument(
        "--max-body", type=bounded(float, 0, above=True), metavar="BYTES", help="body size cap (10 MiB)"
    )
    scope = p.add_argument_group("scope")
    scope.add_argument("--host", action="append", metavar="HOST", help="only these hosts (repeatable)")
    scope.add_argument(
        "--domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="only these domains and their subdomains",
    )
    scope.add_argument(
        "--include", action="append", type=regex, metavar="REGEX", help="only URLs matching one of these"
    )
    scope.add_argument(
        "--exclude", action="append", type=regex, metavar="REGEX", help="never URLs matching one of these"
    )
    pol = p.add_argument_group("politeness and fetching")
    pol.add_argument(
        "--concurrency", type=bounded(int, 1), metavar="N", help="requests in flight overall (64)"
    )
    pol.add_argument(
        "--delay",
        type=bounded(float, 0),
        metavar="SECONDS",
        help="minimum gap between two requests to a host (1.0)",
    )
    pol.add_argument(
        "--delay-factor",
        type=bounded(float, 0),
        metavar="K",
        help="gap at least K x the host's response time (2)",
    )
    pol.add_argument(
        "--max-crawl-delay",
        type=bounded(float, 0),
        metavar="SECONDS",
        help="cap on robots.txt Crawl-delay (10)",
    )
    pol.add_argument(
        "--timeout",
        type=bounded(float, 0, above=True),
        metavar="SECONDS",
        help="read timeout (15; connect 10, total 4x)",
    )
    pol.add_argument("--user-agent", metavar="UA", help="the User-Agent header (crawl.user_agent)")
    pol.add_argument(
        "--no-robots", action="store_true", help="do not fetch or obey robots.txt (only for your own sites)"
    )
    pol.add_argument("--no-sitemaps", action="store_true", help="do not read sitemaps listed in robots.txt")
    pol.add_argument(
        "--revisit", action="store_true", help="keep revisiting pages at intervals set by their change rate"
    )
    pol.add_argument(
        "--policy",
        choices=("adaptive", "uniform", "proportional", "optimal"),
        help="with --revisit: how revisits are spread (adaptive: by each page's change rate; the "
        "others under --budget)",
    )
    pol.add_argument(
        "--policy-metric",
        choices=("freshness", "age"),
        help="with --policy optimal: maximise freshness (gives up on pages changing faster than the "
        "budget can follow) or minimise expected age (does not)",
    )
    pol.add_argument(
        "--policy-weights",
        metavar="none|inlinks|sitemap|MODULE:FUNCTION",
        help="with --policy: importance of a page, from the in-links the crawl has seen, a "
        "sitemap's <priority>, or a Python function of its URL",
    )
    pol.add_argument(
        "--budget",
        type=_per_second,
        metavar="N[/s|/min|/h|/day]",
        help="with --policy uniform|proportional|optimal: revisits for the whole crawl, a second "
        "unless a unit is given (e.g. 10000/day)",
    )
    pol.add_argument(
        "--focus",
        action="extend",
        nargs="+",
        metavar="TERM",
        help="topic terms: judge every page against the topic and fetch the links likeliest to lead "
        "to it first (repeatable)",
    )
    pol.add_argument(
        "--focus-examples",
        metavar="DIR",
        help="a folder of example pages (HTML or text) of the topic, with or instead of --focus",
    )
    pol.add_argument(
        "--focus-threshold",
        type=bounded(float, 0.0, 1.0),
        metavar="X",
        help="with a topic: do not follow links scoring below X (0..1; counted as focus/pruned)",
    )
    pol.add_argument(
        "--render",
        choices=("auto", "never", "always"),
        help="pages only scripts show: render them in headless Chromium (auto: the pages and hosts "
        "that need it; needs Debian's chromium and pip install 'trawl[render]')",
    )
    pol.add_argument(
        "--allow-private",
        action="store_true",
        help="fetch from loopback, private and link-local addresses too (refused by default: a "
        "crawl is no door into this machine's network; --resolve rules are always allowed)",
    )
    pol.add_argument(
        "--private-sites",
        metavar="FILE",
        help="a TOML file of per-host headers, cookies and basic auth for private sites (never "
        "logged, withheld from the WARC request records)",
    )
    pol.add_argument(
        "--websub",
        action="store_true",
        help="subscribe to the feeds that name a WebSub hub and fetch what they push at once "
        "(callbacks on [crawl] websub_listen, reached at websub_public_url)",
    )
    pol.add_argument(
        "--resolve",
        action="append",
        default=[],
        metavar="NAME=ADDR[:PORT]",
        help="resolve NAME (wildcards allowed) to ADDR, e.g. '*.test=127.0.0.1:8080', or NAME=fail",
    )
    pol.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="http: trawl's own HTTP/1.1 client (default, ~5x less CPU a request); aiohttp",
    )
    pol.add_argument(
        "--store-workers",
        type=int,
        choices=(0, 1, 2),
        help="processes that convert and store pages beside the fetching loop: 2 (convert | store), "
        "1 (both in one), 0 (inside the loop)",
    )
    run_g = p.add_argument_group("runs")
    run_g.add_argument(
        "--shard", default="0/1", metavar="I/N", help="crawl only the hosts with hash(host) mod N = I"
    )
    add_scale_options(
        run_g,
        "crawl as N shards (processes, or Ray actors), hosts dealt by consistent hashing, URLs "
        "routed between them, each shard writing a partition of the collection",
        what="the shards",
    )
    run_g.add_argument(
        "--resume",
        action="store_true",
        help="continue the crawl held in the collection, with the settings it ran with (flags given "
        "now, and --set crawl.KEY=VALUE, override them)",
    )
    run_g.add_argument(
        "--fresh", action="store_true", help="discard an earlier crawl's frontier and start over"
    )
    p.add_argument("--no-progress", action="store_true", help="no live progress display")
    p.add_argument("--json", action="store_true", help="print the run's counters as one JSON object")
    add_config_options(p)
    p.set_defaults(func=run)


def _shard(value: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in value.split("/", 1))
    except ValueError as exc:
        raise ConfigError(f"--shard {value!r}: expected I/N, e.g. 0/4") from exc
    if not 0 <= i < n:
        raise ConfigError(f"--shard {value!r}: I must be in 0 … N-1")
    return i, n


_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0,
          "d": 86400.0, "day": 86400.0}  # fmt: skip


def _per_second(text: str) -> float:
    """``10000/day`` → revisits a second; a bare number is already a second's."""
    number, _, unit = text.partition("/")
    seconds = _UNITS.get(unit.strip().lower().rstrip("s") or "s", _UNITS.get(unit.strip().lower()))
    if seconds is None:
        raise argparse.ArgumentTypeError(f"{text!r}: the unit is one of /s, /min, /h, /day")
    value = bounded(float, 0, above=True)(number)
    return float(value) / seconds


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line names (flags left out change nothing)."""
    out: dict[str, Any] = {}
    simple = {
        "user_agent": "user_agent", "concurrency": "concurrency", "delay": "min_delay",
        "delay_factor": "delay_factor", "max_crawl_delay": "max_crawl_delay", "max_pages": "max_pages",
        "max_depth": "max_depth", "max_time": "max_seconds", "max_pages_per_host": "max_pages_per_host",
        "transport": "transport", "store_workers": "store_workers", "policy": "policy", "budget": "budget",
        "focus_threshold": "focus_threshold", "policy_metric": "policy_metric", "render": "render",
        "policy_weights": "policy_weights",
    }  # fmt: skip
    for flag, name in simple.items():
        value = getattr(args, flag, None)
        if value is not None:
            out[name] = value
    if args.max_bytes is not None:
        out["max_bytes"] = int(args.max_bytes)
    if args.max_body is not None:
        out["max_body_bytes"] = int(args.max_body)
    if args.timeout is not None:
        out["read_timeout"], out["total_timeout"] = args.timeout, 4 * args.timeout
    for flag, name in (("host", "hosts"), ("domain", "domains"), ("include", "include"),
                       ("exclude", "exclude"), ("focus", "focus"), ("resolve", "resolve")):  # fmt: skip
        if getattr(args, flag):
            out[name] = tuple(getattr(args, flag))
    if args.focus_examples is not None:
        out["focus_examples"] = str(Path(args.focus_examples).expanduser().resolve())
    if args.private_sites is not None:
        out["private_sites"] = str(Path(args.private_sites).expanduser().resolve())
    if args.no_robots:
        out["robots"] = False
    if args.allow_private:
        out["allow_private"] = True
    if args.no_sitemaps:
        out["sitemaps"] = False
    if args.revisit:
        out["revisit"] = True
    if args.websub:
        out["websub"] = True
    return out


def settings_from(
    args: argparse.Namespace, config: Config | None = None, saved: CrawlSettings | None = None
) -> CrawlSettings:
    """The crawl's settings: the configuration's ``[crawl]`` (defaults < file < environment <
    ``--set``), or on ``--resume`` the settings the crawl ran with, each with what the command
    line names on top."""
    shard, shards = _shard(args.shard)
    config = config or load_config()
    changes = _given(args)
    if saved is None:
        return CrawlSettings.from_config(config.crawl, shard=shard, shards=shards, **changes)
    # resumed: what this command line sets (flags, --set crawl.KEY, TRAWL_CRAWL_KEY) wins
    fresh = CrawlSettings.from_config(config.crawl)
    for key, origin in config.origins.items():
        section, name = key.split(".", 1)
        if section == "crawl" and (origin == "command line" or origin.startswith("$")):
            changes.setdefault(name, getattr(fresh, name))
    return dataclasses.replace(saved, shard=shard, shards=shards, **changes)


def _progress_table(p: Progress) -> RichTable:
    t = RichTable(show_header=False, box=None, padding=(0, 2))
    statuses = " ".join(f"{k}:{v}" for k, v in sorted(p.statuses.items()))
    t.add_row(
        f"[bold]crawl[/] {p.pages:,} pages",
        f"{p.pages_per_second:,.0f} pages/s",
        f"frontier {p.queued:,}",
        f"hosts active {p.hosts_active} waiting {p.hosts_waiting}",
        statuses,
        human_bytes(p.bytes),
        f"{p.seconds:,.0f} s",
        *([f"harvest {100 * p.harvest:.0f} %"] if p.harvest is not None else []),
    )
    return t


def summary_table(result: CrawlResult) -> RichTable:
    stats = result.stats
    t = RichTable(title=f"crawl run {result.run} ({result.stopped})", header_style="bold")
    t.add_column("counter")
    t.add_column("value", justify="right")
    rate = result.pages / result.seconds if result.seconds > 0 else 0.0
    t.add_row("pages fetched", f"[green]{result.pages:,}[/]")
    t.add_row("requests", f"{stats.get('fetch/requests'):,}")
    t.add_row("time", f"{result.seconds:.1f} s ({rate:,.1f} pages/s)")
    t.add_row("bytes", human_bytes(stats.get("fetch/bytes")))
    t.add_row("frontier", " ".join(f"{k} {v:,}" for k, v in result.frontier.items()))
    for prefix in ("fetch/status-class/", "fetch/error/", "fetch/backoff/", "robots/", "drop/", "error/"):
        for key, value in stats.prefix(prefix).items():
            colour = (
                "red"
                if key.startswith(("error/", "fetch/error/"))
                else "yellow"
                if key.startswith("drop/")
                else ""
            )
            t.add_row(f"[{colour}]{key}[/]" if colour else key, f"{value:,}")
    for key in ("fetch/truncated", "fetch/not-modified", "fetch/retry", "discover/new", "store/records"):
        if stats.get(key):
            t.add_row(key, f"{stats.get(key):,}")
    if stats.get("focus/pages"):  # a focused crawl: its harvest rate and what it pruned
        judged, relevant = stats.get("focus/pages"), stats.get("focus/relevant")
        t.add_row(
            "focus: harvest rate", f"{100 * relevant / judged:.1f} % ({relevant:,} of {judged:,} pages)"
        )
        if stats.get("focus/pruned"):
            t.add_row("focus/pruned", f"{stats.get('focus/pruned'):,}")
    top = sorted(result.per_host.items(), key=lambda kv: -kv[1].get("pages", 0))[:5]
    for host, c in top:
        t.add_row(f"host {host}", f"{c.get('pages', 0):,} pages, {c.get('errors', 0)} errors")
    return t


def run(args: argparse.Namespace) -> int:
    with removed_if_failed(args.output):
        return _run(args)


def _json_summary(args: argparse.Namespace, result: Any, extra: dict[str, Any]) -> dict[str, Any]:
    """``--json``'s one object: the run, where, pages, seconds, why it stopped, what the kind of
    crawl adds (``extra``), the failure if any, and the counters."""
    return {
        "run": result.run,
        "collection": str(args.output),
        "pages": result.pages,
        "seconds": round(result.seconds, 3),
        "stopped": result.stopped,
        **extra,
        **({"failure": result.failure} if result.failure else {}),
        **result.stats.to_dict(),
    }


def _run_cluster(args: argparse.Namespace) -> int:
    """``--workers N``: the crawl in shards (:mod:`trawl.jobs.crawl_cluster`)."""
    from trawl.cli.ingest import stopped_by_signals  # noqa: PLC0415 - only here
    from trawl.jobs.crawl_cluster import crawl_cluster, partition_name  # noqa: PLC0415 - only here

    workers = args.workers or 2
    if workers < 2:
        raise ConfigError("--executor and --ray-address are for a crawl in shards: add --workers 2 or more")
    if args.shard != "0/1":
        raise ConfigError("--shard I/N and --workers N are two ways to split a crawl: give one")
    if args.ray_address and args.executor != "ray":
        raise ConfigError("--ray-address is for --executor ray")
    collection = Collection.create(args.output, config_file=args.config, overrides=args.overrides)
    saved = None
    if args.resume:
        first = collection.path / "partitions" / partition_name(0, workers)
        if not Collection.is_collection(first):
            raise ConfigError(
                f"nothing to resume with --workers {workers}: {str(first)!r} does not exist "
                "(resume with the --workers the crawl ran with)"
            )
        with Collection.open(first) as part:
            saved = saved_settings(part, 0, workers)
    settings = dataclasses.replace(settings_from(args, collection.config, saved), shard=0, shards=1)
    show = not args.no_progress and not args.json
    console = err_console()
    stop = threading.Event()
    with (
        collection,
        Live(console=console, transient=True, auto_refresh=False) as live,
        stopped_by_signals(stop),
    ):

        def tick(p: dict[str, Any]) -> None:
            if show:
                shards = " ".join(f"{s['pages']:,}" + (" idle" if s["idle"] else "") for s in p["shards"])
                live.update(
                    f"[bold]crawl[/] {p['pages']:,} pages, frontier {p['queued']:,}, shards: {shards}"
                )
                live.refresh()

        result = crawl_cluster(
            args.seeds,
            collection,
            settings,
            workers,
            executor=args.executor or "local",
            address=args.ray_address,
            resume=args.resume,
            fresh=args.fresh,
            on_progress=tick,
            stop=stop,
        )
    if args.json:
        shards = {"workers": workers, "executor": args.executor or "local", "shards": result.shards}
        print(json.dumps(_json_summary(args, result, shards)))
    else:
        out = out_console()
        out.print(
            f"crawl run {result.run} ({result.stopped}): {result.pages:,} pages in {result.seconds:.1f} s "
            f"by {workers} shards on {args.executor or 'local'}"
        )
        for sh in result.shards:
            error = f" {sh['error']}" if sh["error"] else ""
            out.print(f"  shard {sh['shard']}: {sh['pages']:,} pages ({sh['stopped']}){error}")
        out.print(f"collection: {args.output}   next: trawl show {args.output}")
    if result.failure:
        print(
            f"trawl crawl: {result.failure}; run the same command with --resume to continue", file=sys.stderr
        )
        return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    if any(seed.lower().startswith("file:") for seed in args.seeds):
        from trawl.cli.ingest import run_file_urls  # noqa: PLC0415 - a folder is a desktop ingest

        return run_file_urls(args)
    _shard(args.shard)
    if not args.seeds and not args.resume:
        raise ConfigError("give at least one SEED URL, or --resume to continue a crawl")
    if (args.workers or 1) > 1 or args.executor or args.ray_address:
        return _run_cluster(args)
    collection = Collection.create(args.output, config_file=args.config, overrides=args.overrides)
    shard, shards = _shard(args.shard)
    saved = saved_settings(collection, shard, shards) if args.resume else None
    settings = settings_from(args, collection.config, saved)
    show = not args.no_progress and not args.json
    console = err_console()
    with collection, Live(console=console, transient=True, auto_refresh=False) as live:

        def tick(p: Progress) -> None:
            if show:
                live.update(_progress_table(p), refresh=True)

        result = crawl(
            args.seeds, collection, settings, resume=args.resume, fresh=args.fresh, on_progress=tick
        )
    for seed, why in result.refused_seeds:
        print(f"trawl: seed {seed!r} refused: {why}", file=sys.stderr)
    if args.seeds and len(result.refused_seeds) == len(args.seeds) and not result.pages and not args.resume:
        raise InputError(f"nothing to crawl: every seed was refused ({len(args.seeds)})")
    if args.json:
        refused = [{"seed": seed, "why": why} for seed, why in result.refused_seeds]
        print(
            json.dumps(_json_summary(args, result, {"frontier": result.frontier, "refused_seeds": refused}))
        )
    else:
        out = out_console()
        out.print(summary_table(result))
        out.print(f"collection: {args.output}   next: trawl show {args.output}")
    if result.fault is not None:  # a full or failing disk: one line, what to do, --resume
        print(
            f"trawl crawl: {result.fault}; stopped after {result.pages:,} pages; "
            f"{advice(result.fault, 'run again with --resume')}",
            file=sys.stderr,
        )
        return 1
    if result.stopped == "store-failed":
        print(
            f"trawl: the crawl stopped: {result.failure or 'the collection could not be written'}; "
            "nothing fetched and not stored was marked done: trawl crawl --resume continues it",
            file=sys.stderr,
        )
        return 1
    return 0
