"""The compiled naive-Bayes evidence (``trawl.langid._nb``) is numpy's, bit for bit."""

# ruff: noqa: RUF001 -- multilingual text is meant

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.langid.identify import DefaultIdentifier, Fusion, get_identifier
from trawl.langid.naive_bayes import NaiveBayesModel

TATOEBA = Path(__file__).resolve().parents[3] / "shared" / "data" / "langid" / "tatoeba"

TEXTS = [
    "",
    "   ",
    "12345 !!! ???",
    "The quick brown fox jumps over the lazy dog.",
    "Der schnelle braune Fuchs springt über den faulen Hund; Übergrößen für Bären.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "私はガラスを食べられます。それは私を傷つけません。",
    "我能吞下玻璃而不伤身体。",
    "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요.",
    "Μπορώ να φάω σπασμένα γυαλιά χωρίς να πάθω τίποτα.",
    "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.",
    "ฉันกินกระจกได้ แต่มันไม่ทำให้ฉันเจ็บ",
    "l’homme qu'il a vu, aujourd’hui — c’est ça.",
    "a" * 2000,
    "supercalifragilisticexpialidocious " * 30,
    "😀 emoji 🎉 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral letters",
]


def _model() -> NaiveBayesModel:
    model = get_identifier("default").model  # type: ignore[attr-defined]
    assert isinstance(model, NaiveBayesModel)
    return model


def _same(model: NaiveBayesModel, text: str) -> None:
    kernel = model._compiled()
    if kernel is None:
        pytest.skip(f"compiled evidence: {model.kernel_status()}")
    fast = model._compiled_evidence(kernel, text)
    slow = model._numpy_evidence(text)
    assert fast.n == slow.n and fast.n_long == slow.n_long, text[:40]
    assert np.array_equal(fast.scores, slow.scores), text[:40]
    assert np.array_equal(fast.seen, slow.seen), text[:40]


@pytest.mark.parametrize("text", TEXTS)
def test_hand_made_texts(text: str) -> None:
    _same(_model(), text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_any_text(text: str) -> None:
    _same(_model(), text)


def test_real_sentences() -> None:
    files = sorted(TATOEBA.glob("*.txt")) if TATOEBA.is_dir() else []
    if not files:
        pytest.skip(f"no sentences in {TATOEBA}")
    model = _model()
    for path in files:
        for line in path.read_text("utf-8").splitlines()[:15]:
            _same(model, line)


def test_the_vocabulary_hashes_apart_and_the_status_says_so() -> None:
    model = _model()
    # building the kernel refuses a collision among the vocabulary's hashes; "ready" means none
    assert model.kernel_status() == "ready" or model.kernel_status().startswith(("not used", "disabled"))
    _nb = pytest.importorskip("trawl.langid._nb")
    hashes = {_nb.feature_hash(g) for g in list(model.vocab)[:50_000]}
    assert len(hashes) == 50_000
    assert _nb.feature_hash("\x01word") != _nb.feature_hash("word")


# -- the fusion and the broad model's softmax in C (trawl.langid._nb.fuse, broad_log_probs) --------


def _both(text: str) -> tuple[object, object]:
    compiled = DefaultIdentifier()
    if compiled._fuse is None:
        pytest.skip("the compiled fusion is not built here")
    reference = DefaultIdentifier()
    reference._fuse = None
    assert reference.broad is not None
    saved = reference.broad._normalise
    reference.broad._normalise = None
    try:
        slow = reference.scores(text)
        slow_result = reference._identify(text)
    finally:
        reference.broad._normalise = saved
    return (compiled.scores(text), compiled._identify(text)), (slow, slow_result)


def _same_fusion(text: str) -> None:
    (fast, fast_result), (slow, slow_result) = _both(text)
    assert isinstance(fast, Fusion) and isinstance(slow, Fusion)
    assert np.array_equal(np.isfinite(fast.scores), np.isfinite(slow.scores)), text[:40]
    finite = np.isfinite(slow.scores)
    assert np.allclose(fast.scores[finite], slow.scores[finite], rtol=0, atol=1e-9), text[:40]
    assert fast.broad is not None and slow.broad is not None
    assert np.allclose(fast.broad, slow.broad, rtol=0, atol=1e-9), text[:40]
    assert abs(fast.weight - slow.weight) < 1e-12, text[:40]
    # the best labels in the same order (a tie within rounding may swap two neighbours)
    assert fast.top[0] == slow.top[0] or np.isclose(slow.scores[fast.top[0]], slow.scores[slow.top[0]])
    assert fast_result == slow_result or (
        fast_result.lang == slow_result.lang and abs(fast_result.score - slow_result.score) < 1e-9  # type: ignore[attr-defined]
    ), text[:40]


@pytest.mark.parametrize("text", [t for t in TEXTS if t.strip()])
def test_compiled_fusion_is_numpys(text: str) -> None:
    _same_fusion(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=200))
def test_compiled_fusion_on_any_text(text: str) -> None:
    _same_fusion(text)


def test_compiled_fusion_on_real_sentences() -> None:
    files = sorted(TATOEBA.glob("*.txt")) if TATOEBA.is_dir() else []
    if not files:
        pytest.skip(f"no sentences in {TATOEBA}")
    for path in files:
        for line in path.read_text("utf-8").splitlines()[:5]:
            _same_fusion(line)


# -- the compiled helpers refuse what does not fit, and the walker is safe to share -----------------


def test_compiled_helpers_check_their_arguments() -> None:
    _nb = pytest.importorskip("trawl.langid._nb")
    one = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="lines"):  # three lines for one row: refused, not a hang
        _nb.Kernel("a\nb\nc", np.array([0, 1], dtype=np.int64), one.astype(np.int32), np.zeros(1), 1)
    with pytest.raises(ValueError, match="indptr"):
        _nb.Kernel("", np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0), 1)
    with pytest.raises(ValueError, match="places"):
        _nb.viterbi(np.zeros((3, 2)), 1.0, np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="shapes"):
        _nb.fuse(np.zeros(2), 1.0, np.zeros(2), 1.0, np.zeros(1), one, np.ones(3, dtype=np.uint8),
                 np.ones(3, dtype=np.uint8), np.zeros(3), np.zeros(0, dtype=np.int64),
                 10.0, 0.6, 5.0, 2.0, 2.0, 0.2, 0.7, 0.5)  # fmt: skip


def test_the_walker_can_be_shared_by_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from trawl.langid.broad import load_broad

    broad = load_broad()
    assert broad is not None
    texts = [t * k for t in TEXTS if t.strip() for k in (1, 3)]
    serial = broad.log_probs_many(texts)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: broad.log_probs_many(texts), range(64)))
    assert all(np.array_equal(r, serial) for r in results)
    assert np.array_equal(broad.log_probs_many(texts), serial)  # and nothing left behind


def test_f16c_and_the_portable_loop_give_the_same_scores() -> None:
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, numpy as np; from trawl.langid.broad import load_broad; "
        f"print(json.dumps(load_broad().log_probs_many({[t for t in TEXTS if t.strip()]!r}).tolist()))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **extra},
        ).stdout
        for extra in ({}, {"TRAWL_NO_F16C": "1"})
    ]
    assert json.loads(runs[0]) == json.loads(runs[1])
