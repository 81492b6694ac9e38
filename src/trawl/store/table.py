"""A BigTable-style versioned table on embedded RocksDB (via rocksdict).

The model is BigTable's: a row key (the SURT URL, so a host's pages are adjacent and compress
together), column families with arbitrary qualifiers (``fetch:capture``, ``text:title``,
``anchor:<linking page>``), and every cell versioned by a timestamp (microseconds). Each family
has a :class:`FamilyPolicy`: how many versions to keep, how old a version may get, and how its
values are encoded. One row's mutations are written in one atomic RocksDB write batch; RocksDB's
write-ahead log is the commit log, replayed on open after a crash (a mutation is acknowledged
when :meth:`Table.mutate_row` returns: it has reached the log in the OS, so it survives the
process being killed; ``sync=True`` also survives the machine losing power).

Physical layout (one RocksDB key space, ordered bytewise)::

    r <row> \\0 <family> \\0 <qualifier> \\0 <~timestamp: 8 bytes big-endian>  ->  value
    i <index name> \\0 <index key>                                          ->  row key
    p <index name> \\0 <term> \\0 <row>                                      ->  ""  (postings)
    e <index name> \\0 <key>                                                ->  JSON entry
    m <name>                                                                ->  table metadata
    x <row>                                                                 ->  ""  (the row exists)

Writes are blind where the versioning model allows: the version is part of the key, so a put
never needs to read the old value. Only a row that already exists (its ``x`` marker, a point
lookup that RocksDB's bloom filters answer without I/O for a new row) is scanned, to drop the
versions its policy no longer keeps in the same batch. :meth:`RowStore.write` puts many rows, index
entries and postings in one write batch (one log append), which is how the collection writes.

Inverting the timestamp makes the newest version of a cell sort first, so "latest" and "as of T"
are one forward seek. Secondary indexes (URL hash, DOCNO) map to row keys; postings map a term
(a word of anchor text) to every row it belongs to.

Values: JSON (orjson) by default; ``bytes`` values are stored as they are behind a one-byte tag;
a family whose codec is ``zstd`` or ``zstd-dict`` compresses each value on its own (the latter
with a dictionary trained on the family's values, :meth:`Table.train_dictionary`). Independently,
RocksDB compresses its data blocks with zstd, so neighbouring rows (one host's pages, in SURT
order) are compressed together: "zstd blocks". ``bench/store.py`` measures the three on real
HTML and the collection picks per family from those figures.
"""

from __future__ import annotations

import struct
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Collection as Container
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson

from trawl.errors import MissingDependency, StoreError
from trawl.store.disk import disk_error

__all__ = [
    "CODECS",
    "DumpCell",
    "DumpEntry",
    "DumpIndex",
    "DumpItem",
    "DumpPostings",
    "FamilyPolicy",
    "Mutation",
    "RowStore",
    "Table",
    "decode_value",
    "encode_value",
]

_MAX_TS = (1 << 64) - 1
_SEP = b"\x00"
#: value tags; JSON never starts with these bytes, so untagged values (older tables) read as JSON
_TAG_BYTES = b"\x00"
_TAG_ZSTD = b"\x01"
_TAG_ZSTD_DICT = b"\x02"
#: per-family value codecs
CODECS = ("json", "zstd", "zstd-dict")
_BLOCK_SIZE = 32 << 10  # uncompressed bytes per RocksDB data block: pages of one host share blocks
#: set in a table whose every row has its ``x`` marker (made by this version): only then may a
#: write skip the scan of a row whose marker is absent
_MARKED = b"mrow-markers"


@dataclass(frozen=True, slots=True)
class FamilyPolicy:
    """How one column family keeps its cells.

    ``versions``: the newest N versions of each cell are kept. ``max_age_us``: versions older
    than this (relative to the newest write) are dropped too, but the newest version of a cell is
    always kept, so a page never loses its last capture. ``codec``: ``json`` (values are JSON or
    bytes, compressed only by RocksDB's zstd blocks), ``zstd`` (each value compressed on its own)
    or ``zstd-dict`` (each value compressed with the family's trained dictionary).
    """

    versions: int = 1
    max_age_us: int | None = None
    codec: str = "json"

    def __post_init__(self) -> None:
        if self.versions < 1:
            raise StoreError(f"a family must keep at least one version, not {self.versions}")
        if self.codec not in CODECS:
            raise StoreError(f"unknown codec {self.codec!r}; choose one of {', '.join(CODECS)}")


_DEFAULT_POLICY = FamilyPolicy()


def _ts_bytes(ts: int) -> bytes:
    if not 0 <= ts <= _MAX_TS:
        raise StoreError(f"timestamp {ts} is outside 0..2**64-1 microseconds")
    return struct.pack(">Q", _MAX_TS - ts)


def _ts_from(raw: bytes) -> int:
    return _MAX_TS - int(struct.unpack(">Q", raw)[0])


def _enc(part: str) -> bytes:
    if "\x00" in part:  # UTF-8 has a NUL byte only for U+0000
        raise StoreError(f"key part {part!r} contains a NUL byte")
    return part.encode("utf-8", "surrogatepass")


def _dec(part: bytes) -> str:
    return part.decode("utf-8", "surrogatepass")


def _zstd() -> Any:
    try:
        import zstandard  # noqa: PLC0415 - optional: only the zstd codecs need it
    except ImportError as exc:
        raise MissingDependency("zstandard", "zstd", "the zstd value codecs of the table") from exc
    return zstandard


def encode_value(value: Any) -> bytes:
    """A cell value as stored with the ``json`` codec: bytes behind a tag, anything else as JSON."""
    if isinstance(value, bytes | bytearray | memoryview):
        return _TAG_BYTES + bytes(value)
    try:
        return orjson.dumps(value)
    except TypeError as exc:  # a lone surrogate (undecodable bytes kept by surrogateescape)
        if "surrogates" not in str(exc):
            raise
        return orjson.dumps(_without_surrogates(value))


def _without_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_surrogates(v) for v in value]
    return value


def decode_value(raw: bytes) -> Any:
    """The inverse of :func:`encode_value` (zstd-tagged values need :meth:`Table` and its dictionaries)."""
    if raw[:1] == _TAG_BYTES:
        return raw[1:]
    return orjson.loads(raw)


@dataclass(frozen=True, slots=True)
class Mutation:
    """One row's mutations, applied atomically: ``put`` ``{family: {qualifier: value}}`` at ``ts``,
    ``delete`` ``(family, qualifier)`` cells (``qualifier`` None: the whole family), and
    ``postings`` ``{index: terms}`` that add the row to each term's posting list."""

    row: str
    ts: int
    put: Mapping[str, Mapping[str, Any]] | None = None
    delete: Sequence[tuple[str, str | None]] = ()
    postings: Mapping[str, Iterable[str]] | None = None


# -- the logical dump: what a table holds, free of its engine's encoding ---------------------------


@dataclass(frozen=True, slots=True)
class DumpCell:
    """One stored version of one cell (its value decoded: JSON-ish, or bytes)."""

    row: str
    family: str
    qualifier: str
    ts: int
    value: Any


@dataclass(frozen=True, slots=True)
class DumpIndex:
    """One secondary index entry: ``(index, key)`` names ``row``."""

    index: str
    key: str
    row: str


@dataclass(frozen=True, slots=True)
class DumpEntry:
    """One JSON entry stored under ``(index, key)``."""

    index: str
    key: str
    value: Any


@dataclass(frozen=True, slots=True)
class DumpPostings:
    """Rows on ``term``'s posting list in ``index`` (a long list comes as several of these)."""

    index: str
    term: str
    rows: tuple[str, ...]


#: what :meth:`RowStore.dump` yields and :meth:`RowStore.load` takes
DumpItem = DumpCell | DumpIndex | DumpEntry | DumpPostings
#: the most rows one :class:`DumpPostings` carries (a common anchor word is on millions of rows)
_POSTINGS_CHUNK = 4096


class RowStore(ABC):
    """What :class:`Table` and :class:`~trawl.store.tablets.TabletTable` share: the writing API,
    built on one primitive, :meth:`write`, and the reading API each implements.

    Callers (the collection, dedup, the crawler) use this API and do not care whether the rows
    live in one RocksDB directory or in tablets.
    """

    read_only: bool = False

    @abstractmethod
    def write(
        self,
        mutations: Sequence[Mutation],
        *,
        indexes: Iterable[tuple[str, str, str]] = (),
        entries: Iterable[tuple[str, str, Any]] = (),
    ) -> None:
        """Apply ``mutations`` (each row atomically) and put ``(index, key, row)`` index entries
        and ``(index, key, value)`` JSON entries, with as few log appends as possible."""

    def mutate_row(
        self,
        row: str,
        ts: int,
        *,
        put: Mapping[str, Mapping[str, Any]] | None = None,
        delete: Iterable[tuple[str, str | None]] = (),
        postings: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """Apply one row's mutations atomically: all of them reach the table, or none does.

        ``put``: ``{family: {qualifier: value}}`` written at ``ts``. ``delete``: ``(family,
        qualifier)`` removes every version of that cell, ``(family, None)`` the whole family.
        ``postings``: ``{index: terms}`` adds this row to each term's posting list. Versions
        beyond each family's policy are deleted in the same batch.
        """
        self.write([Mutation(row, ts, put, tuple(delete), postings)])

    def put_row(
        self,
        row: str,
        cells: Mapping[str, Mapping[str, Any]],
        ts: int,
        *,
        postings: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """Write ``{family: {qualifier: value}}`` for ``row`` at timestamp ``ts``, atomically."""
        self.write([Mutation(row, ts, cells, (), postings)])

    def put_rows(
        self, rows: Iterable[tuple[str, Mapping[str, Mapping[str, Any]]]], ts: int, *, batch_rows: int = 1000
    ) -> int:
        """Bulk load: write many rows, ``batch_rows`` at a time in one write each; returns how many.

        Each row is applied exactly as :meth:`put_row` would (the version policy included); rows of
        a batch are acknowledged together when it is written.
        """
        batch: list[Mutation] = []
        n = 0
        for row, cells in rows:
            batch.append(Mutation(row, ts, cells))
            n += 1
            if len(batch) >= batch_rows:
                self.write(batch)
                batch = []
        if batch:
            self.write(batch)
        return n

    def put_index(self, index: str, key: str, row: str) -> None:
        self.write([], indexes=[(index, key, row)])

    def put_entry(self, index: str, key: str, value: Any) -> None:
        """Store a JSON ``value`` under ``(index, key)``: small lookup records beside the rows."""
        self.write([], entries=[(index, key, value)])

    # the logical dump and load (merging a part made by a sharded task into a collection)
    @abstractmethod
    def dump(self) -> Iterator[DumpItem]:
        """Everything the table holds, in a form free of its engine: every stored version of
        every cell (values decoded, whatever the family's codec or dictionary), then the index
        entries, JSON entries and posting lists. Rows come first, so a load cut short never has an
        index entry naming a row it has not written yet.

        Deletes are physical (no tombstones), so a deleted cell is simply absent. What is the
        engine's own is left out: row markers, the markers flag and trained dictionaries (the
        destination encodes with its own). Meant for a table no one is writing.
        """

    def load(self, items: Iterable[DumpItem], *, batch: int = 1000) -> dict[str, int]:
        """Write a :meth:`dump` through the normal write path, ``batch`` items per round of writes;
        returns how many ``cells`` (versions), ``indexes``, ``entries`` and ``postings`` (rows on
        a posting list) it wrote.

        Idempotent, so a merge cut short is re-run from the start: a version is put at its own
        timestamp (the same ``(row, family, qualifier, ts)`` is the same key, overwritten with the
        same value), index and JSON entries are overwritten, postings are added to what is there
        (a union). Loading into a table that has rows of its own unions the two; on the same
        index or entry key the dump wins. The destination's family policies apply as to any write:
        a family keeping fewer versions than the source keeps the newest, whatever order the
        versions come in, and the destination's codec and dictionary encode the values.
        """
        if batch < 1:
            raise StoreError(f"a load batch must hold at least one item, not {batch}")
        counts = {"cells": 0, "indexes": 0, "entries": 0, "postings": 0}
        versions: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
        indexes: list[tuple[str, str, str]] = []
        entries: list[tuple[str, str, Any]] = []
        postings: dict[str, dict[str, list[str]]] = {}
        pending = 0
        for item in items:
            if isinstance(item, DumpCell):
                versions.setdefault((item.row, item.ts), {}).setdefault(item.family, {})[item.qualifier] = (
                    item.value
                )
                counts["cells"] += 1
                pending += 1
            elif isinstance(item, DumpIndex):
                indexes.append((item.index, item.key, item.row))
                counts["indexes"] += 1
                pending += 1
            elif isinstance(item, DumpEntry):
                entries.append((item.index, item.key, item.value))
                counts["entries"] += 1
                pending += 1
            elif isinstance(item, DumpPostings):
                for row in item.rows:
                    postings.setdefault(row, {}).setdefault(item.index, []).append(item.term)
                counts["postings"] += len(item.rows)
                pending += len(item.rows)
            else:
                raise StoreError(f"cannot load {item!r}: not a dump item (DumpCell, DumpIndex, ...)")
            if pending >= batch:
                self._load_batch(versions, indexes, entries, postings)
                versions, indexes, entries, postings = {}, [], [], {}
                pending = 0
        if pending:
            self._load_batch(versions, indexes, entries, postings)
        return counts

    def _load_batch(
        self,
        versions: Mapping[tuple[str, int], Mapping[str, Mapping[str, Any]]],
        indexes: list[tuple[str, str, str]],
        entries: list[tuple[str, str, Any]],
        postings: Mapping[str, Mapping[str, list[str]]],
    ) -> None:
        # one mutation per (row, version); round k holds each row's k-th version, so no write
        # holds a row twice (that would cut the write batch) and each row's first is a blind put
        rounds: list[list[Mutation]] = []
        depth: dict[str, int] = {}
        for (row, ts), cells in versions.items():
            k = depth.get(row, 0)
            depth[row] = k + 1
            if k == len(rounds):
                rounds.append([])
            rounds[k].append(Mutation(row, ts, cells))
        for mutations in rounds:
            self.write(mutations)
        if postings or indexes or entries:  # after the rows they name
            self.write(
                [Mutation(row, 0, postings=terms) for row, terms in postings.items()],
                indexes=indexes,
                entries=entries,
            )

    # the reading API, implemented by both
    @abstractmethod
    def lookup(self, index: str, key: str) -> str | None:
        """The row stored under ``(index, key)``, or ``None``."""

    @abstractmethod
    def get_entry(self, index: str, key: str) -> Any:
        """The JSON value stored under ``(index, key)``, or ``None``."""

    @abstractmethod
    def postings(self, index: str, term: str) -> list[str]:
        """The rows on ``term``'s posting list in ``index``."""

    @abstractmethod
    def get_row(
        self, row: str, *, as_of: int | None = None, families: Container[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        """``{family: {qualifier: value}}`` of ``row``, newest versions (or as of ``as_of``)."""

    @abstractmethod
    def get_cell(self, row: str, family: str, qualifier: str, *, as_of: int | None = None) -> Any:
        """One cell's newest value (or as of ``as_of``), ``None`` when absent."""

    @abstractmethod
    def versions_of(self, row: str, family: str, qualifier: str) -> list[tuple[int, Any]]:
        """Every stored ``(timestamp, value)`` of one cell, newest first."""

    @abstractmethod
    def rows(self, prefix: str = "") -> Iterator[str]:
        """Row keys starting with ``prefix``, in order."""

    @abstractmethod
    def scan(
        self,
        start: str = "",
        end: str | None = None,
        *,
        prefix: str = "",
        as_of: int | None = None,
        families: Container[str] | None = None,
    ) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
        """``(row, cells)`` for rows in ``[start, end)`` under ``prefix``, each once, in row order."""

    @abstractmethod
    def flush(self) -> None:
        """Make every acknowledged write durable on disk."""

    @abstractmethod
    def compact(self) -> None:
        """Compact the engine (drops deleted and expired versions for good)."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the engine."""

    @abstractmethod
    def __contains__(self, row: str) -> bool:
        """Whether ``row`` has any cell."""


class Table(RowStore):
    """A versioned, column-family table in one RocksDB directory.

    ``versions`` maps a family to how many versions of each cell to keep; ``policies`` gives
    families a full :class:`FamilyPolicy` (it wins over ``versions``); families in neither keep 1
    JSON version. ``read_only`` opens the directory without taking the writer's lock, so
    another process can serve reads of a table (a tablet) that a writer holds. ``block_bytes``
    and ``zstd_level`` set RocksDB's block compression (``bench/store.py``
    measures them); ``sync`` makes each write durable against power loss, not only a crash.
    """

    def __init__(
        self,
        path: Path,
        *,
        versions: Mapping[str, int] | None = None,
        policies: Mapping[str, FamilyPolicy] | None = None,
        create: bool = True,
        read_only: bool = False,
        sync: bool = False,
        block_bytes: int = _BLOCK_SIZE,
        zstd_level: int = 3,
    ) -> None:
        from rocksdict import (  # noqa: PLC0415 - heavy native module, loaded on use
            AccessType,
            BlockBasedOptions,
            DBCompressionType,
            Options,
            Rdict,
            WriteOptions,
        )

        self.path = Path(path)
        self.versions = dict(versions or {})
        self.policies: dict[str, FamilyPolicy] = {
            f: FamilyPolicy(versions=n) for f, n in self.versions.items()
        }
        self.policies.update(policies or {})
        self.read_only = read_only
        options = Options(raw_mode=True)
        options.create_if_missing(create and not read_only)
        # zstd on data blocks: a host's pages sit next to each other in SURT order and share blocks
        options.set_compression_type(DBCompressionType.zstd())
        options.set_compression_options(-14, zstd_level, 0, 0)
        block = BlockBasedOptions()
        block.set_block_size(block_bytes)
        block.set_bloom_filter(10, False)  # a new row's marker lookup costs no I/O
        options.set_block_based_table_factory(block)
        try:
            if read_only:
                self._db = Rdict(str(self.path), options, access_type=AccessType.read_only())
            else:
                self._db = Rdict(str(self.path), options)
        except Exception as exc:  # rocksdict raises plain Exception subclasses
            if (disk := disk_error(exc, self.path)) is not None:  # RocksDB writes as it opens
                raise disk from exc
            if "lock" in str(exc).lower():
                raise StoreError(
                    f"the table at {str(self.path)!r} is being written by another process (its LOCK "
                    "is held): a collection has one writer at a time; crawl shards into collections "
                    "of their own, or wait for the other run to end"
                ) from exc
            raise StoreError(f"cannot open the table at {str(self.path)!r}: {exc}") from exc
        self._write_options = WriteOptions()
        self._write_options.sync = sync
        self._closed = False
        self._lock = threading.RLock()
        self._compressors: dict[str, Any] = {}
        self._decompressors: dict[int, Any] = {}
        # rows may skip the policy scan only in a table marked from its first write on
        self._markers = self._db.get(_MARKED) is not None
        if not self._markers and not read_only and next(self._scan(b"r"), None) is None:
            self._db.put(_MARKED, b"1", self._write_options)
            self._markers = True

    @property
    def marked(self) -> bool:
        """Whether every row has its existence marker (tables made since blind writes)."""
        return self._markers

    def unmark(self) -> None:
        """Forget the markers' guarantee (rows copied in from an unmarked table lack them)."""
        self._db.delete(_MARKED, self._write_options)
        self._markers = False

    def policy(self, family: str) -> FamilyPolicy:
        return self.policies.get(family) or _DEFAULT_POLICY

    # -- values --------------------------------------------------------------------------------

    def _dictionary(self, family: str) -> Any:
        raw = self._db.get(b"mdict\x00" + _enc(family))
        if raw is None:
            return None
        return _zstd().ZstdCompressionDict(bytes(raw))

    def _encode(self, family: str, value: Any) -> bytes:
        codec = self.policy(family).codec
        plain = encode_value(value)
        if codec == "json":
            return plain
        compressor = self._compressors.get(family)
        if compressor is None:
            zstd = _zstd()
            dictionary = self._dictionary(family) if codec == "zstd-dict" else None
            if dictionary is not None:
                dictionary.precompute_compress(level=6)  # else every value re-digests the dictionary
            compressor = zstd.ZstdCompressor(level=6, dict_data=dictionary, write_content_size=True)
            self._compressors[family] = compressor
        tag = _TAG_ZSTD_DICT if codec == "zstd-dict" else _TAG_ZSTD
        packed: bytes = compressor.compress(plain)
        return tag + packed

    def _decode(self, family: str, raw: bytes) -> Any:
        tag = raw[:1]
        if tag in (_TAG_ZSTD, _TAG_ZSTD_DICT):
            zstd = _zstd()
            key = 0 if tag == _TAG_ZSTD else zstd.get_frame_parameters(raw[1:]).dict_id
            decompressor = self._decompressors.get(key)
            if decompressor is None:
                dictionary = self._dictionary(family) if key else None
                if key and (dictionary is None or dictionary.dict_id() != key):
                    raise StoreError(f"family {family!r}: the dictionary {key} of a stored value is missing")
                decompressor = zstd.ZstdDecompressor(dict_data=dictionary)
                self._decompressors[key] = decompressor
            raw = decompressor.decompress(raw[1:])
        return decode_value(raw)

    def train_dictionary(self, family: str, samples: Sequence[bytes], size: int = 112 << 10) -> int:
        """Train and store a zstd dictionary for ``family`` (codec ``zstd-dict``); returns its id.

        Values written before keep decoding: each zstd frame names its dictionary id, and a
        retrained dictionary replaces the stored one only for new writes (old frames then fail
        with a clear error, so train once, early, on a representative sample).
        """
        zstd = _zstd()
        try:
            dictionary = zstd.train_dictionary(size, list(samples))
        except zstd.ZstdError as exc:
            raise StoreError(
                f"cannot train a dictionary for {family!r} on {len(samples)} samples: {exc}"
            ) from exc
        self._db.put(b"mdict\x00" + _enc(family), dictionary.as_bytes(), self._write_options)
        self._compressors.pop(family, None)
        return int(dictionary.dict_id())

    # -- scanning helpers ----------------------------------------------------------------------

    def _scan(self, prefix: bytes, start: bytes | None = None) -> Iterator[tuple[bytes, Any]]:
        """(key, iterator) for every key starting with ``prefix``; read values with ``it.value()``."""
        it = self._db.iter()
        it.seek(start if start is not None else prefix)
        while it.valid():
            key: bytes = it.key()
            if not key.startswith(prefix):
                return
            yield key, it
            it.next()

    # -- writing -------------------------------------------------------------------------------

    def write(
        self,
        mutations: Sequence[Mutation],
        *,
        indexes: Iterable[tuple[str, str, str]] = (),
        entries: Iterable[tuple[str, str, Any]] = (),
    ) -> None:
        """All of ``mutations``, ``indexes`` and ``entries`` in one atomic write batch.

        A row that comes twice starts a new batch (its policy scan must see its earlier version),
        so only then is the whole not one batch; each row always is.
        """
        from rocksdict import WriteBatch  # noqa: PLC0415

        if self.read_only:
            raise StoreError(f"the table at {str(self.path)!r} is open read-only")
        with self._lock:
            batch = WriteBatch(raw_mode=True)
            seen: set[str] = set()
            known: list[Any] = [True] * len(mutations)
            if self._markers and len(mutations) > 1 and any(m.put for m in mutations):
                # one multi-get for every row's marker
                known = list(cast(Iterable[Any], self._db.get([b"x" + _enc(m.row) for m in mutations])))
            for m, marker in zip(mutations, known, strict=True):
                new = marker is None
                if m.row in seen:
                    self._db.write(batch, self._write_options)
                    batch = WriteBatch(raw_mode=True)
                    seen.clear()
                    new = False  # written just now: look again
                seen.add(m.row)
                self._add_mutation(
                    batch, m.row, m.ts, put=m.put, delete=m.delete, postings=m.postings, new=new
                )
            for index, key, row in indexes:
                batch.put(b"i" + _enc(index) + _SEP + key.encode("utf-8", "surrogatepass"), _enc(row))
            for index, key, value in entries:
                batch.put(b"e" + _enc(index) + _SEP + _enc(key), orjson.dumps(value))
            if batch.len():
                self._db.write(batch, self._write_options)

    def put_rows(
        self, rows: Iterable[tuple[str, Mapping[str, Mapping[str, Any]]]], ts: int, *, batch_rows: int = 1000
    ) -> int:
        """Bulk load, as :meth:`RowStore.put_rows`, with the new rows' keys built in one tight loop
        (no per-row mutation objects): the path that makes a bulk load keep up with SQLite."""
        chunk: list[tuple[str, Mapping[str, Mapping[str, Any]]]] = []
        n = 0
        for item in rows:
            chunk.append(item)
            if len(chunk) >= batch_rows:
                n += self._put_chunk(chunk, ts)
                chunk = []
        if chunk:
            n += self._put_chunk(chunk, ts)
        return n

    def _put_chunk(self, chunk: list[tuple[str, Mapping[str, Mapping[str, Any]]]], ts: int) -> int:
        from rocksdict import WriteBatch  # noqa: PLC0415

        if self.read_only:
            raise StoreError(f"the table at {str(self.path)!r} is open read-only")
        keys = [_enc(row) for row, _ in chunk]
        if not self._markers or len(set(keys)) != len(keys):  # a row twice: the general path
            self.write([Mutation(row, ts, cells) for row, cells in chunk])
            return len(chunk)
        tsb = _ts_bytes(ts)
        families: dict[str, tuple[bytes, bool]] = {}
        with self._lock:
            known = cast(Iterable[Any], self._db.get([b"x" + k for k in keys]))
            batch = WriteBatch(raw_mode=True)
            put = batch.put
            for (row, cells), key, marker in zip(chunk, keys, known, strict=True):
                if marker is not None:  # an existing row: its policy may drop old versions
                    self._add_mutation(batch, row, ts, put=cells, delete=(), postings=None)
                    continue
                rkey = b"r" + key + _SEP
                for family, columns in cells.items():
                    fam = families.get(family)
                    if fam is None:
                        fam = families[family] = (_enc(family) + _SEP, self.policy(family).codec == "json")
                    fkey = rkey + fam[0]
                    for qualifier, value in columns.items():
                        packed = encode_value(value) if fam[1] else self._encode(family, value)
                        put(fkey + _enc(qualifier) + _SEP + tsb, packed)
                put(b"x" + key, b"")
            self._db.write(batch, self._write_options)
        return len(chunk)

    def _add_mutation(
        self,
        batch: Any,
        row: str,
        ts: int,
        *,
        put: Mapping[str, Mapping[str, Any]] | None,
        delete: Iterable[tuple[str, str | None]],
        postings: Mapping[str, Iterable[str]] | None,
        new: bool = False,
    ) -> None:
        """Add one row's mutations, and the deletes its version policy calls for, to ``batch``.

        ``new``: the caller already found the row's marker absent.
        """
        if not put and not delete:  # postings only (a tablet table's meta half): nothing to read
            erow = _enc(row)
            for index, terms in (postings or {}).items():
                ikey = b"p" + _enc(index) + _SEP
                for term in terms:
                    batch.put(ikey + _enc(term) + _SEP + erow, b"")
            return
        rkey = b"r" + _enc(row) + _SEP
        tsb = _ts_bytes(ts)
        if put and not delete and self._markers:
            marker = b"x" + rkey[1:-1]
            if new or self._db.get(marker) is None:  # a new row: blind puts, nothing to read or drop
                for fam, columns in put.items():
                    fkey = rkey + _enc(fam) + _SEP
                    plain = self.policy(fam).codec == "json"
                    for qual, value in columns.items():
                        packed = encode_value(value) if plain else self._encode(fam, value)
                        batch.put(fkey + _enc(qual) + _SEP + tsb, packed)
                batch.put(marker, b"")
                for index, terms in (postings or {}).items():
                    ikey = b"p" + _enc(index) + _SEP
                    for term in terms:
                        batch.put(ikey + _enc(term) + _SEP + _enc(row), b"")
                return
        keep: dict[bytes, FamilyPolicy] = {}
        gone_cells: set[bytes] = set()
        gone_families: set[bytes] = set()
        for family, qualifier in delete:
            fkey = rkey + _enc(family) + _SEP
            if qualifier is None:
                gone_families.add(fkey)
            else:
                gone_cells.add(fkey + _enc(qualifier) + _SEP)
        for family, columns in (put or {}).items():
            fkey = rkey + _enc(family) + _SEP
            policy = self.policy(family)
            for qualifier, value in columns.items():
                cell = fkey + _enc(qualifier) + _SEP
                batch.put(cell + tsb, self._encode(family, value))
                keep[cell] = policy
        for index, terms in (postings or {}).items():
            ikey = b"p" + _enc(index) + _SEP
            for term in terms:
                batch.put(ikey + _enc(term) + _SEP + _enc(row), b"")
        existing: dict[bytes, list[bytes]] = {}
        marker = b"x" + rkey[1:-1]
        known = not self._markers or self._db.get(marker) is not None
        if not known and (keep or gone_cells or gone_families):
            batch.put(marker, b"")  # a new row: nothing to drop, no scan (the blind write)
        elif keep or gone_cells or gone_families:
            # only the cells and families touched are read (one seek each), never the whole row:
            # a page with thousands of incoming anchors must not be scanned for every new one
            for prefix in sorted(gone_families | {c for c in gone_cells | keep.keys() if not any(
                c.startswith(f) for f in gone_families
            )}):  # fmt: skip
                for key, _ in self._scan(prefix):
                    cell = key[:-8]
                    if cell in gone_cells or any(cell.startswith(f) for f in gone_families):
                        if cell not in keep or key[-8:] != tsb:
                            batch.delete(key)
                        continue
                    if cell in keep and key[-8:] != tsb:
                        existing.setdefault(cell, []).append(key[-8:])
        for cell, stamps in existing.items():
            policy = keep[cell]
            # inverted timestamps: ascending bytes = newest first; keep the newest `versions`
            ordered = sorted([*stamps, tsb])
            drop = set(ordered[policy.versions :])  # may be the version just put, if it is the oldest
            if policy.max_age_us is not None:
                newest = _ts_from(ordered[0])
                drop.update(s for s in ordered[1:] if _ts_from(s) < newest - policy.max_age_us)
            for old in drop:
                batch.delete(cell + old)

    def delete_row(self, row: str) -> None:
        """Remove every cell of ``row`` (index entries pointing at it are left to their owners)."""
        from rocksdict import WriteBatch  # noqa: PLC0415

        batch = WriteBatch(raw_mode=True)
        with self._lock:
            for key, _ in self._scan(b"r" + _enc(row) + _SEP):
                batch.delete(key)
            batch.delete(b"x" + _enc(row))
            self._db.write(batch, self._write_options)

    def lookup(self, index: str, key: str) -> str | None:
        raw = self._db.get(b"i" + _enc(index) + _SEP + key.encode("utf-8", "surrogatepass"))
        return None if raw is None else _dec(bytes(raw))

    def get_entry(self, index: str, key: str) -> Any:
        raw = self._db.get(b"e" + _enc(index) + _SEP + _enc(key))
        return None if raw is None else orjson.loads(bytes(raw))

    def postings(self, index: str, term: str) -> list[str]:
        """Every row added under ``term`` of ``index``, in row order."""
        prefix = b"p" + _enc(index) + _SEP + _enc(term) + _SEP
        return [_dec(key[len(prefix) :]) for key, _ in self._scan(prefix)]

    # -- reading -------------------------------------------------------------------------------

    def _cells(
        self,
        items: Iterable[tuple[bytes, Any]],
        skip: int,
        as_of: int | None,
        families: Container[str] | None,
    ) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for key, it in items:
            rest = key[skip:]
            family_b, _, qualifier_b = rest[:-9].partition(_SEP)  # drop "\0" + 8 timestamp bytes
            family = _dec(family_b)
            if families is not None and family not in families:
                continue
            qualifier = _dec(qualifier_b)
            columns = out.setdefault(family, {})
            if qualifier not in columns and (as_of is None or _ts_from(rest[-8:]) <= as_of):
                columns[qualifier] = self._decode(family, bytes(it.value()))
        return {f: c for f, c in out.items() if c}

    def get_row(
        self, row: str, *, as_of: int | None = None, families: Container[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        """The newest version (at or before ``as_of``) of every cell of ``row``; {} if absent."""
        rkey = b"r" + _enc(row) + _SEP
        if families is not None and len(families) == 1:
            (family,) = families  # one family: seek straight to it
            fkey = rkey + _enc(str(family)) + _SEP
            return self._cells(self._scan(fkey), len(rkey), as_of, families)
        return self._cells(self._scan(rkey), len(rkey), as_of, families)

    def get_cell(self, row: str, family: str, qualifier: str, *, as_of: int | None = None) -> Any:
        """The newest value of one cell at or before ``as_of``, or None."""
        cell = b"r" + _enc(row) + _SEP + _enc(family) + _SEP + _enc(qualifier) + _SEP
        start = cell + _ts_bytes(as_of) if as_of is not None else None
        for _, it in self._scan(cell, start):
            return self._decode(family, bytes(it.value()))
        return None

    def versions_of(self, row: str, family: str, qualifier: str) -> list[tuple[int, Any]]:
        """Every stored version of one cell, newest first, as (timestamp, value)."""
        cell = b"r" + _enc(row) + _SEP + _enc(family) + _SEP + _enc(qualifier) + _SEP
        policy = self.policy(family)
        out: list[tuple[int, Any]] = []
        # qualifiers hold no NUL, so every key under `cell` is cell + 8 timestamp bytes
        for key, it in self._scan(cell):
            ts = _ts_from(key[-8:])
            if len(out) >= policy.versions or (
                out and policy.max_age_us is not None and ts < out[0][0] - policy.max_age_us
            ):
                break  # past the policy: not yet collected (a write to the cell or a sweep drops it)
            out.append((ts, self._decode(family, bytes(it.value()))))
        return out

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
                yield _dec(row)
                it.seek(b"r" + row + _SEP + b"\xff")
                continue
            it.next()

    def scan(
        self,
        start: str = "",
        end: str | None = None,
        *,
        prefix: str = "",
        as_of: int | None = None,
        families: Container[str] | None = None,
    ) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
        """``(row, cells)`` for rows in ``[start, end)`` that start with ``prefix``, in row order.

        One pass over the keys (no seek per row); ``as_of`` and ``families`` as in :meth:`get_row`.
        Rows with no cell visible at ``as_of`` are skipped.
        """
        lo = b"r" + max(start, prefix).encode("utf-8", "surrogatepass")
        pre = b"r" + prefix.encode("utf-8", "surrogatepass")
        hi = None if end is None else b"r" + end.encode("utf-8", "surrogatepass") + _SEP
        row_keys: list[tuple[bytes, Any]] = []
        current: bytes | None = None

        class _Val:  # holds one value read ahead, so rows can be grouped in one pass
            __slots__ = ("v",)

            def __init__(self, v: bytes) -> None:
                self.v = v

            def value(self) -> bytes:
                return self.v

        for key, it in self._scan(pre, lo):
            if hi is not None and key >= hi:
                break
            row = key[: key.index(_SEP, 1) + 1]
            if row != current:
                if current is not None:
                    cells = self._cells(row_keys, len(current), as_of, families)
                    if cells:
                        yield _dec(current[1:-1]), cells
                current, row_keys = row, []
            row_keys.append((key, _Val(bytes(it.value()))))
        if current is not None:
            cells = self._cells(row_keys, len(current), as_of, families)
            if cells:
                yield _dec(current[1:-1]), cells

    def __contains__(self, row: str) -> bool:
        return next(self._scan(b"r" + _enc(row) + _SEP), None) is not None

    # -- the logical dump ------------------------------------------------------------------------

    def dump(self) -> Iterator[DumpItem]:
        yield from self.dump_cells()
        yield from self.dump_meta()

    def dump_cells(self, start: str = "", end: str | None = None) -> Iterator[DumpCell]:
        """Every stored version of every cell of the rows in ``[start, end)``, in key order (a
        cell's newest version first), values decoded: versions past the policy that no write or
        sweep has dropped yet included (the loading table's policy decides about them)."""
        lo = b"r" + start.encode("utf-8", "surrogatepass")
        hi = None if end is None else b"r" + end.encode("utf-8", "surrogatepass") + _SEP
        last_row, row = b"", ""
        last_family, family = b"", ""
        for key, it in self._scan(b"r", lo):
            if hi is not None and key >= hi:
                return
            parts = key[1:-9].split(_SEP)  # drop "\0" + 8 timestamp bytes (which may hold NULs)
            if len(parts) != 3:
                raise StoreError(f"the table at {str(self.path)!r} holds a malformed cell key {key!r}")
            if parts[0] != last_row:
                last_row, row = parts[0], _dec(parts[0])
            if parts[1] != last_family:
                last_family, family = parts[1], _dec(parts[1])
            value = self._decode(family, bytes(it.value()))
            yield DumpCell(row, family, _dec(parts[2]), _ts_from(key[-8:]), value)

    def dump_meta(self) -> Iterator[DumpIndex | DumpEntry | DumpPostings]:
        """The index entries, JSON entries and posting lists (what a tablet table's ``meta`` holds)."""
        for key, it in self._scan(b"i"):
            index, _, name = key[1:].partition(_SEP)  # an index key may hold a NUL; its name cannot
            yield DumpIndex(_dec(index), _dec(name), _dec(bytes(it.value())))
        for key, it in self._scan(b"e"):
            index, _, name = key[1:].partition(_SEP)
            yield DumpEntry(_dec(index), _dec(name), orjson.loads(bytes(it.value())))
        current: bytes | None = None
        rows: list[str] = []
        for key, _ in self._scan(b"p"):
            head, _, row = key.rpartition(_SEP)  # p <index> \0 <term> \0 <row>: no part holds a NUL
            if head != current or len(rows) >= _POSTINGS_CHUNK:
                if current is not None:
                    index, _, term = current[1:].partition(_SEP)
                    yield DumpPostings(_dec(index), _dec(term), tuple(rows))
                current, rows = head, []
            rows.append(_dec(row))
        if current is not None:
            index, _, term = current[1:].partition(_SEP)
            yield DumpPostings(_dec(index), _dec(term), tuple(rows))

    # -- maintenance -----------------------------------------------------------------------------

    def collect_garbage(self, now_us: int | None = None) -> int:
        """Apply every family's policy (versions and age) to the whole table; returns how many
        versions went.

        Writes apply the policy to the cells they touch; this sweeps cells nobody rewrote. The
        newest version of a cell is always kept.
        """
        from rocksdict import WriteBatch  # noqa: PLC0415

        now = now_us if now_us is not None else time.time_ns() // 1000
        batch = WriteBatch(raw_mode=True)
        dropped = 0
        last_cell = b""
        seen = 0
        for key, _ in self._scan(b"r"):
            cell = key[:-8]
            if cell == last_cell:
                seen += 1
                family = _dec(cell[cell.index(_SEP) + 1 :].split(_SEP, 1)[0])
                policy = self.policy(family)
                if seen > policy.versions or (
                    policy.max_age_us is not None and _ts_from(key[-8:]) < now - policy.max_age_us
                ):
                    batch.delete(key)
                    dropped += 1
                    if batch.len() >= 10_000:
                        self._db.write(batch, self._write_options)
                        batch = WriteBatch(raw_mode=True)
            else:
                seen = 1
            last_cell = cell
        if batch.len():
            self._db.write(batch, self._write_options)
        return dropped

    def approximate_bytes(self) -> int:
        """On-disk data plus memtables, as RocksDB estimates them (what a tablet splits on)."""
        live = self._db.property_int_value("rocksdb.estimate-live-data-size") or 0
        mem = self._db.property_int_value("rocksdb.cur-size-all-mem-tables") or 0
        return int(live) + int(mem)

    def compact(self) -> None:
        """Flush the memtable and compact everything (tests and benchmarks measure on-disk size)."""
        self._db.flush()
        self._db.compact_range(None, None)

    # -- lifecycle -----------------------------------------------------------------------------

    def flush(self) -> None:
        if not self.read_only:
            self._db.flush()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._db.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
