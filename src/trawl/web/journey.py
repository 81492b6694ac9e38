"""One document's journey through trawl: every stage's evidence and decision, as one JSON-ready dict.

:func:`journey` gathers, for a stored document (by anything :meth:`Collection.find` accepts: URL,
URL hash, SURT key, DOCNO, ``FILE@OFFSET``), in the order of the pipeline:

``request`` / ``response``
    the HTTP request the crawler sent (its WARC ``request`` record, found by ``WARC-Concurrent-To``
    in the collection's ``*-requests-*`` WARC files, a bounded scan) and the response as stored:
    status, URL, date, WARC ``FILE@OFFSET``, WARC and HTTP headers;
``raw``
    the first :data:`RAW_BYTES` payload bytes as a hex dump and as text, and the total length;
``sniff``
    the declared type against the bytes' magic numbers (stored, and :func:`~trawl.sniff.identify`
    again on the body);
``decoding``
    the evidence chain (BOM, HTTP charset, ``<meta>`` prescan, XML declaration, UTF-16 NUL
    pattern, UTF-8 validity, the statistical detector) and its decision. The store keeps the
    decision (``meta:decode``), not the chain, so the chain is *recomputed* from the stored bytes
    with the pipeline's own functions (``"recomputed": true``), and the decision again with
    :func:`~trawl.decode.charset.decode_html`, checked against the stored one;
``content``
    the cumulative tag curve of Finn et al.'s BTE (:mod:`trawl.extract.bte`), at most
    :data:`CURVE_POINTS` points, with BTE's span and the span of the stored text marked, an inline
    SVG of it, the extraction method (recomputed with the collection's ``[extract]`` settings) and
    the stored title and text;
``language``
    the stored document language and per-passage languages (:mod:`trawl.langid.passages`);
``dedup``
    the payload digest, the normalised-text digest, the 64-bit simhash (bits and hex) and the
    first 16 MinHash values (computed from the stored text with the collection's ``[dedup]``
    options), and the near duplicates ``trawl dedup`` stored in the row's ``dup`` cells — or,
    with none stored, a search of the stored dedup index when it is fresh (never a rebuild);
``versions``, ``anchors``, ``units``
    every kept capture, the anchor text of pages linking here, and the document's units (its
    parent, its children).

Every section is a dict with ``available``; when the data is not there (a tombstone, a binary
format, a collection never deduplicated) it is ``False`` with a ``reason``. A section whose
computation fails says so in its ``reason`` instead of failing the journey. Each is bounded in
size (lists are cut, with their full count given) and in time (the extractor's own time guard,
bounded scans). An unknown key raises :class:`~trawl.errors.RecordNotFound`.
"""

from __future__ import annotations

import argparse
import codecs
import html
import itertools
import math
import re
import time
import zlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import numpy as np

from trawl.decode.charset import (
    SAMPLE_BYTES,
    Decoded,
    decode_html,
    decode_with,
    http_charset,
    lookup_label,
    prescan_meta,
    xml_declared_encoding,
)
from trawl.decode.detect import default_detector, nul_pattern
from trawl.decode.http import Payload, entity_body
from trawl.dedup.engine import DedupOptions
from trawl.dedup.exact import text_digest
from trawl.dedup.hashing import shingle_hashes, word_hashes
from trawl.dedup.minhash import minhash_signatures
from trawl.dedup.persist import index_dir, load_index
from trawl.dedup.simhash import simhash_batch
from trawl.document import Document
from trawl.errors import RecordNotFound, TrawlError
from trawl.extract.bte import TokenCurve
from trawl.extract.extractor import Extraction, extract
from trawl.jobs.dedup import collection_state, pair_row
from trawl.sniff.identify import identify
from trawl.sniff.magic import is_html, is_textual
from trawl.store.collection import Collection, StoredRecord
from trawl.store.warcfile import parse_warc_date, read_record_at
from trawl.urls import UNIT_FRAGMENT, url_hash

__all__ = ["CURVE_POINTS", "RAW_BYTES", "curve_svg", "hex_dump", "journey"]

#: payload bytes shown as a hex dump and as text
RAW_BYTES = 4096
#: points of the token curve at most (a huge page's curve is sampled evenly)
CURVE_POINTS = 1000
#: characters of the stored text returned (the rest is counted)
TEXT_CHARS = 20_000
#: list items returned per section at most (headers, anchors, versions, units, passages)
MAX_ITEMS = 100
#: near duplicates returned at most
MAX_NEAR = 20
#: bytes of request WARC files read while looking for a capture's request record
REQUEST_SCAN_BYTES = 32 << 20
#: how far out of time order a request record may be written (a crawl stores pages as they come)
REQUEST_SLACK = timedelta(minutes=1)
#: where the search starts first: a request is nearly always written within a second of its
#: response, and scanning a minute of a fast crawl's records (18,000 at 300 pages/s) took 110 ms
REQUEST_NEAR = timedelta(seconds=5)
#: bytes that first, near search reads before the whole REQUEST_SLACK is searched
REQUEST_NEAR_BYTES = 2 << 20
_GZIP_MEMBER = b"\x1f\x8b\x08"
_WARC_DATE = re.compile(rb"\r\nWARC-Date: *([^\r\n]+)")
#: characters of a passage's text shown beside its language
PASSAGE_EXCERPT = 200
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_BE, "utf-16be"), (codecs.BOM_UTF16_LE, "utf-16le"))


def _missing(reason: str) -> dict[str, Any]:
    return {"available": False, "reason": reason}


def _section(name: str, build: Callable[[], dict[str, Any]], timings: dict[str, float]) -> dict[str, Any]:
    """``build()`` with ``available`` set, or the failure as its reason: one stage's trouble
    (a damaged record, a missing extra) costs its section, never the page."""
    t0 = time.perf_counter()
    try:
        out = build()
    except Exception as exc:  # isolation: a damaged record or a bug costs one section, not the page
        out = _missing(f"{name} could not be shown: {type(exc).__name__}: {exc}")
    timings[name] = round(time.perf_counter() - t0, 4)
    out.setdefault("available", True)
    return out


def _pairs(headers: Sequence[tuple[str, str]]) -> list[list[str]]:
    return [[str(k), str(v)] for k, v in list(headers)[:MAX_ITEMS]]


def hex_dump(data: bytes, width: int = 16) -> str:
    """``data`` as lines of offset, hex bytes and printable ASCII (``.`` for the rest)."""
    lines = []
    for at in range(0, len(data), width):
        chunk = data[at : at + width]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{at:08x}  {hexes:<{width * 3 - 1}}  {text}")
    return "\n".join(lines)


# -- request and response ------------------------------------------------------------------------


def _when(fetched_at: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(fetched_at).astimezone(UTC) if fetched_at else None
    except ValueError:
        return None


def _request_files(coll: Collection, fetched_at: str | None) -> list[Path]:
    """The request WARC files that may hold a capture's request, likeliest first: those opened
    at or before the capture (a file is named for the time of its first record), newest first,
    then the others."""
    files = [p for p in coll.warc_files() if "-requests-" in p.name]
    moment = _when(fetched_at)
    when = (moment + REQUEST_SLACK).strftime("%Y%m%d%H%M%S") if moment else ""

    def stamp(p: Path) -> str:
        return p.name.split("-requests-", 1)[1][:14]

    files.sort(key=stamp, reverse=True)
    if not when:
        return files
    first = [p for p in files if stamp(p) <= when]
    return first + [p for p in files if p not in first]


def _member_after(fh: BinaryIO, at: int, size: int) -> tuple[int, datetime] | None:
    """The first gzip member at or after offset ``at`` of a WARC file that holds a WARC record
    with a date: its offset and WARC-Date (None when there is none in the next 256 KiB)."""
    fh.seek(at)
    data = fh.read(min(1 << 18, size - at))
    pos = 0
    while (pos := data.find(_GZIP_MEMBER, pos)) >= 0:
        try:
            head = zlib.decompressobj(31).decompress(data[pos : pos + 8192], 2048)
        except zlib.error:
            head = b""
        if head.startswith(b"WARC/1."):
            date = _WARC_DATE.search(head)
            when = parse_warc_date(date.group(1).decode("ascii", "replace")) if date else None
            if when is not None:
                return at + pos, when
        pos += 1
    return None


def _start_near(path: Path, when: datetime | None, slack: timedelta = REQUEST_SLACK) -> int:
    """Where to start looking for a request sent at ``when``: a member ``slack`` before the first
    one dated after it (records are appended about in time order; bisected on their WARC-Date),
    so that a request file of 100,000 records costs a few reads, not a scan."""
    if when is None:
        return 0
    target = when - slack
    lo, hi, start = 0, path.stat().st_size, 0
    with path.open("rb") as fh:
        while hi - lo > 1 << 16:
            mid = (lo + hi) // 2
            found = _member_after(fh, mid, hi)
            if found is not None and found[1] < target:
                start, lo = found[0], found[0] + 1
            else:
                hi = mid
    return start


def _scan_members(path: Path, needle: bytes, budget: int, start: int = 0) -> tuple[int | None, int]:
    """The offset of the first gzip member of ``path`` from ``start`` on whose head holds
    ``needle`` (or None), and the bytes read; at most ``budget`` bytes are read."""
    with path.open("rb") as fh:
        fh.seek(start)
        data = fh.read(budget)
    view = memoryview(data)
    pos = 0
    while pos < len(data):
        begin = pos
        inflater = zlib.decompressobj(31)
        head = b""
        while not inflater.eof and pos < len(data):
            chunk = view[pos : pos + 4096]
            out = inflater.decompress(chunk)
            if len(head) < 4096:
                head += out[: 4096 - len(head)]
            pos += len(chunk) - len(inflater.unused_data)
        if not inflater.eof:
            break  # cut at the budget (or a torn last member)
        if needle in head:
            return start + begin, pos
    return None, pos


def _request(coll: Collection, record: StoredRecord) -> dict[str, Any]:
    capture = record.capture
    record_id = capture.get("record_id")
    if not record_id:
        return _missing("this capture has no WARC record id to tie a request record to")
    files = _request_files(coll, capture.get("fetched_at"))
    if not files:
        return _missing(
            "no request records in this collection: only a crawl writes them (ingested WARC files "
            "keep their own)"
        )
    needle = f"WARC-Concurrent-To: {record_id}".encode()
    budget = REQUEST_SCAN_BYTES
    when = _when(capture.get("fetched_at"))
    for path in files:
        if budget <= 0:
            break
        offset, start = None, 0
        near = _start_near(path, when, REQUEST_NEAR)
        if near > 0:
            offset, used = _scan_members(path, needle, min(budget, REQUEST_NEAR_BYTES), near)
            budget -= used
        if offset is None:
            start = _start_near(path, when)
            offset, used = _scan_members(path, needle, budget, start)
            budget -= used
        if offset is None and start > 0:  # out of time order after all: the file from its start
            offset, used = _scan_members(path, needle, min(budget, start))
            budget -= used
        if offset is None:
            continue
        doc = read_record_at(path, offset)
        block = _request_line(path, offset)
        return {
            "method_line": block,
            "headers": _pairs(doc.http_headers),
            "warc_headers": _pairs(doc.warc_headers),
            "warc": f"{path.name}@{offset}",
            "date": doc.fetched_at.isoformat() if doc.fetched_at else None,
        }
    return _missing(
        f"no request record names this capture ({record_id}) in the first "
        f"{REQUEST_SCAN_BYTES >> 20} MiB read of the request WARC files"
    )


def _request_line(path: Path, offset: int) -> str:
    """The request line (``GET /p/1.html HTTP/1.1``) of the request record at ``offset``."""
    with path.open("rb") as fh:
        fh.seek(offset)
        inflater = zlib.decompressobj(31)
        data = inflater.decompress(fh.read(65536), 65536)
    block = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""
    return block.split(b"\r\n", 1)[0].decode("utf-8", "replace")


def _response(record: StoredRecord, doc: Document) -> dict[str, Any]:
    capture = record.capture
    pointer = capture.get("pointer") or {}
    return {
        "url": record.url,
        "surt": record.row,
        "url_hash": url_hash(record.url),
        "status": doc.status,
        "record_type": capture.get("record_type"),
        "date": capture.get("fetched_at"),
        "warc": f"{pointer.get('file')}@{pointer.get('offset')}" if pointer else None,
        "warc_length": pointer.get("length"),
        "revisit_of": record.revisit_of,
        "headers": _pairs(doc.http_headers),
        "warc_headers": _pairs(doc.warc_headers),
    }


# -- bytes, format, decoding ---------------------------------------------------------------------


def _raw(doc: Document, body: Payload, encoding: str | None) -> dict[str, Any]:
    head = doc.raw[:RAW_BYTES]
    shown = body.data[:RAW_BYTES]
    if encoding is not None:
        text, _ = decode_with(shown, encoding)
        text_as = encoding
    else:  # a binary format: every byte as one character, controls as dots
        text = "".join(chr(b) if b >= 0x20 or b in (9, 10, 13) else "." for b in shown)
        text_as = "latin-1 (not decoded: a binary format)"
    return {
        "length": len(doc.raw),
        "shown": len(head),
        "hex": hex_dump(head),
        "codings": list(body.codings),
        "body_length": len(body.data),
        "text": text,
        "text_as": text_as,
        "problems": [f"{p.kind}: {p.message}" for p in body.problems],
    }


def _filename(url: str) -> str | None:
    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    name = path.rsplit("/", 1)[-1]
    return name or None


def _sniff(record: StoredRecord, body: bytes) -> dict[str, Any]:
    capture = record.capture
    found = identify(body, capture.get("declared_type"), _filename(record.url))
    return {
        "declared": capture.get("declared_type"),
        "sniffed": capture.get("sniffed_type"),
        "disagree": bool(capture.get("type_mismatch")),
        "identified": found.as_dict(),
        "recomputed": True,
    }


def _decoding(
    coll: Collection, record: StoredRecord, doc: Document, body: bytes
) -> tuple[dict[str, Any], Decoded | None]:
    stored = record.cells.get("meta", {}).get("decode", {})
    kind = record.capture.get("sniffed_type") or record.capture.get("declared_type")
    if not stored.get("encoding"):
        why = "not decoded: a binary format" if not is_textual(kind) else "no decoding was stored"
        return _missing(why), None
    content_type = doc.header("content-type")
    chain: list[dict[str, Any]] = []
    bom = next((name for mark, name in _BOMS if body.startswith(mark)), None)
    chain.append({"step": "bom", "found": bom, "detail": "byte-order mark at the start"})
    chain.append(
        {"step": "http", "found": http_charset(content_type), "detail": f"Content-Type: {content_type}"}
    )
    chain.append({"step": "meta", "found": prescan_meta(body[:1024]), "detail": "<meta> prescan"})
    chain.append({"step": "xml", "found": xml_declared_encoding(body), "detail": "XML declaration"})
    chain.append(
        {"step": "nul-pattern", "found": nul_pattern(body[:SAMPLE_BYTES]), "detail": "UTF-16 NUL pattern"}
    )
    _, utf8_errors = decode_with(body, "utf-8")
    chain.append(
        {
            "step": "utf8-valid",
            "found": "utf-8" if not utf8_errors else None,
            "detail": "pure ASCII" if body.isascii() else f"{utf8_errors} invalid UTF-8 sequences",
        }
    )
    guess = default_detector().detect(body[:SAMPLE_BYTES]) if body else None
    chain.append(
        {
            "step": "detector",
            "found": guess.encoding if guess else None,
            "confidence": round(float(guess.confidence), 4) if guess else None,
            "detail": "runners-up: "
            + (", ".join(f"{e} {c:.2f}" for e, c in guess.alternatives[:3]) if guess else "none"),
        }
    )
    html_page = kind is None or "html" in str(kind)
    default = lookup_label(coll.config.decode.default_encoding) or "windows-1252"  # as CharsetDecoder
    decoded = decode_html(body, content_type, default=default, html=html_page)
    for link in chain:
        link["decided"] = link["step"] == decoded.source
    declared = stored.get("encoding_declared")
    out = {
        "encoding": stored.get("encoding"),
        "source": stored.get("encoding_source"),
        "confidence": stored.get("encoding_confidence"),
        "errors": stored.get("decode_errors"),
        "declared": declared if isinstance(declared, dict) else None,
        "overruled": stored.get("encoding_overruled"),
        "mojibake": stored.get("mojibake"),
        "mojibake_score": stored.get("mojibake_score"),
        "chain": chain,
        "recomputed": True,
        "recomputed_decision": {
            "encoding": decoded.encoding,
            "source": decoded.source,
            "errors": decoded.errors,
            "confidence": decoded.confidence,
            "overruled": decoded.overruled,
        },
        "matches_stored": decoded.encoding == lookup_label(str(stored.get("encoding")))
        or decoded.encoding == stored.get("encoding"),
    }
    return out, decoded


# -- content ---------------------------------------------------------------------------------------


def _sample(curve: list[int], limit: int = CURVE_POINTS) -> list[list[int]]:
    """At most ``limit`` points ``[tokens read, tags seen]`` of the curve, evenly, ends kept."""
    n = len(curve)
    if n <= limit:
        return [[k, v] for k, v in enumerate(curve)]
    step = (n - 1) / (limit - 1)
    picks = sorted({round(i * step) for i in range(limit)})
    return [[k, curve[k]] for k in picks]


def _text_span(tokens: Sequence[str], text: str, probe: int = 3) -> tuple[int, int] | None:
    """The token range ``[start, end)`` the stored text came from: the first run of its first
    ``probe`` words and the last run of its last ones among the page's words."""
    words = text.split()
    if not words:
        return None
    where = [k for k, t in enumerate(tokens) if t[:1] != "<"]
    page = [html.unescape(tokens[k]) for k in where]
    first, last = words[:probe], words[-probe:]
    start = next((i for i in range(len(page) - len(first) + 1) if page[i : i + len(first)] == first), None)
    if start is None:
        return None
    end = next(
        (i for i in range(len(page) - len(last), start - 1, -1) if page[i : i + len(last)] == last), None
    )
    if end is None:
        return None
    return where[start], where[end + len(last) - 1] + 1


def curve_svg(
    points: Sequence[Sequence[int]],
    spans: Sequence[tuple[str, int, int]],
    *,
    title: str = "",
    width: int = 600,
    height: int = 260,
) -> str:
    """A self-contained SVG of the cumulative tag curve with ``spans`` (label, start, end: token
    ranges) shaded. Every text in it is escaped; it holds no script and no external reference."""
    pad_l, pad_r, pad_t, pad_b = 48, 12, 12, 36
    xmax = max((p[0] for p in points), default=1) or 1
    ymax = max((p[1] for p in points), default=1) or 1
    w, h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(v: float) -> float:
        return round(pad_l + w * v / xmax, 1)

    def y(v: float) -> float:
        return round(pad_t + h - h * v / ymax, 1)

    def esc(s: str) -> str:
        return html.escape(s, quote=True)

    label = title or "cumulative tag curve"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="{esc(label)}" class="curve">',
        f"<title>{esc(label)}</title>",
    ]
    colours = {"bte": "#4c9be8", "stored": "#e8a84c"}
    for k, (name, start, end) in enumerate(spans):
        colour = colours.get(name, "#9b4ce8")
        parts.append(
            f'<rect x="{x(start)}" y="{pad_t + 4 * k}" width="{max(x(end) - x(start), 1.0)}" '
            f'height="{h - 4 * k}" fill="{colour}" fill-opacity="0.25" class="span-{esc(name)}">'
            f"<title>{esc(name)}: tokens {start} to {end}</title></rect>"
        )
    line = " ".join(f"{x(p[0])},{y(p[1])}" for p in points)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#333333" stroke-width="1.2"/>')
    axis = 'stroke="#777777" stroke-width="1"'
    parts.append(f'<line x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}" {axis}/>')
    parts.append(f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + h}" {axis}/>')
    font = 'font-size="11" font-family="sans-serif" fill="#333333"'
    parts.append(f'<text x="{pad_l}" y="{height - 8}" {font}>0</text>')
    parts.append(f'<text x="{pad_l + w}" y="{height - 8}" text-anchor="end" {font}>{xmax} tokens read</text>')
    parts.append(f'<text x="{pad_l - 4}" y="{pad_t + 10}" text-anchor="end" {font}>{ymax}</text>')
    parts.append(
        f'<text x="12" y="{pad_t + h / 2}" transform="rotate(-90 12 {pad_t + h / 2})" '
        f'text-anchor="middle" {font}>tags seen</text>'
    )
    names = {"bte": "BTE span", "stored": "stored text"}
    for k, (name, _, _) in enumerate(spans):  # the legend, top left inside the plot
        at = pad_t + 6 + 16 * k
        colour = colours.get(name, "#9b4ce8")
        parts.append(
            f'<rect x="{pad_l + 8}" y="{at}" width="12" height="10" fill="{colour}" fill-opacity="0.5"/>'
            f'<text x="{pad_l + 24}" y="{at + 9}" {font}>{esc(names.get(name, name))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _content(coll: Collection, record: StoredRecord, decoded: Decoded | None) -> dict[str, Any]:
    text = record.text
    out: dict[str, Any] = {
        "title": record.title,
        "text": text[:TEXT_CHARS],
        "text_chars": len(text),
        "text_truncated": len(text) > TEXT_CHARS,
        "expected_f1": record.cells.get("meta", {}).get("metadata", {}).get("content_expected_f1"),
    }
    kind = record.capture.get("sniffed_type") or record.capture.get("declared_type")
    if decoded is None or not is_html(kind):
        out.update(available=bool(text), curve=None, svg=None)
        out["reason"] = "no token curve: not an HTML page" if decoded is not None or text else "no text"
        return out
    cfg = coll.config.extract
    ex: Extraction = extract(
        decoded.text,
        record.url,
        method=cfg.method or "auto",
        keep_curve=True,
        comments=cfg.comments,
    )
    curve: TokenCurve | None = ex.curve
    out.update(method=ex.method, score=round(ex.score, 4), cutoff=ex.cutoff, recomputed=True)
    if curve is None or not curve.tokens:
        out.update(curve=None, svg=None, reason="the page has no tokens")
        return out
    spans: list[tuple[str, int, int]] = []
    bte = next(iter(curve.spans), None)
    if bte is not None:
        spans.append(("bte", bte[0], bte[1]))
    stored = _text_span(curve.tokens, text)
    if stored is not None:
        spans.append(("stored", stored[0], stored[1]))
    points = _sample(curve.curve)
    out.update(
        tokens=len(curve.tokens),
        tags=curve.curve[-1],
        bte_span=list(bte) if bte is not None else None,
        bte_score=round(curve.score, 4),
        stored_span=list(stored) if stored is not None else None,
        curve=points,
        svg=curve_svg(points, spans, title=f"token curve of {record.url}"),
    )
    return out


# -- language, dedup -------------------------------------------------------------------------------


def _language(record: StoredRecord) -> dict[str, Any]:
    cell = record.cells.get("lang", {}).get("doc", {})
    if not cell.get("lang"):
        return _missing("no language was stored (language tagging off, or no text)")
    text = record.text
    passages: list[dict[str, Any]] = []
    chars: dict[str, int] = {}
    for p in cell.get("passages") or []:
        start, end = int(p.get("start", 0)), int(p.get("end", 0))
        lang = str(p.get("lang"))
        chars[lang] = chars.get(lang, 0) + max(end - start, 0)
        if len(passages) < MAX_ITEMS:
            passages.append({**p, "excerpt": text[start:end][:PASSAGE_EXCERPT]})
    return {
        "lang": cell.get("lang"),
        "score": cell.get("score"),
        "passages": passages,
        "passage_count": len(cell.get("passages") or []),
        "chars_by_lang": dict(sorted(chars.items(), key=lambda kv: -kv[1])),
    }


def _dedup_options(coll: Collection) -> DedupOptions:
    """The options ``trawl dedup`` runs with on this collection (its ``[dedup]`` settings)."""
    from trawl.cli.dedup import options_from  # noqa: PLC0415 - the CLI's own reading of [dedup]

    flags = argparse.Namespace(method=None, threshold=None, shingle=None, simhash_k=None, modp_p=None)
    return options_from(flags, coll.config.dedup)


def _dedup(coll: Collection, record: StoredRecord) -> dict[str, Any]:
    text = record.text
    options = _dedup_options(coll)
    out: dict[str, Any] = {
        "payload_digest": record.capture.get("payload_digest"),
        "text_digest": text_digest(text),
        "options": {"shingle": options.shingle, "num_perm": options.num_perm, "seed": options.seed},
    }
    words = word_hashes([text])
    if words.hashes.size:
        shingles = shingle_hashes(words, options.shingle)
        features = words if options.simhash_features == "words" else shingles
        fp = int(simhash_batch(features, options.simhash_weighting)[0])
        out["simhash_bits"] = format(fp, "064b")
        out["simhash_hex"] = f"{fp:016x}"
        signature = minhash_signatures(shingles, options.num_perm, options.seed)[0]
        out["minhash"] = [int(v) for v in np.asarray(signature[:16]).tolist()]
        out["shingles"] = int(shingles.counts[0])
    else:
        out["fingerprints_reason"] = "no words: an empty text has no simhash or MinHash"
    stored = record.cells.get("dup", {})
    cluster = stored.get("cluster")
    if isinstance(cluster, dict):
        links = list(cluster.get("links") or [])
        out.update(
            near=[
                _near_item(str(d.get("url")), d.get("similarity"), d.get("method"))
                for d in sorted(links, key=lambda d: -float(d.get("similarity") or 0))[:MAX_NEAR]
            ],
            near_source="stored by trawl dedup (the row's dup cells)",
            cluster={k: cluster.get(k) for k in ("representative", "is_representative", "size")},
            stored_fingerprint=stored.get("fingerprint"),
        )
        return out
    out.update(_near_from_index(coll, record, options, text))
    return out


def _near_item(url: str, similarity: Any, method: Any) -> dict[str, Any]:
    return {"url": url, "key": url_hash(url), "similarity": similarity, "method": method}


def _near_from_index(
    coll: Collection, record: StoredRecord, options: DedupOptions, text: str
) -> dict[str, Any]:
    """The near duplicates from the stored dedup search index, when it can answer as it is."""
    finder, rows, why = load_index(index_dir(coll.path), options, collection_state(coll))
    if finder is None:
        return {
            "near": [],
            "near_source": None,
            "near_reason": f"no near-duplicate data: {why}; run trawl dedup {coll.path} to store it",
        }
    exclude = rows.index(record.row) if record.row in rows else None
    pairs = finder.near(text, exclude=exclude, limit=MAX_NEAR)
    near = [_near_item(pair_row(finder, p)["b"], p.similarity, p.method) for p in pairs]
    return {"near": near, "near_source": "the stored dedup search index (index/dedup/near)"}


# -- versions, anchors, units ----------------------------------------------------------------------


def _versions(coll: Collection, record: StoredRecord) -> dict[str, Any]:
    versions = coll.versions(record.row)
    rows = []
    for v in versions[-MAX_ITEMS:]:
        capture = v.capture
        pointer = capture.get("pointer") or {}
        kind = "revisit (unchanged)" if v.revisit_of else str(capture.get("record_type") or "")
        if v.deleted:
            kind = str(v.deleted.get("reason") or "deleted")
        rows.append(
            {
                "fetched_at": capture.get("fetched_at"),
                "status": capture.get("status"),
                "kind": kind,
                "warc": f"{pointer.get('file')}@{pointer.get('offset')}" if pointer else None,
                "payload_digest": capture.get("payload_digest"),
                "title": v.title,
                "current": capture.get("id") == record.capture.get("id"),
            }
        )
    return {"count": len(versions), "versions": rows}


def _anchors(record: StoredRecord) -> dict[str, Any]:
    anchors = sorted(record.anchors.items())
    return {
        "count": len(anchors),
        "anchors": [{"from": url, "key": url_hash(url), "text": text} for url, text in anchors[:MAX_ITEMS]],
    }


def _units(coll: Collection, record: StoredRecord) -> dict[str, Any]:
    unit = record.unit
    parent = None
    if unit is not None:
        try:
            found = coll.parent(record.row)
            parent = {"url": found.url, "title": found.title, "kind": unit.get("kind")}
        except RecordNotFound:
            parent = {"url": str(unit.get("parent") or ""), "title": None, "kind": unit.get("kind")}
        parent["key"] = url_hash(parent["url"]) if parent["url"] else None
    row = record.row
    prefix = row + ("/" if UNIT_FRAGMENT in row else UNIT_FRAGMENT)
    # a bounded prefix scan (an mbox may hold 100,000 messages): the first units, in their order
    scanned = itertools.islice(coll.records(prefix), 10 * MAX_ITEMS)
    found_children = [r for r in scanned if "/" not in r.row[len(prefix) :]]

    def position(r: StoredRecord) -> tuple[str, float, str]:
        at = (r.unit or {}).get("position")
        return (r.row[len(prefix) :].rpartition("-")[0], at if isinstance(at, int) else math.inf, r.row)

    children = [
        {
            "url": r.url,
            "key": url_hash(r.url),
            "kind": (r.unit or {}).get("kind"),
            "position": (r.unit or {}).get("position"),
            "span": (r.unit or {}).get("span"),
            "title": r.title,
        }
        for r in sorted(found_children, key=position)[:MAX_ITEMS]
    ]
    if parent is None and not children:
        return _missing("no document units: it was cut from no document and none were cut from it")
    return {"unit": unit, "parent": parent, "children": children, "children_shown": len(children)}


# -- the journey -----------------------------------------------------------------------------------


def journey(coll: Collection, key: str) -> dict[str, Any]:
    """Everything trawl did to the document ``key`` names, stage by stage (module docstring).

    Raises :class:`~trawl.errors.RecordNotFound` when no stored document answers to ``key``.
    """
    record = coll.find(key)
    timings: dict[str, float] = {}
    capture = record.capture
    out: dict[str, Any] = {
        "key": key,
        "url": record.url,
        "surt": record.row,
        "url_hash": url_hash(record.url),
        "title": record.title,
        "fetched_at": capture.get("fetched_at"),
        "deleted": record.deleted,
        "timings": timings,
    }
    doc: Document | None = None
    body: Payload | None = None
    why = "the capture could not be read"
    if record.deleted:
        why = "this version is a tombstone (the file is gone); older captures are under versions"
    else:
        try:
            doc = coll.read(record)
            body = entity_body(doc, coll.config.decode.max_body_bytes)
        except TrawlError as exc:
            why = f"the capture could not be read: {exc}"
    decoded: Decoded | None = None
    if doc is not None and body is not None:
        read_doc, read_body = doc, body
        out["request"] = _section("request", lambda: _request(coll, record), timings)
        out["response"] = _section("response", lambda: _response(record, read_doc), timings)
        stored_encoding = record.cells.get("meta", {}).get("decode", {}).get("encoding")
        out["raw"] = _section("raw", lambda: _raw(read_doc, read_body, stored_encoding), timings)
        out["sniff"] = _section("sniff", lambda: _sniff(record, read_body.data), timings)
        t0 = time.perf_counter()
        try:
            out["decoding"], decoded = _decoding(coll, record, read_doc, read_body.data)
        except Exception as exc:  # isolation, as in _section
            out["decoding"] = _missing(f"decoding could not be shown: {type(exc).__name__}: {exc}")
        out["decoding"].setdefault("available", True)
        timings["decoding"] = round(time.perf_counter() - t0, 4)
    else:
        for name in ("request", "response", "raw", "sniff", "decoding"):
            out[name] = _missing(why)
    out["content"] = _section("content", lambda: _content(coll, record, decoded), timings)
    out["language"] = _section("language", lambda: _language(record), timings)
    out["dedup"] = _section("dedup", lambda: _dedup(coll, record), timings)
    out["versions"] = _section("versions", lambda: _versions(coll, record), timings)
    out["anchors"] = _section("anchors", lambda: _anchors(record), timings)
    out["units"] = _section("units", lambda: _units(coll, record), timings)
    return out
