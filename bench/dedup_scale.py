"""Benchmark: ``trawl dedup C`` (one process) against ``trawl dedup C --workers N`` (map, shuffle and
reduce tasks on local processes, then on a local Ray): seconds, and whether the pairs and the
clusters are the same.

    python bench/dedup_scale.py                    # 4,000 documents, 2 workers
    python bench/dedup_scale.py --docs 20000 --workers 4 [--no-ray] [--json FILE]

The documents are the generator's (:func:`trawl.dedup.synth.generate`: families of a base text and
1-3 edited variants, plus singletons), written as text files and ingested once into a collection;
each run works on its own copy of it. Times are the discovery's wall clock in this process (for
Ray, its start included: the run starts a local Ray and stops it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from trawl.dedup.engine import DedupOptions  # noqa: E402
from trawl.dedup.synth import generate  # noqa: E402
from trawl.jobs.dedup import DiscoveryResult, discover_collection  # noqa: E402
from trawl.jobs.executors import LocalExecutor, RayExecutor  # noqa: E402
from trawl.jobs.ingest import ingest  # noqa: E402
from trawl.jobs.sharded_dedup import sharded_discover  # noqa: E402
from trawl.store.collection import Collection  # noqa: E402


def build(root: Path, docs: int) -> Path:
    corpus = generate(docs // 4, singletons=docs - docs // 4 * 3, truth=False, seed=11)
    src = root / "docs"
    src.mkdir()
    for name, text in zip(corpus.names, corpus.texts, strict=True):
        (src / f"{name}.txt").write_text(text, encoding="utf-8")
    with Collection.create(root / "collection") as coll:
        ingest([src], coll, incremental=False)
    return root / "collection"


def outcome(result: DiscoveryResult) -> tuple[list[tuple[str, str, float, str]], set[frozenset[str]]]:
    names = result.finder.names
    pairs = [(names[p.a], names[p.b], p.similarity, p.method) for p in result.pairs]
    clusters = {frozenset(names[m] for m in c.members) for c in result.clusters}
    return pairs, clusters


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--json", type=Path, help="write the rows here too")
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="trawl-dedup-scale-") as tmp:
        t = time.perf_counter()
        source = build(Path(tmp), args.docs)
        print(f"{args.docs} documents generated and ingested in {time.perf_counter() - t:.1f} s", flush=True)
        executors: list[tuple[str, Any]] = [("one process", None), ("local", LocalExecutor(args.workers))]
        if not args.no_ray and importlib.util.find_spec("ray") is not None:
            executors.append(("ray (local)", RayExecutor(args.workers)))
        reference: tuple[Any, Any] | None = None
        for label, executor in executors:
            path = Path(tmp) / f"c-{len(runs)}"
            shutil.copytree(source, path)
            with Collection.open(path) as coll:
                t = time.perf_counter()
                if executor is None:
                    result = discover_collection(coll, DedupOptions())
                    phases = ""
                else:
                    run = sharded_discover(coll, DedupOptions(), executor)
                    result = run.result
                    phases = ", ".join(f"{k} {v:.1f}" for k, v in run.seconds.items())
                seconds = time.perf_counter() - t
            got = outcome(result)
            reference = reference or got
            row = {
                "run": label,
                "workers": 1 if executor is None else args.workers,
                "seconds": round(seconds, 2),
                "phases": phases,
                "pairs": len(got[0]),
                "clusters": len(got[1]),
                "same_pairs": got[0] == reference[0],
                "same_clusters": got[1] == reference[1],
            }
            runs.append(row)
            print(json.dumps(row), flush=True)
    print(f"\n| run ({args.docs:,} documents) | workers | seconds | pairs | clusters | same as one process |")
    print("|---|---:|---:|---:|---:|---|")
    for r in runs:
        same = "yes" if r["same_pairs"] and r["same_clusters"] else "**no**"
        print(
            f"| {r['run']} | {r['workers']} | {r['seconds']:.1f} | {r['pairs']} | {r['clusters']} | {same} |"
        )
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1), encoding="utf-8")
    return 0 if all(r["same_pairs"] and r["same_clusters"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
