"""``trawl demo``: generate an offline sample set, ingest it, and show where to look next."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from trawl.cli.common import out_console, sentence
from trawl.cli.ingest import summary_table
from trawl.demo import describe, generate_sample
from trawl.errors import MissingDependency
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection

HELP = "build a demo collection from a generated multi-format, multi-language sample (offline)"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help=HELP,
        description=sentence(HELP) + ": WARC, TREC Web and a desktop folder in several "
        "languages and encodings, plus deliberately broken files whose bad records are dropped "
        "and counted.",
    )
    p.add_argument(
        "--dir",
        type=Path,
        default=Path("trawl-demo"),
        metavar="DIR",
        help="where to write the sample and the collection (default: ./trawl-demo; "
        "replaced if it holds an earlier demo)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    base: Path = args.dir
    marker = base / ".trawl-demo"
    if base.exists():
        if not marker.exists():
            print(
                f"trawl: error: {base} exists and was not made by trawl demo, so it is left alone; "
                "give another folder with --dir DIR",
                file=sys.stderr,
            )
            return 1
        shutil.rmtree(base)
    base.mkdir(parents=True)
    marker.write_text("made by trawl demo\n", encoding="utf-8")
    out = out_console()
    sample = generate_sample(base / "sample")
    out.print(describe(sample))
    coll_path = base / "collection"
    with Collection.create(coll_path) as collection:
        result = ingest(sample.inputs, collection)
        out.print(summary_table(result))
        first = next(collection.records(), None)
    stored = result.stats.get("store/records")
    expected = sample.expected.documents
    status = "[green]as expected[/]" if stored == expected else f"[red]expected {expected}[/]"
    out.print(
        f"stored {stored} documents ({status}); "
        f"{sum(result.stats.prefix('drop/').values())} bad records dropped with reasons in "
        f"{result.drops_file}"
    )
    crawl_path = base / "crawl"
    try:
        from trawl.cli.crawl import summary_table as crawl_table  # noqa: PLC0415 - optional extra
        from trawl.jobs.crawl import crawl_testweb  # noqa: PLC0415

        crawled = crawl_testweb(crawl_path)
    except MissingDependency as exc:
        out.print(f"(the crawl part of the demo is skipped: {exc})")
    else:
        out.print(
            f"\ncrawled {crawled.pages} pages of a generated web of 8 hosts served on loopback "
            f"(trawl testweb) into {crawl_path}:"
        )
        out.print(crawl_table(crawled))
    out.print("\nnext:")
    out.print(f"  trawl show {coll_path}")
    if crawl_path.exists():
        out.print(f"  trawl show {crawl_path}")
        out.print(f"  trawl get {crawl_path} 'http://h0.test/' --text")
    if first is not None:
        out.print(f"  trawl get {coll_path} '{first.url}' --text")
        out.print(f"  trawl get {coll_path} '{first.url}' --json")
        out.print(f"  trawl get {coll_path} '{first.url}' --raw")
    return 0 if stored == expected else 1
