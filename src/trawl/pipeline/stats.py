"""Namespaced counters: statistics are an output, not log lines.

Keys are ``/``-separated paths such as ``read/records``, ``drop/warc/truncated-gzip`` or
``error/html/ValueError``. A :class:`Stats` is saved as JSON per run and any number of them merge
by addition, so sharded runs add up.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["Stats"]


class Stats:
    """Counters plus per-stage wall time, mergeable and JSON-serialisable."""

    __slots__ = ("counters", "finished", "started", "timings")

    def __init__(self) -> None:
        self.counters: Counter[str] = Counter()
        self.timings: dict[str, float] = {}
        self.started = time.time()
        self.finished: float | None = None

    def inc(self, key: str, n: int = 1) -> None:
        self.counters[key] += n

    def add_time(self, stage: str, seconds: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds

    def __getitem__(self, key: str) -> int:
        return self.counters[key]

    def get(self, key: str, default: int = 0) -> int:
        return self.counters.get(key, default)

    def prefix(self, prefix: str) -> dict[str, int]:
        """Counters under ``prefix`` (``drop/`` → every drop reason)."""
        return {k: v for k, v in sorted(self.counters.items()) if k.startswith(prefix)}

    def merge(self, other: Stats) -> Stats:
        """Add ``other`` into this one and return it."""
        self.counters.update(other.counters)
        for stage, seconds in other.timings.items():
            self.add_time(stage, seconds)
        self.started = min(self.started, other.started)
        if other.finished is not None:
            self.finished = max(self.finished or other.finished, other.finished)
        return self

    @classmethod
    def merged(cls, many: Iterable[Stats]) -> Stats:
        out = cls()
        first = True
        for s in many:
            if first:
                out.started = s.started
                first = False
            out.merge(s)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "started": self.started,
            "finished": self.finished,
            "counters": dict(sorted(self.counters.items())),
            "timings": {k: round(v, 6) for k, v in sorted(self.timings.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Stats:
        out = cls()
        out.counters.update({str(k): int(v) for k, v in data.get("counters", {}).items()})
        for k, v in data.get("timings", {}).items():
            out.add_time(str(k), float(v))
        out.started = float(data.get("started", out.started))
        fin = data.get("finished")
        out.finished = float(fin) if fin is not None else None
        return out

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Stats:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def __repr__(self) -> str:
        return f"Stats({dict(self.counters)!r})"
