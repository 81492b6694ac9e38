"""The speed paths of the block walk and the stage-1 features give what the plain code gives.

The marker strings come from a table made once (formatted per element past its size), the
punctuation counts and last characters from the code points of all block texts at once, the
boilerplate-phrase test from a cache per text: each is checked here against the direct
computation, on text with non-ASCII and astral characters.
"""

from __future__ import annotations

import numpy as np
import pytest

from trawl.extract import features
from trawl.extract.features import _BOILER, STAGE1_NAMES, stage1_matrix
from trawl.html import blocks
from trawl.html.blocks import parse_blocks

_TEXTS = [
    "Ein Absatz mit Umlauten: ä, ö, ü; und Fragen?",
    "Emoji 😀 mitten drin, und am Ende!",
    "Related posts",
    "\u017ftrange long s. «Guillemets» — dash:",
    "Share",
    "日本語の文章です。句読点、違う",
    "a b c",
]


def _page_markup() -> str:
    items = "".join(f"<li>{t}</li>" for t in _TEXTS)
    paras = "".join(f"<p>{t} <a href='/x'>link {i}</a></p>" for i, t in enumerate(_TEXTS))
    return f"<html><body><nav><ul>{items}</ul></nav><article>{paras}</article></body></html>"


def test_markers_past_the_table_give_the_same_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    markup = "<body>" + "".join(f"<div><p>para {i} text</p></div>" for i in range(300)) + "</body>"
    expected = parse_blocks(markup)
    # Fresh, small tables: elements past 50 get formatted markers.
    monkeypatch.setattr(blocks, "_MAX_MARKS", 50)
    monkeypatch.setattr(blocks, "_OPEN_MARKS", [])
    monkeypatch.setattr(blocks, "_CLOSE_MARKS", [])
    got = parse_blocks(markup, compiled=False)  # the marker tables belong to the Python walk
    assert [(b.text, b.element, b.words) for b in got.blocks] == [
        (b.text, b.element, b.words) for b in expected.blocks
    ]
    assert [(e.tag, e.parent, e.depth) for e in got.elements] == [
        (e.tag, e.parent, e.depth) for e in expected.elements
    ]
    assert len(got.blocks) == 300
    assert len(blocks._CLOSE_MARKS) == 50


def test_punctuation_sentence_end_and_boiler_columns_match_the_direct_formulas() -> None:
    page = parse_blocks(_page_markup())
    texts = [b.text for b in page.blocks]
    assert any(ord(c) > 0xFFFF for t in texts for c in t)  # an astral character is in play
    x = stage1_matrix(page)
    w = np.array([b.words for b in page.blocks], dtype=np.float64)
    punct = np.array([sum(t.count(c) for c in ".,;?!") for t in texts], dtype=np.float64)
    ends = np.array([t[-1] in ".!?:" for t in texts], dtype=np.float64)
    col = STAGE1_NAMES.index
    assert np.array_equal(x[:, col("punct_density")], np.minimum(punct / w, 1.0))
    assert np.array_equal(x[:, col("ends_sentence")], ends)
    boiler = np.array(
        [
            float(b.words <= 12 and _BOILER.search(t.lower()) is not None)
            for b, t in zip(page.blocks, texts, strict=True)
        ]
    )
    features._boiler_cache.clear()
    assert np.array_equal(stage1_matrix(page)[:, col("boiler_phrase")], boiler)
    assert boiler.sum() >= 2  # "Related posts", "Share"
    # Cached answers are the same answers.
    assert np.array_equal(stage1_matrix(page)[:, col("boiler_phrase")], boiler)


def test_same_tag_sibling_counts() -> None:
    page = parse_blocks(_page_markup())
    x = stage1_matrix(page)
    elements = page.elements
    counts: dict[tuple[int, str], int] = {}
    for e in elements[1:]:
        counts[(e.parent, e.tag)] = counts.get((e.parent, e.tag), 0) + 1
    sib = [
        1 if b.element == 0 else counts[(elements[b.element].parent, elements[b.element].tag)]
        for b in page.blocks
    ]
    assert np.allclose(x[:, STAGE1_NAMES.index("same_tag_siblings")], np.log(np.array(sib, dtype=np.float64)))


def _dict_firsts(texts: list[str]) -> list[int]:
    first: dict[str, int] = {}
    return [first.setdefault(t, i) for i, t in enumerate(texts)]


@pytest.mark.skipif(blocks.compiled_walk() is None, reason="the compiled walk is not built")
def test_first_occurrences_equal_a_dicts() -> None:
    """The compiled table (its own hash over the code units, strings compared on a match) finds
    each text's first equal text as a dict does: 1-, 2- and 4-byte strings, lone surrogates,
    lengths around its 8-unit steps, texts equal in bytes but not in kind."""
    walk = blocks.compiled_walk()
    rnd = np.random.default_rng(3)
    alphabet = ["a", "b", "é", "€", "😀", "\ud800", " ", "\x00"]
    for _ in range(300):
        pool = [
            "".join(rnd.choice(alphabet, size=int(rnd.integers(0, 20))))
            for _ in range(int(rnd.integers(1, 12)))
        ]
        pool += ["\u0100", "\x00\x01", "A\x00", "ab" * 9, "ab" * 9 + "c"]  # "\u0100" is b"\0\1" as UCS2
        texts = [pool[int(i)] for i in rnd.integers(0, len(pool), size=int(rnd.integers(0, 200)))]
        texts = [(t + ".")[:-1] for t in texts]  # distinct objects: equality, not identity
        out = np.empty(len(texts), dtype=np.int64)
        walk.first_occurrences(texts, out)
        assert out.tolist() == _dict_firsts(texts)


def test_selection_and_rendering_fast_paths_equal_the_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """select_index by the compiled first-occurrence table and kept_once, and render_index's
    joined separators, give what the dict and the per-block loop give."""
    from trawl.extract import dom

    markup = _page_markup() + "".join(
        f"<table><tr><td>cell {i} a b c</td><td>Share</td></tr></table>"
        f"<ul><li>Share</li><li>x {i} y z</li></ul>"
        f"<p>para {i % 3} with more words</p><dl><dt>term</dt><dd>Share this</dd></dl><h2>Head</h2>"
        for i in range(30)
    )
    page = parse_blocks(markup)
    rnd = np.random.default_rng(5)
    cases = [(rnd.random(len(page.texts)), 0) for _ in range(40)]
    fast = [dom.select_index(page, p, c, 0.3) for p, c in cases]
    for idx in fast:
        blocks_ = dom.blocks_at(page, idx)
        for fmt in ("text", "markdown"):
            assert dom.render_index(page, idx, fmt) == dom._render(
                [b.text for b in blocks_], page.tags_of([b.element for b in blocks_]), fmt
            )
    monkeypatch.setattr(dom, "compiled_walk", lambda: None)
    page.cache.clear()
    monkeypatch.setattr(features._CompiledBoiler, "module", None)
    plain = [dom.select_index(page, p, c, 0.3) for p, c in cases]
    assert fast == plain
    # Every text at most once among the kept blocks of three words or more, in page order.
    for idx in fast:
        long_texts = [page.texts[i] for i in idx if page.words[i] >= 3]
        assert len(long_texts) == len(set(long_texts)) and idx == sorted(idx)
    assert any(len(idx) > 10 for idx in fast)


@pytest.mark.skipif(blocks.compiled_walk() is None, reason="the compiled walk is not built")
def test_compiled_helpers_refuse_bad_input_instead_of_reading_past_it() -> None:
    walk = blocks.compiled_walk()
    with pytest.raises(TypeError, match="not a str"):
        walk.first_occurrences(["a", b"b"], np.empty(2, dtype=np.int64))
    ints = np.array
    with pytest.raises(ValueError, match="out of range"):
        walk.kept_once(ints([0, 5]), ints([0, 1]), ints([3, 3]))
    with pytest.raises(ValueError, match="out of range"):
        walk.kept_once(ints([1]), ints([0, 9]), ints([3, 3]))
    with pytest.raises(ValueError, match="different lengths"):
        walk.kept_once(ints([0]), ints([0, 1]), ints([3]))
    assert walk.kept_once(ints([0, 1, 2]), ints([0, 0, 2]), ints([3, 3, 1])) == [0, 2]
    codes = np.ones(4, dtype=np.uint8)
    sib, unit = np.empty(3), np.empty(3)
    good = (ints([0, 1, 1]), ints([-1, 0, 0]), np.full(3, 20.0), ints([3, 2, 3]))
    walk.element_columns(*good, codes, 100, 4, sib, unit)
    assert sib.tolist() == [1.0, 2.0, 2.0]
    for bad in (
        (ints([0, 1, 9]), *good[1:]),  # a tag code past the table
        (good[0], ints([-1, 7, 0]), *good[2:]),  # a parent past the elements
        (*good[:3], ints([3, 9, 3])),  # a subtree ending past them
    ):
        with pytest.raises(ValueError, match="out of range"):
            walk.element_columns(*bad, codes, 100, 4, sib, unit)


def test_boilerplate_headings_in_other_languages_by_both_matchers() -> None:
    """The multilingual phrases (issue 32) match in the compiled trie and in the regex alike,
    a capital non-ASCII first letter included; ordinary sentences do not."""
    from trawl.extract.features import _boiler_regex, boiler_hits

    texts = [
        "Mehr zum Thema", "Ähnliche Beiträge", "Kommentare (3)", "À lire aussi", "Zobacz także",
        "Artículos relacionados", "Leggi anche", "Lees ook",
        "Die Kosten sind hoch.", "Le chat dort sur le canapé.", "Kot śpi na kanapie.",
    ]  # fmt: skip
    want = [True] * 8 + [False] * 3
    assert [_boiler_regex(t) for t in texts] == want
    assert boiler_hits(texts, list(range(len(texts)))) == [i for i, w in enumerate(want) if w]
