"""``trawl testweb``: serve the generated test web on loopback (for trying ``trawl crawl`` offline)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from trawl.cli.common import bounded, out_console, sentence
from trawl.testweb import ServerThread, TestWeb

HELP = "serve a deterministic generated web of many hosts on loopback, logging every request"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "testweb",
        help=HELP,
        description=sentence(HELP) + ": pages in nine languages and encodings, duplicates, "
        "robots.txt variants, sitemaps, feeds, redirects, traps, slow, failing and hostile hosts. "
        "Prints the --resolve options that let trawl crawl reach it.",
    )
    p.add_argument("--seed", type=int, default=0, help="the web's seed (0)")
    p.add_argument("--hosts", type=bounded(int, 1), default=100, help="ordinary hosts h0.test … (100)")
    p.add_argument("--pages", type=bounded(int, 2), default=20, help="pages per host (20)")
    p.add_argument("--plain", action="store_true", help="only ordinary hosts (no hostile ones)")
    p.add_argument(
        "--topics",
        type=bounded(int, 0, 8),
        default=0,
        help="ordinary hosts write English about one of N subjects (astronomy, cooking, football, "
        "gardening, finance, medicine, music, computing), linking mostly to their own (for focused "
        "crawls; 0: the nine-language sites)",
    )
    p.add_argument("--address", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=bounded(int, 0, 65535), default=0, help="port (0: any free one)")
    p.add_argument(
        "--prerender",
        action="store_true",
        help="render every article page before listening, so serving costs a lookup (benchmarks)",
    )
    p.add_argument("--log", type=Path, metavar="FILE", help="append every request to FILE as JSON lines")
    p.add_argument(
        "--duration",
        type=bounded(float, 0, above=True),
        metavar="SECONDS",
        help="stop after this long (default: until Ctrl-C)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    web = TestWeb(args.seed, hosts=args.hosts, pages=args.pages, special=not args.plain, topics=args.topics)
    if args.prerender:
        web.prerender()
    with ServerThread(web, args.address, args.port, args.log) as server:
        server.server.keep_log = False
        out = out_console()
        rules = " ".join(f"--resolve '{r}'" for r in server.resolve_rules())
        out.print(
            f"testweb listening on {args.address}:{server.port} ({len(web.host_names())} hosts)", markup=False
        )
        out.print(f"try: trawl crawl {web.seeds()[0]} -o testweb-crawl --delay 0 {rules}", markup=False)
        deadline = time.monotonic() + args.duration if args.duration else None
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        out.print(f"served {server.server.requests} requests")
    return 0
