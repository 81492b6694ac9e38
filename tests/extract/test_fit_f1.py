"""Stage 2's fit for the expected page F1 (bench/extract.py ``expected_f1_objective``, ``_fit_f1``)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("scipy")


def _pages(seed: int, pages: int = 40) -> dict[str, np.ndarray]:
    """Random pages of 5-30 blocks: a constant column, four features, labels that follow the
    first feature, word counts, each page's true word count and page-normalised weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 30, size=pages)
    page_of = np.repeat(np.arange(pages), sizes)
    n = len(page_of)
    feats = rng.normal(size=(n, 4))
    x = np.column_stack([np.ones(n), feats])
    y = (feats[:, 0] + 0.7 * rng.normal(size=n) > 0.3).astype(float)
    words = rng.integers(1, 200, size=n).astype(float)
    true = np.bincount(page_of, words * y, pages)
    gold = np.maximum(true + rng.integers(0, 20, size=pages), 1).astype(float)
    w = np.minimum(words, 100) / np.bincount(page_of, words, pages)[page_of]
    page_words = np.split(words, np.cumsum(sizes)[:-1])
    return {
        "x": x,
        "y": y,
        "w": w,
        "words": words,
        "page_of": page_of,
        "gold": gold,
        "page_words": page_words,
    }


def test_the_gradient_is_the_objective_s(bench: ModuleType) -> None:
    from scipy.optimize import check_grad

    d = _pages(1, pages=8)
    reg = np.full(d["x"].shape[1], 0.66)
    kw = {"words": d["words"], "page_of": d["page_of"], "gold": d["gold"], "mu": 10.0, "reg": reg}

    def value(b: np.ndarray) -> float:
        return bench.expected_f1_objective(b, d["x"], d["y"], d["w"], **kw)[0]

    def grad(b: np.ndarray) -> np.ndarray:
        return bench.expected_f1_objective(b, d["x"], d["y"], d["w"], **kw)[1]

    for b in np.random.default_rng(2).normal(size=(5, d["x"].shape[1])):
        assert check_grad(value, grad, b) < 1e-4 * max(1.0, float(np.abs(grad(b)).max()))


def test_the_f1_term_is_the_expected_page_f1(bench: ModuleType) -> None:
    """The objective's F1 part is dom.expected_f1 over all blocks, summed over pages."""
    from trawl.extract.dom import expected_f1

    d = _pages(3, pages=6)
    b = np.random.default_rng(4).normal(size=d["x"].shape[1])
    zero = np.zeros(d["x"].shape[1])
    kw = {"words": d["words"], "page_of": d["page_of"], "gold": d["gold"], "reg": zero}
    without = bench.expected_f1_objective(b, d["x"], d["y"], d["w"], mu=0.0, **kw)[0]
    with_f1 = bench.expected_f1_objective(b, d["x"], d["y"], d["w"], mu=1.0, **kw)[0]
    p = 1 / (1 + np.exp(-(d["x"] @ b)))
    total = 0.0
    for k in range(6):
        on = d["page_of"] == k
        # dom.expected_f1 estimates the true words as Σ p·w; here they are known (gold).
        kept = p[on] * d["words"][on]
        hit = float(np.dot(kept, d["y"][on]))
        total += 2 * hit / (kept.sum() + d["gold"][k])
        assert expected_f1(p[on], d["words"][on], list(range(int(on.sum())))) > 0
    assert without - with_f1 == pytest.approx(total)


def test_the_fit_keeps_the_probabilities_calibrated(bench: ModuleType) -> None:
    """After the F1 term, the Platt rescale makes the weighted mean probability the weighted
    share of content again, as the page's own bar and expected_f1 assume."""
    d = _pages(5)
    beta = bench._fit(d["x"], d["y"], d["w"], l2=0.66)
    kw = {"page_words": d["page_words"], "gold": d["gold"], "l2": 0.66}
    tuned = bench._fit_f1(d["x"], d["y"], d["w"], beta, mu=10.0, **kw)
    p = 1 / (1 + np.exp(-(d["x"] @ tuned)))
    assert np.dot(d["w"], p) == pytest.approx(np.dot(d["w"], d["y"]), rel=1e-4)
    assert not np.allclose(tuned, beta, atol=1e-3)  # the F1 term moved the weights


def test_without_the_f1_term_the_fit_is_the_log_loss_fit(bench: ModuleType) -> None:
    """(Nearly unpenalised: the rescale would also undo the L2 penalty's shrinkage, which on
    forty pages is large and on the 1,337 of the real fit is not.)"""
    d = _pages(6)
    beta = bench._fit(d["x"], d["y"], d["w"], l2=1e-4)
    kw = {"page_words": d["page_words"], "gold": d["gold"], "l2": 1e-4}
    assert bench._fit_f1(d["x"], d["y"], d["w"], beta, mu=0.0, **kw) == pytest.approx(beta, abs=2e-3)


def test_the_f1_term_raises_the_pages_f1(bench: ModuleType) -> None:
    """Pages where long boilerplate blocks carry a feature the log loss underrates: fitted for
    the expected page F1, the weights give a higher mean page F1 at the best threshold."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(8, 20, size=60)
    page_of = np.repeat(np.arange(60), sizes)
    n = len(page_of)
    long_block = rng.random(n) < 0.3
    words = np.where(long_block, rng.integers(100, 400, size=n), rng.integers(5, 40, size=n)).astype(float)
    signal = rng.normal(size=n)
    y = (signal + rng.normal(scale=0.8, size=n) > 0).astype(float)
    y[long_block & (rng.random(n) < 0.7)] = 0.0  # long blocks are mostly boilerplate
    x = np.column_stack([np.ones(n), signal, long_block.astype(float)])
    gold = np.maximum(np.bincount(page_of, words * y, 60), 1.0)
    w = np.ones(n) / np.bincount(page_of, minlength=60)[page_of]  # every block alike: words unseen

    def mean_f1(b: np.ndarray) -> float:
        p = 1 / (1 + np.exp(-(x @ b)))
        best = 0.0
        for thr in np.linspace(0.05, 0.95, 19):
            keep = p >= thr
            hit = np.bincount(page_of, words * y * keep, 60)
            kept = np.bincount(page_of, words * keep, 60)
            best = max(best, float(np.mean(2 * hit / (kept + gold))))
        return best

    beta = bench._fit(x, y, w, l2=0.66)
    kw = {"page_words": np.split(words, np.cumsum(sizes)[:-1]), "gold": gold, "l2": 0.66}
    tuned = bench._fit_f1(x, y, w, beta, mu=10.0, **kw)
    assert mean_f1(tuned) > mean_f1(beta) + 0.01
