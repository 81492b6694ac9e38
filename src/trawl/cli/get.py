"""``trawl get COLLECTION URL``: one document by URL, URL hash, DOCNO or WARC ``FILE@OFFSET``.

Random access: one seek, one read and one decompressed record (plus, for a zstd record, its site's
reference record, which the collection caches).

``--anchor`` turns the argument into words and lists the pages others link to with those words.
``--children`` lists a document's units (an mbox's messages, a message's attachments) and
``--parent`` moves to the document a unit was cut from (then printed as asked).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trawl.cli.common import out_console, sentence
from trawl.errors import ConfigError, RecordNotFound
from trawl.store.collection import Collection

__all__ = ["HELP", "register", "run"]

HELP = "print one stored document (by URL, URL hash, DOCNO or WARC FILE@OFFSET)"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "get",
        help=HELP,
        description=sentence(HELP) + ". The raw capture is read from its WARC file with one "
        "seek and one read: exactly one record is decompressed (in a collection written with "
        "warc.codec=zstd, also its site's reference record, unless it is cached).",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument(
        "key",
        metavar="URL",
        help="a URL (any spelling with the same SURT key), a URL hash, a DOCNO, or FILE@OFFSET of a "
        "record in the collection's WARC files; with --anchor: words of anchor text",
    )
    p.add_argument(
        "--as-of",
        metavar="TIME",
        help="the capture that was newest at this ISO time (e.g. 2024-05-01T12:00:00Z); older "
        "captures are kept as versions",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--raw", action="store_true", help="the captured payload bytes, exactly as ingested")
    mode.add_argument("--text", action="store_true", help="the extracted text (title, blank line, text)")
    mode.add_argument("--json", action="store_true", help="everything stored about it, as one JSON object")
    p.add_argument(
        "--versions",
        action="store_true",
        help="every kept capture of the URL, oldest first: time, status, revisit or not, WARC "
        "FILE@OFFSET, payload digest, title (with --json: one JSON object each, as --json prints one)",
    )
    p.add_argument(
        "--children",
        action="store_true",
        help="the document's units (an mbox's messages, a message's attachments), in order: position, "
        "kind, URL, title (with --json: one --json object each)",
    )
    p.add_argument(
        "--parent",
        action="store_true",
        help="the document this unit was cut from (its message, its mbox), printed as asked "
        "(with --json, --text, --raw, --versions or --children)",
    )
    mode.add_argument(
        "--anchor",
        action="store_true",
        help="find pages by the words other pages' links use for them (anchor text), most-linked first",
    )
    p.set_defaults(func=run)


def _as_of(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(f"--as-of {value!r} is not an ISO time such as 2024-05-01T12:00:00Z") from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _by_anchor(collection: Collection, words: str) -> int:
    out = out_console()
    found = collection.find_by_anchor(words)
    if not found:
        out.print(f"no page is linked to with the words {words!r}")
        return 1
    for record, votes in found:
        url = record.url or record.row
        crawled = "" if record.capture else "   [dim](not crawled)[/]"
        out.print(f"{votes:5d}  {url}{crawled}", highlight=False)
        for source, text in sorted(record.anchors.items())[:3]:
            out.print(f"       [dim]{source}:[/] {text}", highlight=False)
    return 0


def _versions(collection: Collection, key: str, as_json: bool) -> int:
    records = collection.versions(key)
    if as_json:
        for record in records:
            print(json.dumps(record.as_dict(), ensure_ascii=False))
        return 0
    out = out_console()
    out.print(f"[bold]{records[-1].url}[/]: {len(records)} captures, oldest first", highlight=False)
    for record in records:
        capture = record.capture
        pointer = capture.get("pointer") or {}
        kind = "revisit (unchanged)" if record.revisit_of else str(capture.get("record_type") or "")
        if record.deleted:
            moved = record.deleted.get("moved_to")
            kind = (
                f"moved to {moved}"
                if moved
                else "excluded (left out by the ingest's filters)"
                if record.deleted.get("reason") == "excluded"
                else "deleted (the file is gone)"
            )
        status = capture.get("status")
        out.print(
            f"{capture.get('fetched_at') or 'unknown'}  {'' if status is None else status}  {kind}  "
            f"{pointer.get('file')}@{pointer.get('offset') if pointer else '-'}  "
            f"{str(capture.get('payload_digest') or '')[:18]}  "
            f"{record.title or '(no title)'}",
            highlight=False,
            markup=False,
        )
    return 0


def _children(collection: Collection, key: str, as_json: bool) -> int:
    parent = collection.find(key)
    records = collection.children(key)
    if as_json:
        for record in records:
            print(json.dumps(record.as_dict(), ensure_ascii=False))
        return 0
    out = out_console()
    out.print(f"[bold]{parent.url}[/]: {len(records)} units", highlight=False)
    for record in records:
        unit = record.unit or {}
        out.print(
            f"{unit.get('position', '?'):>5}  {unit.get('kind', '?'):<10}  {record.url}  "
            f"{record.title or '(no title)'}",
            highlight=False,
            markup=False,
        )
    return 0


def run(args: argparse.Namespace) -> int:
    with Collection.open(args.collection) as collection:
        if args.anchor:
            if args.children or args.parent:
                raise ConfigError("--anchor finds pages by words; it takes neither --children nor --parent")
            return _by_anchor(collection, args.key)
        if args.parent:
            args.key = collection.parent(args.key).url
        if args.children:
            if args.raw or args.text or args.as_of or args.versions:
                raise ConfigError("--children lists a document's units; give it alone, or with --json")
            return _children(collection, args.key, args.json)
        if args.versions:
            if args.raw or args.text or args.anchor or args.as_of:
                raise ConfigError("--versions lists every capture; give it alone, or with --json")
            return _versions(collection, args.key, args.json)
        record = collection.find(args.key, as_of=_as_of(args.as_of))
        gone = record.deleted
        if gone is not None and (args.raw or args.text):
            where = (
                f"moved to {gone['moved_to']}"
                if gone.get("moved_to")
                else "left out by the ingest's filters"
                if gone.get("reason") == "excluded"
                else "deleted"
            )
            before = (gone.get("previous") or {}).get("fetched_at")
            raise RecordNotFound(
                f"{record.url} was {where} at {gone.get('at')}; its last content is the capture of "
                f"{before}: trawl get {args.collection} {args.key} --as-of {before}"
            )
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
        if gone is not None:
            moved = gone.get("moved_to")
            excluded = gone.get("reason") == "excluded"
            state = "moved" if moved else "excluded" if excluded else "deleted"
            out.print(f"[bold]{data['url']}[/]: {state}", highlight=False)
            why = "is left out by the ingest's filters" if excluded else "is gone"
            out.print(
                f"{state:<10} at {gone.get('at')}   (the file {gone.get('path')!r} {why})", markup=False
            )
            if moved:
                out.print(f"moved to   {moved}", highlight=False, markup=False)
            previous = gone.get("previous") or {}
            out.print(
                f"last kept  capture of {previous.get('fetched_at')}: trawl get {args.collection} "
                f"{args.key} --as-of {previous.get('fetched_at')}   (every capture: --versions)",
                highlight=False,
                markup=False,
            )
            return 0
        out.print(f"[bold]{data['title'] or '(no title)'}[/]")
        out.print(f"url        {data['url']}")
        out.print(f"surt       {data['surt']}")
        status = (
            f"   status {data['status']}" if data["status"] is not None else "   (no HTTP status: a file)"
        )
        out.print(f"fetched    {data['fetched_at'] or 'unknown'}{status}   type {data['record_type']}")
        warc = data["warc"] or {}
        out.print(
            f"warc       {warc.get('file')}@{warc.get('offset')} ({warc.get('length')} bytes)",
            highlight=False,
        )
        out.print(
            f"format     declared {data['declared_type'] or 'nothing'}"
            f"   sniffed {data['sniffed_type'] or 'nothing'}"
            + ("   [yellow](disagree)[/]" if data["type_mismatch"] else "")
        )
        if data["encoding"] is not None:
            out.print(
                f"encoding   {data['encoding']} (from {data['encoding_source']}, "
                f"{data['decode_errors'] or 0} errors)"
            )
        else:
            out.print("encoding   none (not decoded: a binary format)")
        if data.get("lang"):
            spans = {p.get("lang") for p in data.get("passages", [])} - {data["lang"]}
            out.print(
                f"language   {data['lang']} ({data['lang_score']:.2f})"
                + (f"   passages also in {', '.join(sorted(str(x) for x in spans))}" if spans else ""),
                highlight=False,
            )
        out.print(f"links      {len(data['links'])}")
        if data["revisit_of"]:
            out.print(
                f"duplicate  of {data['revisit_of']['row']} (stored once; this is a WARC revisit record)"
            )
        anchors = data["anchors"]
        out.print(f"anchors    {len(anchors)} linking pages", highlight=False)
        for anchor in anchors[:10]:
            out.print(f"           {anchor['text']!r}  [dim]from {anchor['from']}[/]", highlight=False)
        for err in data["errors"]:
            out.print(f"[red]error[/]      {err}")
        out.print()
        text = data["text"]
        out.print(text[:2000] + ("…" if len(text) > 2000 else ""), markup=False)
    return 0
