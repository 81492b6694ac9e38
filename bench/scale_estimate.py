"""The measured inputs of ``docs/scale.md`` (issue 37): what one URL, one host, one page and one
document cost in trawl's own structures, for a paper estimate of a 1-billion-page crawl.

    python bench/scale_estimate.py                     # every part, ~1-2 minutes on 2 cores
    python bench/scale_estimate.py --part frontier --urls 200000
    python bench/scale_estimate.py --json bench/out/scale_estimate.json

Parts:

* ``frontier``: ``--urls`` synthetic URLs (Common-Crawl-like paths) over ``--hosts`` hosts put
  through :class:`~trawl.crawl.frontier.Frontier` (SQLite on disk): bytes a URL on disk, the
  seen set's and the hosts' memory, insert rate, and the cost of reopening it (``--resume``).
* ``seen``: one :class:`~trawl.crawl.seen.SeenSet` merge timed at growing sizes (the merge
  re-sorts the whole array every ``buffer`` new keys, so the total cost grows as n²).
* ``dedup``: the main text of the 1,337 real WCXB pages through trawl's shingling: words and
  distinct 5-word shingles a document, LSH bands for the 0.8 threshold; the union-find's memory
  and time a document.
* ``storage``: ``trawl ingest`` (defaults) of 400 real WCXB pages (``bench/pipeline.py``'s WARC
  files): collection bytes a page and a byte of HTML; the 100,000-page test-web collection of
  ``bench/web.py --real`` is measured too when it is there.
* ``politeness``: no measurement, the arithmetic of docs/scale.md §4 (Zipf hosts, per-host gap).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.crawl.frontier import Entry, Frontier
from trawl.crawl.seen import SeenSet
from trawl.crawl.urlnorm import host_of, shard_of, url_key
from trawl.dedup.cluster import UnionFind
from trawl.dedup.hashing import shingle_hashes
from trawl.dedup.minhash import lsh_params

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from pipeline import WCXB, build_warcs  # noqa: E402 - bench/ is not a package

WORDS = ("news article product blog page category tag archive item story review guide help about").split()  # noqa: SIM905 - a word list


def zipf_counts(total: int, hosts: int, s: float = 1.0) -> npt.NDArray[np.int64]:
    """``total`` pages dealt over ``hosts`` hosts with host i holding a share ∝ 1 / i**s."""
    weights = 1.0 / np.arange(1, hosts + 1, dtype=np.float64) ** s
    counts: npt.NDArray[np.int64] = np.floor(weights / weights.sum() * total).astype(np.int64)
    counts[: total - int(counts.sum())] += 1
    return counts


def synthetic_urls(n: int, hosts: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    names = [
        f"www.{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(9))}{i}.com"
        for i in range(hosts)
    ]
    counts = zipf_counts(n, hosts)
    out = []
    for name, count in zip(names, counts.tolist(), strict=True):
        for j in range(count):
            a, b = rng.choice(WORDS), rng.choice(WORDS)
            slug = "-".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
            out.append(f"https://{name}/{a}/{b}/{j}-{slug}.html")
    rng.shuffle(out)
    return out


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- parts ---------------------------------------------------------------------------------------------


def part_frontier(urls_n: int, hosts_n: int) -> dict[str, Any]:
    urls = synthetic_urls(urls_n, hosts_n)
    mean_len = sum(map(len, urls)) / len(urls)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "crawl.sqlite"
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        fr = Frontier(path)
        batch = 10_000
        for i in range(0, len(urls), batch):
            entries = [Entry(url_key(u), u, fr.host_name(host_of(u))) for u in urls[i : i + batch]]
            fr.add_many(entries)
            fr.flush()
        insert_s = time.perf_counter() - t0
        fr.seen._merge()
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        seen_bytes = fr.seen.nbytes
        in_queues = sum(len(h.queue) for h in fr.hosts.values())
        fr.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        fr.close()
        disk = path.stat().st_size
        # reopening (what --resume does): the seen set rebuilt from every key in the table
        tracemalloc.start()
        t0 = time.perf_counter()
        fr = Frontier(path)
        reopen_s = time.perf_counter() - t0
        reopen_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        fr.close()
    entry = _entry_bytes()
    return {
        "urls": urls_n,
        "hosts": hosts_n,
        "mean_url_chars": round(mean_len, 1),
        "disk_bytes_per_url": round(disk / urls_n, 1),
        "seen_bytes_per_url": round(seen_bytes / urls_n, 2),
        "memory_held_bytes": held,
        "entries_in_back_queues": in_queues,
        "bytes_per_queued_entry": entry,
        "memory_beyond_seen_and_queues_per_host": round((held - seen_bytes - in_queues * entry) / hosts_n, 1),
        "insert_us_per_url": round(insert_s / urls_n * 1e6, 2),
        "reopen_s": round(reopen_s, 2),
        "reopen_peak_bytes_per_url": round(reopen_peak / urls_n, 1),
    }


def _entry_bytes() -> int:
    """Traced bytes of one queued Entry with its heap tuple and URL (measured on 20,000)."""
    urls = synthetic_urls(20_000, 100, seed=3)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    held = [(-0.0, i, Entry(url_key(u), u, "h")) for i, u in enumerate(urls)]
    size = (tracemalloc.get_traced_memory()[0] - base) // len(held)
    tracemalloc.stop()
    del held
    return int(size)


def part_seen(sizes: list[int]) -> dict[str, Any]:
    rng = np.random.default_rng(1)
    out = {}
    for n in sizes:
        s = SeenSet(rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64))
        s.add_many(rng.integers(-(2**63), 2**63 - 1, size=65_535, dtype=np.int64).tolist())
        s._buffer.add(1)
        t0 = time.perf_counter()
        s._merge()
        out[str(n)] = round(time.perf_counter() - t0, 4)
    return {"merge_seconds_at_size": out, "buffer": 65_536}


def part_dedup() -> dict[str, Any]:
    texts = []
    for f in sorted((WCXB / "truth").glob("*.json")):
        text = json.loads(f.read_text(encoding="utf-8")).get("main_content") or ""
        if text.strip():
            texts.append(text)
    batch = shingle_hashes(texts, n=5)
    distinct = np.array([len(np.unique(batch.of(d))) for d in range(len(texts))])
    bands, rows = lsh_params(0.8)
    n = 1_000_000
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    uf = UnionFind(n)
    uf_bytes = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    rng = np.random.default_rng(2)
    a = rng.integers(0, n, size=n // 10)
    b = rng.integers(0, n, size=n // 10)
    t0 = time.perf_counter()
    uf.union_all(a, b)
    uf.roots()
    uf_s = time.perf_counter() - t0
    return {
        "documents": len(texts),
        "distinct_shingles_mean": round(float(distinct.mean()), 1),
        "distinct_shingles_median": float(np.median(distinct)),
        "bands": bands,
        "rows": rows,
        "union_find_bytes_per_doc": round(uf_bytes / n, 1),
        "union_find_us_per_doc": round(uf_s / n * 1e6, 3),
    }


def part_storage(pages: int) -> dict[str, Any]:
    folder, count, _ = build_warcs(pages, 4)
    names = sorted((WCXB / "html").glob("*.html.gz"))[:pages]
    html_bytes = sum(len(gzip.decompress(p.read_bytes())) for p in names)
    input_gz = sum(p.stat().st_size for p in folder.glob("*.warc.gz"))
    out: dict[str, Any] = {"pages": count, "html_bytes_per_page": round(html_bytes / count)}
    out["input_warc_gz_bytes_per_page"] = round(input_gz / count)
    with tempfile.TemporaryDirectory() as tmp:
        coll = Path(tmp) / "c"
        cmd = [sys.executable, "-m", "trawl.cli.main", "ingest", str(folder), "-o", str(coll), "--json"]
        t0 = time.perf_counter()
        subprocess.run(
            cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
        )
        out["ingest_seconds"] = round(time.perf_counter() - t0, 1)
        for part in ("warc", "table", "frontier", "index"):
            p = coll / part
            out[f"{part}_bytes_per_page"] = round(dir_bytes(p) / count) if p.exists() else 0
        out["collection_bytes_per_page"] = round(dir_bytes(coll) / count)
    web = ROOT / "bench" / "out" / "web" / "real-100000"
    if (web / "bench.json").exists():
        docs = 101_237  # the collection's rows (bench/README.md, `trawl serve`)
        out["testweb_100k"] = {
            part: round(dir_bytes(web / part) / docs)
            for part in ("warc", "table", "web", "index", "frontier")
        }
    return out


def part_politeness(total: float, hosts: int, s: float, gap: float, days: float) -> dict[str, Any]:
    counts = zipf_counts(int(total), hosts, s).astype(np.float64)
    seconds = days * 86_400
    cap = math.floor(seconds / gap)  # pages one host can give in the time, one at a time
    top = {str(k): int(counts[k - 1]) for k in (1, 10, 100, 1000, 10_000)}
    over = counts > cap
    reachable = float(np.minimum(counts, cap).sum())
    default_cap = 2000  # [crawl] max_pages_per_host
    shards = {}
    names = [f"h{i}.example" for i in range(min(hosts, 200_000))]
    head = counts[: len(names)]
    rest = float(counts[len(names) :].sum())
    for n in (10, 100):
        load = np.zeros(n)
        np.add.at(load, np.array([shard_of(h, n) for h in names]), head)
        load += rest / n  # the tail spreads evenly
        shards[str(n)] = round(float(load.max() / load.mean()), 2)
    return {
        "pages": total,
        "hosts": hosts,
        "zipf_s": s,
        "gap_s": gap,
        "days": days,
        "top_host_pages": top,
        "top_host_days": round(counts[0] * gap / 86_400, 1),
        "pages_per_host_in_time": cap,
        "hosts_over_it": int(over.sum()),
        "share_reachable": round(reachable / total, 4),
        "share_within_default_cap_2000": round(float(np.minimum(counts, default_cap).sum()) / total, 4),
        "hosts_at_default_cap": int((counts >= default_cap).sum()),
        "max_shard_load_over_mean": shards,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--part", default="all", choices=["all", "frontier", "seen", "dedup", "storage", "politeness"]
    )
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--pages", type=int, default=400, help="WCXB pages ingested for the storage part")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    parts = ["frontier", "seen", "dedup", "storage", "politeness"] if args.part == "all" else [args.part]
    result: dict[str, Any] = {}
    for part in parts:
        t0 = time.perf_counter()
        if part == "frontier":
            result[part] = part_frontier(args.urls, args.hosts)
        elif part == "seen":
            result[part] = part_seen([1_000_000, 4_000_000, 16_000_000])
        elif part == "dedup":
            result[part] = part_dedup()
        elif part == "storage":
            result[part] = part_storage(args.pages)
        else:
            result[part] = part_politeness(1e9, 10_000_000, 1.0, 1.3, 30)
        result[part]["part_seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({part: result[part]}, indent=1), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
