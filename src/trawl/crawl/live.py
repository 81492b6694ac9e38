"""A running crawl's state for a monitor, and the monitor's commands back to the crawl.

``trawl crawl`` writes ``frontier/crawl.live.json`` (``frontier/shard-i-of-N.live.json`` for one
shard) from its progress tick, at most every half second, atomically (a temporary file, then
``os.replace``), so a reader never sees half a file. Its size is bounded: the 50 hosts with the
longest queues, the last 50 fetches, the last 120 rate samples. The monitor (``trawl serve``'s
``/c/<name>/crawl``, or anyone) steers the crawl by writing one word, ``pause``, ``resume`` or
``stop``, to ``frontier/crawl.control``; the crawl reads it at its next tick and removes it.
Pause starts no new fetch (those in flight finish); stop ends the crawl as a limit would, with
``stopped: "stopped-by-user"``, and ``--resume`` continues it.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trawl.crawl.crawler import Crawler

__all__ = [
    "COMMANDS",
    "HOSTS_SHOWN",
    "RECENT_FETCHES",
    "LiveMonitor",
    "control_path",
    "live_path",
    "read_live",
    "send_command",
]

COMMANDS = ("pause", "resume", "stop")
HOSTS_SHOWN = 50
RECENT_FETCHES = 50
SAMPLES = 120
#: the seconds of samples a rate is measured over
RATE_WINDOW = 5.0


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
