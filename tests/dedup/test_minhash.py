"""MinHash: unbiased Jaccard estimates, the S-curve at J = 0.5, 0.8, 0.9, and LSH queries/pairs."""

from __future__ import annotations

import numpy as np
import pytest

from trawl.dedup.hashing import ShingleBatch
from trawl.dedup.minhash import (
    MinHashLSH,
    band_keys,
    candidate_probability,
    estimate_jaccard,
    lsh_params,
    minhash_signatures,
)


def _pairs_with_jaccard(j: float, trials: int, size: int, seed: int) -> tuple[ShingleBatch, float]:
    """``trials`` pairs of sets of ``size`` random hashes whose Jaccard is exactly ≈ j."""
    rng = np.random.default_rng(seed)
    m = round(2 * size * j / (1 + j))  # |A ∩ B| for |A| = |B| = size
    parts = []
    for _ in range(trials):
        u = rng.integers(0, 1 << 63, size=2 * size - m, dtype=np.int64).astype(np.uint64)
        parts += [u[:size], np.concatenate([u[:m], u[size:]])]
    offsets = np.arange(0, 2 * trials * size + 1, size, dtype=np.int64)
    return ShingleBatch(np.concatenate(parts), offsets, 5), m / (2 * size - m)


def test_lsh_params_from_threshold() -> None:
    assert lsh_params(0.8, 128) == (17, 7)
    for t in (0.5, 0.7, 0.8, 0.9):
        b, r = lsh_params(t, 128)
        assert b * r <= 128
        assert candidate_probability(t, b, r) >= 0.98


@pytest.mark.parametrize(("j", "expect"), [(0.5, 0.126), (0.8, 0.983), (0.9, 1.0)])
def test_s_curve_empirical_matches_theory(j: float, expect: float) -> None:
    bands, rows = lsh_params(0.8, 128)
    theory = float(candidate_probability(j, bands, rows))
    assert abs(theory - expect) < 0.005
    batch, true_j = _pairs_with_jaccard(j, 1500, 300, seed=int(j * 10))
    sigs = minhash_signatures(batch, 128)
    keys = band_keys(sigs, bands, rows)
    observed = float((keys[0::2] == keys[1::2]).any(axis=1).mean())
    theory = float(candidate_probability(true_j, bands, rows))
    # binomial standard error over 1,500 pairs is at most 0.013
    assert abs(observed - theory) < 0.04, (observed, theory)
    est = estimate_jaccard(sigs[0::2], sigs[1::2])
    assert abs(float(est.mean()) - true_j) < 0.01  # unbiased
    assert float(est.std()) < 0.06  # about sqrt(J(1-J)/128)


def test_short_documents_are_densified_not_empty() -> None:
    batch = ShingleBatch(
        np.array([1, 2, 3, 1, 2, 4], dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15),
        np.array([0, 3, 6, 6]),
        5,
    )
    sigs = minhash_signatures(batch, 64)
    assert (sigs[0] != 0xFFFFFFFF).all() and (sigs[1] != 0xFFFFFFFF).all()
    assert (sigs[2] == 0xFFFFFFFF).all()  # no shingles: no signature
    # values come only from the document's own shingles
    assert len(set(sigs[0].tolist())) <= 3


def test_num_perm_must_be_power_of_two() -> None:
    batch = ShingleBatch(np.zeros(1, dtype=np.uint64), np.array([0, 1]), 5)
    with pytest.raises(ValueError, match="power of two"):
        minhash_signatures(batch, 100)


def test_lsh_query_and_pairs() -> None:
    batch, _ = _pairs_with_jaccard(0.95, 200, 200, seed=1)
    sigs = minhash_signatures(batch)
    lsh = MinHashLSH(threshold=0.8)
    lsh.insert(np.arange(0, 400, 2), sigs[0::2])
    lsh.insert(np.arange(1, 400, 2), sigs[1::2])
    assert len(lsh) == 400
    a, b, _ = lsh.pairs()
    got = set(zip(a.tolist(), b.tolist(), strict=True))
    assert len(got & {(i, i + 1) for i in range(0, 400, 2)}) >= 198
    assert len(got) < 220  # unrelated random sets are (almost) never candidates
    hits = lsh.query(sigs[:3])
    assert 0 in hits[0] and 1 in hits[0] and 2 in hits[2]
    empty = MinHashLSH(threshold=0.8)
    assert empty.query(sigs[:1])[0].size == 0


def test_empty_signatures_are_skipped_and_ids_stay_aligned() -> None:
    sigs = np.random.default_rng(0).integers(0, 2**32 - 1, size=(4, 128)).astype(np.uint32)
    sigs[1] = 0xFFFFFFFF  # a document without shingles
    sigs[3] = sigs[2]
    lsh = MinHashLSH()
    lsh.insert(np.array([10, 11, 12, 13]), sigs)
    assert len(lsh) == 3
    a, b, _ = lsh.pairs()
    assert (a.tolist(), b.tolist()) == ([12], [13])
    assert lsh.query(sigs[2])[0].tolist() == [12, 13]


def _lsh_inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signatures with near-duplicate groups, exact copies and a hub of 200 identical documents."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2**32 - 1, size=(3000, 128)).astype(np.uint32)
    sigs = base.copy()
    edit = rng.random(sigs.shape) < 0.1
    sigs[1000:2000][edit[1000:2000]] = rng.integers(0, 2**32 - 1, size=int(edit[1000:2000].sum()))
    sigs[1000:2000] = np.where(edit[1000:2000], sigs[1000:2000], base[:1000])  # variants of 0..999
    sigs[2000:2200] = base[2999]  # a hub
    ids = rng.permutation(10_000)[:3000].astype(np.int64)  # ids not in insertion order
    return sigs, ids, rng.integers(0, 2**32 - 1, size=(50, 128)).astype(np.uint32)


def test_lsh_kernels_equal_numpy_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.dedup import _kernels, minhash

    if _kernels.lsh_kernels() is None:
        pytest.skip("numba is not installed (the numpy paths are the only ones)")
    sigs, ids, strangers = _lsh_inputs(3)
    queries = np.concatenate([sigs[::7], strangers])
    results = []
    for threshold in (1, 1 << 62):  # kernels always, then never
        monkeypatch.setattr(minhash, "_KERNEL_MIN_KEYS", threshold)
        lsh = MinHashLSH(0.8)
        lsh.insert(ids[:1700], sigs[:1700])
        lsh.query_pairs(sigs[:5])  # build, then merge a second batch into the built tables
        lsh.insert(ids[1700:], sigs[1700:])
        keys, tids, dirs = lsh._tables()
        q, i = lsh.query_pairs(queries)
        results.append((band_keys(sigs, 17, 7), keys, tids, dirs, q, i, lsh.pairs()))
    fast, slow = results
    for x, y in zip(fast[:6], slow[:6], strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    assert all(np.array_equal(x, y) for x, y in zip(fast[6][:2], slow[6][:2], strict=True))


def test_lsh_query_matches_brute_force() -> None:
    sigs, ids, strangers = _lsh_inputs(4)
    lsh = MinHashLSH(0.8)
    lsh.insert(ids, sigs)
    keys_db = band_keys(sigs, lsh.bands, lsh.rows)
    queries = np.concatenate([sigs[::5], strangers])
    q, i = lsh.query_pairs(queries)
    qk = band_keys(queries, lsh.bands, lsh.rows)
    share = (qk[:, None, :] == keys_db[None, :, :]).any(axis=2)  # (queries, docs)
    wq, wd = np.nonzero(share)
    want = sorted(zip(wq.tolist(), ids[wd].tolist(), strict=True))
    assert list(zip(q.tolist(), i.tolist(), strict=True)) == want
    assert any(x >= len(sigs[::5]) for x in q.tolist()) is False  # random strangers find nothing
    hub = lsh.query(sigs[2100])[0]
    assert sorted(hub.tolist()) == hub.tolist() and len(hub) == 201  # the hub and its original
