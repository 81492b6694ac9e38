"""dom: the page's own bar (expected_f1_bar) and how select_index uses it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from trawl.extract import dom
from trawl.html.blocks import parse_blocks


def _best_expected_f1(p: np.ndarray, w: np.ndarray) -> float:
    """Every subset of the blocks tried: the best 2·Σ_S p·w / (Σ_S w + Σ p·w)."""
    total = float((p * w).sum())
    best = 0.0
    for k in range(1, len(p) + 1):
        for s in itertools.combinations(range(len(p)), k):
            idx = list(s)
            best = max(best, 2 * float((p[idx] * w[idx]).sum()) / (float(w[idx].sum()) + total))
    return best


def test_the_bar_is_half_the_best_expected_f1_over_all_subsets() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 9))
        p = rng.random(n)
        w = rng.integers(1, 60, size=n).astype(np.float64)
        bar = dom.expected_f1_bar(p, w)
        assert bar == pytest.approx(_best_expected_f1(p, w) / 2, rel=1e-12)
        # Lipton et al.: keeping the blocks at or above the bar reaches the best expected F1.
        keep = p >= bar
        f1 = 2 * float((p[keep] * w[keep]).sum()) / (float(w[keep].sum()) + float((p * w).sum()))
        assert f1 == pytest.approx(2 * bar, rel=1e-9)


def test_the_bar_of_degenerate_pages() -> None:
    assert dom.expected_f1_bar([], []) == 0.5
    assert dom.expected_f1_bar([0.0, 0.0], [10, 3]) == 0.5
    assert dom.expected_f1_bar([0.9, 0.4], [0, 0]) == 0.5  # blocks without words
    # One certain block: F1 1, bar 1/2; a certain block beside an unlikely one keeps the bar.
    assert dom.expected_f1_bar([1.0], [5]) == pytest.approx(0.5)
    assert dom.expected_f1_bar([1.0, 0.01], [50, 50]) == pytest.approx(50 / (50 + 50.5))


_PAGE = "".join(
    f"<p>Paragraph {i} of the story, with enough words to be a block of its own here.</p>" for i in range(6)
)


def test_an_unsure_page_lowers_its_bar_and_a_sure_one_keeps_the_global_one() -> None:
    page = parse_blocks(_PAGE)
    n = len(page.texts)
    assert n == 6
    unsure = np.full(n, 0.3)
    assert dom.select_index(page, unsure, 0, 0.35) == []
    # Every block alike: the best expected F1 keeps all of them (2·0.3 / 1.3), bar 0.23.
    assert dom.select_index(page, unsure, 0, 0.35, page_bar_scale=1.0) == list(range(n))
    # A scale that puts the page's bar above the global threshold changes nothing.
    assert dom.select_index(page, unsure, 0, 0.35, page_bar_scale=2.0) == []
    sure = np.array([0.95, 0.9, 0.4, 0.3, 0.05, 0.02])
    for scale in (None, 1.0, 1.5):
        assert dom.select_index(page, sure, 0, 0.35, page_bar_scale=scale) == [0, 1, 2]


def test_the_main_threshold_moves_down_with_the_page_bar() -> None:
    menu = "<div><p>Menu one two three four five six seven</p></div>"
    page = parse_blocks(f"{menu}<article>{_PAGE[: _PAGE.index('<p>Paragraph 5')]}</article>")
    container = next(i for i, e in enumerate(page.elements) if e.tag == "article")
    probs = np.array([0.3, 0.34, 0.34, 0.34, 0.34, 0.34])
    bar = dom.expected_f1_bar(probs, page.words)
    assert 0.24 < bar < 0.26
    # The global bars (0.35, 0.40 inside the article) keep nothing.
    assert dom.select_index(page, probs, container, 0.35, threshold_main=0.40) == []
    # The page's bar: 0.35 → bar, and inside the article 0.40 → 0.40 - (0.35 - bar) ≈ 0.30, so the
    # article is kept; the menu reaches the new bar but lies outside the article, which holds most
    # of the kept words, so it stays out.
    kept = dom.select_index(page, probs, container, 0.35, threshold_main=0.40, page_bar_scale=1.0)
    assert kept == [1, 2, 3, 4, 5]
    # Had the main threshold stayed at 0.40, the article would have been dropped.
    assert dom.select_index(page, probs, container, bar, threshold_main=0.40) == []


def test_the_page_bar_never_turns_one_region_into_a_spread_page() -> None:
    """A 404 page: a long menu of doubtful items (p 0.2) outside the one confident message. The
    menu's many words pull the page's bar under its items, but the page has one main region at
    the global threshold, so the blocks outside it still need the outside threshold."""
    menu = "".join(f"<li>Section {k} of the site</li>" for k in range(30))
    page = parse_blocks(
        f"<ul>{menu}</ul><main><h1>Page not found</h1><p>Sorry, the page you want does not exist.</p></main>"
    )
    container = next(i for i, e in enumerate(page.elements) if e.tag == "main")
    probs = np.array([0.2] * 30 + [0.82, 0.86])
    assert dom.expected_f1_bar(probs, page.words) < 0.2  # the menu would pass the page's bar
    kept = dom.select_index(
        page, probs, container, 0.35, threshold_main=0.525, threshold_outside=0.7, page_bar_scale=1.0
    )
    assert kept == [30, 31]
    # Through the whole extractor too, with the shipped model.
    from trawl.extract import extract

    nav = "".join(f'<li><a href="/s{k}">Section {k} of the site</a></li>' for k in range(30))
    foot = "".join(f'<li><a href="/f{k}">Footer link {k}</a></li>' for k in range(15))
    for tag in ("main", "div"):
        html = (
            f"<html><body><header><nav><ul>{nav}</ul></nav></header><{tag}><h1>Page not found</h1>"
            f"<p>Sorry, the page you are looking for does not exist.</p></{tag}>"
            f"<footer><ul>{foot}</ul><p>© 2025 Example Inc. All rights reserved.</p></footer></body></html>"
        )
        ex = extract(html)
        assert ex.text == "Page not found\n\nSorry, the page you are looking for does not exist.", tag
