"""Body Text Extraction must be Finn et al.'s optimum exactly, in linear time; slope finds plateaus."""

from __future__ import annotations

import random
import time

from trawl.extract.bte import body_text_extraction, slope_extraction, tokenize


def _objective(is_tag: list[bool], i: int, j: int) -> int:
    """Tags before i + words in [i, j) + tags from j on: the quantity BTE maximises."""
    return sum(is_tag[:i]) + sum(not t for t in is_tag[i:j]) + sum(is_tag[j:])


def test_bte_matches_brute_force_optimum() -> None:
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 25)
        tokens = [rng.choice(["<div>", "<a href=x>", "word", "text"]) for _ in range(n)]
        is_tag = [t.startswith("<") for t in tokens]
        best = max(_objective(is_tag, i, j + 1) for i in range(n) for j in range(i, n))
        result = body_text_extraction(tokens)
        ((i, j),) = result.spans
        assert i < j or n == 0
        assert _objective(is_tag, i, j) == best, tokens


def test_bte_is_linear_time() -> None:
    tokens = (
        (["<li>", "<a>", "menu", "</a>", "</li>"] * 20_000) + ["w"] * 50_000 + ["<div>", "</div>"] * 20_000
    )
    t0 = time.perf_counter()
    result = body_text_extraction(tokens)
    elapsed = time.perf_counter() - t0
    # O(N²) over 190k tokens would take hours; linear takes well under a second.
    assert elapsed < 2.0
    ((i, j),) = result.spans
    assert i == 100_000 and j == 150_000
    assert len(result.curve) == len(tokens) + 1
    assert result.curve[-1] == sum(t.startswith("<") for t in tokens)


def test_bte_on_a_page_keeps_the_article_and_drops_the_menu() -> None:
    menu = "".join(f'<li><a href="/{k}">Section {k}</a></li>' for k in range(30))
    body = " ".join(f"sentence{k} of the story goes on." for k in range(60))
    page = f"<html><head><title>t</title><script>var x = '<p>';</script></head><body><ul>{menu}</ul>"
    page += f"<div class=post><p>{body}</p><p>{body}</p></div><footer>{menu}</footer></body></html>"
    result = body_text_extraction(page)
    assert "sentence0" in result.text and "sentence59" in result.text
    assert "Section" not in result.text and "var x" not in result.text
    assert 0 < result.score <= 1


def test_tokenize_drops_scripts_comments_and_head() -> None:
    tokens = tokenize("<head><title>T</title></head><body><!-- c --><p>a b</p><script>x</script></body>")
    assert tokens == ["<body>", "<p>", "a", "b", "</p>", "</body>"]


def test_slope_finds_the_flat_stretch() -> None:
    tags = ["<td>", "<a>", "x", "</a>", "</td>"] * 200
    text = ["word"] * 600
    result = slope_extraction(tags + text + tags)
    words = result.text.split()
    assert words.count("word") == 600 and words.count("x") <= 2
    assert result.spans
    start, end = result.spans[0]
    # The wide window finds the plateau, the narrow one trims its edges back to the text.
    assert 990 <= start <= 1001 and 1599 <= end <= 1610
    assert result.window >= 4
    assert len(result.curve) == 2601
    assert abs(result.score - 600 / 1000) < 0.02  # the share of the page's words kept


def test_empty_input() -> None:
    assert body_text_extraction("").text == ""
    assert slope_extraction("").spans == []
