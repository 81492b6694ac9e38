"""A running crawl's state for a monitor, and the monitor's commands back to the crawl.

``trawl crawl`` writes ``frontier/crawl.live.json`` (``frontier/shard-i-of-N.live.json`` for one
shard) from its progress tick, at most every half second, atomically (a temporary file, then
``os.replace``), so a reader never sees half a file. Its size is bounded: the 50 hosts with the
longest queues, the last 50 fetches, the last 120 rate samples. The monitor (``trawl serve``'s
``/c/<name>/crawl``, or anyone) steers the crawl by writing one word, ``pause``, ``resume`` or
``stop``, to ``frontier/crawl.control``; the crawl reads it at its next tick and removes it.
Pause starts no new fetch (those in flight finish); stop ends the crawl as a limit would, with
``stopped: "stopped-by-user"``, and ``--resume`` continues it. A monitor of a sharded crawl reads
every shard's file (:func:`read_all_live`) and shows them as one (:func:`combine`).
"""

from __future__ import annotations

import bisect
import contextlib
import heapq
import json
import os
import re
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trawl.crawl.crawler import Crawler

__all__ = [
    "COMMANDS",
    "HOSTS_SHOWN",
    "RECENT_FETCHES",
    "LiveMonitor",
    "combine",
    "control_path",
    "live_path",
    "read_all_live",
    "read_collection_live",
    "read_live",
    "send_command",
]

COMMANDS = ("pause", "resume", "stop")
HOSTS_SHOWN = 50
RECENT_FETCHES = 50
SAMPLES = 120
#: the seconds of samples a rate is measured over
RATE_WINDOW = 5.0
#: the names a crawl publishes under: a file of another name in frontier/ is never read as one
LIVE_NAME = re.compile(r"crawl|shard-(0|[1-9][0-9]*)-of-([1-9][0-9]*)")
#: the states of a crawl process that is still there (it reads its control file)
LIVE_STATES = ("running", "paused", "stopping")


def live_path(frontier_dir: Path, name: str = "crawl") -> Path:
    """Where the crawl named ``name`` (``crawl``, ``shard-i-of-N``) publishes its state."""
    return frontier_dir / f"{name}.live.json"


def control_path(frontier_dir: Path, name: str = "crawl") -> Path:
    """Where commands for the crawl named ``name`` are written."""
    return frontier_dir / f"{name}.control"


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def send_command(frontier_dir: Path, command: str, name: str = "crawl") -> Path:
    """Ask the running crawl to ``pause``, ``resume`` or ``stop`` (at its next tick)."""
    if command not in COMMANDS:
        raise ValueError(f"unknown crawl command {command!r}: use one of {', '.join(COMMANDS)}")
    path = control_path(frontier_dir, name)
    _write_atomically(path, command.encode() + b"\n")
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def read_live(frontier_dir: Path, name: str = "crawl") -> dict[str, Any] | None:
    """The published state, or None when no crawl ever published one here. A crawl that died
    without saying so (killed) reads as state ``gone``."""
    try:
        data = json.loads(live_path(frontier_dir, name).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    pid = data.get("pid")
    if data.get("state") != "finished" and isinstance(pid, int) and not _alive(pid):
        data["state"] = "gone"
    return data


def read_all_live(frontier_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every state published in ``frontier_dir`` as (name, state): ``crawl`` first, then the
    shards by their count and number. Only the names a crawl publishes under are read
    (``crawl``, ``shard-i-of-N`` with i < N): any other ``*.live.json`` is not a crawl's."""
    try:
        paths = list(frontier_dir.glob("*.live.json"))
    except OSError:
        return []
    found: list[tuple[tuple[int, int], str]] = []
    for path in paths:
        name = path.name.removesuffix(".live.json")
        if (key := _shard_key(name)) is not None:
            found.append((key, name))
    out = []
    for _key, name in sorted(found):
        if (data := read_live(frontier_dir, name)) is not None:
            out.append((name, data))
    return out


def read_collection_live(collection: Path) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Path]]:
    """Every state published for a collection: in its ``frontier/``, and in each partition's
    (``partitions/*/frontier/``: the shards of ``trawl crawl --workers N``); with the folder each
    name publishes in, where its commands go."""
    states: list[tuple[str, dict[str, Any]]] = []
    where: dict[str, Path] = {}
    dirs = [collection / "frontier"]
    with contextlib.suppress(OSError):
        dirs += sorted(p / "frontier" for p in (collection / "partitions").iterdir() if p.is_dir())
    for folder in dirs:
        for name, data in read_all_live(folder):
            if name not in where:
                states.append((name, data))
                where[name] = folder
    return states, where


def _shard_key(name: str) -> tuple[int, int] | None:
    """(N, i) for ``shard-i-of-N``, (1, 0) for ``crawl``, None for a name no crawl writes."""
    match = LIVE_NAME.fullmatch(name)
    if match is None:
        return None
    if match[1] is None:
        return (1, 0)
    shard, shards = int(match[1]), int(match[2])
    return (shards, shard) if shard < shards and shards > 1 else None


def combine(states: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    """The published states of one collection's crawl as one state of the same shape, with a
    ``shards`` list (name, state, pages, pages_per_s, queued, stopped); None when there is none.
    ``crawl`` alone is returned as it is. Only the layout (one crawl, or N shards) that published
    last is combined: a plain crawl or shards of another N before it are an earlier run's.
    Counts and counters are summed; rates are those of the shards still there summed (all
    shards' when none is); the rate series is the sum, at each sample time, of the shards
    publishing then; the hosts with the longest queues and the recent fetches are merged."""
    if not states:
        return None
    newest = max(states, key=lambda item: _num(item[1].get("updated")))[0]
    layout = (_shard_key(newest) or (1, 0))[0]
    group = [(name, data) for name, data in states if (_shard_key(name) or (1, 0))[0] == layout]
    if len(group) == 1 and group[0][0] == "crawl":
        return group[0][1]
    datas = [data for _name, data in group]
    state = _combined_state([str(data.get("state")) for data in datas])
    live = [data for data in datas if data.get("state") in LIVE_STATES]
    rated = live or datas
    out: dict[str, Any] = {}
    pids = {data.get("pid") for data in rated}
    if len(pids) == 1 and isinstance(pid := pids.pop(), int):
        out["pid"] = pid
    out |= {
        "started": min(_num(data.get("started")) for data in datas),
        "updated": max(_num(data.get("updated")) for data in datas),
        "state": state,
        "seconds": round(_sum(datas, "seconds"), 3),
        "pages": _sum(datas, "pages"),
        "pages_total": _sum(datas, "pages_total"),
        "bytes": _sum(datas, "bytes"),
        "requests": _sum(datas, "requests"),
        "pages_per_s": round(_sum(rated, "pages_per_s"), 2),
        "bytes_per_s": round(_sum(rated, "bytes_per_s"), 1),
        "series": _merge_series([data.get("series") for data in datas]),
    }
    frontiers = [_dict(data.get("frontier")) for data in datas]
    out["frontier"] = {"queued": _sum(frontiers, "queued"), "in_flight": _sum(frontiers, "in_flight")}
    hosts = [_dict(data.get("hosts")) for data in datas]
    top = [h for one in hosts for h in _list(one.get("top")) if isinstance(h, dict)]
    out["hosts"] = {key: _sum(hosts, key) for key in ("known", "active", "waiting", "given_up")}
    out["hosts"]["top"] = sorted(top, key=lambda h: -_num(h.get("queued")))[:HOSTS_SHOWN]
    for key in ("status_classes", "errors", "robots"):
        counts = [_dict(data.get(key)) for data in datas]
        names = dict.fromkeys(name for one in counts for name in one)
        merged = {name: _sum(counts, name) for name in names}
        out[key] = dict(sorted(merged.items())) if key != "robots" else merged
    recent = [r for data in datas for r in _list(data.get("recent")) if isinstance(r, dict)]
    out["recent"] = sorted(recent, key=lambda r: -_num(r.get("time")))[:RECENT_FETCHES]
    if state == "finished":
        out["stopped"] = ", ".join(dict.fromkeys(str(data.get("stopped")) for data in datas))
    out["shards"] = [
        {
            "name": name,
            "state": data.get("state"),
            "pages": _num(data.get("pages")),
            "pages_per_s": _num(data.get("pages_per_s")),
            "queued": _num(_dict(data.get("frontier")).get("queued")),
            "stopped": data.get("stopped"),
        }
        for name, data in group
    ]
    return out


def _combined_state(states: list[str]) -> str:
    live = [s for s in states if s in LIVE_STATES]
    if "running" in live:
        return "running"
    if live:
        return "paused" if all(s == "paused" for s in live) else "stopping"
    if "gone" in states:
        return "gone"
    return next((s for s in states if s != "finished"), "finished")  # a state unknown here, else finished


def _num(value: object) -> float | int:
    """A published number, or 0 for anything else (a file written by hand may hold anything)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _sum(items: Sequence[dict[str, Any]], key: str) -> float | int:
    return sum(_num(item.get(key)) for item in items)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _merge_series(all_series: list[object]) -> list[list[float]]:
    """Samples ``[time, pages/s, bytes/s]`` of several shards as one series: at each time any shard
    sampled, the sum of the rates of the shards publishing then (a shard's sample covers the time
    since its previous one). Shards that ran one after another line up end to end."""
    runs = []
    for series in all_series:
        rows = sorted(
            [_num(row[0]), _num(row[1]), _num(row[2])]
            for row in _list(series)
            if isinstance(row, list) and len(row) == 3
        )
        if rows:
            runs.append(rows)
    if len(runs) == 1:
        return runs[0][-SAMPLES:]
    times = sorted({row[0] for rows in runs for row in rows})[-SAMPLES:]
    merged = []
    for t in times:
        pages = size = 0.0
        for rows in runs:
            if rows[0][0] <= t <= rows[-1][0]:
                row = rows[bisect.bisect_left(rows, [t])]
                pages, size = pages + row[1], size + row[2]
        merged.append([t, round(pages, 2), round(size, 1)])
    return merged


class LiveMonitor:
    """Publishes one crawler's state and applies the commands written for it."""

    def __init__(self, frontier_dir: Path, name: str = "crawl", *, interval: float = 0.5) -> None:
        self.path = live_path(frontier_dir, name)
        self.control = control_path(frontier_dir, name)
        self.interval = interval
        self.started = time.time()
        self.samples: deque[tuple[float, int, int]] = deque(maxlen=SAMPLES)  # (time, pages, bytes)
        self.commands = 0
        self._last = 0.0
        frontier_dir.mkdir(parents=True, exist_ok=True)
        self.control.unlink(missing_ok=True)  # a command left for an earlier run is not this one's

    def tick(self, crawler: Crawler, *, force: bool = False) -> None:
        """Apply a waiting command, then publish (at most every ``interval`` unless ``force``)."""
        self._apply(crawler)
        now = time.time()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        self.samples.append((now, crawler.pages_run, crawler.bytes_run))
        state = "stopping" if crawler.stopping else "paused" if crawler.paused else "running"
        with contextlib.suppress(OSError):  # a monitor that cannot write never stops the crawl
            _write_atomically(self.path, json.dumps(self.snapshot(crawler, state)).encode())

    def finish(self, crawler: Crawler, stopped: str) -> None:
        """The last state: ``finished``, with the reason the crawl stopped."""
        self.samples.append((time.time(), crawler.pages_run, crawler.bytes_run))
        data = self.snapshot(crawler, "finished")
        data["stopped"] = stopped
        with contextlib.suppress(OSError):
            _write_atomically(self.path, json.dumps(data).encode())
        self.control.unlink(missing_ok=True)

    def _apply(self, crawler: Crawler) -> None:
        try:
            word = self.control.read_text(encoding="utf-8", errors="replace").strip().lower()
        except OSError:
            return
        self.control.unlink(missing_ok=True)
        self.commands += 1
        if word == "pause":
            crawler.pause()
        elif word == "resume":
            crawler.resume()
        elif word == "stop":
            crawler.request_stop("stopped-by-user")
        else:
            crawler.stats.inc("crawl/control/unknown")
            return
        crawler.stats.inc(f"crawl/control/{word}")

    def _rates(self) -> tuple[float, float, list[list[float]]]:
        series: list[list[float]] = []
        prev: tuple[float, int, int] | None = None
        for t, p, b in self.samples:
            if prev is not None and t > prev[0]:
                dt = t - prev[0]
                series.append([round(t, 3), round((p - prev[1]) / dt, 2), round((b - prev[2]) / dt, 1)])
            prev = (t, p, b)
        if len(self.samples) < 2:
            return 0.0, 0.0, series
        last = self.samples[-1]
        first = next((s for s in self.samples if last[0] - s[0] <= RATE_WINDOW), self.samples[0])
        if first is last:
            first = self.samples[-2]
        dt = last[0] - first[0]
        if dt <= 0:
            return 0.0, 0.0, series
        return (last[1] - first[1]) / dt, (last[2] - first[2]) / dt, series

    def snapshot(self, crawler: Crawler, state: str) -> dict[str, Any]:
        """The state as published (bounded in size whatever the crawl's)."""
        stats = crawler.stats
        mono, now = time.monotonic(), time.time()
        hosts = crawler.frontier.hosts.values()
        top = heapq.nlargest(HOSTS_SHOWN, hosts, key=lambda h: len(h.queue) + h.on_disk)
        pages_per_s, bytes_per_s, series = self._rates()
        drops = stats.prefix("drop/robots")
        unreachable = sum(v for k, v in drops.items() if k.startswith("drop/robots/unreachable"))
        return {
            "pid": os.getpid(),
            "started": self.started,
            "updated": now,
            "state": state,
            "seconds": round(now - self.started, 3),
            "pages": crawler.pages_run,
            "pages_total": crawler.pages_total,
            "bytes": crawler.bytes_run,
            "requests": crawler.requests,
            "pages_per_s": round(pages_per_s, 2),
            "bytes_per_s": round(bytes_per_s, 1),
            "series": series,
            "frontier": {"queued": crawler.frontier.queued, "in_flight": crawler.in_flight},
            "hosts": {
                "known": len(crawler.frontier.hosts),
                "active": sum(1 for h in hosts if h.busy),
                "waiting": sum(1 for h in hosts if not h.busy and h.has_work() and not h.given_up),
                "given_up": sum(1 for h in hosts if h.given_up),
                "top": [
                    {
                        "host": h.name,
                        "queued": len(h.queue) + h.on_disk,
                        "busy": h.busy,
                        "fetched": h.fetched,
                        "errors": h.errors,
                        "given_up": h.given_up,
                        "delay": round(crawler.politeness_delay(h), 3),
                        "next_in": round(max(0.0, h.next_at - mono), 3),
                    }
                    for h in top
                ],
            },
            "status_classes": _tail(stats.prefix("fetch/status-class/")),
            "errors": _tail(stats.prefix("fetch/error/")),
            "robots": {
                "fetched": stats.get("robots/fetched"),
                "disallowed": sum(drops.values()) - unreachable,
                "unreachable": unreachable,
            },
            "recent": [
                {"time": t, "url": url, "status": status, "bytes": size, "ms": ms}
                for t, url, status, size, ms in reversed(crawler.recent)
            ],
        }


def _tail(counters: dict[str, int]) -> dict[str, int]:
    """``fetch/error/timeout`` → ``timeout``."""
    return {k.split("/", 2)[-1]: v for k, v in sorted(counters.items())}
