"""Tablets: a table cut into row-key ranges, each its own RocksDB directory, with a master map.

BigTable serves a table as tablets: contiguous row ranges that split when they grow past a size
and that can be opened, moved and served on their own. Here a :class:`TabletTable` is a
directory::

    tablets/
      master.json   the master map: [{"id", "start", "end", "path"}] sorted by start; end exclusive
      meta/         a Table for what is not a row: secondary indexes, postings, entries
      t000000/      a tablet: a plain :class:`~trawl.store.table.Table` holding rows [start, end)

Every tablet is an ordinary table, so one can be opened alone (read-only by another process, to
serve it) or moved to another disk (:meth:`TabletTable.move`). The whole table opens read-only too
(``read_only=True``: while its writer runs, e.g. a crawl shard's partition read by ``trawl show``):
the meta table and every tablet of the map are opened read-only at once, nothing is split or
cleared, and a write is refused. A split copies the two halves into
two new tablets, makes them durable, then replaces ``master.json`` atomically (write, fsync,
rename): a crash before the rename leaves the old tablet in the map and the half-made ones as
garbage, removed on the next open; after it, the old one is the garbage. Readers are never
blocked: a scan resumes after the last row it returned, looking the next range up in the map as it
is then, so a split under a running scan returns every row exactly once.
"""

from __future__ import annotations

import bisect
import itertools
import os
import shutil
import threading
from collections.abc import Collection as Container
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from trawl.errors import StoreError
from trawl.store.table import (
    DumpCell,
    DumpEntry,
    DumpIndex,
    DumpItem,
    DumpPostings,
    FamilyPolicy,
    Mutation,
    RowStore,
    Table,
)

__all__ = ["TabletInfo", "TabletTable"]

MASTER = "master.json"


@dataclass(frozen=True, slots=True)
class TabletInfo:
    """One entry of the master map: rows ``start <= row < end`` (``end`` None: to the last row)."""

    id: str
    start: str
    end: str | None
    path: str  # relative to the tablet table's directory, or absolute after a move elsewhere

    def holds(self, row: str) -> bool:
        return self.start <= row and (self.end is None or row < self.end)


class TabletTable(RowStore):
    """A :class:`Table` split into tablets by row range; the same reading and writing API
    (:class:`~trawl.store.table.RowStore`, which both implement).

    ``split_bytes``: a tablet whose estimated size passes this after a write is split at its
    median row (checked every ``check_every`` writes, because the estimate costs a property read).
    ``read_only``: open without the writer's lock (another process may be writing): the meta
    table, then every tablet named by the map, each read-only, as they are now; writes raise
    :class:`~trawl.errors.StoreError`.
    """

    def __init__(
        self,
        path: Path,
        *,
        versions: Mapping[str, int] | None = None,
        policies: Mapping[str, FamilyPolicy] | None = None,
        split_bytes: int = 256 << 20,
        check_every: int = 512,
        create: bool = True,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.versions = dict(versions or {})
        self.policies = dict(policies or {})
        self.split_bytes = split_bytes
        self.check_every = check_every
        master = self.path / MASTER
        self._open: dict[str, Table] = {}
        self._retired: list[Table] = []
        self._writes: dict[str, int] = {}
        self._write_lock = threading.RLock()
        self._open_lock = threading.Lock()
        self._closed = False
        self.splits = 0
        if not master.is_file():
            if not create or read_only:
                raise StoreError(f"no tablet table at {str(self.path)!r} (no {MASTER})")
            self.path.mkdir(parents=True, exist_ok=True)
        if read_only:
            self._open_read_only()
            return
        # the meta table first: its LOCK makes this process the table's one writer before it
        # writes the map or clears another's half-made tablets (a second writer is refused here)
        self._meta = Table(self.path / "meta", versions=self.versions, policies=self.policies)
        if not master.is_file():
            self._serial = 0
            self._write_master([TabletInfo(self._next_id(), "", None, "t000000")])
        self._map = self._read_master()
        self._serial = 1 + max(int(t.id[1:]) for t in self._map)
        self._remove_garbage()

    def _open_read_only(self) -> None:
        """The meta table, then every tablet of the map, read-only. The writer writes a row's
        tablet before its index entries (in meta), so meta opened first names no row the tablets
        lack. A split that replaced the map while its tablets were being opened (its old tablet
        perhaps cleared) is met by opening the new map's."""
        self._meta = Table(self.path / "meta", versions=self.versions, policies=self.policies, read_only=True)
        failure: StoreError | None = None
        for _attempt in range(3):
            self._map = self._read_master()
            self._serial = 1 + max(int(t.id[1:]) for t in self._map)
            try:
                for info in self._map:
                    self._table(info)
                if self._read_master() == self._map:
                    return
            except StoreError as exc:
                failure = exc
            for table in self._open.values():
                table.close()
            self._open.clear()
        self._meta.close()
        raise failure or StoreError(
            f"the master map of {str(self.path)!r} kept changing while its tablets were opened read-only"
        )

    def _refuse(self, what: str) -> None:
        if self.read_only:
            raise StoreError(
                f"the tablet table at {str(self.path)!r} is open read-only (another process may be "
                f"writing it): cannot {what}; open it without read_only in the process that owns it"
            )

    # -- the master map ------------------------------------------------------------------------

    def _next_id(self) -> str:
        self._serial += 1
        return f"t{self._serial - 1:06d}"

    def _read_master(self) -> list[TabletInfo]:
        try:
            data = orjson.loads((self.path / MASTER).read_bytes())
            tablets = [TabletInfo(t["id"], t["start"], t["end"], t["path"]) for t in data["tablets"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"cannot read the master map {str(self.path / MASTER)!r}: {exc}") from exc
        if not tablets or tablets[0].start != "" or tablets[-1].end is not None:
            raise StoreError(f"the master map {str(self.path / MASTER)!r} does not cover every row key")
        for a, b in itertools.pairwise(tablets):
            if a.end != b.start:
                raise StoreError(f"the master map has a gap or overlap between {a.id} and {b.id}")
        return tablets

    def _write_master(self, tablets: list[TabletInfo]) -> None:
        data = orjson.dumps(
            {"tablets": [{"id": t.id, "start": t.start, "end": t.end, "path": t.path} for t in tablets]},
            option=orjson.OPT_INDENT_2,
        )
        tmp = self.path / (MASTER + ".tmp")
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path / MASTER)
        dir_fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _remove_garbage(self) -> None:
        """Tablet directories the map does not name: halves of an unfinished split, split originals."""
        named = {Path(t.path).name for t in self._map if not Path(t.path).is_absolute()}
        for p in self.path.glob("t[0-9]*"):
            if p.is_dir() and p.name not in named:
                shutil.rmtree(p, ignore_errors=True)

    @property
    def tablets(self) -> list[TabletInfo]:
        """The master map as it is now, in row order."""
        return list(self._map)

    def _locate(self, tablets: list[TabletInfo], row: str) -> int:
        return bisect.bisect_right([t.start for t in tablets], row) - 1

    def tablet_for(self, row: str) -> TabletInfo:
        tablets = self._map
        return tablets[self._locate(tablets, row)]

    def _dir(self, info: TabletInfo) -> Path:
        p = Path(info.path)
        return p if p.is_absolute() else self.path / p

    def _table(self, info: TabletInfo) -> Table:
        table = self._open.get(info.id)
        if table is None:
            with self._open_lock:
                table = self._open.get(info.id)
                if table is None and self.read_only and not (self._dir(info) / "CURRENT").is_file():
                    # the writer makes a tablet on its first row: until then it holds nothing
                    table = self._open[info.id] = _EmptyTablet(self._dir(info), self.versions, self.policies)
                if table is None:
                    table = Table(
                        self._dir(info),
                        versions=self.versions,
                        policies=self.policies,
                        create=not self.read_only,
                        read_only=self.read_only,
                    )
                    self._open[info.id] = table
        return table

    def open_tablet(self, tablet_id: str, *, read_only: bool = True) -> Table:
        """Open one tablet by itself, as a server of that range would (read-only by default)."""
        for info in self._map:
            if info.id == tablet_id:
                return Table(
                    self._dir(info), versions=self.versions, policies=self.policies, read_only=read_only
                )
        raise StoreError(f"no tablet {tablet_id!r} in {str(self.path)!r}")

    # -- writing -------------------------------------------------------------------------------

    def write(
        self,
        mutations: Sequence[Mutation],
        *,
        indexes: Iterable[tuple[str, str, str]] = (),
        entries: Iterable[tuple[str, str, Any]] = (),
    ) -> None:
        """Each tablet's rows in one batch of that tablet, then the postings, indexes and entries
        in one batch of the meta table: a crash between the two leaves rows without their index
        entries (rewritten by an idempotent re-run), never an index entry to a missing row."""
        self._refuse("write")
        with self._write_lock:
            by_tablet: dict[str, tuple[TabletInfo, list[Mutation]]] = {}
            meta: list[Mutation] = []
            for m in mutations:
                if m.put or m.delete:  # postings alone (a load's) have nothing for a tablet
                    info = self.tablet_for(m.row)
                    by_tablet.setdefault(info.id, (info, []))[1].append(
                        Mutation(m.row, m.ts, m.put, m.delete) if m.postings else m
                    )
                if m.postings:
                    meta.append(Mutation(m.row, 0, postings=m.postings))
            for info, batch in by_tablet.values():
                self._table(info).write(batch)
            indexes, entries = list(indexes), list(entries)
            if meta or indexes or entries:
                self._meta.write(meta, indexes=indexes, entries=entries)
            for info, batch in by_tablet.values():
                before = self._writes.get(info.id, 0)
                n = self._writes[info.id] = before + len(batch)
                if n // self.check_every != before // self.check_every:
                    self.maybe_split(info.id)

    def lookup(self, index: str, key: str) -> str | None:
        return self._meta.lookup(index, key)

    def put_entry(self, index: str, key: str, value: Any) -> None:
        self._refuse("write")
        self._meta.put_entry(index, key, value)

    def get_entry(self, index: str, key: str) -> Any:
        return self._meta.get_entry(index, key)

    def postings(self, index: str, term: str) -> list[str]:
        return self._meta.postings(index, term)

    def dump(self) -> Iterator[DumpItem]:
        """Each tablet's cells (its own range only), in row order, then what ``meta`` holds."""
        yield from self.dump_cells()
        yield from self.dump_meta()

    def dump_cells(self) -> Iterator[DumpCell]:
        """Every stored version of every cell, tablet by tablet (each its own range), in row order."""
        for info in self.tablets:
            yield from self._table(info).dump_cells(info.start, info.end)

    def dump_meta(self) -> Iterator[DumpIndex | DumpEntry | DumpPostings]:
        """The index entries, JSON entries and posting lists (the meta table's)."""
        yield from self._meta.dump_meta()

    # -- splitting and moving ------------------------------------------------------------------

    def maybe_split(self, tablet_id: str) -> bool:
        """Split ``tablet_id`` if it has grown past ``split_bytes``; True if it did."""
        if self.read_only:
            return False
        with self._write_lock:
            info = next((t for t in self._map if t.id == tablet_id), None)
            if info is None or self._table(info).approximate_bytes() <= self.split_bytes:
                return False
            return self.split(tablet_id) is not None

    def split(self, tablet_id: str, at: str | None = None) -> tuple[TabletInfo, TabletInfo] | None:
        """Split a tablet at row ``at`` (default: its median row); None if it has under two rows."""
        self._refuse("split a tablet")
        with self._write_lock:
            tablets = self._map
            idx = next((i for i, t in enumerate(tablets) if t.id == tablet_id), None)
            if idx is None:
                raise StoreError(f"no tablet {tablet_id!r} in {str(self.path)!r}")
            info = tablets[idx]
            old = self._table(info)
            if at is None:
                rows = list(old.rows())
                if len(rows) < 2:
                    return None
                at = rows[len(rows) // 2]
            if not info.holds(at) or at == info.start:
                raise StoreError(f"cannot split {tablet_id} ({info.start!r}..{info.end!r}) at {at!r}")
            left = TabletInfo(self._next_id(), info.start, at, "")
            right = TabletInfo(self._next_id(), at, info.end, "")
            left = TabletInfo(left.id, left.start, left.end, left.id)
            right = TabletInfo(right.id, right.start, right.end, right.id)
            cut = b"r" + at.encode("utf-8", "surrogatepass") + b"\x00"
            for half in (left, right):
                shutil.rmtree(self._dir(half), ignore_errors=True)
            lt = Table(self._dir(left), versions=self.versions, policies=self.policies)
            rt = Table(self._dir(right), versions=self.versions, policies=self.policies)
            try:
                _copy_raw(old, lt, rt, cut)
                if not old.marked:  # rows of an older table have no markers: keep scanning them
                    lt.unmark()
                    rt.unmark()
                lt.flush()
                rt.flush()
            except BaseException:
                lt.close()
                rt.close()
                raise
            new_map = [*tablets[:idx], left, right, *tablets[idx + 1 :]]
            self._write_master(new_map)
            with self._open_lock:
                self._open[left.id] = lt
                self._open[right.id] = rt
                self._open.pop(info.id, None)
            self._map = new_map
            # scans that started before the swap may still read the old tablet: close it at the end
            self._retired.append(old)
            self.splits += 1
            return left, right

    def move(self, tablet_id: str, destination: Path) -> TabletInfo:
        """Move a tablet's directory under ``destination`` (another disk) and record it in the map."""
        self._refuse("move a tablet")
        with self._write_lock:
            tablets = self._map
            idx = next((i for i, t in enumerate(tablets) if t.id == tablet_id), None)
            if idx is None:
                raise StoreError(f"no tablet {tablet_id!r} in {str(self.path)!r}")
            info = tablets[idx]
            with self._open_lock:
                table = self._open.pop(info.id, None)
            if table is not None:
                table.close()
            target = Path(destination).resolve() / info.id
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(self._dir(info)), str(target))
            moved = TabletInfo(info.id, info.start, info.end, str(target))
            new_map = [*tablets[:idx], moved, *tablets[idx + 1 :]]
            self._write_master(new_map)
            self._map = new_map
            return moved

    # -- reading -------------------------------------------------------------------------------

    def get_row(
        self, row: str, *, as_of: int | None = None, families: Container[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        return self._table(self.tablet_for(row)).get_row(row, as_of=as_of, families=families)

    def get_cell(self, row: str, family: str, qualifier: str, *, as_of: int | None = None) -> Any:
        return self._table(self.tablet_for(row)).get_cell(row, family, qualifier, as_of=as_of)

    def versions_of(self, row: str, family: str, qualifier: str) -> list[tuple[int, Any]]:
        return self._table(self.tablet_for(row)).versions_of(row, family, qualifier)

    def __contains__(self, row: str) -> bool:
        return row in self._table(self.tablet_for(row))

    def scan(
        self,
        start: str = "",
        end: str | None = None,
        *,
        prefix: str = "",
        as_of: int | None = None,
        families: Container[str] | None = None,
    ) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
        """Rows in ``[start, end)`` under ``prefix``, across tablets, each exactly once, in order."""
        lower = max(start, prefix)
        last: str | None = None
        while True:
            tablets = self._map  # the map as it is now: a split may have replaced it since
            info = tablets[self._locate(tablets, lower)]
            stop = info.end if end is None or (info.end is not None and info.end < end) else end
            for row, cells in self._table(info).scan(
                lower, stop, prefix=prefix, as_of=as_of, families=families
            ):
                if last is not None and row <= last:
                    continue
                last = row
                yield row, cells
            if info.end is None or (end is not None and info.end >= end):
                return
            if prefix and not info.end.startswith(prefix) and info.end > prefix:
                return
            lower = info.end if last is None or last < info.end else last

    def rows(self, prefix: str = "") -> Iterator[str]:
        lower = prefix
        last: str | None = None
        while True:
            tablets = self._map
            info = tablets[self._locate(tablets, lower)]
            for row in self._table(info).rows(prefix):
                if row < lower or (last is not None and row <= last):
                    continue
                if info.end is not None and row >= info.end:
                    break
                last = row
                yield row
            if info.end is None or (prefix and not info.end.startswith(prefix) and info.end > prefix):
                return
            lower = info.end

    # -- lifecycle -----------------------------------------------------------------------------

    def approximate_bytes(self) -> int:
        return sum(self._table(t).approximate_bytes() for t in self._map)

    def flush(self) -> None:
        for table in list(self._open.values()):
            table.flush()
        self._meta.flush()

    def compact(self) -> None:
        """Flush and compact every tablet and the meta table (measuring on-disk size)."""
        self._refuse("compact")
        for info in self._map:
            self._table(info).compact()
        self._meta.compact()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._open_lock:
            for table in [*self._open.values(), *self._retired]:
                table.close()
            self._open.clear()
            self._retired.clear()
        self._meta.close()
        if not self.read_only:  # the writer's to clear: a reader never removes a directory
            self._remove_garbage()

    def __enter__(self) -> TabletTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _EmptyTablet(Table):
    """A tablet of the map its writer has not made yet (no row was written to it), read-only."""

    def __init__(self, path: Path, versions: Mapping[str, int], policies: Mapping[str, FamilyPolicy]) -> None:
        self.path = path
        self.versions = dict(versions)
        self.policies = {f: FamilyPolicy(versions=n) for f, n in self.versions.items()}
        self.policies.update(policies)
        self.read_only = True
        self._closed = True
        self._markers = True

    def _scan(self, prefix: bytes, start: bytes | None = None) -> Iterator[tuple[bytes, Any]]:
        return iter(())

    def rows(self, prefix: str = "") -> Iterator[str]:
        return iter(())

    def approximate_bytes(self) -> int:
        return 0

    def close(self) -> None:
        """Nothing was opened."""


def _copy_raw(source: Table, left: Table, right: Table, cut: bytes) -> None:
    """Copy ``source``'s rows below ``cut`` to ``left``, the rest to ``right``, bytes as stored."""
    from rocksdict import WriteBatch  # noqa: PLC0415

    batches = [WriteBatch(raw_mode=True), WriteBatch(raw_mode=True)]
    counts = [0, 0]
    targets = [left, right]
    it = source._db.iter()
    it.seek(b"")
    while it.valid():
        key: bytes = it.key()
        side = 0 if key < cut or not key.startswith(b"r") else 1
        if not key.startswith(b"r"):
            side = 0 if key < b"r" else 1  # metadata keys (dictionaries) go to both halves below
            for i in (0, 1):
                batches[i].put(key, it.value())
            it.next()
            continue
        batches[side].put(key, it.value())
        counts[side] += 1
        if counts[side] % 2048 == 0:
            targets[side]._db.write(batches[side])
            batches[side] = WriteBatch(raw_mode=True)
        it.next()
    for i in (0, 1):
        targets[i]._db.write(batches[i])
