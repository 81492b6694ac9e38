"""A desktop crawl's resource budget: files and bytes a second, low priority, pause on battery.

A crawl of someone's own machine must not be noticed: :class:`ResourceBudget` paces the files
the walk *reads* (a file found unchanged by ``stat`` costs no read and is not paced) to at most
``files_per_second`` and ``mb_per_second``, can lower the process's CPU priority (``os.nice``)
and I/O priority (Linux ``ioprio_set``, class idle, through ``ctypes``), and can wait while the
machine runs on battery.

Battery, on Linux: ``/sys/class/power_supply/*/`` lists the power supplies; the machine is on
battery when it has at least one mains/USB adapter (``type`` ``Mains``, ``USB``...) and none of
them is ``online``, or, with no adapter listed, when a ``Battery`` reports ``status``
``Discharging``. A machine with no power supply listed (a server, a container) is never on
battery. Other platforms: never paused (said once, counted ``budget/battery-unknown``).

Counters: ``budget/waited-ms`` (pacing), ``budget/battery-pauses``, ``budget/battery-ms``,
``budget/battery-unknown``; the ingest job counts what :func:`lower_priority` did
(``budget/nice``, ``budget/ioprio``, or ``budget/nice-unavailable``, ``budget/ioprio-unavailable``
with the reason said on the console).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from trawl.errors import ConfigError
from trawl.pipeline.stats import Stats

__all__ = ["POWER_SUPPLY", "ResourceBudget", "lower_priority", "on_battery"]

POWER_SUPPLY = Path("/sys/class/power_supply")
# ioprio_set(2): which = IOPRIO_WHO_PROCESS, class IDLE in the top 3 bits of 16
_IOPRIO_WHO_PROCESS = 1
_IOPRIO_CLASS_IDLE = 3
_IOPRIO_CLASS_SHIFT = 13
# how much unused budget (in seconds of it) may be spent at once after an idle spell
_BURST_SECONDS = 1.0
_SYS_IOPRIO_SET = {"x86_64": 251, "amd64": 251, "aarch64": 30, "arm64": 30, "i386": 289, "i686": 289}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def on_battery(root: Path = POWER_SUPPLY) -> bool | None:
    """True on battery, False on mains power, None when the platform does not say."""
    if not root.is_dir():
        return None
    adapters: list[str] = []
    batteries: list[str] = []
    try:
        supplies = sorted(root.iterdir())
    except OSError:
        return None
    for supply in supplies:
        kind = _read(supply / "type")
        if kind == "Battery":
            batteries.append(_read(supply / "status"))
        elif kind:
            online = _read(supply / "online")
            if online:
                adapters.append(online)
    if adapters:
        return not any(value == "1" for value in adapters)
    if batteries:
        return any(status == "Discharging" for status in batteries)
    return False


def lower_priority(*, cpu: bool = True, io: bool = True) -> dict[str, str]:
    """Lower this process's CPU (nice 19) and I/O (idle class) priority where allowed; returns
    what happened to each (``"done"`` or why not), so the caller can count and say it."""
    out: dict[str, str] = {}
    if cpu:
        try:
            os.nice(19 - os.nice(0))
            out["nice"] = "done"
        except (OSError, AttributeError) as exc:
            out["nice"] = f"not possible: {exc}"
    if io:
        out["ioprio"] = _ioprio_idle()
    return out


def _ioprio_idle() -> str:
    if not sys.platform.startswith("linux"):
        return f"not possible: ioprio_set is Linux only (this is {sys.platform})"
    number = _SYS_IOPRIO_SET.get(platform.machine().lower())
    if number is None:
        return f"not possible: no ioprio_set syscall number known for {platform.machine()!r}"
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        prio = _IOPRIO_CLASS_IDLE << _IOPRIO_CLASS_SHIFT
        if libc.syscall(number, _IOPRIO_WHO_PROCESS, 0, prio) != 0:
            err = ctypes.get_errno()
            return f"not possible: ioprio_set failed: {os.strerror(err)}"
    except (OSError, AttributeError) as exc:
        return f"not possible: {exc}"
    return "done"


@dataclass(slots=True)
class ResourceBudget:
    """Paces reads to ``files_per_second`` and ``mb_per_second`` (0: no limit) and, with
    ``pause_on_battery``, waits while :func:`on_battery` says so (checked every
    ``battery_check_seconds``). ``stop``: set it and every wait ends at once. ``clock`` and
    ``sleep`` are for tests."""

    files_per_second: float = 0.0
    mb_per_second: float = 0.0
    pause_on_battery: bool = False
    battery_check_seconds: float = 5.0
    power_supply: Path = POWER_SUPPLY
    stop: threading.Event = field(default_factory=threading.Event)
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], object] | None = None
    _start: float | None = None
    _files: int = 0
    _bytes: int = 0
    _battery_checked: float = float("-inf")
    _said_unknown: bool = False

    def __post_init__(self) -> None:
        if self.files_per_second < 0 or self.mb_per_second < 0:
            raise ConfigError(
                f"a resource budget is positive or 0 (no limit), not files_per_second="
                f"{self.files_per_second}, mb_per_second={self.mb_per_second}"
            )

    @property
    def limited(self) -> bool:
        return bool(self.files_per_second or self.mb_per_second or self.pause_on_battery)

    def _wait(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if self.sleep is not None:
            self.sleep(seconds)
        else:
            self.stop.wait(seconds)

    def before_read(self, size: int, stats: Stats) -> None:
        """Wait until reading one more file of ``size`` bytes keeps within the budget."""
        if self.pause_on_battery:
            self._battery(stats)
        if not (self.files_per_second or self.mb_per_second):
            return
        now = self.clock()
        if self._start is None:
            self._start = now
        self._files += 1
        self._bytes += max(0, size)
        # the earliest time by which this many files and bytes are allowed
        due = 0.0
        if self.files_per_second:
            due = max(due, (self._files - 1) / self.files_per_second)
        if self.mb_per_second:
            due = max(due, (self._bytes - max(0, size)) / (self.mb_per_second * 1e6))
        behind = now - (self._start + due)
        if behind > _BURST_SECONDS:
            # time spent idle (a watch waiting, a walk of unchanged files) earns no burst past
            # a second's worth of the budget
            self._start += behind - _BURST_SECONDS
        wait = self._start + due - now
        if wait > 0 and not self.stop.is_set():
            stats.inc("budget/waited-ms", round(wait * 1000))
            self._wait(wait)

    def _battery(self, stats: Stats) -> None:
        now = self.clock()
        if now - self._battery_checked < self.battery_check_seconds:
            return
        self._battery_checked = now
        state = on_battery(self.power_supply)
        if state is None:
            if not self._said_unknown:
                stats.inc("budget/battery-unknown")
                self._said_unknown = True
            return
        if not state:
            return
        stats.inc("budget/battery-pauses")
        started = self.clock()
        while state and not self.stop.is_set():
            self._wait(self.battery_check_seconds)
            state = bool(on_battery(self.power_supply))
        stats.inc("budget/battery-ms", round((self.clock() - started) * 1000))
        self._battery_checked = self.clock()
        # the pause is not part of the pacing: start the rate afresh
        self._start, self._files, self._bytes = None, 0, 0
