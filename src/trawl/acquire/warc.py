"""Read WARC/1.0, WARC/1.1 and ARC files as :class:`Document` records, fast, and never stop on bad input.

Two readers share one record parser (:mod:`trawl.store.warcfile`):

* **the fast path**: FastWARC frames and decompresses records in Rust. trawl parses only the
  raw header text FastWARC hands over, and only for records that pass the cheap filters
  (record type, length: checked on FastWARC's already-parsed values). FastWARC trusts what it
  reads, so it is used under two rules: a record is yielded only once FastWARC has framed the
  *next* one too (a lying Content-Length shows up there), and at the first doubt (an error, a
  header that trawl's parser rejects, a block shorter than declared, a record that is not at a
  gzip member start, the last record of the file) the input is handed over to...
* **the recovering reader**: pure Python, for ARC files, whole-file gzip, bzip2/xz/zstd, streams
  that cannot seek, and everything after a problem. It frames records itself, checks each
  record's trailer, and on bad input records one drop with a quote of the bytes and resyncs at
  the next gzip member or ``WARC/1.`` line, so records before and after a problem survive.
  It keeps every document another reader recovers, noting each repair on the document
  (``metadata["repaired"]``; ``metadata["truncated"]`` for a block shorter than declared): a
  block cut short by the input's end, a torn gzip member or the next record is kept as far as
  it goes; one with a bad, short or long Content-Length runs to the next record; a WARC header
  line that is not ``Name: value`` is skipped; ARC lines are parsed from the right, so a URL
  may hold spaces. Only what holds no document is dropped.

Offsets (the ``@N`` of ``Document.source``) are those a random-access reader needs: the gzip
member start for a record that starts a member, the byte offset in the file for a plain file,
and the offset in the decompressed stream for a record inside a larger member.

Counters: ``read/files``, ``read/records``, ``read/bytes``, ``read/skipped/type/<type>``,
``read/skipped/length``, ``read/skipped/url``, ``read/skipped/content-type``,
``read/lenient/trailer`` (a record trailer other than CRLF CRLF was accepted),
``read/repaired/<what>`` (``truncated``, ``content-length``, ``record-end``, ``header``,
``arc-date``, ``arc-line``, ``truncated-gzip``, ``corrupt-gzip``: a record kept and noted), and
``read/fallback/<why>`` (the fast path handed over). Drops (``drop/<reason>``): ``warc/unreadable``,
``warc/empty-file``, ``warc/not-warc``, ``warc/truncated-gzip``, ``warc/corrupt-gzip``,
``warc/garbage``, ``warc/bad-header``, ``warc/bad-content-length``, ``warc/truncated-record``,
``warc/too-large``.
"""

from __future__ import annotations

import bz2
import io
import lzma
import os
import re
import zlib
from collections.abc import Callable, Collection, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Final, Protocol

from trawl.acquire.streams import Compression, InputLike, detect_compression, input_name, open_raw
from trawl.document import Document, LazyHeaders
from trawl.errors import InputError, quote_bytes
from trawl.pipeline.base import InputsSource, RunContext
from trawl.store.warcfile import (
    Headers,
    Payload,
    WarcRecordError,
    block_length,
    parse_warc_head,
    record_document,
    record_payload,
    salvage_warc_head,
)

__all__ = ["WarcSource"]

_STAGE: Final = "warc"
_CHUNK: Final = 1 << 20  # bytes read from the file at a time
_FEED: Final = 16 << 10  # compressed bytes fed to zlib first: most members are smaller
_MAX_OUT: Final = 8 << 20  # decompressed bytes per zlib call: bounds memory inside huge members
_KEEP: Final = 4 << 20  # compressed bytes kept behind the read position for resynchronisation
_MAX_HEAD: Final = 1 << 20  # a header block longer than this is garbage, not a header
_GZIP_MEMBER: Final = b"\x1f\x8b\x08"
_DEFAULT_TYPES: Final = ("response", "resource", "revisit", "conversion")
# an ARC record line is found by its anchor (a URL, which may hold spaces, then an IP-address
# field and a 12-18 digit date: ARC writers padded dates) and then parsed from the right
_ARC_START: Final = re.compile(rb"\n[A-Za-z][A-Za-z0-9+.\-]*:[^\n]*? \S+ \d{12,18} ")
_ARC_LINE: Final = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*:[^\n]*? \S+ \d{12,18} ")
_ARC_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_ARC_LOOSE: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*:.*?) (\S+) (\d{12,18}) (.+)")
_ARC_LINE_MAX: Final = 65536  # an ARC record line longer than this is garbage
_ARC_V1: Final = ("URL", "IP-address", "Archive-date", "Content-type", "Archive-length")
_ARC_V2: Final = (
    "URL", "IP-address", "Archive-date", "Content-type", "Result-code",
    "Checksum", "Location", "Offset", "Filename", "Archive-length",
)  # fmt: skip
_HTTP_KINDS: Final = frozenset({"response", "revisit", "request"})
_CL_RESCUE: Final = re.compile(rb"(?im)^content-length:[ \t]*(\d+)[ \t]*\r?$")
_TYPE_RESCUE: Final = re.compile(rb"(?im)^warc-type:[ \t]*([^\r\n]*?)[ \t]*\r?$")


class _Reader(Protocol):
    def read(self, n: int = ..., /) -> bytes: ...


@dataclass(slots=True, frozen=True)
class _Gap:
    """A discontinuity in the decompressed stream: data was lost before the next piece."""

    reason: str
    message: str
    offset: int


#: A parsed record header: its length, the fields in order, the lookup dict, repair notes.
_Head = tuple[int, Headers, dict[str, str], list[str]]


def _arc_parts(line: bytes, names: tuple[str, ...]) -> tuple[list[str], list[str]] | None:
    """The fields of an ARC record line, or None if it is not one; and repair notes.

    Parsed from the right: the fields after the URL hold no spaces, so the URL may (live-web
    ARC files have them). A line whose content type holds a space too is read with the date as
    the anchor instead. A date padded past 14 digits is cut to its first 14 (as warcio does).
    """
    text = line.rstrip(b"\r").decode("utf-8", "replace")
    n = len(names)
    notes: list[str] = []
    parts = text.rsplit(" ", n - 1)
    if not (
        len(parts) == n and _ARC_URL.match(parts[0]) and 12 <= len(parts[2]) <= 18 and parts[2].isdigit()
    ):
        m = _ARC_LOOSE.fullmatch(text)
        if m is None:
            return None
        rest = m.group(4).split(" ")
        k = n - 4  # fields after the content type
        if len(rest) <= k:
            return None
        parts = [m.group(1), m.group(2), m.group(3), " ".join(rest[: len(rest) - k]), *rest[len(rest) - k :]]
        notes.append(f"arc-line: fields other than the URL hold spaces: {quote_bytes(line)}")
    if len(parts[2]) > 14:
        notes.append(f"arc-date: the date {parts[2]} has {len(parts[2])} digits; read its first 14")
        parts[2] = parts[2][:14]
    return parts, notes


#: A piece of decompressed data, the compressed offset of the gzip member that starts with it
#: (-1 if none does), and the gap that precedes it (then the data is empty).
_Piece = tuple[bytes, int, _Gap | None]


def _plain_pieces(raw: _Reader, count: Callable[[int], None]) -> Iterator[_Piece]:
    while chunk := raw.read(_CHUNK):
        count(len(chunk))
        yield chunk, -1, None


class _Gunzip:
    """Decompress a gzip file member by member, resynchronising after a broken member.

    Yields the output of each member as it comes (one piece for a typical per-record member),
    tagged with the member's compressed offset. A truncated member, a corrupt one, or bytes
    that are not gzip between members yield a :class:`_Gap`, then decompression goes on at the
    next position where a gzip member starts and inflates into a WARC or ARC record.
    """

    def __init__(self, raw: _Reader, start: int, count: Callable[[int], None]) -> None:
        self.raw = raw
        self.count = count
        self.buf = b""
        self.base = start  # file offset of buf[0]
        self.pos = 0  # index in buf of the next unread compressed byte
        self.eof = False

    def _more(self, keep_from: int) -> bool:
        """Read the next chunk, forgetting the bytes before the absolute offset ``keep_from``
        (never the unread ones). Callers recompute their buffer indices from ``base``."""
        if self.eof:
            return False
        chunk = self.raw.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.count(len(chunk))
        cut = max(0, min(self.pos, keep_from - self.base))
        self.buf = self.buf[cut:] + chunk if cut else self.buf + chunk
        self.base += cut
        self.pos -= cut
        return True

    def _candidate_ok(self, at: int) -> bool:
        """Does a gzip member start at buf index ``at`` and inflate into a record start?"""
        while len(self.buf) - at < 4096 and not self.eof:
            old_base = self.base
            if not self._more(self.base + at):
                break
            at -= self.base - old_base
        inflater = zlib.decompressobj(31)
        try:
            out = inflater.decompress(self.buf[at : at + 4096], 64)
        except zlib.error:
            return False
        head = out.lstrip(b"\r\n")
        return head.startswith((b"WARC/", b"filedesc:")) or (inflater.eof and not out)

    def _next_member(self, from_abs: int) -> int:
        """Absolute offset of the next good member at or after ``from_abs``; -1 at end of file."""
        i = max(from_abs - self.base, 0)
        while True:
            j = self.buf.find(_GZIP_MEMBER, i)
            if j < 0:
                i = max(len(self.buf) - 2, 0)
                self.pos = max(self.pos, i)  # what was scanned may go
                old_base = self.base
                if not self._more(self.base + i):
                    return -1
                i -= self.base - old_base
                continue
            abs_j = self.base + j
            if self._candidate_ok(j):
                return abs_j
            i = abs_j + 1 - self.base

    def __iter__(self) -> Iterator[_Piece]:
        while True:
            if len(self.buf) - self.pos < 32:
                self._more(self.base + self.pos)
            if self.pos >= len(self.buf):
                return
            start = self.base + self.pos
            if not self.buf.startswith(_GZIP_MEMBER, self.pos):
                rest = self.buf[self.pos : self.pos + 4096]
                if self.eof and not rest.strip(b"\x00\r\n\t "):
                    return  # padding at the end of the file
                nxt = self._next_member(start)
                size = (nxt if nxt >= 0 else self.base + len(self.buf)) - start
                yield (
                    b"",
                    -1,
                    _Gap(
                        "warc/garbage",
                        f"{size} bytes between gzip members are not gzip: {quote_bytes(rest[:size])}",
                        start,
                    ),
                )
                if nxt < 0:
                    return
                self.pos = nxt - self.base
                continue
            yield from self._member(start)

    def _salvage(self, start: int, end: int, produced: int) -> bytes:
        """The output of the broken member at ``start`` (its bytes end by ``end``) up to the
        byte where it breaks, less the ``produced`` bytes already yielded: zlib raises without
        returning what it decompressed in the failing call, so the member is inflated again,
        in small steps, then byte by byte in the step that fails."""
        if start < self.base:  # a member over _KEEP: its start is gone
            return b""
        data = memoryview(self.buf)[start - self.base : end - self.base]
        inflater = zlib.decompressobj(31)
        out: list[bytes] = []
        size = 0
        step = 4096
        i = 0
        while i < len(data) and size < produced + _MAX_OUT and not inflater.eof:
            saved = inflater.copy()
            try:
                piece = inflater.decompress(data[i : i + step])
            except zlib.error:
                if step == 1:
                    break
                inflater, step = saved, 1  # replay the failing step byte by byte
                continue
            out.append(piece)
            size += len(piece)
            i += step
        return b"".join(out)[produced:]

    def _member(self, start: int) -> Iterator[_Piece]:
        inflater = zlib.decompressobj(31)
        first = True
        feed = _FEED
        produced = 0
        while True:
            # keep the member's start (bounded) so that a resync can look right after it
            if self.pos >= len(self.buf) and not self._more(max(start, self.base + self.pos - _KEEP)):
                if tail := inflater.flush():  # what zlib still holds of a member cut short
                    produced += len(tail)
                    yield tail, (start if first else -1), None
                yield (
                    b"",
                    -1,
                    _Gap(
                        "warc/truncated-gzip",
                        f"gzip member at {start} is truncated: the file ends "
                        f"{self.base + self.pos - start} bytes into it ({produced} bytes decompressed)",
                        start,
                    ),
                )
                return
            chunk = memoryview(self.buf)[self.pos : self.pos + feed]
            try:
                out = inflater.decompress(chunk, _MAX_OUT)
            except zlib.error as exc:
                failed_at = self.base + self.pos + len(chunk)
                nxt = self._next_member(start + 1)
                if nxt < 0:
                    why, detail = "warc/truncated-gzip", "no gzip member follows it"
                elif nxt < failed_at:  # the next member began before this one broke: it was cut short
                    why, detail = (
                        "warc/truncated-gzip",
                        f"the next member starts {nxt - start} bytes after it",
                    )
                else:
                    why, detail = "warc/corrupt-gzip", f"skipped {nxt - start} bytes to the next member"
                if rescued := self._salvage(start, nxt if nxt >= 0 else self.base + len(self.buf), produced):
                    produced += len(rescued)  # what decompresses before the break is kept
                    yield rescued, (start if first else -1), None
                yield (
                    b"",
                    -1,
                    _Gap(
                        why,
                        f"gzip member at {start} is broken after {produced} decompressed bytes "
                        f"(zlib: {exc}); {detail}",
                        start,
                    ),
                )
                if nxt >= 0:
                    self.pos = nxt - self.base
                else:
                    self.pos = len(self.buf)
                return
            if inflater.eof:
                used = len(chunk) - len(inflater.unused_data)
            else:
                used = len(chunk) - len(inflater.unconsumed_tail)
            self.pos += used
            if out:
                produced += len(out)
                yield out, (start if first else -1), None
                first = False
            if inflater.eof:
                return
            if used == len(chunk):
                feed = min(feed * 2, _CHUNK)


@dataclass(slots=True)
class _Resume:
    """Where the recovering reader takes over from the fast path.

    Start at ``offset`` (expected to hold a record whose header text starts with ``head``),
    passing over ``skip_there`` records silently; if that cannot be verified, start at the
    beginning of the input and pass over ``skip_all`` records instead.
    """

    why: str
    offset: int
    head: bytes
    skip_there: int
    skip_all: int


class _Framer:
    """The recovering reader: frames WARC or ARC records in a stream of decompressed pieces.

    Invariant: while a record is being read, ``pos`` stays at its first byte and every length
    is relative to ``pos``, because pulling more data rebases the buffer (``pos`` becomes 0).
    """

    def __init__(
        self,
        owner: WarcSource,
        pieces: Iterator[_Piece],
        name: str,
        ctx: RunContext,
        *,
        arc: bool,
        base: int,
        suppress: int,
    ) -> None:
        self.owner = owner
        self.pieces = pieces
        self.name = name
        self.ctx = ctx
        self.arc = arc
        self.arc_names: tuple[str, ...] = _ARC_V1
        self.want = b"\n" if arc else b"\r\n\r\n"  # what must follow a block
        self.buf = b""
        self.pos = 0
        self.base = base  # stream offset of buf[0]
        self.members: dict[int, int] = {}  # stream offset of a member start -> its file offset
        self.gap: _Gap | None = None
        self.done = False
        self.suppress = suppress  # records to pass over silently (already read by the fast path)

    # -- buffer ---------------------------------------------------------------------------

    def _pull(self) -> bool:
        """Append the next piece, keeping ``buf[pos:]``; False at the end of input or at a gap."""
        if self.gap is not None or self.done:
            return False
        piece = next(self.pieces, None)
        if piece is None:
            self.done = True
            return False
        data, member, gap = piece
        if gap is not None:
            self.gap = gap
            return False
        rest = len(self.buf) - self.pos
        self.base += self.pos
        self.buf = self.buf[self.pos :] + data if rest else data
        self.pos = 0
        if member >= 0:
            if len(self.members) > 256:
                self.members = {k: v for k, v in self.members.items() if k >= self.base}
            self.members[self.base + rest] = member
        return True

    def _ensure(self, n: int) -> bool:
        while len(self.buf) - self.pos < n:
            if not self._pull():
                return False
        return True

    def _offset(self) -> int:
        """The offset of the record at ``pos``: its gzip member's, else its stream offset."""
        at = self.base + self.pos
        return self.members.get(at, at)

    def _drop(self, reason: str, message: str, offset: int) -> None:
        self.ctx.drop(_STAGE, reason, message, source=f"{self.name}@{offset}")

    def _cross_gap(self, lost: bytes, offset: int) -> None:
        """Report the pending gap (quoting the record it cut, if any), then continue after it."""
        gap = self.gap
        assert gap is not None
        if lost.strip(b"\r\n"):
            self._drop(gap.reason, f"{gap.message}; lost the record {quote_bytes(lost)}", offset)
        else:
            self._drop(gap.reason, gap.message, gap.offset)
        self.base += len(self.buf)
        self.buf = b""
        self.pos = 0
        self.gap = None

    def _take_gap(self, notes: list[str]) -> None:
        """Step over the pending gap that cut a record which is kept: a repair, not a drop."""
        gap = self.gap
        assert gap is not None
        notes.append(gap.message)
        self.ctx.stats.inc(f"read/repaired/{gap.reason.rpartition('/')[2]}")
        self.base += len(self.buf)
        self.buf = b""
        self.pos = 0
        self.gap = None

    # -- resynchronisation ----------------------------------------------------------------

    def _is_start(self, j: int) -> bool:
        buf = self.buf
        if self.arc:
            if buf.startswith(b"filedesc://", j):
                return True
            if _ARC_LINE.match(buf, j, j + _ARC_LINE_MAX) is None:  # the cheap anchor first
                return False
            nl = buf.find(b"\n", j, j + _ARC_LINE_MAX)
            if nl < 0:  # the line is not all here yet: the anchor decides for now
                return True
            return _arc_parts(buf[j:nl], self.arc_names) is not None
        return buf.startswith(b"WARC/1.", j)

    def _scan(self, i: int) -> int:
        """Index of the first record start at or after ``i`` in ``buf``, or -1."""
        buf = self.buf
        if self.arc:
            if i == 0 and self._is_start(0):
                return 0
            at = max(i - 1, 0)
            while (m := _ARC_START.search(buf, at)) is not None:
                j = m.start() + 1
                if self._is_start(j):
                    return j
                at = j
            return -1
        j = buf.find(b"WARC/1.", i)
        while j >= 0:
            if (j > 0 and buf[j - 1] == 10) or self.base + j in self.members:
                return j
            j = buf.find(b"WARC/1.", j + 1)
        return -1

    def _window(self) -> int:
        """Bytes kept at the end of the buffer when scanning on: a record start may straddle it."""
        return _ARC_LINE_MAX if self.arc else 300

    def _resync(self, i: int) -> bool:
        """Give up ``buf[pos:i + 1]`` and move ``pos`` to the next record start after index ``i``.

        False when none comes before the end of input or a gap (``pos`` is then at the end).
        """
        self.pos = max(i, self.pos)
        k = 1
        while True:
            j = self._scan(self.pos + k)
            if j >= 0:
                self.pos = j
                return True
            self.pos = max(self.pos + k, len(self.buf) - self._window())
            k = 0
            if not self._pull():
                self.pos = len(self.buf)
                return False

    def _resync_or_cross(self, i: int) -> None:
        if not self._resync(i) and self.gap is not None:
            self._cross_gap(b"", self.base + self.pos)

    # -- one record -----------------------------------------------------------------------

    def _at_record(self, first: bool) -> bool:
        """Move to the next record start, reporting garbage and gaps on the way; False at the end."""
        need = 300 if self.arc else 8
        while True:
            buf = self.buf
            p = self.pos
            n = len(buf)
            while p < n and buf[p] in (10, 13):  # blank lines between records are harmless
                p += 1
            self.pos = p
            if n - p < need and self._pull():
                continue
            if self.arc and n - p < _ARC_LINE_MAX and buf.find(b"\n", p) < 0 and self._pull():
                continue  # an ARC record line is judged whole
            if p >= len(self.buf):
                if self.gap is not None:
                    self._cross_gap(b"", self.base + p)
                    continue
                return False
            if self._is_start(p):
                return True
            if self.gap is not None and n - p < need:
                at = self._offset()
                self._cross_gap(buf[p:], at)
                continue
            rest = buf[p:]
            if self.done and not rest.strip(b"\r\n\t \x00"):
                self.pos = n  # padding at the end of the file
                return False
            offset = self._offset()
            if first:
                self._drop(
                    "warc/not-warc",
                    f"input does not start with a WARC or ARC record: {quote_bytes(rest)}",
                    offset,
                )
                return False
            lost = buf[p : p + 60]
            skipped_from = self.base + p
            found = self._resync(p)
            size = self.base + self.pos - skipped_from
            self._drop(
                "warc/garbage", f"{size} bytes between records are not a record: {quote_bytes(lost)}", offset
            )
            if not found and self.gap is not None:
                self._cross_gap(b"", self.base + self.pos)

    def _head(self) -> _Head | None:
        """Parse the header at ``pos``; None if input ended or a gap came first. Raises
        :class:`WarcRecordError` for a header that cannot be used."""
        if self.arc:
            return self._arc_head()
        while True:
            buf = self.buf
            p = self.pos
            end = buf.find(b"\r\n\r\n", p, p + _MAX_HEAD)
            line_end = buf.find(b"\n", p, p + _MAX_HEAD)
            lf_only = line_end > p and buf[line_end - 1] != 13
            if lf_only:  # LF-only files exist; the bytes are unambiguous, so read them
                end = buf.find(b"\n\n", p, p + _MAX_HEAD)
            if end >= 0:
                break
            if len(buf) - p > _MAX_HEAD:
                raise WarcRecordError(
                    "warc/bad-header",
                    f"WARC header does not end within {_MAX_HEAD} bytes: {quote_bytes(buf[p:])}",
                )
            if not self._pull():
                return None
        term = 2 if lf_only else 4
        self.want = b"\n\n" if lf_only else b"\r\n\r\n"
        raw_head = buf[p : end + term]
        try:
            text = raw_head.decode("utf-8")
        except UnicodeDecodeError:
            text = raw_head.decode("latin-1")
        if lf_only:
            text = text.replace("\n", "\r\n")
        headers, fields = parse_warc_head(text)
        return end + term - p, headers, fields, []

    def _arc_head(self) -> _Head | None:
        while True:
            buf = self.buf
            p = self.pos
            nl = buf.find(b"\n", p, p + _ARC_LINE_MAX)
            if nl >= 0:
                break
            if len(buf) - p > _ARC_LINE_MAX:
                raise WarcRecordError(
                    "warc/bad-header", f"ARC header line does not end: {quote_bytes(buf[p:])}"
                )
            if not self._pull():
                return None
        filedesc = buf.startswith(b"filedesc://", p)
        names = _ARC_V1 if filedesc else self.arc_names
        parsed = _arc_parts(buf[p:nl], names)
        if parsed is None:
            raise WarcRecordError("warc/bad-header", f"not an ARC header line: {quote_bytes(buf[p:nl])}")
        parts, notes = parsed
        for note in notes:
            self.ctx.stats.inc(f"read/repaired/{note.partition(':')[0]}")
        fields = {
            "WARC-Type": "warcinfo" if filedesc else "response",
            "WARC-Target-URI": parts[0],
            "WARC-Date": parts[2],
            "Content-Type": parts[3],
            "Content-Length": parts[-1],
        }
        return nl + 1 - p, list(zip(names, parts, strict=True)), fields, notes

    def _rescue(self) -> _Head | None:
        """A WARC header that failed to parse, read the lenient way (lines that are not
        ``Name: value`` skipped and reported); None if it has no end or no WARC-Type."""
        if self.arc:
            return None
        end = self.buf.find(b"\r\n\r\n", self.pos, self.pos + _MAX_HEAD)
        if end < 0:
            return None
        self.want = b"\r\n\r\n"
        headers, fields, problem = salvage_warc_head(self.buf[self.pos : end + 4])
        if not fields.get("WARC-Type"):
            return None
        self.ctx.stats.inc("read/repaired/header")
        return end + 4 - self.pos, headers, fields, [f"header: {problem}"]

    def _trailer(self, rel: int) -> bool:
        """Check what follows the block ending at ``pos + rel``; on success move ``pos`` past it."""
        want = self.want
        self._ensure(rel + len(want) + 8)
        buf = self.buf
        at = self.pos + rel
        if buf.startswith(want, at):
            self.pos = at + len(want)
            return True
        j = at
        while j < len(buf) and j - at < 4 and buf[j] in (10, 13):
            j += 1
        if j >= len(buf) or self._is_start(j) or self.base + j in self.members:
            self.ctx.stats.inc("read/lenient/trailer")
            self.pos = j
            return True
        return False

    def _fill(self, total: int, hlen: int) -> int:
        """Buffer the record's ``total`` bytes: 1 done, 0 cut by the end or a gap, -1 the
        Content-Length lied (a gzip member that starts a record begins inside the block)."""
        while len(self.buf) - self.pos < total:
            if not self._pull():
                return 0
            if self._member_inside(hlen, total) >= 0:
                return -1
        return 1

    def _member_inside(self, hlen: int, total: int) -> int:
        """Where (relative to ``pos``) the first gzip member that starts a record begins inside
        the block ``pos + hlen .. pos + total``; -1 if none does."""
        first = -1
        for k in self.members:
            rel = k - self.base - self.pos
            if hlen < rel < total and (first < 0 or rel < first) and self._is_start(k - self.base):
                first = rel
        return first

    def _start_inside(self, hlen: int, total: int) -> int:
        """Where (relative to ``pos``) the first record start inside the block is; -1 if none."""
        j = self._scan(self.pos + hlen)
        return j - self.pos if 0 <= j < self.pos + total else -1

    def _block_end(self, hlen: int, cap: int) -> int:
        """The end (relative to ``pos``) of a block whose length is unknown: the next record
        start after its header, else the end of the data (input end or gap); -1 past ``cap``."""
        rel = hlen
        while True:
            j = self._scan(self.pos + rel)
            if j >= 0:
                return j - self.pos
            if len(self.buf) - self.pos - hlen > cap:
                return -1
            rel = max(rel, len(self.buf) - self.pos - self._window())
            if not self._pull():
                return len(self.buf) - self.pos

    def _advance(self, total: int, hlen: int) -> int:
        """Pass over ``total`` bytes without holding them (huge skipped blocks); like :meth:`_fill`."""
        left = total
        while len(self.buf) - self.pos < left:
            left -= len(self.buf) - self.pos
            hlen -= len(self.buf) - self.pos
            self.pos = len(self.buf)
            if not self._pull():
                return 0
            if self._member_inside(hlen, left) >= 0:
                return -1
        self.pos += left
        return 1

    def _lied(self, offset: int, length: int, quote: bytes, why: str) -> None:
        self._drop(
            "warc/bad-content-length",
            f"record declares Content-Length {length} but {why}: {quote_bytes(quote)}",
            offset,
        )

    def _to_next(self, hlen: int, scan_from: int) -> bytes | None:
        """The block of a record whose length cannot be trusted: everything from its header to
        the next record start at or after ``pos + scan_from`` (less the record end), else to the
        end of the data; ``pos`` moves there. None if no record start comes within the cap."""
        end = self._block_end(scan_from, self.owner.record_size_cap)
        if end < 0:
            return None
        block = self.buf[self.pos + hlen : self.pos + end]
        at_next = end < len(self.buf) - self.pos
        if at_next or self.gap is None:  # the record end, before the next record or the input's end
            block = block.removesuffix(self.want)
        self.pos += end
        return block

    def _short(self, length: int, hlen: int, cut: int, notes: list[str]) -> bytes:
        """The block of a record cut short at ``pos + cut`` (by the next record, the end of the
        input or a gap): as far as it goes; ``pos`` moves there."""
        block = self.buf[self.pos + hlen : self.pos + cut]
        at_next = cut < len(self.buf) - self.pos
        if at_next:
            block = block.removesuffix(self.want)
            why = "the next record starts inside it"
        else:
            why = "the data ends inside it" if self.gap is None else "a damaged stretch cuts it"
        notes.append(f"truncated: Content-Length {length} but {why}; kept the {len(block)} bytes there are")
        self.ctx.stats.inc("read/repaired/truncated")
        self.pos += cut
        if not at_next and self.gap is not None:
            self._take_gap(notes)
        return block

    def records(self, at_start: bool) -> Iterator[Document]:
        """Yield the documents of the stream; every problem is one counted, quoted drop, or a
        repair noted on the document it kept (``metadata["repaired"]``, ``["truncated"]``)."""
        owner = self.owner
        stats = self.ctx.stats
        keep_types = owner._types
        min_len = owner.min_length if owner.min_length is not None else -1
        max_len = owner.max_length if owner.max_length is not None else 1 << 62
        url_ok = owner.url_filter
        ctypes = owner._ctypes
        cap = owner.record_size_cap
        first = at_start
        while self._at_record(first):
            first = False
            offset = self._offset()
            try:
                head = self._head()
            except WarcRecordError as exc:
                head = self._rescue()
                if head is None:
                    self._drop(exc.code, str(exc), offset)
                    self._resync_or_cross(self.pos)
                    continue
            if head is None:  # the input ended or broke inside the header: nothing to keep
                quote = self.buf[self.pos : self.pos + 120]
                if self.gap is not None:
                    self._cross_gap(quote, offset)
                    continue
                self._drop(
                    "warc/truncated-record",
                    f"input ends inside a record header: {quote_bytes(quote)}",
                    offset,
                )
                return
            hlen, headers, fields, notes = head
            length: int | None
            try:
                length = block_length(fields)
            except WarcRecordError as exc:
                length, bad = None, exc
            rtype = fields.get("WARC-Type", "")
            skip: str | None = None
            if rtype not in keep_types:
                skip = f"read/skipped/type/{rtype or 'missing'}"
            elif length is not None and (length < min_len or length > max_len):
                skip = "read/skipped/length"
            elif url_ok is not None and not url_ok(fields.get("WARC-Target-URI", "")):
                skip = "read/skipped/url"
            elif length is not None and length > cap:
                skip = "too-large"
            quote = self.buf[self.pos : self.pos + 120]
            block = b""
            truncated = False
            if length is None:
                got = self._to_next(hlen, hlen)
                if got is None:
                    self._drop(bad.code, f"{bad}, and no record follows within {cap} bytes", offset)
                    self._resync_or_cross(self.pos)
                    continue
                block = got
                notes.append(
                    f"content-length: {bad}; read the block up to the next record ({len(block)} bytes)"
                )
                stats.inc("read/repaired/content-length")
                if self.gap is not None and self.pos >= len(self.buf):
                    self._take_gap(notes)
            elif skip is not None and hlen + length > _CHUNK:
                total = hlen + length
                state = self._advance(total, hlen)
                if state < 0:
                    self._lied(offset, length, quote, "a record starts inside that block")
                    continue
                if state == 0:
                    if self.gap is not None:
                        self._cross_gap(quote, offset)
                        continue
                    self._drop(
                        "warc/truncated-record", f"input ends inside the record {quote_bytes(quote)}", offset
                    )
                    return
                if not self._trailer(0):
                    self._lied(offset, length, quote, "its block is not followed by the record end")
                    self._resync_or_cross(self.pos)
                    continue
            else:
                total = hlen + length
                state = self._fill(total + len(self.want), hlen)
                cut = -1
                if state < 0:
                    cut = self._member_inside(hlen, total)
                elif state == 0 and len(self.buf) - self.pos < total:
                    cut = self._start_inside(hlen, total)
                    if cut < 0:
                        cut = len(self.buf) - self.pos  # as far as it goes
                if cut < 0:
                    start = self.pos + hlen
                    block = self.buf[start : start + length]
                    if not self._trailer(total):
                        cut = self._start_inside(hlen, total)
                        seen = self.buf[self.pos + total : self.pos + total + 16]
                        if cut < 0 and (got := self._to_next(hlen, total)) is not None:
                            # the Content-Length is short (warcio's example-trunc.warc, 2 bytes):
                            # the block runs on to the record end that comes before the next record
                            notes.append(
                                f"content-length: the block of Content-Length {length} is followed by "
                                f"{quote_bytes(seen)}, not the record end; read on {len(got) - length} "
                                "bytes to the next record"
                            )
                            stats.inc("read/repaired/content-length")
                            block = got
                            if self.gap is not None and self.pos >= len(self.buf):
                                self._take_gap(notes)
                        elif cut < 0:  # none within the cap: the declared length it is
                            self._resync(self.pos + total - 1)
                            notes.append(
                                f"record-end: the block of Content-Length {length} is followed by "
                                f"{quote_bytes(seen)}, not the record end; skipped to the next record"
                            )
                            stats.inc("read/repaired/record-end")
                if cut >= 0:
                    block = self._short(length, hlen, cut, notes)
                    truncated = True
            # the record is framed, or repaired and noted
            if self.suppress:
                self.suppress -= 1
                continue
            if skip is not None:
                if skip == "too-large":
                    self._drop(
                        "warc/too-large",
                        f"record block of {length} bytes is over the {cap}-byte cap: {quote_bytes(quote)}",
                        offset,
                    )
                else:
                    stats.inc(skip)
                continue
            if self.arc:
                fields = self._arc_fields(fields, block)
                if fields["WARC-Type"] not in keep_types:
                    stats.inc(f"read/skipped/type/{fields['WARC-Type']}")
                    continue
            payload = record_payload(fields, block)
            if ctypes is not None and not (payload[3] or "").lower().startswith(ctypes):
                stats.inc("read/skipped/content-type")
                continue
            stats.inc("read/records")
            doc = record_document(headers, fields, payload, f"{self.name}@{offset}")
            if truncated:
                doc.metadata["truncated"] = True
            if notes:
                doc.metadata["repaired"] = notes
            yield doc

    def _arc_fields(self, fields: dict[str, str], block: bytes) -> dict[str, str]:
        """ARC records become WARC-like: filedesc → warcinfo, HTTP → response, rest → resource."""
        if fields["WARC-Type"] == "warcinfo":
            lines = block.split(b"\n")
            if lines and lines[0].split(b" ", 1)[0] == b"2":
                self.arc_names = _ARC_V2
            if len(lines) > 1:
                names = tuple(lines[1].decode("latin-1").split())
                if len(names) == len(self.arc_names):
                    self.arc_names = names
        elif not block.startswith(b"HTTP/"):
            fields["WARC-Type"] = "resource"
        return fields


#: the fields that make a record a revisit (and its payload digest, the original's)
_REVISIT_ONLY: Final = frozenset(
    {"warc-refers-to", "warc-refers-to-target-uri", "warc-refers-to-date", "warc-profile", "warc-type"}
)


def _resolve_revisit(doc: Document, originals: dict[str, str], path: str | None, ctx: RunContext) -> None:
    """Give a revisit record its original's payload when the original is in the same file.

    A revisit (an unchanged page, or an identical payload stored once) carries no payload; its
    ``WARC-Refers-To`` names the record that has it. When that record came earlier from the same
    file, it is read again (one seek, :func:`~trawl.store.warcfile.read_record_at`) and its
    payload, status and HTTP headers (when the revisit has none) become the revisit's, so the
    page is converted and stored like any other (``read/revisits/resolved``). Otherwise the
    revisit stays empty and says why (``read/revisits/unresolved``).
    """
    refers = next((v for k, v in doc.warc_headers if k.lower() == "warc-refers-to"), None)
    where = originals.get(refers or "") if refers else None
    if where is None or path is None:
        ctx.stats.inc("read/revisits/unresolved")
        why = "names no record" if not refers else f"refers to {refers}, which is not earlier in this input"
        doc.error(_STAGE, f"revisit without its payload: it {why}")
        return
    from trawl.store.warcfile import read_record_at  # noqa: PLC0415 - only for revisits

    try:
        original = read_record_at(Path(path), int(where.rsplit("@", 1)[1]))
    except Exception as exc:  # a whole-file compressed input has no record offsets to seek to
        ctx.stats.inc("read/revisits/unresolved")
        doc.error(_STAGE, f"revisit of {refers}: its original could not be read again ({exc})")
        return
    # the capture it stands for: the original's payload under the revisit's own URL, time and
    # record id; a collection writer stores it again as a revisit of whatever it has stored
    doc.raw = original.raw
    doc.record_type = original.record_type
    if not doc.http_headers:
        doc.http_headers = original.http_headers
    if doc.status is None:
        doc.status = original.status
    doc.warc_headers = [(k, v) for k, v in doc.warc_headers if k.lower() not in _REVISIT_ONLY]
    doc.metadata["revisit_of"] = {"record_id": refers, "source": where}
    ctx.stats.inc("read/revisits/resolved")


class WarcSource(InputsSource):
    """Documents from WARC/ARC files, paths or binary streams, gzip/bzip2/xz/zstd or plain.

    Compression is detected from magic bytes, never from the file name. Cheap filters run
    before anything else is parsed: ``record_types`` (WARC-Type values to keep),
    ``min_length``/``max_length`` (on the record's Content-Length), ``url_filter`` (on
    WARC-Target-URI), then ``content_types`` (prefixes of the HTTP Content-Type for responses,
    of the record Content-Type otherwise), each counted under ``read/skipped/...``.
    ``record_size_cap`` bounds the memory one record may take: bigger blocks are streamed past
    and dropped as ``warc/too-large``.
    """

    name: ClassVar[str] = "warc"

    def __init__(
        self,
        inputs: Sequence[str | os.PathLike[str] | BinaryIO],
        *,
        record_types: Collection[str] = _DEFAULT_TYPES,
        url_filter: Callable[[str], bool] | None = None,
        content_types: Sequence[str] | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        record_size_cap: int = 1 << 30,
        fast: bool = True,
    ) -> None:
        self.inputs = list(inputs)
        self.record_types = tuple(record_types)
        self._types = frozenset(record_types)
        self.url_filter = url_filter
        self.content_types = tuple(content_types) if content_types is not None else None
        self._ctypes = tuple(t.lower() for t in content_types) if content_types is not None else None
        self.min_length = min_length
        self.max_length = max_length
        self.record_size_cap = record_size_cap
        self.fast = fast

    # -- one input ------------------------------------------------------------------------

    def read_input(self, ctx: RunContext, src: InputLike) -> Iterator[Document]:
        name = input_name(src)
        ctx.stats.inc("read/files")
        try:
            raw, opened = open_raw(src)
        except InputError as exc:
            ctx.drop(_STAGE, "warc/unreadable", str(exc), source=name)
            return
        path = os.fspath(src) if opened and isinstance(src, str | os.PathLike) else None
        originals: dict[str, str] = {}  # WARC-Record-ID → "name@offset", to resolve revisits
        try:
            for doc in self._read_stream(raw, name, ctx):
                if doc.record_type == "revisit" and not doc.raw:
                    _resolve_revisit(doc, originals, path, ctx)
                elif doc.record_id and doc.raw and doc.source:
                    originals[doc.record_id] = doc.source
                yield doc
        except OSError as exc:  # an I/O error mid-file: what was read stays read
            ctx.drop(_STAGE, "warc/unreadable", f"cannot read {name!r}: {exc.strerror or exc}", source=name)
        finally:
            if opened:
                raw.close()

    def _read_stream(self, raw: BinaryIO, name: str, ctx: RunContext) -> Iterator[Document]:
        stats = ctx.stats

        def count(n: int) -> None:
            stats.inc("read/bytes", n)

        seekable = _seekable(raw)
        start = raw.tell() if seekable else 0
        head = raw.read(65536)
        if not head.strip(b"\r\n\t \x00") and len(head) < 65536:
            count(len(head))
            ctx.drop(_STAGE, "warc/empty-file", f"{name!r} holds no data", source=f"{name}@{start}")
            return
        kind = detect_compression(head)
        src: _Reader = raw
        if seekable:
            raw.seek(start)
        else:
            src = _Prepend(head, raw)
        if kind not in (Compression.NONE, Compression.GZIP):
            yield from self._read_compressed(src, name, ctx, kind, count)
            return
        first = head
        if kind == Compression.GZIP:
            first, empty = _gunzip_head(head)
            if empty:
                count(len(head))
                ctx.drop(
                    _STAGE, "warc/empty-file", f"{name!r} decompresses to nothing", source=f"{name}@{start}"
                )
                return
        body = first.lstrip(b"\r\n")
        arc = body.startswith(b"filedesc://")
        if first and not arc and not body.startswith(b"WARC/"):
            count(len(head))
            ctx.drop(
                _STAGE,
                "warc/not-warc",
                f"{name!r} is not a WARC or ARC file: it starts with {quote_bytes(head)}",
                source=f"{name}@{start}",
            )
            return
        skip = 0
        if self.fast and seekable and not arc and (kind == Compression.NONE or _one_record_member(head)):
            resume = yield from self._fast(raw, name, ctx, start)
            offset, skip = start, resume.skip_all
            if resume.offset > start and _holds_record(raw, resume.offset, resume.head, kind):
                offset, skip = resume.offset, resume.skip_there
            if resume.why != "end":
                stats.inc(f"read/fallback/{resume.why}")
            count(offset - start)
            raw.seek(offset)
            start = offset
        pieces = iter(_Gunzip(src, start, count)) if kind == Compression.GZIP else _plain_pieces(src, count)
        framer = _Framer(self, pieces, name, ctx, arc=arc, base=start, suppress=skip)
        yield from framer.records(at_start=not first)

    def _read_compressed(
        self, raw: _Reader, name: str, ctx: RunContext, kind: str, count: Callable[[int], None]
    ) -> Iterator[Document]:
        """bzip2, xz and zstd: whole-stream compression, so offsets are in the decompressed stream."""
        counted = io.BufferedReader(_Counting(raw, count))
        stream: _Reader
        errors: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError)
        # the decompressors are left to the garbage collector: closing them would close ``raw``,
        # which belongs to the caller (a stream) or to read_input (a path)
        if kind == Compression.BZIP2:
            stream = bz2.BZ2File(counted)
        elif kind == Compression.XZ:
            stream = lzma.LZMAFile(counted)  # noqa: SIM115 - see above
        else:
            try:
                import zstandard  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415 - optional
            except ImportError:
                ctx.drop(
                    _STAGE,
                    "warc/unreadable",
                    f"{name!r} is zstd-compressed; install the 'zstandard' package to read it",
                    source=name,
                )
                return
            stream = zstandard.ZstdDecompressor().stream_reader(counted)
            errors = (*errors, zstandard.ZstdError)  # not an OSError: a frame needing a dictionary
        try:
            head = stream.read(65536)
        except errors as exc:
            ctx.drop(
                _STAGE, "warc/corrupt-compression", f"cannot decompress {name!r} ({kind}): {exc}", source=name
            )
            return
        if not head.strip(b"\r\n\t \x00"):
            ctx.drop(_STAGE, "warc/empty-file", f"{name!r} decompresses to nothing", source=f"{name}@0")
            return
        arc = head.lstrip(b"\r\n").startswith(b"filedesc://")
        pieces = _plain_pieces(_Prepend(head, stream), lambda n: None)
        framer = _Framer(self, _guarded(pieces, kind, errors), name, ctx, arc=arc, base=0, suppress=0)
        yield from framer.records(at_start=True)

    # -- the fast path --------------------------------------------------------------------

    def _fast(
        self, raw: BinaryIO, name: str, ctx: RunContext, start: int
    ) -> Generator[Document, None, _Resume]:
        """FastWARC over a seekable WARC; returns where the recovering reader must take over.

        A record is yielded (or its skip counted) only once FastWARC has framed the next record
        too, so a lying Content-Length is caught before its record leaves; the last record of
        the file is always left to the recovering reader, which checks its trailer and whatever
        follows. Only the records that pass the cheap filters have their header parsed.
        """
        from fastwarc.warc import ArchiveIterator, WarcHeader, WarcRecordType  # noqa: PLC0415 - deferred: heavy

        counters = ctx.stats.counters  # bumped directly: this loop runs once per record
        known = (
            "warcinfo", "response", "resource", "request",
            "metadata", "revisit", "conversion", "continuation",
        )  # fmt: skip
        # WarcRecordType members are singletons but not hashable: key them by id(). A type that
        # is kept, unknown (its WARC-Type is read below) or missing here is looked at further
        skip_key = {
            id(getattr(WarcRecordType, n)): f"read/skipped/type/{n}" for n in known if n not in self._types
        }
        types = self._types
        min_len = self.min_length if self.min_length is not None else -1
        max_len = min(self.max_length if self.max_length is not None else 1 << 62, self.record_size_cap)
        url_ok = self.url_filter
        ctypes = self._ctypes
        content_type_key = WarcHeader.CONTENT_TYPE  # an enum key: 5x faster than the string
        pend: Any = None  # the last record FastWARC framed, not yet vouched for
        pend_doc: Document | None = None
        pend_key = ""  # the counter it bumps once vouched for, when it is not a document
        pend_pos = start
        prev: Any = None
        prev_pos = start
        done = 0  # records vouched for
        try:
            # HTTP heads are parsed below, only for the records that are kept
            for record in ArchiveIterator(raw, parse_http=False):
                pos = record.stream_pos
                if pend is not None:
                    if pos <= pend_pos:  # records inside one gzip member: FastWARC cannot place them
                        if prev is None:
                            return _Resume("layout", start, b"", 0, 0)
                        return _Resume("layout", prev_pos, _head_of(prev), 1, done)
                    if pend_doc is not None:
                        counters["read/records"] += 1
                        yield pend_doc
                    else:
                        counters[pend_key] += 1
                    done += 1
                    prev, prev_pos = pend, pend_pos
                pend, pend_pos, pend_doc = record, pos, None
                key = skip_key.get(id(record.record_type))
                if key is not None:
                    pend_key = key
                    continue
                # WARC headers: FastWARC's parse, unless the raw text shows a line it would have
                # dropped or merged (bad or folded lines) or a name that is not a token
                warc_map = record.headers
                text = str(warc_map)
                items = warc_map.items()
                fields = dict(items)
                names = "".join(fields)
                if (
                    text.count("\r\n") != len(items) + 2
                    or " " in names
                    or "\t" in names
                    or "WARC-Type" not in fields
                    or "Content-Length" not in fields
                ):
                    try:  # trawl's parser decides: lenient where it can be, a drop where not
                        headers, fields = parse_warc_head(text)
                    except WarcRecordError:
                        return _Resume("header", pos, _head_of(record), 0, done)
                else:
                    headers = list(items)
                declared = fields.get("Content-Length", "")
                if not (declared.isascii() and declared.isdigit()):  # not "4¹3"
                    return _Resume("header", pos, _head_of(record), 0, done)
                length = int(declared)  # the block's; FastWARC's content_length is the payload's
                kind = fields.get("WARC-Type", "")
                if kind not in types:
                    pend_key = f"read/skipped/type/{kind}"
                    continue
                if length < min_len or length > max_len:
                    if length > self.record_size_cap:
                        return _Resume("too-large", pos, _head_of(record), 0, done)
                    pend_key = "read/skipped/length"
                    continue
                if url_ok is not None and not url_ok(fields.get("WARC-Target-URI", "")):
                    pend_key = "read/skipped/url"
                    continue
                http = kind in _HTTP_KINDS and record.is_http
                if http:
                    record.parse_http()  # FastWARC splits off the HTTP head
                body = record.reader.read()
                if len(body) != record.content_length:  # the data ended inside the block
                    return _Resume("short-block", pos, _head_of(record), 0, done)
                payload: Payload
                if http:
                    http_map = record.http_headers
                    status = http_map.status_code
                    line = http_map.status_line
                    http_text = str(http_map)  # the head as stored
                    n_lines = len(http_map) + 2  # status line, fields, blank line
                    keys = http_map.keys()
                    names = "".join(keys)
                    if (
                        line is not None
                        and (status is not None or not line.startswith("HTTP/"))  # a request line
                        # FastWARC joins folds, drops lines without a colon and takes names with
                        # spaces or empty: every line one field, CRLF only, names tokens, or trawl
                        and http_text.count("\r\n") == n_lines
                        and http_text.count("\n") == n_lines
                        and " " not in names
                        and "\t" not in names
                        and "" not in keys
                    ):
                        # the pairs are made when a stage asks for them; the declared type is
                        # FastWARC's first Content-Type, any case: what content_type() picks
                        http_type = http_map.get(content_type_key)
                        payload = (status, LazyHeaders(http_map.items), body, http_type, None)
                    else:  # an odd status line or header line: trawl's parser, on the same bytes
                        payload = record_payload(fields, http_text.encode("utf-8") + body)
                else:
                    payload = record_payload(fields, body)
                if ctypes is not None and not (payload[3] or "").lower().startswith(ctypes):
                    pend_key = "read/skipped/content-type"
                    continue
                pend_doc = record_document(headers, fields, payload, f"{name}@{pos}")
        except (OSError, ValueError, RuntimeError) as exc:  # FastWARC's verdicts on bad input
            return _Resume(f"error/{type(exc).__name__}", pend_pos, _head_of(pend), 0, done)
        return _Resume("end", pend_pos, _head_of(pend), 0, done)


# ---------------------------------------------------------------------------------------------
# helpers


class _Prepend:
    """A stream with bytes already read from it put back in front (for streams that cannot seek)."""

    def __init__(self, head: bytes, raw: _Reader) -> None:
        self.head = head
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n < 0 or n >= len(self.head):
                out, self.head = self.head, b""
            else:
                out, self.head = self.head[:n], self.head[n:]
            return out
        return self.raw.read(n)


class _Counting(io.RawIOBase):
    """Counts the compressed bytes a decompressor reads (``read/bytes`` is input bytes)."""

    def __init__(self, raw: _Reader, count: Callable[[int], None]) -> None:
        super().__init__()
        self.raw = raw
        self.count = count

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        self.count(len(data))
        buffer[: len(data)] = data
        return len(data)


def _guarded(
    pieces: Iterator[_Piece],
    kind: str,
    errors: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError),
) -> Iterator[_Piece]:
    """Turn a decompressor's failure mid-stream (one of ``errors``) into a gap at the end, not an
    exception."""
    try:
        yield from pieces
    except errors as exc:
        yield b"", -1, _Gap("warc/corrupt-compression", f"{kind} stream is corrupt or truncated: {exc}", -1)


def _seekable(raw: BinaryIO) -> bool:
    try:
        return bool(raw.seekable()) and raw.tell() >= 0
    except (OSError, ValueError, AttributeError):
        return False


def _head_of(record: Any) -> bytes:
    """The start of a FastWARC record's header, to check a resume position against."""
    if record is None:
        return b""
    return str(record.headers)[:48].encode("utf-8", "replace")


def _gunzip_head(head: bytes) -> tuple[bytes, bool]:
    """The first decompressed bytes of a gzip stream ("" if its first member is broken), and
    whether the whole stream is one empty member."""
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(head, 256)
    except zlib.error:
        return b"", False
    empty = inflater.eof and not out and not inflater.unused_data.strip(b"\x00")
    return out, empty


def _one_record_member(head: bytes) -> bool:
    """Does the file's first gzip member hold exactly one WARC record (the per-record layout)?

    FastWARC reports member offsets, not record offsets, so it is only used on files laid out
    one record per member, as the WARC standard recommends; others go to the recovering reader.
    """
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(head)
    except zlib.error:
        return False
    if not inflater.eof:
        return False  # the first member is longer than 64 KiB: a warcinfo never is
    end = out.find(b"\r\n\r\n")
    if end < 0:
        return False
    try:
        length = block_length(parse_warc_head(out[: end + 4].decode("utf-8", "replace"))[1])
    except WarcRecordError:
        return False
    return len(out) == end + 4 + length + 4


def _holds_record(raw: BinaryIO, offset: int, head: bytes, kind: str) -> bool:
    """Does a record whose header starts with ``head`` start at ``offset``? Checked before the
    recovering reader seeks to a position the fast path reported."""
    raw.seek(offset)
    data = raw.read(65536 if kind == Compression.GZIP else 256)
    if kind == Compression.GZIP:
        if not data.startswith(_GZIP_MEMBER):
            return False
        data = _gunzip_head(data)[0]
    return data.startswith(b"WARC/1.") and data.startswith(head[:48])
