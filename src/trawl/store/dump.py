"""A table's logical dump as a file: how a part made on one machine travels to the one that merges.

:meth:`RowStore.dump <trawl.store.table.RowStore.dump>` yields the table's content free of its
engine (decoded values, no dictionaries, no markers); :func:`write_dump` writes those items to a
file and :func:`read_dump` yields them back, exactly: a ``bytes`` value stays ``bytes``, a JSON
value comes back equal, and keys keep any lone surrogate (``surrogatepass``, as the table keeps
them)::

    trawl-dump 1\\n                       the magic line, then one record per item:
    <kind: 1 byte> <size: u32> <fields: size bytes, each <length: u32> <bytes>>
      c  row, family, qualifier, ts (u64), value     a cell version (value as the table's json codec)
      i  index, key, row                             an index entry
      e  index, key, value                           a JSON entry
      p  index, term, row, row, ...                  rows on a posting list
      z  count (u64)                                 the end: how many items came before it

The whole is compressed as one zstd (the ``zstd`` extra) or gzip stream; :func:`read_dump` tells
which from the first bytes. The end record makes a file cut short an error, never a smaller dump.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from trawl.errors import MissingDependency, StoreError
from trawl.store.table import (
    DumpCell,
    DumpEntry,
    DumpIndex,
    DumpItem,
    DumpPostings,
    decode_value,
    encode_value,
)

__all__ = ["DUMP_CODECS", "read_dump", "write_dump"]

MAGIC = b"trawl-dump 1\n"
#: compression of a dump file; ``auto``: zstd when ``zstandard`` is installed, else gzip
DUMP_CODECS = ("auto", "zstd", "gzip", "none")
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GZIP_MAGIC = b"\x1f\x8b"
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_HEAD = struct.Struct(">cI")
_FLUSH_BYTES = 1 << 20


def _zstd(needed_by: str) -> Any:
    try:
        import zstandard  # noqa: PLC0415 - optional: only zstd-compressed dumps need it
    except ImportError as exc:
        raise MissingDependency("zstandard", "zstd", needed_by) from exc
    return zstandard


def _text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def _str(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogatepass")


def _record(out: bytearray, kind: bytes, fields: Iterable[bytes]) -> None:
    body = b"".join(_U32.pack(len(part)) + part for part in fields)
    out += _HEAD.pack(kind, len(body))
    out += body


def write_dump(items: Iterable[DumpItem], target: Path | IO[bytes], *, codec: str = "auto") -> int:
    """Write ``items`` (a :meth:`~trawl.store.table.RowStore.dump`) to ``target``, a path or a
    binary file left open; returns how many items it wrote."""
    if codec not in DUMP_CODECS:
        raise StoreError(f"unknown dump codec {codec!r}; choose one of {', '.join(DUMP_CODECS)}")
    if isinstance(target, Path):
        with target.open("wb") as fh:
            return write_dump(items, fh, codec=codec)
    if codec == "auto":
        try:
            _zstd("a zstd dump")
            codec = "zstd"
        except MissingDependency:
            codec = "gzip"
    stream: Any
    if codec == "zstd":
        stream = _zstd("a zstd-compressed dump").ZstdCompressor(level=3).stream_writer(target, closefd=False)
    elif codec == "gzip":
        stream = gzip.GzipFile(fileobj=target, mode="wb", compresslevel=6, mtime=0)
    else:
        stream = target
    out = bytearray(MAGIC)
    count = 0
    for item in items:
        if isinstance(item, DumpCell):
            fields = (_text(item.row), _text(item.family), _text(item.qualifier), _U64.pack(item.ts))
            _record(out, b"c", (*fields, encode_value(item.value)))
        elif isinstance(item, DumpIndex):
            _record(out, b"i", (_text(item.index), _text(item.key), _text(item.row)))
        elif isinstance(item, DumpEntry):
            _record(out, b"e", (_text(item.index), _text(item.key), encode_value(item.value)))
        elif isinstance(item, DumpPostings):
            _record(out, b"p", (_text(item.index), _text(item.term), *map(_text, item.rows)))
        else:
            raise StoreError(f"cannot write {item!r} to a dump: not a dump item (DumpCell, DumpIndex, ...)")
        count += 1
        if len(out) >= _FLUSH_BYTES:
            stream.write(out)
            out = bytearray()
    _record(out, b"z", (_U64.pack(count),))
    stream.write(out)
    if stream is not target:
        stream.close()  # ends the compressed stream; ``target`` stays open
    target.flush()
    return count


class _Reader:
    """Records out of a (decompressed) stream, read in large chunks and parsed in place."""

    def __init__(self, stream: Any, name: str) -> None:
        self._stream = stream
        self._name = name
        self._buf = b""
        self._pos = 0

    def _need(self, n: int) -> bool:
        """Make ``n`` bytes available from the current position; False at a clean end of input."""
        if len(self._buf) - self._pos >= n:
            return True
        chunks = [self._buf[self._pos :]]
        have = len(chunks[0])
        while have < n:
            try:
                chunk = self._stream.read(max(_FLUSH_BYTES, n - have))
            except (OSError, EOFError, zlib.error) as exc:
                raise StoreError(f"the dump {self._name} is damaged: {exc}") from exc
            except Exception as exc:  # zstandard.ZstdError, only known once the module is loaded
                if type(exc).__name__ != "ZstdError":
                    raise
                raise StoreError(f"the dump {self._name} is damaged: {exc}") from exc
            if not chunk:
                break
            chunks.append(chunk)
            have += len(chunk)
        self._buf, self._pos = b"".join(chunks), 0
        return have >= n

    def _take(self, n: int) -> bytes:
        if not self._need(n):
            raise StoreError(
                f"the dump {self._name} ends inside a record (cut short in a copy?): write it again"
            )
        data = self._buf[self._pos : self._pos + n]
        self._pos += n
        return data

    def starts_with(self, magic: bytes) -> bool:
        """Whether the input starts with ``magic`` (consumed if so)."""
        if not self._need(len(magic)) or self._buf[self._pos : self._pos + len(magic)] != magic:
            return False
        self._pos += len(magic)
        return True

    def records(self) -> Iterator[tuple[bytes, list[bytes]]]:
        while True:
            if not self._need(_HEAD.size):
                if len(self._buf) - self._pos:
                    raise StoreError(f"the dump {self._name} ends inside a record header: write it again")
                raise StoreError(
                    f"the dump {self._name} ends before its end record (cut short in a copy?): write it again"
                )
            kind, size = _HEAD.unpack_from(self._buf, self._pos)
            self._pos += _HEAD.size
            body = self._take(size)
            fields = []
            at = 0
            while at < size:
                (length,) = _U32.unpack_from(body, at)
                at += _U32.size + length
                if at > size:
                    raise StoreError(f"the dump {self._name} holds a malformed {kind!r} record")
                fields.append(body[at - length : at])
            yield kind, fields


def read_dump(source: Path | IO[bytes]) -> Iterator[DumpItem]:
    """The items :func:`write_dump` wrote to ``source`` (a path or a binary file), lazily, in
    order; the compression is found from the first bytes. A damaged or cut short file raises
    :class:`StoreError` (only after the items before the damage: a load of it is re-run whole)."""
    if isinstance(source, Path):
        with source.open("rb") as fh:
            yield from read_dump(fh)
        return
    name = repr(str(getattr(source, "name", "<stream>")))
    head = source.read(4)
    prefixed = _Prefixed(head, source)
    stream: Any
    if head.startswith(_ZSTD_MAGIC):
        zstd = _zstd("reading a zstd-compressed dump")
        stream = zstd.ZstdDecompressor().stream_reader(prefixed, read_across_frames=True, closefd=False)
    elif head.startswith(_GZIP_MAGIC):
        stream = gzip.GzipFile(fileobj=prefixed, mode="rb")
    else:
        stream = prefixed
    reader = _Reader(stream, name)
    if not reader.starts_with(MAGIC):
        raise StoreError(f"{name} is not a trawl table dump (it starts {head!r}); make one with write_dump")
    for count, (kind, fields) in enumerate(reader.records()):
        try:
            if kind == b"c":
                row, family, qualifier = map(_str, fields[:3])
                (ts,) = _U64.unpack(fields[3])
                yield DumpCell(row, family, qualifier, ts, decode_value(fields[4]))
            elif kind == b"i":
                index, key, row = map(_str, fields)
                yield DumpIndex(index, key, row)
            elif kind == b"e":
                index, key = map(_str, fields[:2])
                yield DumpEntry(index, key, decode_value(fields[2]))
            elif kind == b"p":
                index, term, *rows = map(_str, fields)
                yield DumpPostings(index, term, tuple(rows))
            elif kind == b"z":
                (expected,) = _U64.unpack(fields[0])
                if expected != count:
                    raise StoreError(f"the dump {name} says it holds {expected} items, but {count} came")
                return
            else:
                raise StoreError(f"the dump {name} holds a record of unknown kind {kind!r} (item {count})")
        except (ValueError, IndexError, struct.error) as exc:  # JSON and UTF-8 errors are ValueErrors
            raise StoreError(
                f"the dump {name} holds a malformed {kind!r} record (item {count}): {exc}"
            ) from exc


class _Prefixed:
    """``head`` (bytes already read to tell the compression) followed by the rest of ``rest``."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                data, self._head = self._head + self._rest.read(), b""
                return data
            data, self._head = self._head[:size], self._head[size:]
            return data
        return self._rest.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        raise io.UnsupportedOperation("a dump is read once, front to back")
