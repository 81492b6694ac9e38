"""Sharded tasks (issue 37): ``trawl ingest --workers 1`` against ``--workers 2`` (at least 1.7x asked).

The input is the headline benchmark's (``bench/pipeline.py``): the WCXB pages of
``../shared/data/extraction/wcxb-dev`` as a Common-Crawl-shaped WARC, split into ``--files``
files. Each variant is the whole command a user runs (every stage on, the collection written, the
parts merged), in its own process, timed from start to exit; rounds alternate the order, and the
best round of each counts. The plain ``trawl ingest`` (one process that converts with a pool of
step workers, the default) is timed beside them.

    python bench/scale.py                          # 1, 2 workers, Ray with 2, the plain ingest
    python bench/scale.py --pages 400 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from pipeline import build_warcs  # noqa: E402 - bench/ is not a package

VARIANTS: dict[str, list[str]] = {
    "--workers 1": ["--workers", "1"],
    "--workers 2": ["--workers", "2"],
    "--workers 2 --executor ray": ["--workers", "2", "--executor", "ray"],
    "plain (default)": [],
}


def run(folder: Path, out: Path, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "trawl.cli.main", "ingest", str(folder), "-o", str(out), "--json", *extra]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(extra) or 'plain'} failed: {done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return {"seconds": seconds, "docs": data["counters"].get("store/records", 0), "tasks": data.get("tasks")}


def ceiling(folder: Path) -> tuple[float, float]:
    """The machine's own parallel scaling: one process (no step workers) ingesting every file,
    and two such processes at once, each ingesting half the files: (seconds of one, of two)."""
    files = sorted(folder.glob("*.warc.gz"))
    halves = [files[::2], files[1::2]]
    plain = ["--json", "--set", "ingest.workers=0"]
    with tempfile.TemporaryDirectory() as tmp:
        trawl = [sys.executable, "-m", "trawl.cli.main", "ingest"]
        t0 = time.perf_counter()
        subprocess.run(
            [*trawl, *map(str, files), "-o", f"{tmp}/one", *plain], capture_output=True, cwd=ROOT, check=True
        )
        one = time.perf_counter() - t0
        t0 = time.perf_counter()
        procs = [
            subprocess.Popen(
                [*trawl, *map(str, half), "-o", f"{tmp}/h{i}", *plain],
                stdout=subprocess.DEVNULL,
                cwd=ROOT,
            )
            for i, half in enumerate(halves)
        ]
        if any(p.wait() != 0 for p in procs):
            raise SystemExit("an ingest of half the files failed")
        two = time.perf_counter() - t0
    return one, two


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1600)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", nargs="*", choices=list(VARIANTS), help="variants to run")
    args = ap.parse_args()
    folder, pages, size = build_warcs(args.pages, args.files)
    names = args.only or list(VARIANTS)
    try:
        import ray  # noqa: F401, PLC0415
    except ImportError:
        names = [n for n in names if "ray" not in n]
        print("Ray is not installed: its variant is left out (pip install 'trawl[scale]')")
    best: dict[str, dict[str, Any]] = {}
    for round_no in range(args.repeat):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        for name in order:
            with tempfile.TemporaryDirectory() as tmp:
                r = run(folder, Path(tmp) / "c", VARIANTS[name])
            r["load"] = os.getloadavg()[0]
            print(f"round {round_no + 1} {name:28s} {r['docs']:,} docs in {r['seconds']:.1f} s", flush=True)
            if r["docs"] < pages:
                raise SystemExit(f"{name} stored {r['docs']} of {pages} pages: the comparison is void")
            if name not in best or r["seconds"] < best[name]["seconds"]:
                best[name] = r
    alone, together = min(ceiling(folder) for _ in range(args.repeat))
    print(
        f"\n{pages:,} WCXB pages ({size / 2**20:.0f} MiB of HTML) in {args.files} WARC files, "
        f"{os.cpu_count()} cores, best of {args.repeat}\n"
    )
    print("| command | tasks | seconds | docs/s | vs --workers 1 |")
    print("|---|---:|---:|---:|---:|")
    one = best.get("--workers 1")
    for name in names:
        r = best[name]
        rate = r["docs"] / r["seconds"]
        ratio = f"{one['seconds'] / r['seconds']:.2f}x" if one else "-"
        print(f"| `trawl ingest {name}` | {r['tasks'] or '-'} | {r['seconds']:.1f} | {rate:.1f} | {ratio} |")
    print(
        f"\nThe machine's ceiling: one process ingesting every file {alone:.1f} s; two at once, each "
        f"ingesting half, {together:.1f} s: {alone / together:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
