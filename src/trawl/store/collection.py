"""The collection: a directory any trawl tool can open.

::

    collection/
      trawl.toml   the configuration it was built with
      warc/        raw captures, WARC/1.1, one gzip member per record, rotated by size
      table/       the versioned table (RocksDB): row = SURT URL; families fetch, text, meta, links
      index/       fingerprint indexes (dedup)
      frontier/    crawl state
      stats/       counters per run (<run>.json, mergeable) and drops (<run>.drops.jsonl)
      exports/     Parquet URL index, TREC Web, JSONL

Random access: URL → SURT row → ``fetch:pointer`` (file, offset, length) → one seek, one read,
one gzip member decompressed. The table also holds the title, text, links and metadata, so
``trawl get --text`` needs no parsing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from trawl.config import Config, load_config
from trawl.document import Document, WarcPointer
from trawl.errors import CollectionNotFound, RecordNotFound, StoreError
from trawl.pipeline.base import RunContext, Step
from trawl.pipeline.stats import Stats
from trawl.store.table import Table
from trawl.store.warcfile import WarcFileWriter, read_record_at
from trawl.urls import surt, url_hash

__all__ = ["Collection", "CollectionWriter", "StoredRecord"]

CONFIG_FILE = "trawl.toml"
SUBDIRS = ("warc", "table", "index", "frontier", "stats", "exports")
# How many versions of each family's cells the table keeps (per-family policy).
FAMILY_VERSIONS = {"fetch": 10, "text": 1, "meta": 1, "links": 1}


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
    def title(self) -> str:
        return str(self.cells.get("text", {}).get("title", ""))

    @property
    def text(self) -> str:
        return str(self.cells.get("text", {}).get("text", ""))

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
        }


class Collection:
    """A trawl collection directory: open or create it, write to it, read from it."""

    def __init__(self, path: Path, config: Config) -> None:
        self.path = Path(path)
        self.config = config
        self._table: Table | None = None

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def is_collection(cls, path: Path) -> bool:
        return (Path(path) / CONFIG_FILE).is_file() and (Path(path) / "table").is_dir()

    @classmethod
    def create(
        cls, path: Path, *, config_file: Path | None = None, overrides: Sequence[str] = ()
    ) -> Collection:
        """Create a collection (or open an existing one, applying ``overrides`` for this run)."""
        path = Path(path)
        if cls.is_collection(path):
            return cls.open(path, overrides=overrides)
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
        return cls(path, config)

    @classmethod
    def open(cls, path: Path, *, overrides: Sequence[str] = ()) -> Collection:
        path = Path(path)
        if not cls.is_collection(path):
            raise CollectionNotFound(
                f"{str(path)!r} is not a trawl collection (no {CONFIG_FILE} and table/); "
                "create one with: trawl ingest SOURCE -o " + str(path)
            )
        return cls(path, load_config(path / CONFIG_FILE, overrides=overrides))

    @property
    def table(self) -> Table:
        if self._table is None:
            self._table = Table(self.path / "table", versions=FAMILY_VERSIONS)
        return self._table

    def close(self) -> None:
        if self._table is not None:
            self._table.close()
            self._table = None

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def writer(self) -> CollectionWriter:
        return CollectionWriter(self)

    def new_run(self) -> tuple[str, RunContext]:
        """A run id and a context whose audit trail is written to ``stats/<run>.drops.jsonl``."""
        from trawl.pipeline.base import Audit  # noqa: PLC0415 - keep the import graph shallow

        run = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}"
        return run, RunContext(Stats(), Audit(self.path / "stats" / f"{run}.drops.jsonl"))

    def save_run(self, run: str, stats: Stats) -> Path:
        path = self.path / "stats" / f"{run}.json"
        stats.save(path)
        return path

    # -- reading -------------------------------------------------------------------------------

    def find(self, key: str) -> StoredRecord:
        """A record by URL (any spelling with the same SURT), URL hash, SURT key or DOCNO."""
        table = self.table
        candidates = [surt(key), key]
        for index in ("hash", "docno"):
            row = table.lookup(index, key)
            if row is not None:
                candidates.append(row)
        for row in candidates:
            cells = table.get_row(row)
            if cells:
                return StoredRecord(row, cells)
        raise RecordNotFound(f"no record for {key!r} in {str(self.path)!r} (tried URL, URL hash, DOCNO)")

    def read(self, record: StoredRecord) -> Document:
        """The stored capture of ``record``: exactly one WARC record read and decompressed."""
        p = record.pointer
        return read_record_at(self.path / "warc" / p.file, p.offset, p.length)

    def records(self, prefix: str = "") -> Iterator[StoredRecord]:
        """Every stored row in SURT order (a host's pages together), optionally under a prefix."""
        table = self.table
        for row in table.rows(prefix):
            yield StoredRecord(row, table.get_row(row))

    def warc_files(self) -> list[Path]:
        return sorted(p for p in (self.path / "warc").iterdir() if p.is_file())

    def runs(self) -> list[tuple[str, Stats]]:
        out = []
        for p in sorted((self.path / "stats").glob("*.json")):
            try:
                out.append((p.stem, Stats.load(p)))
            except (OSError, ValueError) as exc:
                raise StoreError(f"cannot read run statistics {str(p)!r}: {exc}") from exc
        return out

    def info(self) -> dict[str, Any]:
        """Counts and sizes for ``trawl show``."""
        rows = 0
        hosts: dict[str, int] = {}
        types: dict[str, int] = {}
        for record in self.records():
            rows += 1
            # SURT "com,example)/path" -> host "com,example"; "file:/path" -> "file:"
            host = record.row.split(")", 1)[0] if ")" in record.row else record.row.split(":", 1)[0] + ":"
            hosts[host] = hosts.get(host, 0) + 1
            ctype = str(record.capture.get("sniffed_type") or "unknown")
            types[ctype] = types.get(ctype, 0) + 1
        warcs = self.warc_files()
        runs = self.runs()
        merged = Stats.merged(s for _, s in runs)

        def du(p: Path) -> int:
            return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())

        return {
            "path": str(self.path),
            "documents": rows,
            "hosts": len(hosts),
            "top_hosts": sorted(hosts.items(), key=lambda kv: (-kv[1], kv[0]))[:10],
            "types": dict(sorted(types.items(), key=lambda kv: -kv[1])),
            "warc_files": len(warcs),
            "warc_bytes": sum(p.stat().st_size for p in warcs),
            "table_bytes": du(self.path / "table"),
            "runs": len(runs),
            "counters": merged.to_dict()["counters"],
        }


class CollectionWriter(Step):
    """The sink: appends each document's capture to the WARC files and its row to the table.

    Idempotent: a document whose id is already stored at the same capture time is not written
    twice (``store/skipped/already-stored``), so re-running an ingest after a crash is safe.
    """

    name: ClassVar[str] = "store"
    requires: ClassVar[tuple[tuple[str, str], ...]] = (("rocksdict", "all"),)

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        cfg = collection.config
        self._warc = WarcFileWriter(
            collection.path / "warc",
            prefix=cfg.warc.prefix,
            max_bytes=cfg.warc.max_file_bytes,
            compress=cfg.warc.compress,
            level=cfg.warc.level,
        )
        self._store_text = cfg.table.store_text

    def process(self, doc: Document) -> Document:
        table = self.collection.table
        row = doc.surt
        ts = _timestamp_us(doc.fetched_at)
        doc_id = doc.id
        previous = table.versions_of(row, "fetch", "capture")
        if previous and previous[0][0] == ts and previous[0][1].get("id") == doc_id:
            self.count("store/skipped/already-stored")
            return doc
        pointer = self._warc.write(doc)
        # The record's bytes reach the OS before the row that points at them is committed, so a
        # killed ingest never leaves a row pointing past the end of a WARC file.
        self._warc.flush()
        doc.warc = pointer
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
                    "pointer": pointer.as_dict(),
                    "length": len(doc.raw),
                    "declared_type": doc.declared_type,
                    "sniffed_type": doc.sniffed_type,
                    "type_mismatch": doc.type_mismatch,
                    "source": doc.source,
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
        if self._store_text:
            cells["text"] = {"title": doc.title, "text": doc.text}
        table.put_row(row, cells, ts)
        table.put_index("hash", url_hash(doc.url), row)
        if doc.docno:
            table.put_index("docno", doc.docno, row)
        self.count("store/records")
        self.count("store/warc-bytes", pointer.length)
        return doc

    def close(self) -> None:
        self._warc.close()
        self.collection.table.flush()
