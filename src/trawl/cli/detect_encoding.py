"""``trawl detect-encoding FILE…``: the encoding of each file, the evidence for it and how sure."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from trawl.cli.common import read_input_file
from trawl.decode.charset import codec_name, decode_html

HELP = "print the encoding of each file (Python codec name), the evidence for it and the confidence"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "detect-encoding",
        help=HELP,
        description=HELP.capitalize() + ". The evidence is taken as a browser takes it (BOM, "
        "Content-Type charset, <meta> prescan, XML declaration, UTF-8 validity), then the "
        "statistical detector; declarations the bytes contradict are overruled. Gzipped files "
        "are unpacked first (recognised by their bytes).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to examine (plain or gzipped)")
    p.add_argument(
        "--content-type",
        metavar="VALUE",
        help="an HTTP Content-Type to take as served with every file, e.g. 'text/html; charset=koi8-r'",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per file: path, encoding, source, confidence, errors (and declared, "
        "declared_source, overruled, whatwg, bytes; error when the file cannot be read)",
    )
    p.set_defaults(func=run)


def examine(path: str, content_type: str | None = None) -> dict[str, Any]:
    """What :func:`~trawl.decode.charset.decode_html` makes of one file, as a JSON-ready dict."""
    row: dict[str, Any] = {"path": path, "encoding": None, "source": None, "confidence": None, "errors": None}
    data = read_input_file(path, row)
    if data is None:
        return row
    # A file is HTML only when the caller says so; otherwise UTF-32 byte-order marks count too.
    html = content_type is not None and "html" in content_type.lower()
    decoded = decode_html(data, content_type, html=html)
    row.update(
        encoding=codec_name(decoded.encoding),
        source=decoded.source,
        confidence=round(decoded.confidence, 4) if decoded.confidence is not None else None,
        errors=decoded.errors,
        whatwg=decoded.encoding,
        declared=decoded.declared,
        declared_source=decoded.declared_source,
        overruled=decoded.overruled,
        bytes=len(data),
    )
    return row


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        row = examine(path, args.content_type)
        failed += "error" in row
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        elif "error" in row:
            print(f"trawl: error: {row['error']}", file=sys.stderr)
        else:
            note = ""
            if row["overruled"]:
                note = f"  (declared {row['declared']} by {row['declared_source']}: {row['overruled']})"
            confidence = "-" if row["confidence"] is None else f"{row['confidence']:.2f}"
            print(f"{path}\t{row['encoding']}\t{row['source']}\t{confidence}\t{row['errors']} errors{note}")
    return 1 if failed else 0
