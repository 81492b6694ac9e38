"""``trawl get COLLECTION URL``: one document by URL, URL hash or DOCNO, by random access."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trawl.cli.common import out_console
from trawl.store.collection import Collection

HELP = "print one stored document (by URL, URL hash or DOCNO)"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "get",
        help=HELP,
        description=HELP.capitalize() + ". The raw capture is read from its WARC file with one "
        "seek and one read: exactly one record is decompressed.",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument(
        "key", metavar="URL", help="a URL (any spelling with the same SURT key), a URL hash or a DOCNO"
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--raw", action="store_true", help="the captured payload bytes, exactly as ingested")
    mode.add_argument("--text", action="store_true", help="the extracted text (title, blank line, text)")
    mode.add_argument("--json", action="store_true", help="everything stored about it, as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with Collection.open(args.collection) as collection:
        record = collection.find(args.key)
        if args.raw:
            doc = collection.read(record)
            sys.stdout.buffer.write(doc.raw)
            sys.stdout.buffer.flush()
            return 0
        if args.text:
            if record.title:
                print(record.title)
                print()
            print(record.text)
            return 0
        data = record.as_dict()
        if args.json:
            print(json.dumps(data, ensure_ascii=False))
            return 0
        out = out_console()
        out.print(f"[bold]{data['title'] or '(no title)'}[/]")
        out.print(f"url        {data['url']}")
        out.print(f"surt       {data['surt']}")
        out.print(f"fetched    {data['fetched_at']}   status {data['status']}   type {data['record_type']}")
        out.print(f"warc       {data['warc']}")
        out.print(
            f"format     declared {data['declared_type']}   sniffed {data['sniffed_type']}"
            + ("   [yellow](disagree)[/]" if data["type_mismatch"] else "")
        )
        out.print(
            f"encoding   {data['encoding']} (from {data['encoding_source']}, {data['decode_errors']} errors)"
        )
        out.print(f"links      {len(data['links'])}")
        for err in data["errors"]:
            out.print(f"[red]error[/]      {err}")
        out.print()
        text = data["text"]
        out.print(text[:2000] + ("…" if len(text) > 2000 else ""), markup=False)
    return 0
