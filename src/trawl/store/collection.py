"""The collection: a directory any trawl tool can open.

::

    collection/
      trawl.toml   the configuration it was built with
      warc/        raw captures, WARC/1.1, one gzip member per record, rotated by size
      table/       the versioned table (RocksDB): row = SURT URL; families fetch, text, meta, links,
                   anchor (one column per linking page), dup (written by dedup)
      index/       fingerprint indexes (dedup)
      frontier/    crawl state
      stats/       counters per run (<run>.json, mergeable) and drops (<run>.drops.jsonl)
      exports/     Parquet URL index, TREC Web, JSONL

Random access: URL → SURT row → ``fetch:pointer`` (file, offset, length) → one seek, one read,
one gzip member decompressed. The table also holds the title, text, links and metadata, so
``trawl get --text`` needs no parsing. A record is found by URL, URL hash, DOCNO or
``FILE@OFFSET`` (its place in a WARC file).

Anchor text: when a page is stored, the text of each of its links goes to the *target's* row as
``anchor:<linking page URL>`` (with the words in an ``anchor`` posting list), so a page can be
found by the words others use for it (:meth:`Collection.find_by_anchor`), even before it is
crawled itself. Rows that only hold anchor text are not records: :meth:`Collection.records`
skips them.

Exact duplicates: a payload already stored (same SHA-1, as in ``WARC-Payload-Digest``) is written
again only as a WARC ``revisit`` record (profile identical-payload-digest) whose ``WARC-Refers-To``
names the original record; :meth:`Collection.read` follows it back to the original's bytes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from trawl.config import Config, load_config
from trawl.document import Document, WarcPointer
from trawl.errors import CollectionNotFound, RecordNotFound, StoreError
from trawl.pipeline.base import RunContext, Step
from trawl.pipeline.stats import Stats
from trawl.store.table import Table
from trawl.store.warcfile import IDENTICAL_PAYLOAD, WarcFileWriter, payload_digest, read_record_at
from trawl.urls import surt, url_hash

__all__ = ["Collection", "CollectionWriter", "StoredRecord", "anchor_terms"]

CONFIG_FILE = "trawl.toml"
SUBDIRS = ("warc", "table", "index", "frontier", "stats", "exports")
# How many versions of each family's cells the table keeps (per-family policy).
FAMILY_VERSIONS = {"fetch": 10, "text": 1, "meta": 1, "links": 1, "anchor": 1, "lang": 1}
#: bounds on what one page contributes as anchor text (a link farm must not flood the table)
MAX_ANCHOR_LINKS = 1000
MAX_ANCHOR_CHARS = 500
MAX_ANCHOR_TERMS = 32
_WORD = re.compile(r"\w+")
_POINTER_KEY = re.compile(r"^(?P<file>[^/@]+\.warc(?:\.gz)?)[@:](?P<offset>\d+)$")


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

    def writer(self, *, dedup: bool = True, anchors: bool = True) -> CollectionWriter:
        """The sink stage; ``dedup``: store exact duplicates as revisit records; ``anchors``: add
        each page's anchor texts to its link targets' rows."""
        return CollectionWriter(self, dedup=dedup, anchors=anchors)

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

    def find(self, key: str, *, as_of: datetime | None = None) -> StoredRecord:
        """A record by URL (any spelling with the same SURT), URL hash, SURT key, DOCNO or ``FILE@OFFSET``.

        ``as_of``: the capture that was newest at that time (older versions stay in the table).
        """
        table = self.table
        candidates = [surt(key), key]
        for index in ("hash", "docno", "pointer"):
            row = table.lookup(index, key)
            if row is not None:
                candidates.append(row)
        when = None if as_of is None else _timestamp_us(as_of)
        for row in candidates:
            cells = table.get_row(row, as_of=when)
            if cells.get("fetch", {}).get("capture"):
                return StoredRecord(row, cells)
        if (m := _POINTER_KEY.match(key)) is not None:  # a pointer written before it was indexed
            doc = self.read_at(m["file"], int(m["offset"]))
            return self.find(doc.url, as_of=as_of)
        raise RecordNotFound(
            f"no record for {key!r} in {str(self.path)!r} (tried URL, URL hash, DOCNO, WARC FILE@OFFSET)"
        )

    def read(self, record: StoredRecord) -> Document:
        """The stored capture of ``record``: exactly one WARC record read and decompressed.

        For an exact duplicate (a revisit record), the original's record is read too, and its
        payload becomes the document's ``raw``; the record type stays ``revisit``.
        """
        p = record.pointer
        doc = read_record_at(self.path / "warc" / p.file, p.offset, p.length)
        original = record.revisit_of
        if original is not None:
            q = original["pointer"]
            doc.raw = read_record_at(self.path / "warc" / q["file"], int(q["offset"]), int(q["length"])).raw
        return doc

    def read_at(self, file: str, offset: int, length: int | None = None) -> Document:
        """The one WARC record at ``offset`` of the collection's WARC file ``file``."""
        if "/" in file or file in ("", ".", ".."):
            raise RecordNotFound(f"{file!r} is not the name of a WARC file of {str(self.path)!r}")
        return read_record_at(self.path / "warc" / file, offset, length)

    def records(self, prefix: str = "", *, as_of: datetime | None = None) -> Iterator[StoredRecord]:
        """Every stored record in SURT order (a host's pages together), optionally under a prefix.

        Rows that hold only anchor text from other pages (not crawled themselves) are skipped.
        """
        when = None if as_of is None else _timestamp_us(as_of)
        for row, cells in self.table.scan(prefix=prefix, as_of=when):
            if cells.get("fetch", {}).get("capture"):
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

    def __init__(self, collection: Collection, *, dedup: bool = True, anchors: bool = True) -> None:
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
        self._dedup = dedup
        self._anchors = anchors
        self._payloads: list[tuple[str, dict[str, Any]]] = []

    def _write_capture(self, doc: Document, digest: str) -> tuple[WarcPointer, dict[str, Any] | None]:
        """Write ``doc``'s WARC record: the full response, or a revisit if the payload is stored.

        Returns the record's pointer and, for a revisit, what it refers to.
        """
        table = self.collection.table
        original = None
        if self._dedup and doc.raw and doc.record_type in ("response", "resource"):
            original = table.get_entry("payload", digest)
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
            pointer = self._warc.write(revisit)
            self.count("store/duplicates/exact")
            self.count("store/duplicates/bytes-saved", len(doc.raw))
            return pointer, {"row": original["row"], "pointer": original["pointer"], "record_id": refs[0][1]}
        if not (doc.record_id and doc.record_id.startswith("<urn:") and doc.record_id.endswith(">")):
            doc.record_id = f"<urn:uuid:{uuid.uuid4()}>"  # known before writing, so a revisit can name it
        pointer = self._warc.write(doc)
        if self._dedup and doc.raw and doc.record_type in ("response", "resource"):
            self._payloads.append(
                (
                    digest,
                    {
                        "row": doc.surt,
                        "url": doc.url,
                        "record_id": doc.record_id,
                        "date": (doc.fetched_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "pointer": pointer.as_dict(),
                    },
                )
            )
        return pointer, None

    def _store_anchors(self, doc: Document, ts: int) -> None:
        """Add this page's anchor texts to its link targets' rows (one atomic mutation per target)."""
        by_target: dict[str, list[str]] = {}
        own = doc.surt
        for link in doc.links[:MAX_ANCHOR_LINKS]:
            text = " ".join(link.text.split())[:MAX_ANCHOR_CHARS]
            if not text:
                continue
            target = surt(link.url)
            if target != own and "\x00" not in target:
                by_target.setdefault(target, []).append(text)
        table = self.collection.table
        source = doc.url.replace("\x00", "")
        for target, texts in by_target.items():
            text = " | ".join(dict.fromkeys(texts))[:MAX_ANCHOR_CHARS]
            table.mutate_row(
                target, ts, put={"anchor": {source: text}}, postings={"anchor": anchor_terms(text)}
            )
            self.count("store/anchors")

    def process(self, doc: Document) -> Document:
        table = self.collection.table
        row = doc.surt
        ts = _timestamp_us(doc.fetched_at)
        doc_id = doc.id
        previous = table.versions_of(row, "fetch", "capture")
        if previous and previous[0][0] == ts and previous[0][1].get("id") == doc_id:
            self.count("store/skipped/already-stored")
            return doc
        digest = payload_digest(doc.raw)
        pointer, revisit_of = self._write_capture(doc, digest)
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
        if self._store_text:
            cells["text"] = {"title": doc.title, "text": doc.text}
        if doc.lang is not None:
            cells["lang"] = {"doc": {"lang": doc.lang, "score": doc.lang_score, "passages": doc.passages}}
        table.put_row(row, cells, ts)
        table.put_index("hash", url_hash(doc.url), row)
        table.put_index("pointer", f"{pointer.file}@{pointer.offset}", row)
        if doc.docno:
            table.put_index("docno", doc.docno, row)
        # the payload is findable for dedup only once the row that owns it is committed
        for digest_key, entry in self._payloads:
            table.put_entry("payload", digest_key, entry)
        self._payloads.clear()
        if self._anchors:
            self._store_anchors(doc, ts)
        self.count("store/records")
        self.count("store/warc-bytes", pointer.length)
        return doc

    def close(self) -> None:
        self._warc.close()
        self.collection.table.flush()
