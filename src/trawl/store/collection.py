"""The collection: a directory any trawl tool can open.

::

    collection/
      trawl.toml   the configuration it was built with
      warc/        raw captures, WARC/1.1, one gzip member (or zstd frame) per record, rotated by size
      table/       the versioned table: tablets (master.json, meta/, t000000/...: RocksDB each) that
                   split as the collection grows; row = SURT URL; families fetch, text, meta,
                   links, anchor (one column per linking page), dup (written by dedup). A
                   collection made before tablets has one RocksDB directory here, still opened.
      index/       fingerprint indexes (dedup)
      frontier/    crawl state
      stats/       counters per run (<run>.json, mergeable) and drops (<run>.drops.jsonl)
      exports/     Parquet URL index, TREC Web, JSONL
      partitions/  (a distributed crawl) <name>/: a whole collection per crawl shard, read with this one

Random access: URL → SURT row → ``fetch:pointer`` (file, offset, length) → one seek, one read,
one gzip member decompressed. The table also holds the title, text, links and metadata, so
``trawl get --text`` needs no parsing. A record is found by URL, URL hash, DOCNO or
``FILE@OFFSET`` (its place in a WARC file).

Anchor text: when a page is stored, the text of each of its links goes to the *target's* row as
``anchor:<linking page URL>`` (with the words in an ``anchor`` posting list), so a page can be
found by the words others use for it (:meth:`Collection.find_by_anchor`), even before it is
crawled itself. Rows that only hold anchor text are not records: :meth:`Collection.records`
skips them.

Compression (``warc.codec``): ``gzip`` writes one gzip member per record, what every WARC tool
reads. ``zstd`` writes one zstd frame per record and compresses each page of a site against that
site's *references*: its first three stored pages, concatenated into a raw-content dictionary
(the second page against the first, the third against both). Pages of one site share their
templates, so this gets the per-host block's gain (about 2x per-record gzip on host-clustered pages)
while a read still decompresses one record (plus the site's references, cached). The site's
reference pointers are the ``ref`` entry of the table; each capture names the references it was
written with (``pointer.dict``; reference k was compressed against the k before it), so a record
never depends on a later change.

Partitions: the shards of a distributed crawl each write a collection of their own under
``partitions/<name>/`` (WARC file names made unique by their ``warc.prefix``). When there are any,
:attr:`Collection.table` is a :class:`~trawl.store.union.UnionTable` of this collection's own table
and every partition's (opened read-only: their shards may be writing them), and every reader
(:meth:`Collection.find`, :meth:`Collection.records`, :meth:`Collection.read`, ``info``...) sees the
union. Writes (:class:`CollectionWriter`, dedup's cells) go to the collection's own table and
``warc/``, as without partitions.

Exact duplicates: a payload already stored (same SHA-1, as in ``WARC-Payload-Digest``) is written
again only as a WARC ``revisit`` record (profile identical-payload-digest) whose ``WARC-Refers-To``
names the original record; :meth:`Collection.read` follows it back to the original's bytes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from trawl.config import Config, load_config
from trawl.document import UNCHANGED, Document, WarcPointer
from trawl.errors import CollectionNotFound, DiskError, RecordNotFound, StoreError, WarcFormatError
from trawl.pipeline.base import AuditEntry, RunContext, Step
from trawl.pipeline.stats import Stats
from trawl.store.disk import disk_error
from trawl.store.table import Mutation, RowStore, Table
from trawl.store.tablets import MASTER, TabletTable
from trawl.store.tails import TailRepair, codec_of, repair_tail
from trawl.store.union import UnionTable
from trawl.store.warcfile import (
    IDENTICAL_PAYLOAD,
    SERVER_NOT_MODIFIED,
    WarcFileWriter,
    payload_digest,
    read_frame,
    read_record_at,
)
from trawl.urls import UNIT_FRAGMENT, surt, unit_parent, url_hash

__all__ = ["Collection", "CollectionWriter", "StoredRecord", "anchor_terms", "site_of"]

CONFIG_FILE = "trawl.toml"
SUBDIRS = ("warc", "table", "index", "frontier", "stats", "exports")
#: where a distributed crawl's shards write their partitions (a collection each)
PARTITIONS = "partitions"
# How many versions of each family's cells the table keeps (per-family policy): a capture's own
# cells (fetch, text, meta, links, lang) as many as its fetch, so every kept capture keeps its
# title, text, decoding and language; anchor cells are per linking page, the newest is enough.
FAMILY_VERSIONS = {"fetch": 10, "text": 10, "meta": 10, "links": 10, "anchor": 1, "lang": 10}
#: bounds on what one page contributes as anchor text (a link farm must not flood the table)
MAX_ANCHOR_LINKS = 1000
MAX_ANCHOR_CHARS = 500
MAX_ANCHOR_TERMS = 32
_WORD = re.compile(r"\w+")
_POINTER_KEY = re.compile(r"^(?P<file>[^/@]+\.warc(?:\.gz|\.zst)?)[@:](?P<offset>\d+)$")
#: the table's entries that hold each WARC file's size when its tail was last found whole
TAIL_ENTRY = "warc-tail"
#: a tablet splits when RocksDB estimates it past this size
SPLIT_BYTES = 256 << 20
#: a page smaller than this does not become one of its site's references (too little to share)
MIN_REFERENCE_BYTES = 2048
#: how many of a site's first pages become its references (measured: 1 -> 12.4:1, 2 -> 13.5:1,
#: 3 -> 14.0:1, 4 -> 14.1:1 on WCXB's host-clustered pages), and the most dictionary bytes they give
REFERENCE_PAGES = 3
MAX_DICTIONARY_BYTES = 2 << 20
#: references kept decompressed in memory, most recently used (one per site being read or written)
REFERENCES_KEPT = 64


def site_of(row: str) -> str:
    """The group whose pages share a reference: a SURT row's host (``com,example)``), or for other
    rows (``file:`` paths) the directory (a unit's: its file's)."""
    row = row.partition(UNIT_FRAGMENT)[0]
    head, paren, _ = row.partition(")")
    if paren:
        return head + ")"
    return row.rsplit("/", 1)[0] + "/"


def anchor_terms(text: str) -> list[str]:
    """The words of an anchor text, as the anchor posting lists file them (lower case, unique)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        seen.setdefault(word, None)
    return list(seen)[:MAX_ANCHOR_TERMS]


def _timestamp_us(when: datetime | None) -> int:
    if when is None:
        return time.time_ns() // 1000
    return int(when.timestamp() * 1_000_000)


@dataclass(slots=True)
class StoredRecord:
    """One row of the collection as stored: its key and the newest cells of each family."""

    row: str
    cells: dict[str, dict[str, Any]]

    @property
    def capture(self) -> dict[str, Any]:
        """The newest ``fetch:capture`` cell: URL, time, status, types, WARC pointer."""
        value: dict[str, Any] = self.cells.get("fetch", {}).get("capture", {})
        return value

    @property
    def url(self) -> str:
        return str(self.capture.get("url", ""))

    @property
    def pointer(self) -> WarcPointer:
        p = self.capture.get("pointer")
        if not p:
            raise RecordNotFound(f"{self.row!r} has no WARC pointer")
        return WarcPointer(str(p["file"]), int(p["offset"]), int(p["length"]))

    @property
    def references(self) -> list[dict[str, Any]]:
        """The pointers of the records this one's zstd frame was compressed against (often none)."""
        p = self.capture.get("pointer") or {}
        return [dict(r) for r in p.get("dict") or []]

    @property
    def title(self) -> str:
        return str(self.cells.get("text", {}).get("title", ""))

    @property
    def anchors(self) -> dict[str, str]:
        """Anchor text others use for this page: {linking page URL: text}."""
        return dict(self.cells.get("anchor", {}))

    @property
    def revisit_of(self) -> dict[str, Any] | None:
        """For an exact duplicate stored as a revisit record: the original's row, pointer and id."""
        value = self.capture.get("revisit_of")
        return dict(value) if value else None

    @property
    def text(self) -> str:
        return str(self.cells.get("text", {}).get("text", ""))

    @property
    def unit(self) -> dict[str, Any] | None:
        """For a document unit: its ``parent``, ``kind``, ``position``, ``span`` and ``root``."""
        value = self.cells.get("meta", {}).get("metadata", {}).get("unit")
        return dict(value) if isinstance(value, dict) else None

    def as_dict(self) -> dict[str, Any]:
        fetch = self.capture
        meta = self.cells.get("meta", {})
        decode = meta.get("decode", {})
        return {
            "url": fetch.get("url"),
            "surt": self.row,
            "url_hash": url_hash(str(fetch.get("url", ""))),
            "id": fetch.get("id"),
            "docno": fetch.get("docno"),
            "fetched_at": fetch.get("fetched_at"),
            "status": fetch.get("status"),
            "record_type": fetch.get("record_type"),
            "warc": fetch.get("pointer"),
            "length": fetch.get("length"),
            "declared_type": fetch.get("declared_type"),
            "sniffed_type": fetch.get("sniffed_type"),
            "type_mismatch": fetch.get("type_mismatch"),
            "encoding": decode.get("encoding"),
            "encoding_source": decode.get("encoding_source"),
            "encoding_confidence": decode.get("encoding_confidence"),
            "encoding_declared": decode.get("encoding_declared"),
            "encoding_overruled": decode.get("encoding_overruled"),
            "decode_errors": decode.get("decode_errors"),
            "mojibake": decode.get("mojibake"),
            "mojibake_score": decode.get("mojibake_score"),
            "title": self.title,
            "text": self.text,
            "metadata": meta.get("metadata", {}),
            "links": self.cells.get("links", {}).get("out", []),
            "errors": meta.get("errors", []),
            "source": fetch.get("source"),
            "payload_digest": fetch.get("payload_digest"),
            "revisit_of": fetch.get("revisit_of"),
            "anchors": [{"from": url, "text": text} for url, text in sorted(self.anchors.items())],
            "lang": self.cells.get("lang", {}).get("doc", {}).get("lang"),
            "lang_score": self.cells.get("lang", {}).get("doc", {}).get("score"),
            "passages": self.cells.get("lang", {}).get("doc", {}).get("passages", []),
            "deleted": fetch.get("deleted"),
        }

    @property
    def deleted(self) -> dict[str, Any] | None:
        """For a tombstone (a desktop crawl found the file gone): when, and where it moved to."""
        value = self.capture.get("deleted")
        return dict(value) if value else None


class Collection:
    """A trawl collection directory: open or create it, write to it, read from it.

    ``read_only``: open its table without the writer's lock (another process may be writing it),
    as a collection's partitions are opened; writing to it raises :class:`StoreError`.
    """

    def __init__(
        self, path: Path, config: Config, *, split_bytes: int = SPLIT_BYTES, read_only: bool = False
    ) -> None:
        self.path = Path(path)
        self.config = config
        self.split_bytes = split_bytes
        self.read_only = read_only
        self._table: RowStore | None = None
        self._partitions: list[Collection] | None = None
        self._warc_homes: dict[str, Path] = {}  # a partition's WARC file name -> its path
        #: a write the disk refused while the table was being closed (nothing acknowledged is lost)
        self.disk_failure: DiskError | None = None
        self._references: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._references_lock = threading.Lock()

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def is_collection(cls, path: Path) -> bool:
        return (Path(path) / CONFIG_FILE).is_file() and (Path(path) / "table").is_dir()

    @classmethod
    def create(
        cls,
        path: Path,
        *,
        config_file: Path | None = None,
        overrides: Sequence[str] = (),
        split_bytes: int = SPLIT_BYTES,
    ) -> Collection:
        """Create a collection (or open an existing one, applying ``overrides`` for this run)."""
        path = Path(path)
        if cls.is_collection(path):
            return cls.open(path, overrides=overrides, split_bytes=split_bytes)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise StoreError(
                f"{str(path)!r} exists and is not a trawl collection; choose a new or empty directory"
            )
        config = load_config(config_file, overrides=overrides)
        for sub in SUBDIRS:
            (path / sub).mkdir(parents=True, exist_ok=True)
        (path / CONFIG_FILE).write_text(
            "# The configuration this collection was built with (see trawl/defaults.toml).\n"
            + config.to_toml(),
            encoding="utf-8",
        )
        return cls(path, config, split_bytes=split_bytes)

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        overrides: Sequence[str] = (),
        split_bytes: int = SPLIT_BYTES,
        read_only: bool = False,
    ) -> Collection:
        path = Path(path)
        if not cls.is_collection(path):
            raise CollectionNotFound(
                f"{str(path)!r} is not a trawl collection (no {CONFIG_FILE} and table/); "
                "create one with: trawl ingest SOURCE -o " + str(path)
            )
        config = load_config(path / CONFIG_FILE, overrides=overrides)
        return cls(path, config, split_bytes=split_bytes, read_only=read_only)

    @property
    def table(self) -> RowStore:
        """The rows: tablets (:class:`TabletTable`), or one :class:`Table` for a collection made
        with ``table.tablets = false`` or before tablets (its ``table/`` holds RocksDB's own files).
        What the directory holds decides; the option only shapes a new collection.

        With partitions (:attr:`partitions`), a :class:`~trawl.store.union.UnionTable` of this
        table and theirs: reads see every partition's rows, writes go to this one."""
        if self._table is None:
            own = self._own_table()
            try:
                members = [p.table for p in self.partitions]
            except BaseException:
                for part in self._partitions or []:
                    part.close()
                self._partitions = None
                own.close()
                raise
            self._table = UnionTable([own, *members]) if members else own
        return self._table

    def _table_made(self) -> bool:
        path = self.path / "table"
        return (path / MASTER).is_file() or (path / "CURRENT").is_file()

    def _own_table(self) -> RowStore:
        path = self.path / "table"
        made = self._table_made()
        tablets = (path / MASTER).is_file() if made else self.config.table.tablets
        if self.read_only and not made:
            raise StoreError(f"the collection at {str(self.path)!r} has no table yet, and is open read-only")
        if tablets:
            return TabletTable(
                path, versions=FAMILY_VERSIONS, split_bytes=self.split_bytes, read_only=self.read_only
            )
        return Table(path, versions=FAMILY_VERSIONS, read_only=self.read_only)

    @property
    def partitions(self) -> list[Collection]:
        """The partitions under ``partitions/`` (a distributed crawl's shards), by name, each open
        read-only; found on first use, and only those whose table has been made (a shard that has
        not written yet holds nothing). Empty for a plain collection."""
        if self._partitions is None:
            found: list[Collection] = []
            root = self.path / PARTITIONS
            try:
                candidates = sorted(p for p in root.iterdir() if p.is_dir())
            except OSError:  # no partitions/ (a plain collection)
                candidates = []
            for path in candidates:
                if self.is_collection(path):
                    part = Collection.open(path, split_bytes=self.split_bytes, read_only=True)
                    if part._table_made():
                        found.append(part)
            self._partitions = found
        return self._partitions

    def close(self) -> None:
        table, self._table = self._table, None
        partitions, self._partitions = self._partitions or [], None
        self._warc_homes.clear()
        members = {id(m) for m in table.members} if isinstance(table, UnionTable) else set()
        for part in partitions:
            if id(part._table) in members:  # a member of this one's union: closed with it below
                part._table = None
            part.close()
        if table is not None:
            try:
                table.close()
            except Exception as exc:
                # RocksDB flushes its memtables on close; what it acknowledged is in its log, which
                # the next open replays: a disk that refuses the flush loses nothing, so it is noted
                if (disk := disk_error(exc)) is None:
                    raise
                self.disk_failure = self.disk_failure or disk

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def writer(self, *, dedup: bool = True, anchors: bool = True) -> CollectionWriter:
        """The sink stage; ``dedup``: store exact duplicates as revisit records; ``anchors``: add
        each page's anchor texts to its link targets' rows."""
        return CollectionWriter(self, dedup=dedup, anchors=anchors)

    def new_run(self) -> tuple[str, RunContext]:
        """A run id and a context whose audit trail is written to ``stats/<run>.drops.jsonl``."""
        from trawl.pipeline.base import Audit  # noqa: PLC0415 - keep the import graph shallow

        base = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
        run, n = base, 1
        stats = self.path / "stats"
        # a second run of this process in the same second must not overwrite the first's counters;
        # "_" sorts after ".", so the later run's files sort after the earlier's (runs are ordered
        # by name: the latest is the last)
        while (stats / f"{run}.json").exists() or (stats / f"{run}.drops.jsonl").exists():
            n += 1
            run = f"{base}_{n:03d}"
        return run, RunContext(Stats(), Audit(stats / f"{run}.drops.jsonl"))

    def save_run(self, run: str, stats: Stats) -> Path:
        path = self.path / "stats" / f"{run}.json"
        stats.save(path)
        return path

    # -- reading -------------------------------------------------------------------------------

    def find(self, key: str, *, as_of: datetime | None = None) -> StoredRecord:
        """A record by URL (any spelling with the same SURT), URL hash, SURT key, DOCNO or ``FILE@OFFSET``.

        ``as_of``: the capture that was newest at that time (older versions stay in the table).
        """
        table = self.table
        when = None if as_of is None else _timestamp_us(as_of)

        def candidates() -> Iterator[tuple[str, int | None]]:  # lazily: a URL by its first, the SURT row
            yield surt(key), when
            yield key, when
            for index in ("hash", "docno", "pointer"):
                row = table.lookup(index, key)
                if row is not None:
                    # FILE@OFFSET and a DOCNO name one capture: that one, not the row's newest
                    # (with as_of, only if it existed by then)
                    at = self._capture_at(row, key, index) if index != "hash" else None
                    yield row, at if at is not None and (when is None or at <= when) else when

        for row, at in candidates():
            cells = table.get_row(row, as_of=at)
            if cells.get("fetch", {}).get("capture"):
                return StoredRecord(row, cells)
        if (m := _POINTER_KEY.match(key)) is not None:  # a pointer written before it was indexed
            doc = self.read_at(m["file"], int(m["offset"]))
            return self.find(doc.url, as_of=as_of)
        if as_of is not None:  # the URL may be there, captured only after the time asked
            try:
                newer = self.find(key)
            except RecordNotFound:
                newer = None
            if newer is not None:
                versions = table.versions_of(newer.row, "fetch", "capture")
                first = versions[-1][1].get("fetched_at") if versions else newer.capture.get("fetched_at")
                raise RecordNotFound(
                    f"{key!r} was first captured at {first}, after the time asked ({as_of.isoformat()}); "
                    "no capture of it is that old"
                )
        raise RecordNotFound(
            f"no record for {key!r} in {str(self.path)!r} (tried URL, URL hash, DOCNO, WARC FILE@OFFSET)"
        )

    def _capture_at(self, row: str, key: str, index: str = "pointer") -> int | None:
        """The time of the capture of ``row`` named by ``key``: its record's ``FILE@OFFSET``
        (``index`` "pointer") or its DOCNO ("docno"); None (the newest) when none is."""
        for ts, capture in self.table.versions_of(row, "fetch", "capture"):
            if index == "docno":
                if capture.get("docno") == key:
                    return ts
                continue
            pointer = capture.get("pointer") or {}
            if f"{pointer.get('file')}@{pointer.get('offset')}" == key:
                return ts
        return None

    def children(self, key: str) -> list[StoredRecord]:
        """The document units whose parent is the document ``key`` names (an mbox's messages, a
        message's attachments), in their order: a prefix scan of the rows after the parent's
        (a unit's SURT key is its parent's with ``#unit=…``), keeping the direct children, those
        whose names start alike (``p-``, ``qa-``, ``att-``) together."""
        row = self.find(key).row
        prefix = row + ("/" if UNIT_FRAGMENT in row else UNIT_FRAGMENT)
        found = [r for r in self.records(prefix) if "/" not in r.row[len(prefix) :]]

        def position(record: StoredRecord) -> tuple[str, int, str]:
            # units of one kind of name together (a page's passages p-1… before its pairs qa-1…:
            # both number from 1), each in its order
            name = record.row[len(prefix) :].rpartition("-")[0]
            unit = record.unit or {}
            at = unit.get("position")
            return (name, at if isinstance(at, int) else 1 << 62, record.row)

        return sorted(found, key=position)

    def parent(self, key: str) -> StoredRecord:
        """The document that the unit ``key`` names was cut from (:class:`RecordNotFound` for a
        document that is no unit, or whose parent is not stored)."""
        record = self.find(key)
        unit = record.unit or {}
        url = unit.get("parent") if isinstance(unit.get("parent"), str) else unit_parent(record.url)
        if not url:
            raise RecordNotFound(f"{record.url!r} is no document unit: it has no parent")
        return self.find(url)

    def versions(self, key: str) -> list[StoredRecord]:
        """Every kept capture of the URL (or URL hash, DOCNO, ``FILE@OFFSET``) ``key`` names,
        oldest first, each with the cells it was stored with (``trawl get --versions``)."""
        row = self.find(key).row
        table = self.table
        return [
            StoredRecord(row, table.get_row(row, as_of=ts))
            for ts, _ in reversed(table.versions_of(row, "fetch", "capture"))
        ]

    def read(self, record: StoredRecord) -> Document:
        """The stored capture of ``record``: exactly one WARC record read and decompressed.

        For an exact duplicate (a revisit record), the original's record is read too, and its
        payload becomes the document's ``raw``; the record type stays ``revisit``.
        """
        record.pointer  # noqa: B018 - raises RecordNotFound for a row without one
        doc = self._read_pointer(record.capture["pointer"])
        original = record.revisit_of
        if original is not None:
            doc.raw = self._read_pointer(original["pointer"]).raw
        return doc

    def _read_pointer(self, p: dict[str, Any]) -> Document:
        dictionary = self.dictionary_for(p.get("dict"))
        return read_record_at(
            self._warc_path(str(p["file"])), int(p["offset"]), int(p["length"]), dictionary=dictionary
        )

    def _warc_path(self, file: str) -> Path:
        """Where the WARC file ``file`` is: in this collection's ``warc/``, or in a partition's
        (the name of a missing file: this collection's, so that reading it says it is missing)."""
        if "/" in file or file in ("", ".", ".."):
            raise RecordNotFound(f"{file!r} is not the name of a WARC file of {str(self.path)!r}")
        own = self.path / "warc" / file
        if not self.partitions or own.exists():
            return own
        found = self._warc_homes.get(file)
        if found is None:
            for part in self.partitions:
                path = part._warc_path(file)
                if path.exists():
                    found = self._warc_homes[file] = path
                    break
        return found or own

    def dictionary_for(self, refs: list[dict[str, Any]] | None) -> bytes | None:
        """The zstd dictionary made of a site's reference records ``refs`` (None for none).

        A site's references form a chain: reference ``k`` was itself compressed against
        ``refs[:k]``, so a capture's pointer holds the flat list and nothing else is needed.
        """
        if not refs:
            return None
        parts = [self.reference_bytes(r, refs[:k]) for k, r in enumerate(refs)]
        return b"".join(parts)[-MAX_DICTIONARY_BYTES:]

    def reference_bytes(self, ref: dict[str, Any], earlier: list[dict[str, Any]] | None = None) -> bytes:
        """The uncompressed bytes of a reference record, compressed against the site's ``earlier``
        references (kept for the sites used most recently)."""
        key = (str(ref["file"]), int(ref["offset"]))
        with self._references_lock:
            data = self._references.get(key)
            if data is not None:
                self._references.move_to_end(key)
                return data
        path = self._warc_path(key[0])
        try:
            data = read_frame(path, key[1], int(ref["length"]), dictionary=self.dictionary_for(earlier))
        except (StoreError, WarcFormatError) as exc:
            raise RecordNotFound(
                f"{path}@{key[1]}: the reference record that this site's pages are compressed "
                f"against cannot be read: {exc}"
            ) from exc
        with self._references_lock:
            self._references[key] = data
            while len(self._references) > REFERENCES_KEPT:
                self._references.popitem(last=False)
        return data

    def remember_reference(self, pointer: dict[str, Any], data: bytes) -> None:
        """Keep a just-written reference's bytes, so the writer need not read them back."""
        with self._references_lock:
            self._references[(str(pointer["file"]), int(pointer["offset"]))] = data
            while len(self._references) > REFERENCES_KEPT:
                self._references.popitem(last=False)

    def read_at(self, file: str, offset: int, length: int | None = None) -> Document:
        """The one WARC record at ``offset`` of the collection's WARC file ``file``.

        A zstd record compressed against its site's reference is found through the pointer
        index, which names the reference.
        """
        path = self._warc_path(file)
        row = self.table.lookup("pointer", f"{file}@{offset}")
        if row is not None:
            for _, capture in self.table.versions_of(row, "fetch", "capture"):
                p = capture.get("pointer") or {}
                if p.get("file") == file and int(p.get("offset", -1)) == offset and p.get("dict"):
                    return read_record_at(path, offset, length, dictionary=self.dictionary_for(p["dict"]))
        return read_record_at(path, offset, length)

    def records(
        self, prefix: str = "", *, as_of: datetime | None = None, start: str = "", end: str | None = None
    ) -> Iterator[StoredRecord]:
        """Every stored record in SURT order (a host's pages together), optionally under a prefix
        and in the row-key range ``[start, end)`` (a sharded job's share).

        Rows that hold only anchor text from other pages (not crawled themselves) are skipped, and
        so are rows whose newest version is a tombstone (a file deleted since: :meth:`mark_deleted`).
        """
        when = None if as_of is None else _timestamp_us(as_of)
        for row, cells in self.table.scan(start, end, prefix=prefix, as_of=when):
            capture = cells.get("fetch", {}).get("capture")
            if capture and not capture.get("deleted"):
                yield StoredRecord(row, cells)

    def captures(
        self, prefix: str = "", *, start: str = "", end: str | None = None
    ) -> Iterator[StoredRecord]:
        """Every kept capture of every stored URL: rows in SURT order, each row's captures oldest
        first (so a revisit of an unchanged page follows its original), each with the cells it
        was stored with. :meth:`records` gives only the newest capture of each URL.

        A capture older than its cells' versions (a collection written before every family kept
        as many versions as ``fetch``) comes with the cells as they were then, which may be none
        but its fetch data. Tombstones (:meth:`mark_deleted`) are not captures and are skipped.
        """
        table = self.table
        for row, cells in table.scan(start, end, prefix=prefix):
            if not cells.get("fetch", {}).get("capture"):
                continue
            versions = table.versions_of(row, "fetch", "capture")
            for ts, capture in reversed(versions[1:]):
                if not capture.get("deleted"):
                    yield StoredRecord(row, table.get_row(row, as_of=ts))
            if not cells["fetch"]["capture"].get("deleted"):
                yield StoredRecord(row, cells)

    def find_by_anchor(self, query: str, limit: int = 20) -> list[tuple[StoredRecord, int]]:
        """Pages whose incoming anchor text holds every word of ``query``, with how many linking
        pages use those words, most first. Pages not crawled yet are returned too (no capture)."""
        terms = anchor_terms(query)
        if not terms:
            return []
        table = self.table
        rows = set(table.postings("anchor", terms[0]))
        for term in terms[1:]:
            rows &= set(table.postings("anchor", term))
        scored: list[tuple[StoredRecord, int]] = []
        for row in rows:
            cells = table.get_row(row)
            anchors = cells.get("anchor", {})
            # postings are never removed, so check the words are still in the current anchor text
            votes = sum(1 for text in anchors.values() if set(terms) <= set(anchor_terms(str(text))))
            if votes:
                scored.append((StoredRecord(row, cells), votes))
        scored.sort(key=lambda rv: (-rv[1], rv[0].row))
        return scored[:limit]

    # -- desktop crawl: rows that follow the disk ---------------------------------------------------

    def newest_capture(self, url: str) -> dict[str, Any] | None:
        """The newest ``fetch:capture`` cell of ``url``'s row (a tombstone too), or None."""
        value = self.table.get_cell(surt(url), "fetch", "capture")
        return dict(value) if value else None

    def _after_newest(self, row: str, family: str, qualifier: str) -> int:
        """Now, or just after the newest version of the cell when that is not older (a file's
        mtime can lie in the future), so a new version is the newest."""
        versions = self.table.versions_of(row, family, qualifier)
        now = time.time_ns() // 1000
        return max(now, versions[0][0] + 1) if versions else now

    def mark_deleted(
        self, url: str, *, path: str, moved_to: str | None = None, reason: str | None = None
    ) -> bool:
        """Add a tombstone version to ``url``'s row: its file is gone (``moved_to``: renamed to
        that URL). The capture cell says ``record_type = "deleted"`` and holds ``deleted``
        (when, why, where to, the previous capture); text, links, language and metadata are
        emptied at that version, so a search sees nothing, while every earlier capture stays
        readable (``trawl get --versions``, ``--as-of``). The file's document units (an mbox's
        messages and their attachments) go with it, each with its own tombstone (moved: to the
        same unit of the new URL). False when there is no row or its newest version is already
        a tombstone. ``reason`` overrides ``deleted``/``moved`` (``excluded``: the file is there
        but the ingest's filters now leave it out)."""
        row = surt(url)
        done = self._tombstone(row, url, path=path, moved_to=moved_to, reason=reason)
        for unit_row in list(self.table.rows(row + UNIT_FRAGMENT)):
            unit_url = self.table.get_cell(unit_row, "fetch", "capture") or {}
            fragment = str(unit_url.get("url") or "").partition(UNIT_FRAGMENT)[2]
            target = (
                f"{moved_to.split('#', 1)[0]}{UNIT_FRAGMENT}{fragment}" if moved_to and fragment else None
            )
            self._tombstone(
                unit_row, str(unit_url.get("url") or url), path=path, moved_to=target, reason=reason
            )
        return done

    def retire_stale_units(self, url: str) -> int:
        """Tombstone the units of ``url`` that its newest capture no longer holds (a message
        removed from an mbox that changed): those whose newest capture is older than the
        document's own. The number retired."""
        row = surt(url)
        newest = self.table.versions_of(row, "fetch", "capture")
        if not newest or newest[0][1].get("deleted"):
            return 0
        retired = 0
        for unit_row in list(self.table.rows(row + UNIT_FRAGMENT)):
            versions = self.table.versions_of(unit_row, "fetch", "capture")
            if versions and versions[0][0] < newest[0][0] and not versions[0][1].get("deleted"):
                unit_url = str(versions[0][1].get("url") or url)
                retired += self._tombstone(unit_row, unit_url, path="", reason="gone-from-parent")
        return retired

    def _tombstone(
        self, row: str, url: str, *, path: str, moved_to: str | None = None, reason: str | None = None
    ) -> bool:
        previous = self.table.get_cell(row, "fetch", "capture")
        if not previous or previous.get("deleted"):
            return False
        ts = self._after_newest(row, "fetch", "capture")
        when = datetime.fromtimestamp(ts / 1_000_000, UTC).isoformat()
        deleted = {
            "at": when,
            "reason": reason or ("moved" if moved_to else "deleted"),
            "moved_to": moved_to,
            "path": path,
            "previous": {
                "fetched_at": previous.get("fetched_at"),
                "payload_digest": previous.get("payload_digest"),
                "pointer": previous.get("pointer"),
            },
        }
        capture = {
            "id": None,
            "url": previous.get("url") or url,
            "docno": None,
            "fetched_at": when,
            "status": None,
            "record_type": "deleted",
            "record_id": None,
            "pointer": None,
            "length": 0,
            "declared_type": None,
            "sniffed_type": None,
            "type_mismatch": False,
            "source": path,
            "payload_digest": None,
            "revisit_of": None,
            "deleted": deleted,
        }
        cells: dict[str, dict[str, Any]] = {
            "fetch": {"capture": capture},
            "text": {"title": "", "text": ""},
            "links": {"out": []},
            "meta": {"decode": {}, "metadata": {"path": path}, "errors": []},
            "lang": {"doc": {"lang": None, "score": None, "passages": []}},
        }
        self.table.write([Mutation(row, ts, put=cells)])
        return True

    def update_access(self, url: str, access: dict[str, Any]) -> bool:
        """Record who may read ``url``'s file now (its metadata's ``access``), as a new version of
        the row's metadata, and of its units' (a message of an mbox is as readable as the mbox);
        its capture is unchanged. False for no row, or a tombstone."""
        row = surt(url)
        if not self._set_access(row, access):
            return False
        for unit_row in list(self.table.rows(row + UNIT_FRAGMENT)):
            self._set_access(unit_row, access)
        return True

    def _set_access(self, row: str, access: dict[str, Any]) -> bool:
        capture = self.table.get_cell(row, "fetch", "capture")
        if not capture or capture.get("deleted"):
            return False
        metadata = dict(self.table.get_cell(row, "meta", "metadata") or {})
        metadata["access"] = access
        ts = self._after_newest(row, "meta", "metadata")
        self.table.write([Mutation(row, ts, put={"meta": {"metadata": metadata}})])
        return True

    def warc_files(self) -> list[Path]:
        """Every WARC file: this collection's, then each partition's (each part by name)."""
        return self._own_warc_files() + [p for part in self.partitions for p in part.warc_files()]

    def _own_warc_files(self) -> list[Path]:
        return sorted(p for p in (self.path / "warc").iterdir() if p.is_file())

    def repair_warc_tails(self, *, skip: Iterable[str] = ()) -> list[TailRepair]:
        """Cut off the torn last record of each WARC file a killed writer left (what follows the
        last whole record: see :mod:`trawl.store.tails`), so that every reader reads each file to
        its end; what was cut, file by file. Whole records no row names yet are kept.

        Opens the table first: its lock makes this process the collection's one writer, so no
        file is cut while another process appends to it (``skip``: files this process writes).
        Each file is checked once: its checked size is kept in the table (``warc-tail`` entries),
        and files are never appended to once their writer is gone. The check starts at the file's
        last record a row names, so it reads little more than the torn record."""
        table = self.table
        skipped = set(skip)
        repairs: list[TailRepair] = []
        checked: list[tuple[str, str, Any]] = []

        def indexed(name: str) -> Callable[[int], bool]:  # does a row name a record there?
            return lambda at: table.lookup("pointer", f"{name}@{at}") is not None

        for path in self._own_warc_files():  # a partition's files are its shard's to repair
            codec = codec_of(path.name)
            if codec is None or path.name in skipped:
                continue
            size = path.stat().st_size
            if table.get_entry(TAIL_ENTRY, path.name) == size:
                continue
            name = path.name
            try:
                repair = repair_tail(path, codec, known=indexed(name))
            except OSError as exc:  # unreadable now: said, and tried again next time
                repairs.append(TailRepair(name, 0, 0, False, f"cannot read it: {exc.strerror or exc}"))
                continue
            if repair is not None:
                repairs.append(repair)
            if repair is None or repair.truncated:  # one that could not be cut is tried again
                checked.append((TAIL_ENTRY, name, path.stat().st_size))
        if checked:
            table.write([], entries=checked)
        return repairs

    def runs(self) -> list[tuple[str, Stats]]:
        """Every run's counters, by name: this collection's runs, then each partition's, named
        ``<partition>/<run>``."""
        out = []
        for p in sorted((self.path / "stats").glob("*.json")):
            try:
                out.append((p.stem, Stats.load(p)))
            except (OSError, ValueError) as exc:
                raise StoreError(f"cannot read run statistics {str(p)!r}: {exc}") from exc
        for part in self.partitions:
            out += [(f"{part.path.name}/{name}", stats) for name, stats in part.runs()]
        return out

    def info(self) -> dict[str, Any]:
        """Counts and sizes for ``trawl show``."""
        rows = captures = 0
        hosts: dict[str, int] = {}
        types: dict[str, int] = {}
        table = self.table
        for record in self.records():
            rows += 1
            captures += max(1, len(table.versions_of(record.row, "fetch", "capture")))
            # SURT "com,example)/path" -> host "com,example"; "file:/path" -> "file:"
            host = record.row.split(")", 1)[0] if ")" in record.row else record.row.split(":", 1)[0] + ":"
            hosts[host] = hosts.get(host, 0) + 1
            capture = record.capture
            declared = str(capture.get("declared_type") or "").split(";", 1)[0].strip().lower()
            ctype = str(capture.get("sniffed_type") or declared or "unknown")
            types[ctype] = types.get(ctype, 0) + 1
        warcs = self.warc_files()
        runs = self.runs()
        merged = Stats.merged(s for _, s in runs)

        def du(p: Path) -> int:
            # a file a running shard removes (a compaction's) while this walks counts nothing
            total = 0
            for f in p.rglob("*"):
                try:
                    total += f.stat().st_size if f.is_file() else 0
                except OSError:
                    continue
            return total

        partitions: list[dict[str, Any]] = [
            {
                "name": part.path.name,
                "path": str(part.path),
                "warc_files": len(files := part.warc_files()),
                "warc_bytes": sum(p.stat().st_size for p in files),
                "table_bytes": du(part.path / "table"),
                "runs": len(part.runs()),
            }
            for part in self.partitions
        ]

        return {
            "path": str(self.path),
            "documents": rows,  # URLs: the newest capture of each (kept for older readers)
            "urls": rows,
            "captures": captures,
            "hosts": len(hosts),
            "top_hosts": sorted(hosts.items(), key=lambda kv: (-kv[1], kv[0]))[:10],
            "types": dict(sorted(types.items(), key=lambda kv: -kv[1])),
            "warc_files": len(warcs),
            "warc_bytes": sum(p.stat().st_size for p in warcs),
            "table_bytes": du(self.path / "table") + sum(int(p["table_bytes"]) for p in partitions),
            "runs": len(runs),
            "counters": merged.to_dict()["counters"],
            "partitions": partitions,
        }


#: the writers open in this process, whose files a new writer's tail repair leaves alone
_LIVE_WRITERS: weakref.WeakSet[CollectionWriter] = weakref.WeakSet()


@dataclass(slots=True)
class _Staged:
    """A document between :meth:`CollectionWriter._stage` and its commit."""

    doc: Document
    row: str
    ts: int
    doc_id: str
    digest: str
    revisit_of: dict[str, Any] | None = None
    record: bytes = b""
    member: Future[bytes] | None = None
    pointer: dict[str, Any] | None = None
    payload: bool = False  # it is its payload's original: a payload entry goes with its row
    entries: list[tuple[str, str, Any]] = dataclasses.field(default_factory=list)


class CollectionWriter(Step):
    """The sink: appends each document's capture to the WARC files and its row to the table.

    Everything one document changes (its row, the anchor text it gives its link targets, its
    index entries, its payload entry) goes to the table in one write (one batch per tablet), after
    its WARC record has reached the OS. Idempotent: a document whose id is already stored at the
    same capture time is not written twice (``store/skipped/already-stored``), so re-running an
    ingest after a crash is safe. Before its first write it cuts off the torn last records a
    killed writer left (:meth:`Collection.repair_warc_tails`; ``store/torn-tail-repaired``).
    """

    name: ClassVar[str] = "store"
    requires: ClassVar[tuple[tuple[str, str], ...]] = (("rocksdict", "all"),)

    def __init__(self, collection: Collection, *, dedup: bool = True, anchors: bool = True) -> None:
        self.collection = collection
        cfg = collection.config
        self._warc = WarcFileWriter(
            collection.path / "warc",
            prefix=cfg.warc.prefix,
            max_bytes=cfg.warc.max_file_bytes,
            compress=cfg.warc.compress,
            level=cfg.warc.zstd_level if cfg.warc.codec == "zstd" else cfg.warc.level,
            codec=cfg.warc.codec if cfg.warc.compress else "none",
        )
        self._store_text = cfg.table.store_text
        self._dedup = dedup
        self._anchors = anchors
        self._refs: dict[str, list[dict[str, Any]]] = {}  # site -> its reference pointers
        # one thread compresses the next record while the table write of the one before runs
        self._packer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trawl-warc-pack")
        self._staged_ids: set[str] = set()  # documents staged and not yet committed
        self._staged_payloads: dict[str, dict[str, Any]] = {}  # their payload entries, by digest
        #: the torn WARC tails cut off before this writer's first write (:meth:`_repair`)
        self.repairs: list[TailRepair] = []
        self._repaired = False
        self._repairs_told = False

    @property
    def files(self) -> list[str]:
        """The WARC files this writer created (names in the collection's ``warc/``)."""
        return self._warc.files

    def _repair(self) -> None:
        """Before the first write: cut off the torn last records a killed writer left (in files no
        other writer of this process has open)."""
        if self._repaired:
            return
        path = self.collection.path
        busy = (name for w in list(_LIVE_WRITERS) if w.collection.path == path for name in w.files)
        self.repairs = self.collection.repair_warc_tails(skip=busy)
        self._repaired = True
        _LIVE_WRITERS.add(self)

    def _tell_repairs(self, ctx: RunContext) -> None:
        """Count and record the torn tails cut off before this writer's first write (once)."""
        self._repair()
        if self._repairs_told:
            return
        self._repairs_told = True
        for repair in self.repairs:
            key = "store/torn-tail-repaired" if repair.truncated else "store/torn-tail-kept"
            if not repair.removed:
                key = "store/torn-tail-unchecked"
            ctx.stats.inc(key)
            ctx.stats.inc("store/torn-tail-bytes", repair.removed)
            where = f"{repair.file}@{repair.offset}"
            ctx.audit.record(AuditEntry("drop", self.name, "torn-tail", repair.message(), source=where))

    def _references(self, site: str) -> list[dict[str, Any]]:
        refs = self._refs.get(site)
        if refs is None:
            if len(self._refs) > 100_000:
                self._refs.clear()
            refs = self._refs[site] = list(self.collection.table.get_entry("ref", site) or [])
        return refs

    def _write_record(self, doc: Document) -> tuple[dict[str, Any], tuple[str, list[dict[str, Any]]] | None]:
        """Write ``doc``'s WARC record; returns its pointer (with ``dict``: the references it was
        compressed against) and, when it becomes one of its site's references, the new ``ref`` entry."""
        if self._warc.codec != "zstd" or doc.record_type not in ("response", "resource"):
            return self._warc.write(doc).as_dict(), None
        site = site_of(doc.surt)
        refs = self._references(site)
        pointer: dict[str, Any]
        try:
            dictionary = self.collection.dictionary_for(refs)
        except RecordNotFound as exc:  # a reference is gone: this page starts the site afresh
            self.count("store/reference-unreadable")
            doc.errors.append(f"store: {exc}; this page becomes its site's new reference")
            refs = []
            dictionary = None
        if dictionary:
            key = " ".join(f"{r['file']}@{r['offset']}" for r in refs)
            plain = self._warc.write(doc, dictionary=dictionary, dictionary_key=key).as_dict()
            pointer = {**plain, "dict": refs}
        else:
            plain = pointer = self._warc.write(doc).as_dict()
        if len(refs) >= REFERENCE_PAGES or len(self._warc.last_record) < MIN_REFERENCE_BYTES:
            return pointer, None
        # the chain stays flat: this reference was compressed against exactly the ones before it
        self.collection.remember_reference(plain, self._warc.last_record)
        refs = self._refs[site] = [*refs, plain]
        return pointer, (site, refs)

    def _plan_capture(self, doc: Document, digest: str) -> tuple[Document, dict[str, Any] | None]:
        """What to write for ``doc``: the document itself, or a revisit record when its payload is
        stored already (in the table, or staged just before it); and, for a revisit, what it
        refers to."""
        if doc.metadata.get(UNCHANGED):
            return self._plan_unchanged(doc)
        original = None
        if self._dedup and doc.raw and doc.record_type in ("response", "resource"):
            original = self._staged_payloads.get(digest) or self.collection.table.get_entry("payload", digest)
        if original is not None and original.get("record_id") != doc.record_id:
            refs = [
                ("WARC-Refers-To", original["record_id"]),
                ("WARC-Refers-To-Target-URI", original["url"]),
                ("WARC-Refers-To-Date", original["date"]),
                ("WARC-Payload-Digest", digest),
                ("WARC-Profile", IDENTICAL_PAYLOAD),
            ]
            revisit = dataclasses.replace(
                doc, record_type="revisit", raw=b"", warc_headers=[*doc.warc_headers, *refs]
            )
            self.count("store/duplicates/exact")
            self.count("store/duplicates/bytes-saved", len(doc.raw))
            return revisit, {"row": original["row"], "pointer": original["pointer"], "record_id": refs[0][1]}
        if not (doc.record_id and doc.record_id.startswith("<urn:") and doc.record_id.endswith(">")):
            doc.record_id = f"<urn:uuid:{uuid.uuid4()}>"  # known before writing, so a revisit can name it
        return doc, None

    def _plan_unchanged(self, doc: Document) -> tuple[Document, dict[str, Any] | None]:
        """A crawl's unchanged revisit (a 304, or a HEAD whose validators held): a revisit record
        (profile server-not-modified) of the row's newest capture, or of the capture that one
        refers to, so the chain stays one step; with no capture stored, the answer as it is."""
        doc.record_id = f"<urn:uuid:{uuid.uuid4()}>"
        versions = self.collection.table.versions_of(doc.surt, "fetch", "capture")
        if not versions or not versions[0][1].get("pointer"):
            self.count("store/unchanged/no-capture")
            doc.record_type = "response"
            return doc, None
        previous = versions[0][1]
        original = previous.get("revisit_of") or {
            "row": doc.surt,
            "pointer": previous["pointer"],
            "record_id": previous.get("record_id"),
        }
        when = previous.get("fetched_at")
        date = datetime.fromisoformat(when).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else None
        refs = [("WARC-Refers-To", str(original["record_id"])), ("WARC-Profile", SERVER_NOT_MODIFIED)]
        refs.append(("WARC-Refers-To-Target-URI", str(previous.get("url") or doc.url)))
        if date:
            refs.append(("WARC-Refers-To-Date", date))
        if previous.get("payload_digest"):
            refs.append(("WARC-Payload-Digest", str(previous["payload_digest"])))
        doc.warc_headers = [*doc.warc_headers, *refs]
        self.count(f"store/unchanged/{str(doc.metadata.get(UNCHANGED, 'GET')).lower()}")
        return doc, dict(original)

    def _payload_entry(self, doc: Document, pointer: dict[str, Any]) -> dict[str, Any]:
        return {
            "row": doc.surt,
            "url": doc.url,
            "record_id": doc.record_id,
            "date": (doc.fetched_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "pointer": pointer,
        }

    def _stage(self, doc: Document) -> _Staged | None:
        """The first half of storing ``doc``: check it is not stored yet, decide its record and
        start compressing it (in the writer's thread, for gzip); None when it is stored already."""
        table = self.collection.table
        row = doc.surt
        ts = _timestamp_us(doc.fetched_at)
        doc_id = doc.id
        previous = table.versions_of(row, "fetch", "capture")
        digest = payload_digest(doc.raw)
        newest = previous[0][1] if previous else {}
        # stored already: the same capture (id and time); for a document with no time of its own
        # (a TREC document without a date, stored at the time of writing), the same id and payload
        if (
            newest.get("id") == doc_id
            and (previous[0][0] == ts or (doc.fetched_at is None and newest.get("payload_digest") == digest))
        ) or doc_id in self._staged_ids:
            self.count("store/skipped/already-stored")
            doc.release()
            return None
        staged = _Staged(doc, row, ts, doc_id, digest)
        target, staged.revisit_of = self._plan_capture(doc, digest)
        if self._warc.codec == "zstd" and staged.revisit_of is None:
            # references and their dictionaries: written at once, in this thread
            pointer, new_ref = self._write_record(doc)
            staged.pointer = pointer
            if new_ref is not None:
                staged.entries.append(("ref", *new_ref))
        elif self._warc.codec == "zstd":
            staged.pointer = self._warc.write(target).as_dict()
        else:
            staged.record = self._warc.record(target)
            staged.member = self._packer.submit(self._warc.pack, staged.record)
        # its payload entry is made once it has a pointer (_land), before the next document stages
        staged.payload = bool(
            self._dedup
            and doc.raw
            and doc.record_type in ("response", "resource")
            and staged.revisit_of is None
        )
        self._staged_ids.add(doc_id)
        return staged

    def _land(self, staged: _Staged) -> None:
        """The WARC half: the compressed record appended and flushed to the OS."""
        if staged.pointer is None:
            assert staged.member is not None
            member = staged.member.result()
            staged.pointer = self._warc.append(staged.record, member).as_dict()
            staged.record = b""
        # The record's bytes reach the OS before the row that points at them is committed, so a
        # killed ingest never leaves a row pointing past the end of a WARC file.
        self._warc.flush()
        if staged.payload:
            entry = self._payload_entry(staged.doc, staged.pointer)
            self._staged_payloads[staged.digest] = entry
            staged.entries.append(("payload", staged.digest, entry))

    def _anchor_mutations(self, doc: Document, ts: int) -> list[Mutation]:
        """This page's anchor texts as mutations of its link targets' rows."""
        by_target: dict[str, list[str]] = {}
        own = doc.surt
        for link in doc.links[:MAX_ANCHOR_LINKS]:
            text = " ".join(link.text.split())[:MAX_ANCHOR_CHARS]
            if not text:
                continue
            target = surt(link.url)
            if target != own and "\x00" not in target:
                by_target.setdefault(target, []).append(text)
        source = doc.url.replace("\x00", "")
        out = []
        for target, texts in by_target.items():
            text = " | ".join(dict.fromkeys(texts))[:MAX_ANCHOR_CHARS]
            out.append(
                Mutation(target, ts, put={"anchor": {source: text}}, postings={"anchor": anchor_terms(text)})
            )
        return out

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        """Store each document, one step ahead: while one document's record is compressed (in a
        thread: zlib lets go of the GIL), the table write of the one before it runs here. The
        order of records, rows and answers is the order of ``docs``; each row is written after its
        record is flushed. A document that could not be stored is counted, recorded, marked
        dropped (``error/store``) and not passed on, so a crawl never takes it for stored; one
        stored already is passed on."""
        self.ctx = ctx
        self._tell_repairs(ctx)
        stats = ctx.stats
        before: _Staged | None = None
        for doc in docs:
            t0 = time.perf_counter()
            landed = before is not None and self._guarded(self._land, before)[0]
            ok, staged = self._guarded(self._stage, doc)
            done = self._guarded(self._commit, before)[1] if landed and before is not None else None
            stats.add_time(self.name, time.perf_counter() - t0)
            if done is not None:
                yield done
            if ok and staged is None:
                yield doc  # stored already
            before = staged
        if before is not None:
            t0 = time.perf_counter()
            landed = self._guarded(self._land, before)[0]
            done = self._guarded(self._commit, before)[1] if landed else None
            stats.add_time(self.name, time.perf_counter() - t0)
            if done is not None:
                yield done

    def _guarded(self, fn: Any, item: Any) -> tuple[bool, Any]:
        """``(True, fn(item))``, or ``(False, None)`` with the failure counted and recorded against
        the document and the document marked dropped."""
        doc: Document = item if isinstance(item, Document) else item.doc
        try:
            return True, fn(item)
        except Exception as exc:  # isolation: one bad document never stops the run
            disk = disk_error(exc)
            if disk is not None:  # but a full or failing disk stops it: every write after would fail
                self._forget(doc)
                if disk is exc:
                    raise
                raise disk from exc
            doc.error(self.name, exc)
            doc.dropped = f"error/{self.name}"
            if self.ctx is not None:
                self.ctx.error(self.name, exc, url=doc.url, source=doc.source)
            self._forget(doc)
            return False, None

    def _forget(self, doc: Document) -> None:
        self._staged_ids.discard(doc.id)
        for digest, entry in list(self._staged_payloads.items()):
            if entry.get("record_id") == doc.record_id:
                del self._staged_payloads[digest]

    def process(self, doc: Document) -> Document:
        """One document, stored at once (what :meth:`run` does, without overlap)."""
        self._repair()
        if self.ctx is not None:
            self._tell_repairs(self.ctx)
        staged = self._stage(doc)
        if staged is None:
            return doc
        try:
            self._land(staged)
            return self._commit(staged)
        finally:
            self._forget(doc)

    def _commit(self, staged: _Staged) -> Document:
        """The table half: the document's row, its anchors and its index entries in one write."""
        table = self.collection.table
        doc, row, ts, doc_id, digest = staged.doc, staged.row, staged.ts, staged.doc_id, staged.digest
        pointer, revisit_of, entries = staged.pointer, staged.revisit_of, staged.entries
        assert pointer is not None
        doc.warc = WarcPointer(str(pointer["file"]), int(pointer["offset"]), int(pointer["length"]))
        # Few cells per row, grouped by what changes together: each cell is a RocksDB key.
        cells: dict[str, dict[str, Any]] = {
            "fetch": {
                "capture": {
                    "id": doc_id,
                    "url": doc.url,
                    "docno": doc.docno,
                    "fetched_at": doc.fetched_at.isoformat() if doc.fetched_at else None,
                    "status": doc.status,
                    "record_type": doc.record_type,
                    "record_id": doc.record_id,
                    "pointer": pointer,
                    "length": len(doc.raw),
                    "declared_type": doc.declared_type,
                    "sniffed_type": doc.sniffed_type,
                    "type_mismatch": doc.type_mismatch,
                    "source": doc.source,
                    "payload_digest": digest,
                    "revisit_of": revisit_of,
                },
            },
            "meta": {
                "decode": {
                    "encoding": doc.encoding,
                    "encoding_source": doc.encoding_source,
                    "encoding_confidence": doc.encoding_confidence,
                    # {"encoding", "source"} of the declaration, when there was one
                    "encoding_declared": doc.metadata.get("encoding_declared"),
                    "encoding_overruled": doc.metadata.get("encoding_overruled"),
                    "decode_errors": doc.decode_errors,
                    "mojibake": doc.mojibake,
                    "mojibake_score": doc.mojibake_score,
                },
                "metadata": {k: v for k, v in doc.metadata.items() if not k.startswith("_")},
                "errors": doc.errors,
            },
            "links": {"out": [link.as_dict() for link in doc.links]},
        }
        unchanged = bool(doc.metadata.get(UNCHANGED)) and revisit_of is not None
        if unchanged:
            # the page as it was: its text, language, links and metadata stay the capture's, read
            # at this version as the newest at or before it
            cells = {"fetch": cells["fetch"]}
        if self._store_text and not unchanged:
            cells["text"] = {"title": doc.title, "text": doc.text}
        if doc.lang is not None:
            cells["lang"] = {"doc": {"lang": doc.lang, "score": doc.lang_score, "passages": doc.passages}}
        mutations = [Mutation(row, ts, put=cells)]
        if self._anchors and not unchanged:
            mutations += self._anchor_mutations(doc, ts)
        indexes = [
            ("hash", url_hash(doc.url), row),
            ("pointer", f"{pointer['file']}@{pointer['offset']}", row),
        ]
        if doc.docno:
            indexes.append(("docno", doc.docno, row))
        # one write: the row, its anchors, then (tablets: in the meta table's batch, after the rows)
        # its index entries and the payload entry that makes it findable for dedup
        table.write(mutations, indexes=indexes, entries=entries)
        self.count("store/anchors", len(mutations) - 1)
        self.count("store/records")
        self.count("store/warc-bytes", int(pointer["length"]))
        doc.release()  # stored: the decoded characters and the parsed page are not needed again
        self._staged_ids.discard(doc_id)
        if staged.payload and self._staged_payloads.get(digest, {}).get("record_id") == doc.record_id:
            del self._staged_payloads[digest]  # in the table now
        return doc

    def close(self) -> None:
        _LIVE_WRITERS.discard(self)
        self._packer.shutdown(wait=True)
        self._warc.close()
        try:
            self.collection.table.flush()
        except Exception as exc:  # what the table acknowledged is in its log: noted, as in close
            if (disk := disk_error(exc)) is None:
                raise
            self.collection.disk_failure = self.collection.disk_failure or disk
