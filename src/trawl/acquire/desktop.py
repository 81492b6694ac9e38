"""A desktop crawl that stays in step with the disk: incremental re-ingest, deletions, renames.

The state (:class:`FileState`, ``frontier/desktop.sqlite`` in the collection) remembers, for each
file path read before: size, ``mtime_ns``, ``ctime_ns``, inode and device, the SHA-1 of its bytes
(the WARC payload digest), its URL (its row) and who may read it. On the next run
(:class:`ChangeTracker`, consulted by :class:`~trawl.acquire.localdir.LocalDirSource`):

- same size, ``mtime_ns``, inode and device: **unchanged**, never opened (``local/unchanged``);
  a changed ``ctime`` alone (chmod, chown, an ACL) re-reads who may read it (from ``stat`` and
  the ACL attribute, still without opening the file) and, if that changed, writes it to the row
  (``local/access-changed``);
- otherwise the file is read and hashed: the same bytes (a ``touch``) give no new version
  (``local/unchanged-content``), other bytes a new capture (``local/changed``);
- a path not in the state is **new** (``local/new``), unless a file that vanished in this run had
  the same inode and bytes, or the same bytes: then it was **renamed** (``local/renamed``), the
  new path's row is written and the old row gets a tombstone naming the new URL;
- a path in the state under the walked roots that the walk did not find is **deleted**
  (``local/deleted``): its row gets a tombstone, a new version whose capture says
  ``record_type = "deleted"``. Only a walk that ran to the end decides deletions, and nothing is
  decided under a folder that could not be listed or a file that could not be stat-ed.

The state is written after the row: a file whose conversion or storing failed is read again on
the next run. A capture's time is the file's mtime (whole seconds, as before), moved one second
past the row's newest version when that is not older, so versions stay in order.
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from trawl.acquire.access import access_of
from trawl.document import Document
from trawl.errors import StoreError
from trawl.pipeline.base import RunContext
from trawl.store.disk import disk_error
from trawl.store.warcfile import payload_digest

__all__ = [
    "STATE_FILE",
    "ChangeTracker",
    "ChangeWatcher",
    "DesktopRows",
    "FileEntry",
    "FileState",
]

#: where a collection keeps its desktop crawl state
STATE_FILE = Path("frontier") / "desktop.sqlite"
_LOCAL = "_local"  # private metadata key: what the state records once the document is stored
_COMMIT_EVERY = 1000

Verdict = Literal["unchanged", "read", "new"]


class DesktopRows(Protocol):
    """What the tracker needs of the collection (a :class:`~trawl.store.collection.Collection`)."""

    def newest_capture(self, url: str) -> dict[str, Any] | None: ...

    def mark_deleted(
        self, url: str, *, path: str, moved_to: str | None = None, reason: str | None = None
    ) -> bool: ...

    def update_access(self, url: str, access: dict[str, Any]) -> bool: ...

    def retire_stale_units(self, url: str) -> int: ...


@dataclass(slots=True)
class FileEntry:
    """What the state remembers of one file."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int
    digest: str | None = None  # None: read but not stored (dropped: empty, unreadable...)
    url: str | None = None
    access: dict[str, Any] | None = None

    @classmethod
    def of(cls, path: str, st: os.stat_result, **rest: Any) -> FileEntry:
        return cls(path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, **rest)

    def same_bytes_by_stat(self, st: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.ino, self.dev) == (
            st.st_size,
            st.st_mtime_ns,
            st.st_ino,
            st.st_dev,
        )


def _db_path(path: str) -> str | bytes:
    """``path`` as the state's key: its text, or for a name with bytes the file system's encoding
    cannot decode (Python's surrogates, which SQLite's UTF-8 refuses) its exact bytes, a BLOB."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogatepass")
    return path


class FileState:
    """path → :class:`FileEntry`, in SQLite (WAL), committed every thousand changes and on
    :meth:`commit`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,"
                " ctime_ns INTEGER, ino INTEGER, dev INTEGER, digest TEXT, url TEXT, access TEXT)"
            )
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise disk_error(exc, self.path) or StoreError(
                f"cannot open the desktop crawl state {str(self.path)!r}: {exc}"
            ) from exc
        self._pending = 0
        self._rows: dict[str, tuple[Any, ...]] | None = None

    @staticmethod
    def _entry(row: tuple[Any, ...]) -> FileEntry:
        path, size, mtime_ns, ctime_ns, ino, dev, digest, url, access = row
        return FileEntry(
            path, size, mtime_ns, ctime_ns, ino, dev, digest, url, json.loads(access) if access else None
        )

    def _load(self) -> dict[str, tuple[Any, ...]]:
        # One read of the whole state the first time it is asked (one query instead of one a
        # file: the unchanged re-ingest of a large tree is mostly these look-ups).
        if self._rows is None:
            rows = self._db.execute("SELECT * FROM files")
            self._rows = {}
            for stored in rows:
                row = stored
                if isinstance(row[0], bytes):  # a name with undecodable bytes (see _db_path)
                    row = (row[0].decode("utf-8", "surrogatepass"), *row[1:])
                self._rows[row[0]] = row
        return self._rows

    def get(self, path: str) -> FileEntry | None:
        row = self._load().get(path)
        return None if row is None else self._entry(row)

    def url_and_ctime(self, path: str) -> tuple[str | None, int] | None:
        """The URL and ``ctime_ns`` of ``path``'s entry, without building it."""
        row = self._load().get(path)
        return None if row is None else (row[7], row[3])

    def same_by_stat(self, path: str, st: os.stat_result) -> bool | None:
        """Whether ``path``'s entry has ``st``'s size, mtime_ns, inode and device (None: no
        entry), without building the entry."""
        row = self._load().get(path)
        if row is None:
            return None
        size, mtime_ns, ino, dev = row[1], row[2], row[4], row[5]
        return bool((size, mtime_ns, ino, dev) == (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev))

    def put(self, e: FileEntry) -> None:
        access = json.dumps(e.access, sort_keys=True) if e.access is not None else None
        row = (e.path, e.size, e.mtime_ns, e.ctime_ns, e.ino, e.dev, e.digest, e.url, access)
        self._db.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (_db_path(e.path), *row[1:])
        )
        if self._rows is not None:
            self._rows[e.path] = row
        self._changed()

    def delete(self, path: str) -> None:
        self._db.execute("DELETE FROM files WHERE path = ?", (_db_path(path),))
        if self._rows is not None:
            self._rows.pop(path, None)
        self._changed()

    def under(self, root: str, skip: Container[str] = ()) -> Iterator[FileEntry]:
        """The entries of ``root`` itself and of every path below it, but those in ``skip``."""
        prefix = root.rstrip(os.sep) + os.sep
        for path, row in sorted(self._load().items()):
            if (path == root or path.startswith(prefix)) and path not in skip:
                yield self._entry(row)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM files").fetchone()[0])

    def _changed(self) -> None:
        self._pending += 1
        if self._pending >= _COMMIT_EVERY:
            self.commit()

    def commit(self) -> None:
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:  # the files it names are stored: a re-run finds them so
            raise disk_error(exc, self.path) or StoreError(
                f"cannot commit the desktop crawl state {str(self.path)!r}: {exc}"
            ) from exc
        self._db.execute("BEGIN")
        self._pending = 0

    def close(self) -> None:
        try:
            if self._db.in_transaction:  # not after a commit the disk refused (rolled back)
                self._db.execute("COMMIT")
        finally:
            self._db.close()


def _key(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    # the walk's paths are joined onto an absolute root already: normalising them again is waste
    return text if os.path.isabs(text) and "/." not in text and "//" not in text else os.path.abspath(text)


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def _when(capture: dict[str, Any]) -> datetime | None:
    value = capture.get("fetched_at")
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


class ChangeTracker:
    """Decides, for one pass of a walk, which files to read and which rows to mark; see the
    module docstring. One tracker per pass; the :class:`FileState` outlives it."""

    def __init__(self, state: FileState, rows: DesktopRows) -> None:
        self.state = state
        self.rows = rows
        self.interrupted = False  # the walk stopped early: it decides no deletions
        self._seen: set[str] = set()
        self._keep: list[str] = []  # folders not listed and files not stat-ed: their entries stay
        self._live_urls: set[str] = set()
        self._vanished: dict[str, FileEntry] = {}
        self._by_inode: dict[tuple[int, int], FileEntry] = {}
        self._by_digest: dict[str, list[FileEntry]] = {}
        self._moves: dict[str, FileEntry] = {}  # new URL -> the entry it was moved from
        self._rewritten: set[str] = set()  # changed files stored again: their old units may be gone
        self._walked = False
        # folder -> the walk made of it to find its archives, and what that walk counted: the
        # reader replays it rather than walking the folder twice
        self._prewalks: dict[str, tuple[list[tuple[Path, os.stat_result]], RunContext]] = {}

    def remember_walk(self, folder: Path, files: list[tuple[Path, os.stat_result]], ctx: RunContext) -> None:
        self._prewalks[_key(folder)] = (files, ctx)

    def take_walk(self, folder: Path, ctx: RunContext) -> list[tuple[Path, os.stat_result]] | None:
        """The walk of ``folder`` made already in this pass (its counters and drops added to
        ``ctx``), once; None when there is none."""
        found = self._prewalks.pop(_key(folder), None)
        if found is None:
            return None
        files, counted = found
        ctx.stats.merge(counted.stats)
        for entry in counted.audit.entries:
            ctx.audit.record(entry)
        return files

    # -- during the walk -------------------------------------------------------------------------

    def check(self, ctx: RunContext, path: Path, st: os.stat_result) -> Verdict:
        """``unchanged`` (skip; only ``stat`` was spent), ``read`` (the file changed: read it and
        hand it to :meth:`examine`) or ``new`` (read it after the walk, when renames are known)."""
        key = _key(path)
        self._seen.add(key)
        same = self.state.same_by_stat(key, st)
        if same is None:
            return "new"
        if not same:
            return "read"
        url, ctime_ns = self.state.url_and_ctime(key) or (None, 0)
        entry = self.state.get(key) if ctime_ns != st.st_ctime_ns else None
        if entry is not None and entry.digest is None:
            return "read"  # dropped before (unreadable, say): a chmod may have changed that
        if url:
            self._live_urls.add(url)
        ctx.stats.inc("local/unchanged")
        if entry is not None:  # ctime alone changed (chmod, chown, an ACL): who may read it, not its bytes
            access = access_of(st, key) if entry.access is not None else None
            changed = access is not None and access != entry.access and entry.url
            if changed and entry.url and access is not None and self.rows.update_access(entry.url, access):
                ctx.stats.inc("local/access-changed")
            entry.ctime_ns, entry.access = st.st_ctime_ns, access
            self.state.put(entry)
        return "unchanged"

    def known(self, path: Path, st: os.stat_result) -> bool:
        """Whether ``path`` is a file stored before and unchanged by ``stat`` (so the archive sniff
        of a folder need not open it either); counts and marks nothing."""
        return bool(self.state.same_by_stat(_key(path), st))

    def keep(self, path: Path) -> None:
        """``path`` (a folder that could not be listed, a file that could not be stat-ed) is not
        evidence of a deletion: what the state holds under it stays."""
        self._keep.append(_key(path))
        self._seen.add(_key(path))

    def walked(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        """The walk of ``roots`` reached its end: what the state holds under them and the walk
        did not find has vanished (deleted, or renamed to one of the new files read next)."""
        self._walked = True
        for root in roots:
            for entry in self.state.under(_key(root), skip=self._seen):
                if _under(entry.path, self._keep):
                    continue
                self._vanished[entry.path] = entry
                if entry.digest:
                    self._by_inode[(entry.dev, entry.ino)] = entry
                    self._by_digest.setdefault(entry.digest, []).append(entry)

    def examine(
        self, ctx: RunContext, path: Path, st: os.stat_result, doc: Document | None
    ) -> Document | None:
        """The document to convert and store for a file :meth:`check` sent to be read (``doc``,
        None when the reader dropped it), or None when its bytes are stored already."""
        key = _key(path)
        entry = self.state.get(key)
        if doc is None:  # dropped by the reader (counted there); remember it, unless it is gone
            try:
                now = os.stat(path)
            except OSError:
                return None
            self.state.put(FileEntry.of(key, now, url=entry.url if entry else None))
            return None
        fstat = doc.metadata.pop("_fstat", None)
        digest = payload_digest(doc.raw)
        access = doc.metadata.get("access")
        access = dict(access) if isinstance(access, dict) else None
        if fstat is None:
            fstat = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        size, mtime_ns, ctime_ns, ino, dev = fstat
        record = FileEntry(key, size, mtime_ns, ctime_ns, ino, dev, digest, doc.url, access)
        newest = self.rows.newest_capture(doc.url)
        if entry is not None and entry.digest == digest and entry.url == doc.url:
            ctx.stats.inc("local/unchanged-content")
            self._live_urls.add(doc.url)
            if access is not None and access != entry.access and self.rows.update_access(doc.url, access):
                ctx.stats.inc("local/access-changed")
            self.state.put(record)
            return None
        moved = self._moved_from(digest, ino, dev, doc.url) if entry is None else None
        if moved is not None:
            ctx.stats.inc("local/renamed")
            doc.metadata["moved_from"] = moved.url
            self._moves[doc.url] = moved
        elif newest is not None and not newest.get("deleted") and newest.get("payload_digest") == digest:
            # stored already (by an ingest before the state, or from another path to the same file)
            ctx.stats.inc("local/unchanged-content")
            self._live_urls.add(doc.url)
            self.state.put(record)
            return None
        else:
            ctx.stats.inc("local/changed" if entry is not None and entry.url else "local/new")
        last = _when(newest) if newest is not None else None
        if last is not None and doc.fetched_at is not None and doc.fetched_at <= last:
            # a version must sort after the row's newest (a quick edit in the same second, a file
            # restored with an old mtime, one re-created after its deletion)
            doc.fetched_at = last.replace(microsecond=0) + timedelta(seconds=1)
        self._live_urls.add(doc.url)
        doc.metadata[_LOCAL] = [record.path, size, mtime_ns, ctime_ns, ino, dev, digest, access]
        return doc

    def _moved_from(self, digest: str, ino: int, dev: int, url: str) -> FileEntry | None:
        if not self._walked:
            return None

        def gone(e: FileEntry) -> bool:
            # a vanished path whose URL another path still reads (a symlink gone, its target
            # there) moved nowhere: its row is live
            return e.path in self._vanished and e.url != url and e.url not in self._live_urls

        same = self._by_inode.get((dev, ino))
        if same is not None and same.digest == digest and gone(same):
            candidate: FileEntry | None = same
        else:
            candidate = next((e for e in self._by_digest.get(digest, []) if gone(e)), None)
        if candidate is not None:
            del self._vanished[candidate.path]
        return candidate

    # -- after the writer ------------------------------------------------------------------------

    def stored(self, ctx: RunContext, doc: Document) -> None:
        """``doc`` reached the collection: remember its file (and finish its move)."""
        local = doc.metadata.get(_LOCAL)
        if not isinstance(local, list) or doc.dropped:
            return
        path, size, mtime_ns, ctime_ns, ino, dev, digest, access = local
        previous = self.state.get(path)
        if previous is not None and previous.digest and previous.digest != digest:
            self._rewritten.add(doc.url)
        self.state.put(FileEntry(path, size, mtime_ns, ctime_ns, ino, dev, digest, doc.url, access))
        moved = self._moves.pop(doc.url, None)
        if moved is not None and moved.url:
            self.rows.mark_deleted(moved.url, path=moved.path, moved_to=doc.url)
            self.state.delete(moved.path)

    def finish(self, ctx: RunContext) -> None:
        """Mark the rows of the files that vanished, if the walk ran to its end; commit the state.
        A move whose new file was not stored is left for the next run to find again."""
        if self._walked and not self.interrupted:
            for entry in self._vanished.values():
                live = entry.url is None or entry.url in self._live_urls
                # a file still on disk that the walk left out (an --exclude, an ignore file, a
                # hidden or system folder now skipped) leaves the index as "excluded", not "deleted"
                excluded = os.path.lexists(entry.path)
                reason = "excluded" if excluded else None
                if (
                    not live
                    and entry.url
                    and self.rows.mark_deleted(entry.url, path=entry.path, reason=reason)
                ):
                    ctx.stats.inc("local/excluded" if excluded else "local/deleted")
                self.state.delete(entry.path)
        for url in sorted(self._rewritten):  # units of a changed file its new bytes no longer hold
            retired = self.rows.retire_stale_units(url)
            if retired:
                ctx.stats.inc("local/units-retired", retired)
        self._rewritten.clear()
        self.state.commit()


class ChangeWatcher:
    """Waits for something to change under ``roots``: file system events through ``watchfiles``
    (inotify, FSEvents, ReadDirectoryChangesW, via Rust ``notify``) when it is installed and
    ``backend`` allows, else a poll every ``interval`` seconds. Events under ``ignore`` (the
    collection being written) are not changes. Started before the first pass, so nothing that
    changes during a pass is missed."""

    def __init__(
        self,
        roots: Sequence[str | os.PathLike[str]],
        *,
        stop: threading.Event,
        interval: float = 1.0,
        backend: str = "auto",
        ignore: Sequence[str | os.PathLike[str]] = (),
        debounce_ms: int = 200,
    ) -> None:
        if backend not in ("auto", "watchfiles", "poll"):
            raise StoreError(f"watch backend {backend!r}: expected auto, watchfiles or poll")
        self.roots = [_key(r) for r in roots]
        self.stop = stop
        self.interval = interval
        self.ignore = [_key(p) for p in ignore]
        self._events: queue.Queue[int] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.backend = "poll"
        if backend != "poll":
            try:
                import watchfiles  # noqa: PLC0415, F401 - optional: the [desktop] extra
            except ImportError:
                if backend == "watchfiles":
                    from trawl.errors import MissingDependency  # noqa: PLC0415

                    raise MissingDependency("watchfiles", "desktop", "trawl ingest --watch") from None
            else:
                self.backend = "watchfiles"
                self._debounce = debounce_ms
                self._thread = threading.Thread(target=self._watch, name="trawl-watch", daemon=True)
                self._thread.start()

    def _relevant(self, _change: object, path: str) -> bool:
        return not _under(os.path.abspath(path), self.ignore)

    def _watch(self) -> None:
        import watchfiles  # noqa: PLC0415

        for changes in watchfiles.watch(
            *self.roots,
            watch_filter=self._relevant,
            debounce=self._debounce,
            step=50,
            rust_timeout=500,
            stop_event=self.stop,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            self._events.put(len(changes))

    def wait(self) -> bool:
        """Block until something changed (True) or :attr:`stop` is set (False)."""
        if self.backend == "poll":
            return not self.stop.wait(self.interval)
        while not self.stop.is_set():
            try:
                self._events.get(timeout=0.2)
            except queue.Empty:
                if self._thread is not None and not self._thread.is_alive():
                    self.backend = "poll"  # the watcher died (a root removed): keep going by polling
                    return not self.stop.wait(self.interval)
                continue
            while not self._events.empty():  # one pass for a burst of events
                self._events.get_nowait()
            return True
        return False

    def close(self) -> None:
        self.stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
