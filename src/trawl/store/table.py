"""A BigTable-style versioned table on embedded RocksDB (via rocksdict).

The model is BigTable's: a row key (the SURT URL, so a host's pages are adjacent and compress
together), column families with arbitrary qualifiers (``fetch:pointer``, ``text:title``, later
``anchor:<linking page>``), and every cell versioned by a timestamp. One row's mutations are
written in one atomic RocksDB write batch; RocksDB's write-ahead log is the commit log, replayed
on open after a crash.

Physical layout (one RocksDB key space, ordered bytewise)::

    r <row> \\0 <family> \\0 <qualifier> \\0 <~timestamp: 8 bytes big-endian>  ->  JSON value
    i <index name> \\0 <index key>                                          ->  row key

Inverting the timestamp makes the newest version of a cell sort first, so "latest" and "as of T"
are one forward seek. Secondary indexes (URL hash, DOCNO) map to row keys.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from trawl.errors import StoreError

__all__ = ["Table"]

_MAX_TS = (1 << 64) - 1
_SEP = b"\x00"


def _ts_bytes(ts: int) -> bytes:
    return struct.pack(">Q", _MAX_TS - ts)


def _ts_from(raw: bytes) -> int:
    return _MAX_TS - int(struct.unpack(">Q", raw)[0])


def _enc(part: str) -> bytes:
    data = part.encode("utf-8", "surrogatepass")
    if _SEP in data:
        raise StoreError(f"key part {part!r} contains a NUL byte")
    return data


def _prefix_end(prefix: bytes) -> bytes:
    """The smallest key greater than every key starting with ``prefix``."""
    return prefix + b"\xff" * 9


class Table:
    """A versioned, column-family table in one RocksDB directory.

    ``versions`` maps a family to how many versions of each cell to keep (older ones are deleted
    when a newer one is written); families not listed keep 1.
    """

    def __init__(self, path: Path, *, versions: Mapping[str, int] | None = None, create: bool = True) -> None:
        from rocksdict import Options, Rdict  # noqa: PLC0415 - heavy native module, loaded on use

        self.path = Path(path)
        self.versions = dict(versions or {})
        options = Options(raw_mode=True)
        options.create_if_missing(create)
        try:
            self._db = Rdict(str(self.path), options)
        except Exception as exc:  # rocksdict raises plain Exception subclasses
            raise StoreError(f"cannot open the table at {str(self.path)!r}: {exc}") from exc
        self._closed = False

    def _scan(self, prefix: bytes) -> Iterator[tuple[bytes, Any]]:
        """(key, iterator) for every key starting with ``prefix``; read values with ``it.value()``."""
        it = self._db.iter()
        it.seek(prefix)
        while it.valid():
            key: bytes = it.key()
            if not key.startswith(prefix):
                return
            yield key, it
            it.next()

    # -- writing -----------------------------------------------------------------------------

    def put_row(self, row: str, cells: Mapping[str, Mapping[str, Any]], ts: int) -> None:
        """Write ``{family: {qualifier: value}}`` for ``row`` at timestamp ``ts``, atomically.

        Versions beyond each family's policy are deleted in the same batch, found by one scan
        over the row (a new row costs one seek).
        """
        from rocksdict import WriteBatch  # noqa: PLC0415

        batch = WriteBatch(raw_mode=True)
        rkey = b"r" + _enc(row) + _SEP
        tsb = _ts_bytes(ts)
        keep: dict[bytes, int] = {}
        for family, columns in cells.items():
            fkey = rkey + _enc(family) + _SEP
            limit = self.versions.get(family, 1)
            for qualifier, value in columns.items():
                cell = fkey + _enc(qualifier) + _SEP
                batch.put(cell + tsb, orjson.dumps(value))
                keep[cell] = limit
        existing: dict[bytes, list[bytes]] = {}
        for key, _ in self._scan(rkey):
            cell = key[:-8]
            if cell in keep and key[-8:] != tsb:
                existing.setdefault(cell, []).append(key[-8:])
        for cell, stamps in existing.items():
            # inverted timestamps: ascending bytes = newest first; keep the newest `limit`
            ordered = sorted([*stamps, tsb])
            for old in ordered[keep[cell] :]:
                batch.delete(cell + old)  # may be the version just put, if it is the oldest
        self._db.write(batch)

    def put_index(self, index: str, key: str, row: str) -> None:
        self._db[b"i" + _enc(index) + _SEP + key.encode("utf-8", "surrogatepass")] = _enc(row)

    def lookup(self, index: str, key: str) -> str | None:
        raw = self._db.get(b"i" + _enc(index) + _SEP + key.encode("utf-8", "surrogatepass"))
        return None if raw is None else bytes(raw).decode("utf-8", "surrogatepass")

    # -- reading -----------------------------------------------------------------------------

    def get_row(self, row: str, *, as_of: int | None = None) -> dict[str, dict[str, Any]]:
        """The newest version (at or before ``as_of``) of every cell of ``row``; {} if absent."""
        out: dict[str, dict[str, Any]] = {}
        rkey = b"r" + _enc(row) + _SEP
        for key, it in self._scan(rkey):
            rest = key[len(rkey) :]
            family_b, _, qualifier_b = rest[:-9].partition(_SEP)  # drop "\0" + 8 timestamp bytes
            ts = _ts_from(rest[-8:])
            family = family_b.decode("utf-8", "surrogatepass")
            qualifier = qualifier_b.decode("utf-8", "surrogatepass")
            columns = out.setdefault(family, {})
            if qualifier not in columns and (as_of is None or ts <= as_of):
                columns[qualifier] = orjson.loads(it.value())
        return {f: c for f, c in out.items() if c}

    def versions_of(self, row: str, family: str, qualifier: str) -> list[tuple[int, Any]]:
        """Every stored version of one cell, newest first, as (timestamp, value)."""
        cell = b"r" + _enc(row) + _SEP + _enc(family) + _SEP + _enc(qualifier) + _SEP
        # qualifiers hold no NUL, so every key under `cell` is cell + 8 timestamp bytes
        return [(_ts_from(key[-8:]), orjson.loads(it.value())) for key, it in self._scan(cell)]

    def rows(self, prefix: str = "") -> Iterator[str]:
        """Row keys in order, optionally only those starting with ``prefix`` (a host's SURT)."""
        start = b"r" + prefix.encode("utf-8", "surrogatepass")
        it = self._db.iter()
        it.seek(start)
        last: bytes | None = None
        while it.valid():
            key: bytes = it.key()
            if not key.startswith(start):
                break
            row = key[1 : key.index(_SEP, 1)]
            if row != last:
                last = row
                yield row.decode("utf-8", "surrogatepass")
                it.seek(b"r" + row + _SEP + b"\xff")
                continue
            it.next()

    def __contains__(self, row: str) -> bool:
        return next(self._scan(b"r" + _enc(row) + _SEP), None) is not None

    # -- lifecycle ---------------------------------------------------------------------------

    def flush(self) -> None:
        self._db.flush()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._db.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
