"""Simhash: the course's worked example exactly, batch = reference, Manku tables = brute force."""

from __future__ import annotations

import numpy as np
import pytest

from trawl.dedup.hashing import shingle_hashes, word_hashes
from trawl.dedup.simhash import (
    SimhashIndex,
    choose_blocks,
    expected_hamming,
    fingerprint_from_vector,
    hamming,
    simhash,
    simhash_batch,
    simhash_similarity,
    simhash_vector,
)

# Croft, Metzler & Strohman, "Search Engines: Information Retrieval in Practice", §3.7 (simhash):
# "Tropical fish include fish found in tropical environments around the world, including both
# freshwater and salt water species." — words weighted by frequency (stop words removed), with the
# book's 8-bit hash values.
TROPICAL_FISH = {
    "tropical": (2, "01100001"),
    "fish": (2, "10101011"),
    "include": (1, "11100110"),
    "found": (1, "00011110"),
    "environments": (1, "00101101"),
    "around": (1, "10001011"),
    "world": (1, "00101010"),
    "including": (1, "11000000"),
    "both": (1, "10101110"),
    "freshwater": (1, "00111111"),
    "salt": (1, "10110101"),
    "water": (1, "00100101"),
    "species": (1, "11101110"),
}


def test_course_worked_example_exactly() -> None:
    text = (
        "Tropical fish include fish found in tropical environments around the world, "
        "including both freshwater and salt water species."
    )
    stop = {"in", "the", "and"}
    words = [w for w in text.lower().replace(",", "").replace(".", "").split() if w not in stop]
    weights = {w: words.count(w) for w in dict.fromkeys(words)}
    assert weights == {w: wt for w, (wt, _) in TROPICAL_FISH.items()}  # frequencies, as on the slide
    hashes = [int(TROPICAL_FISH[w][1], 2) for w in weights]
    v = simhash_vector(hashes, list(weights.values()), bits=8)
    assert v.tolist() == [1, -5, 9, -9, 3, 1, 3, 3]
    fp = fingerprint_from_vector(v)
    assert format(fp, "08b") == "10101111"
    assert simhash(hashes, list(weights.values()), bits=8) == 0b10101111


def test_similarity_is_fraction_of_equal_bits() -> None:
    assert float(simhash_similarity(0b1010, 0b1000, bits=4)) == 0.75
    assert int(hamming(0xFF, 0x0F)) == 4


@pytest.mark.parametrize("weighting", ["tf", "tfidf"])
def test_batch_equals_reference_on_words(weighting: str) -> None:
    texts = ["the cat sat on the mat the end", "a dog", "", "cat cat cat dog"]
    wb = word_hashes(texts)
    fps = simhash_batch(wb, weighting)  # type: ignore[arg-type]
    assert int(fps[2]) == 0
    n = len(texts)
    df: dict[int, int] = {}
    for d in range(n):
        for h in set(wb.hashes[wb.offsets[d] : wb.offsets[d + 1]].tolist()):
            df[h] = df.get(h, 0) + 1
    for d in (0, 1, 3):
        hs = wb.hashes[wb.offsets[d] : wb.offsets[d + 1]].tolist()
        feats = list(dict.fromkeys(hs))
        w = [float(hs.count(h)) for h in feats]
        if weighting == "tfidf":
            w = [x * float(np.log((n + 1) / df[h])) for x, h in zip(w, feats, strict=True)]
        assert int(fps[d]) == simhash(feats, w)


def test_near_texts_are_close_and_unrelated_far_with_shingle_features() -> None:
    base = " ".join(f"word{i % 97} token{i % 13} item{i}" for i in range(300))
    edited = base.replace("item150", "changed").replace("item10 ", "other ")
    other = " ".join(f"word{i % 89} thing{i % 7} item{i * 3}" for i in range(300))
    fps = simhash_batch(shingle_hashes([base, edited, other], 5))
    assert int(hamming(fps[0], fps[1])) <= 6
    assert int(hamming(fps[0], fps[2])) >= 15


def test_expected_hamming_at_threshold() -> None:
    assert expected_hamming(1.0) == 0.0
    assert 9.0 < expected_hamming(0.8) < 10.5


@pytest.mark.parametrize("k", [2, 3, 6])
def test_manku_tables_equal_brute_force(k: int) -> None:
    rng = np.random.default_rng(k)
    base = rng.integers(0, 1 << 63, size=3000, dtype=np.int64).astype(np.uint64) << np.uint64(1)
    # near copies at distances 0..k+2, so some are inside and some outside the radius
    near = []
    for i in range(300):
        x = int(base[i])
        for bit in rng.choice(64, size=i % (k + 3), replace=False):
            x ^= 1 << int(bit)
        near.append(x)
    fps = np.concatenate([base, np.array(near, dtype=np.uint64)])
    index = SimhashIndex(k=k)
    index.add(np.arange(len(fps)), fps)
    assert index.num_tables > 1
    a, b, dist, _ = index.pairs()
    got = set(zip(a.tolist(), b.tolist(), strict=True))
    expect: set[tuple[int, int]] = set()
    for i in range(len(fps)):
        d = hamming(fps[i], fps[i + 1 :])
        expect.update((i, i + 1 + int(j)) for j in np.flatnonzero(d <= k))
    assert got == expect
    assert (dist <= k).all()
    for q in (0, 5, 3000 + 7):
        ids, dists = index.query(int(fps[q]))
        brute = np.flatnonzero(hamming(fps, fps[q]) <= k)
        assert sorted(ids.tolist()) == brute.tolist()
        assert dists[0] == 0


def test_choose_blocks_follows_manku_for_k3() -> None:
    assert choose_blocks(3, 1_000_000) == 5
    assert choose_blocks(9, 1_000_000) == 11  # capped at 64 tables
