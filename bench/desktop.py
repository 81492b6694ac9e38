"""The desktop crawl against the disk: first ingest vs unchanged re-ingest, one touch, one
deletion, and how fast a watch picks up a new, a changed and a deleted file.

    python bench/desktop.py [--files 10000] [--out bench/out/desktop.json]

A tree of ``--files`` small files (text, HTML, Markdown; every 500th one 200 kB) is built in a
temporary folder and ingested with the default configuration. The re-ingest of the unchanged
tree must open none of its files (every ``os.open``/``open`` under the tree is counted) and be at
least 50x faster than the first ingest; touching one file (new bytes) must store exactly one
row; deleting one must mark exactly one. The watch part runs ``ingest(watch=True)`` with each
backend and times each change until the pass that reports it.
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trawl.jobs.ingest import IngestResult, ingest
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

WORDS = (
    "river",
    "stone",
    "field",
    "harbour",
    "lantern",
    "meadow",
    "orchard",
    "pebble",
    "quarry",
    "thistle",
    "valley",
    "willow",
    "archive",
    "ledger",
    "minutes",
    "invoice",
    "recipe",
    "garden",
    "letter",
    "report",
    "summary",
    "draft",
    "notes",
)


def build_tree(root: Path, n: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    total = 0
    for i in range(n):
        folder = root / f"d{i % 50:02d}" / f"s{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))
        kind = i % 3
        if i % 500 == 0:
            words = (words + " ") * 300  # a few larger files, ~200 kB
        if kind == 0:
            name, text = f"f{i:05d}.txt", words + "\n"
        elif kind == 1:
            name, text = (
                f"f{i:05d}.html",
                f"<html><head><title>Page {i}</title></head><body><p>{words}</p></body></html>",
            )
        else:
            name, text = f"f{i:05d}.md", f"# Note {i}\n\n{words}\n"
        data = text.encode()
        (folder / name).write_bytes(data)
        total += len(data)
    return total


class OpenCounter:
    """Counts ``os.open`` and ``open`` of paths under a folder, in this process."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.count = 0
        self._os_open = os.open
        self._open = builtins.open

    def __enter__(self) -> OpenCounter:
        def os_open(path: Any, *a: Any, **kw: Any) -> int:
            if not isinstance(path, int) and os.fspath(path).startswith(self.root):
                self.count += 1
            return self._os_open(path, *a, **kw)

        def open_(file: Any, *a: Any, **kw: Any) -> Any:
            if isinstance(file, str | os.PathLike) and os.fspath(file).startswith(self.root):
                self.count += 1
            return self._open(file, *a, **kw)

        os.open = os_open  # type: ignore[assignment]
        builtins.open = open_
        return self

    def __exit__(self, *exc: object) -> None:
        os.open = self._os_open
        builtins.open = self._open


def timed(root: Path, coll: Path, **kw: Any) -> tuple[IngestResult, float, int]:
    with OpenCounter(root) as opens:
        t0 = time.perf_counter()
        with Collection.create(coll) as collection:
            result = ingest([root], collection, **kw)
        seconds = time.perf_counter() - t0
    return result, seconds, opens.count


def watch_delays(root: Path, coll: Path, backend: str) -> dict[str, float]:
    stop = threading.Event()
    passes: list[tuple[float, dict[str, int]]] = []
    first = threading.Event()

    def on_pass(_n: int, stats: Stats) -> None:
        passes.append((time.monotonic(), stats.prefix("local/")))
        first.set()

    collection = Collection.create(
        coll, overrides=[f"local.watch_backend={backend}", "local.poll_interval=0.5"]
    )
    thread = threading.Thread(
        target=lambda: ingest([root], collection, watch=True, stop=stop, on_pass=on_pass)
    )
    thread.start()
    out: dict[str, float] = {}
    steps: list[tuple[str, str, Callable[[], object]]] = [
        ("new", "local/new", lambda: (root / "watch-new.txt").write_text("a file made during the watch\n")),
        ("changed", "local/changed", lambda: (root / "watch-new.txt").write_text("the same file, changed\n")),
        ("deleted", "local/deleted", (root / "watch-new.txt").unlink),
    ]
    try:
        first.wait(600)
        time.sleep(0.5)
        for name, counter, step in steps:
            before = passes[-1][1].get(counter, 0)
            t0 = time.monotonic()
            step()
            while time.monotonic() - t0 < 30 and passes[-1][1].get(counter, 0) <= before:
                time.sleep(0.01)
            hit = next((t for t, c in passes if c.get(counter, 0) > before), None)
            out[name] = round(hit - t0, 3) if hit is not None else float("inf")
    finally:
        stop.set()
        thread.join(60)
        collection.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "desktop.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="trawl-desktop-") as tmp:
        root, coll = Path(tmp) / "tree", Path(tmp) / "coll"
        size = build_tree(root, args.files)
        first, t_first, _ = timed(root, coll)
        again, t_again, opens_again = timed(root, coll)
        victim = next(root.rglob("f00004.*"))
        victim.write_text(victim.read_text() + "one more line\n")
        touched, t_touch, _ = timed(root, coll)
        gone = next(root.rglob("f00005.*"))
        gone.unlink()
        deleted, t_delete, _ = timed(root, coll)
        watch = {b: watch_delays(root, Path(tmp) / f"watch-{b}", b) for b in ("watchfiles", "poll")}
    figures = {
        "files": args.files,
        "bytes": size,
        "first_seconds": round(t_first, 2),
        "first_stored": first.stats.get("store/records"),
        "unchanged_seconds": round(t_again, 3),
        "unchanged_opens": opens_again,
        "unchanged_counted": again.stats.get("local/unchanged"),
        "speedup": round(t_first / t_again, 1),
        "touch_seconds": round(t_touch, 3),
        "touch_rows_written": touched.stats.get("store/records"),
        "touch_changed": touched.stats.get("local/changed"),
        "delete_seconds": round(t_delete, 3),
        "delete_rows_marked": deleted.stats.get("local/deleted"),
        "delete_rows_written": deleted.stats.get("store/records"),
        "watch": watch,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    ok = (
        opens_again == 0
        and figures["unchanged_counted"] == args.files
        and figures["speedup"] >= 50
        and figures["touch_rows_written"] == 1
        and figures["delete_rows_marked"] == 1
        and figures["delete_rows_written"] == 0
        and all(v < 2.0 for w in watch.values() for v in w.values())
    )
    print("PASS" if ok else "FAIL", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
