"""Vectorised set operations the methods share: hash sets per document, pairs, overlaps.

Documents' hash sets are kept in CSR layout (one flat sorted array per batch plus offsets), never
as Python sets: a million short documents are then two arrays, not a million objects. Candidate
pairs are found by sorting keys and pairing the members of each run of equal keys; exact
overlaps |A ∩ B| of many pairs are computed together by sorting (pair, hash) records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trawl.dedup.hashing import I64, U64, ShingleBatch

__all__ = ["HashSets", "concat_ranges", "pairs_in_runs", "unique_pairs"]


def concat_ranges(starts: I64, lengths: I64) -> I64:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])`` without a loop."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=first[1:])
    out: I64 = np.arange(total, dtype=np.int64) + np.repeat(
        np.asarray(starts, dtype=np.int64) - first, lengths
    )
    return out


def unique_pairs(a: I64, b: I64) -> tuple[I64, I64]:
    """Pairs with ``a < b``, each once, self-pairs removed, sorted."""
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    keep = lo != hi
    if not keep.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = lo[keep], hi[keep]
    base = np.int64(int(hi.max()) + 1)
    if int(base) < (1 << 31):  # one int64 code per pair: a plain sort, much faster than unique(axis=0)
        code = np.sort(lo * base + hi)
        first = np.ones(len(code), dtype=bool)
        first[1:] = code[1:] != code[:-1]
        code = code[first]
        out_lo: I64 = code // base
        out_hi: I64 = code % base
        return out_lo, out_hi
    pairs = np.unique(np.stack([lo, hi], axis=1), axis=0)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def pairs_in_runs(keys: npt.NDArray[np.generic], ids: I64, max_run: int = 64) -> tuple[I64, I64, int]:
    """All pairs of ``ids`` whose ``keys`` are equal, as ``(a, b, capped)``.

    Runs of equal keys are paired by comparing each element with the one ``d`` places later,
    for d = 1, 2, … (one vector operation per d). A run longer than ``max_run`` is a hub (a
    boilerplate fingerprint, thousands of copies of one page): its first ``max_run`` members are
    paired among themselves and every later member only with the run's first member, which keeps
    the run connected for clustering without a quadratic blow-up. ``capped`` counts such runs.
    """
    if len(keys) < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    i = np.asarray(ids, dtype=np.int64)[order]
    new_run = np.empty(len(k), dtype=bool)
    new_run[0] = True
    np.not_equal(k[1:], k[:-1], out=new_run[1:])
    run_id = np.cumsum(new_run) - 1
    run_start = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_start, len(k)))
    longest = int(run_len.max())
    out_a: list[I64] = []
    out_b: list[I64] = []
    for d in range(1, min(longest, max_run)):
        same = run_id[d:] == run_id[:-d]
        if not same.any():
            break
        pos = np.flatnonzero(same)
        # within a capped run, only the first max_run members take part in the all-pairs phase
        pos = pos[(pos + d - run_start[run_id[pos]]) < max_run]
        out_a.append(i[pos])
        out_b.append(i[pos + d])
    capped = int((run_len > max_run).sum())
    if capped:
        member = np.arange(len(k)) - run_start[run_id]
        late = np.flatnonzero((member >= max_run) & (run_len[run_id] > max_run))
        out_a.append(i[run_start[run_id[late]]])
        out_b.append(i[late])
    if not out_a:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, capped
    a, b = unique_pairs(np.concatenate(out_a), np.concatenate(out_b))
    return a, b, capped


@dataclass(slots=True)
class HashSets:
    """The set of hashes of each document, unique, grouped by document (CSR layout).

    Within a document, hashes are ordered by their top 40 bits (sorted, but for ties).
    """

    hashes: U64
    offsets: I64

    @classmethod
    def from_batch(cls, batch: ShingleBatch) -> HashSets:
        return cls.from_csr(batch.hashes, batch.offsets)

    @classmethod
    def from_csr(cls, hashes: U64, offsets: I64) -> HashSets:
        ndocs = len(offsets) - 1
        docs = np.repeat(np.arange(ndocs, dtype=np.int64), np.diff(offsets))
        if ndocs < (1 << 24):
            # One uint64 sort key: document in the top 24 bits, the hash's top 40 bits below. Equal
            # hashes of a document sort together unless a different hash of the same document
            # shares its top 40 bits (about n² / 2**41 per document: negligible; it would only
            # leave a duplicate in the set). Several times faster than lexsort.
            key = (docs.astype(np.uint64) << np.uint64(40)) | (hashes >> np.uint64(24))
            order = np.argsort(key)
        else:
            order = np.lexsort((hashes, docs))
        h = hashes[order]
        d = docs[order]
        keep = np.ones(len(h), dtype=bool)
        if len(h) > 1:
            keep[1:] = (h[1:] != h[:-1]) | (d[1:] != d[:-1])
        counts = np.bincount(d[keep], minlength=len(offsets) - 1).astype(np.int64)
        new_offsets = np.zeros(len(offsets), dtype=np.int64)
        np.cumsum(counts, out=new_offsets[1:])
        return cls(h[keep], new_offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> I64:
        out: I64 = np.diff(self.offsets)
        return out

    def of(self, d: int) -> U64:
        return self.hashes[self.offsets[d] : self.offsets[d + 1]]

    @property
    def nbytes(self) -> int:
        return int(self.hashes.nbytes + self.offsets.nbytes)

    def intersections(self, a: I64, b: I64, chunk: int = 2_000_000) -> I64:
        """|A ∩ B| for each pair (a[i], b[i]), computed a chunk of pairs at a time."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        out = np.zeros(len(a), dtype=np.int64)
        sizes = self.sizes
        start = 0
        while start < len(a):
            # grow the chunk until it holds about `chunk` hashes
            cum = np.cumsum(sizes[a[start:]] + sizes[b[start:]])
            stop = start + max(1, int(np.searchsorted(cum, chunk, side="right")))
            pa, pb = a[start:stop], b[start:stop]
            la, lb = sizes[pa], sizes[pb]
            pid = np.arange(len(pa), dtype=np.int64)
            pairs = np.concatenate([np.repeat(pid, la), np.repeat(pid, lb)])
            vals = np.concatenate(
                [
                    self.hashes[concat_ranges(self.offsets[pa], la)],
                    self.hashes[concat_ranges(self.offsets[pb], lb)],
                ]
            )
            order = np.lexsort((vals, pairs))
            v, p = vals[order], pairs[order]
            dup = (v[1:] == v[:-1]) & (p[1:] == p[:-1])  # each set is unique: a repeat = shared hash
            out[start:stop] = np.bincount(p[1:][dup], minlength=len(pa))
            start = stop
        return out

    def jaccard(self, a: I64, b: I64) -> npt.NDArray[np.float64]:
        """|A ∩ B| / (|A| + |B| - |A ∩ B|) per pair (0 for two empty sets)."""
        inter = self.intersections(a, b)
        union = self.sizes[a] + self.sizes[b] - inter
        out: npt.NDArray[np.float64] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
        return out

    def containment(self, a: I64, b: I64) -> npt.NDArray[np.float64]:
        """|A ∩ B| / |A| per pair: how much of A is found in B (text reuse, quotation)."""
        inter = self.intersections(a, b)
        size = self.sizes[a]
        out: npt.NDArray[np.float64] = np.where(size > 0, inter / np.maximum(size, 1), 0.0)
        return out
