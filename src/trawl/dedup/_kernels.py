"""Optional numba kernels: the same results as the numpy code paths, in one pass over the bytes.

numba is not a dependency of trawl (``pip install 'trawl[dedup-fast]'`` adds it). When it is
importable (and ``TRAWL_NO_NUMBA`` is not set), word hashing runs as one compiled loop over the
buffer instead of about ten numpy passes with
int64 index arrays (about 5x faster on the benchmark's texts), and MinHash densification of
short documents — many empty bins, each probing until it finds a filled one — runs as a plain
loop instead of one vector pass per probe round (about 10x faster on 20-60-word documents).
Together they are what makes hashing stop being the bottleneck of MinHash. The LSH kernels
compute band keys in one pass over the signatures, build each band's table (a stable counting
sort by bucket, which also yields the bucket directory) and answer a batch of queries by one
bucket probe per band, de-duplicating each query's few candidates in a small buffer (see
:mod:`trawl.dedup.minhash`; 2-5x faster than the numpy paths, which give the same arrays).
The kernels are compiled on first use and cached on disk (``cache=True``), so only the first run on a machine
pays the compile time (a few seconds); small batches never call them. Tests check that both
paths give identical results.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["densify_kernel", "hash_words_kernel", "lsh_kernels"]

_kernel: dict[str, Callable[..., Any]] | None = None
_tried = False


def _build() -> dict[str, Callable[..., Any]] | None:
    if os.environ.get("TRAWL_NO_NUMBA"):
        return None
    try:
        numba: Any = importlib.import_module("numba")
    except ImportError:
        return None

    @numba.njit(cache=True, nogil=True)  # type: ignore[untyped-decorator]
    def hash_words(buf: Any, seed: Any) -> Any:  # pragma: no cover - compiled
        n = buf.size
        count = 0
        prev = False
        for i in range(n):
            w = buf[i] != 32
            if w and not prev:
                count += 1
            prev = w
        hashes = np.empty(count, dtype=np.uint64)
        starts = np.empty(count, dtype=np.int64)
        p = np.uint64(0x100000001B3)
        golden = np.uint64(0x9E3779B97F4A7C15)
        m1 = np.uint64(0xBF58476D1CE4E5B9)
        m2 = np.uint64(0x94D049BB133111EB)
        one = np.uint64(1)
        k = -1
        h = np.uint64(0)
        pw = one
        length = 0
        for i in range(n + 1):
            b = buf[i] if i < n else 32
            if b != 32:
                if length == 0:
                    k += 1
                    starts[k] = i
                    h = np.uint64(0)
                    pw = one
                h += (np.uint64(b) + one) * pw
                pw *= p
                length += 1
            elif length:
                z = h ^ (np.uint64(length) * golden) ^ seed
                z = z + golden
                z = (z ^ (z >> np.uint64(30))) * m1
                z = (z ^ (z >> np.uint64(27))) * m2
                hashes[k] = z ^ (z >> np.uint64(31))
                length = 0
        return hashes, starts

    @numba.njit(cache=True, nogil=True)  # type: ignore[untyped-decorator]
    def densify(flat: Any, ndocs: Any, k: Any, probes: Any, empty: Any) -> None:  # pragma: no cover
        filled = np.empty(k, dtype=np.bool_)
        for d in range(ndocs):
            base = d * k
            first = -1
            for j in range(k):
                filled[j] = flat[base + j] != empty
                if filled[j] and first < 0:
                    first = j
            if first < 0:
                continue
            for j in range(k):
                if filled[j]:
                    continue
                done = False
                for a in range(probes.shape[0]):
                    src = probes[a, j]
                    if filled[src]:
                        flat[base + j] = flat[base + src]
                        done = True
                        break
                if not done:
                    flat[base + j] = flat[base + first]

    golden = np.uint64(0x9E3779B97F4A7C15)
    mix1 = np.uint64(0xBF58476D1CE4E5B9)
    mix2 = np.uint64(0x94D049BB133111EB)

    @numba.njit(cache=True, nogil=True)  # type: ignore[untyped-decorator]
    def band_keys(sigs: Any, mult: Any, bands: Any, rows: Any) -> Any:  # pragma: no cover - compiled
        n = sigs.shape[0]
        out = np.empty((bands, n), dtype=np.uint64)
        for d in range(n):
            for b in range(bands):
                acc = np.uint64(b) * golden
                for j in range(b * rows, (b + 1) * rows):
                    acc += np.uint64(sigs[d, j]) * mult[j]
                z = acc + golden
                z = (z ^ (z >> np.uint64(30))) * mix1
                z = (z ^ (z >> np.uint64(27))) * mix2
                out[b, d] = z ^ (z >> np.uint64(31))
        return out

    @numba.njit(cache=True, nogil=True)  # type: ignore[untyped-decorator]
    def lsh_build(keys: Any, ids: Any, shift: Any, dirs: Any) -> Any:  # pragma: no cover - compiled
        # Per band: a stable counting sort by bucket (the key's top bits), then a stable insertion
        # sort of each bucket (1-2 keys on average) by key: a stable sort by key, the directory
        # (bucket -> first position) falling out of the counting pass.
        bands, n = keys.shape
        nbuckets = dirs.shape[1] - 1
        out_k = np.empty_like(keys)
        out_i = np.empty_like(ids)
        for b in range(bands):
            d = dirs[b]
            for p in range(n):
                d[(keys[b, p] >> shift) + 1] += 1
            for t in range(nbuckets):
                d[t + 1] += d[t]
            fill = d[:-1].copy()
            for p in range(n):
                k = keys[b, p]
                t = k >> shift
                q = fill[t]
                fill[t] = q + 1
                # insertion into the bucket's sorted prefix (stable: after equal keys)
                while q > d[t] and out_k[b, q - 1] > k:
                    out_k[b, q] = out_k[b, q - 1]
                    out_i[b, q] = out_i[b, q - 1]
                    q -= 1
                out_k[b, q] = k
                out_i[b, q] = ids[b, p]
        return out_k, out_i

    @numba.njit(cache=True, nogil=True)  # type: ignore[untyped-decorator]
    def lsh_query(qkeys: Any, keys: Any, ids: Any, dirs: Any, shift: Any) -> Any:  # pragma: no cover
        # Band-major first, so that one band's table (a few MB) stays in cache while every query
        # probes it: the hits of each band are appended in query order. Then query-major: each
        # query's hits are read from the bands' streams (sequential reads), sorted and
        # de-duplicated in a small buffer (a query has a handful of candidates).
        bands, nq = qkeys.shape
        counts = np.zeros((bands, nq), dtype=np.int32)
        cap = 2 * bands * nq + 64
        hits = np.empty(cap, dtype=ids.dtype)
        total = 0
        for b in range(bands):
            kb = keys[b]
            ib = ids[b]
            db = dirs[b]
            for q in range(nq):
                k = qkeys[b, q]
                t = k >> shift
                c = 0
                for p in range(db[t], db[t + 1]):
                    kk = kb[p]
                    if kk == k:
                        if total == cap:
                            cap *= 2
                            grown = np.empty(cap, dtype=ids.dtype)
                            grown[:total] = hits[:total]
                            hits = grown
                        hits[total] = ib[p]
                        total += 1
                        c += 1
                    elif kk > k:
                        break
                counts[b, q] = c
        cursor = np.zeros(bands, dtype=np.int64)
        run = 0
        for b in range(bands):
            cursor[b] = run
            for q in range(nq):
                run += counts[b, q]
        out_q = np.empty(total, dtype=np.int64)
        out_i = np.empty(total, dtype=np.int64)
        buf = np.empty(64, dtype=np.int64)
        count = 0
        for q in range(nq):
            m = 0
            for b in range(bands):
                c = counts[b, q]
                if c == 0:
                    continue
                if m + c > buf.size:
                    grown_buf = np.empty(2 * (m + c), dtype=np.int64)
                    grown_buf[:m] = buf[:m]
                    buf = grown_buf
                start = cursor[b]
                for x in range(c):
                    buf[m + x] = hits[start + x]
                cursor[b] = start + c
                m += c
            if m == 0:
                continue
            if m > 32:
                buf[:m].sort()
            else:
                for x in range(1, m):
                    v = buf[x]
                    y = x
                    while y > 0 and buf[y - 1] > v:
                        buf[y] = buf[y - 1]
                        y -= 1
                    buf[y] = v
            for x in range(m):
                if x == 0 or buf[x] != buf[x - 1]:
                    out_q[count] = q
                    out_i[count] = buf[x]
                    count += 1
        return out_q[:count].copy(), out_i[:count].copy()

    return {
        "hash_words": hash_words,
        "densify": densify,
        "band_keys": band_keys,
        "lsh_build": lsh_build,
        "lsh_query": lsh_query,
    }


def _kernels() -> dict[str, Callable[..., Any]] | None:
    global _kernel, _tried  # noqa: PLW0603 - the kernels are compiled lazily, once per process
    if not _tried:
        _tried = True
        _kernel = _build()
    return _kernel


def hash_words_kernel() -> Callable[[npt.NDArray[np.uint8], np.uint64], tuple[Any, Any]] | None:
    """The compiled word hasher, or None when numba is unavailable or disabled."""
    k = _kernels()
    return None if k is None else k["hash_words"]


def densify_kernel() -> Callable[..., None] | None:
    """The compiled MinHash densifier (in place), or None when numba is unavailable or disabled."""
    k = _kernels()
    return None if k is None else k["densify"]


def lsh_kernels() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """The compiled LSH band keys, table build and batch query, or None without numba."""
    k = _kernels()
    return None if k is None else (k["band_keys"], k["lsh_build"], k["lsh_query"])
