"""Scale-out on one machine (issue 37: 1 -> 2 workers, at least 1.7x asked), the whole commands.

(a) ``trawl ingest --workers 1`` against ``--workers 2`` (and Ray, and the plain ingest): the
input is the headline benchmark's (``bench/pipeline.py``), the WCXB pages of
``../shared/data/extraction/wcxb-dev`` as a Common-Crawl-shaped WARC split into ``--files``
files; every stage on, the collection written, the parts merged. The machine's own ceiling is
measured beside them: one process ingesting every file against two at once, each ingesting half.

(b) ``trawl crawl`` of the test web (500 hosts, no delay, 128 requests in flight) against
``trawl crawl --workers 2`` (two shards, each with its store workers) and Ray actors.

Each run is its own process, timed from start to exit; rounds alternate the order, the best
round of each counts.

(c) ``trawl stats`` and ``trawl export -f jsonl`` of the ingested pages: one process against the
sharded commands with ``--workers 1`` and ``--workers 2``.

    python bench/scale.py                          # crawl and ingest: 1 and 2 workers, Ray, the plain run
    python bench/scale.py --part ingest --pages 400 --repeat 1
    python bench/scale.py --part crawl --crawl-pages 3000
    python bench/scale.py --part collection         # (c) stats and export of the ingested pages
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


CRAWLS: dict[str, list[str]] = {
    "crawl (one process and its store workers)": [],
    "crawl --workers 2": ["--workers", "2"],
    "crawl --workers 2 --executor ray": ["--workers", "2", "--executor", "ray"],
}


def crawl_part(pages: int, repeat: int) -> None:
    """``trawl crawl`` of the test web (500 hosts, no delay, 128 in flight) against ``--workers 2``."""
    from crawl import start_server  # noqa: PLC0415 - bench/crawl.py, beside this script

    server, port = start_server(500, 40)
    try:
        best: dict[str, float] = {}
        names = list(CRAWLS)
        try:
            import ray  # noqa: F401, PLC0415
        except ImportError:
            names = [n for n in names if "ray" not in n]
        for round_no in range(repeat):
            for name in names[round_no % len(names) :] + names[: round_no % len(names)]:
                with tempfile.TemporaryDirectory() as tmp:
                    cmd = [
                        sys.executable,
                        "-m",
                        "trawl.cli.main",
                        "crawl",
                        "http://h0.test/",
                        "-o",
                        f"{tmp}/c",
                    ]
                    cmd += [
                        "--max-pages",
                        str(pages),
                        "--delay",
                        "0",
                        "--delay-factor",
                        "0",
                        "--concurrency",
                        "128",
                    ]
                    cmd += ["--resolve", f"*.test=127.0.0.1:{port}", "--json", *CRAWLS[name]]
                    t0 = time.perf_counter()
                    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
                    seconds = time.perf_counter() - t0
                if done.returncode != 0:
                    raise SystemExit(f"{name} failed: {done.stderr[-2000:]}")
                got = json.loads(done.stdout.strip().splitlines()[-1])["pages"]
                if got != pages:
                    raise SystemExit(f"{name} fetched {got} of {pages} pages: the comparison is void")
                print(f"round {round_no + 1} {name:42s} {pages:,} pages in {seconds:.1f} s", flush=True)
                best[name] = min(best.get(name, seconds), seconds)
        print(f"\n{pages:,} pages of the test web (500 hosts), {os.cpu_count()} cores, best of {repeat}\n")
        print("| command | seconds | pages/s | vs one process |")
        print("|---|---:|---:|---:|")
        one = best[names[0]]
        for name in names:
            print(
                f"| `trawl {name}` | {best[name]:.1f} | {pages / best[name]:.0f} | {one / best[name]:.2f}x |"
            )
    finally:
        server.kill()
        server.wait()


COLLECTION_VARIANTS: dict[str, list[str]] = {
    "plain (default)": [],
    "--workers 1": ["--workers", "1"],
    "--workers 2": ["--workers", "2"],
}


def collection_part(folder: Path, repeat: int) -> None:
    """(c) ``trawl stats`` and ``trawl export -f jsonl`` of the ingested pages: one process, and
    sharded with 1 and 2 workers (the reports and the records equal; the times compared)."""
    with tempfile.TemporaryDirectory() as tmp:
        coll = Path(tmp) / "c"
        docs = run(folder, coll, [])["docs"]
        best: dict[tuple[str, str], float] = {}
        for round_no in range(repeat):
            for command in ("stats", "export"):
                names = list(COLLECTION_VARIANTS)
                for name in names[round_no % 3 :] + names[: round_no % 3]:
                    out = Path(tmp) / f"out-{command}-{round_no}-{name.replace(' ', '')}"
                    args = ["stats", str(coll), "--json"]
                    if command == "export":
                        args = ["export", str(coll), "-f", "jsonl", "-o", str(out), "--json"]
                    cmd = [sys.executable, "-m", "trawl.cli.main", *args, *COLLECTION_VARIANTS[name]]
                    t0 = time.perf_counter()
                    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
                    seconds = time.perf_counter() - t0
                    if done.returncode != 0:
                        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
                    print(f"round {round_no + 1} trawl {command} {name:18s} {seconds:.1f} s", flush=True)
                    key = (command, name)
                    best[key] = min(best.get(key, seconds), seconds)
    print(f"\n`trawl stats` and `trawl export -f jsonl` of the {docs:,} ingested pages, best of {repeat}\n")
    print("| command | seconds | vs --workers 1 |")
    print("|---|---:|---:|")
    for command in ("stats", "export -f jsonl"):
        one = best[(command.split()[0], "--workers 1")]
        for name in COLLECTION_VARIANTS:
            seconds = best[(command.split()[0], name)]
            print(f"| `trawl {command} {name}` | {seconds:.1f} | {one / seconds:.2f}x |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1600)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", nargs="*", choices=list(VARIANTS), help="variants to run")
    ap.add_argument("--part", choices=["ingest", "crawl", "collection", "both", "all"], default="both")
    ap.add_argument("--crawl-pages", type=int, default=3000)
    args = ap.parse_args()
    if args.part in ("crawl", "both", "all"):
        crawl_part(args.crawl_pages, args.repeat)
        if args.part == "crawl":
            return 0
    folder, pages, size = build_warcs(args.pages, args.files)
    if args.part in ("collection", "all"):
        collection_part(folder, args.repeat)
        if args.part == "collection":
            return 0
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
