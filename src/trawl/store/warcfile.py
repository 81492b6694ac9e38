"""The WARC record format: parsing one record into a :class:`Document`, and writing records.

This module is the one place that knows how a WARC record's bytes map to a ``Document`` and back:

* :func:`parse_warc_head`, :func:`parse_http_head` and :func:`record_document` turn the header
  block and the content block of one record into a ``Document``. The streaming reader
  (:class:`trawl.acquire.warc.WarcSource`, which frames records, decompresses, filters and
  recovers from bad input) and :func:`read_record_at` (random access into the collection) both
  call them, so there is a single parser. It lives here, in the bottom ``store`` layer, because
  ``acquire`` may depend on ``store`` but not the other way round.
* :class:`WarcFileWriter` writes WARC/1.1 files with one gzip member (or one zstd frame) per
  record, so that a :class:`~trawl.document.WarcPointer` (file, offset, compressed length) reaches
  exactly one record with one seek and one read, as Common Crawl's index does.

zstd files (``.warc.zst``, codec ``zstd``) may compress a record against a *reference*: the bytes
of an earlier record of the same site used as a raw-content zstd dictionary (pages of one site
share their templates, so the second page of a site costs a fraction of the first). Reading such
a record needs that reference (:func:`read_record_at`'s ``dictionary``); the collection keeps,
per site, the pointer of its reference record, and each row names the reference it was written
with. A frame written without a reference decompresses with any zstd tool.

Header values are decoded as UTF-8 (WARC/1.1 allows it), falling back to ISO-8859-1 for HTTP
headers that are not valid UTF-8, so that no byte is lost.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import uuid
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime
from functools import lru_cache
from http import HTTPStatus
from itertools import repeat
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Self, cast

from trawl.document import Document, WarcPointer, utcnow
from trawl.errors import MissingDependency, RecordNotFound, StoreError, WarcFormatError, quote_bytes
from trawl.store.disk import cut_back, disk_error, write_all

__all__ = [
    "IDENTICAL_PAYLOAD",
    "SERVER_NOT_MODIFIED",
    "WARC_CODECS",
    "WarcFileWriter",
    "WarcRecordError",
    "block_length",
    "content_type",
    "http_reason",
    "http_status",
    "is_http",
    "odd_spacing",
    "parse_http_head",
    "parse_warc_date",
    "parse_warc_head",
    "payload_digest",
    "raw_dictionary",
    "read_frame",
    "read_record_at",
    "read_span",
    "record_document",
    "record_payload",
    "salvage_warc_head",
]

Headers = list[tuple[str, str]]

#: WARC field names in the case the standard spells them; lookups go through these.
_CANONICAL: Final = {
    name.lower(): name
    for name in (
        "WARC-Type",
        "WARC-Record-ID",
        "WARC-Date",
        "WARC-Target-URI",
        "WARC-TREC-ID",
        "Content-Length",
        "Content-Type",
        "WARC-Payload-Digest",
        "WARC-Block-Digest",
        "WARC-Refers-To",
        "WARC-Refers-To-Target-URI",
        "WARC-Refers-To-Date",
        "WARC-Profile",
        "WARC-Truncated",
        "WARC-Warcinfo-ID",
        "WARC-Filename",
        "WARC-Concurrent-To",
        "WARC-IP-Address",
        "WARC-Identified-Payload-Type",
    )
}
_HTTP_TYPES: Final = frozenset({"response", "revisit", "request"})
_GZIP_MAGIC: Final = b"\x1f\x8b"
_ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
#: how a WARC file's records are compressed: one gzip member each, one zstd frame each, or none
WARC_CODECS: Final = ("gzip", "zstd", "none")
_COMPRESSORS_KEPT: Final = 32  # zstd compressors with a reference dictionary kept ready (one per site)
_MAX_HEAD: Final = 1 << 20  # a WARC or HTTP header block larger than this is not a header
# arguments for dict(map(str.split, lines, _SEP, _ONE)): "Name: value" lines split in C
_split: Final = str.split
_SEP: Final = repeat(": ")
_ONE: Final = repeat(1)


class WarcRecordError(WarcFormatError):
    """One malformed record, with the short kebab-case ``code`` a reader counts it under.

    ``code`` is a drop reason such as ``warc/bad-header`` or ``warc/bad-content-length``;
    the message quotes the offending bytes.
    """

    def __init__(
        self, code: str, message: str, *, offset: int | None = None, source: str | None = None
    ) -> None:
        super().__init__(message, offset=offset, source=source)
        self.code = code


# ---------------------------------------------------------------------------------------------
# parsing


def _decode_header(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:  # legacy servers send ISO-8859-1; keep every byte
        return data.decode("latin-1")


def _slow_fields(lines: Iterable[str], what: str) -> Headers:
    """Parse header lines the lenient way: folded continuations, ``Name:value``, stray spaces.

    Raises :class:`WarcRecordError` ``warc/bad-header`` on a line that is not ``Name: value``.
    """
    out: Headers = []
    for line in lines:
        if not line:
            continue
        if line[0] in " \t":  # obsolete line folding: the line continues the previous value
            if not out:
                raise WarcRecordError(
                    "warc/bad-header", f"{what} starts with a continuation line {quote_bytes(line.encode())}"
                )
            name, value = out[-1]
            out[-1] = (name, f"{value} {line.strip()}".strip())
            continue
        name, sep, value = line.partition(":")
        name = name.strip()
        if not sep or not name or " " in name or "\t" in name:
            raise WarcRecordError(
                "warc/bad-header",
                f"{what} has a line that is not 'Name: value': {quote_bytes(line.encode())}",
            )
        out.append((name, value.strip()))
    return out


def odd_spacing(text: str) -> bool:
    """Does a header block hold spacing that a plain one-split parse would get wrong or keep?

    (Padded values, tabs, folded lines.) Such blocks go to the lenient parser. A few substring
    scans: much cheaper than one regular expression with alternatives.
    """
    return "  " in text or "\t" in text or " \r\n" in text or "\r\n " in text


def _canonical(headers: Headers) -> dict[str, str]:
    return {_CANONICAL.get(name.lower(), name): value for name, value in headers}


def parse_warc_head(text: str) -> tuple[Headers, dict[str, str]]:
    """Parse a WARC header block: the version line, the fields and the blank line that ends them.

    ``text`` is the header block exactly as stored (``"WARC/1.1\\r\\nWARC-Type: ...\\r\\n\\r\\n"``).
    Returns the fields in order and a lookup dict keyed by the standard spelling of each name
    (``WARC-Type``, ``Content-Length``...). The common case (CRLF lines, ``Name: value``, no
    repeated name) runs in C: one split, one ``dict(map(...))``, one ``items()``. Anything else
    goes through the lenient parser, which accepts LF line ends, folded lines and
    ``Name:value``, and raises :class:`WarcRecordError` (``warc/bad-header``) on a line that is
    not a header at all.
    """
    if not text.startswith("WARC/1."):
        raise WarcRecordError(
            "warc/bad-header", f"record does not start with a WARC/1.x line: {quote_bytes(text.encode())}"
        )
    if text.endswith("\r\n\r\n") and not odd_spacing(text):
        lines = text[text.find("\r\n") + 2 : -4].split("\r\n")
        try:
            fields: dict[str, str] = dict(map(_split, lines, _SEP, _ONE))  # ValueError: a line without ": "
        except ValueError:
            pass
        else:
            names = "".join(fields)
            if (
                " " not in names
                and "\t" not in names
                and "WARC-Type" in fields
                and "Content-Length" in fields
            ):
                if len(fields) == len(lines):
                    return list(fields.items()), fields
                return cast(Headers, [tuple(line.split(": ", 1)) for line in lines]), fields
    pairs = _slow_fields(text.replace("\r\n", "\n").split("\n")[1:], "WARC header")
    return pairs, _canonical(pairs)


def _tolerant_fields(text: str) -> tuple[Headers, list[str]]:
    """The ``Name: value`` fields of a header block after its first line, read as RFC 9112
    reads HTTP: bare LF ends a line, an obs-fold line continues the previous field's value
    (joined with one SP), a line that is not ``token: value`` is skipped (returned, for the
    caller to report)."""
    fields: Headers = []
    skipped: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n")[1:]:
        if not line:
            continue
        if line[0] in " \t" and fields:  # obsolete line folding
            name, value = fields[-1]
            fields[-1] = (name, f"{value} {line.strip()}".strip())
            continue
        name, sep, value = line.partition(":")
        name = name.strip()
        if not sep or not name or " " in name or "\t" in name or line[0] in " \t":
            skipped.append(line)
            continue
        fields.append((name, value.strip()))
    return fields, skipped


def salvage_warc_head(block: bytes) -> tuple[Headers, dict[str, str], str | None]:
    """Read a WARC header block that :func:`parse_warc_head` rejects, the way HTTP heads are read.

    ``block`` is the header block as stored, version line included. A line that is not
    ``Name: value`` is skipped, not fatal; returns the fields, the lookup dict (standard
    spellings) and what was skipped (quoted), for the reader to note on the record it keeps.
    """
    text = _decode_header(block[:_MAX_HEAD])
    pairs, skipped = _tolerant_fields(text)
    problem = None
    if skipped:
        problem = f"skipped WARC header line {quote_bytes(skipped[0].encode())}"
        if len(skipped) > 1:
            problem += f" and {len(skipped) - 1} more"
    return pairs, _canonical(pairs), problem


def block_length(fields: dict[str, str]) -> int:
    """The record's Content-Length, or :class:`WarcRecordError` ``warc/bad-content-length``."""
    value = fields.get("Content-Length")
    if value is None:
        raise WarcRecordError("warc/bad-content-length", "record has no Content-Length field")
    if not (value.isascii() and value.isdigit()):  # int() takes "+1", " 1", "1_000"; isdigit "4¹3"
        raise WarcRecordError(
            "warc/bad-content-length", f"Content-Length is not a number: {quote_bytes(value.encode())}"
        )
    return int(value)


@lru_cache(maxsize=4096)
def parse_warc_date(value: str) -> datetime | None:
    """A WARC-Date (W3C-DTF / ISO 8601, ``Z`` or offset, optional fraction) as an aware UTC time.

    Cached: the records of one crawl share a few thousand distinct seconds at most. Returns
    ``None`` for a value that is not a date; the caller records that on the document.
    """
    text = value.strip()
    if text[-1:] in ("z", "Z"):
        text = text[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        if len(text) == 14 and text.isdigit():  # ARC dates: YYYYmmddHHMMSS
            try:
                when = datetime.strptime(text, "%Y%m%d%H%M%S")
            except ValueError:
                return None
        else:
            return None
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def http_status(line: str) -> tuple[int | None, str | None]:
    """The status code of an HTTP status line (``None`` for a request line), and a problem, if any."""
    if not line.startswith("HTTP/"):
        return None, None
    code = line[9:12] if line[8:9] == " " else line.partition(" ")[2][:3]
    if len(code) == 3 and code.isdigit():
        return int(code), None
    return None, f"unparsable HTTP status line {quote_bytes(line.encode())}"


def is_http(fields: dict[str, str], block: bytes) -> bool:
    """Is this record's block an HTTP message? (response, revisit or request records whose
    Content-Type is ``application/http``, or whose block starts with ``HTTP/``)."""
    if fields.get("WARC-Type") not in _HTTP_TYPES:
        return False
    declared = fields.get("Content-Type")
    return (declared is not None and declared.startswith("application/http")) or block.startswith(b"HTTP/")


def parse_http_head(block: bytes) -> tuple[int | None, Headers, int, str | None]:
    """Split an HTTP message (as stored in a WARC block) into status, headers and payload start.

    Returns ``(status, headers, payload_offset, problem)``: ``status`` is ``None`` for a request
    or an unparsable status line; ``payload_offset`` is where the entity body starts in
    ``block`` (``len(block)`` when the block is only a header, as in most revisit records);
    ``problem`` describes anything that had to be skipped (quoted), else ``None``. Lenient on
    purpose: these headers come from arbitrary servers, so a bad line is skipped, not fatal.
    """
    end = block.find(b"\r\n\r\n", 0, _MAX_HEAD)
    if end >= 0:
        head, start = block[:end], end + 4
    else:
        end = block.find(b"\n\n", 0, _MAX_HEAD)
        if end >= 0:
            head, start = block[:end], end + 2
        else:  # a header without the blank line (revisits, truncated captures)
            head = block[:_MAX_HEAD]
            start = len(head)
            head = head.rstrip(b"\r\n")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:  # legacy servers send ISO-8859-1; keep every byte
        text = head.decode("latin-1")
    lines = text.split("\r\n")
    first = lines[0]
    status, problem = http_status(first)
    del lines[0]
    # the C route only for plain blocks: CRLF lines only (no bare LF), no folds or odd spacing
    if text.count("\n") == len(lines) and not odd_spacing(text):
        try:
            fields: dict[str, str] = dict(map(_split, lines, _SEP, _ONE))
        except ValueError:
            pass
        else:
            names = "".join(fields)
            if " " not in names and "\t" not in names and "" not in fields:
                if len(fields) == len(lines):
                    return status, list(fields.items()), start, problem
                return status, cast(Headers, [tuple(line.split(": ", 1)) for line in lines]), start, problem
    # RFC 9112: bare LF ends a line (§2.2); an obs-fold line continues the previous field's value,
    # joined with one SP (§5.2); a line that is not "token: value" is skipped and reported
    headers, skipped = _tolerant_fields(text)
    if skipped and problem is None:
        problem = f"skipped HTTP header line {quote_bytes(skipped[0].encode())}"
        if len(skipped) > 1:
            problem += f" and {len(skipped) - 1} more"
    return status, headers, start, problem


def content_type(headers: Headers) -> str | None:
    """The value of the first Content-Type header, whatever the case of its name."""
    for key, value in headers:
        if len(key) == 12 and key.lower() == "content-type":
            return value
    return None


#: What :func:`record_payload` returns: status, HTTP headers, raw payload, declared type, problem.
Payload = tuple[int | None, Sequence[tuple[str, str]], bytes, str | None, str | None]


def record_payload(fields: dict[str, str], block: bytes) -> Payload:
    """Split one record's block into what a ``Document`` keeps of it.

    HTTP records (response, revisit or request with an ``application/http`` block, or a block
    that starts with ``HTTP/``) give ``status``, the HTTP headers and ``raw`` = the entity body
    exactly as stored (no dechunking, no decompression), and the HTTP Content-Type as declared
    type; any other record gives ``raw`` = the whole block and the record's Content-Type.
    Readers call this before building the document, so their content-type filter is cheap.
    """
    if is_http(fields, block):
        status, http_headers, start, problem = parse_http_head(block)
        return status, http_headers, block[start:], content_type(http_headers), problem
    return None, [], block, fields.get("Content-Type"), None


_POSITIONAL: Final = (
    "url", "docno", "fetched_at", "status", "http_headers", "raw",
    "record_type", "record_id", "warc_headers", "source", "warc", "declared_type",
)  # fmt: skip
if tuple(f.name for f in dataclass_fields(Document))[: len(_POSITIONAL)] != _POSITIONAL:
    raise TypeError(f"record_document passes Document's fields {_POSITIONAL} by position: update it")


def record_document(headers: Headers, fields: dict[str, str], payload: Payload, source: str) -> Document:
    """Build the ``Document`` of one parsed record (the mapping every trawl reader shares).

    ``url`` = WARC-Target-URI, ``fetched_at`` = WARC-Date (aware UTC), ``docno`` = WARC-TREC-ID,
    ``warc_headers`` = the fields in order; problems met on the way (an unparsable HTTP status
    line, a bad date) are recorded in ``doc.errors`` rather than dropping the record.
    """
    status, http_headers, raw, declared, problem = payload
    url = fields.get("WARC-Target-URI", "")
    if url[:1] == "<" and url[-1:] == ">":  # WARC/1.0 examples wrote <uri>; some tools copied them
        url = url[1:-1]
    date = fields.get("WARC-Date")
    when = parse_warc_date(date) if date else None
    # positional: a 40-field __init__ matches keywords one by one (2.5x the cost); the order
    # is checked against Document's fields when this module is imported
    doc = Document(
        url,
        fields.get("WARC-TREC-ID"),
        when,
        status,
        http_headers,
        raw,
        fields.get("WARC-Type", ""),
        fields.get("WARC-Record-ID"),
        headers,
        source,
        None,
        declared,
    )
    if problem is not None:
        doc.error("warc", problem)
    if date and when is None:
        doc.error("warc", f"unparsable WARC-Date {quote_bytes(date.encode())}")
    return doc


def _gunzip_member(data: bytes, where: str) -> tuple[bytes, int]:
    """Decompress the gzip member at the start of ``data``; returns (record bytes, member length)."""
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(data)
    except zlib.error as exc:
        raise WarcFormatError(f"{where}: corrupt gzip member ({exc}); is the offset a record start?") from exc
    if not inflater.eof:
        raise WarcFormatError(f"{where}: gzip member is truncated after {len(data)} bytes")
    return out, len(data) - len(inflater.unused_data)


def _zstandard() -> Any:
    try:
        import zstandard  # noqa: PLC0415 - only zstd-compressed WARC files need it
    except ImportError as exc:
        raise MissingDependency("zstandard", "zstd", "zstd-compressed WARC files") from exc
    return zstandard


def raw_dictionary(reference: bytes) -> Any:
    """A zstd raw-content dictionary made of ``reference`` (an earlier record's bytes)."""
    zstd = _zstandard()
    return zstd.ZstdCompressionDict(reference, dict_type=zstd.DICT_TYPE_RAWCONTENT)


def _unzstd_frame(data: bytes, where: str, dictionary: bytes | None) -> tuple[bytes, int]:
    """Decompress the zstd frame at the start of ``data``; returns (record bytes, frame length)."""
    zstd = _zstandard()
    decompressor = zstd.ZstdDecompressor(dict_data=raw_dictionary(dictionary) if dictionary else None)
    inflater = decompressor.decompressobj()
    try:
        out = inflater.decompress(data)
    except zstd.ZstdError as exc:
        hint = "" if dictionary else " (a record compressed against a reference needs that reference)"
        raise WarcFormatError(f"{where}: corrupt zstd frame ({exc}){hint}") from exc
    if not inflater.eof:
        raise WarcFormatError(f"{where}: zstd frame is truncated after {len(data)} bytes")
    return out, len(data) - len(inflater.unused_data)


def read_span(path: Path, offset: int, length: int, kind: str) -> bytes:
    """The ``length`` bytes at ``offset`` of a store file (``kind``: "WARC", "TREC"), or
    :class:`RecordNotFound` naming ``file@offset`` when it cannot be read or is too short."""
    where = f"{os.fspath(path)}@{offset}"
    try:
        with Path(path).open("rb") as fh:
            fh.seek(offset)
            data = fh.read(length)
    except OSError as exc:
        raise RecordNotFound(f"{where}: cannot read {kind} file: {exc.strerror or exc}") from exc
    if len(data) < length:
        raise RecordNotFound(f"{where}: pointer length {length} runs past the end of the file")
    return data


def read_frame(path: Path, offset: int, length: int, *, dictionary: bytes | None = None) -> bytes:
    """The uncompressed bytes of the one zstd frame at ``offset`` (``dictionary``: its reference)."""
    data = read_span(path, offset, length, "WARC")
    return _unzstd_frame(data, f"{os.fspath(path)}@{offset}", dictionary)[0]


def _parse_one(data: bytes, where: str, source: str) -> Document:
    """Parse the single record that ``data`` starts with (no framing recovery: a pointer is exact)."""
    if not data.startswith(b"WARC/1."):
        raise WarcFormatError(
            f"{where}: no WARC record starts here, found {quote_bytes(data)}; is the offset a record start?"
        )
    end = data.find(b"\r\n\r\n", 0, _MAX_HEAD)
    if end < 0:
        raise WarcFormatError(f"{where}: WARC header does not end: {quote_bytes(data)}")
    try:
        headers, fields = parse_warc_head(_decode_header(data[: end + 4]))
        length = block_length(fields)
    except WarcRecordError as exc:
        raise WarcFormatError(f"{where}: {exc}") from exc
    start = end + 4
    if len(data) < start + length:
        raise WarcFormatError(
            f"{where}: record declares Content-Length {length} but only {len(data) - start} bytes follow"
        )
    return record_document(headers, fields, record_payload(fields, data[start : start + length]), source)


def read_record_at(
    path: Path, offset: int, length: int | None = None, *, dictionary: bytes | None = None
) -> Document:
    """Read the one record that starts at ``offset`` of the WARC file ``path``.

    ``dictionary``: for a zstd record written against a reference, that reference's bytes.

    With ``length`` (the pointer's length) this is one seek and one read of exactly that many
    bytes; without it, the member (or plain record) is read until it ends. Only that record is
    decompressed. The document's ``warc`` pointer is set to where it was read from.
    Raises :class:`RecordNotFound` when the file or offset does not exist and
    :class:`WarcFormatError` when the bytes there are not one whole WARC record.
    """
    where = f"{os.fspath(path)}@{offset}"
    if offset < 0 or (length is not None and length <= 0):
        raise RecordNotFound(f"{where}: invalid pointer (offset {offset}, length {length})")
    try:
        fh = Path(path).open("rb")  # noqa: SIM115 - closed by the with-statement below; opening is what may fail
    except OSError as exc:
        raise RecordNotFound(f"{where}: cannot open WARC file: {exc.strerror or exc}") from exc
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if offset >= size:
            raise RecordNotFound(f"{where}: offset is past the end of the file ({size} bytes)")
        fh.seek(offset)
        if length is not None:
            data = fh.read(length)
            if len(data) < length:
                raise RecordNotFound(
                    f"{where}: pointer length {length} runs past the end of the file ({size} bytes)"
                )
        else:
            data = fh.read(65536)
        if data.startswith(_GZIP_MAGIC):
            if length is None:  # read on until the member ends
                while True:
                    inflater = zlib.decompressobj(31)
                    try:
                        inflater.decompress(data)
                    except zlib.error:
                        break
                    if inflater.eof:
                        break
                    more = fh.read(max(65536, len(data)))
                    if not more:
                        break
                    data += more
            record, used = _gunzip_member(data, where)
            if length is not None and used != length:
                raise WarcFormatError(
                    f"{where}: pointer length {length} does not match the gzip member ({used} bytes)"
                )
        elif data.startswith(_ZSTD_MAGIC):
            if length is None:  # read on until the frame ends
                while True:
                    try:
                        _unzstd_frame(data, where, dictionary)
                        break
                    except WarcFormatError as exc:
                        more = fh.read(max(65536, len(data))) if "truncated" in str(exc) else b""
                        if not more:
                            break
                        data += more
            record, used = _unzstd_frame(data, where, dictionary)
            if length is not None and used != length:
                raise WarcFormatError(
                    f"{where}: pointer length {length} does not match the zstd frame ({used} bytes)"
                )
        else:
            record = data
            used = len(data)
            if length is None:
                end = data.find(b"\r\n\r\n")
                if end > 0:
                    try:
                        need = end + 4 + block_length(parse_warc_head(_decode_header(data[: end + 4]))[1]) + 4
                    except WarcRecordError as exc:
                        raise WarcFormatError(f"{where}: {exc}") from exc
                    if need > len(data):
                        record = data + fh.read(need - len(data))
                    used = min(need, len(record))
    doc = _parse_one(record, where, where)
    doc.warc = WarcPointer(Path(path).name, offset, used)
    return doc


# ---------------------------------------------------------------------------------------------
# writing


def http_reason(status: int) -> str:
    """The standard reason phrase for ``status`` (``OK``, ``Not Found``), or ``""`` if unknown."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def payload_digest(payload: bytes) -> str:
    """``WARC-Payload-Digest`` of a payload: SHA-1 in base32, as warcio and Common Crawl write it."""
    return _sha1(payload)


def _clean(value: str) -> str:
    """Header values cannot hold line breaks: they would end the header block."""
    if "\r" in value or "\n" in value:
        return value.replace("\r", " ").replace("\n", " ")
    return value


def _warc_date(when: datetime | None) -> str:
    when = when or utcnow()
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    when = when.astimezone(UTC)
    if when.microsecond:  # WARC/1.1 allows fractions; keep them rather than lose ordering
        return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _record_id(doc_id: str | None) -> str:
    if doc_id and doc_id.startswith("<urn:") and doc_id.endswith(">"):
        return doc_id
    return f"<urn:uuid:{uuid.uuid4()}>"


def _record_bytes(headers: Sequence[tuple[str, str]], block: bytes) -> bytes:
    head = "WARC/1.1\r\n" + "".join(f"{name}: {_clean(value)}\r\n" for name, value in headers) + "\r\n"
    return head.encode("utf-8") + block + b"\r\n\r\n"


_KEEP_FROM_SOURCE: Final = ("WARC-IP-Address", "WARC-Truncated", "WARC-Identified-Payload-Type")
_REVISIT_FIELDS: Final = ("WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date")
_IDENTICAL_PAYLOAD: Final = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
#: the WARC-Profile of a revisit record whose payload is identical to the record it refers to
IDENTICAL_PAYLOAD: Final = _IDENTICAL_PAYLOAD
#: the WARC-Profile of a revisit record of an unchanged page the server did not send again (304)
SERVER_NOT_MODIFIED: Final = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
_FILE_RE_TEMPLATE: Final = r"^{prefix}-\d{{14}}-(\d{{5,}})\.warc(?:\.gz|\.zst)?$"


class WarcFileWriter:
    """Writes documents as WARC/1.1 records, one gzip member (or zstd frame) each, rotating files by size.

    Each file starts with a ``warcinfo`` record and is named
    ``{prefix}-{YYYYmmddHHMMSS}-{serial:05d}.warc.gz`` (``.warc.zst`` with the ``zstd`` codec,
    ``.warc`` uncompressed); the serial continues after the highest one
    already in ``directory`` and files are created exclusively, so existing files are never
    overwritten or appended to. A new file is started once the current one reaches
    ``max_bytes``. :meth:`write` returns the :class:`WarcPointer` of the record; call
    :meth:`flush` before reading a pointer of a file that is still open.

    Record choice: a document with ``status`` → ``response`` (``application/http`` block: status
    line, ``http_headers``, blank line, ``raw``); ``record_type == "revisit"`` → ``revisit``
    (HTTP headers only, keeping ``WARC-Refers-To*`` and ``WARC-Profile``); anything else →
    ``resource`` with ``declared_type`` as its Content-Type. Digests are SHA-1 in base32, as
    warcio and Common Crawl write them.

    ``codec`` (``gzip``, ``zstd`` or ``none``; default from ``compress``) and ``level`` (zlib or
    zstd level) choose the compression. With ``zstd``, :meth:`write` takes an optional
    ``dictionary``: an earlier record's bytes (:attr:`last_record`) to compress this one against.
    """

    def __init__(
        self,
        directory: Path,
        *,
        prefix: str = "trawl",
        max_bytes: int = 1 << 30,
        compress: bool = True,
        software: str = "trawl/0.1.0",
        level: int = 6,
        codec: str | None = None,
    ) -> None:
        codec = codec if codec is not None else ("gzip" if compress else "none")
        if codec not in WARC_CODECS:
            raise StoreError(f"unknown WARC codec {codec!r}: choose one of {', '.join(WARC_CODECS)}")
        if codec == "zstd":
            _zstandard()
            if not 1 <= level <= 22:
                raise StoreError(f"zstd level {level} is outside 1..22")
        elif not 0 <= level <= 9:
            raise StoreError(f"zlib level {level} is outside 0..9")
        self.codec = codec
        self.directory = Path(directory)
        self.prefix = prefix
        self.max_bytes = max_bytes
        self.compress = codec != "none"
        #: the uncompressed bytes of the record written last (a candidate reference for its site)
        self.last_record = b""
        self._zstd: dict[str, Any] = {}
        self.software = software
        self.level = level
        self._fh: IO[bytes] | None = None
        self._name = ""
        self._size = 0
        self._warcinfo_id = ""
        self._files: list[str] = []
        self._closed = False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            pattern = re.compile(_FILE_RE_TEMPLATE.format(prefix=re.escape(prefix)))
            serials = [int(m.group(1)) for p in self.directory.iterdir() if (m := pattern.match(p.name))]
        except OSError as exc:
            raise StoreError(
                f"cannot use {os.fspath(directory)!r} for WARC files: {exc.strerror or exc}"
            ) from exc
        self._serial = max(serials, default=-1) + 1

    @property
    def files(self) -> list[str]:
        """Names (relative to ``directory``) of the files this writer created, in order."""
        return list(self._files)

    def _pack(self, record: bytes, dictionary: bytes | None = None, key: str = "") -> bytes:
        if self.codec == "none":
            return record
        if self.codec == "zstd":
            return bytes(self._zstd_compressor(dictionary, key).compress(record))
        packer = zlib.compressobj(self.level, zlib.DEFLATED, 31)
        return packer.compress(record) + packer.flush()

    def _zstd_compressor(self, dictionary: bytes | None, key: str) -> Any:
        """A compressor per reference, kept for the sites written most recently (digesting a
        reference costs more than compressing a small page against it)."""
        key = key if dictionary else ""
        compressor = self._zstd.pop(key, None)
        if compressor is None:
            zstd = _zstandard()
            cdict = None
            if dictionary:
                cdict = raw_dictionary(dictionary)
                cdict.precompute_compress(level=self.level)
            compressor = zstd.ZstdCompressor(
                level=self.level, dict_data=cdict, write_checksum=True, write_content_size=True
            )
            if len(self._zstd) >= _COMPRESSORS_KEPT:
                self._zstd.pop(next(iter(self._zstd)))
        self._zstd[key] = compressor  # most recently used last
        return compressor

    def _open_next(self) -> IO[bytes]:
        ext = {"gzip": ".warc.gz", "zstd": ".warc.zst", "none": ".warc"}[self.codec]
        while True:
            stamp = utcnow().strftime("%Y%m%d%H%M%S")
            name = f"{self.prefix}-{stamp}-{self._serial:05d}{ext}"
            self._serial += 1
            try:
                # unbuffered: a record the disk refused is cut off, not kept for a later flush
                fh = (self.directory / name).open("xb", buffering=0)
            except FileExistsError:
                continue  # another writer took this serial: take the next one
            except OSError as exc:
                raise StoreError(f"cannot create WARC file {name!r}: {exc.strerror or exc}") from exc
            break
        self._fh, self._name, self._size = fh, name, 0
        self._files.append(name)
        self._warcinfo_id = f"<urn:uuid:{uuid.uuid4()}>"
        info = (
            f"software: {self.software}\r\n"
            "format: WARC File Format 1.1\r\n"
            "conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
        ).encode()
        headers = [
            ("WARC-Type", "warcinfo"),
            ("WARC-Record-ID", self._warcinfo_id),
            ("WARC-Date", _warc_date(None)),
            ("WARC-Filename", name),
            ("Content-Type", "application/warc-fields"),
            ("Content-Length", str(len(info))),
            ("WARC-Block-Digest", _sha1(info)),
        ]
        try:
            self._emit(_record_bytes(headers, info))
        except StoreError:
            self._size = self.max_bytes  # no warcinfo: the next record starts a new file
            raise
        return fh

    def _emit(self, record: bytes, dictionary: bytes | None = None, key: str = "") -> WarcPointer:
        return self.append(record, self._pack(record, dictionary, key))

    def _headers_and_block(self, doc: Document) -> tuple[list[tuple[str, str]], bytes]:
        source = {name.lower(): value for name, value in doc.warc_headers}
        headers = [
            ("WARC-Type", ""),  # filled below
            ("WARC-Record-ID", _record_id(doc.record_id)),
            ("WARC-Date", _warc_date(doc.fetched_at)),
            ("WARC-Target-URI", _clean(doc.url).replace(" ", "%20")),
            ("WARC-Warcinfo-ID", self._warcinfo_id),
        ]
        if doc.docno:
            headers.append(("WARC-TREC-ID", doc.docno))
        headers.extend((name, source[name.lower()]) for name in _KEEP_FROM_SOURCE if name.lower() in source)
        payload_digest = _sha1(doc.raw)
        if doc.record_type == "revisit":
            rtype = "revisit"
            if doc.status is not None:
                block = self._http_head(doc)
                ctype = "application/http; msgtype=response"
            else:
                block = b""
                ctype = doc.declared_type or "application/octet-stream"
            if not doc.raw and "warc-payload-digest" in source:
                payload_digest = source["warc-payload-digest"]  # the original's payload
            headers.append(("WARC-Profile", source.get("warc-profile", _IDENTICAL_PAYLOAD)))
            headers.extend((name, source[name.lower()]) for name in _REVISIT_FIELDS if name.lower() in source)
        elif doc.status is not None:
            rtype = "response"
            block = self._http_head(doc) + doc.raw
            ctype = "application/http; msgtype=response"
        else:
            rtype = "resource"
            block = doc.raw
            ctype = doc.declared_type or "application/octet-stream"
        headers[0] = ("WARC-Type", rtype)
        headers += [
            ("Content-Type", _clean(ctype)),
            ("Content-Length", str(len(block))),
            ("WARC-Block-Digest", _sha1(block)),
            ("WARC-Payload-Digest", payload_digest),
        ]
        return headers, block

    @staticmethod
    def _http_head(doc: Document) -> bytes:
        status = doc.status if doc.status is not None else 200
        lines = [f"HTTP/1.1 {status} {http_reason(status)}"]  # RFC 9112: the SP stays when no reason
        lines += [f"{_clean(name)}: {_clean(value)}" for name, value in doc.http_headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")

    def write(
        self, doc: Document, *, dictionary: bytes | None = None, dictionary_key: str = ""
    ) -> WarcPointer:
        """Append ``doc`` as one record and return where it is (file name, offset, length).

        ``dictionary`` (zstd only): compress the record against these bytes (an earlier record of
        the same site, :attr:`last_record`); ``dictionary_key`` names it, so its digested form is
        reused. Reading the record back then needs the same bytes.
        """
        self._check_open()
        if dictionary and self.codec != "zstd":
            raise StoreError(f"a reference dictionary needs the zstd codec, not {self.codec!r}")
        return self._emit(self.record(doc), dictionary, dictionary_key)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("WarcFileWriter is closed; open a new one to write more records")

    # The same write in three parts, so the compression (zlib lets go of the GIL) can run in a
    # thread while the caller does other work: :meth:`record` (the file is rotated first when it
    # is full, since the record names its file's warcinfo), :meth:`pack` (thread-safe), then
    # :meth:`append`, in the order of :meth:`record`.

    def record(self, doc: Document) -> bytes:
        """The uncompressed record of ``doc``, for the file it will be appended to."""
        self._check_open()
        if self._fh is None or self._size >= self.max_bytes:
            self._close_file()
            self._open_next()
        headers, block = self._headers_and_block(doc)
        return _record_bytes(headers, block)

    def pack(self, record: bytes) -> bytes:
        """``record`` compressed as one member (gzip or none; zstd's dictionaries are not shared
        with threads: use :meth:`write`)."""
        if self.codec == "zstd":
            raise StoreError("pack() is for gzip or uncompressed files; zstd records go through write()")
        return self._pack(record)

    def append(self, record: bytes, member: bytes) -> WarcPointer:
        """Append the member :meth:`pack` made of ``record`` and return where it is."""
        assert self._fh is not None
        self.last_record = record
        offset = self._size
        try:
            write_all(self._fh, member)
        except OSError as exc:
            # what reached the file of this record goes, so the file ends with a whole record
            if not cut_back(self._fh, offset):
                self._size = self.max_bytes  # it could not be cut: the next record starts a new file
            raise disk_error(exc, self.directory / self._name) or StoreError(
                f"cannot write to WARC file {self._name!r}: {exc.strerror or exc}"
            ) from exc
        self._size += len(member)
        return WarcPointer(self._name, offset, len(member))

    def flush(self) -> None:
        """Push buffered records to the OS, so pointers into the open file can be read."""
        if self._fh is not None:
            self._fh.flush()

    def _close_file(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError as exc:
                raise StoreError(f"cannot close WARC file {self._name!r}: {exc.strerror or exc}") from exc
            self._fh = None

    def close(self) -> None:
        """Finish the current file. Further writes raise :class:`StoreError`."""
        self._close_file()
        self._closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
