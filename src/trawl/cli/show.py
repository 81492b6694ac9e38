"""``trawl show COLLECTION``: what a collection holds — counts, sizes, counters."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table as RichTable

from trawl.cli.common import human_bytes, out_console, sentence
from trawl.store.collection import Collection

HELP = "summarise a collection: documents, hosts, types, sizes and the counters of every run"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("show", help=HELP, description=sentence(HELP) + ".")
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with Collection.open(args.collection) as collection:
        info = collection.info()
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    out = out_console()
    t = RichTable(title=f"collection {info['path']}", header_style="bold")
    t.add_column("")
    t.add_column("", justify="right")
    t.add_row("URLs", f"{info['urls']:,}")
    t.add_row("captures (every version of every URL)", f"{info['captures']:,}")
    t.add_row("hosts", f"{info['hosts']:,}")
    t.add_row("WARC files", f"{info['warc_files']} ({human_bytes(info['warc_bytes'])})")
    t.add_row("table", human_bytes(info["table_bytes"]))
    t.add_row("runs (ingest and crawl)", str(info["runs"]))
    if info["partitions"]:  # a distributed crawl's shards: counted above, each listed here
        t.add_row("partitions", ", ".join(p["name"] for p in info["partitions"]))
    out.print(t)
    if info["types"]:
        types = RichTable(title="formats (sniffed)", header_style="bold")
        types.add_column("type")
        types.add_column("URLs", justify="right")
        for name, n in info["types"].items():
            types.add_row(name, f"{n:,}")
        out.print(types)
    if info["top_hosts"]:
        hosts = RichTable(title="top hosts", header_style="bold")
        hosts.add_column("host (SURT)")
        hosts.add_column("URLs", justify="right")
        for name, n in info["top_hosts"]:
            hosts.add_row(name, f"{n:,}")
        out.print(hosts)
    counters = RichTable(title="counters (all runs)", header_style="bold")
    counters.add_column("counter")
    counters.add_column("value", justify="right")
    for key, value in info["counters"].items():
        style = "red" if key.startswith("error/") else "yellow" if key.startswith("drop/") else ""
        counters.add_row(f"[{style}]{key}[/]" if style else key, f"{value:,}")
    out.print(counters)
    return 0
