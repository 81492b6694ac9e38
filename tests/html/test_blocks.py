"""Block segmentation: hint keywords, hidden and invisible elements, the pre-parse script cut."""

from __future__ import annotations

import re
import time

from trawl.extract import extract
from trawl.html.blocks import HIDDEN_BIT, HINT_NAMES, hint_bits, parse_blocks, trie_pattern


def _bit(name: str) -> int:
    return 1 << HINT_NAMES.index(name)


def test_trie_pattern_matches_the_same_strings_as_the_flat_alternation() -> None:
    words = ["nav", "navbar", "menu", "mega", "me", "comment", "content", "con"]
    trie = re.compile(trie_pattern(words, {}))
    flat = re.compile("|".join(sorted(words, key=len, reverse=True)))
    for text in ("navbar-top", "mega menu", "no match here", "content-comment", "xcon", "m e"):
        assert bool(trie.search(text)) == bool(flat.search(text)), text
    suffixed = re.compile(trie_pattern(["tag", "post"], {"tag": r"s?\b", "post": r"(?:-?\d)?"}))
    assert suffixed.findall("tags tagline post-12 post") == ["tags", "post-1", "post"]


def test_hint_bits_families_and_word_rules() -> None:
    assert hint_bits("site-nav top-menu") == _bit("nav")
    assert hint_bits("entry-content") == _bit("content")
    assert hint_bits("post-123") == _bit("comment")  # a numbered post is one of many
    assert hint_bits("post") == _bit("content")
    assert hint_bits("tags") == _bit("meta") and hint_bits("tagline") == 0
    assert hint_bits("top ad slot") & _bit("ad")
    assert hint_bits("leaderboard-ad") & _bit("ad")
    assert not hint_bits("shadow load") & _bit("ad")  # "ad" inside a word is not an ad
    assert hint_bits("SideBar Widget") == _bit("side")  # case-insensitive, cached
    assert hint_bits("SideBar Widget") == _bit("side")


def test_modals_and_tab_panels_have_hint_families_of_their_own() -> None:
    # A hidden modal (a policy, a sign-up form) and a hidden tab panel (a product description)
    # are both hidden; their families tell the classifier which is which.
    assert hint_bits("modal-privacy-policy") == _bit("modal")
    assert hint_bits("cart-drawer") == _bit("modal") and hint_bits("dialog") == _bit("modal")
    assert hint_bits("tab-pane fade") == _bit("tab") and hint_bits("accordion__item") == _bit("tab")
    assert hint_bits("tabpanel") == _bit("tab") and hint_bits("table-striped") == 0
    assert hint_bits("sr-only") == _bit("hidden") and hint_bits("navbar-collapse") == _bit("nav")


def test_invisible_and_hidden_inline_elements_are_dropped_hidden_blocks_marked() -> None:
    page = parse_blocks(
        "<html><body><p>Visible paragraph text here.</p>"
        '<div hidden><p>hidden attribute</p></div><div style="display: none">inline none</div>'
        '<span aria-hidden="true">aria hidden</span><script>var x = "script text";</script>'
        "<noscript>noscript text</noscript><p>Last words.</p></body></html>"
    )
    # Scripts, <noscript> and the hidden <span> go; the hidden <div>s (tab panels, accordions —
    # or modals) stay, marked with the "hidden" hint for the classifier.
    assert page.texts == ["Visible paragraph text here.", "hidden attribute", "inline none", "Last words."]
    hidden = [bool(page.ancestor_hints[e] & HIDDEN_BIT) for e in page.element.tolist()]
    assert hidden == [False, True, True, False]


def test_noscript_holding_most_of_the_page_is_kept() -> None:
    posts = " ".join(f"Post number {k} says something about the topic." for k in range(20))
    page = parse_blocks(f"<html><body><p>Menu</p><noscript><p>{posts}</p></noscript></body></html>")
    assert any("Post number 19" in b.text for b in page.blocks)


def test_links_tree_and_word_counts() -> None:
    page = parse_blocks(
        '<body><div class="post"><p>One <a href="/x">two three</a> four.</p>'
        "<ul><li>alpha beta</li><li>gamma</li></ul></div></body>"
    )
    first = page.blocks[0]
    assert (first.text, first.words, first.link_words) == ("One two three four.", 4, 2)
    div = page.elements[page.elements[first.element].parent]
    assert div.tag == "div" and div.hints == _bit("content")
    assert div.words == 7 and div.link_words == 2
    li = page.elements[page.blocks[1].element]
    assert li.tag == "li" and li.inside & 1 and page.elements[li.parent].tag == "ul"


def test_scripts_are_cut_before_parsing_but_json_ld_stays() -> None:
    body = " ".join(["The harbour reopened on Monday after three weeks of repairs."] * 4)
    html = (
        '<html><head><script type="application/ld+json">{"@type": "NewsArticle", '
        '"headline": "Harbour reopens", "author": {"name": "Ana Lopez"}, '
        '"datePublished": "2024-03-05"}</script><script>document.write("<p>fake</p>")</script>'
        "<style>p { color: red }</style></head><body><article><h1>Harbour reopens</h1>"
        f'<p>{body}</p><svg><text>svg text</text></svg></article><script>alert("x < y")</script>'
        "</body></html>"
    )
    ex = extract(html)
    assert "repairs" in ex.text and "fake" not in ex.text and "svg text" not in ex.text
    assert (ex.author, ex.date) == ("Ana Lopez", "2024-03-05")


def test_written_date_from_the_page_text() -> None:
    body = " ".join(["Volunteers cleaned the beach and counted the plastic they found."] * 4)
    ex = extract(f"<html><body><article><p>Posted March 5, 2024</p><p>{body}</p></article></body></html>")
    assert ex.date == "2024-03-05" and ex.sources["date"] == "text"


def test_unclosed_script_tags_do_not_make_the_cut_quadratic() -> None:
    body = " ".join(["A sentence long enough to be kept as the content of this page."] * 3)
    start = time.perf_counter()
    ex = extract("<SVG>" * 50_000 + f"<p>{body}</p>")
    assert time.perf_counter() - start < 2.0
    assert "long enough" in ex.text or ex.cutoff is not None
    cased = extract(
        f'<html><body><SCRIPT type="text/javascript">var a = 1;</SCRIPT><p>{body}</p></body></html>'
    )
    assert "var a" not in cased.text and "long enough" in cased.text
