"""Open inputs given as paths or streams, detecting compression from magic bytes.

Readers never trust file extensions: ``open_input`` peeks at the first bytes and wraps gzip
(multi-member too), bzip2, xz and zstd streams itself.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from pathlib import Path
from typing import IO, BinaryIO

from trawl import fsio
from trawl.errors import InputError, MissingDependency

__all__ = ["Compression", "InputLike", "detect_compression", "input_name", "open_input", "open_raw"]

InputLike = str | os.PathLike[str] | BinaryIO | IO[bytes]


class Compression:
    NONE = "none"
    GZIP = "gzip"
    BZIP2 = "bzip2"
    XZ = "xz"
    ZSTD = "zstd"


_MAGIC = (
    (b"\x1f\x8b", Compression.GZIP),
    (b"BZh", Compression.BZIP2),
    (b"\xfd7zXZ\x00", Compression.XZ),
    (b"\x28\xb5\x2f\xfd", Compression.ZSTD),
)


def detect_compression(head: bytes) -> str:
    """The compression of a stream that starts with ``head`` (a few bytes suffice)."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return Compression.NONE


def input_name(src: InputLike) -> str:
    """A human-readable name for a path or stream, for messages and provenance."""
    if isinstance(src, str | os.PathLike):
        return os.fspath(src)
    name = getattr(src, "name", None)
    return str(name) if isinstance(name, str) else f"<{type(src).__name__}>"


def open_raw(src: InputLike) -> tuple[BinaryIO, bool]:
    """Open a path for binary reading, or pass a stream through. Returns (stream, we_opened_it).

    A URL (``s3://bucket/crawl.warc.gz``) is opened through :func:`trawl.fsio.open_input`.
    """
    if isinstance(src, str | os.PathLike):
        if fsio.is_remote(src):
            return fsio.open_input(src), True
        path = Path(src)
        try:
            return path.open("rb"), True
        except OSError as exc:
            raise InputError(f"cannot open {os.fspath(src)!r}: {exc.strerror or exc}") from exc
    return src, False  # type: ignore[return-value]


def _peek(stream: BinaryIO, n: int) -> tuple[bytes, BinaryIO]:
    """Read the first ``n`` bytes without losing them, seeking back when possible."""
    peek = getattr(stream, "peek", None)
    if callable(peek):
        head = bytes(peek(n))[:n]
        return head, stream
    if stream.seekable():
        pos = stream.tell()
        head = stream.read(n)
        stream.seek(pos)
        return head, stream
    buffered = io.BufferedReader(stream)  # type: ignore[type-var]
    return bytes(buffered.peek(n))[:n], buffered


def open_input(src: InputLike) -> tuple[BinaryIO, str]:
    """Open ``src`` and undo its compression. Returns (decompressed stream, compression kind).

    zstd needs the optional ``zstandard`` module (extra ``zstd``); without it a zstd input raises
    :class:`MissingDependency` naming the extra.
    """
    raw, _ = open_raw(src)
    head, raw = _peek(raw, 8)
    kind = detect_compression(head)
    if kind == Compression.GZIP:
        return gzip.GzipFile(fileobj=raw, mode="rb"), kind  # type: ignore[return-value]
    if kind == Compression.BZIP2:
        return bz2.BZ2File(raw, "rb"), kind  # type: ignore[return-value]
    if kind == Compression.XZ:
        return lzma.LZMAFile(raw, "rb"), kind  # type: ignore[return-value]
    if kind == Compression.ZSTD:
        try:
            import zstandard  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415 - optional
        except ImportError as exc:
            raise MissingDependency("zstandard", "zstd", f"reading {input_name(src)} (zstd)") from exc
        reader: BinaryIO = zstandard.ZstdDecompressor().stream_reader(raw)
        return reader, kind
    return raw, kind
