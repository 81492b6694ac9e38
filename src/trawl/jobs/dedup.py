"""Duplicate discovery and search over a trawl collection, with the results stored back in it.

Reads every row's ``text:text`` cell (through :class:`~trawl.store.collection.Collection`), runs
:class:`~trawl.dedup.engine.DuplicateFinder`, and stores:

* per row, in the table's ``dup`` family: ``dup:cluster`` — the cluster's representative URL,
  whether this row is it, the cluster size and this row's direct near-duplicate links (URL,
  similarity, method; at most 20) — and ``dup:fingerprint`` — the normalised-text digest, the
  simhash (hex) and the number of shingles. Every row is written, singletons included, so the
  newest ``dup`` cells always reflect the latest run;
* the report ``index/dedup/report.json`` (options, counters, every cluster with its members)
  and ``index/dedup/pairs.jsonl`` (every pair, the same lines ``trawl dedup --json`` prints);
* the run's counters as ``stats/<run>.json`` (``dedup/pairs/minhash``, …), so ``trawl show``
  merges them with the ingest counters;
* the search index, ``index/dedup/near/`` (:mod:`trawl.dedup.persist`): what ``trawl dedup near``
  needs, so that a search opens it instead of re-reading and re-hashing the whole collection. A
  search rebuilds (and stores) it only when it is absent or stale, with the reason recorded in
  the new index's ``meta.json`` and in ``index/dedup/near.log``.

A row without text (a binary file the converters could not read) is counted as
``dedup/skipped/empty-text`` and takes part in nothing. Passage units (:mod:`trawl.units.passages`)
are left out, counted ``dedup/skipped/passage``: each is a slice of its parent's text, which takes
part, and the passages of two near-duplicate pages would otherwise make a cluster each (an FAQ
pair, a mail message or an attachment takes part: a document in its own right).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from trawl.dedup.cluster import Cluster
from trawl.dedup.engine import DedupOptions, DuplicateFinder, Pair
from trawl.dedup.persist import index_dir, load_index, log_event, save_index
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection, StoredRecord

__all__ = [
    "DiscoveryResult",
    "NearResult",
    "collection_state",
    "conclude_discovery",
    "discover_collection",
    "documents",
    "load_finder",
    "near_in_collection",
    "open_index",
    "pair_row",
]

MAX_LINKS = 20


@dataclass(slots=True)
class DiscoveryResult:
    """What ``trawl dedup COLLECTION`` found and where it stored it."""

    finder: DuplicateFinder
    pairs: list[Pair]
    clusters: list[Cluster]
    report: dict[str, Any]
    report_path: Path | None
    seconds: float


def documents(
    records: Iterable[StoredRecord], rows: list[str], counters: dict[str, int]
) -> Iterator[tuple[str, str]]:
    """(name, text) of the records that take part in discovery (each one's row appended to
    ``rows``): every record but passage units, counted ``dedup/skipped/passage``."""
    for record in records:
        unit = record.unit
        if unit is not None and unit.get("kind") == "passage":
            # a slice of its parent's text: its parent's cluster stands for it (and the passages
            # of two near-duplicate pages would make a cluster each)
            counters["dedup/skipped/passage"] = counters.get("dedup/skipped/passage", 0) + 1
            continue
        rows.append(record.row)
        yield record.url or record.row, record.text


def load_finder(
    coll: Collection, options: DedupOptions, progress: Callable[[int], None] | None = None
) -> tuple[DuplicateFinder, list[str]]:
    """A finder holding every document of the collection, and the table row of each."""
    finder = DuplicateFinder(options)
    rows: list[str] = []
    docs = documents(coll.records(), rows, finder.counters)
    if progress is not None:
        docs = _counting(docs, progress)
    finder.add(docs)
    return finder, rows


def _counting(docs: Iterator[tuple[str, str]], progress: Callable[[int], None]) -> Iterator[tuple[str, str]]:
    for n, doc in enumerate(docs, 1):
        if n % 1000 == 0:
            progress(n)
        yield doc


def pair_row(finder: DuplicateFinder, pair: Pair) -> dict[str, Any]:
    """The JSON line of one pair: ``a``, ``b`` (URLs), ``similarity``, ``method``."""
    a = "<text>" if pair.a < 0 else finder.names[pair.a]
    return {"a": a, "b": finder.names[pair.b], "similarity": pair.similarity, "method": pair.method}


def discover_collection(
    coll: Collection,
    options: DedupOptions,
    *,
    store: bool = True,
    progress: Callable[[int], None] | None = None,
) -> DiscoveryResult:
    """Find every duplicate pair and cluster in ``coll``; store them unless ``store`` is False."""
    t0 = time.perf_counter()
    finder, rows = load_finder(coll, options, progress)
    return conclude_discovery(coll, finder, rows, finder.discover(), store=store, started=t0)


def conclude_discovery(
    coll: Collection,
    finder: DuplicateFinder,
    rows: list[str],
    pairs: list[Pair],
    *,
    store: bool = True,
    started: float | None = None,
) -> DiscoveryResult:
    """Clusters, report and (unless ``store`` is False) the stored results of discovered
    ``pairs``: what every discovery ends with, in one process or as sharded tasks."""
    t0 = time.perf_counter() if started is None else started
    clusters = finder.clusters(pairs)
    report = finder.report(pairs, clusters)
    finder.counters["dedup/clusters"] = len(clusters)
    finder.counters["dedup/clustered-documents"] = sum(c.size for c in clusters)
    report["counters"] = dict(sorted(finder.counters.items()))
    path = None
    if store:
        path = _store(coll, finder=finder, rows=rows, pairs=pairs, clusters=clusters, report=report)
        error = _save_index(coll, finder, rows, collection_state(coll), by="trawl dedup", reason="discovery")
        if error:
            finder.counters["dedup/index/save-failed"] = 1
            report["index_error"] = error
    return DiscoveryResult(finder, pairs, clusters, report, path, time.perf_counter() - t0)


def _store(
    coll: Collection,
    *,
    finder: DuplicateFinder,
    rows: list[str],
    pairs: list[Pair],
    clusters: list[Cluster],
    report: dict[str, Any],
) -> Path:
    links: dict[int, list[dict[str, Any]]] = {}
    for p in pairs:
        for x, y in ((p.a, p.b), (p.b, p.a)):
            bucket = links.setdefault(x, [])
            if len(bucket) < MAX_LINKS:
                bucket.append({"url": finder.names[y], "similarity": p.similarity, "method": p.method})
    cluster_of: dict[int, Cluster] = {m: c for c in clusters for m in c.members}
    simhashes = finder.simhashes if "simhash" in finder.options.methods else None
    sizes = finder.shingle_sets.sizes
    ts = time.time_ns() // 1000
    table = coll.table
    for i, row in enumerate(rows):
        c = cluster_of.get(i)
        cell: dict[str, Any] = {
            "representative": finder.names[c.representative] if c else None,
            "is_representative": bool(c and c.representative == i),
            "size": c.size if c else 1,
            "links": links.get(i, []),
        }
        fingerprint: dict[str, Any] = {"text_digest": finder.digests[i], "shingles": int(sizes[i])}
        if simhashes is not None:
            fingerprint["simhash"] = f"{int(simhashes[i]):016x}"
        table.put_row(row, {"dup": {"cluster": cell, "fingerprint": fingerprint}}, ts)
    table.flush()
    out = coll.path / "index" / "dedup"
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps(pair_row(finder, p), ensure_ascii=False) + "\n")
    run, _ctx = coll.new_run()
    stats = Stats()
    for key, n in finder.counters.items():
        stats.inc(key, n)
    stats.finished = time.time()
    coll.save_run(run + "-dedup", stats)
    return out / "report.json"


@dataclass(slots=True)
class NearResult:
    """What ``trawl dedup near`` found, and how it got its index."""

    finder: DuplicateFinder
    pairs: list[Pair]
    name: str
    index: str  # "loaded" or "rebuilt: <reason>"


def collection_state(coll: Collection) -> dict[str, Any]:
    """What a stored search index was built from: WARC files (name, size) and non-dedup runs,
    the collection's own and its partitions' (a crawl in shards)."""
    files: list[Path] = []
    runs: list[str] = []
    partitions = coll.path / "partitions"
    roots = [
        coll.path,
        *(sorted(p for p in partitions.iterdir() if p.is_dir()) if partitions.is_dir() else []),
    ]
    for root in roots:
        warc = root / "warc"
        files += sorted(p for p in warc.iterdir() if p.is_file()) if warc.is_dir() else []
        stats = root / "stats"
        if stats.is_dir():
            prefix = "" if root == coll.path else f"{root.name}/"
            runs += sorted(prefix + p.stem for p in stats.glob("*.json") if not p.stem.endswith("-dedup"))
    return {"warc": [[p.name, p.stat().st_size] for p in files], "runs": runs}


def open_index(coll: Collection, options: DedupOptions) -> tuple[DuplicateFinder, list[str], str]:
    """The collection's stored search index if it can serve ``options``; else rebuilt and stored.

    Returns (finder, rows, status) with status ``"loaded"`` or ``"rebuilt: <reason>"``. A rebuilt
    index holds the requested methods and those of the index it replaces (so that searches with
    different methods do not keep replacing each other's index).
    """
    directory = index_dir(coll.path)
    state = collection_state(coll)
    finder, rows, reason = load_index(directory, options, state)
    if finder is not None:
        return finder, rows, "loaded"
    methods = list(options.methods)
    try:
        old = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        methods += [m for m in old["options"]["methods"] if m not in methods]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    finder, rows = load_finder(coll, replace(options, methods=tuple(methods)))
    error = _save_index(coll, finder, rows, state, by="trawl dedup near", reason=reason)
    status = f"rebuilt: {reason}" + (f" (not stored: {error})" if error else "")
    if not error:
        # answer from what was just stored: the fingerprint inverted indexes are built there once, where
        # the in-memory finder would sort every fingerprint again for the query
        stored, stored_rows, _why = load_index(directory, options, state)
        if stored is not None:
            return stored, stored_rows, status
    finder.options = options  # search with the requested methods only
    return finder, rows, status


def _save_index(
    coll: Collection, finder: DuplicateFinder, rows: list[str], state: dict[str, Any], *, by: str, reason: str
) -> str:
    """Store the search index; "" when stored, else why not. The index is a cache: a disk that is
    full or read-only costs the next search a rebuild, never the result of this run."""
    directory = index_dir(coll.path)
    try:
        save_index(finder, directory, rows=rows, collection_state=state, built_by=by, reason=reason)
        log_event(
            directory, {"event": "built" if by == "trawl dedup" else "rebuilt", "by": by, "reason": reason}
        )
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def near_in_collection(
    coll: Collection,
    options: DedupOptions,
    *,
    url: str | None = None,
    text: str | None = None,
    limit: int = 100,
) -> NearResult:
    """The near duplicates of one stored document (by URL) or of a text, with the query's name."""
    if (url is None) == (text is None):
        raise ValueError("give exactly one of a URL or a text")
    finder, rows, status = open_index(coll, options)
    exclude = None
    if url is not None:
        record = coll.find(url)
        try:
            exclude = rows.index(record.row)
        except ValueError:
            exclude = None
        text = record.text
        name = record.url or url
    else:
        name = "<text>"
    assert text is not None
    return NearResult(finder, finder.near(text, exclude=exclude, limit=limit), name, status)
