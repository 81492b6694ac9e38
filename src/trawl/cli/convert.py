"""``trawl convert FILE…``: what each file really is, and its text, title, metadata and links."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trawl.convert.base import ConvertOptions
from trawl.convert.guard import DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT, Guard
from trawl.convert.registry import convert_bytes

HELP = "identify each file by its bytes and convert it to text, with title, metadata and links"

#: Files larger than this are refused before reading (the ingest default, local.max_file_bytes).
MAX_FILE_BYTES = 104_857_600


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "convert",
        help=HELP,
        description=HELP.capitalize() + ". The format is found from the bytes (magic numbers, ZIP "
        "members, the XML root) and compared with the file name's extension and --content-type. "
        "PDF (pypdfium2), DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, RTF, HTML, XML, RSS/Atom and plain "
        "text are converted; PDF and ZIP-based formats run in a worker process under a time and memory "
        "limit. A file that cannot be converted is reported with the reason (exit status 1).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to convert")
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per file: path, bytes, format, mime, sniffed, declared, by_extension, "
        "disagree, declared_disagrees, extension_disagrees, truncated, title, text, metadata, links, "
        "needs_ocr, metadata_flags, dropped, message, skipped, seconds (error when the file cannot be read)",
    )
    p.add_argument("--content-type", metavar="TYPE", help="a declared media type to check every file against")
    p.add_argument(
        "--url", metavar="URL", help="the URL the files came from: relative links resolve against it"
    )
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per guarded conversion")
    p.add_argument(
        "--max-memory",
        type=int,
        default=DEFAULT_MAX_MEMORY // 1024**2,
        metavar="MIB",
        help="address space of the worker process, in MiB (0: no limit)",
    )
    p.add_argument("--no-isolate", action="store_true", help="convert in this process (faster, unguarded)")
    p.set_defaults(func=run)


def convert_file(
    path: str,
    *,
    content_type: str | None = None,
    url: str | None = None,
    guard: Guard | None = None,
) -> dict[str, Any]:
    """What :func:`~trawl.convert.registry.convert_bytes` makes of one file, as a JSON-ready dict."""
    row: dict[str, Any] = {"path": path}
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            row["error"] = f"{path!r} is {size} bytes, over the limit of {MAX_FILE_BYTES}"
            return row
        data = Path(path).read_bytes()
    except OSError as exc:
        row["error"] = f"cannot read {path!r}: {exc.strerror or exc}"
        return row
    options = ConvertOptions(url=url or Path(path).resolve().as_uri())
    conversion = convert_bytes(
        data, declared=content_type, filename=Path(path).name, options=options, guard=guard
    )
    identity = conversion.identity
    row["bytes"] = len(data)
    row.update(identity.as_dict())
    converted = conversion.converted
    row.update(
        title=converted.title if converted else "",
        text=converted.text if converted else "",
        metadata=converted.metadata if converted else {},
        links=[{"url": u, "text": t} for u, t in converted.links] if converted else [],
        needs_ocr=bool(converted and converted.needs_ocr),
        metadata_flags=conversion.meta_flags,
        dropped=conversion.dropped,
        message=conversion.message,
        skipped=conversion.skipped,
        seconds=round(conversion.seconds, 4),
    )
    if converted and converted.warnings:
        row["warnings"] = converted.warnings
    return row


def _show(row: dict[str, Any]) -> None:
    kind = f"{row['format']} ({row['mime']})"
    note = ""
    if row["disagree"]:
        claims = [c for c in (row["declared"], row["by_extension"]) if c]
        note = f"  DISAGREES with {' / '.join(claims)}"
    print(f"{row['path']}\t{kind}{note}")
    if row["dropped"]:
        print(f"  dropped: {row['dropped']}: {row['message']}")
        return
    if row["skipped"]:
        print(f"  no text: {row['message'] or 'no converter for this format'}")
        return
    print(f"  title: {row['title']}")
    meta = row["metadata"]
    for key in ("author", "created", "modified", "lang", "pages", "sheets", "slides", "description"):
        if key in meta:
            print(f"  {key}: {meta[key]}")
    if row["metadata_flags"]:
        print(f"  distrusted metadata: {', '.join(row['metadata_flags'])}")
    if row["needs_ocr"]:
        print("  needs OCR: the pages are images with no text layer")
    print(f"  {len(row['text'])} characters, {len(row['links'])} links, {row['seconds']:.3f} s")
    for line in row["text"].split("\n")[:5]:
        print(f"  | {line[:200]}")


def run(args: argparse.Namespace) -> int:
    failed = 0
    guard = None if args.no_isolate else Guard(timeout=args.timeout, max_memory=args.max_memory * 1024**2)
    try:
        for path in args.files:
            row = convert_file(path, content_type=args.content_type, url=args.url, guard=guard)
            failed += "error" in row or bool(row.get("dropped"))
            if args.json:
                print(json.dumps(row, ensure_ascii=False, default=str), flush=True)
            elif "error" in row:
                print(f"trawl: error: {row['error']}", file=sys.stderr)
            else:
                _show(row)
    finally:
        if guard is not None:
            guard.close()
    return 1 if failed else 0
