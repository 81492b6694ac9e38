"""The browser's side index: one SQLite row per stored URL, with FTS5 over title and text.

The collection's table is keyed by SURT row and answers "this URL" and "this host's rows" fast,
but not "German PDFs fetched last week" or a word in the text; a per-request scan of 100,000 rows
takes seconds. So ``trawl serve`` keeps ``<collection>/web/index.sqlite``: a ``docs`` table
(key, URL, host, title, language, format, status, date, size, duplicate cluster) with an index per
filter, and an FTS5 table over title and text.

Freshness: the index stores the collection's *generation marker* (the names, sizes and times of
its run statistics files and WARC files: every ingest, crawl and dedup run saves a statistics
file at its end, and a crawl grows its WARC files as it goes). When the marker changed, a refresh
scans the rows and rewrites only those whose signature (capture id, time, duplicate cell)
changed, and deletes the rows gone. ``trawl serve`` refreshes on start and, when a request finds
the marker changed, in a background thread while the old index goes on answering. A collection
that a running ``trawl crawl``/``ingest`` holds (RocksDB lets one process open it) is left as
indexed, and the refresh retried on a later request.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from trawl.errors import StoreError
from trawl.store.collection import PARTITIONS, Collection
from trawl.urls import url_hash

__all__ = ["INDEX_FILE", "DocFilter", "DocIndex", "generation_marker"]

INDEX_FILE = Path("web") / "index.sqlite"
#: bump when the schema changes: an index of another version is rebuilt
SCHEMA_VERSION = 1
#: the most characters of a document's text that full-text search indexes
FTS_CHARS = 200_000
#: a stale index is refreshed at most this often (seconds) while a request finds it stale
CHECK_EVERY = 2.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  row TEXT NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  title TEXT NOT NULL,
  lang TEXT NOT NULL,
  format TEXT NOT NULL,
  status INTEGER,
  fetched_at TEXT NOT NULL,
  size INTEGER NOT NULL,
  dup TEXT NOT NULL,
  dup_size INTEGER NOT NULL,
  sig TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_row ON docs(row);
CREATE INDEX IF NOT EXISTS docs_url ON docs(url);
CREATE INDEX IF NOT EXISTS docs_host ON docs(host, row);
CREATE INDEX IF NOT EXISTS docs_lang ON docs(lang, row);
CREATE INDEX IF NOT EXISTS docs_format ON docs(format, row);
CREATE INDEX IF NOT EXISTS docs_status ON docs(status, row);
CREATE INDEX IF NOT EXISTS docs_date ON docs(fetched_at);
CREATE INDEX IF NOT EXISTS docs_dup ON docs(dup, row);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body);
"""

#: the columns a listing returns, in order
COLUMNS = ("key", "url", "host", "title", "lang", "format", "status", "fetched_at", "size", "dup", "dup_size")


def generation_marker(collection: Path) -> str:
    """A digest that changes whenever a run changed the collection (cheap: two directory listings,
    and each partition's marker: a distributed crawl's shards write ``partitions/<name>/``)."""
    h = hashlib.blake2b(digest_size=12)
    for sub, pattern in (("stats", ".json"), ("warc", "")):
        try:
            entries = sorted(os.scandir(collection / sub), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.endswith(pattern) and e.is_file():
                st = e.stat()
                h.update(f"{sub}/{e.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    try:
        partitions = sorted(e.name for e in os.scandir(collection / PARTITIONS) if e.is_dir())
    except OSError:
        partitions = []
    for name in partitions:
        h.update(f"{PARTITIONS}/{name}:{generation_marker(collection / PARTITIONS / name)}\n".encode())
    return h.hexdigest()


@dataclass(slots=True)
class DocFilter:
    """What ``/docs`` filters by; empty fields do not filter."""

    host: str = ""
    prefix: str = ""
    lang: str = ""
    format: str = ""
    status: str = ""
    date_from: str = ""
    date_to: str = ""
    dup: str = ""
    q: str = ""

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition on ``docs`` (aliased ``d``) and its parameters."""
        conds: list[str] = []
        params: list[Any] = []
        for column, value in (("host", self.host), ("lang", self.lang), ("format", self.format)):
            if value:
                conds.append(f"d.{column} = ?")
                params.append(value)
        if self.status:
            if self.status.isdigit():
                conds.append("d.status = ?")
                params.append(int(self.status))
            else:  # "none": a record without an HTTP status (a local file)
                conds.append("d.status IS NULL")
        if self.prefix:
            conds.append("d.url >= ? AND d.url < ?")
            params += [self.prefix, self.prefix + "\U0010ffff"]
        if self.date_from:
            conds.append("d.fetched_at >= ?")
            params.append(self.date_from)
        if self.date_to:
            conds.append("d.fetched_at <= ?")
            params.append(self.date_to + "~")  # "~" sorts after any time of that day
        if self.dup == "any":
            conds.append("d.dup_size > 1")
        elif self.dup == "none":
            conds.append("d.dup_size <= 1")
        elif self.dup:
            conds.append("d.dup = ?")
            params.append(self.dup)
        if self.q:
            conds.append("d.id IN (SELECT rowid FROM fts WHERE fts MATCH ?)")
            params.append(fts_query(self.q))
        return (" WHERE " + " AND ".join(conds)) if conds else "", params

    def as_dict(self) -> dict[str, str]:
        return {
            "host": self.host,
            "prefix": self.prefix,
            "lang": self.lang,
            "format": self.format,
            "status": self.status,
            "from": self.date_from,
            "to": self.date_to,
            "dup": self.dup,
            "q": self.q,
        }


def fts_query(q: str) -> str:
    """A user's words as an FTS5 query: each word a quoted phrase (so ``AND``, ``*``, ``"`` and
    column names typed by a user are words, never syntax), all of them required."""
    words = [w.replace('"', '""') for w in q.split() if w.strip('"')]
    return " ".join(f'"{w}"' for w in words) or '""'


def _host_of(url: str) -> str:
    parts = urlsplit(url)
    return (parts.hostname or "") if parts.scheme not in ("file", "") else f"{parts.scheme}:"


def _row_of(record: Any) -> tuple[Any, ...]:
    """The ``docs`` values of a :class:`StoredRecord`, its signature last."""
    capture = record.capture
    dup = record.cells.get("dup", {}).get("cluster") or {}
    declared = str(capture.get("declared_type") or "").split(";", 1)[0].strip().lower()
    fmt = str(capture.get("sniffed_type") or declared or "unknown")
    lang = str(record.cells.get("lang", {}).get("doc", {}).get("lang") or "")
    url = record.url
    status = capture.get("status")
    sig = hashlib.blake2b(
        orjson.dumps([capture.get("id"), capture.get("fetched_at"), dup, record.title, lang]),
        digest_size=8,
    ).hexdigest()
    return (
        url_hash(url),
        record.row,
        url,
        _host_of(url),
        record.title,
        lang,
        fmt,
        int(status) if isinstance(status, int) else None,
        str(capture.get("fetched_at") or ""),
        int(capture.get("length") or 0),
        str(dup.get("representative") or ""),
        int(dup.get("size") or 1),
        sig,
    )


class DocIndex:
    """The side index of one collection directory (see the module's docstring)."""

    def __init__(self, collection: Path, lock: threading.Lock | None = None) -> None:
        self.collection = Path(collection)
        #: held while the collection is open: RocksDB lets one handle per process open it
        self.collection_lock = lock or threading.Lock()
        self.path = self.collection / INDEX_FILE
        self._refresh_lock = threading.Lock()
        self._checked = 0.0
        #: why the last refresh could not run (the collection busy, unreadable), or ""
        self.note = ""
        #: :meth:`summary`'s answer (its group-bys take ~70 ms at 100,000 rows) until a refresh
        self._summary: dict[str, Any] | None = None
        #: why the collection must not be opened now (a job started by the server writes it), or
        #: "": asked with :attr:`collection_lock` held, before every open
        self.hold: Callable[[], str] = lambda: ""
        self._prepare()

    def _prepare(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.connect() as db:
            version = None
            try:
                found = db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
                version = found[0] if found else None
            except sqlite3.OperationalError:
                pass
            if version is not None and version != str(SCHEMA_VERSION):
                db.executescript(
                    "DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS meta;"
                )
            db.executescript(_SCHEMA)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection of its own (one per request thread), committed on success."""
        with closing(sqlite3.connect(self.path, timeout=30)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                yield db

    @contextmanager
    def opened(self) -> Iterator[Collection]:
        """The collection, opened for the server (hold :attr:`collection_lock`): refused with
        :class:`~trawl.errors.StoreError` while :attr:`hold` says why it must not be."""
        if why := self.hold():
            raise StoreError(why)
        with Collection.open(self.collection) as coll:
            yield coll

    def stored_marker(self) -> str:
        with self.connect() as db:
            found = db.execute("SELECT value FROM meta WHERE name = 'marker'").fetchone()
        return str(found[0]) if found else ""

    def stale(self) -> bool:
        return generation_marker(self.collection) != self.stored_marker()

    def refresh(self, *, force: bool = False) -> dict[str, int]:
        """Bring the index up to date with the collection; counts of rows ``added``,
        ``updated``, ``removed`` and ``scanned``. Raises what opening the collection raises
        (:class:`~trawl.errors.StoreError` when another process holds it)."""
        with self._refresh_lock:
            marker = generation_marker(self.collection)
            counts = {"scanned": 0, "added": 0, "updated": 0, "removed": 0}
            if not force and marker == self.stored_marker():
                return counts
            with self.connect() as db:
                known = {k: (i, s) for k, i, s in db.execute("SELECT key, id, sig FROM docs")}
                seen: set[str] = set()
                with self.collection_lock, self.opened() as coll:
                    for record in coll.records():
                        values = _row_of(record)
                        key, sig = values[0], values[-1]
                        if key in seen:
                            continue
                        seen.add(key)
                        counts["scanned"] += 1
                        old = known.get(key)
                        if old is not None and old[1] == sig:
                            continue
                        if old is not None:
                            db.execute("DELETE FROM docs WHERE id = ?", (old[0],))
                            db.execute("DELETE FROM fts WHERE rowid = ?", (old[0],))
                        cur = db.execute(
                            f"INSERT INTO docs({', '.join((*COLUMNS[:1], 'row', *COLUMNS[1:], 'sig'))}) "
                            f"VALUES ({', '.join('?' * len(values))})",
                            values,
                        )
                        db.execute(
                            "INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)",
                            (cur.lastrowid, record.title, record.text[:FTS_CHARS]),
                        )
                        counts["updated" if old is not None else "added"] += 1
                for key, (ident, _sig) in known.items():
                    if key not in seen:
                        db.execute("DELETE FROM docs WHERE id = ?", (ident,))
                        db.execute("DELETE FROM fts WHERE rowid = ?", (ident,))
                        counts["removed"] += 1
                db.execute("INSERT OR REPLACE INTO meta VALUES ('marker', ?)", (marker,))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('refreshed', ?)", (str(time.time()),))
            self.note = ""
            self._summary = None
            return counts

    def refresh_if_stale(self) -> None:
        """Start a background refresh when the collection changed (checked at most every
        :data:`CHECK_EVERY` seconds); the current index goes on answering meanwhile."""
        now = time.monotonic()
        if now - self._checked < CHECK_EVERY or self._refresh_lock.locked():
            return
        self._checked = now
        if not self.stale():
            return
        threading.Thread(target=self._refresh_quietly, name="trawl-web-index", daemon=True).start()

    def refresh_now(self) -> bool:
        """:meth:`refresh`, but a collection that cannot be read now (a run holds it, it is
        damaged) leaves the index as it is, with :attr:`note` saying why; whether it refreshed."""
        try:
            self.refresh()
        except Exception as exc:  # served as indexed, said on the page
            self.note = f"the index could not be refreshed (shown as last indexed): {exc}"
            return False
        return True

    def _refresh_quietly(self) -> None:
        self.refresh_now()

    # -- queries -------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Counts: documents, hosts, languages, formats, statuses, bytes, date range."""
        if self._summary is None:
            self._summary = self._count()
        return self._summary

    def _count(self) -> dict[str, Any]:
        with self.connect() as db:
            docs, size, first, last = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(size), 0), MIN(NULLIF(fetched_at, '')), MAX(fetched_at) "
                "FROM docs"
            ).fetchone()

            def counts(column: str, limit: int = 50) -> list[list[Any]]:
                return [
                    [value, n]
                    for value, n in db.execute(
                        f"SELECT {column}, COUNT(*) AS n FROM docs GROUP BY {column} "
                        f"ORDER BY n DESC, {column} LIMIT ?",
                        (limit,),
                    )
                ]

            hosts = db.execute("SELECT COUNT(DISTINCT host) FROM docs").fetchone()[0]
            clusters = db.execute("SELECT COUNT(DISTINCT dup) FROM docs WHERE dup_size > 1").fetchone()[0]
            in_clusters = db.execute("SELECT COUNT(*) FROM docs WHERE dup_size > 1").fetchone()[0]
            return {
                "documents": docs,
                "bytes": size,
                "hosts": hosts,
                "first_fetched": first,
                "last_fetched": last,
                "top_hosts": counts("host", 20),
                "languages": counts("lang"),
                "formats": counts("format"),
                "statuses": [["none" if s is None else s, n] for s, n in counts("status")],
                "duplicate_clusters": clusters,
                "documents_in_clusters": in_clusters,
            }

    def documents(
        self, flt: DocFilter, *, page: int = 1, per_page: int = 50
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of the documents ``flt`` selects, in SURT order (a host's pages together),
        and how many it selects in all."""
        where, params = flt.where()
        with self.connect() as db:
            total = db.execute(f"SELECT COUNT(*) FROM docs d{where}", params).fetchone()[0]
            cols = ", ".join(f"d.{c}" for c in COLUMNS)
            rows = db.execute(
                f"SELECT {cols} FROM docs d{where} ORDER BY d.row LIMIT ? OFFSET ?",
                [*params, per_page, (max(1, page) - 1) * per_page],
            ).fetchall()
        return [dict(zip(COLUMNS, r, strict=True)) for r in rows], int(total)

    def count(self) -> int:
        with self.connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM docs").fetchone()[0])
