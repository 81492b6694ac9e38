"""N-gram fingerprints: selection by "0 mod p" and by winnowing, and an inverted index over them.

A document's word n-grams are hashed (:mod:`trawl.dedup.hashing`); keeping every hash is
exact but large, so a subset is selected as the document's *fingerprints*:

* **0 mod p** keeps the hashes divisible by p: about 1/p of them, the same ones in every
  document, but with no guarantee — a long shared passage may contain no selected hash at all.
* **Winnowing** (Schleimer, Wilkerson & Aiken, SIGMOD 2003) slides a window of w consecutive
  n-gram hashes over the document and keeps the minimum of each window (the rightmost one on
  ties, and each position once). Every window contributes, so **any run of at least w + n - 1
  shared words** — w n-grams, one whole window — yields at least one fingerprint in both
  documents (the guarantee, tested in ``tests/dedup/test_fingerprint.py``); density is about
  2 / (w + 1).

The :class:`FingerprintIndex` is the inverted index fingerprint → documents. From the postings
it computes, for a query or for every pair sharing a fingerprint, the overlap of fingerprint
sets and from it Jaccard |A ∩ B| / (|A| + |B| - |A ∩ B|) and containment |A ∩ B| / |A| (how much of A appears
in B: quotation and text reuse, where Jaccard is diluted by B's own text). Fingerprints held by
more than ``max_df`` documents (navigation, licence boilerplate) are left out of pairing, and
counted.

Building the index is a sort of every fingerprint of every document (2.6 s for 100,000 documents
of 50-250 words in ``bench/dedup.py --part search``), which a search over a fixed collection
should not pay per query. The index is
two arrays — the fingerprints sorted (one entry per (fingerprint, document)) and, beside them,
the document of each — whatever selected the fingerprints (winnowing or 0 mod p). An
:class:`IndexedHashSets` is a set collection that carries them (built once by
:meth:`IndexedHashSets.index`, or opened from disk by :mod:`trawl.dedup.persist` as memory maps);
a :class:`FingerprintIndex` over it takes them as they are instead of sorting again, so a query
is two binary searches per query fingerprint over the stored keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from trawl.dedup.hashing import I64, U64, ShingleBatch
from trawl.dedup.sets import HashSets, concat_ranges

__all__ = [
    "FingerprintIndex",
    "FingerprintPairs",
    "IndexedHashSets",
    "invert",
    "mod_p_batch",
    "select_mod_p",
    "winnow",
    "winnow_batch",
]


def select_mod_p(hashes: U64, p: int) -> U64:
    """The hashes ≡ 0 (mod p), in text order."""
    if p < 1:
        raise ValueError(f"p must be at least 1, got {p}")
    out: U64 = hashes[hashes % np.uint64(p) == 0]
    return out


def mod_p_batch(batch: ShingleBatch, p: int) -> HashSets:
    """The "0 mod p" fingerprint set of every document of a batch (one vector pass)."""
    if p < 1:
        raise ValueError(f"p must be at least 1, got {p}")
    keep = batch.hashes % np.uint64(p) == 0
    counts = np.bincount(batch.doc_ids()[keep], minlength=len(batch)).astype(np.int64)
    offsets = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return HashSets.from_csr(batch.hashes[keep], offsets)


def winnow(hashes: U64, w: int) -> tuple[I64, U64]:
    """Winnowing with window ``w``: (positions, hashes) of the selected fingerprints.

    A text with fewer than ``w`` n-grams is one (short) window: its minimum is selected.
    """
    if w < 1:
        raise ValueError(f"the winnowing window must be at least 1, got {w}")
    n = len(hashes)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
    if n < w:
        pos = np.array([n - 1 - int(np.argmin(hashes[::-1]))], dtype=np.int64)
        return pos, hashes[pos]
    windows = sliding_window_view(hashes, w)
    # rightmost minimum: argmin over each window reversed
    chosen = np.arange(n - w + 1, dtype=np.int64) + (w - 1 - np.argmin(windows[:, ::-1], axis=1))
    keep = np.ones(len(chosen), dtype=bool)
    keep[1:] = chosen[1:] != chosen[:-1]  # positions never decrease: repeats are adjacent
    pos = chosen[keep]
    return pos, hashes[pos]


def winnow_batch(batch: ShingleBatch, w: int) -> HashSets:
    """The winnowed fingerprint set of every document of a batch."""
    parts: list[U64] = []
    counts = np.zeros(len(batch), dtype=np.int64)
    for d in range(len(batch)):
        _, fp = winnow(batch.of(d), w)
        parts.append(fp)
        counts[d] = len(fp)
    offsets = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    return HashSets.from_csr(flat, offsets)


@dataclass(slots=True)
class FingerprintPairs:
    """Pairs of documents sharing fingerprints, with their overlap measures."""

    a: I64
    b: I64
    shared: I64
    jaccard: npt.NDArray[np.float64]
    containment_a: npt.NDArray[np.float64]  # |A ∩ B| / |A|
    containment_b: npt.NDArray[np.float64]  # |A ∩ B| / |B|


def invert(sets: HashSets) -> tuple[U64, I64]:
    """The inverted index of ``sets``: (fingerprints sorted, the document of each), one entry per
    (fingerprint, document); equal fingerprints are in document order."""
    docs = np.repeat(np.arange(len(sets), dtype=np.int64), sets.sizes)
    order = np.argsort(sets.hashes, kind="stable")
    keys: U64 = sets.hashes[order]
    postings: I64 = docs[order]
    return keys, postings


@dataclass(slots=True)
class IndexedHashSets(HashSets):
    """Fingerprint sets with their inverted index (:func:`invert`) built once and kept beside them.

    ``postings`` may be int32 (a stored index: half the bytes); :class:`FingerprintIndex`
    widens what it reads. The arrays may be read-only memory maps.
    """

    keys: U64
    postings: npt.NDArray[Any]

    @classmethod
    def index(cls, sets: HashSets) -> IndexedHashSets:
        """``sets`` with their inverted index built now (a sort of every fingerprint)."""
        if isinstance(sets, IndexedHashSets):
            return sets
        keys, postings = invert(sets)
        return cls(sets.hashes, sets.offsets, keys, postings)

    def check(self) -> None:
        """Raise ValueError unless the arrays fit together (cheap: shapes and dtypes only)."""
        n = len(self.hashes)
        if self.keys.shape != (n,) or self.postings.shape != (n,):
            raise ValueError(
                f"inverted index of {self.keys.shape} keys and {self.postings.shape} postings "
                f"for {n} fingerprints"
            )
        if self.keys.dtype != np.uint64 or self.postings.dtype.kind != "i":
            raise ValueError(f"inverted index of dtypes {self.keys.dtype}, {self.postings.dtype}")
        if len(self.offsets) < 1 or int(self.offsets[-1]) != n:
            raise ValueError(f"fingerprint offsets end at {self.offsets[-1:]}, not {n}")


class FingerprintIndex:
    """Inverted index fingerprint → documents over the fingerprint sets of a batch.

    Over an :class:`IndexedHashSets` the stored index is used as it is (nothing is sorted).
    """

    def __init__(self, sets: HashSets, max_df: int = 1000) -> None:
        self.sets = sets
        self.max_df = max_df
        self.keys: U64
        self.postings: npt.NDArray[Any]
        if isinstance(sets, IndexedHashSets):
            self.keys, self.postings = sets.keys, sets.postings
        else:
            self.keys, self.postings = invert(sets)
        self.skipped_fingerprints = 0

    def __len__(self) -> int:
        return len(self.sets)

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.postings.nbytes + self.sets.nbytes)

    def query(self, fps: U64, exclude: int | None = None) -> FingerprintPairs:
        """Documents sharing fingerprints with ``fps`` (a = the query, as -1), by overlap."""
        q = np.unique(np.asarray(fps, dtype=np.uint64))
        lo = np.searchsorted(self.keys, q, side="left")
        hi = np.searchsorted(self.keys, q, side="right")
        docs = self.postings[concat_ranges(lo, hi - lo)].astype(np.int64, copy=False)
        if exclude is not None:
            docs = docs[docs != exclude]
        hits, shared = np.unique(docs, return_counts=True)
        offsets = self.sets.offsets  # only the hits' sizes: sets.sizes would read every offset
        size_b = offsets[hits + 1] - offsets[hits]
        union = len(q) + size_b - shared
        order = np.argsort(-(shared / np.maximum(union, 1)), kind="stable")
        hits, shared, size_b, union = hits[order], shared[order], size_b[order], union[order]
        return FingerprintPairs(
            np.full(len(hits), -1, dtype=np.int64),
            hits,
            shared.astype(np.int64),
            shared / np.maximum(union, 1),
            shared / max(len(q), 1),
            shared / np.maximum(size_b, 1),
        )

    def pairs(self, min_shared: int = 1) -> FingerprintPairs:
        """Every pair of documents sharing at least ``min_shared`` fingerprints."""
        keys, post = self.keys, self.postings.astype(np.int64, copy=False)
        if len(keys) < 2:
            empty = np.zeros(0, dtype=np.int64)
            z = np.zeros(0)
            return FingerprintPairs(empty, empty, empty, z, z, z)
        new = np.ones(len(keys), dtype=bool)
        new[1:] = keys[1:] != keys[:-1]
        run_id = np.cumsum(new) - 1
        run_len = np.bincount(run_id)
        ok = run_len[run_id] <= self.max_df
        self.skipped_fingerprints = int((run_len > self.max_df).sum())
        n_docs = np.int64(len(self.sets))
        codes: list[I64] = []
        for d in range(1, int(min(run_len.max(), self.max_df))):
            same = (run_id[d:] == run_id[:-d]) & ok[d:]
            if not same.any():
                break
            i = np.flatnonzero(same)
            a, b = post[i], post[i + d]
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            codes.append(lo * n_docs + hi)
        if not codes:
            empty = np.zeros(0, dtype=np.int64)
            z = np.zeros(0)
            return FingerprintPairs(empty, empty, empty, z, z, z)
        code, shared = np.unique(np.concatenate(codes), return_counts=True)
        keep = shared >= min_shared
        code, shared = code[keep], shared[keep]
        a, b = code // n_docs, code % n_docs
        sa, sb = self.sets.sizes[a], self.sets.sizes[b]
        union = sa + sb - shared
        return FingerprintPairs(
            a,
            b,
            shared.astype(np.int64),
            shared / np.maximum(union, 1),
            shared / np.maximum(sa, 1),
            shared / np.maximum(sb, 1),
        )
