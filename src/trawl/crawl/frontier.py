"""The frontier, after Mercator: prioritised per-host queues, a heap of hosts by next-allowed time,
and every discovered URL in SQLite (WAL) so that a killed crawl resumes without losing one.

Structure (Heydon & Najork, *Mercator: a scalable, extensible web crawler*, 1999)::

    discovered URL ─▶ seen set ─▶ SQLite ``urls`` (state queued, priority)      the front queues
                                     │ refilled by priority, ``window`` at a time
                                     ▼
                       per-host back queue (a heap by priority), in memory
                                     │
                       ready heap of hosts keyed by the time each may next be fetched

* **Front queues** are the SQLite table ordered by priority within a host (an index serves
  ``ORDER BY priority DESC``); only a window of each host's best URLs is held in memory (at
  most ``window``, fewer when there are many hosts: ``memory_urls`` over all hosts), so
  memory stays flat however large the frontier grows.
* **Back queues**: one per host, holding that window; a host is in the **ready heap** only while
  it has queued URLs and nothing in flight, keyed by its next allowed fetch time, so every host
  gets its turn as soon as politeness allows (no host starves, none is hammered).
* **Seen set** (:class:`~trawl.crawl.seen.SeenSet`): 8 bytes a URL, rebuilt from the table on
  resume.
* **Durability**: writes are batched and committed together (every ``commit_every`` seconds or
  before a refill); a page's completion and the links found on it are committed in the same
  transaction. The page itself is written to the collection *before* that commit, so after a
  SIGKILL a queued URL may already be stored: :meth:`Frontier.recover` finds those (the capture's
  ``source`` names the crawl and the fetch number) and replays their links from the collection
  instead of fetching them again. Nothing discovered is lost, nothing is stored twice.
"""

from __future__ import annotations

import contextlib
import heapq
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trawl.crawl.robots import RobotsRules
from trawl.crawl.seen import SeenSet
from trawl.crawl.urlnorm import host_of, url_key
from trawl.errors import DiskError
from trawl.store.disk import disk_error

__all__ = ["DONE", "DROPPED", "QUEUED", "Entry", "Frontier", "Host"]

QUEUED, DONE, DROPPED = 0, 1, 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS urls (
    key INTEGER PRIMARY KEY,
    url TEXT NOT NULL,
    host TEXT NOT NULL,
    state INTEGER NOT NULL DEFAULT 0,
    priority REAL NOT NULL DEFAULT 0,
    depth INTEGER NOT NULL DEFAULT 0,
    hops INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL DEFAULT 'page',
    anchor TEXT NOT NULL DEFAULT '',
    fetches INTEGER NOT NULL DEFAULT 0,
    retries INTEGER NOT NULL DEFAULT 0,
    due REAL NOT NULL DEFAULT 0,
    reason TEXT,
    etag TEXT,
    modified TEXT,
    digest TEXT,
    changes INTEGER NOT NULL DEFAULT 0,
    watched REAL NOT NULL DEFAULT 0,
    last_fetch REAL NOT NULL DEFAULT 0,
    prior REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS urls_queue ON urls (host, priority DESC) WHERE state = 0;
CREATE INDEX IF NOT EXISTS urls_due ON urls (due) WHERE state = 3;
"""
REVISIT = 3  # done, and due for another visit at ``due``

_COLUMNS = (
    "key, url, host, priority, depth, hops, kind, anchor, fetches, retries, due, etag, modified, digest, "
    "changes, watched, last_fetch, prior"
)


@dataclass(slots=True)
class Entry:
    """One queued URL and what the crawl knows about it."""

    key: int
    url: str
    host: str
    priority: float = 0.0
    depth: int = 0
    hops: int = 0  # redirects that led here
    kind: str = "page"  # page | sitemap | feed
    anchor: str = ""
    fetches: int = 0
    retries: int = 0
    due: float = 0.0
    etag: str | None = None
    modified: str | None = None
    digest: str | None = None
    changes: int = 0
    watched: float = 0.0
    last_fetch: float = 0.0
    prior: float = 0.0  # changes a second the site says to expect (a sitemap's changefreq); 0: none

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Entry:
        return cls(*row)


@dataclass(slots=True)
class Host:
    """One host's back queue and politeness state."""

    name: str
    queue: list[tuple[float, int, Entry]] = field(default_factory=list)
    on_disk: int = 0  # queued URLs in SQLite not (yet) in ``queue``
    busy: int = 0  # requests in flight
    next_at: float = 0.0  # monotonic time before which it must not be asked again
    in_ready: bool = False
    robots: RobotsRules | None = None
    robots_at: float = 0.0
    robots_failures: int = 0
    scheme: str = ""  # of the URLs queued for it (robots.txt is fetched with the same scheme)
    fetched: int = 0  # pages fetched (the trap budget counts these)
    errors: int = 0  # back-off level: up one a fault (5xx, 429, network error), down one a success
    faults: int = 0  # faults in a row (a success ends the run)
    given_up: bool = False  # failed too often: not asked again this run, its URLs stay queued
    last_seconds: float = 0.0  # the last response time

    def has_work(self) -> bool:
        return bool(self.queue) or self.on_disk > 0


class Frontier:
    """See the module docstring. ``path=None`` keeps everything in memory (no resume)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        window: int = 64,
        commit_every: float = 0.5,
        memory_urls: int = 50_000,
    ) -> None:
        self.path = path
        #: the commit the disk refused (full, failing): the crawl stops, no later commit is tried
        self.failed: DiskError | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path) if path is not None else ":memory:", isolation_level=None)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(urls)")}
            if "prior" not in columns:  # a frontier written before per-URL priors: the column added
                self.db.execute("ALTER TABLE urls ADD COLUMN prior REAL NOT NULL DEFAULT 0")
        except sqlite3.Error as exc:
            self._refused(exc)
            raise
        self.window = window
        self.memory_urls = memory_urls  # URLs held in back queues over all hosts, roughly
        self.commit_every = commit_every
        self.hosts: dict[str, Host] = {}
        self._ready: list[tuple[float, int, str]] = []  # (next allowed time, seq, host)
        self._eligible: list[tuple[float, int, str]] = []  # (-best priority, seq, host): may go now
        self._seq = 0
        self._inserts: list[tuple[Any, ...]] = []
        self._updates: list[tuple[Any, ...]] = []
        self._last_commit = time.monotonic()
        self.queued = 0  # URLs waiting (memory + disk)
        self.revisits: list[tuple[float, int]] = []  # (due wall time, key)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'crawl_id'").fetchone()
        if row is None:
            self.crawl_id = uuid.uuid4().hex[:12]
            try:
                self.db.execute("INSERT INTO meta VALUES ('crawl_id', ?)", (self.crawl_id,))
            except sqlite3.Error as exc:
                self._refused(exc)
                raise
            self.resumed = False
        else:
            self.crawl_id = str(row[0])
            self.resumed = True
        keys = np.array([r[0] for r in self.db.execute("SELECT key FROM urls")], dtype=np.int64)
        self.seen = SeenSet(keys)
        self._load_state()

    def _refused(self, exc: sqlite3.Error) -> None:
        """Opening failed: close, and raise the :class:`DiskError` behind ``exc`` if there is one."""
        self.db.close()
        if (disk := disk_error(exc, self.path)) is not None:
            raise disk from exc

    # -- state on open -----------------------------------------------------------------------------

    def _load_state(self) -> None:
        for host, count in self.db.execute("SELECT host, COUNT(*) FROM urls WHERE state = 0 GROUP BY host"):
            h = self._host(host)
            h.on_disk = int(count)
            self.queued += int(count)
            self._make_ready(h)
        for host, count in self.db.execute("SELECT host, COUNT(*) FROM urls WHERE fetches > 0 GROUP BY host"):
            self._host(host).fetched = int(count)
        for due, key in self.db.execute("SELECT due, key FROM urls WHERE state = 3"):
            heapq.heappush(self.revisits, (float(due), int(key)))

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- hosts and the ready heap -----------------------------------------------------------------

    def host(self, name: str) -> Host:
        """The state of host ``name`` (created empty on first use)."""
        return self._host(name)

    def scheme_of(self, h: Host) -> str:
        """``http`` or ``https``: how this host's URLs are fetched (from its queue, or SQLite)."""
        if not h.scheme:
            if h.queue:
                h.scheme = h.queue[0][2].url.split(":", 1)[0]
            else:
                self.flush()
                row = self.db.execute("SELECT url FROM urls WHERE host = ? LIMIT 1", (h.name,)).fetchone()
                h.scheme = str(row[0]).split(":", 1)[0] if row else "http"
        return h.scheme

    def _host(self, name: str) -> Host:
        h = self.hosts.get(name)
        if h is None:
            h = self.hosts[name] = Host(sys.intern(name))
        return h

    def host_name(self, name: str) -> str:
        """One shared string per host name (every queued URL of a host points at it)."""
        h = self.hosts.get(name)
        return h.name if h is not None else name

    def _window(self) -> int:
        """A host's back-queue size: ``window``, shrunk so that all hosts together hold about
        ``memory_urls`` (never below 4): memory stays flat as the crawl meets more hosts."""
        return max(4, min(self.window, self.memory_urls // max(1, len(self.hosts))))

    def _make_ready(self, h: Host) -> None:
        if not h.in_ready and h.busy == 0 and h.has_work() and not h.given_up:
            h.in_ready = True
            self._seq += 1
            heapq.heappush(self._ready, (h.next_at, self._seq, h.name))

    def release(self, h: Host) -> None:
        """A request to ``h`` finished; it may be asked again from ``h.next_at``."""
        h.busy -= 1
        self._make_ready(h)

    def give_up(self, h: Host) -> None:
        """Ask ``h`` nothing more in this run: it leaves the ready heap (once its request in
        flight ends) while its URLs stay queued, in memory and in SQLite, for a later run or
        ``--resume`` (a new :class:`Frontier` knows nothing of this)."""
        h.given_up = True

    def requeue_host(self, h: Host) -> None:
        """Put a host whose turn was taken back in the heap (its ``next_at`` may have moved)."""
        self._make_ready(h)

    def next_host(self, now: float) -> tuple[Host | None, float]:
        """The host whose turn it is, marked busy; or ``None`` and how long to wait for one.

        Hosts whose time has come move from the time heap to the *eligible* heap, ordered by the
        priority of their best queued URL, so that among the hosts politeness allows now, the one
        holding the most valuable URL goes first (the front queues' bias, across hosts).
        """
        ready, eligible = self._ready, self._eligible
        while ready and ready[0][0] <= now:
            _, _, name = heapq.heappop(ready)
            h = self.hosts[name]
            h.in_ready = False
            if h.busy or not h.has_work() or h.given_up:
                continue
            if h.next_at > now:  # politeness moved since it was queued
                self._make_ready(h)
                continue
            best = -h.queue[0][0] if h.queue else 0.0
            self._seq += 1
            heapq.heappush(eligible, (-best, self._seq, name))
            h.in_ready = True
        while eligible:
            _, _, name = heapq.heappop(eligible)
            h = self.hosts[name]
            h.in_ready = False
            if h.busy or not h.has_work() or h.given_up:
                continue
            h.busy += 1
            return h, 0.0
        if ready:
            return None, ready[0][0] - now
        return None, float("inf")

    @property
    def ready_hosts(self) -> int:
        return len(self._ready) + len(self._eligible)

    # -- adding ------------------------------------------------------------------------------------

    def add(
        self,
        url: str,
        *,
        priority: float = 0.0,
        depth: int = 0,
        hops: int = 0,
        kind: str = "page",
        anchor: str = "",
        key: int | None = None,
    ) -> bool:
        """Queue a normalised URL unless it was seen before; True if it is new."""
        if key is None:
            key = url_key(url)
        if not self.seen.add(key):
            return False
        self._insert(Entry(key, url, host_of(url), priority, depth, hops, kind, anchor[:300]))
        return True

    def add_many(self, entries: list[Entry]) -> int:
        """Queue several entries (one vectorised seen-set probe); how many were new."""
        fresh = self.seen.add_many([e.key for e in entries])
        n = 0
        for entry, new in zip(entries, fresh, strict=True):
            if new:
                self._insert(entry)
                n += 1
        return n

    def _insert(self, e: Entry) -> None:
        self._inserts.append(
            (
                e.key,
                e.url,
                e.host,
                QUEUED,
                e.priority,
                e.depth,
                e.hops,
                e.kind,
                e.anchor,
                e.fetches,
                e.retries,
                e.due,
                e.prior,
            )
        )
        self.queued += 1
        h = self._host(e.host)
        if not h.scheme:
            h.scheme = e.url.split(":", 1)[0]
        if len(h.queue) < self._window() and h.on_disk == 0:
            self._seq += 1
            heapq.heappush(h.queue, (-e.priority, self._seq, e))
        else:
            h.on_disk += 1
        self._make_ready(h)

    # -- taking ------------------------------------------------------------------------------------

    def pop(self, h: Host) -> Entry | None:
        """The best queued URL of ``h`` (refilling its window from SQLite when it is empty)."""
        if not h.queue and h.on_disk:
            self._refill(h)
        if not h.queue:
            return None
        entry = heapq.heappop(h.queue)[2]
        self.queued -= 1
        return entry

    def _refill(self, h: Host) -> None:
        self.flush()
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM urls WHERE host = ? AND state = 0 ORDER BY priority DESC LIMIT ?",
            (h.name, self._window()),
        ).fetchall()
        for row in rows:
            e = Entry.from_row(row)
            self._seq += 1
            heapq.heappush(h.queue, (-e.priority, self._seq, e))
        h.on_disk = max(0, h.on_disk - len(rows))
        if not rows:
            h.on_disk = 0

    def push_back(self, h: Host, e: Entry) -> None:
        """Return an entry to its host's queue (a retry, or a URL taken but not fetched)."""
        self._seq += 1
        heapq.heappush(h.queue, (-e.priority, self._seq, e))
        self.queued += 1
        self._updates.append(("UPDATE urls SET retries = ? WHERE key = ?", (e.retries, e.key)))

    # -- finishing ---------------------------------------------------------------------------------

    def finish(self, e: Entry, state: int, reason: str | None = None) -> None:
        """Record what became of a taken URL (``DONE``, ``DROPPED`` or ``REVISIT`` at ``e.due``)."""
        self._updates.append(
            (
                "UPDATE urls SET state = ?, reason = ?, fetches = ?, retries = ?, due = ?, etag = ?, "
                "modified = ?, "
                "digest = ?, changes = ?, watched = ?, last_fetch = ?, prior = ?, kind = ? WHERE key = ?",
                (
                    state,
                    reason,
                    e.fetches,
                    e.retries,
                    e.due,
                    e.etag,
                    e.modified,
                    e.digest,
                    e.changes,
                    e.watched,
                    e.last_fetch,
                    e.prior,
                    e.kind,  # a page found to be a sitemap or feed keeps that kind
                    e.key,
                ),
            )
        )
        if state == REVISIT:
            heapq.heappush(self.revisits, (e.due, e.key))

    def due_revisits(self, now_wall: float) -> int:
        """Move revisits whose time has come back into their hosts' queues."""
        moved = 0
        while self.revisits and self.revisits[0][0] <= now_wall:
            _, key = heapq.heappop(self.revisits)
            self.flush()
            # (due <= now: an entry taken back early, by requeue, and due again later left
            # this item behind)
            row = self.db.execute(
                f"SELECT {_COLUMNS} FROM urls WHERE key = ? AND state = 3 AND due <= ?", (key, now_wall)
            ).fetchone()
            if row is None:
                continue
            self._enqueue(Entry.from_row(row))
            moved += 1
        return moved

    def _enqueue(self, e: Entry) -> None:
        """A fetched URL back in its host's queue (state queued again)."""
        self._write("UPDATE urls SET state = 0 WHERE key = ?", (e.key,))
        h = self._host(e.host)
        self._seq += 1
        heapq.heappush(h.queue, (-e.priority, self._seq, e))
        self.queued += 1
        self._make_ready(h)

    def next_revisit(self) -> float | None:
        return self.revisits[0][0] if self.revisits else None

    def fetched(self, keys: Iterable[int]) -> list[Entry]:
        """The entries among ``keys`` fetched before and not queued now (done, or waiting for a
        revisit): those a hint saying "changed since" can send back to the queue."""
        self.flush()
        wanted = list(keys)
        out = []
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out += [
                Entry.from_row(row)
                for row in self.db.execute(
                    f"SELECT {_COLUMNS} FROM urls WHERE key IN ({marks}) AND fetches > 0 "
                    f"AND state IN ({DONE}, {REVISIT})",
                    chunk,
                )
            ]
        return out

    def requeue(self, e: Entry, priority: float | None = None) -> None:
        """Queue a fetched URL (one of :meth:`fetched`, or of :meth:`kind_done`) again now, at
        ``priority`` if given."""
        self.flush()
        if priority is not None:
            e.priority = priority
            self._write("UPDATE urls SET priority = ? WHERE key = ?", (priority, e.key))
        self._enqueue(e)

    def kind_done(self, kinds: tuple[str, ...], before: float) -> list[Entry]:
        """Every URL of these kinds (``sitemap``, ``feed``) fetched and done (not waiting for a
        revisit), last fetched before wall time ``before``, for a new run to read again."""
        self.flush()
        marks = ",".join("?" * len(kinds))
        return [
            Entry.from_row(row)
            for row in self.db.execute(
                f"SELECT {_COLUMNS} FROM urls WHERE kind IN ({marks}) AND state = {DONE} AND fetches > 0 "
                "AND last_fetch < ?",
                (*kinds, before),
            )
        ]

    # -- durability --------------------------------------------------------------------------------

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        """One statement committed at once (outside :meth:`flush`'s batches), a refusal of the
        disk said as :meth:`flush` says it."""
        if self.failed is not None:
            raise self.failed
        try:
            self.db.execute(sql, args)
        except sqlite3.Error as exc:
            if (disk := disk_error(exc, self.path)) is None:
                raise
            self.failed = disk
            raise disk from exc

    def maybe_flush(self) -> None:
        if time.monotonic() - self._last_commit >= self.commit_every:
            self.flush()

    def flush(self) -> None:
        """Commit buffered inserts and updates in one transaction."""
        if not self._inserts and not self._updates:
            self._last_commit = time.monotonic()
            return
        if self.failed is not None:
            raise self.failed  # the disk refused a commit: nothing more is committed in this run
        db = self.db
        try:
            db.execute("BEGIN")
            if self._inserts:
                db.executemany(
                    "INSERT OR IGNORE INTO urls (key, url, host, state, priority, depth, hops, kind, anchor, "
                    "fetches, retries, due, prior) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    self._inserts,
                )
            # consecutive updates of one kind go to SQLite as one executemany (same order kept)
            i = 0
            updates = self._updates
            while i < len(updates):
                j = i
                while j < len(updates) and updates[j][0] == updates[i][0]:
                    j += 1
                db.executemany(updates[i][0], [args for _, args in updates[i:j]])
                i = j
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            # a full or failing disk: what was committed before stays (the pages marked done
            # since are in the collection, found again by recover() on resume)
            if isinstance(exc, Exception) and (disk := disk_error(exc, self.path)) is not None:
                self.failed = disk
                raise disk from exc
            raise
        self._inserts.clear()
        self._updates.clear()
        self._last_commit = time.monotonic()

    def queued_entries(self) -> Iterator[Entry]:
        """Every queued URL in SQLite (after a flush), for recovery on resume."""
        self.flush()
        for row in self.db.execute(f"SELECT {_COLUMNS} FROM urls WHERE state = 0").fetchall():
            yield Entry.from_row(row)

    def mark_recovered(self, entries: Iterable[Entry]) -> int:
        """URLs found already stored on resume: done, and out of their hosts' queues."""
        n = 0
        for e in entries:
            self.finish(e, DONE, "recovered")
            n += 1
            h = self._host(e.host)
            before = len(h.queue)
            h.queue = [item for item in h.queue if item[2].key != e.key]
            heapq.heapify(h.queue)
            if len(h.queue) == before:
                h.on_disk = max(0, h.on_disk - 1)
            self.queued -= 1
        self.flush()
        return n

    def counts(self) -> dict[str, int]:
        """URLs by state, as committed (after a flush, unless the disk refused one)."""
        if self.failed is None:
            self.flush()
        out = {"queued": 0, "done": 0, "dropped": 0, "revisit": 0}
        names = {QUEUED: "queued", DONE: "done", DROPPED: "dropped", REVISIT: "revisit"}
        for state, count in self.db.execute("SELECT state, COUNT(*) FROM urls GROUP BY state"):
            out[names.get(int(state), str(state))] = int(count)
        return out

    def close(self) -> None:
        if self.failed is None:
            self.flush()
        self.db.close()
