"""``trawl convert FILE…``: what each file really is, and its text, title, metadata and links."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trawl.cli.common import add_config_options, bounded, read_document, sentence
from trawl.config import load_config
from trawl.convert.guard import DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT
from trawl.convert.ocr import OCR_MODES
from trawl.convert.registry import FormatConverter
from trawl.decode.http import FILE_CODINGS, entity_body
from trawl.jobs.single import OneByOne
from trawl.jobs.steps import convert_options, default_steps
from trawl.sniff.identify import identify

HELP = "identify each file by its bytes and convert it to text, with title, metadata and links"

#: Files larger than this are refused before reading (the ingest default, local.max_file_bytes).
MAX_FILE_BYTES = 104_857_600
#: The names of compressed single files, unpacked as ingest unpacks them (``notes.txt.bz2``).
_PACKED_SUFFIXES = (".gz", ".gzip", ".Z", ".bz2", ".xz", ".zst", ".zstd", ".lz4")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "convert",
        help=HELP,
        description=sentence(HELP) + ". The format is found from the bytes (magic numbers, ZIP "
        "members, the XML root) and compared with the file name's extension and --content-type. "
        "PDF (pypdfium2), DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, RTF, HTML, XML, RSS/Atom and plain "
        "text are converted, and legacy .doc, .xls, .ppt, .msg (olefile, xlrd; LibreOffice as the "
        "fallback) and iWork packages; images (PNG, JPEG, TIFF...) and scanned PDF pages are read by OCR "
        "(Tesseract; see --ocr); a FILE.gz, .Z, .bz2, .xz, .zst or .lz4 is unpacked first. PDF, "
        "ZIP- and OLE-based formats run in a worker process under a time and memory "
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
    p.add_argument(
        "--timeout",
        type=bounded(float, 0, above=True),
        default=DEFAULT_TIMEOUT,
        help="seconds per guarded conversion",
    )
    p.add_argument(
        "--max-memory",
        type=bounded(int, 0),
        default=DEFAULT_MAX_MEMORY // 1024**2,
        metavar="MIB",
        help="address space of the worker process, in MiB (0: no limit)",
    )
    p.add_argument("--no-isolate", action="store_true", help="convert in this process (faster, unguarded)")
    p.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="print each file's text and what was found in it (text, the default), or its Markdown "
        "rendering: headings, lists, tables and links kept (markdown; with --json, the row's "
        "metadata.markdown); the same as --set convert.markdown=true",
    )
    p.add_argument(
        "--ocr",
        choices=OCR_MODES,
        help="OCR with Tesseract: images and PDF pages without a text layer (auto, the default), "
        "every PDF page too (always), or none (never: a scanned PDF says needs OCR); "
        "the same as --set convert.ocr=MODE",
    )
    add_config_options(p)
    p.set_defaults(func=run)


def convert_file(
    path: str, runner: OneByOne, *, content_type: str | None = None, url: str | None = None
) -> dict[str, Any]:
    """What ingest's conversion steps (``runner``) make of one file, as a JSON-ready dict.

    The format fields (``format``, ``mime``, ``sniffed``, ``declared``, ``by_extension`` and the
    disagreements) are :func:`~trawl.sniff.identify.identify` of the file's bytes against
    ``--content-type`` and the file's name; the rest is what the steps left on the document.
    """
    row: dict[str, Any] = {"path": path}
    doc = read_document(path, row, content_type=content_type, url=url, max_file_bytes=MAX_FILE_BYTES)
    if doc is None:
        return row
    outcome = runner.run(doc)
    body = doc.body if doc.body is not None else entity_body(doc, MAX_FILE_BYTES).data
    name = Path(path).name
    if name.endswith(_PACKED_SUFFIXES) and not any(body.startswith(m) for m in FILE_CODINGS.values()):
        name = name.rsplit(".", 1)[0]  # the name of what was unpacked: page.html.gz is page.html
    identity = identify(body, content_type, name)
    try:
        row["bytes"] = Path(path).stat().st_size  # the file as it is on disk (packed, if it was)
    except OSError:  # gone since it was read
        row["bytes"] = len(doc.raw)
    row.update(identity.as_dict())
    # a ZIP without its directory, or a text cut at the size limit
    row["truncated"] = bool(identity.truncated or doc.metadata.get("truncated"))
    dropped = doc.dropped if not outcome.kept else None
    message = ""
    for entry in outcome.audit:
        if entry.kind == "drop" or (entry.kind == "error" and not outcome.kept):
            message = entry.message
    if dropped is not None:
        dropped = dropped.removeprefix("convert/")
    skipped = bool(outcome.counted("convert/skipped/")) and outcome.kept
    warnings = [e.split(": ", 1)[-1] for e in doc.errors]
    if skipped and warnings:
        message = warnings.pop()
    row.update(
        title=doc.title,
        text=doc.text,
        metadata=doc.metadata,
        links=[{"url": link.url, "text": link.text} for link in doc.links],
        needs_ocr=bool(doc.metadata.get("needs_ocr")),
        metadata_flags=outcome.counted("convert/metadata/"),
        dropped=dropped,
        message=message,
        skipped=skipped,
        seconds=round(outcome.seconds, 4),
    )
    if warnings and dropped is None:
        row["warnings"] = warnings
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
    shown = ("author", "created", "modified", "lang", "pages", "sheets", "slides", "description", "converter")
    for key in shown:
        if key in meta:
            print(f"  {key}: {meta[key]}")
    if row["metadata_flags"]:
        print(f"  distrusted metadata: {', '.join(row['metadata_flags'])}")
    if row["needs_ocr"]:
        print("  needs OCR: the pages are images with no text layer")
    ocr = meta.get("ocr")
    if isinstance(ocr, dict):
        known = [c for c in ocr.get("confidence", []) if c is not None]
        mean = f", mean word confidence {sum(known) / len(known):.0f}" if known else ""
        print(f"  OCR: {ocr.get('pages')} pages, {ocr.get('lang')}{mean}, {ocr.get('seconds')} s")
    print(f"  {len(row['text'])} characters, {len(row['links'])} links, {row['seconds']:.3f} s")
    for line in row["text"].split("\n")[:5]:
        print(f"  | {line[:200]}")


def _show_markdown(row: dict[str, Any], *, several: bool) -> None:
    """A file's Markdown (under a comment naming it when there are several); a file with none
    (dropped, skipped) is reported on standard error."""
    if several:
        print(f"<!-- {row['path']}: {row['format']} -->")
    markdown = row["metadata"].get("markdown") if isinstance(row.get("metadata"), dict) else None
    if row.get("dropped") or not isinstance(markdown, str):
        why = f"dropped: {row['dropped']}: {row['message']}" if row.get("dropped") else "no text"
        print(f"trawl: {row['path']}: {why}", file=sys.stderr)
        return
    print(markdown)
    if several:
        print()


def run(args: argparse.Namespace) -> int:
    failed = 0
    overrides = [*args.overrides, f"convert.ocr={args.ocr}"] if args.ocr else args.overrides
    if args.format == "markdown":
        overrides = [*overrides, "convert.markdown=true"]
    config = load_config(args.config, overrides=overrides)
    formats = FormatConverter(
        max_chars=config.html.max_chars,
        isolate=not args.no_isolate,
        timeout=args.timeout,
        max_memory=args.max_memory * 1024**2,
        options=convert_options(config),
    )
    with OneByOne(default_steps(config, formats=formats)) as runner:
        for path in args.files:
            row = convert_file(path, runner, content_type=args.content_type, url=args.url)
            failed += "error" in row or bool(row.get("dropped"))
            if args.json:
                print(json.dumps(row, ensure_ascii=False, default=str), flush=True)
            elif "error" in row:
                print(f"trawl: error: {row['error']}", file=sys.stderr)
            elif args.format == "markdown":
                _show_markdown(row, several=len(args.files) > 1)
            else:
                _show(row)
    return 1 if failed else 0
