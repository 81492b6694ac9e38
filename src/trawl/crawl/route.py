"""How the shards of a partitioned crawl hand each other the URLs they find for hosts they do not own.

Each shard owns the politeness of its hosts (:func:`~trawl.crawl.urlnorm.shard_of` or a
:class:`~trawl.crawl.urlnorm.HashRing`); a link to another shard's host is *sent* to that shard
through a :class:`Router`, and the crawler *receives* what the others sent it every
``route_interval`` and admits it like any discovered URL (scope, traps, the seen set).

- :class:`FileRouter`: ``COLLECTION/frontier/route-I-to-J.tsv`` files, one per pair of shards,
  appended by the sender; the receiver's read offsets live in its frontier's meta table, committed
  after the URLs read are, so a kill at any time loses nothing (a URL read twice is dropped by the
  seen set). A shard ends with its own work; what others send later waits for its ``--resume``.
- :class:`QueueRouter`: in one process, a queue per shard (:meth:`QueueRouter.mesh` wires N of
  them); the shards also agree on when the whole crawl is done (:meth:`Router.done`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Protocol

from trawl.crawl.frontier import Frontier
from trawl.pipeline.stats import Stats

__all__ = ["FileRouter", "QueueRouter", "Routed", "Router"]

#: A routed URL: (url, depth, priority, anchor text).
Routed = tuple[str, int, float, str]


class Router(Protocol):
    """The channel between the shards of one crawl (the crawler is its only user in a shard)."""

    def send(self, owner: int, url: str, depth: int, priority: float, anchor: str) -> None:
        """Hand ``url`` (found at ``depth``, with its priority and anchor text) to shard ``owner``."""
        ...

    def receive(self) -> list[Routed]:
        """The URLs other shards sent to this one since the last call."""
        ...

    def flush(self) -> None:
        """Make what was sent visible to the other shards, and what was received final (the
        crawler calls it after committing the received URLs to its frontier)."""
        ...

    def done(self, idle: bool) -> bool:
        """Say whether this shard has work (``idle``: nothing queued, nothing in flight, all
        received); whether the crawl may end here (every shard idle, nothing on its way)."""
        ...

    def close(self) -> None:
        """Flush, and leave: the other shards no longer wait for this one."""
        ...


class FileRouter:
    """Routes through ``inbox_dir/route-<from>-to-<to>.tsv`` (one URL a line:
    ``url TAB depth TAB priority TAB anchor``); the offsets read are kept in ``frontier``'s meta.
    A line that is not one is skipped and counted (``shard/bad-line`` in ``stats``)."""

    def __init__(self, inbox_dir: Path, shard: int, frontier: Frontier, stats: Stats | None = None) -> None:
        self.inbox_dir = inbox_dir
        self.stats = stats or Stats()
        self.shard = shard
        self.frontier = frontier
        self._outboxes: dict[int, IO[str]] = {}
        self._offsets: dict[str, int] = {}  # inbox file -> bytes read (and handed to the crawler)
        self._unsaved: set[str] = set()  # inbox files whose offset the frontier has yet to keep

    def send(self, owner: int, url: str, depth: int, priority: float, anchor: str) -> None:
        fh = self._outboxes.get(owner)
        if fh is None:
            self.inbox_dir.mkdir(parents=True, exist_ok=True)
            path = self.inbox_dir / f"route-{self.shard}-to-{owner}.tsv"
            fh = self._outboxes[owner] = path.open("a", encoding="utf-8")
        anchor = anchor.replace("\t", " ").replace("\n", " ").replace("\r", " ")
        fh.write(f"{url}\t{depth}\t{priority}\t{anchor}\n")

    def receive(self) -> list[Routed]:
        if not self.inbox_dir.is_dir():
            return []
        out: list[Routed] = []
        for path in sorted(self.inbox_dir.glob(f"route-*-to-{self.shard}.tsv")):
            name = path.name
            offset = self._offsets.get(name)
            if offset is None:
                offset = int(self.frontier.meta(f"inbox:{name}", "0") or 0)
            with path.open("rb") as fh:
                fh.seek(offset)
                data = fh.read()
            end = data.rfind(b"\n") + 1  # a line still being written waits for the next call
            if not end:
                self._offsets[name] = offset
                continue
            for line in data[:end].decode("utf-8", "replace").splitlines():
                parts = line.split("\t")
                try:
                    out.append((parts[0], int(parts[1]), float(parts[2]), parts[3] if len(parts) > 3 else ""))
                except (ValueError, IndexError):
                    self.stats.inc("shard/bad-line")
            self._offsets[name] = offset + end
            self._unsaved.add(name)
        return out

    def flush(self) -> None:
        for fh in self._outboxes.values():
            fh.flush()
        for name in sorted(self._unsaved):
            self.frontier.set_meta(f"inbox:{name}", str(self._offsets[name]))
        self._unsaved.clear()

    def done(self, idle: bool) -> bool:
        return idle  # the files keep what comes later for this shard's next run

    def close(self) -> None:
        try:
            self.flush()
        finally:
            for fh in self._outboxes.values():
                fh.close()
            self._outboxes.clear()


class _Mesh:
    """What the :class:`QueueRouter` s of one crawl share: the queues, and who is idle."""

    def __init__(self, shards: int) -> None:
        self.lock = threading.Lock()
        self.queues: list[deque[Routed]] = [deque() for _ in range(shards)]
        self.idle = [False] * shards
        self.closed = [False] * shards

    def settled(self) -> bool:
        # every shard idle or gone, and nothing queued for one that is still there: no shard can
        # get work again (only a received URL wakes an idle shard), so the state lasts
        return all(self.closed[i] or (self.idle[i] and not self.queues[i]) for i in range(len(self.queues)))


class QueueRouter:
    """In-process routing (threads, or event loops in threads): a queue per shard behind a lock.
    Build the routers of a crawl with :meth:`mesh`."""

    def __init__(self, mesh: _Mesh, shard: int) -> None:
        if not 0 <= shard < len(mesh.queues):
            raise ValueError(f"shard {shard} is not one of the mesh's {len(mesh.queues)}")
        self._mesh = mesh
        self.shard = shard

    @classmethod
    def mesh(cls, shards: int) -> list[QueueRouter]:
        """``shards`` routers wired to each other: give router ``i`` to shard ``i``."""
        if shards < 1:
            raise ValueError(f"a mesh needs at least one shard, not {shards}")
        shared = _Mesh(shards)
        return [cls(shared, i) for i in range(shards)]

    def send(self, owner: int, url: str, depth: int, priority: float, anchor: str) -> None:
        mesh = self._mesh
        if not 0 <= owner < len(mesh.queues):
            raise ValueError(f"shard {owner} is not one of the mesh's {len(mesh.queues)}")
        with mesh.lock:
            mesh.queues[owner].append((url, depth, priority, anchor))

    def receive(self) -> list[Routed]:
        mesh = self._mesh
        with mesh.lock:
            queue = mesh.queues[self.shard]
            out = list(queue)
            queue.clear()
            if out:
                mesh.idle[self.shard] = False  # in the same breath: no other shard sees it idle now
        return out

    def pending(self, shard: int) -> Sequence[Routed]:
        """What waits in ``shard``'s queue (sent to a shard that has left, for instance)."""
        with self._mesh.lock:
            return list(self._mesh.queues[shard])

    def flush(self) -> None:
        return  # a send is visible at once

    def done(self, idle: bool) -> bool:
        mesh = self._mesh
        with mesh.lock:
            mesh.idle[self.shard] = idle
            return idle and mesh.settled()

    def close(self) -> None:
        with self._mesh.lock:
            self._mesh.closed[self.shard] = True
