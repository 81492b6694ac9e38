"""N-gram fingerprints: 0 mod p, winnowing and its guarantee, the inverted index's overlaps."""

from __future__ import annotations

import numpy as np
import pytest

from trawl.dedup.fingerprint import (
    FingerprintIndex,
    FingerprintPairs,
    IndexedHashSets,
    mod_p_batch,
    select_mod_p,
    winnow,
    winnow_batch,
)
from trawl.dedup.hashing import shingle_hashes
from trawl.dedup.sets import HashSets
from trawl.dedup.synth import generate


def test_select_mod_p() -> None:
    h = np.arange(1, 101, dtype=np.uint64)
    assert select_mod_p(h, 10).tolist() == list(range(10, 101, 10))
    batch = shingle_hashes(["a b c d e f g h i j k l m n o p q r s t", "", "x y z"], 3)
    sets = mod_p_batch(batch, 3)
    for d in range(3):
        assert sorted(sets.of(d).tolist()) == sorted(set(select_mod_p(batch.of(d), 3).tolist()))


def test_mod_p_has_no_guarantee_but_winnowing_does() -> None:
    # a shared run of w + n - 1 words: winnowing always keeps a shared fingerprint, 0 mod p
    # (same density 2 / (w + 1)) misses some of these runs
    rng = np.random.default_rng(1)
    w, n, missed = 4, 5, 0
    for _ in range(300):
        shared = _words(rng, w + n - 1, "s")
        batch = shingle_hashes(
            [" ".join(_words(rng, 20, "a") + shared), " ".join(shared + _words(rng, 20, "b"))], n
        )
        sets = mod_p_batch(batch, (w + 1) // 2 + 1)
        missed += not set(sets.of(0).tolist()) & set(sets.of(1).tolist())
    assert missed > 30


def test_winnow_picks_rightmost_minimum_once() -> None:
    # Schleimer et al.'s example shape: the minimum of each window, each position once
    h = np.array([77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98], dtype=np.uint64)
    pos, fps = winnow(h, 4)
    assert fps.tolist() == [17, 17, 8, 39, 17]
    assert pos.tolist() == [3, 6, 8, 11, 15]
    assert winnow(np.array([5, 3, 3], dtype=np.uint64), 4)[0].tolist() == [2]  # shorter than w
    assert winnow(np.zeros(0, dtype=np.uint64), 4)[0].size == 0


def _words(rng: np.random.Generator, k: int, prefix: str) -> list[str]:
    return [f"{prefix}{int(x)}" for x in rng.integers(0, 10**9, size=k)]


@pytest.mark.parametrize(("w", "n"), [(4, 5), (8, 3), (1, 4)])
def test_winnowing_guarantee_shared_run_of_w_plus_n_minus_1_words(w: int, n: int) -> None:
    rng = np.random.default_rng(w * 10 + n)
    t = w + n - 1
    for trial in range(200):
        shared = _words(rng, t, "s")
        a = _words(rng, int(rng.integers(0, 40)), "a") + shared + _words(rng, int(rng.integers(0, 40)), "a")
        b = _words(rng, int(rng.integers(0, 40)), "b") + shared + _words(rng, int(rng.integers(0, 40)), "b")
        batch = shingle_hashes([" ".join(a), " ".join(b)], n)
        _, fa = winnow(batch.of(0), w)
        _, fb = winnow(batch.of(1), w)
        assert set(fa.tolist()) & set(fb.tolist()), f"trial {trial}: a shared run of {t} words was missed"


def test_winnowing_density_about_2_over_w_plus_1() -> None:
    rng = np.random.default_rng(3)
    h = rng.integers(0, 1 << 63, size=100_000, dtype=np.int64).astype(np.uint64)
    pos, _ = winnow(h, 9)
    assert abs(len(pos) / len(h) - 2 / 10) < 0.01


def test_index_jaccard_and_containment_equal_python_sets() -> None:
    rng = np.random.default_rng(0)
    sets_py = []
    for _ in range(60):
        sets_py.append(set(rng.integers(0, 300, size=int(rng.integers(1, 80))).tolist()))
    sets_py.append(set())
    flat = np.array([x for s in sets_py for x in s], dtype=np.uint64)
    offsets = np.cumsum([0] + [len(s) for s in sets_py]).astype(np.int64)
    hs = HashSets.from_csr(flat, offsets)
    index = FingerprintIndex(hs)
    pairs = index.pairs()
    got = {
        (a, b): (j, ca)
        for a, b, j, ca in zip(
            pairs.a.tolist(),
            pairs.b.tolist(),
            pairs.jaccard.tolist(),
            pairs.containment_a.tolist(),
            strict=True,
        )
    }
    for a in range(len(sets_py)):
        for b in range(a + 1, len(sets_py)):
            inter = len(sets_py[a] & sets_py[b])
            if inter:
                j, ca = got.pop((a, b))
                assert j == pytest.approx(inter / len(sets_py[a] | sets_py[b]))
                assert ca == pytest.approx(inter / len(sets_py[a]))
    assert not got
    q = index.query(np.array(sorted(sets_py[3]), dtype=np.uint64))
    assert q.b[0] == 3 and q.jaccard[0] == 1.0
    j = hs.jaccard(np.array([0, 1]), np.array([1, 60]))
    assert j[0] == pytest.approx(len(sets_py[0] & sets_py[1]) / len(sets_py[0] | sets_py[1]))
    assert j[1] == 0.0


def test_max_df_skips_boilerplate_fingerprints() -> None:
    sets = HashSets.from_csr(np.array([7, 1, 7, 2, 7, 3], dtype=np.uint64), np.array([0, 2, 4, 6]))
    index = FingerprintIndex(sets, max_df=2)
    assert index.pairs().a.size == 0
    assert index.skipped_fingerprints == 1


def test_winnow_batch_equals_single() -> None:
    texts = ["a b c d e f g h i j k l m n o p", "x y", "q r s t u v w x y z a b"]
    batch = shingle_hashes(texts, 3)
    sets = winnow_batch(batch, 4)
    for d in range(3):
        assert sets.of(d).tolist() == sorted(set(winnow(batch.of(d), 4)[1].tolist()))


def _same(x: FingerprintPairs, y: FingerprintPairs) -> None:
    for f in ("a", "b", "shared", "jaccard", "containment_a", "containment_b"):
        assert getattr(x, f).tolist() == getattr(y, f).tolist(), f


@pytest.mark.parametrize("select", ["winnow", "mod-p"])
def test_indexed_sets_answer_as_a_fresh_index(select: str) -> None:
    # a stored inverted index (int32 postings, as trawl.dedup.persist writes it) must give the same
    # queries and pairs as the index built from the sets, for either fingerprint selection
    corpus = generate(40, length=(30, 120), seed=5, truth=False)
    batch = shingle_hashes(corpus.texts, 5)
    sets = winnow_batch(batch, 4) if select == "winnow" else mod_p_batch(batch, 3)
    built = IndexedHashSets.index(sets)
    assert IndexedHashSets.index(built) is built
    stored = IndexedHashSets(built.hashes, built.offsets, built.keys, built.postings.astype(np.int32))
    stored.check()
    fresh, kept = FingerprintIndex(sets), FingerprintIndex(stored)
    assert kept.keys is stored.keys and kept.postings is stored.postings  # nothing sorted again
    assert fresh.keys.tolist() == stored.keys.tolist()
    assert fresh.postings.tolist() == stored.postings.tolist()
    queries = [sets.of(d) for d in range(0, len(sets), 7)] + [np.zeros(0, np.uint64)]
    for k, q in enumerate(queries):
        for exclude in (None, 7 * k):
            _same(fresh.query(q, exclude=exclude), kept.query(q, exclude=exclude))
    _same(fresh.pairs(), kept.pairs())
    assert kept.query(sets.of(7)).b[0] == 7


def test_indexed_sets_check_rejects_arrays_that_do_not_fit() -> None:
    sets = IndexedHashSets.index(
        HashSets.from_csr(np.array([7, 1, 7, 2], dtype=np.uint64), np.array([0, 2, 4]))
    )
    sets.check()
    with pytest.raises(ValueError, match="inverted index"):
        IndexedHashSets(sets.hashes, sets.offsets, sets.keys[:-1], sets.postings).check()
    with pytest.raises(ValueError, match="dtypes"):
        IndexedHashSets(sets.hashes, sets.offsets, sets.keys.astype(np.int64), sets.postings).check()
    with pytest.raises(ValueError, match="offsets"):
        IndexedHashSets(sets.hashes, np.array([0, 2, 3]), sets.keys, sets.postings).check()
