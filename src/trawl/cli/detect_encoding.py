"""``trawl detect-encoding FILE…``: the encoding of each file, the evidence for it and how sure."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from trawl.cli.common import add_config_options, read_document, sentence
from trawl.config import load_config
from trawl.decode.charset import CharsetDecoder, codec_name
from trawl.jobs.single import OneByOne
from trawl.jobs.steps import decode_steps
from trawl.sniff.magic import effective_type

HELP = "print the encoding of each file (Python codec name), the evidence for it and the confidence"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "detect-encoding",
        help=HELP,
        description=sentence(HELP) + ". The evidence is taken as a browser takes it (BOM, "
        "Content-Type charset, <meta> prescan, XML declaration, UTF-8 validity), then the "
        "statistical detector; declarations the bytes contradict are overruled. Gzipped files "
        "are unpacked first (recognised by their bytes). The file goes through ingest's own "
        "sniffing and decoding steps (the configuration's, mojibake repair and NFC included), so "
        "what is printed is what ingest stores.",
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
        "declared_source, overruled, whatwg, bytes, type, ingest_decodes, mojibake, repaired, "
        "normalized; error when the file cannot be read)",
    )
    add_config_options(p)
    p.set_defaults(func=run)


def examine(path: str, content_type: str | None = None, steps: OneByOne | None = None) -> dict[str, Any]:
    """What ``trawl ingest`` makes of one file's encoding, as a JSON-ready dict.

    The file goes through ingest's own first steps (``steps``: the type sniffer and the charset
    decoder built from the configuration), so the evidence chain, the body cap, the mojibake
    repair and NFC are ingest's. A file ingest would not decode (its bytes are a binary format)
    is decoded all the same, since its encoding was asked for, and says so (``ingest_decodes``).
    """
    row: dict[str, Any] = {"path": path, "encoding": None, "source": None, "confidence": None, "errors": None}
    doc = read_document(path, row, content_type=content_type)
    if doc is None:
        return row
    own = steps is None
    runner = steps or OneByOne(decode_steps(load_config()))
    try:
        outcome = runner.run(doc)
        decoder = next(s for s in runner.steps if isinstance(s, CharsetDecoder))
        decoded_by_ingest = doc.markup is not None
        if not decoded_by_ingest:  # a binary type: decoded on request, as ingest's decoder would
            decoder.decode(doc)
    finally:
        if own:
            runner.close()
    declared = doc.metadata.get("encoding_declared")
    declared = declared if isinstance(declared, dict) else {}
    whatwg = doc.encoding or "utf-8"
    row.update(
        encoding=codec_name(whatwg),
        source=doc.encoding_source,
        confidence=round(doc.encoding_confidence, 4) if doc.encoding_confidence is not None else None,
        errors=doc.decode_errors,
        whatwg=whatwg,
        declared=declared.get("encoding"),
        declared_source=declared.get("source"),
        overruled=doc.metadata.get("encoding_overruled"),
        bytes=len(doc.body if doc.body is not None else doc.raw),
        type=effective_type(doc),
        ingest_decodes=decoded_by_ingest,
        mojibake=doc.mojibake,
        repaired=doc.metadata.get("mojibake_repaired"),
        normalized=outcome.counters.get("decode/normalized", 0) > 0,
    )
    return row


def run(args: argparse.Namespace) -> int:
    failed = 0
    config = load_config(args.config, overrides=args.overrides)
    steps = OneByOne(decode_steps(config))  # ingest's sniffer and decoder
    for path in args.files:
        row = examine(path, args.content_type, steps)
        failed += "error" in row
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        elif "error" in row:
            print(f"trawl: error: {row['error']}", file=sys.stderr)
        else:
            note = ""
            if row["overruled"]:
                note = f"  (declared {row['declared']} by {row['declared_source']}: {row['overruled']})"
            if row["repaired"]:
                note += f"  (mojibake repaired: {row['repaired']})"
            if not row["ingest_decodes"]:
                note += f"  ({row['type']}: ingest does not decode it)"
            confidence = "-" if row["confidence"] is None else f"{row['confidence']:.2f}"
            print(f"{path}\t{row['encoding']}\t{row['source']}\t{confidence}\t{row['errors']} errors{note}")
    return 1 if failed else 0
