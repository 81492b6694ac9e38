"""One table read as the union of several: a collection and its partitions.

A distributed crawl runs N shard processes, each writing a *partition*: a whole collection of its
own under ``COLLECTION/partitions/<name>/``. :class:`UnionTable` reads them as one table: the
collection's own table first (where ``trawl dedup`` and other later writes go), then each
partition's, usually opened read-only while their shards write.

A host's pages live in one partition, but one row can still have cells in several members (anchor
text is written at the *target's* row, by whichever shard crawled the linking page; dup cells go
to the collection's own table). So every read merges: a row's cells are the union of its members'
cells; where two members hold the same ``(family, qualifier)``, the version with the newer
timestamp wins, as it would in one table (on equal timestamps, the earlier member). A scan is a
k-way merge of the members' scans by row key, each row once. Index lookups and entries come from
the first member that has them; posting lists are merged.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection as Container
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from trawl.errors import StoreError
from trawl.store.table import DumpCell, DumpItem, Mutation, RowStore

__all__ = ["UnionTable"]

Cells = dict[str, dict[str, Any]]


class UnionTable(RowStore):
    """The rows of ``members`` read as one table; writes go to ``members[0]``.

    ``members`` in order of precedence: the collection's own table, then its partitions'. Every
    reading method of :class:`~trawl.store.table.RowStore` reads all of them (see the module's
    docstring for how cells of one row in several members are merged). :meth:`versions_of` returns
    every version any member keeps, newest first (each member applies its own version policy).
    Closing the union closes every member.
    """

    def __init__(self, members: Sequence[RowStore]) -> None:
        if not members:
            raise StoreError("a union table needs at least one member table")
        self.members = list(members)
        self.read_only = self.members[0].read_only

    @property
    def writable(self) -> RowStore:
        """The member that takes the writes (the collection's own table)."""
        return self.members[0]

    # -- writing: to the first member -------------------------------------------------------------

    def write(
        self,
        mutations: Sequence[Mutation],
        *,
        indexes: Iterable[tuple[str, str, str]] = (),
        entries: Iterable[tuple[str, str, Any]] = (),
    ) -> None:
        self.writable.write(mutations, indexes=indexes, entries=entries)

    def put_rows(
        self, rows: Iterable[tuple[str, Mapping[str, Mapping[str, Any]]]], ts: int, *, batch_rows: int = 1000
    ) -> int:
        return self.writable.put_rows(rows, ts, batch_rows=batch_rows)

    def put_entry(self, index: str, key: str, value: Any) -> None:
        self.writable.put_entry(index, key, value)

    # -- merging cells -----------------------------------------------------------------------------

    def _stamp(self, member: int, row: str, family: str, qualifier: str, as_of: int | None) -> int:
        """The timestamp of the version of a cell that ``member`` answers with at ``as_of``."""
        for ts, _ in self.members[member].versions_of(row, family, qualifier):
            if as_of is None or ts <= as_of:
                return ts
        return -1  # older than every version its policy keeps (not yet collected): the oldest

    def _merge(self, row: str, found: Sequence[tuple[int, Cells]], as_of: int | None) -> Cells:
        """One row's cells from several members (``(member, cells)`` in member order)."""
        if not found:
            return {}
        if len(found) == 1:
            return found[0][1]
        out: Cells = {}
        owner: dict[tuple[str, str], int] = {}
        for member, cells in found:
            for family, columns in cells.items():
                into = out.setdefault(family, {})
                for qualifier, value in columns.items():
                    held = owner.get((family, qualifier))
                    if held is not None and self._stamp(member, row, family, qualifier, as_of) <= self._stamp(
                        held, row, family, qualifier, as_of
                    ):
                        continue  # the version already taken is as new or newer
                    into[qualifier] = value
                    owner[(family, qualifier)] = member
        return out

    # -- reading -----------------------------------------------------------------------------------

    def get_row(
        self, row: str, *, as_of: int | None = None, families: Container[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        found = []
        for i, member in enumerate(self.members):
            cells = member.get_row(row, as_of=as_of, families=families)
            if cells:
                found.append((i, cells))
        return self._merge(row, found, as_of)

    def get_cell(self, row: str, family: str, qualifier: str, *, as_of: int | None = None) -> Any:
        best: tuple[int, Any] | None = None
        for i, member in enumerate(self.members):
            value = member.get_cell(row, family, qualifier, as_of=as_of)
            if value is None:
                continue
            if best is None or self._stamp(i, row, family, qualifier, as_of) > self._stamp(
                best[0], row, family, qualifier, as_of
            ):
                best = (i, value)
        return None if best is None else best[1]

    def versions_of(self, row: str, family: str, qualifier: str) -> list[tuple[int, Any]]:
        """Every version any member keeps, newest first; one version per timestamp (the earlier
        member's, as one table holds one value per timestamp)."""
        lists = [v for member in self.members if (v := member.versions_of(row, family, qualifier))]
        if len(lists) <= 1:
            return lists[0] if lists else []
        merged = heapq.merge(*([(-ts, i, value) for ts, value in v] for i, v in enumerate(lists)))
        out: list[tuple[int, Any]] = []
        for neg, _, value in merged:
            if not out or out[-1][0] != -neg:
                out.append((-neg, value))
        return out

    def __contains__(self, row: str) -> bool:
        return any(row in member for member in self.members)

    def scan(
        self,
        start: str = "",
        end: str | None = None,
        *,
        prefix: str = "",
        as_of: int | None = None,
        families: Container[str] | None = None,
    ) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
        """A k-way merge of the members' scans: each row once, in row order, its cells merged."""
        scans = [
            member.scan(start, end, prefix=prefix, as_of=as_of, families=families) for member in self.members
        ]
        if len(scans) == 1:
            yield from scans[0]
            return
        # (row, member) is unique (a member yields a row once), so the cells are never compared
        tagged = [_tagged(scan, i) for i, scan in enumerate(scans)]
        current: str | None = None
        found: list[tuple[int, Cells]] = []
        for row, i, cells in heapq.merge(*tagged):
            if row != current:
                if current is not None:
                    yield current, self._merge(current, found, as_of)
                current, found = row, []
            found.append((i, cells))
        if current is not None:
            yield current, self._merge(current, found, as_of)

    def rows(self, prefix: str = "") -> Iterator[str]:
        last: str | None = None
        for row in heapq.merge(*(member.rows(prefix) for member in self.members)):
            if row != last:
                last = row
                yield row

    def lookup(self, index: str, key: str) -> str | None:
        for member in self.members:
            row = member.lookup(index, key)
            if row is not None:
                return row
        return None

    def get_entry(self, index: str, key: str) -> Any:
        for member in self.members:
            value = member.get_entry(index, key)
            if value is not None:
                return value
        return None

    def postings(self, index: str, term: str) -> list[str]:
        """The rows on ``term``'s list in any member, in row order, each once."""
        out: list[str] = []
        for row in heapq.merge(*(member.postings(index, term) for member in self.members)):
            if not out or out[-1] != row:
                out.append(row)
        return out

    def dump(self) -> Iterator[DumpItem]:
        """Every member's cells, then every member's index entries, entries and postings (rows
        first, as :meth:`RowStore.dump` promises). Loaded into one table, cells of one row in
        several members become that row's cells; on the same index or entry key the last member
        loaded wins."""
        for member in self.members:
            cells = getattr(member, "dump_cells", None)
            if cells is not None:
                yield from cells()
                continue
            for item in member.dump():
                if not isinstance(item, DumpCell):
                    break
                yield item
        for member in self.members:
            meta = getattr(member, "dump_meta", None)
            if meta is not None:
                yield from meta()
                continue
            yield from (item for item in member.dump() if not isinstance(item, DumpCell))

    # -- lifecycle ---------------------------------------------------------------------------------

    def flush(self) -> None:
        self.writable.flush()

    def compact(self) -> None:
        self.writable.compact()

    def close(self) -> None:
        """Close every member (each is closed even when one fails; the first failure is raised)."""
        failure: BaseException | None = None
        for member in self.members:
            try:
                member.close()
            except Exception as exc:
                failure = failure or exc
        if failure is not None:
            raise failure

    def __enter__(self) -> UnionTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _tagged(scan: Iterator[tuple[str, Cells]], member: int) -> Iterator[tuple[str, int, Cells]]:
    for row, cells in scan:
        yield row, member, cells
