"""Torn WARC tails: finding the last whole record of a WARC file and cutting off what follows it.

A writer killed (``SIGKILL``, power cut, a full disk the writer could not clean up after) while it
appended a record leaves a file that ends in half a gzip member, half a zstd frame or half an
uncompressed record. trawl's own reader salvages such a tail; other readers (warcio, FastWARC,
``gzip -t``) stop with an error or hand back a record shorter than its ``Content-Length``.

:func:`check_tail` finds where the last whole record of a file ends without reading the whole
file: it looks backwards from the end for the start of a record that the caller knows to be whole
(``known``: the collection's pointer index holds the offset of every record a committed row names,
and a row is committed only after its record reached the file), then walks forward record by
record from there to the end, framing each one (a gzip member inflated, a zstd frame's block
headers followed, an uncompressed record's ``Content-Length`` skipped). With no such record near
the end (a file of request records, which no row names), the walk starts at offset 0. Records that
are whole but not yet named by a row (the writer was killed between the record and its row) are
kept. :func:`repair_tail` truncates the file to the end of the last whole record.

Bytes that are no record *before* a whole record (damage inside a file, not a torn tail) are left
as they are: cutting there would lose the records after them. The check says so (``damaged``).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from trawl.errors import WarcFormatError
from trawl.store.warcfile import block_length, parse_warc_head

__all__ = ["TailCheck", "TailRepair", "check_tail", "codec_of", "repair_tail"]

#: the bytes each codec's record starts with
_SIGNATURES: Final = {"gzip": b"\x1f\x8b\x08", "zstd": b"\x28\xb5\x2f\xfd", "none": b"WARC/1."}
_CHUNK: Final = 1 << 20
#: record starts looked up (from the end backwards) for one the caller knows; then offset 0
MAX_CANDIDATES: Final = 256
#: how far forward past damage a whole record is looked for
_DAMAGE_LOOKAHEAD: Final = 64 << 20
_MAX_HEAD: Final = 1 << 20
_TORN: Final = -1  # the record runs past the end of the file
_BAD: Final = -2  # no record starts here


def codec_of(name: str) -> str | None:
    """The codec of a WARC file by its name (``gzip``, ``zstd``, ``none``), None for another file."""
    if name.endswith(".warc.gz"):
        return "gzip"
    if name.endswith(".warc.zst"):
        return "zstd"
    if name.endswith(".warc"):
        return "none"
    return None


@dataclass(frozen=True, slots=True)
class TailCheck:
    """Where the last whole record of a file ends (``end``), the file's ``size``, and whether bytes
    that are no record lie before a whole record (``damaged``: left as they are)."""

    end: int
    size: int
    damaged: bool = False

    @property
    def torn(self) -> int:
        """Bytes after the last whole record (0: the file ends with a whole record)."""
        return 0 if self.damaged else self.size - self.end


@dataclass(frozen=True, slots=True)
class TailRepair:
    """One torn tail: ``file`` (its name), ``offset`` (the end of its last whole record, where the
    torn record starts), ``removed`` (bytes after it) and whether they were cut off (``truncated``;
    not when the file cannot be written: then ``error`` says why and readers skip the tail)."""

    file: str
    offset: int
    removed: int
    truncated: bool
    error: str = ""

    def message(self) -> str:
        if not self.removed:
            return f"{self.file}: its tail could not be checked ({self.error})"
        if self.truncated:
            return (
                f"{self.file}@{self.offset}: {self.removed} bytes after the last whole record "
                "(a record cut short when its writer was killed) removed"
            )
        return (
            f"{self.file}@{self.offset}: {self.removed} bytes after the last whole record could not be "
            f"removed ({self.error}); readers skip them"
        )


class _Window:
    """Reads of a file through one buffered window, so a walk over adjacent records reads each
    byte once (a read per record of a chunk would read a file of small records many times)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.start = 0
        self.data = b""

    def read(self, pos: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``pos`` (fewer at the end of the file)."""
        if not (self.start <= pos and pos + n <= self.start + len(self.data)):
            self.fh.seek(pos)
            self.data = self.fh.read(max(n, _CHUNK))
            self.start = pos
        at = pos - self.start
        return self.data[at : at + n]


_PIECE: Final = 64 << 10


def _gzip_end(src: _Window, pos: int, size: int) -> int:
    """The end of the gzip member at ``pos`` holding a WARC record, or ``_TORN`` / ``_BAD``."""
    inflater = zlib.decompressobj(31)
    fed = 0
    head = b""
    while True:
        data = src.read(pos + fed, _PIECE)
        if not data:
            return _TORN
        fed += len(data)
        try:
            while data and not inflater.eof:  # at most a chunk of output at a time
                out = inflater.decompress(data, _CHUNK)
                if len(head) < 7:
                    head += out[: 7 - len(head)]
                    if not _SIGNATURES["none"].startswith(head):
                        return _BAD
                data = inflater.unconsumed_tail
        except zlib.error:
            return _BAD
        if inflater.eof:
            if head != _SIGNATURES["none"]:
                return _BAD
            return pos + fed - len(inflater.unused_data) - len(data)


# zstd (RFC 8878): the frame header's field sizes by flag, read without decompressing, so a
# frame compressed against a reference needs no dictionary to be framed
_FCS_BYTES: Final = (0, 2, 4, 8)
_DID_BYTES: Final = (0, 1, 2, 4)
_MAX_BLOCK: Final = 128 << 10


def _zstd_end(src: _Window, pos: int, size: int) -> int:
    """The end of the zstd frame at ``pos``, or ``_TORN`` / ``_BAD``: the frame header and each
    block header followed to the last block (and the checksum)."""
    head = src.read(pos, 18)
    if len(head) < 5:
        return _TORN if _SIGNATURES["zstd"].startswith(head[:4]) else _BAD
    if head[:4] != _SIGNATURES["zstd"]:
        return _BAD
    descriptor = head[4]
    if descriptor & 0x08:  # the reserved bit
        return _BAD
    single = bool(descriptor & 0x20)
    fcs = _FCS_BYTES[descriptor >> 6] or (1 if single else 0)
    at = pos + 5 + (0 if single else 1) + _DID_BYTES[descriptor & 0x03] + fcs
    checksum = 4 if descriptor & 0x04 else 0
    while True:
        if at + 3 > size:
            return _TORN
        (word,) = struct.unpack("<I", src.read(at, 3) + b"\x00")
        last, kind, length = word & 1, (word >> 1) & 3, word >> 3
        if kind == 3 or length > _MAX_BLOCK:
            return _BAD
        at += 3 + (1 if kind == 1 else length)
        if last:
            at += checksum
            return at if at <= size else _TORN


def _plain_end(src: _Window, pos: int, size: int) -> int:
    """The end of the uncompressed record at ``pos`` (header, ``Content-Length`` bytes, CRLF CRLF),
    or ``_TORN`` / ``_BAD``."""
    data = b""
    while (cut := data.find(b"\r\n\r\n")) < 0:
        more = src.read(pos + len(data), _PIECE)
        if not more:
            return _TORN if _SIGNATURES["none"].startswith(data[:7]) else _BAD
        data += more
        if not data.startswith(_SIGNATURES["none"][: len(data)]):
            return _BAD
        if len(data) > _MAX_HEAD:
            return _BAD
    if not data.startswith(_SIGNATURES["none"]):
        return _BAD
    try:
        length = block_length(parse_warc_head(data[: cut + 4].decode("utf-8", "replace"))[1])
    except WarcFormatError:
        return _BAD
    end = pos + cut + 4 + length + 4
    if end > size:
        return _TORN
    return end if src.read(end - 4, 4) == b"\r\n\r\n" else _BAD


_FRAMERS: Final[dict[str, Callable[[_Window, int, int], int]]] = {
    "gzip": _gzip_end,
    "zstd": _zstd_end,
    "none": _plain_end,
}


def _anchor(fh: IO[bytes], size: int, signature: bytes, known: Callable[[int], bool]) -> int:
    """The start of the last record ``known`` vouches for, looked for backwards from the end among
    the places ``signature`` occurs (at most :data:`MAX_CANDIDATES`); 0 when none is."""
    end = size
    tried = 0
    while end > 0 and tried < MAX_CANDIDATES:
        start = max(0, end - _CHUNK)
        fh.seek(start)
        window = fh.read(end - start + len(signature) - 1)  # a signature across the boundary too
        limit = end - start  # candidates start before it: later ones were tried with the window after
        while tried < MAX_CANDIDATES and (at := window.rfind(signature, 0, limit + len(signature) - 1)) >= 0:
            tried += 1
            if start + at > 0 and known(start + at):
                return start + at
            limit = at
        end = start
    return 0


def _whole_record_after(src: _Window, pos: int, size: int, codec: str) -> bool:
    """Is there a whole record after the bytes at ``pos`` that are none (damage, not a tail)?"""
    signature, framer = _SIGNATURES[codec], _FRAMERS[codec]
    at = pos + 1
    limit = min(size, pos + _DAMAGE_LOOKAHEAD)
    while at < limit:
        window = src.read(at, min(_CHUNK, limit - at) + len(signature) - 1)
        found = window.find(signature)
        if found < 0:
            at += max(1, len(window) - len(signature) + 1)
            continue
        if framer(src, at + found, size) >= 0:
            return True
        at += found + 1
    return False


def check_tail(path: Path, codec: str, *, known: Callable[[int], bool] = lambda _: False) -> TailCheck:
    """Where the last whole record of the WARC file ``path`` (``codec``: ``gzip``, ``zstd`` or
    ``none``) ends. ``known(offset)``: is a whole record known to start there (the collection's
    pointer index)? The walk starts at the last such record, else at 0."""
    framer = _FRAMERS[codec]
    with path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        pos = _anchor(fh, size, _SIGNATURES[codec], known)
        src = _Window(fh)
        while pos < size:
            end = framer(src, pos, size)
            if end < 0:
                if end == _BAD and _whole_record_after(src, pos, size, codec):
                    return TailCheck(pos, size, damaged=True)
                break
            pos = end
        return TailCheck(pos, size)


def repair_tail(
    path: Path, codec: str, *, known: Callable[[int], bool] = lambda _: False
) -> TailRepair | None:
    """Cut off the torn tail of the WARC file ``path``, if it has one (see :func:`check_tail`);
    what was done, or None for a file that ends with a whole record (or is damaged inside)."""
    check = check_tail(path, codec, known=known)
    if not check.torn:
        return None
    try:
        os.truncate(path, check.end)
    except OSError as exc:
        return TailRepair(path.name, check.end, check.torn, False, exc.strerror or str(exc))
    return TailRepair(path.name, check.end, check.torn, True)
