"""``trawl decode-report COLLECTION``: where decoding went wrong, by host and by encoding.

Reads only the table's ``meta:decode`` cells. A document is *flagged* when it has at least
``--min-errors`` undecodable sequences or was found to hold mojibake. Many flagged documents on
one host, or under one (declared → chosen) pair, point at a misidentified encoding rather than
at damaged files.
"""

from __future__ import annotations

import argparse
import codecs
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.table import Table as RichTable

from trawl.cli.common import bounded, out_console, sentence
from trawl.decode.charset import codec_name, lookup_label
from trawl.store.collection import Collection, StoredRecord

HELP = "report documents with many decoding errors or mojibake, grouped by host and by encoding"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "decode-report",
        help=HELP,
        description=sentence(HELP) + ". A sudden rise on one host, or under one declared → "
        "chosen encoding pair, means a misidentified encoding, not damaged files.",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument(
        "--min-errors",
        type=bounded(int, 1),
        default=10,
        metavar="N",
        help="flag documents with at least N undecodable byte sequences (default 10); "
        "documents with mojibake are always flagged",
    )
    p.add_argument(
        "--limit",
        type=bounded(int, 0),
        default=20,
        metavar="N",
        help="list at most N flagged documents (default 20)",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=run)


@dataclass(slots=True)
class Group:
    """Counts for one host or one (declared → chosen) pair."""

    documents: int = 0
    flagged: int = 0
    decode_errors: int = 0
    mojibake: int = 0

    def add(self, errors: int, mojibake: bool, flagged: bool) -> None:
        self.documents += 1
        self.flagged += flagged
        self.decode_errors += errors
        self.mojibake += mojibake

    def as_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "flagged": self.flagged,
            "share": round(self.flagged / self.documents, 4) if self.documents else 0.0,
            "decode_errors": self.decode_errors,
            "mojibake": self.mojibake,
        }


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or f"({urlsplit(url).scheme or 'no'} host)"
    except ValueError:
        return "(bad URL)"


def _codec(name: Any) -> str | None:
    """One name per encoding, as ``trawl detect-encoding`` prints it (``utf-32be`` and
    ``utf-32-be`` are one codec; ``cp1251`` is ``windows-1251``)."""
    if not name:
        return None
    whatwg = lookup_label(str(name))
    if whatwg is not None:
        return codec_name(whatwg)
    try:
        return codecs.lookup(str(name)).name
    except LookupError:
        return str(name)


def report(records: Any, *, min_errors: int = 10, limit: int = 20) -> dict[str, Any]:
    """The decode report over ``records`` (:class:`StoredRecord`\\ s) as a JSON-ready dict."""
    hosts: dict[str, Group] = defaultdict(Group)
    pairs: dict[tuple[str, str], Group] = defaultdict(Group)
    flagged_docs: list[dict[str, Any]] = []
    total = flagged_total = 0
    record: StoredRecord
    for record in records:
        decode = record.cells.get("meta", {}).get("decode", {})
        chosen = _codec(decode.get("encoding"))
        if chosen is None:
            continue  # not decoded: binary formats, skipped records
        total += 1
        errors = int(decode.get("decode_errors") or 0)
        mojibake = bool(decode.get("mojibake"))
        flagged = errors >= min_errors or mojibake
        flagged_total += flagged
        declared_cell = decode.get("encoding_declared")
        declared = _codec(declared_cell.get("encoding")) if isinstance(declared_cell, dict) else None
        url = record.url
        hosts[_host(url)].add(errors, mojibake, flagged)
        pairs[(declared or "-", str(chosen))].add(errors, mojibake, flagged)
        if flagged:
            flagged_docs.append(
                {
                    "url": url,
                    "encoding": chosen,
                    "encoding_source": decode.get("encoding_source"),
                    "declared": declared,
                    "overruled": decode.get("encoding_overruled"),
                    "decode_errors": errors,
                    "mojibake_score": decode.get("mojibake_score"),
                }
            )
    flagged_docs.sort(key=lambda d: (-d["decode_errors"], -(d["mojibake_score"] or 0.0), d["url"]))
    by_host = sorted(hosts.items(), key=lambda kv: (-kv[1].flagged, -kv[1].documents, kv[0]))
    by_pair = sorted(pairs.items(), key=lambda kv: (-kv[1].flagged, -kv[1].documents, kv[0]))
    return {
        "documents": total,
        "flagged": flagged_total,
        "min_errors": min_errors,
        "by_host": [{"host": host, **g.as_dict()} for host, g in by_host if g.flagged],
        "by_encoding": [{"declared": d, "chosen": c, **g.as_dict()} for (d, c), g in by_pair],
        "flagged_documents": flagged_docs[:limit],
    }


def run(args: argparse.Namespace) -> int:
    with Collection.open(args.collection) as collection:
        data = report(collection.records(), min_errors=args.min_errors, limit=args.limit)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    out = out_console()
    out.print(
        f"{data['flagged']:,} of {data['documents']:,} decoded documents flagged "
        f"(≥ {data['min_errors']} decoding errors, or mojibake)"
    )
    hosts = RichTable(title="hosts with flagged documents", header_style="bold")
    for col in ("host", "documents", "flagged", "share", "errors", "mojibake"):
        hosts.add_column(col, justify="left" if col == "host" else "right")
    for row in data["by_host"]:
        hosts.add_row(
            row["host"],
            f"{row['documents']:,}",
            f"{row['flagged']:,}",
            f"{row['share']:.0%}",
            f"{row['decode_errors']:,}",
            f"{row['mojibake']:,}",
        )
    if data["by_host"]:
        out.print(hosts)
    pairs = RichTable(title="declared → chosen encoding", header_style="bold")
    for col in ("declared", "chosen", "documents", "flagged", "errors", "mojibake"):
        pairs.add_column(col, justify="left" if col in ("declared", "chosen") else "right")
    for row in data["by_encoding"]:
        style = "yellow" if row["flagged"] else ""
        pairs.add_row(
            row["declared"],
            row["chosen"],
            f"{row['documents']:,}",
            f"{row['flagged']:,}",
            f"{row['decode_errors']:,}",
            f"{row['mojibake']:,}",
            style=style,
        )
    out.print(pairs)
    if data["flagged_documents"]:
        docs = RichTable(title="flagged documents (most errors first)", header_style="bold")
        for col in ("url", "encoding", "source", "declared", "errors", "mojibake"):
            if col == "url":  # whole, folded over lines if need be: the file name is at its end
                docs.add_column(col, overflow="fold", ratio=1)
            else:
                docs.add_column(
                    col, justify="right" if col in ("errors", "mojibake") else "left", no_wrap=True
                )
        for d in data["flagged_documents"]:
            score = d["mojibake_score"]
            docs.add_row(
                d["url"],
                str(d["encoding"]),
                str(d["encoding_source"]),
                d["declared"] or "-",
                f"{d['decode_errors']:,}",
                "-" if score is None else f"{score:.2f}",
            )
        out.print(docs)
    return 0
