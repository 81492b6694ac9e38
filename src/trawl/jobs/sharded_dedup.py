"""``trawl dedup COLLECTION --workers N``: MinHash discovery as map and reduce tasks with a shuffle.

The same pairs and clusters as :func:`~trawl.jobs.dedup.discover_collection` (``trawl dedup C``),
stored the same way, computed as two phases of idempotent tasks on an executor
(:mod:`trawl.jobs.executors`: local processes or Ray), in ``<collection>/tasks/dedup/job-<key>/``:

1. **map** (rank r of M): the rows of one row-key range (cut at row-key quantiles), read from the
   table *read-only* (the job holds the writer's lock; a tablet or a plain table opened read-only
   by another process reads what is stored), fingerprinted as one process does it
   (:class:`~trawl.dedup.engine.DuplicateFinder`: word counts, text digests, shingle sets) with the
   MinHash signature of each shingle set and its band keys. It writes the documents (name, row,
   digest, words), their shingle sets and band keys, and its **band records** (band, key,
   document) cut into R partitions by a hash of (band, key); then its completion marker.
2. **the job**, between the phases: exact duplicates (the same text digest) over every document
   in the order one process reads them; as there, only the first copy of a text is searched for
   near duplicates (the others are left out of the reducers' groups).
3. **reduce** (rank q of R): partition q of every map, grouped by (band, key) → candidate pairs by
   the rule of :meth:`~trawl.dedup.minhash.MinHashLSH.pairs` (every pair of a group; a group of
   more than ``max_run`` as a star) → each verified by the exact Jaccard of the two shingle sets
   (reading only those sets, from the maps' memory-mapped arrays) → the candidates with their
   Jaccard; then its marker.
4. **the job**: every reducer's candidates, each pair once, those ≥ the threshold kept; union-find
   → clusters; stored by :func:`~trawl.jobs.dedup.conclude_discovery` exactly as one process
   stores them (dup cells, report, pairs, counters, the search index of ``trawl dedup near``).

Document ids are global and the same as one process gives: the ranges are in row order and each
map's documents in row order, so a document's id is the documents of the ranges before it plus
its place in its own (the job adds the offsets, known once the maps end).

**Resumable.** The job's folder is named by a key of the options, the collection's state
(:func:`~trawl.jobs.dedup.collection_state`) and the task count: the same command after a failed
task or a killed job finds it and runs only the tasks without a marker; a task killed part-way
leaves nothing that counts (its output is written beside its place and renamed there, then
marked) and is simply run again. A folder of another key (other options, a collection changed
since) is removed; the job's own is removed when its results are stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.dedup.engine import DedupOptions, DuplicateFinder, Pair
from trawl.dedup.hashing import I64, U64, ShingleBatch, splitmix64
from trawl.dedup.minhash import MinHashLSH, band_keys, minhash_signatures
from trawl.dedup.sets import HashSets, concat_ranges, pairs_in_runs, unique_pairs
from trawl.errors import ConfigError
from trawl.jobs.dedup import DiscoveryResult, collection_state, conclude_discovery, documents
from trawl.jobs.executors import Executor, TaskOutcome, begin_task, run_unfinished, write_marker
from trawl.jobs.scan import key_ranges, records
from trawl.store.collection import Collection, StoredRecord

__all__ = ["ShardedDiscovery", "key_ranges", "run_task", "sharded_discover"]

TASKS = Path("tasks") / "dedup"
#: tasks per worker and phase by default: a slow range is then evened out by the others
TASKS_PER_WORKER = 2
MODULE = "trawl.jobs.sharded_dedup"
#: the methods a sharded discovery runs (exact duplicates always come with minhash)
SHARDED_METHODS = ("exact", "minhash")

OnTask = Callable[[str, TaskOutcome, int], None]


@dataclass(slots=True)
class Spec:
    """What every task of one phase needs, written once as ``map.json`` or ``reduce.json``."""

    phase: str  # "map" or "reduce"
    workdir: str
    table: str
    ranges: list[list[str | None]]  # [start, end) per map; end None: to the last row
    reducers: int
    options: dict[str, Any]
    offsets: list[int] = field(default_factory=list)  # reduce: map r's documents are ids offsets[r]…

    @classmethod
    def load(cls, path: str | Path) -> Spec:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))

    def dedup_options(self) -> DedupOptions:
        return DedupOptions(**{**self.options, "methods": tuple(self.options["methods"])})


@dataclass(slots=True)
class ShardedDiscovery:
    """What a sharded discovery found (as one process reports it) and how its tasks ran."""

    result: DiscoveryResult
    maps: int
    reducers: int
    executor: str
    resumed: int  # tasks whose marker an earlier, interrupted job left (not run again)
    seconds: dict[str, float]


def _save_npz(path: Path, arrays: dict[str, npt.NDArray[Any]]) -> None:
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, allow_pickle=False, **arrays)
    os.replace(tmp, path)


def _options_dict(options: DedupOptions) -> dict[str, Any]:
    out = asdict(options)
    out["methods"] = list(options.methods)
    return out


# -- the tasks -----------------------------------------------------------------------------------


def _records(table: Path, start: str, end: str | None) -> Iterator[StoredRecord]:
    """The stored records of a range, read-only (:func:`trawl.jobs.scan.records`: the job that
    started this task holds the writer's lock)."""
    with Collection.open(table.parent, read_only=True) as coll:
        yield from records(coll, start, end)


def _partition(band: I64, key: U64, reducers: int) -> I64:
    """The reducer of each band record: a hash of (band, key) mod ``reducers``."""
    mixed = splitmix64(key ^ (band.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    out: I64 = (mixed % np.uint64(reducers)).astype(np.int64)
    return out


def _map(spec: Spec, rank: int, work: Path) -> dict[str, Any]:
    options = spec.dedup_options()
    start, end = spec.ranges[rank]
    # the engine's own fingerprinting (words, digests, exact copies, shingle sets), without its LSH:
    # the band keys are computed here, of the same signatures, and shuffled to the reducers
    finder = DuplicateFinder(replace(options, methods=("exact",)))
    rows: list[str] = []
    finder.add(documents(_records(Path(spec.table), start or "", end), rows, finder.counters))
    sets = finder.shingle_sets
    bands, rows_per_band = finder.lsh.bands, finder.lsh.rows
    n = len(finder)
    if n:  # a set's signature is its shingle list's (a minimum ignores repeats)
        batch = ShingleBatch(sets.hashes, sets.offsets, options.shingle)
        sigs = minhash_signatures(batch, options.num_perm, options.seed)
    else:
        sigs = np.zeros((0, options.num_perm), dtype=np.uint32)
    keys = np.ascontiguousarray(band_keys(sigs, bands, rows_per_band).T)  # (bands, documents)
    near = np.asarray(finder.words, dtype=np.int64) > 0
    near[[copy for _, copy in finder.exact_pairs]] = False  # a copy here is a copy in the whole
    near &= (sigs[:, 0] != 0xFFFFFFFF) | (sigs[:, 1] != 0xFFFFFFFF)  # as MinHashLSH.insert skips
    out = work / "map" / f"{rank:05d}"
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)  # an earlier try's, never marked: it counts for nothing
    tmp.mkdir(parents=True)
    np.save(tmp / "shingles.hashes.npy", sets.hashes)
    np.save(tmp / "shingles.offsets.npy", sets.offsets)
    np.save(tmp / "keys.npy", keys)
    np.save(tmp / "near.npy", near)
    ids = np.flatnonzero(near)
    band = np.repeat(np.arange(bands, dtype=np.int64), len(ids))
    key = keys[:, ids].ravel()
    doc = np.tile(ids, bands)
    part = _partition(band, key, spec.reducers)
    for q in range(spec.reducers):
        sel = part == q
        np.savez(tmp / f"part-{q:05d}.npz", band=band[sel].astype(np.int32), key=key[sel], doc=doc[sel])
    strings = {"names": finder.names, "rows": rows, "digests": finder.digests, "words": finder.words}
    (tmp / "docs.json").write_text(json.dumps(strings), encoding="utf-8")
    tmp.rename(out)
    return {"documents": n, "band_records": len(doc), "counters": dict(finder.counters)}


def _reduce(spec: Spec, q: int, work: Path) -> dict[str, Any]:
    options = spec.dedup_options()
    offsets = spec.offsets
    copies = np.load(work / "copies.npy")
    bands: list[I64] = []
    keys: list[U64] = []
    docs: list[I64] = []
    for r in range(len(spec.ranges)):
        with np.load(work / "map" / f"{r:05d}" / f"part-{q:05d}.npz") as z:
            doc = z["doc"].astype(np.int64) + offsets[r]
            keep = ~np.isin(doc, copies)  # a later copy of a text found in another range
            bands.append(z["band"].astype(np.int64)[keep])
            keys.append(z["key"][keep])
            docs.append(doc[keep])
    band, key, doc = np.concatenate(bands), np.concatenate(keys), np.concatenate(docs)
    # each group's documents in id order, as in one process's tables (pairs_in_runs sorts stably)
    order = np.lexsort((doc, key, band))
    band, key, doc = band[order], key[order], doc[order]
    bounds = np.searchsorted(band, np.arange(int(band.max(initial=-1)) + 2))
    out_a: list[I64] = []
    out_b: list[I64] = []
    capped = 0
    for b in range(len(bounds) - 1):
        lo, hi = int(bounds[b]), int(bounds[b + 1])
        if hi - lo < 2:
            continue
        a, c, runs = pairs_in_runs(key[lo:hi], doc[lo:hi], options.max_run)
        out_a.append(a)
        out_b.append(c)
        capped += runs
    if out_a:
        a, b_ = unique_pairs(np.concatenate(out_a), np.concatenate(out_b))
    else:
        a, b_ = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    jaccard = _jaccard(work, offsets, a, b_)
    (work / "reduce").mkdir(parents=True, exist_ok=True)
    _save_npz(work / "reduce" / f"{q:05d}.npz", {"a": a, "b": b_, "jaccard": jaccard})
    return {"band_records": len(doc), "candidates": len(a), "capped_runs": capped}


def _jaccard(work: Path, offsets: list[int], a: I64, b: I64) -> npt.NDArray[np.float64]:
    """The exact Jaccard of each pair's shingle sets, reading only those sets from the maps."""
    if not len(a):
        return np.zeros(0)
    need = np.unique(np.concatenate([a, b]))
    parts: list[U64] = []
    sizes: list[I64] = []
    for r in range(len(offsets) - 1):
        lo, hi = np.searchsorted(need, [offsets[r], offsets[r + 1]])
        if lo == hi:
            continue
        local = need[lo:hi] - offsets[r]
        where = work / "map" / f"{r:05d}"
        hashes = np.load(where / "shingles.hashes.npy", mmap_mode="r")
        starts = np.load(where / "shingles.offsets.npy", mmap_mode="r")
        first = np.asarray(starts[local], dtype=np.int64)
        count = np.asarray(starts[local + 1], dtype=np.int64) - first
        parts.append(np.asarray(hashes[concat_ranges(first, count)]))
        sizes.append(count)
    size = np.concatenate(sizes)
    bounds = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(size, out=bounds[1:])
    sets = HashSets(np.concatenate(parts), bounds)
    return sets.jaccard(np.searchsorted(need, a), np.searchsorted(need, b))


def run_task(spec_path: str, rank: int) -> dict[str, Any]:
    """Task ``rank`` of the phase in ``spec_path`` (map or reduce): its output, then its marker.
    Idempotent: a marker already written is returned as it is."""
    spec = Spec.load(spec_path)
    work = Path(spec.workdir)
    name = f"{spec.phase}-{rank:05d}"
    done = begin_task(work, name)
    if done is not None:
        return done
    t0 = time.perf_counter()
    if spec.phase == "map":
        data = _map(spec, rank, work)
    elif spec.phase == "reduce":
        data = _reduce(spec, rank, work)
    else:
        raise ValueError(f"{spec_path}: no dedup phase {spec.phase!r} (map or reduce)")
    data.update(rank=rank, phase=spec.phase, seconds=round(time.perf_counter() - t0, 3), pid=os.getpid())
    write_marker(work / "done" / f"{name}.json", data)
    return data


# -- the job -------------------------------------------------------------------------------------


def _phase(
    executor: Executor, spec_path: Path, count: int, on_task: OnTask | None
) -> tuple[list[dict[str, Any]], int]:
    """Run the ``count`` tasks of a phase that have no marker yet; every task's result, and how
    many were found done. A task that failed every try fails the job (its folder stays)."""
    spec = Spec.load(spec_path)

    def done(outcome: TaskOutcome) -> None:
        if on_task is not None:
            on_task(spec.phase, outcome, count)

    names = [f"{spec.phase}-{rank:05d}" for rank in range(count)]
    logs = Path(spec.workdir) / "logs" / spec.phase
    return run_unfinished(
        executor, MODULE, spec_path, names, logs=logs, what=f"dedup {spec.phase}", on_done=done
    )


def sharded_discover(
    coll: Collection,
    options: DedupOptions,
    executor: Executor,
    *,
    tasks: int | None = None,
    store: bool = True,
    on_task: OnTask | None = None,
) -> ShardedDiscovery:
    """Discover ``coll``'s duplicates as ``tasks`` map and ``tasks`` reduce tasks (default: two
    per worker) on ``executor``; see the module's docstring. Only the minhash method (with exact
    duplicates, as always): the others have no shuffle here yet."""
    if tuple(options.methods) != SHARDED_METHODS:
        others = [m for m in options.methods if m not in SHARDED_METHODS]
        raise ConfigError(
            f"a sharded discovery (--workers, --executor) runs the minhash method only, not "
            f"{', '.join(others) or 'without minhash'}: drop --method, or drop --workers"
        )
    t0 = time.perf_counter()
    table = coll.table  # the writer's lock, held to the end: no row changes under the tasks
    table.flush()
    world = max(1, tasks or TASKS_PER_WORKER * executor.workers)
    option_values = _options_dict(options)
    ident = {"options": option_values, "state": collection_state(coll), "tasks": world}
    key = hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
    root = coll.path / TASKS
    work = root / f"job-{key}"
    for other in root.glob("job-*") if root.is_dir() else []:
        if other != work:  # other options, or the collection changed since: nothing there serves
            shutil.rmtree(other, ignore_errors=True)
    map_spec = work / "map.json"
    if not map_spec.is_file():
        ranges = key_ranges(table, world)
        spec = Spec(
            "map", str(work.resolve()), str((coll.path / "table").resolve()), ranges, world, option_values
        )
        write_marker(map_spec, asdict(spec))
    spec = Spec.load(map_spec)
    maps = len(spec.ranges)
    seconds: dict[str, float] = {}
    with executor.session():
        t = time.perf_counter()
        map_results, resumed = _phase(executor, map_spec, maps, on_task)
        seconds["map"] = time.perf_counter() - t
        t = time.perf_counter()
        names: list[str] = []
        rows: list[str] = []
        digests: list[str] = []
        words: list[int] = []
        offsets = [0]
        counters: dict[str, int] = {}
        for r in range(maps):
            strings = json.loads((work / "map" / f"{r:05d}" / "docs.json").read_text(encoding="utf-8"))
            names += strings["names"]
            rows += strings["rows"]
            digests += strings["digests"]
            words += strings["words"]
            offsets.append(len(names))
            for name, n in map_results[r]["counters"].items():
                counters[name] = counters.get(name, 0) + int(n)
        exact = _exact_pairs(digests, words)
        copies = np.array(sorted({copy for _, copy in exact}), dtype=np.int64)
        tmp = work / f".copies.{os.getpid()}.npy"
        np.save(tmp, copies)
        os.replace(tmp, work / "copies.npy")
        reduce_spec = work / "reduce.json"
        write_marker(reduce_spec, asdict(replace(spec, phase="reduce", offsets=offsets)))
        seconds["exact"] = time.perf_counter() - t
        t = time.perf_counter()
        reduce_results, found = _phase(executor, reduce_spec, spec.reducers, on_task)
        resumed += found
        seconds["reduce"] = time.perf_counter() - t
    t = time.perf_counter()
    a, b, jaccard = _candidates(work, spec.reducers)
    keep = jaccard >= options.threshold
    counters["dedup/pairs/exact"] = len(exact)
    counters["dedup/minhash/candidates"] = len(a)
    counters["dedup/minhash/capped-runs"] = sum(int(r["capped_runs"]) for r in reduce_results)
    counters["dedup/pairs/minhash"] = int(keep.sum())
    counters["dedup/minhash/rejected"] = int((~keep).sum())
    pairs = [Pair(x, y, 1.0, "exact") for x, y in exact]
    pairs += [
        Pair(int(x), int(y), round(float(s), 4), "minhash")
        for x, y, s in zip(a[keep].tolist(), b[keep].tolist(), jaccard[keep].tolist(), strict=True)
    ]
    finder = _finder(work, options, offsets, names=names, words=words, digests=digests, exact=exact)
    finder.counters = counters
    seconds["join"] = time.perf_counter() - t
    result = conclude_discovery(coll, finder, rows, pairs, store=store, started=t0)
    shutil.rmtree(work, ignore_errors=True)
    with contextlib.suppress(OSError):
        root.rmdir()  # tasks/dedup, when no other job is there
    return ShardedDiscovery(result, maps, spec.reducers, executor.name, resumed, seconds)


def _exact_pairs(digests: list[str], words: list[int]) -> list[tuple[int, int]]:
    """(first copy, later copy) of every text stored more than once, in the order one process
    finds them (documents without words take part in nothing)."""
    first: dict[str, int] = {}
    out: list[tuple[int, int]] = []
    for i, digest in enumerate(digests):
        if words[i] == 0:
            continue
        j = first.setdefault(digest, i)
        if j != i:
            out.append((j, i))
    return out


def _candidates(work: Path, reducers: int) -> tuple[I64, I64, npt.NDArray[np.float64]]:
    """Every reducer's candidate pairs, each once (a pair sharing bands of two partitions comes
    from both), sorted as one process lists them, with their Jaccard."""
    parts_a: list[I64] = []
    parts_b: list[I64] = []
    parts_j: list[npt.NDArray[np.float64]] = []
    for q in range(reducers):
        with np.load(work / "reduce" / f"{q:05d}.npz") as z:
            parts_a.append(z["a"])
            parts_b.append(z["b"])
            parts_j.append(z["jaccard"])
    a, b, j = np.concatenate(parts_a), np.concatenate(parts_b), np.concatenate(parts_j)
    if not len(a):
        return a.astype(np.int64), b.astype(np.int64), j.astype(np.float64)
    code = a * (int(b.max()) + 1) + b
    _, first = np.unique(code, return_index=True)  # sorted by code: by (a, b)
    return a[first], b[first], j[first]


def _finder(
    work: Path,
    options: DedupOptions,
    offsets: list[int],
    *,
    names: list[str],
    words: list[int],
    digests: list[str],
    exact: list[tuple[int, int]],
) -> DuplicateFinder:
    """The finder one process would hold at the end: its documents, shingle sets and LSH tables
    (of the first copy of each text), from the maps' outputs; what the search index stores."""
    lsh = MinHashLSH(options.threshold, options.num_perm, options.bands, options.rows)
    copies = np.zeros(len(names), dtype=bool)
    copies[[copy for _, copy in exact]] = True
    hashes: list[U64] = []
    sizes: list[I64] = []
    for r in range(len(offsets) - 1):
        where = work / "map" / f"{r:05d}"
        starts = np.load(where / "shingles.offsets.npy")
        hashes.append(np.load(where / "shingles.hashes.npy"))
        sizes.append(np.diff(starts))
        near = np.load(where / "near.npy") & ~copies[offsets[r] : offsets[r + 1]]
        local = np.flatnonzero(near)
        lsh.insert_keys(local + offsets[r], np.load(where / "keys.npy")[:, local])
    size = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)
    bounds = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(size, out=bounds[1:])
    sets = HashSets(np.concatenate(hashes) if hashes else np.zeros(0, np.uint64), bounds)
    return DuplicateFinder.restore(
        options, names=names, words=words, digests=digests, exact=exact, shingle_sets=sets, lsh=lsh
    )
