"""MinHash signatures and LSH banding, with bands x rows derived from a similarity threshold.

**Signatures.** The classic MinHash keeps, for each of K independent hash functions, the
minimum over a document's shingles: K hash evaluations per shingle. trawl uses *one-permutation
hashing* (Li, Owen & Zhang, NIPS 2012) with *optimal densification* (Shrivastava, ICML 2017):
each shingle is hashed once; the top log2(K) bits choose one of K bins and the low 32 bits are
its value; a bin keeps the minimum value that falls in it. Empty bins (short documents) borrow
the value of a non-empty bin chosen by a fixed pseudo-random probe sequence of (bin, attempt) —
the same for every document — which keeps P[sig_A[i] = sig_B[i]] = J(A, B) for every i. The
cost per document is O(shingles + K) instead of O(shingles x K), which is what makes it an
order of magnitude faster than a K-permutation MinHash (``bench/dedup.py``).

**Banding.** The signature is cut into b bands of r rows; two documents are candidates when
all r values of at least one band agree, which happens with probability
``1 - (1 - J**r)**b`` (the S-curve, :func:`candidate_probability`). :func:`lsh_params` derives
(b, r) from a threshold t: among b·r ≤ K, the pair that keeps P(candidate | J = t) ≥ 1 - ε
(ε = 0.02 by default) with the least area under the curve below t, i.e. the fewest false
candidates to verify. Equal weighting of false positives and negatives (datasketch's default)
gives (9, 13) for t = 0.8, whose P(candidate | J = 0.8) is only 0.40; since every candidate is
verified before it is reported, trawl spends verification work to keep recall: (17, 7) for
t = 0.8 gives 0.125 at J = 0.5, 0.982 at J = 0.8 and 0.9999 at J = 0.9.

**Tables.** Each band is a hash table built once (:func:`build_tables`): its keys sorted, the ids
beside them and a bucket directory over the keys' top bits. Band keys are splitmix64 outputs, so
their top bits are already a uniform hash and each bucket holds 1-2 keys; a query is one bucket
probe per band (:func:`query_tables`), with no sort of the queries, no binary search and no
global sort of (query, candidate) pairs in the compiled path. The earlier design (argsort the
needles, binary-search each band, sort all pair codes) made querying 4.7x datasketch against
15-17x now (``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.dedup._kernels import densify_kernel, lsh_kernels
from trawl.dedup.hashing import I64, U64, ShingleBatch, splitmix64
from trawl.dedup.sets import concat_ranges, pairs_in_runs, unique_pairs

__all__ = [
    "MinHashLSH",
    "band_keys",
    "build_tables",
    "candidate_probability",
    "estimate_jaccard",
    "lsh_params",
    "minhash_signatures",
    "query_tables",
]

U32 = npt.NDArray[np.uint32]
_EMPTY = np.int64(1) << np.int64(32)  # above every 32-bit value: marks an empty bin
_MAX_PROBES = 4096
_KERNEL_MIN_EMPTY = 1 << 16  # empty bins below which numpy's probe rounds are quick enough


def candidate_probability(
    j: float | npt.NDArray[np.float64], bands: int, rows: int
) -> npt.NDArray[np.float64]:
    """P(two documents of Jaccard ``j`` share at least one band) = 1 - (1 - j**rows)**bands."""
    out: npt.NDArray[np.float64] = 1.0 - (1.0 - np.asarray(j, dtype=np.float64) ** rows) ** bands
    return out


@lru_cache(maxsize=64)
def lsh_params(threshold: float, num_perm: int = 128, max_miss: float = 0.02) -> tuple[int, int]:
    """(bands, rows) for a Jaccard ``threshold``: see the module docstring for the rule."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"the LSH threshold must be between 0 and 1, got {threshold}")
    grid = (np.arange(400) + 0.5) / 400 * threshold  # midpoints of [0, threshold]
    best: tuple[float, int, int] | None = None
    fallback: tuple[float, int, int] | None = None
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            at_t = float(candidate_probability(threshold, b, r))
            area = float(candidate_probability(grid, b, r).mean() * threshold)
            if at_t >= 1.0 - max_miss:
                if best is None or area < best[0]:
                    best = (area, b, r)
            elif fallback is None or at_t > fallback[0]:
                fallback = (at_t, b, r)
    chosen = best or fallback
    assert chosen is not None
    return chosen[1], chosen[2]


@lru_cache(maxsize=16)
def _probe_table(num_perm: int, seed: int) -> I64:
    """Bin to borrow from, per (attempt, empty bin): shape (_MAX_PROBES, num_perm)."""
    attempt = np.arange(1, _MAX_PROBES + 1, dtype=np.uint64)[:, None]
    bins = np.arange(num_perm, dtype=np.uint64)[None, :]
    h = splitmix64((attempt << np.uint64(32)) ^ bins ^ np.uint64(seed * 0x9E3779B1 & 0xFFFFFFFF))
    out: I64 = (h % np.uint64(num_perm)).astype(np.int64)
    return out


def minhash_signatures(batch: ShingleBatch, num_perm: int = 128, seed: int = 1) -> U32:
    """One-permutation MinHash signatures with optimal densification, shape (docs, num_perm).

    ``num_perm`` must be a power of two (the bin is the top bits of a shingle's hash). A document
    without shingles gets an all-``0xFFFFFFFF`` signature; :class:`MinHashLSH` skips those.
    """
    if num_perm < 2 or num_perm & (num_perm - 1):
        raise ValueError(f"num_perm must be a power of two ≥ 2 (one-permutation bins), got {num_perm}")
    shift = np.uint64(64 - (num_perm.bit_length() - 1))
    ndocs = len(batch)
    # Re-mix with the seed so that signatures of different seeds are independent.
    h = splitmix64(batch.hashes ^ np.uint64(seed * 0xD6E8FEB86659FD93 & 0xFFFFFFFFFFFFFFFF))
    bins = (h >> shift).astype(np.int64)
    vals = (h & np.uint64(0xFFFFFFFF)).astype(np.int64)
    flat = np.full(ndocs * num_perm, _EMPTY, dtype=np.int64)
    np.minimum.at(flat, batch.doc_ids() * num_perm + bins, vals)
    sig = flat.reshape(ndocs, num_perm)
    filled = flat != _EMPTY
    has_any = filled.reshape(ndocs, num_perm).any(axis=1)
    todo = np.flatnonzero(~filled & np.repeat(has_any, num_perm))  # flat (doc, bin) indices
    kernel = densify_kernel() if todo.size >= _KERNEL_MIN_EMPTY else None
    if kernel is not None:
        kernel(flat, ndocs, num_perm, _probe_table(num_perm, seed), _EMPTY)
        todo = todo[:0]
    row = todo - todo % num_perm
    col = todo % num_perm
    probes = _probe_table(num_perm, seed)
    attempt = 0
    while todo.size and attempt < _MAX_PROBES:
        src = row + probes[attempt, col]
        ok = filled[src]
        flat[todo[ok]] = flat[src[ok]]
        miss = ~ok
        todo, row, col = todo[miss], row[miss], col[miss]
        attempt += 1
    if todo.size:  # practically never: take the first non-empty bin
        first = np.argmax(filled.reshape(ndocs, num_perm), axis=1)
        docs = todo // num_perm
        flat[todo] = sig[docs, first[docs]]
    sig[sig == _EMPTY] = 0xFFFFFFFF
    return sig.astype(np.uint32)


def estimate_jaccard(sig_a: U32, sig_b: U32) -> npt.NDArray[np.float64]:
    """The fraction of equal signature values (row-wise for 2-D inputs): an estimate of J."""
    out: npt.NDArray[np.float64] = np.mean(sig_a == sig_b, axis=-1)
    return out


@lru_cache(maxsize=16)
def _band_multipliers(num_perm: int) -> U64:
    """One odd 64-bit multiplier per signature position (fixed: keys must agree across runs)."""
    out: U64 = splitmix64(np.arange(num_perm, dtype=np.uint64) + np.uint64(0x51ED27)) | np.uint64(1)
    return out


def band_keys(sigs: U32, bands: int, rows: int) -> U64:
    """One 64-bit key per (document, band), shape (docs, bands): the band's rows hashed.

    A band's key is splitmix64(Σ c_j · v_j mod 2**64) over its rows, c_j fixed odd 64-bit
    multipliers: two bands that differ in one value v_j (a difference below 2**32) can never
    collide, because c_j is invertible mod 2**64; bands differing in several values collide with
    probability about 2**-64. One multiply-add per value, one finaliser per band.
    """
    # One pass per row over a strided view (no (docs, bands, rows) uint64 temporary); uint64
    # products and sums wrap mod 2**64, as the definition wants.
    mult = _band_multipliers(sigs.shape[1])[: bands * rows].reshape(bands, rows)
    acc = np.empty((sigs.shape[0], bands), dtype=np.uint64)
    acc[:] = np.arange(bands, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    tmp = np.empty_like(acc)
    for j in range(rows):
        np.multiply(sigs[:, j : bands * rows : rows], mult[:, j], out=tmp, casting="unsafe")
        acc += tmp
    keys: U64 = splitmix64(acc)
    return keys


_KERNEL_MIN_KEYS = 1 << 14  # (documents x bands) below which the numpy LSH paths are quick enough


def _band_keys_t(sigs: U32, bands: int, rows: int) -> U64:
    """:func:`band_keys` transposed, shape (bands, docs): each band's keys contiguous."""
    kernels = lsh_kernels() if sigs.shape[0] * bands >= _KERNEL_MIN_KEYS else None
    if kernels is not None:
        out: U64 = kernels[0](np.ascontiguousarray(sigs), _band_multipliers(sigs.shape[1]), bands, rows)
        return out
    return np.ascontiguousarray(band_keys(sigs, bands, rows).T)


def _directory_bits(n: int) -> int:
    """Bits of the bucket directory for ``n`` keys: 2**bits ≤ n, so 1-2 keys per bucket."""
    return max(1, n.bit_length() - 1)


def build_tables(
    keys: U64, ids: npt.NDArray[Any], bits: int
) -> tuple[U64, npt.NDArray[Any], npt.NDArray[Any]]:
    """Per band (row), the keys sorted (stably), the ids beside them, and the bucket directory.

    ``dirs[band, t]`` is the first position of bucket ``t`` (keys whose top ``bits`` bits are
    ``t``) in the band's sorted keys; ``dirs[band, 2**bits]`` is the number of keys. The numba
    kernel (a counting sort by bucket, then an insertion sort inside each bucket) and the numpy
    path (a stable argsort, then a bincount of buckets) give identical arrays.
    """
    shift = np.uint64(64 - bits)
    nb = 1 << bits
    # int32 positions when they fit: the directory costs 2-4 bytes per document per band
    dirs = np.zeros((keys.shape[0], nb + 1), dtype=np.int32 if keys.shape[1] < (1 << 31) else np.int64)
    kernels = lsh_kernels() if keys.size >= _KERNEL_MIN_KEYS else None
    if kernels is not None:
        out_k, out_i = kernels[1](keys, ids, shift, dirs)
        return out_k, out_i, dirs
    order = np.argsort(keys, axis=1, kind="stable")
    out_k = np.take_along_axis(keys, order, axis=1)
    out_i = np.take_along_axis(ids, order, axis=1)
    for band in range(keys.shape[0]):
        np.cumsum(np.bincount((out_k[band] >> shift).astype(np.int64), minlength=nb), out=dirs[band, 1:])
    return out_k, out_i, dirs


def query_tables(
    qkeys: U64, keys: U64, ids: npt.NDArray[Any], dirs: npt.NDArray[Any], bits: int
) -> tuple[I64, I64]:
    """Every (query, id) whose keys agree in at least one band, each once, sorted by (query, id).

    A query's key is looked up in its band's bucket (the directory gives its 1-2 entries): a
    hash-table probe, no sort of the queries and no binary search. The numba kernel
    de-duplicates each query's few candidates in a small buffer; the numpy path gathers all
    (query, id) hits band by band and sorts their codes once. Both give the same arrays.
    """
    shift = np.uint64(64 - bits)
    bands, nq = qkeys.shape
    kernels = lsh_kernels() if qkeys.size >= _KERNEL_MIN_KEYS else None
    if kernels is not None:
        q, i = kernels[2](qkeys, keys, ids, dirs, shift)
        return q, i
    out_q: list[I64] = []
    out_i: list[I64] = []
    qidx = np.arange(nq, dtype=np.int64)
    for band in range(bands):
        qk = qkeys[band]
        t = (qk >> shift).astype(np.int64)
        lo = dirs[band, t]
        n = dirs[band, t + 1] - lo
        pos = concat_ranges(lo, n)
        rep = np.repeat(qidx, n)
        hit = keys[band, pos] == qk[rep]
        out_q.append(rep[hit])
        out_i.append(ids[band, pos[hit]].astype(np.int64))
    q = np.concatenate(out_q)
    i = np.concatenate(out_i)
    if q.size == 0:
        return q, i
    base = np.int64(int(i.max()) + 1)
    code = np.sort(q * base + i)  # (query, id) as one int64
    keep = np.ones(len(code), dtype=bool)
    keep[1:] = code[1:] != code[:-1]
    code = code[keep]
    return code // base, code % base


@dataclass
class MinHashLSH:
    """A banded LSH index over MinHash signatures: insert in batches, query, or list all pairs.

    Per band: the keys sorted, the ids beside them, and a bucket directory over the keys' top
    bits — a hash table built once (2**bits ≤ documents buckets, so 1-2 keys each): 8 bytes of
    key, 4 of id and 4-8 of directory per document per band (about 300 bytes for 17 bands).
    Inserts are buffered and merged on first use; a query is one bucket probe per band.
    """

    threshold: float = 0.8
    num_perm: int = 128
    bands: int = 0
    rows: int = 0
    _pending: list[tuple[U64, I64]] = field(default_factory=list, repr=False)  # ((bands, m), (m,))
    _keys: U64 | None = field(default=None, repr=False)  # (bands, docs), sorted per band
    _ids: npt.NDArray[Any] | None = field(default=None, repr=False)  # (bands, docs)
    _dirs: npt.NDArray[Any] | None = field(default=None, repr=False)  # (bands, 2**bits + 1)
    _bits: int = field(default=1, repr=False)

    def __post_init__(self) -> None:
        if not self.bands or not self.rows:
            self.bands, self.rows = lsh_params(self.threshold, self.num_perm)
        if self.bands * self.rows > self.num_perm:
            raise ValueError(f"{self.bands} bands x {self.rows} rows exceed {self.num_perm} values")

    def insert(self, ids: Iterable[int] | I64, sigs: U32) -> None:
        """Add documents (signatures of empty documents, all 0xFFFFFFFF, are skipped)."""
        arr: I64 = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids, dtype=np.int64)
        # Densified signatures are all filled or all empty; two columns tell them apart (a real
        # 0xFFFFFFFF in both has probability 2**-64).
        keep = (sigs[:, 0] != 0xFFFFFFFF) | (sigs[:, 1] != 0xFFFFFFFF)
        if not keep.any():
            return
        if not keep.all():
            sigs, arr = sigs[keep], arr[keep]
        self._pending.append((_band_keys_t(sigs, self.bands, self.rows), arr))

    def insert_keys(self, ids: I64, keys: U64) -> None:
        """Add documents by their band keys, shape (bands, len(ids)), computed elsewhere (the map
        tasks of a sharded discovery): the same tables as :meth:`insert` of their signatures."""
        if keys.shape != (self.bands, len(ids)):
            raise ValueError(f"band keys of shape {keys.shape} for {len(ids)} documents x {self.bands} bands")
        if len(ids):
            self._pending.append((np.ascontiguousarray(keys, dtype=np.uint64), np.asarray(ids, np.int64)))

    def _tables(self) -> tuple[U64, npt.NDArray[Any], npt.NDArray[Any]]:
        """(keys, ids, dirs): per band the sorted keys, their ids and the bucket directory."""
        if self._pending:
            keys = [p[0] for p in self._pending]
            ids = [p[1] for p in self._pending]
            all_ids = np.concatenate(ids)
            # int32 ids when they fit: 12 instead of 16 bytes per document per band
            small = self._ids is None or self._ids.dtype == np.int32
            fits = small and int(all_ids.max()) < (1 << 31) and int(all_ids.min()) >= 0
            dtype = np.int32 if fits else np.int64
            id_rows = [np.broadcast_to(x.astype(dtype), (self.bands, len(x))) for x in ids]
            if self._keys is not None and self._ids is not None:
                keys.insert(0, self._keys)
                id_rows.insert(0, self._ids.astype(dtype, copy=False))
            all_keys = np.ascontiguousarray(np.concatenate(keys, axis=1))
            ids_t = np.ascontiguousarray(np.concatenate(id_rows, axis=1))
            self._bits = _directory_bits(all_keys.shape[1])
            self._keys, self._ids, self._dirs = build_tables(all_keys, ids_t, self._bits)
            self._pending = []
        if self._keys is None or self._ids is None or self._dirs is None:
            empty = np.zeros((self.bands, 0), dtype=np.uint64)
            return empty, np.zeros((self.bands, 0), dtype=np.int64), np.zeros((self.bands, 3), np.int64)
        return self._keys, self._ids, self._dirs

    def __len__(self) -> int:
        return int(self._tables()[1].shape[1])

    def state(self) -> tuple[dict[str, int | float], dict[str, npt.NDArray[Any]]]:
        """The built index as (parameters, arrays), for :meth:`from_state` (``trawl.dedup.persist``)."""
        keys, ids, dirs = self._tables()
        params: dict[str, int | float] = {
            "threshold": self.threshold,
            "num_perm": self.num_perm,
            "bands": self.bands,
            "rows": self.rows,
            "bits": self._bits,
        }
        return params, {"keys": keys, "ids": ids, "dirs": dirs}

    @classmethod
    def from_state(cls, params: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> MinHashLSH:
        """An index from :meth:`state`'s output (arrays may be read-only memory maps)."""
        lsh = cls(
            float(params["threshold"]), int(params["num_perm"]), int(params["bands"]), int(params["rows"])
        )
        keys, ids, dirs = arrays["keys"], arrays["ids"], arrays["dirs"]
        bits = int(params["bits"])
        want_dirs = (lsh.bands, (1 << bits) + 1)
        if keys.shape != ids.shape or keys.shape[0] != lsh.bands or dirs.shape != want_dirs:
            raise ValueError(f"inconsistent LSH arrays: {keys.shape}, {ids.shape}, {dirs.shape}")
        if keys.shape[1]:
            lsh._keys, lsh._ids, lsh._dirs, lsh._bits = keys, ids, dirs, bits
        return lsh

    def query_pairs(self, sigs: U32) -> tuple[I64, I64]:
        """All (query row, candidate id) pairs, each once, sorted, for a batch of query signatures."""
        sigs = np.atleast_2d(sigs)
        keys, ids, dirs = self._tables()
        qkeys = _band_keys_t(sigs, self.bands, self.rows)
        return query_tables(qkeys, keys, ids, dirs, self._bits)

    def query(self, sigs: U32) -> list[I64]:
        """For each signature (one row per query), the ids of its candidates (sorted, unique)."""
        sigs = np.atleast_2d(sigs)
        q, i = self.query_pairs(sigs)
        bounds = np.searchsorted(q, np.arange(len(sigs) + 1))
        return [i[bounds[k] : bounds[k + 1]] for k in range(len(sigs))]

    def pairs(self, max_run: int = 64) -> tuple[I64, I64, int]:
        """Every candidate pair (id_a < id_b) that shares a band, and the number of capped runs."""
        keys, ids, _ = self._tables()
        out_a: list[I64] = []
        out_b: list[I64] = []
        capped = 0
        for band in range(self.bands):
            a, b, c = pairs_in_runs(keys[band], ids[band], max_run)
            out_a.append(a)
            out_b.append(b)
            capped += c
        if not out_a:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, capped
        a, b = unique_pairs(np.concatenate(out_a), np.concatenate(out_b))
        return a, b, capped

    @property
    def nbytes(self) -> int:
        """Memory held by the index: per band, 8 bytes of key, 4 (or 8) of id, and the directory."""
        keys, ids, dirs = self._tables()
        return int(keys.nbytes + ids.nbytes + dirs.nbytes)
