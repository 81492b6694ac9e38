"""Simhash (Charikar 2002) and Manku et al.'s permuted tables for Hamming-distance search.

**Fingerprint.** A document is a set of weighted features (its words, weighted by frequency by
default, or by tf·idf). Each feature has a b-bit hash; a b-dimensional vector V starts at zero
and, for every feature and every bit i, V_i gains the feature's weight if bit i of its hash is 1
and loses it if the bit is 0. Bit i of the fingerprint is 1 when V_i > 0. Bits are numbered
from the most significant, as written on paper: the hash ``01100001`` has bit 0 = 0, bit 1 = 1.
The similarity of two fingerprints is the fraction of equal bits, 1 - Hamming / b; for
random-hyperplane hashing it estimates 1 - θ/π, θ the angle between the weighted word vectors.

**Search for Hamming distance ≤ k** (Manku, Jain & Das Sarma, WWW 2007). The 64 bits are cut
into m blocks. If two fingerprints differ in at most k bits, at least m - k blocks are identical.
So for every choice of m - k "key" blocks (C(m, k) tables), a table holds every fingerprint with
its bits permuted so that the key blocks come first, sorted; a query permutes itself the same
way, binary-searches the range sharing its key prefix and checks only those candidates — never
a linear scan. m is chosen from k and the number of fingerprints (:func:`choose_blocks`): for
k = 3 it is Manku's 5 blocks (10 tables, 25-26-bit keys).

**Features and k, calibrated** (``bench/dedup.py``, generated near duplicates, truth = word
5-gram Jaccard ≥ 0.8). The course's features — words weighted by frequency — fail at this task:
frequent function words dominate V, so unrelated texts of one language get close fingerprints
(best F1 0.38, at k = 0); tf·idf weights help (F1 0.70 at k = 4). The engine therefore hashes word
5-grams (frequency weights), the same features MinHash sees; then the expected distance at the
threshold is :func:`expected_hamming` (0.8) = 9.7 bits and the measured best F1 (0.81) is at
k = 9, the default. The price of a large k is Manku's tables: at most 64 are built (55 for k = 9,
11-12-bit keys, 880 bytes per document), so a query checks about n / 2¹¹·⁶ candidates per
table — still sublinear, but simhash is the compact method for *very* near duplicates (k ≤ 3),
MinHash the one for a Jaccard threshold. docs/design.md records the whole table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from trawl.dedup.hashing import I64, U64, ShingleBatch, WordBatch
from trawl.dedup.sets import pairs_in_runs, unique_pairs

__all__ = [
    "DEFAULT_K",
    "SimhashIndex",
    "choose_blocks",
    "expected_hamming",
    "fingerprint_from_vector",
    "hamming",
    "simhash",
    "simhash_batch",
    "simhash_similarity",
    "simhash_vector",
]

#: Hamming radius for "Jaccard ≥ 0.8" with 64-bit fingerprints of word 5-grams weighted by frequency
#: (the engine's default features): best F1 in bench/dedup.py, next to expected_hamming(0.8) = 9.7.
DEFAULT_K = 9


def expected_hamming(jaccard: float, bits: int = 64) -> float:
    """Expected Hamming distance of two simhashes of equal-size feature sets with this Jaccard.

    Equal-size sets with Jaccard J have cosine 2J / (1 + J); random-hyperplane bits differ with
    probability θ / π, θ = arccos(cosine). J = 0.8 → 9.7 bits of 64, with a standard deviation
    of about 2.9 bits: why simhash cannot draw a sharp line at J = 0.8 with 64 bits.
    """
    cosine = 2 * jaccard / (1 + jaccard)
    return float(bits * np.arccos(min(1.0, cosine)) / np.pi)


Weighting = Literal["tf", "tfidf"]

_HAS_BITWISE_COUNT = hasattr(np, "bitwise_count")  # numpy >= 2.0
_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def simhash_vector(
    hashes: Sequence[int], weights: Sequence[float], bits: int = 64
) -> npt.NDArray[np.float64]:
    """Charikar's V: component i = Σ weight · (+1 if bit i of the feature's hash is 1 else -1).

    Bit 0 is the most significant bit of the ``bits``-bit hash.
    """
    v = np.zeros(bits, dtype=np.float64)
    for h, w in zip(hashes, weights, strict=True):
        if not 0 <= h < (1 << bits):
            raise ValueError(f"feature hash {h} does not fit in {bits} bits")
        for i in range(bits):
            v[i] += w if (h >> (bits - 1 - i)) & 1 else -w
    return v


def fingerprint_from_vector(v: npt.NDArray[np.float64] | Sequence[float]) -> int:
    """The fingerprint of V: bit i (from the most significant) is 1 when V_i > 0."""
    out = 0
    for x in v:
        out = (out << 1) | (1 if x > 0 else 0)
    return out


def simhash(hashes: Sequence[int], weights: Sequence[float], bits: int = 64) -> int:
    """The ``bits``-bit simhash of features given by their hashes and weights."""
    return fingerprint_from_vector(simhash_vector(hashes, weights, bits))


def hamming(a: int | U64, b: int | U64) -> npt.NDArray[np.int64]:
    """Number of differing bits (element-wise for arrays)."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    if _HAS_BITWISE_COUNT:
        out: npt.NDArray[np.int64] = np.bitwise_count(x).astype(np.int64)
        return out
    # numpy < 2.0: count the bits of each byte with a table
    b8 = np.ascontiguousarray(x).view(np.uint8).reshape(*x.shape, 8)
    counted: npt.NDArray[np.int64] = _BYTE_BITS[b8].sum(axis=-1, dtype=np.int64)
    return counted


def simhash_similarity(a: int | U64, b: int | U64, bits: int = 64) -> npt.NDArray[np.float64]:
    """The fraction of equal bits, 1 - Hamming / bits."""
    out: npt.NDArray[np.float64] = 1.0 - hamming(a, b) / bits
    return out


def simhash_batch(
    words: WordBatch | ShingleBatch, weighting: Weighting = "tf", chunk_rows: int = 200_000
) -> U64:
    """64-bit simhash of every document of a batch from its feature hashes (empty document → 0).

    The features are the batch's hashes: words (a :class:`WordBatch`) or word n-grams (a
    :class:`ShingleBatch`). ``weighting``: ``"tf"`` (frequency in the document) or ``"tfidf"``
    (times log((N + 1) / df), document frequencies counted over this batch).
    """
    ndocs = len(words)
    out = np.zeros(ndocs, dtype=np.uint64)
    if words.hashes.size == 0:
        return out
    docs = words.doc_ids()
    order = np.lexsort((words.hashes, docs))
    h, d = words.hashes[order], docs[order]
    first = np.ones(len(h), dtype=bool)
    first[1:] = (h[1:] != h[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(first)
    tf = np.diff(np.append(starts, len(h))).astype(np.float64)
    uh, ud = h[starts], d[starts]
    if weighting == "tfidf":
        _, inverse, df = np.unique(uh, return_inverse=True, return_counts=True)
        weight = tf * np.log((ndocs + 1) / df[inverse])
    elif weighting == "tf":
        weight = tf
    else:
        raise ValueError(f"unknown simhash weighting {weighting!r}; use 'tf' or 'tfidf'")
    # rows (unique doc, word) are grouped by document; process whole documents per chunk
    doc_start = np.searchsorted(ud, np.arange(ndocs + 1))
    lo = 0
    while lo < ndocs:
        hi = int(np.searchsorted(doc_start, doc_start[lo] + chunk_rows, side="right")) - 1
        hi = max(hi, lo + 1)
        hi = min(hi, ndocs)
        r0, r1 = int(doc_start[lo]), int(doc_start[hi])
        if r1 > r0:
            bits = np.unpackbits(uh[r0:r1].byteswap().view(np.uint8).reshape(-1, 8), axis=1)  # MSB first
            signed = (bits.astype(np.float32) * 2.0 - 1.0) * weight[r0:r1, None].astype(np.float32)
            present = np.flatnonzero(np.diff(doc_start[lo : hi + 1]) > 0) + lo
            v = np.add.reduceat(signed, doc_start[present] - r0, axis=0)
            packed = np.packbits(v > 0, axis=1)  # (docs, 8) bytes, big-endian bit order
            out[present] = packed.view(">u8").ravel().astype(np.uint64)
        lo = hi
    return out


def _blocks(bits: int, m: int) -> list[tuple[int, int]]:
    """(start, size) of m near-equal blocks, bit 0 = most significant."""
    base, extra = divmod(bits, m)
    out = []
    start = 0
    for i in range(m):
        size = base + (1 if i < extra else 0)
        out.append((start, size))
        start += size
    return out


def choose_blocks(k: int, n: int, max_tables: int = 64) -> int:
    """The number of blocks m for Hamming radius ``k`` over ``n`` fingerprints.

    Cost model: C(m, k) tables, each returning about n / 2**key_bits random candidates per query;
    m minimises tables x (1 + candidates), fewer tables winning ties, with at most ``max_tables``
    tables (memory is 16 bytes per table per document). k = 3 gives m = 5 (10 tables) for
    10⁵-10⁷ documents, as in Manku et al.; k = 9 is held to m = 11 (55 tables, 11-12-bit keys).
    """
    best: tuple[float, int] | None = None
    for m in range(k + 1, min(64, k + 8) + 1):
        if comb(m, k) > max_tables and best is not None:
            break
        key_bits = 64 * (m - k) / m
        cost = comb(m, k) * (1 + n / 2**key_bits)
        if best is None or cost < best[0] * 0.999:
            best = (cost, m)
    assert best is not None
    return best[1]


def _permute_int(fp: int, order: list[tuple[int, int]]) -> int:
    """:meth:`SimhashIndex._permute` of one fingerprint, in Python integers."""
    out = 0
    dst = 0
    for start, size in order:
        out |= ((fp >> (64 - start - size)) & ((1 << size) - 1)) << (64 - dst - size)
        dst += size
    return out


@dataclass
class SimhashIndex:
    """Manku et al.'s permuted sorted tables over 64-bit fingerprints, for Hamming ≤ ``k``.

    ``blocks`` (m) is chosen by :func:`choose_blocks` when the tables are first built, unless given.
    """

    k: int = DEFAULT_K
    blocks: int = 0  # m; 0 → choose_blocks(k, number of fingerprints) at build time
    _ids: list[I64] = field(default_factory=list, repr=False)
    _fps: list[U64] = field(default_factory=list, repr=False)
    _tables: list[tuple[U64, I64]] | None = field(default=None, repr=False)
    _layouts: list[tuple[list[tuple[int, int]], int]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.k < 64:
            raise ValueError(f"k must be between 0 and 63, got {self.k}")
        if self.blocks and (self.blocks <= self.k or self.blocks > 64):
            raise ValueError(f"need more blocks ({self.blocks}) than k ({self.k}), at most 64")
        self._fixed_blocks = self.blocks

    @property
    def layouts(self) -> list[tuple[list[tuple[int, int]], int]]:
        """Per table: the block order (key blocks first) and the number of key bits."""
        if self._layouts is None:
            m = self._fixed_blocks or choose_blocks(self.k, len(self._arrays()[0]))
            self.blocks = m
            spans = _blocks(64, m)
            layouts = []
            for key in combinations(range(m), m - self.k):
                rest = [i for i in range(m) if i not in key]
                order = [spans[i] for i in key] + [spans[i] for i in rest]
                layouts.append((order, sum(spans[i][1] for i in key)))
            self._layouts = layouts
        return self._layouts

    @property
    def num_tables(self) -> int:
        return len(self.layouts)

    @staticmethod
    def _permute(fps: U64, order: list[tuple[int, int]]) -> U64:
        out = np.zeros(len(fps), dtype=np.uint64)
        dst = 0
        for start, size in order:
            mask = np.uint64((1 << size) - 1)
            src_shift = np.uint64(64 - start - size)
            dst_shift = np.uint64(64 - dst - size)
            out |= ((fps >> src_shift) & mask) << dst_shift
            dst += size
        return out

    def add(self, ids: I64 | Sequence[int], fps: U64 | Sequence[int]) -> None:
        self._ids.append(np.asarray(ids, dtype=np.int64))
        self._fps.append(np.asarray(fps, dtype=np.uint64))
        self._tables = None
        if not self._fixed_blocks:
            self._layouts = None

    def _arrays(self) -> tuple[I64, U64]:
        if len(self._ids) != 1:
            ids = np.concatenate(self._ids) if self._ids else np.zeros(0, dtype=np.int64)
            fps = np.concatenate(self._fps) if self._fps else np.zeros(0, dtype=np.uint64)
            self._ids, self._fps = [ids], [fps]
        return self._ids[0], self._fps[0]

    def _build(self) -> list[tuple[U64, I64]]:
        if self._tables is None:
            ids, fps = self._arrays()
            tables = []
            for order, _ in self.layouts:
                perm = self._permute(fps, order)
                idx = np.argsort(perm, kind="stable")
                tables.append((perm[idx], ids[idx]))
            self._tables = tables
        return self._tables

    def __len__(self) -> int:
        return len(self._arrays()[0])

    def state(self) -> tuple[dict[str, int], dict[str, npt.NDArray[Any]]]:
        """The built tables as (parameters, arrays), for :meth:`from_state` (``trawl.dedup.persist``).

        Arrays: ``ids`` and ``fps`` as added, and ``perm`` / ``table_ids`` of shape (tables, n):
        table t's permuted fingerprints, sorted, and their ids.
        """
        ids, fps = self._arrays()
        tables = self._build()
        n = len(ids)
        perm = np.stack([p for p, _ in tables]) if tables else np.zeros((0, n), dtype=np.uint64)
        tids = np.stack([i for _, i in tables]) if tables else np.zeros((0, n), dtype=np.int64)
        return {"k": self.k, "blocks": self.blocks}, {"ids": ids, "fps": fps, "perm": perm, "table_ids": tids}

    @classmethod
    def from_state(cls, params: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> SimhashIndex:
        """An index from :meth:`state`'s output (arrays may be read-only memory maps)."""
        index = cls(int(params["k"]), int(params["blocks"]))
        index._ids, index._fps = [arrays["ids"]], [arrays["fps"]]
        perm, tids = arrays["perm"], arrays["table_ids"]
        if perm.shape != tids.shape or perm.shape != (index.num_tables, len(arrays["ids"])):
            raise ValueError(f"inconsistent simhash arrays: {perm.shape}, {tids.shape}, {index.num_tables}")
        index._tables = [(perm[t], tids[t]) for t in range(perm.shape[0])]
        return index

    def query(self, fp: int) -> tuple[I64, npt.NDArray[np.int64]]:
        """Ids within Hamming distance k of ``fp``, with their distances (sorted by distance, id)."""
        found_ids: list[I64] = []
        found_perm: list[U64] = []
        found_q: list[U64] = []
        for (order, key_bits), (perm, ids) in zip(self.layouts, self._build(), strict=True):
            pq = np.uint64(_permute_int(int(fp), order))  # Python ints: 1 value, no array passes
            low_bits = 64 - key_bits
            lo_v = (int(pq) >> low_bits) << low_bits
            hi_v = lo_v | ((1 << low_bits) - 1)
            lo = int(np.searchsorted(perm, np.uint64(lo_v), side="left"))
            hi = int(np.searchsorted(perm, np.uint64(hi_v), side="right"))
            found_ids.append(ids[lo:hi])
            found_perm.append(perm[lo:hi])
            found_q.append(np.full(hi - lo, pq, dtype=np.uint64))
        ids_all = np.concatenate(found_ids)
        dist = hamming(np.concatenate(found_perm), np.concatenate(found_q))  # permutation keeps distance
        keep = dist <= self.k
        ids_all, dist = ids_all[keep], dist[keep]
        uniq, first = np.unique(ids_all, return_index=True)
        dist = dist[first]
        order_ = np.lexsort((uniq, dist))
        return uniq[order_], dist[order_]

    def pairs(self, max_run: int = 1024) -> tuple[I64, I64, npt.NDArray[np.int64], int]:
        """Every pair of ids within Hamming distance k: (a, b, distance, capped runs).

        A run of equal key prefixes is not a group of similar fingerprints, so runs are paired in
        full up to ``max_run`` members (beyond that, pairs are lost and the run is counted).
        """
        ids, fps = self._arrays()
        pos = np.arange(len(ids), dtype=np.int64)
        out_a: list[I64] = []
        out_b: list[I64] = []
        capped = 0
        for order, key_bits in self.layouts:
            perm = self._permute(fps, order)
            a, b, c = pairs_in_runs(perm >> np.uint64(64 - key_bits), pos, max_run)
            capped += c
            keep = hamming(fps[a], fps[b]) <= self.k
            out_a.append(a[keep])
            out_b.append(b[keep])
        if not out_a:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, capped
        a, b = unique_pairs(np.concatenate(out_a), np.concatenate(out_b))
        dist = hamming(fps[a], fps[b])
        ia, ib = ids[a], ids[b]
        swap = ia > ib
        ia, ib = np.where(swap, ib, ia), np.where(swap, ia, ib)
        return ia, ib, dist, capped

    @property
    def nbytes(self) -> int:
        """Memory of the built tables (8-byte permuted fingerprint + 8-byte id per table)."""
        return sum(p.nbytes + i.nbytes for p, i in self._build())
