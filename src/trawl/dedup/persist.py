"""The search index of a collection, stored once by discovery and loaded by every search.

``trawl dedup COLLECTION`` has, at its end, everything ``trawl dedup near`` needs: the names,
rows and text digests of the documents, their shingle sets (to verify candidates), the MinHash
LSH tables (sorted band keys, ids, bucket directory) and, when those methods ran, the simhash
fingerprints with Manku's permuted tables and the fingerprint sets of winnow and 0 mod p with their
inverted indexes (fingerprint → documents: the fingerprints sorted and the document of each). Rebuilding them
means reading and hashing every text of the collection again — seconds per 100,000 documents,
minutes at crawl scale — for each single query. So discovery writes them to
``COLLECTION/index/dedup/near/`` (one ``.npy`` file per array, plus ``meta.json`` and
``strings.json``), and search opens the arrays as read-only memory maps: one query touches a
band bucket per band and a few shingle sets, i.e. a few pages, whatever the collection's size;
a winnow or modp query is two binary searches per query fingerprint in ``winnow.keys`` (or
``modp.keys``) and a gather from ``winnow.postings`` (int32), never the sort of every fingerprint
that building the inverted index costs (:class:`~trawl.dedup.fingerprint.IndexedHashSets`).

**Staleness.** ``meta.json`` records the options the index was built with and the collection's
state when it was built: the WARC files' names and sizes and the names of the (non-dedup) runs
in ``stats/`` — every ingest or crawl appends to the WARC files and saves a run. :func:`load_index`
returns the reason an index cannot serve a search (absent, unreadable, older format, collection
changed, other options, a method it does not hold); the caller then rebuilds it and stores the
new one with that reason recorded in its ``meta.json`` and in ``index/dedup/near.log``.

The directory is replaced atomically (written beside it, then renamed), so a search running
during a discovery reads either the old index or the new one.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.dedup.engine import FINGERPRINT_METHODS, DedupOptions, DuplicateFinder
from trawl.dedup.fingerprint import IndexedHashSets
from trawl.dedup.minhash import MinHashLSH
from trawl.dedup.sets import HashSets
from trawl.dedup.simhash import SimhashIndex

__all__ = ["FORMAT", "index_dir", "load_index", "log_event", "save_index"]

FORMAT = 2  # 2: the winnow inverted index is stored (format 1 indexes are rebuilt once)
# options that change what the stored arrays hold (methods are checked separately: a subset is fine)
_SHAPING = ("shingle", "num_perm", "seed")
_PER_METHOD = {
    "minhash": ("threshold", "bands", "rows"),
    "simhash": ("simhash_k", "simhash_weighting", "simhash_features"),
    "winnow": ("winnow_window", "max_df"),
    "modp": ("modp_p", "max_df"),
}


def index_dir(collection_path: Path) -> Path:
    """Where a collection's search index lives."""
    return collection_path / "index" / "dedup" / "near"


def log_event(directory: Path, event: dict[str, Any]) -> None:
    """Append one JSON line (with a UTC time) to ``near.log`` beside the index."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    line = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **event}
    with (directory.parent / "near.log").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line, ensure_ascii=False) + "\n")


def _options_dict(options: DedupOptions) -> dict[str, Any]:
    out = asdict(options)
    out["methods"] = list(options.methods)
    return out


def save_index(
    finder: DuplicateFinder,
    directory: Path,
    *,
    rows: Sequence[str],
    collection_state: dict[str, Any],
    built_by: str,
    reason: str,
) -> Path:
    """Write ``finder``'s search state to ``directory`` (replacing any index there); return it."""
    o = finder.options
    arrays: dict[str, npt.NDArray[Any]] = {
        "words": np.asarray(finder.words, dtype=np.int64),
        "exact": np.asarray(finder.exact_pairs, dtype=np.int64).reshape(-1, 2),
        "shingles.hashes": finder.shingle_sets.hashes,
        "shingles.offsets": finder.shingle_sets.offsets,
    }
    meta: dict[str, Any] = {
        "format": FORMAT,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "built_by": built_by,
        "reason": reason,
        "documents": len(finder),
        "options": _options_dict(o),
        "collection": collection_state,
    }
    if "minhash" in o.methods:
        params, lsh_arrays = finder.lsh.state()
        meta["lsh"] = params
        arrays.update({f"lsh.{k}": v for k, v in lsh_arrays.items()})
    if "simhash" in o.methods:
        sparams, sim_arrays = finder.simhash_index.state()
        meta["simhash"] = sparams
        arrays.update({f"simhash.{k}": v for k, v in sim_arrays.items()})
        arrays["simhashes"] = finder.simhashes
    for method in FINGERPRINT_METHODS:
        if method not in o.methods:
            continue
        # over every document, as DuplicateFinder.near searches (discovery masks exact copies itself)
        fps = IndexedHashSets.index(finder.fingerprint_sets(method))
        arrays[f"{method}.hashes"] = fps.hashes
        arrays[f"{method}.offsets"] = fps.offsets
        arrays[f"{method}.keys"] = fps.keys
        small = len(finder) < 2**31
        arrays[f"{method}.postings"] = fps.postings.astype(np.int32 if small else np.int64, copy=False)
    meta["arrays"] = sorted(arrays)
    tmp = directory.with_name(f"{directory.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, arr in arrays.items():
        np.save(tmp / f"{name}.npy", np.ascontiguousarray(arr), allow_pickle=False)
    strings = {"names": finder.names, "rows": list(rows), "digests": finder.digests}
    (tmp / "strings.json").write_text(json.dumps(strings, ensure_ascii=False), encoding="utf-8")
    (tmp / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    old = directory.with_name(f"{directory.name}.old-{os.getpid()}")
    if directory.exists():
        directory.rename(old)
    tmp.rename(directory)
    shutil.rmtree(old, ignore_errors=True)
    return directory


def _stale(meta: dict[str, Any], options: DedupOptions, collection_state: dict[str, Any]) -> str | None:
    """Why an index with ``meta`` cannot answer a search with ``options``; None when it can."""
    if meta.get("format") != FORMAT:
        return f"index format {meta.get('format')!r}, this trawl reads format {FORMAT}"
    stored = meta.get("collection", {})
    if stored.get("warc") != collection_state["warc"]:
        return "the collection's WARC files changed since the index was built"
    new_runs = sorted(set(collection_state["runs"]) - set(stored.get("runs", [])))
    if new_runs:
        return f"runs since the index was built: {', '.join(new_runs)}"
    if stored.get("runs") != collection_state["runs"]:
        return "the collection's runs changed since the index was built"
    built = meta.get("options", {})
    missing = [m for m in options.methods if m not in built.get("methods", [])]
    if missing:
        return f"the index holds no {', '.join(missing)} (built with {', '.join(built.get('methods', []))})"
    want = _options_dict(options)
    fields = list(_SHAPING) + [f for m in options.methods for f in _PER_METHOD.get(m, ())]
    changed = [f"{f} {built.get(f)!r} -> {want[f]!r}" for f in fields if built.get(f) != want[f]]
    if changed:
        return "other options: " + ", ".join(changed)
    return None


def load_index(
    directory: Path, options: DedupOptions, collection_state: dict[str, Any]
) -> tuple[DuplicateFinder | None, list[str], str]:
    """(finder, rows, "") from a stored index, or (None, [], why it cannot be used).

    The finder's arrays are read-only memory maps; it serves :meth:`DuplicateFinder.near` (and
    :meth:`~DuplicateFinder.discover`) with ``options`` (whose methods may be a subset of the
    stored ones).
    """
    meta_path = directory / "meta.json"
    if not meta_path.is_file():
        return None, [], "no stored index"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        reason = _stale(meta, options, collection_state)
        if reason is not None:
            return None, [], reason
        arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r") for name in meta["arrays"]}
        strings = json.loads((directory / "strings.json").read_text(encoding="utf-8"))
        finder = _finder(options, meta, arrays, strings)
        rows = [str(r) for r in strings["rows"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, [], f"index unreadable: {type(exc).__name__}: {exc}"
    if len(rows) != len(finder):
        return None, [], f"index unreadable: {len(rows)} rows for {len(finder)} documents"
    return finder, rows, ""


def _finder(
    options: DedupOptions, meta: dict[str, Any], arrays: dict[str, Any], strings: dict[str, Any]
) -> DuplicateFinder:
    names = [str(x) for x in strings["names"]]
    digests = [str(x) for x in strings["digests"]]
    words = arrays["words"]
    if not len(names) == len(digests) == len(words) == int(meta["documents"]):
        raise ValueError("names, digests and word counts disagree with the document count")
    sets = HashSets(arrays["shingles.hashes"], arrays["shingles.offsets"])
    fingerprints: dict[str, HashSets] = {}
    for method in FINGERPRINT_METHODS:
        if method not in options.methods:
            continue
        fps = IndexedHashSets(
            arrays[f"{method}.hashes"],
            arrays[f"{method}.offsets"],
            arrays[f"{method}.keys"],
            arrays[f"{method}.postings"],
        )
        fps.check()
        if len(fps) != len(names):
            raise ValueError(f"{len(fps)} {method} fingerprint sets for {len(names)} documents")
        fingerprints[method] = fps
    lsh = (
        MinHashLSH.from_state(meta["lsh"], _prefixed(arrays, "lsh."))
        if "minhash" in options.methods
        else None
    )
    simhash = None
    if "simhash" in options.methods:
        simhash = (
            SimhashIndex.from_state(meta["simhash"], _prefixed(arrays, "simhash.")),
            arrays["simhashes"],
        )
    exact = [(int(a), int(b)) for a, b in np.asarray(arrays["exact"]).tolist()]
    return DuplicateFinder.restore(
        options,
        names=names,
        words=np.asarray(words).tolist(),
        digests=digests,
        exact=exact,
        shingle_sets=sets,
        lsh=lsh,
        simhash=simhash,
        fingerprints=fingerprints,
    )


def _prefixed(arrays: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
