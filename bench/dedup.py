"""Benchmark: near-duplicate detection quality, speed and memory; trawl vs datasketch.

    python bench/dedup.py                 # everything, quick sizes (a few minutes on 2 cores)
    python bench/dedup.py --part quality  # one part: quality | clough | speed | discovery
    python bench/dedup.py --full          # the issue's sizes: 100,000 docs for speed, 1,000,000 for discovery

Parts:

* **quality** — the deterministic generator (:mod:`trawl.dedup.synth`): families of a base text
  and 1-3 variants at known edit rates, the true Jaccard of every pair computed from word
  5-gram tuples. Precision and recall of each method for "Jaccard ≥ 0.8" (exact copies inherit
  their original's pairs). Simhash is calibrated: P/R/F1 for k = 0…10 with tf and tf·idf
  weights, computed by brute force over all pairs, then the chosen k is run through the Manku
  tables and must agree with the brute force.
* **clough** — Clough & Stevenson's corpus: each answer scored against its task's source text by
  each method; AUC for every pair of classes (cut > light > heavy > non).
* **speed** — the same generated documents through trawl (one-permutation MinHash, numpy) and
  datasketch (``MinHash.update_batch`` + ``MinHashLSH``), 128 permutations, threshold 0.8:
  signatures, LSH insert and LSH query, interleaved by ``bench/harness.py``; memory per indexed
  document for each index.
* **search** — the stored search index (:mod:`trawl.dedup.persist`): building the finder from the
  texts against opening the stored index, and one query on each (same answers); for winnow, one
  query on the stored inverted index against the same query rebuilding it from the stored
  fingerprint sets (what ``trawl dedup near --method winnow`` did before it was stored).
* **discovery** — exact + MinHash discovery with clusters over short generated documents, in a
  child process so that its peak resident memory is its own.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from harness import Bench  # noqa: E402
from trawl.dedup import minhash as minhash_module  # noqa: E402
from trawl.dedup.engine import DedupOptions, DuplicateFinder  # noqa: E402
from trawl.dedup.fingerprint import FingerprintIndex, invert, mod_p_batch, winnow, winnow_batch  # noqa: E402
from trawl.dedup.hashing import normalize_words, shingle_hashes, word_hashes  # noqa: E402
from trawl.dedup.minhash import MinHashLSH, estimate_jaccard, minhash_signatures  # noqa: E402
from trawl.dedup.sets import HashSets  # noqa: E402
from trawl.dedup.simhash import hamming, simhash_batch  # noqa: E402
from trawl.dedup.synth import Corpus, generate, short_documents  # noqa: E402

CLOUGH = ROOT.parent / "shared" / "data" / "dedup" / "clough-stevenson"
CLASSES = ("cut", "light", "heavy", "non")


# -- quality -----------------------------------------------------------------------------------


def _heads(n: int, exact: list[tuple[int, int]]) -> list[int]:
    head = list(range(n))
    for a, b in exact:
        head[b] = head[a]
    return head


def score_pairs(
    corpus: Corpus, reported: set[tuple[int, int]], exact: list[tuple[int, int]], threshold: float
) -> dict[str, float]:
    """Precision / recall of reported pairs (closed over exact-copy groups) against the truth."""
    n = len(corpus.texts)
    head = _heads(n, exact)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(head[i], []).append(i)
    predicted: set[tuple[int, int]] = set()
    for g in groups.values():
        predicted.update((min(x, y), max(x, y)) for k, x in enumerate(g) for y in g[k + 1 :])
    for a, b in reported:
        for x in groups[head[a]]:
            for y in groups[head[b]]:
                if x != y:
                    predicted.add((min(x, y), max(x, y)))
    truth = corpus.positives(threshold)
    tp = len(predicted & truth)
    p = tp / len(predicted) if predicted else 1.0
    r = tp / len(truth) if truth else 1.0
    return {
        "precision": p,
        "recall": r,
        "f1": 2 * p * r / (p + r) if p + r else 0.0,
        "predicted": len(predicted),
        "truth": len(truth),
        "tp": tp,
    }


def method_quality(corpus: Corpus, method: str, options: DedupOptions) -> dict[str, float]:
    finder = DuplicateFinder(replace(options, methods=("exact", method)))  # type: ignore[arg-type]
    finder.add(zip(corpus.names, corpus.texts, strict=True))
    pairs = finder.discover()
    reported = {(min(p.a, p.b), max(p.a, p.b)) for p in pairs if p.method == method}
    exact = [(p.a, p.b) for p in pairs if p.method == "exact"]
    out = score_pairs(corpus, reported, exact, options.threshold)
    out["candidates"] = finder.counters.get(f"dedup/{method}/candidates", 0)
    return out


def simhash_calibration(corpus: Corpus, threshold: float, ks: range) -> dict[str, list[dict[str, float]]]:
    """P/R/F1 of "Hamming <= k" for each k and feature choice, by brute force over all pairs."""
    wb = word_hashes(corpus.texts)
    sb = shingle_hashes(wb, 5)
    n = len(corpus.texts)
    truth = corpus.positives(threshold)
    ta = np.array([a for a, _ in truth], dtype=np.int64)
    tb = np.array([b for _, b in truth], dtype=np.int64)
    out: dict[str, list[dict[str, float]]] = {}
    features = (("words tf", wb, "tf"), ("words tf·idf", wb, "tfidf"), ("5-grams tf", sb, "tf"))
    for name, feats, weighting in features:
        fps = simhash_batch(feats, weighting)  # type: ignore[arg-type]
        # histogram of the distance of every pair (i < j), row by row
        hist = np.zeros(65, dtype=np.int64)
        for i in range(n - 1):
            hist += np.bincount(hamming(fps[i], fps[i + 1 :]), minlength=65)
        pred = np.cumsum(hist)  # pairs within distance k
        tp = np.cumsum(np.bincount(hamming(fps[ta], fps[tb]), minlength=65))
        rows = []
        for k in ks:
            p = tp[k] / pred[k] if pred[k] else 1.0
            r = tp[k] / len(truth)
            rows.append(
                {
                    "k": k,
                    "precision": p,
                    "recall": r,
                    "f1": 2 * p * r / (p + r) if p + r else 0.0,
                    "predicted": int(pred[k]),
                }
            )
        out[name] = rows
    return out


def part_quality(args: argparse.Namespace) -> dict[str, Any]:
    corpus = generate(args.families, seed=42)
    print(
        f"generated {len(corpus.texts)} documents, {len(corpus.pairs)} true pairs, "
        f"{len(corpus.positives(0.8))} with Jaccard ≥ 0.8",
        flush=True,
    )
    options = DedupOptions()
    result: dict[str, Any] = {"documents": len(corpus.texts), "positives": len(corpus.positives(0.8))}
    calib = simhash_calibration(corpus, 0.8, range(0, 11))
    result["simhash_calibration"] = calib
    names = list(calib)
    print("\nsimhash calibration (64 bits), P / R / F1 at Jaccard ≥ 0.8, by features and weights:")
    print("| k | " + " | ".join(f"{n} P | {n} R | {n} F1" for n in names) + " |")
    print("|---:|" + "---:|---:|---:|" * len(names))
    for k in range(len(calib[names[0]])):
        cells = [calib[n][k] for n in names]
        print(
            f"| {k} | "
            + " | ".join(f"{c['precision']:.3f} | {c['recall']:.3f} | {c['f1']:.3f}" for c in cells)
            + " |"
        )
    best = {w: max(rows, key=lambda r: r["f1"]) for w, rows in calib.items()}
    result["simhash_best"] = {w: {"k": r["k"], "f1": r["f1"]} for w, r in best.items()}
    print("best: " + ", ".join(f"{w} k={r['k']} (F1 {r['f1']:.3f})" for w, r in best.items()))
    print("\n| method | precision | recall | F1 | reported pairs | true pairs | LSH candidates |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    result["methods"] = {}
    for name, method, opts in (
        ("minhash (verified)", "minhash", options),
        ("simhash 5-grams tf (default k)", "simhash", options),
        (
            "simhash words tf·idf (best k)",
            "simhash",
            replace(
                options,
                simhash_features="words",
                simhash_weighting="tfidf",
                simhash_k=int(best["words tf·idf"]["k"]),
            ),
        ),
        ("winnow (w=4, n=5)", "winnow", options),
        ("0 mod p (p=4, the default)", "modp", options),
        ("0 mod p (p=2)", "modp", replace(options, modp_p=2)),
        ("0 mod p (p=8)", "modp", replace(options, modp_p=8)),
    ):
        t0 = time.perf_counter()
        q = method_quality(corpus, method, opts)
        q["seconds"] = time.perf_counter() - t0
        result["methods"][name] = q
        print(
            f"| {name} | {q['precision']:.4f} | {q['recall']:.4f} | {q['f1']:.4f} | {q['predicted']} | "
            f"{q['truth']} | {q['candidates'] or '-'} |",
            flush=True,
        )
    return result


# -- Clough & Stevenson --------------------------------------------------------------------------


def auc(pos: list[float], neg: list[float]) -> float:
    """P(score of a higher-class item > a lower-class one), ties counting one half."""
    p = np.asarray(pos)[:, None]
    n = np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def clough_scores(shingle: int = 5) -> dict[str, dict[str, list[float]]]:
    """Per method, per class: each answer's similarity to its task's source."""
    rows = list(csv.DictReader((CLOUGH / "file_information.csv").open(encoding="utf-8")))
    answers = [r for r in rows if r["Category"] in CLASSES]
    tasks = sorted({r["Task"] for r in answers})
    src = [(CLOUGH / f"orig_task{t}.txt").read_text(encoding="utf-8", errors="replace") for t in tasks]
    ans = [(CLOUGH / r["File"]).read_text(encoding="utf-8", errors="replace") for r in answers]
    texts = src + ans
    wb = word_hashes(texts)
    sb = shingle_hashes(wb, shingle)
    sets = HashSets.from_batch(sb)
    sigs = minhash_signatures(sb)
    win = winnow_batch(sb, 4)
    fps_tf = simhash_batch(wb, "tf")
    fps_idf = simhash_batch(wb, "tfidf")
    fps_sh = simhash_batch(sb, "tf")
    a = np.array([len(src) + i for i in range(len(ans))])
    b = np.array([tasks.index(r["Task"]) for r in answers])
    scores = {
        "jaccard (exact shingles)": sets.jaccard(a, b),
        "containment (answer in source)": sets.containment(a, b),
        "minhash estimate": estimate_jaccard(sigs[a], sigs[b]),
        "0 mod 3 jaccard": mod_p_batch(sb, 3).jaccard(a, b),
        "winnow jaccard": win.jaccard(a, b),
        "winnow containment": win.containment(a, b),
        "simhash words tf": 1 - hamming(fps_tf[a], fps_tf[b]) / 64,
        "simhash words tf·idf": 1 - hamming(fps_idf[a], fps_idf[b]) / 64,
        f"simhash {shingle}-grams tf": 1 - hamming(fps_sh[a], fps_sh[b]) / 64,
    }
    out: dict[str, dict[str, list[float]]] = {}
    for name, s in scores.items():
        out[name] = {
            c: [float(x) for x, r in zip(s, answers, strict=True) if r["Category"] == c] for c in CLASSES
        }
    return out


def part_clough(args: argparse.Namespace) -> dict[str, Any]:
    if not CLOUGH.is_dir():
        print(f"skipped: {CLOUGH} not found")
        return {}
    result: dict[str, Any] = {}
    for n in (5, 3):
        scores = clough_scores(n)
        pairs = [(hi, lo) for i, hi in enumerate(CLASSES) for lo in CLASSES[i + 1 :]]
        print(f"\nClough & Stevenson, word {n}-grams: AUC per pair of classes (1.0 = always ranked right)")
        print("| score | " + " | ".join(f"{h}>{lo}" for h, lo in pairs) + " |")
        print("|---|" + "---:|" * len(pairs))
        table = {}
        for name, per in scores.items():
            row = {f"{h}>{lo}": auc(per[h], per[lo]) for h, lo in pairs}
            table[name] = row
            print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in row.values()) + " |")
        result[f"n={n}"] = table
    return result


# -- speed and memory ------------------------------------------------------------------------------


def _ds_shingles(text: str, n: int) -> list[bytes]:
    w = normalize_words(text).split()
    if len(w) < n:
        return [" ".join(w).encode()] if w else []
    return [" ".join(w[i : i + n]).encode() for i in range(len(w) - n + 1)]


def part_speed(args: argparse.Namespace) -> dict[str, Any]:
    from datasketch import MinHash  # type: ignore[import-untyped]  # noqa: PLC0415 - the peer, this part only
    from datasketch import MinHashLSH as DsLSH  # noqa: PLC0415

    corpus = generate(args.speed_docs // 2, length=(50, 250), variants=(1, 1), seed=11, truth=False)
    texts = corpus.texts[: args.speed_docs]
    ndocs = len(texts)
    nbytes = sum(len(t) for t in texts)
    print(f"\n{ndocs} documents, {nbytes / 1e6:.1f} MB of text, 128 permutations, threshold 0.8", flush=True)
    state: dict[str, Any] = {}
    # Load (or compile, once per machine) the optional numba kernels before timing: a crawl-scale
    # process pays that once, not per batch. 2,000 documents x 17 bands reach the LSH kernels too.
    warm = minhash_signatures(shingle_hashes(texts[:2000], 5))
    warm_lsh = MinHashLSH(0.8, 128)
    warm_lsh.insert(np.arange(len(warm)), warm)
    warm_lsh.query_pairs(warm)

    def trawl_sigs() -> int:
        sigs = []
        for i in range(0, ndocs, 10_000):
            sigs.append(minhash_signatures(shingle_hashes(texts[i : i + 10_000], 5)))
        state["t_sigs"] = np.concatenate(sigs)
        return ndocs

    def ds_sigs() -> int:
        out = []
        for t in texts:
            m = MinHash(num_perm=128)
            m.update_batch(_ds_shingles(t, 5))
            out.append(m)
        state["d_sigs"] = out
        return ndocs

    def trawl_insert() -> int:
        lsh = MinHashLSH(0.8, 128)
        lsh.insert(np.arange(ndocs), state["t_sigs"])
        lsh._tables()  # the sorted tables are built on first use: count it here
        state["t_lsh"] = lsh
        return ndocs

    def ds_insert() -> int:
        lsh = DsLSH(threshold=0.8, num_perm=128)
        with lsh.insertion_session() as session:
            for i, m in enumerate(state["d_sigs"]):
                session.insert(i, m, check_duplication=False)
        state["d_lsh"] = lsh
        return ndocs

    def trawl_query() -> int:
        q, _ = state["t_lsh"].query_pairs(state["t_sigs"])
        state["t_hits"] = len(q)
        return ndocs

    def numpy_only(fn: Any) -> Any:
        """``fn`` with the numba LSH kernels off: the pure-numpy fallback (same arrays, tested)."""

        def run() -> int:
            saved = minhash_module._KERNEL_MIN_KEYS
            minhash_module._KERNEL_MIN_KEYS = 1 << 62
            try:
                return int(fn())
            finally:
                minhash_module._KERNEL_MIN_KEYS = saved

        return run

    def ds_query() -> int:
        hits = 0
        lsh = state["d_lsh"]
        for m in state["d_sigs"]:
            hits += len(lsh.query(m))
        state["d_hits"] = hits
        return ndocs

    results: dict[str, Any] = {"documents": ndocs, "text_mb": nbytes / 1e6}
    total: dict[str, float] = {"trawl": 0.0, "datasketch": 0.0}
    total_cpu: dict[str, float] = {"trawl": 0.0, "datasketch": 0.0}
    for title, mine, peer in (
        ("MinHash signatures from text", trawl_sigs, ds_sigs),
        ("LSH insert", trawl_insert, ds_insert),
        ("LSH query (every document)", trawl_query, ds_query),
    ):
        bench = Bench(title, units="docs")
        if not title.startswith("MinHash"):
            bench.add("trawl, numpy only", numpy_only(mine))  # builds identical tables (tested)
        bench.add("trawl", mine)
        bench.add("datasketch", peer)
        # the LSH stages take seconds: best of 3 for both peers (less noise on a shared machine)
        repeat = args.repeat if title.startswith("MinHash") else max(args.repeat, 3)
        res = bench.run(repeat=repeat, warmup=False, verbose=False)
        print(bench.table(res, reference="datasketch"), flush=True)
        results[title] = {r.name: {"best_s": r.best, "docs_per_s": ndocs / r.best} for r in res}
        results[title]["ratio"] = bench.ratio(res, "trawl", "datasketch")
        for r in res:
            if r.name in total:
                total[r.name] += r.best
                total_cpu[r.name] += r.best_cpu
        if not title.startswith("MinHash"):
            results[title]["ratio_numpy_only"] = bench.ratio(res, "trawl, numpy only", "datasketch")
    results["end_to_end"] = {
        "trawl_docs_per_s": ndocs / total["trawl"],
        "datasketch_docs_per_s": ndocs / total["datasketch"],
        "ratio_wall": total["datasketch"] / total["trawl"],
        "ratio_cpu": total_cpu["datasketch"] / total_cpu["trawl"],
    }
    print(
        f"end to end (signatures + insert + query): trawl {ndocs / total['trawl']:,.0f} docs/s, "
        f"datasketch {ndocs / total['datasketch']:,.0f} docs/s: "
        f"{total['datasketch'] / total['trawl']:.1f}x wall, "
        f"{total_cpu['datasketch'] / total_cpu['trawl']:.1f}x CPU"
    )
    print(f"query hits: trawl {state['t_hits']}, datasketch {state['d_hits']} (different hash functions)")
    # memory per indexed document
    mem: dict[str, float] = {}
    mem[f"trawl MinHashLSH ({state['t_lsh'].bands} bands: key + id + directory per band)"] = (
        state["t_lsh"].nbytes / ndocs
    )
    finder = DuplicateFinder(DedupOptions(methods=("exact", "minhash", "simhash", "winnow")))
    finder.add(zip(corpus.names[:ndocs], texts, strict=True))
    for k, v in finder.memory().items():
        mem[f"trawl finder: {k}"] = v / ndocs
    mem["trawl finder, per-document lists (names, digests, word counts)"] = (
        sum(sys.getsizeof(x) for x in finder.names)
        + sum(sys.getsizeof(x) for x in finder.digests)
        + 8 * 3 * ndocs
    ) / ndocs
    del finder, state["t_lsh"]
    state.pop("d_lsh", None)
    sample = state["d_sigs"][: min(ndocs, 20_000)]
    tracemalloc.start()
    lsh = DsLSH(threshold=0.8, num_perm=128)
    for i, m in enumerate(sample):
        lsh.insert(i, m, check_duplication=False)
    cur, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mem[f"datasketch MinHashLSH (tracemalloc, {len(sample)} docs)"] = cur / len(sample)
    mem["datasketch MinHash objects kept by the caller (hashvalues)"] = sample[0].hashvalues.nbytes
    print("\n| index | bytes per indexed document |\n|---|---:|")
    for label, per_doc in mem.items():
        print(f"| {label} | {per_doc:,.0f} |")
    results["memory_bytes_per_doc"] = mem
    return results


# -- search with a stored index --------------------------------------------------------------------


def _drop_middle_word(text: str) -> str:
    words = text.split(" ")
    return " ".join(words[: len(words) // 2] + words[len(words) // 2 + 1 :])


def part_search(args: argparse.Namespace) -> dict[str, Any]:
    """What the stored search index saves ``trawl dedup near``: building the finder from the texts
    (a lower bound of a rebuild: the collection's table is not read here) against opening the
    stored index, and the time of one query either way."""
    import tempfile  # noqa: PLC0415 - this part only

    from trawl.dedup.persist import load_index, save_index  # noqa: PLC0415

    corpus = generate(args.speed_docs // 2, length=(50, 250), variants=(1, 1), seed=11, truth=False)
    texts = corpus.texts[: args.speed_docs]
    names = corpus.names[: len(texts)]
    built_with = DedupOptions(methods=("exact", "minhash", "simhash", "winnow"))
    options = DedupOptions(methods=("exact", "minhash", "simhash"))
    state = {"warc": [], "runs": ["bench"]}
    c0, t0 = time.process_time(), time.perf_counter()
    finder = DuplicateFinder(built_with)
    finder.add(zip(names, texts, strict=True))
    finder.lsh.query_pairs(np.zeros((0, options.num_perm), dtype=np.uint32))  # build the tables
    finder.simhash_index.nbytes  # noqa: B018 - builds the permuted tables
    build = (time.perf_counter() - t0, time.process_time() - c0)
    # near duplicates, not copies (a copy is answered by its digest and skipped by the other methods)
    queries = [_drop_middle_word(texts[i]) for i in range(0, len(texts), max(1, len(texts) // 100))]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "near"
        t0 = time.perf_counter()
        save_index(finder, directory, rows=names, collection_state=state, built_by="bench", reason="bench")
        save_s = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in directory.iterdir())
        t0 = time.perf_counter()
        loaded, _rows, why = load_index(directory, options, state)
        load_s = time.perf_counter() - t0
        assert loaded is not None, why
        t0 = time.perf_counter()
        got = [loaded.near(q) for q in queries]
        q_loaded = (time.perf_counter() - t0) / len(queries)
        t0 = time.perf_counter()
        finder.options = options
        want = [finder.near(q) for q in queries]
        q_fresh = (time.perf_counter() - t0) / len(queries)
        assert got == want, "the loaded index must answer as the fresh one"
        del loaded, got
        winnow_fig = _search_winnow(finder, directory, state, queries)
        winnow_fig["index_mb"] = (
            sum((directory / f"winnow.{k}.npy").stat().st_size for k in ("keys", "postings")) / 1e6
        )
    out = {
        "documents": len(texts),
        "build_s": build[0],
        "build_cpu_s": build[1],
        "save_s": save_s,
        "index_mb": size / 1e6,
        "load_s": load_s,
        "query_loaded_ms": 1000 * q_loaded,
        "query_fresh_ms": 1000 * q_fresh,
        "found": sum(len(w) for w in want),
        "winnow": winnow_fig,
    }
    print(
        f"\nsearch index ({len(texts):,} documents, built with minhash + simhash + winnow): building the "
        f"finder from the texts {build[0]:.1f} s ({build[1]:.1f} s CPU; a rebuild also reads the table), "
        f"storing it {save_s:.2f} s, "
        f"{size / 1e6:.1f} MB on disk ({size / len(texts):,.0f} B a document); searching minhash + simhash: "
        f"opening the stored index {load_s:.2f} s; one query {1000 * q_loaded:.1f} ms on the opened index, "
        f"{1000 * q_fresh:.1f} ms in memory ({len(queries)} queries, the same answers)"
    )
    w = winnow_fig
    print(
        f"winnow search (exact + winnow): opening the stored index {w['load_s']:.2f} s (inverted index "
        f"{w['index_mb']:.1f} MB: keys + int32 postings); one query {w['query_loaded_ms']:.2f} ms on the "
        f"stored inverted index ({w['queries']} queries; the index lookup alone {w['lookup_ms']:.2f} ms) "
        f"against {w['query_rebuild_ms']:.0f} ms "
        f"rebuilding it from the stored sets per query and {w['query_fresh_ms']:.0f} ms in memory "
        f"({w['rebuilt_queries']} queries each, the same answers; building it alone "
        f"{w['invert_ms']:.0f} ms); {w['found']} results"
    )
    return out


def _search_winnow(
    finder: DuplicateFinder, directory: Path, state: dict[str, Any], queries: list[str]
) -> dict[str, Any]:
    """Winnow search three ways: the stored inverted index, the stored sets with the index rebuilt
    per query (the previous behaviour), and the in-memory finder; all must answer alike."""
    from trawl.dedup.persist import load_index  # noqa: PLC0415

    options = DedupOptions(methods=("exact", "winnow"))
    t0 = time.perf_counter()
    loaded, _rows, why = load_index(directory, options, state)
    load_s = time.perf_counter() - t0
    assert loaded is not None, why
    t0 = time.perf_counter()
    got = [loaded.near(q) for q in queries]
    q_loaded = (time.perf_counter() - t0) / len(queries)
    stored = loaded.winnow_sets
    # the inverted-index lookup alone (the rest of a query: hashing the text, the exact-digest scan)
    fps = [
        winnow(shingle_hashes(word_hashes([q]), options.shingle).of(0), options.winnow_window)[1]
        for q in queries
    ]
    t0 = time.perf_counter()
    for fp in fps:
        FingerprintIndex(stored, options.max_df).query(fp)
    lookup = (time.perf_counter() - t0) / len(queries)
    plain = DuplicateFinder.restore(
        options,
        names=loaded.names,
        words=loaded.words,
        digests=loaded.digests,
        exact=loaded.exact_pairs,
        shingle_sets=loaded.shingle_sets,
        winnow_sets=HashSets(stored.hashes, stored.offsets),
    )
    few = queries[:5]
    t0 = time.perf_counter()
    rebuilt = [plain.near(q) for q in few]
    q_rebuild = (time.perf_counter() - t0) / len(few)
    finder.options = options
    t0 = time.perf_counter()
    fresh = [finder.near(q) for q in few]
    q_fresh = (time.perf_counter() - t0) / len(few)
    assert got[: len(few)] == rebuilt == fresh, "the stored inverted index must answer as a rebuilt one"
    t0 = time.perf_counter()
    invert(finder.winnow_sets)
    invert_s = time.perf_counter() - t0
    return {
        "load_s": load_s,
        "queries": len(queries),
        "query_loaded_ms": 1000 * q_loaded,
        "lookup_ms": 1000 * lookup,
        "rebuilt_queries": len(few),
        "query_rebuild_ms": 1000 * q_rebuild,
        "query_fresh_ms": 1000 * q_fresh,
        "invert_ms": 1000 * invert_s,
        "found": sum(len(g) for g in got),
    }


# -- discovery -------------------------------------------------------------------------------------


def discovery_child(count: int) -> None:
    """Run in a child process: generate, discover, cluster; print one JSON line."""
    t0 = time.perf_counter()
    corpus = short_documents(count, truth=True)
    t_gen = time.perf_counter() - t0
    finder = DuplicateFinder(DedupOptions(methods=("exact", "minhash")))
    t1 = time.perf_counter()
    c1 = time.process_time()
    finder.add(zip(corpus.names, corpus.texts, strict=True), chunk=20_000)
    t_add = time.perf_counter() - t1
    t2 = time.perf_counter()
    pairs = finder.discover()
    t_disc = time.perf_counter() - t2
    t3 = time.perf_counter()
    clusters = finder.clusters(pairs)
    t_clu = time.perf_counter() - t3
    cpu = time.process_time() - c1
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reported = {(min(p.a, p.b), max(p.a, p.b)) for p in pairs if p.method == "minhash"}
    quality = score_pairs(corpus, reported, [(p.a, p.b) for p in pairs if p.method == "exact"], 0.8)
    print(
        json.dumps(
            {
                "documents": count,
                "generate_s": t_gen,
                "fingerprint_s": t_add,
                "pairs_s": t_disc,
                "cluster_s": t_clu,
                "cpu_s": cpu,
                "pairs": len(pairs),
                "clusters": len(clusters),
                "clustered_docs": sum(c.size for c in clusters),
                "counters": finder.counters,
                "peak_rss_mib": peak_kib / 1024,
                "memory": finder.memory(),
                "quality": quality,
            }
        )
    )


def part_discovery(args: argparse.Namespace) -> dict[str, Any]:
    r = subprocess.run(
        [sys.executable, __file__, "--discovery-child", str(args.discovery_docs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if r.returncode:
        print(r.stderr[-2000:])
        return {"error": r.stderr[-500:]}
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    docs_per_s = out["documents"] / (out["fingerprint_s"] + out["pairs_s"] + out["cluster_s"])
    print(
        f"\ndiscovery on {out['documents']:,} short documents (20-60 words; half in edited pairs): "
        f"fingerprints {out['fingerprint_s']:.1f} s, pairs {out['pairs_s']:.1f} s, clusters "
        f"{out['cluster_s']:.1f} s ({docs_per_s:,.0f} docs/s wall; {out['cpu_s']:.0f} s CPU in all, "
        f"{out['documents'] / out['cpu_s']:,.0f} docs per CPU-second); {out['pairs']:,} pairs, "
        f"{out['clusters']:,} clusters holding {out['clustered_docs']:,} documents; "
        f"peak RSS {out['peak_rss_mib']:,.0f} MiB (generator's texts included)"
    )
    print(f"counters: {json.dumps(out['counters'])}")
    q = out["quality"]
    print(
        f"minhash at J >= 0.8 over the {q['truth']:,} true pairs: precision {q['precision']:.4f}, "
        f"recall {q['recall']:.4f}"
    )
    print(
        "index memory per document: "
        + ", ".join(f"{k} {v / out['documents']:,.0f} B" for k, v in out["memory"].items())
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", action="append", choices=["quality", "clough", "speed", "search", "discovery"])
    ap.add_argument("--full", action="store_true", help="100,000 docs for speed, 1,000,000 for discovery")
    ap.add_argument("--families", type=int, default=2000, help="quality: generated families (default 2000)")
    ap.add_argument("--speed-docs", type=int, default=None)
    ap.add_argument("--discovery-docs", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write all results to this file")
    ap.add_argument("--discovery-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.discovery_child:
        discovery_child(args.discovery_child)
        return
    args.speed_docs = args.speed_docs or (100_000 if args.full else 20_000)
    args.discovery_docs = args.discovery_docs or (1_000_000 if args.full else 100_000)
    parts = args.part or ["quality", "clough", "speed", "search", "discovery"]
    results: dict[str, Any] = {}
    for part in parts:
        results[part] = {
            "quality": part_quality,
            "clough": part_clough,
            "speed": part_speed,
            "search": part_search,
            "discovery": part_discovery,
        }[part](args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
