"""Benchmark: the logical dump and load of a table (merging a sharded task's part, issue 37).

    python bench/store_dump.py [--rows 20000] [--versions 2] [--repeat 3]

Builds a table shaped like a collection's (a ``fetch:capture`` record, a title, a 2 KB text, a
links list and two anchor cells per row, ``--versions`` captures of each page, the ``anchor``
and ``hash`` indexes, one JSON entry per row), then times, best of ``--repeat``:

* ``dump``: ``Table.dump()`` iterated (every version decoded);
* ``write file`` / ``read file``: ``write_dump`` to a zstd file, ``read_dump`` back;
* ``load``: ``TabletTable.load()`` of the dump into an empty tablet table (what a merge does);
* ``reload``: the same load again into the now full table (a re-run after a crash: idempotent);
* ``dump+load``: dump piped straight into load (no file).

Figures are rows per second (and items per second: cell versions, index and JSON entries and
posting rows).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from trawl.store.collection import FAMILY_VERSIONS
from trawl.store.dump import read_dump, write_dump
from trawl.store.table import DumpItem, Mutation, Table
from trawl.store.tablets import TabletTable

WORDS = ["river", "bank", "water", "stream", "bridge", "valley", "town", "market", "harbour", "mill"]


def _build(path: Path, rows: int, versions: int) -> Table:
    table = Table(path, versions=FAMILY_VERSIONS)
    for v in range(versions):
        batch: list[Mutation] = []
        indexes: list[tuple[str, str, str]] = []
        entries: list[tuple[str, str, object]] = []
        for i in range(rows):
            row = f"com,host{i % 997})/page/{i:06d}"
            url = f"http://host{i % 997}.com/page/{i:06d}"
            words = [WORDS[(i + k) % len(WORDS)] for k in range(4)]
            text = " ".join(WORDS[(i * 7 + k + v) % len(WORDS)] for k in range(330))
            put = {
                "fetch": {
                    "capture": {
                        "url": url,
                        "status": 200,
                        "fetched_at": f"2024-05-{v + 1:02d}T00:00:00Z",
                        "pointer": {"file": f"part-{v}.warc.gz", "offset": i * 4096, "length": 4000},
                    }
                },
                "text": {"title": f"Page {i} about {' '.join(words)}", "text": text},
                "links": {"out": [f"http://host{(i + k) % 997}.com/" for k in range(5)]},
                "anchor": {f"http://from{i % 31}.com/": " ".join(words), "http://hub.com/": words[0]},
            }
            batch.append(Mutation(row, 1_000_000 * (v + 1), put, postings={"anchor": words}))
            indexes.append(("hash", f"{i:016x}", row))
            entries.append(("payload", f"sha1:{i:08x}{v}", {"row": row, "offset": i * 4096}))
            if len(batch) >= 1000:
                table.write(batch, indexes=indexes, entries=entries)
                batch, indexes, entries = [], [], []
        if batch:
            table.write(batch, indexes=indexes, entries=entries)
    table.compact()
    return table


def _best(repeat: int, job: Callable[[], int]) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = job()
        times.append(time.perf_counter() - t0)
    return min(times), n


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--versions", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trawl-dump-bench-"))
    try:
        t0 = time.perf_counter()
        source = _build(work / "source", args.rows, args.versions)
        print(f"built {args.rows:,} rows x {args.versions} versions in {time.perf_counter() - t0:.1f} s")
        items: list[DumpItem] = list(source.dump())
        dump = work / "part.dump"
        results: dict[str, tuple[float, int]] = {}
        results["dump"] = _best(args.repeat, lambda: sum(1 for _ in source.dump()))
        results["write file"] = _best(args.repeat, lambda: write_dump(items, dump, codec="zstd"))
        results["read file"] = _best(args.repeat, lambda: sum(1 for _ in read_dump(dump)))

        def load(fresh: bool, stream: bool) -> int:
            if fresh:
                shutil.rmtree(work / "dest", ignore_errors=True)
            with TabletTable(work / "dest", versions=FAMILY_VERSIONS) as dest:
                counts = dest.load(source.dump() if stream else items)
            return sum(counts.values())

        results["load"] = _best(args.repeat, lambda: load(True, False))
        results["reload"] = _best(args.repeat, lambda: load(False, False))
        results["dump+load"] = _best(args.repeat, lambda: load(True, True))
        print(f"{len(items):,} items, file {dump.stat().st_size / 1e6:.1f} MB (zstd)")
        print(f"{'step':<12}{'seconds':>10}{'rows/s':>12}{'items/s':>12}")
        for name, (seconds, _) in results.items():
            print(f"{name:<12}{seconds:>10.2f}{args.rows / seconds:>12,.0f}{len(items) / seconds:>12,.0f}")
        with TabletTable(work / "dest", versions=FAMILY_VERSIONS) as dest:
            assert list(dest.dump()) == items, "the loaded table differs from the source"
        source.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
