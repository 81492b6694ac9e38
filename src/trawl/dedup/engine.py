"""The two duplicate tasks over a batch of texts: discovery (all pairs, clusters) and search.

:class:`DuplicateFinder` takes documents as (name, text) — names are URLs in a collection — in
chunks, so that a million short documents never exist as a million Python objects at once: per
chunk, texts become word hashes and shingle hashes, then an exact text digest, a MinHash
signature (only its LSH band keys are kept), a simhash and n-gram fingerprints; what is kept
per document is a few hundred bytes (``bench/dedup.py`` reports it).

Methods (``method`` in every reported pair):

``exact``    same normalised text (128-bit XXH3 digest); similarity 1.0. Each group of copies
             is reported as (representative, copy) pairs, and only its representative takes
             part in the near-duplicate methods, so k copies do not make k² pairs.
``minhash``  LSH candidates (bands x rows from the threshold) **verified** with the exact
             Jaccard of the two shingle sets; reported when Jaccard ≥ threshold, with it.
``simhash``  64-bit word/tf simhash, Manku tables, Hamming ≤ k; similarity 1 - d/64.
``winnow``   winnowed n-gram fingerprints through the inverted index; similarity = Jaccard of
             the fingerprint sets (reported ≥ threshold).
``modp``     the n-gram hashes ≡ 0 (mod p) as fingerprints (Croft et al. §3.6), through the same
             inverted index and Jaccard; about 1/p of the hashes, with no guarantee that a shared
             passage keeps one (winnowing's window gives that guarantee).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from trawl.dedup.cluster import Cluster, clusters_from_pairs
from trawl.dedup.exact import text_digest
from trawl.dedup.fingerprint import FingerprintIndex, mod_p_batch, select_mod_p, winnow, winnow_batch
from trawl.dedup.hashing import I64, U64, ShingleBatch, shingle_hashes, word_hashes
from trawl.dedup.minhash import MinHashLSH, minhash_signatures
from trawl.dedup.sets import HashSets
from trawl.dedup.simhash import DEFAULT_K, SimhashIndex, simhash_batch, simhash_similarity

__all__ = ["FINGERPRINT_METHODS", "METHODS", "DedupOptions", "DuplicateFinder", "Pair"]

Method = Literal["exact", "minhash", "simhash", "winnow", "modp"]
METHODS: tuple[Method, ...] = ("exact", "minhash", "simhash", "winnow", "modp")
#: The methods that select fingerprints from the n-gram hashes and search an inverted index.
FINGERPRINT_METHODS: tuple[Method, ...] = ("winnow", "modp")


@dataclass(slots=True, frozen=True)
class DedupOptions:
    """Parameters of every method (defaults are the documented, measured ones)."""

    shingle: int = 5  # words per n-gram
    threshold: float = 0.8  # Jaccard for minhash, winnow and modp
    num_perm: int = 128
    bands: int = 0  # 0: derived from the threshold (lsh_params)
    rows: int = 0
    simhash_k: int = DEFAULT_K
    simhash_weighting: Literal["tf", "tfidf"] = "tf"
    simhash_features: Literal["words", "shingles"] = "shingles"
    winnow_window: int = 4  # guarantee: any shared run of ≥ window + shingle - 1 = 8 words
    modp_p: int = 4  # keep the n-gram hashes ≡ 0 (mod p): a quarter of them
    max_run: int = 64  # LSH/table runs longer than this are paired as a star (hubs)
    max_df: int = 1000  # fingerprints in more documents are boilerplate, not evidence
    seed: int = 1
    methods: tuple[Method, ...] = ("exact", "minhash")


@dataclass(slots=True, frozen=True)
class Pair:
    """A reported duplicate pair (indices into the finder's documents)."""

    a: int
    b: int
    similarity: float
    method: str


@dataclass
class DuplicateFinder:
    """Add documents in chunks, then :meth:`discover` or :meth:`near`; see the module docstring."""

    options: DedupOptions = field(default_factory=DedupOptions)
    names: list[str] = field(default_factory=list)
    words: list[int] = field(default_factory=list)  # word count per document (representatives)
    digests: list[str] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        o = self.options
        self.lsh = MinHashLSH(o.threshold, o.num_perm, o.bands, o.rows)
        self.simhash_index = SimhashIndex(o.simhash_k)
        if self.options.modp_p < 1 or self.options.winnow_window < 1:
            raise ValueError(
                f"modp_p and winnow_window must be at least 1, got {self.options.modp_p}, "
                f"{self.options.winnow_window}"
            )
        self._shingle_parts: list[HashSets] = []
        self._simhashes: list[U64] = []
        self._sets: HashSets | None = None
        # per fingerprint method: its sets in parts (one per chunk, joined when read)
        self._fp_parts: dict[str, list[HashSets]] = {m: [] for m in FINGERPRINT_METHODS}
        self._first_of_digest: dict[str, int] = {}
        self._exact: list[tuple[int, int]] = []
        # built on the first search and dropped when documents are added: a search is then a dict
        # lookup and one index probe, not a pass over every stored document
        self._digest_ids: dict[str, list[int]] | None = None
        self._fp_index: dict[str, FingerprintIndex] = {}

    @classmethod
    def restore(
        cls,
        options: DedupOptions,
        *,
        names: list[str],
        words: list[int],
        digests: list[str],
        exact: list[tuple[int, int]],
        shingle_sets: HashSets,
        lsh: MinHashLSH | None = None,
        simhash: tuple[SimhashIndex, U64] | None = None,
        fingerprints: dict[str, HashSets] | None = None,
    ) -> DuplicateFinder:
        """A finder from stored state (:mod:`trawl.dedup.persist`), as if its documents were added."""
        finder = cls(options, names=names, words=words, digests=digests)
        finder._exact = list(exact)
        copies = {b for _, b in exact}
        finder._first_of_digest = {d: i for i, d in enumerate(digests) if words[i] > 0 and i not in copies}
        finder._sets = shingle_sets
        finder._shingle_parts = [shingle_sets]
        if lsh is not None:
            finder.lsh = lsh
        if simhash is not None:
            finder.simhash_index, fps = simhash
            finder._simhashes = [fps]
        for method, sets in (fingerprints or {}).items():
            finder._fp_parts[method] = [sets]
        return finder

    @property
    def exact_pairs(self) -> list[tuple[int, int]]:
        """(first copy, later copy) of every exact duplicate, in the order they were added."""
        return list(self._exact)

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + n

    def __len__(self) -> int:
        return len(self.names)

    # -- adding ----------------------------------------------------------------------------

    def add(self, docs: Iterable[tuple[str, str]], chunk: int = 10_000) -> None:
        """Add (name, text) documents, fingerprinting ``chunk`` of them at a time."""
        buf_names: list[str] = []
        buf_texts: list[str] = []
        for name, text in docs:
            buf_names.append(name)
            buf_texts.append(text)
            if len(buf_names) >= chunk:
                self._add_chunk(buf_names, buf_texts)
                buf_names, buf_texts = [], []
        if buf_names:
            self._add_chunk(buf_names, buf_texts)

    def _add_chunk(self, names: Sequence[str], texts: Sequence[str]) -> None:
        o = self.options
        base = len(self.names)
        ids = np.arange(base, base + len(names), dtype=np.int64)
        self.names.extend(names)
        self._digest_ids = None
        self._fp_index.clear()
        wb = word_hashes(texts, seed=0)
        self.words.extend(wb.counts.tolist())
        # exact duplicates: only the first copy of a text enters the near-duplicate indexes
        near = np.ones(len(names), dtype=bool)
        counts = wb.counts.tolist()
        for k, text in enumerate(texts):
            digest = text_digest(text)
            self.digests.append(digest)
            if counts[k] == 0:
                near[k] = False
                self.count("dedup/skipped/empty-text")
                continue
            first = self._first_of_digest.setdefault(digest, base + k)
            if first != base + k:
                near[k] = False
                self._exact.append((first, base + k))
        sb = shingle_hashes(wb, o.shingle)
        sets = HashSets.from_batch(sb)
        self._shingle_parts.append(sets)
        self._sets = None
        if "minhash" in o.methods:
            sigs = minhash_signatures(sb, o.num_perm, o.seed)
            self.lsh.insert(ids[near], sigs[near])
        if "simhash" in o.methods:
            fps = simhash_batch(wb if o.simhash_features == "words" else sb, o.simhash_weighting)
            self._simhashes.append(fps)
            self.simhash_index.add(ids[near], fps[near])
        for method in self._fingerprint_methods:
            self._fp_parts[method].append(self._select_batch(method, sb))
        self.count("dedup/documents", len(names))

    @property
    def _fingerprint_methods(self) -> list[str]:
        return [m for m in FINGERPRINT_METHODS if m in self.options.methods]

    def _select_batch(self, method: str, sb: ShingleBatch) -> HashSets:
        """The fingerprint sets ``method`` selects from a batch's n-gram hashes."""
        if method == "winnow":
            return winnow_batch(sb, self.options.winnow_window)
        return mod_p_batch(sb, self.options.modp_p)

    def _select_one(self, method: str, hashes: U64) -> U64:
        """The fingerprints ``method`` selects from one text's n-gram hashes."""
        if method == "winnow":
            return winnow(hashes, self.options.winnow_window)[1]
        return select_mod_p(hashes, self.options.modp_p)

    # -- state -----------------------------------------------------------------------------

    @property
    def shingle_sets(self) -> HashSets:
        if self._sets is None:
            self._sets = _concat_sets(self._shingle_parts)
            self._shingle_parts = [self._sets]
        return self._sets

    def fingerprint_sets(self, method: str) -> HashSets:
        """The fingerprint sets of every document for ``method`` (one of FINGERPRINT_METHODS)."""
        parts = self._fp_parts[method]
        if len(parts) != 1:
            self._fp_parts[method] = parts = [_concat_sets(parts)]
        return parts[0]

    @property
    def winnow_sets(self) -> HashSets:
        return self.fingerprint_sets("winnow")

    @property
    def modp_sets(self) -> HashSets:
        return self.fingerprint_sets("modp")

    @property
    def simhashes(self) -> U64:
        if len(self._simhashes) != 1:
            self._simhashes = [np.concatenate(self._simhashes) if self._simhashes else np.zeros(0, np.uint64)]
        return self._simhashes[0]

    def memory(self) -> dict[str, int]:
        """Bytes held per structure (for the benchmark's memory-per-document figures)."""
        out = {"shingle_sets": self.shingle_sets.nbytes}
        if "minhash" in self.options.methods:
            out["minhash_lsh"] = self.lsh.nbytes
        if "simhash" in self.options.methods:
            out["simhash_tables"] = self.simhash_index.nbytes
        for method in self._fingerprint_methods:
            out[f"{method}_sets"] = self.fingerprint_sets(method).nbytes
        return out

    # -- discovery -------------------------------------------------------------------------

    def discover(self) -> list[Pair]:
        """Every duplicate pair found by the configured methods (exact pairs first)."""
        o = self.options
        pairs = [Pair(a, b, 1.0, "exact") for a, b in self._exact]
        self.counters["dedup/pairs/exact"] = len(pairs)
        if "minhash" in o.methods:
            a, b, capped = self.lsh.pairs(o.max_run)
            self.counters["dedup/minhash/candidates"] = len(a)
            self.counters["dedup/minhash/capped-runs"] = capped
            j = self.shingle_sets.jaccard(a, b)
            keep = j >= o.threshold
            self.counters["dedup/pairs/minhash"] = int(keep.sum())
            self.counters["dedup/minhash/rejected"] = int((~keep).sum())
            pairs += _pairs(a[keep], b[keep], j[keep], "minhash")
        if "simhash" in o.methods:
            a, b, dist, capped = self.simhash_index.pairs()
            self.counters["dedup/pairs/simhash"] = len(a)
            self.counters["dedup/simhash/capped-runs"] = capped
            pairs += _pairs(a, b, 1.0 - dist / 64.0, "simhash")
        fp_methods = self._fingerprint_methods
        if fp_methods:
            reps = self._representative_mask()  # once, for every fingerprint method
            for method in fp_methods:
                fi = FingerprintIndex(_masked(self.fingerprint_sets(method), reps), o.max_df)
                fp = fi.pairs()
                keep = fp.jaccard >= o.threshold
                self.counters[f"dedup/pairs/{method}"] = int(keep.sum())
                self.counters[f"dedup/{method}/boilerplate-fingerprints"] = fi.skipped_fingerprints
                pairs += _pairs(fp.a[keep], fp.b[keep], fp.jaccard[keep], method)
        return pairs

    def _representative_mask(self) -> npt.NDArray[np.bool_]:
        mask = np.asarray(self.words, dtype=np.int64) > 0
        for _, copy in self._exact:
            mask[copy] = False
        return mask

    def clusters(self, pairs: Sequence[Pair]) -> list[Cluster]:
        a = np.fromiter((p.a for p in pairs), dtype=np.int64, count=len(pairs))
        b = np.fromiter((p.b for p in pairs), dtype=np.int64, count=len(pairs))
        return clusters_from_pairs(len(self.names), a, b, lengths=self.words, names=self.names)

    # -- search ----------------------------------------------------------------------------

    def near(self, text: str, exclude: int | None = None, limit: int = 100) -> list[Pair]:
        """The near duplicates of one text among the added documents (a = -1 stands for it).

        Every configured method is asked; a document found by several appears once per method.
        """
        o = self.options
        out: list[Pair] = []
        digest = text_digest(text)
        wb = word_hashes([text])
        sb = shingle_hashes(wb, o.shingle)
        qset = HashSets.from_batch(sb)
        if wb.hashes.size == 0:  # no words: nothing to be a duplicate of (empty texts never match)
            return out
        if "exact" in o.methods:
            out += [Pair(-1, i, 1.0, "exact") for i in self._same_digest(digest) if i != exclude]
        twins = {p.b for p in out}
        if "minhash" in o.methods:
            cands = self.lsh.query(minhash_signatures(sb, o.num_perm, o.seed))[0]
            cands = np.array([c for c in cands.tolist() if c != exclude and c not in twins], dtype=np.int64)
            if cands.size:
                j = _jaccard_one(qset.of(0), self.shingle_sets, cands)
                keep = j >= o.threshold
                out += _pairs(np.full(int(keep.sum()), -1), cands[keep], j[keep], "minhash")
        if "simhash" in o.methods:
            fp = int(simhash_batch(wb if o.simhash_features == "words" else sb, o.simhash_weighting)[0])
            ids, dist = self.simhash_index.query(fp)
            out += [
                Pair(-1, i, float(simhash_similarity(0, d)), "simhash")
                for i, d in zip(ids.tolist(), dist.tolist(), strict=True)
                if i != exclude and i not in twins
            ]
        for method in self._fingerprint_methods:
            fps = self._select_one(method, sb.of(0))
            index = self._fp_index.get(method)
            if index is None:
                index = self._fp_index[method] = FingerprintIndex(self.fingerprint_sets(method), o.max_df)
            res = index.query(fps, exclude=exclude)
            keep = res.jaccard >= o.threshold
            out += [
                p
                for p in _pairs(np.full(int(keep.sum()), -1), res.b[keep], res.jaccard[keep], method)
                if p.b not in twins
            ]
        out.sort(key=lambda p: (-p.similarity, self.names[p.b]))
        return out[:limit]

    def _same_digest(self, digest: str) -> list[int]:
        """Ids of the stored documents whose text digest is ``digest``."""
        if self._digest_ids is None:
            index: dict[str, list[int]] = {}
            for i, d in enumerate(self.digests):
                index.setdefault(d, []).append(i)
            self._digest_ids = index
        return self._digest_ids.get(digest, [])

    def report(self, pairs: Sequence[Pair], clusters: Sequence[Cluster]) -> dict[str, Any]:
        """A JSON-ready summary: options, counters and every cluster with its representative."""
        o = self.options
        return {
            "documents": len(self.names),
            "options": {
                "shingle": o.shingle,
                "threshold": o.threshold,
                "num_perm": o.num_perm,
                "bands": self.lsh.bands,
                "rows": self.lsh.rows,
                "simhash_k": o.simhash_k,
                "simhash_weighting": o.simhash_weighting,
                "simhash_features": o.simhash_features,
                "winnow_window": o.winnow_window,
                "modp_p": o.modp_p,
                "methods": list(o.methods),
            },
            "counters": dict(sorted(self.counters.items())),
            "pairs": len(pairs),
            "clusters": [
                {
                    "representative": self.names[c.representative],
                    "size": c.size,
                    "members": [self.names[m] for m in c.members],
                }
                for c in clusters
            ],
        }


def _pairs(a: I64, b: I64, sim: npt.NDArray[np.float64], method: str) -> list[Pair]:
    return [
        Pair(int(x), int(y), round(float(s), 4), method)
        for x, y, s in zip(a.tolist(), b.tolist(), sim.tolist(), strict=True)
    ]


def _concat_sets(parts: Sequence[HashSets]) -> HashSets:
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return HashSets(np.zeros(0, np.uint64), np.zeros(1, np.int64))
    hashes = np.concatenate([p.hashes for p in parts])
    sizes = np.concatenate([p.sizes for p in parts])
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return HashSets(hashes, offsets)


def _masked(sets: HashSets, mask: npt.NDArray[np.bool_]) -> HashSets:
    """The same documents with the sets of unmasked ones emptied (ids unchanged)."""
    sizes = np.where(mask, sets.sizes, 0)
    keep = np.repeat(mask, sets.sizes)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return HashSets(sets.hashes[keep], offsets)


def _jaccard_one(q: U64, sets: HashSets, cands: I64) -> npt.NDArray[np.float64]:
    out = np.zeros(len(cands))
    for k, c in enumerate(cands.tolist()):
        other = sets.of(c)
        inter = len(np.intersect1d(q, other, assume_unique=True))
        union = len(q) + len(other) - inter
        out[k] = inter / union if union else 0.0
    return out
