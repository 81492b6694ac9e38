"""A small side-by-side benchmark harness: trawl and its peers, in one process, interleaved.

Usage::

    bench = Bench("WARC read, gzip", units="records", size_bytes=path.stat().st_size)
    bench.add("trawl", lambda: read_with_trawl(path))
    bench.add("fastwarc", lambda: read_with_fastwarc(path))
    results = bench.run(repeat=5)
    print(bench.table(results, reference="fastwarc"))

Each callable does the whole job once and returns how many units it handled (records,
documents, pairs...). The harness runs every callable once to warm up, then ``repeat`` rounds in
which each callable runs once, in an order rotated per round, so that a slow moment of a shared
machine (other jobs, page cache, CPU frequency) falls on every contestant rather than on one.
It reports the best and the median wall time, the best CPU time of the process (steadier than
wall time on a busy machine), the throughput, and the speed of each contestant relative to the
reference (``trawl / fastwarc = 0.92x`` means trawl does the job at 92 % of FastWARC's speed).
Units are checked to agree across contestants, so a fast wrong answer cannot win.
"""

from __future__ import annotations

import gc
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Bench", "Result", "markitdown_reader"]


@dataclass(slots=True)
class Result:
    """The timings of one contestant."""

    name: str
    units: int | None = None
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.wall)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)


class Bench:
    """Named callables timed side by side; see the module docstring."""

    def __init__(self, title: str, *, units: str = "records", size_bytes: int | None = None) -> None:
        self.title = title
        self.units = units
        self.size_bytes = size_bytes
        self.cases: list[tuple[str, Callable[[], int]]] = []

    def add(self, name: str, fn: Callable[[], int]) -> None:
        self.cases.append((name, fn))

    def _once(self, fn: Callable[[], int]) -> tuple[float, float, int]:
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        units = fn()
        wall = time.perf_counter() - t0
        return wall, time.process_time() - c0, units

    def run(self, repeat: int = 5, *, warmup: bool = True, verbose: bool = True) -> list[Result]:
        results = {name: Result(name) for name, _ in self.cases}
        if warmup:
            for name, fn in self.cases:
                _, _, results[name].units = self._once(fn)
        for rnd in range(repeat):
            k = rnd % len(self.cases)
            for name, fn in self.cases[k:] + self.cases[:k]:
                wall, cpu, units = self._once(fn)
                res = results[name]
                if res.units is None:
                    res.units = units
                elif res.units != units:
                    raise AssertionError(f"{name} handled {units} {self.units} this time, {res.units} before")
                res.wall.append(wall)
                res.cpu.append(cpu)
                if verbose:
                    print(f"  [{self.title}] round {rnd + 1}/{repeat} {name}: {wall:.3f} s", flush=True)
        out = list(results.values())
        counts = {r.units for r in out}
        if len(counts) > 1:
            raise AssertionError(f"contestants disagree on the work done: {[(r.name, r.units) for r in out]}")
        return out

    def table(self, results: Sequence[Result], reference: str | None = None) -> str:
        """A Markdown table: times, throughput and each contestant's speed relative to ``reference``."""
        ref = next((r for r in results if r.name == reference), None)
        head = f"| {self.title} | best s | median s | best CPU s | {self.units}/s |"
        rule = "|---|---:|---:|---:|---:|"
        if self.size_bytes:
            head += " MB/s |"
            rule += "---:|"
        if ref is not None:
            head += f" speed vs {ref.name} (best) | (CPU) |"
            rule += "---:|---:|"
        lines = [head, rule]
        for r in results:
            rate = (r.units or 0) / r.best
            row = f"| {r.name} | {r.best:.3f} | {r.median:.3f} | {r.best_cpu:.3f} | {rate:,.0f} |"
            if self.size_bytes:
                row += f" {self.size_bytes / r.best / 1e6:,.0f} |"
            if ref is not None:
                row += f" {ref.best / r.best:.2f}x | {ref.best_cpu / r.best_cpu:.2f}x |"
            lines.append(row)
        return "\n".join(lines)

    def ratio(self, results: Sequence[Result], name: str, reference: str) -> float:
        """Speed of ``name`` relative to ``reference`` on best wall time (> 1: faster)."""
        by = {r.name: r for r in results}
        return by[reference].best / by[name].best


def markitdown_reader() -> Callable[[Path], tuple[str, str | None]] | None:
    """Microsoft's markitdown, the converters' common peer (from ``bench/out/peers`` or the
    environment; None when not installed): a file's text and None, or "" and the error's type
    name (a peer that cannot read a file scores 0 on it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from markitdown import MarkItDown  # noqa: PLC0415 - an optional peer
    except ImportError:
        return None
    md = MarkItDown(enable_plugins=False)

    def read(path: Path) -> tuple[str, str | None]:
        try:
            return str(md.convert(str(path)).text_content), None
        except Exception as exc:
            return "", type(exc).__name__

    return read
