"""Read TREC Web files (WT10g, GOV2, the Croft, Metzler and Strohman course collections) as documents.

A TREC Web file is a sequence of blocks::

    <DOC>
    <DOCNO>WTX001-B01-1</DOCNO>
    <DOCOLDNO>IA001-000000-B001-1</DOCOLDNO>
    <DOCHDR>
    http://www.example.com/index.html 192.168.1.1 19970101000000 text/html 1234
    HTTP/1.0 200 OK
    Content-Type: text/html
    </DOCHDR>
    <html>...the page, in whatever encoding it was served in...
    </DOC>

Plain TREC text collections (``<DOC><DOCNO>..</DOCNO> ... <TEXT>..</TEXT></DOC>``, no ``DOCHDR``)
are read too, as ``trec:<DOCNO>`` resources.

The reader works on bytes, never on decoded text, because the pages inside are in any encoding and
decoding is a later stage's job (with its evidence recorded). It streams: the file is read in
chunks with ``read1`` so that every byte a decompressor produced before a fault is kept, and at
most one document (bounded by ``max_doc_bytes``) is held in memory, whatever the file's size.

Tags are recognised only where the format puts them: ``<DOC>`` after whitespace at the start of a
block, ``</DOC>`` at the start of a line. A page that happens to contain ``</DOC>`` mid-line is
therefore not cut short. Every malformed block is dropped with a reason under ``trec/`` and a
quote of the offending bytes, and the blocks around it are still read.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from os import PathLike
from typing import Any, BinaryIO, ClassVar

from trawl.acquire.streams import Compression, input_name, open_input, open_raw
from trawl.document import Document
from trawl.errors import ConfigError, InputError, quote_bytes
from trawl.pipeline.base import InputsSource, RunContext
from trawl.pipeline.stats import Stats

__all__ = ["TrecSource"]

STAGE = "trec"

# One read1() call. A decompressor that meets corrupt data loses the output of the call it fails
# in, so this is also the most a corrupt file can lose before its damage; large enough for speed.
_CHUNK = 32 << 10
_COMPACT = 1 << 20  # drop consumed bytes from the window once this many have piled up
_HEAD_LIMIT = 64 << 10  # DOCNO, DOCOLDNO and the start of DOCHDR must lie this close to <DOC>
_SNIFF_LIMIT = 64 << 10  # a file with no <DOC> this far in is not a TREC file
_DOCNO_MAX = 256
_QUOTE = 64

_BOM = b"\xef\xbb\xbf"
_DOC = b"<DOC>"
_END_DOC = b"</DOC>"
_DOCHDR = b"<DOCHDR>"
_END_DOCHDR = b"</DOCHDR>"
_DOCNO = b"<DOCNO>"
_END_DOCNO = b"</DOCNO>"
_DOCOLDNO_RE = re.compile(rb"<DOCOLDNO>\s*([^<\s]{1,256})\s*</DOCOLDNO>")
_LINE_END_DOC = b"\n</DOC>"
_NEXT_DOC = b"\n<DOC>"
_END_OVERLAP = len(_LINE_END_DOC) - 1  # bytes kept between chunks so a tag split across them is found
_WHITESPACE_RE = re.compile(rb"[ \t\r\n\f\v]*")

_URL_RE = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*:[\x21-\x7e\x80-\xff]+")
_IP_RE = re.compile(rb"\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]+")
_DATE_RE = re.compile(rb"\d{14}")
_TYPE_RE = re.compile(rb"[\w.+\-]+/[\w.+\-]+(?:;.*)?")
_STATUS_RE = re.compile(rb"HTTP/\d(?:\.\d)?\s+(\d{3})(?:\s|$)")


class _Drop(Exception):
    """A block that cannot become a document; carries the drop reason and a message."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _find_end(buf: bytearray, start: int) -> tuple[int, bool] | None:
    """Where the document being read ends: its own ``\\n</DOC>`` or, if that is missing, the next
    ``\\n<DOC>``. Returns (index of that newline, whether it is ``</DOC>``), or None for neither.

    Two plain ``find`` calls, the second bounded by the first, run at memory speed; a regular
    expression alternating the two tags is several times slower on large pages.
    """
    end = buf.find(_LINE_END_DOC, start)
    nxt = buf.find(_NEXT_DOC, start, end + len(_NEXT_DOC) if end >= 0 else len(buf))
    if nxt >= 0 and (end < 0 or nxt < end):
        return nxt, False
    if end >= 0:
        return end, True
    return None


class _Window:
    """A sliding window on a decompressed stream, filled one ``read1`` chunk at a time.

    ``read1`` rather than ``read`` because a buffered ``read(n)`` that hits a decompression error
    midway throws away the bytes it had already produced; ``read1`` hands over each chunk as soon
    as it exists, so a truncated file still yields every document before the damage.
    """

    def __init__(self, stream: BinaryIO, stats: Stats) -> None:
        read1 = getattr(stream, "read1", None)
        self._read = read1 if callable(read1) else stream.read
        self._stats = stats
        self.buf = bytearray()
        self.base = 0  # offset in the decompressed stream of buf[0]
        self.total = 0
        self.eof = False
        self.fault: BaseException | None = None

    def fill(self) -> bool:
        """Append one more chunk; False at the end of the stream or after a fault."""
        if self.eof:
            return False
        try:
            chunk = self._read(_CHUNK)
        except Exception as exc:  # zlib, lzma, bz2 and zstandard each raise their own kind
            self.fault = exc
            self.eof = True
            return False
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        self.total += len(chunk)
        self._stats.inc("read/bytes", len(chunk))
        return True

    def ensure(self, pos: int, n: int) -> bool:
        """Make ``n`` bytes available from ``pos`` if the stream has them."""
        while len(self.buf) - pos < n:
            if not self.fill():
                return False
        return True

    def discard(self, n: int) -> None:
        """Forget the first ``n`` bytes of the window (they have been dealt with)."""
        if n > 0:
            del self.buf[:n]
            self.base += n


@dataclass(slots=True)
class _Dochdr:
    """What the ``<DOCHDR>`` block of a TREC Web document says about the capture."""

    url: str
    ip: str | None = None
    date: datetime | None = None
    archive_type: str | None = None
    archive_length: int | None = None
    status: int | None = None
    is_http: bool = False
    headers: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _decode_url(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # old crawls wrote raw 8-bit URLs; keep every byte


def _parse_date(token: bytes) -> datetime | None:
    try:
        return datetime.strptime(token.decode("ascii"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def _http_date(value: str) -> datetime | None:
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return when.astimezone(UTC)
    except (TypeError, ValueError, IndexError, OverflowError):  # year 20299999999994; 9999-12-31 -2359
        return None


def _parse_dochdr(block: bytes) -> _Dochdr:
    """Parse the capture line, the optional HTTP status line and the HTTP headers."""
    lines = [line.rstrip(b"\r") for line in block.split(b"\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise _Drop("trec/bad-dochdr", "<DOCHDR> is empty; its first line must be the URL")
    tokens = lines[0].split()
    if not _URL_RE.fullmatch(tokens[0]):
        raise _Drop(
            "trec/bad-dochdr",
            f"the first <DOCHDR> line does not start with an absolute URL: {quote_bytes(lines[0], _QUOTE)}",
        )
    hdr = _Dochdr(url=_decode_url(tokens[0]))
    for token in tokens[1:]:
        if hdr.date is None and _DATE_RE.fullmatch(token):
            hdr.date = _parse_date(token)
            if hdr.date is None:
                hdr.problems.append(f"invalid DOCHDR date {token.decode('ascii')!r}")
        elif hdr.ip is None and _IP_RE.fullmatch(token):
            hdr.ip = token.decode("ascii")
        elif hdr.archive_type is None and _TYPE_RE.fullmatch(token):
            hdr.archive_type = token.decode("ascii", "replace")
        elif hdr.archive_length is None and token.isdigit():
            hdr.archive_length = int(token)
        else:
            hdr.problems.append(f"unrecognised DOCHDR field {quote_bytes(token, _QUOTE)}")
    rest = lines[1:]
    if rest and rest[0].startswith(b"HTTP/"):
        hdr.is_http = True
        match = _STATUS_RE.match(rest[0])
        if match:
            hdr.status = int(match.group(1))
        else:
            hdr.problems.append(f"malformed HTTP status line {quote_bytes(rest[0], _QUOTE)}")
        rest = rest[1:]
    for line in rest:
        if not line.strip():
            break  # the blank line that ends an HTTP header block
        if line[:1] in (b" ", b"\t") and hdr.headers:
            name, value = hdr.headers[-1]
            hdr.headers[-1] = (name, f"{value} {line.strip().decode('latin-1')}")
            continue
        name_b, sep, value_b = line.partition(b":")
        if not sep or not name_b.strip():
            hdr.problems.append(f"malformed header line {quote_bytes(line, _QUOTE)}")
            continue
        # HTTP/1.x header bytes are ISO-8859-1 by definition, so this decoding is lossless.
        hdr.headers.append((name_b.strip().decode("latin-1"), value_b.strip().decode("latin-1")))
    return hdr


def _skip_newline(buf: bytearray, i: int, hi: int) -> tuple[int, bool]:
    """Step over one line ending at ``i``; report whether it was CRLF."""
    if i < hi and buf[i : i + 2] == b"\r\n":
        return i + 2, True
    if i < hi and buf[i] == 0x0A:
        return i + 1, False
    return i, False


def _parse_docno(buf: bytearray, lo: int, hi: int, offset: int) -> tuple[str, int]:
    """Find ``<DOCNO>`` between ``lo`` and ``hi``; return it and the index just past ``</DOCNO>``."""
    start = buf.find(_DOCNO, lo, hi)
    if start < 0:
        raise _Drop(
            "trec/missing-docno",
            f"<DOC> at offset {offset} has no <DOCNO>: "
            f"{quote_bytes(bytes(buf[lo : min(hi, lo + _QUOTE)]), _QUOTE)}",
        )
    value_lo = start + len(_DOCNO)
    end = buf.find(_END_DOCNO, value_lo, min(hi, value_lo + _DOCNO_MAX + 64))
    if end < 0:
        raise _Drop(
            "trec/bad-docno",
            f"<DOCNO> at offset {offset} is not closed by </DOCNO>: "
            f"{quote_bytes(bytes(buf[start : min(hi, start + _QUOTE)]), _QUOTE)}",
        )
    value = bytes(buf[value_lo:end]).strip()
    if not value or len(value) > _DOCNO_MAX or any(b < 0x21 or b > 0x7E for b in value):
        raise _Drop(
            "trec/bad-docno",
            f"<DOCNO> at offset {offset} is not a printable identifier: {quote_bytes(value, _QUOTE)}",
        )
    return value.decode("ascii"), end + len(_END_DOCNO)


def _build_document(buf: bytearray, lo: int, hi: int, source: str, offset: int) -> Document:
    """Turn the bytes between ``<DOC>`` and ``\\n</DOC>`` into a Document, or raise :class:`_Drop`."""
    head_hi = min(hi, lo + _HEAD_LIMIT)
    hdr_at = buf.find(b"\n" + _DOCHDR, lo, head_hi)  # <DOCHDR> only counts at the start of a line
    docno_hi = hdr_at if hdr_at >= 0 else head_hi
    docno, after_docno = _parse_docno(buf, lo, docno_hi, offset)

    if hdr_at < 0:  # a plain TREC text document
        raw_lo, crlf = _skip_newline(buf, after_docno, hi)
        raw_hi = hi - 1 if crlf and hi > raw_lo and buf[hi - 1] == 0x0D else hi
        return Document(
            url=f"trec:{docno}",
            docno=docno,
            raw=bytes(buf[raw_lo:raw_hi]),
            record_type="resource",
            source=source,
            declared_type="text/plain",
        )

    meta: dict[str, Any] = {}
    oldno = _DOCOLDNO_RE.search(buf, after_docno, hdr_at)
    if oldno:
        meta["docoldno"] = oldno.group(1).decode("ascii", "replace")
    hdr_lo = hdr_at + 1 + len(_DOCHDR)
    hdr_hi = buf.find(_END_DOCHDR, hdr_lo, hi)
    if hdr_hi < 0:
        raise _Drop(
            "trec/bad-dochdr",
            f"<DOCHDR> of {docno} is not closed by </DOCHDR>: "
            f"{quote_bytes(bytes(buf[hdr_lo : min(hi, hdr_lo + _QUOTE)]), _QUOTE)}",
        )
    try:
        hdr = _parse_dochdr(bytes(buf[hdr_lo:hdr_hi]))
    except _Drop as drop:
        raise _Drop(drop.reason, f"{docno}: {drop.message}") from None
    raw_lo, crlf = _skip_newline(buf, hdr_hi + len(_END_DOCHDR), hi)
    # In a CRLF file the line break before </DOC> is "\r\n"; its "\r" is not part of the page.
    raw_hi = hi - 1 if crlf and hi > raw_lo and buf[hi - 1] == 0x0D else hi

    if hdr.ip:
        meta["ip"] = hdr.ip
    if hdr.archive_type:
        meta["archive_type"] = hdr.archive_type
    if hdr.archive_length is not None:
        meta["archive_length"] = hdr.archive_length
    doc = Document(
        url=hdr.url,
        docno=docno,
        fetched_at=hdr.date,
        status=hdr.status,
        http_headers=hdr.headers,
        raw=bytes(buf[raw_lo:raw_hi]),
        record_type="response" if hdr.is_http else "resource",
        source=source,
        metadata=meta,
    )
    # GOV2 gives only the URL on the capture line; the server's Date header is the next best clock.
    if doc.fetched_at is None:
        date = doc.header("date")
        doc.fetched_at = _http_date(date) if date else None
    doc.declared_type = doc.header("content-type") or hdr.archive_type
    for problem in hdr.problems:
        doc.error(STAGE, problem)
    return doc


class _FileReader:
    """Reads the blocks of one decompressed TREC stream, yielding documents and recording drops."""

    def __init__(
        self, ctx: RunContext, stream: BinaryIO, name: str, compression: str, max_doc_bytes: int
    ) -> None:
        self.ctx = ctx
        self.win = _Window(stream, ctx.stats)
        self.name = name
        self.compression = compression
        self.max_doc_bytes = max_doc_bytes
        self.fault_reported = False

    def drop(self, reason: str, message: str, offset: int | None) -> None:
        where = f"{self.name}@{offset}" if offset is not None else self.name
        self.ctx.drop(STAGE, reason, message, source=where)

    def fault_reason(self) -> str:
        if isinstance(self.win.fault, EOFError):
            return "trec/truncated"
        if self.compression != Compression.NONE:
            return "trec/corrupt"
        return "trec/unreadable"

    def report_fault(self, during: str) -> None:
        fault = self.win.fault
        self.fault_reported = True
        reason = self.fault_reason()
        hint = {
            "trec/truncated": "the file ends early (an interrupted copy or download?)",
            "trec/corrupt": "the compressed data is damaged",
        }.get(reason, "the file cannot be read further")
        stream = "the input" if self.compression == Compression.NONE else f"the {self.compression} stream"
        self.drop(
            reason,
            f"{stream} fails after {self.win.total} bytes ({during}): "
            f"{type(fault).__name__}: {fault}; {hint}; the documents before this point were read",
            self.win.total,
        )

    def read(self) -> Iterator[Document]:
        win = self.win
        win.ensure(0, len(_BOM))
        pos = len(_BOM) if win.buf.startswith(_BOM) else 0
        seen_block = False
        while True:
            pos = self._skip_whitespace(pos)
            if pos >= len(win.buf):
                break
            if win.ensure(pos, len(_DOC)) and win.buf.startswith(_DOC, pos):
                seen_block = True
                pos = yield from self._document(pos)
            else:
                next_pos = self._garbage(pos, first=not seen_block)
                if next_pos is None:
                    return  # not a TREC file: reported, and not worth reading to the end
                seen_block = True
                pos = next_pos
            if pos > _COMPACT:
                win.discard(pos)
                pos = 0
        if win.fault is not None:
            if not self.fault_reported:
                self.report_fault("between documents")
        elif not seen_block:
            what = "only whitespace" if win.total else "no bytes"
            self.drop("trec/empty-file", f"{self.name} holds {what} ({win.total} bytes)", None)

    def _skip_whitespace(self, pos: int) -> int:
        win = self.win
        while True:
            match = _WHITESPACE_RE.match(win.buf, pos)
            pos = match.end() if match else pos
            if pos < len(win.buf):
                return pos
            win.discard(pos)
            pos = 0
            if not win.fill():
                return len(win.buf)

    def _garbage(self, pos: int, *, first: bool) -> int | None:
        """Skip bytes up to the next line-initial ``<DOC>``; report them, return the new position.

        At the start of a file, not finding ``<DOC>`` within ``_SNIFF_LIMIT`` bytes means the file
        is not TREC at all: that is reported once and ``None`` returned, so that a large file
        given by mistake is not read to its end.
        """
        win = self.win
        win.ensure(pos, _QUOTE)
        offset = win.base + pos
        head = bytes(win.buf[pos : pos + _QUOTE])
        search = pos
        while True:
            found = win.buf.find(_NEXT_DOC, search)
            scanned = win.base + (found + 1 if found >= 0 else len(win.buf)) - offset
            if first and scanned > _SNIFF_LIMIT:
                self.drop("trec/not-trec", f"no <DOC> near the start: {quote_bytes(head, _QUOTE)}", offset)
                return None
            if found >= 0:
                end = found + 1
                break
            # Keep the last few bytes: "\n<DOC>" may straddle this chunk and the next.
            win.discard(max(search, len(win.buf) - (len(_NEXT_DOC) - 1)))
            search = 0
            if not win.fill():
                if first:
                    self.drop("trec/not-trec", f"no <DOC> block: {quote_bytes(head, _QUOTE)}", offset)
                    return None
                end = len(win.buf)
                break
        length = win.base + end - offset
        head = head[:length]
        self.drop("trec/garbage", f"{length} bytes outside any <DOC>: {quote_bytes(head, _QUOTE)}", offset)
        return end

    def _document(self, start: int) -> Generator[Document, None, int]:
        """Read the block starting at ``start`` (its ``<DOC>``); return the position after it."""
        win = self.win
        offset = win.base + start
        search = start + len(_DOC)
        while True:
            found = _find_end(win.buf, search)
            if found is not None:
                break
            if len(win.buf) - start > self.max_doc_bytes:
                return self._skip_large(start)
            search = max(start + len(_DOC), len(win.buf) - _END_OVERLAP)
            if not win.fill():
                self._unterminated(start, len(win.buf), at_eof=True)
                return len(win.buf)
        newline, closed = found
        if not closed:
            self._unterminated(start, newline, at_eof=False)
            return newline + 1
        end = newline + len(_LINE_END_DOC)
        if end - start > self.max_doc_bytes:
            self._too_large(start, end - start)
            return end
        source = f"{self.name}@{offset}"
        try:
            doc = _build_document(win.buf, start + len(_DOC), newline, source, offset)
        except _Drop as drop:
            self.drop(drop.reason, drop.message, offset)
        except Exception as exc:  # isolation: a parser bug on one block must not end the file
            self.ctx.error(STAGE, exc, source=source)
        else:
            self.ctx.stats.inc("read/records")
            yield doc
        return end

    def _docno_of(self, start: int) -> str:
        """The DOCNO of the block at ``start``, for messages about a block that cannot be read."""
        lo = start + len(_DOC)
        try:
            docno, _ = _parse_docno(self.win.buf, lo, min(len(self.win.buf), lo + _HEAD_LIMIT), 0)
        except _Drop:
            return "(no DOCNO)"
        return docno

    def _unterminated(self, start: int, stop: int, *, at_eof: bool) -> None:
        offset = self.win.base + start
        docno = self._docno_of(start)
        if at_eof and self.win.fault is not None:
            self.report_fault(f"inside document {docno} at offset {offset}")
            return
        where = "the end of the file" if at_eof else "the next <DOC>"
        self.drop(
            "trec/unterminated-doc",
            f"<DOC> {docno} has no </DOC> before {where} ({stop - start} bytes): "
            f"{quote_bytes(bytes(self.win.buf[start : min(stop, start + _QUOTE)]), _QUOTE)}",
            offset,
        )

    def _too_large(self, start: int, size: int) -> None:
        self.drop(
            "trec/too-large",
            f"<DOC> {self._docno_of(start)} is {size} bytes, over max_doc_bytes={self.max_doc_bytes}",
            self.win.base + start,
        )

    def _skip_large(self, start: int) -> int:
        """Discard a block that outgrew ``max_doc_bytes`` without keeping it, up to its end."""
        win = self.win
        offset = win.base + start
        docno = self._docno_of(start)
        floor = start + len(_DOC)  # never keep bytes before the block: they may hold an old </DOC>
        while True:
            win.discard(max(floor, len(win.buf) - _END_OVERLAP))
            floor = 0
            if not win.fill():
                if win.fault is not None:
                    self.report_fault(f"inside oversized document {docno} at offset {offset}")
                else:
                    self.drop(
                        "trec/unterminated-doc",
                        f"<DOC> {docno} has no </DOC> before the end of the file "
                        f"({win.base + len(win.buf) - offset} bytes)",
                        offset,
                    )
                return len(win.buf)
            found = _find_end(win.buf, 0)
            if found is None:
                continue
            newline, closed = found
            if not closed:
                self.drop(
                    "trec/unterminated-doc",
                    f"<DOC> {docno} has no </DOC> before the next <DOC> "
                    f"({win.base + newline - offset} bytes, over max_doc_bytes={self.max_doc_bytes})",
                    offset,
                )
                return newline + 1
            self.drop(
                "trec/too-large",
                f"<DOC> {docno} is {win.base + newline + len(_LINE_END_DOC) - offset} bytes, "
                f"over max_doc_bytes={self.max_doc_bytes}",
                offset,
            )
            return newline + len(_LINE_END_DOC)


class TrecSource(InputsSource):
    """Documents from TREC Web (and plain TREC text) files, paths or binary streams.

    Compression (gzip, bzip2, xz, zstd) is detected from magic bytes. Counters: ``read/files``,
    ``read/records`` and ``read/bytes`` (decompressed bytes read). Every malformed input is a
    drop under ``trec/``: ``unreadable``, ``empty-file``, ``not-trec``, ``garbage``,
    ``missing-docno``, ``bad-docno``, ``bad-dochdr``, ``unterminated-doc``, ``too-large``,
    ``truncated`` (a compressed stream that ends early) and ``corrupt`` (one that fails to
    decompress). ``source`` is ``"<file>@<offset of <DOC> in the decompressed stream>"``.
    """

    name: ClassVar[str] = "trec"

    def __init__(
        self,
        inputs: Sequence[str | PathLike[str] | BinaryIO],
        *,
        max_doc_bytes: int = 50 << 20,
    ) -> None:
        if max_doc_bytes <= 0:
            raise ConfigError(f"TrecSource: max_doc_bytes must be positive, not {max_doc_bytes}")
        self.inputs = list(inputs)
        self.max_doc_bytes = max_doc_bytes

    def read_input(self, ctx: RunContext, src: str | PathLike[str] | BinaryIO) -> Iterator[Document]:
        name = input_name(src)
        try:
            raw, opened = open_raw(src)
        except InputError as exc:
            ctx.drop(STAGE, "trec/unreadable", str(exc), source=name)
            return
        try:
            try:
                stream, compression = open_input(raw)
            except (InputError, OSError) as exc:
                ctx.drop(STAGE, "trec/unreadable", f"cannot read {name!r}: {exc}", source=name)
                return
            ctx.stats.inc("read/files")
            try:
                yield from _FileReader(ctx, stream, name, compression, self.max_doc_bytes).read()
            except Exception as exc:  # isolation: never let one file end the run
                ctx.error(STAGE, exc, source=name)
            finally:
                # A decompressor does not close the file object it was given; the plain stream is
                # ``raw`` itself (or a wrapper around the caller's stream), closed below if ours.
                if compression != Compression.NONE:
                    stream.close()
        finally:
            if opened:
                raw.close()
