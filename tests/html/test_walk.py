"""The compiled block walk (``trawl.html._walk``) gives exactly the Python walk's pages.

Both walks run on the same documents: hand-made ones aimed at the edges (links across block
boundaries, line breaks inside links, Unicode spaces, hidden elements inside hidden elements,
custom tags, tables without closing tags) and real WCXB pages. The compiled class/id keyword
matcher is checked against the regex one on every class string of those pages.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from trawl.html import blocks
from trawl.html.blocks import compiled_walk_status, hint_bits, parse_blocks

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "extraction" / "wcxb-dev" / "html"

needs_compiled = pytest.mark.skipif(
    compiled_walk_status() != "ready", reason=f"compiled walk: {compiled_walk_status()}"
)

_EDGE_PAGES = [
    "<body>plain text only</body>",
    "<body></body>",
    "<body><p>one</p>tail <a href=#>link <b>bold</b></a> after</body>",
    "<body><a href=#>link <div>inside block</div> rest of link</a> outside</body>",
    "<body><p>line<br>break <a>in<br>link</a><hr>rule</p></body>",
    "<body><p>nbsp\u00a0and\u2003em\u3000ideo\u2028ls\x85nel space</p></body>",
    "<body><div hidden><p>hidden <span hidden>inner hidden</span> words</p></div>"
    + "<p>"
    + "visible words " * 20
    + "</p></body>",
    "<body><div aria-hidden=true>aria</div><div aria-hidden=false>shown</div>"
    + "<div style='DISPLAY : None'>styled</div><div style='visibility:hidden'>vis</div>"
    + "<p>"
    + "main text " * 30
    + "</p></body>",
    "<body><noscript><p>" + "all the posts " * 50 + "</p></noscript><p>small</p></body>",
    "<body><table><tr><td>a<td>b<tr><td>c</table><custom-el class='nav'>custom</custom-el></body>",
    "<body><ul class='menu main-nav'><li>one<li>two</ul><dl><dt>t<dd>d</dl></body>",
    "<body><script>var x = 1;</script><style>p{}</style><svg><text>svg</text></svg>"
    + "<template><p>tpl</p></template><select><option>opt</select><p>kept</p></body>",
    "<body><div class='Post-12 TAGS x-ad' id='Side' role='complementary'>roles</div></body>",
    "<body><div class='caf\u00e9 navigation'>non-ascii class</div><p id='\u30ca\u30d3'>x</p></body>",
    "<body><pre>  code\n    indented\tand tabs  </pre><blockquote>q<p>in quote</p></blockquote></body>",
    "<body>" + "<div>" * 200 + "deep" + "</div>" * 200 + "</body>",
    "<body><p>a&amp;b &lt;c&gt; &#x1F600; &nosuch; text</p></body>",
]


def _both(markup: str) -> tuple[blocks.PageBlocks, blocks.PageBlocks]:
    return parse_blocks(markup, compiled=True), parse_blocks(markup, compiled=False)


@needs_compiled
@pytest.mark.parametrize("markup", _EDGE_PAGES)
def test_compiled_walk_matches_python_walk_on_edge_pages(markup: str) -> None:
    fast, slow = _both(markup)
    assert fast.blocks == slow.blocks
    assert fast.elements == slow.elements
    assert fast.total_words == slow.total_words


@needs_compiled
def test_hidden_inside_hidden() -> None:
    # A hidden block is kept and marked; a hidden inline element inside it is dropped.
    fast, slow = _both(_EDGE_PAGES[6])
    assert fast.texts == ["hidden words", "visible words " * 19 + "visible words"]
    assert fast.ancestor_hints[fast.element[0]] & blocks.HIDDEN_BIT
    assert fast == slow
    # A hidden inline element inside a dropped one is never touched again (it was freed with it).
    nested = "<body><p>a <span hidden>outer <b hidden>inner</b> tail</span> b</p>" + "<p>x y z</p>" * 20
    fast, slow = _both(nested + "</body>")
    assert fast.texts[0] == "a b" and fast == slow


@needs_compiled
def test_links_words_counted_only_inside_their_block() -> None:
    fast, _ = _both(_EDGE_PAGES[3])
    by_text = {b.text: b for b in fast.blocks}
    assert by_text["link"].link_words == 1
    assert by_text["inside block"].link_words == 0
    assert by_text["rest of link outside"].link_words == 0


def _wcxb(limit: int) -> list[str]:
    paths = sorted(DATA.glob("*.html.gz"))[::7][:limit]
    return [gzip.decompress(p.read_bytes()).decode("utf-8", "replace") for p in paths]


@needs_compiled
@pytest.mark.skipif(not DATA.is_dir(), reason="shared WCXB data not present")
def test_compiled_walk_matches_python_walk_on_real_pages() -> None:
    pages = _wcxb(120)
    assert len(pages) >= 100
    for html in pages:
        fast, slow = _both(html)
        assert fast == slow


@needs_compiled
@pytest.mark.skipif(not DATA.is_dir(), reason="shared WCXB data not present")
def test_compiled_hint_matcher_matches_the_regex_on_real_class_names() -> None:
    walk = blocks._compiled()
    names = {
        "post-12", "post1", "post", "posts", "post-x", "POST-3", "tag", "tags", "tag-list", "stags",
        "x-ad", "x-ad-y", "x-adz", "ad", "ads", "ad_box", "top-ad", "Tags", "sign-up", "more-",
        "a" * 500 + " nav", "nav\x1cfoot", "",
    }  # fmt: skip
    for html in _wcxb(60):
        for node in LexborHTMLParser(html).body.traverse():
            attrs = node.attributes
            for key in ("class", "id", "role"):
                value = attrs.get(key)
                if value:
                    names.add(value)
    checked = 0
    for name in names:
        got = walk.hint_bits_ascii(name.encode("utf-8"))
        if got is None:
            assert not name.isascii()
            continue
        blocks._hint_cache.clear()
        blocks._word_cache.clear()
        assert got == hint_bits(name), name
        checked += 1
    assert checked > 1000


def test_pure_python_switch() -> None:
    code = "from trawl.html.blocks import compiled_walk_status as s; print(s())"
    env = {**os.environ, "TRAWL_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "disabled by TRAWL_PURE_PYTHON"


def test_compiled_walk_is_built_here() -> None:
    """The install builds the compiled walk (setup.py); the Python walk is only the fallback."""
    if os.environ.get("TRAWL_PURE_PYTHON"):
        pytest.skip("TRAWL_PURE_PYTHON is set")
    assert compiled_walk_status() == "ready"


@needs_compiled
def test_a_build_lacking_a_function_the_python_calls_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.html import _walk

    assert set(blocks._WALK_FUNCTIONS) == set(_walk.__all__)  # the list follows the module
    monkeypatch.delattr(_walk, "page_columns")
    assert blocks._load_compiled().startswith("stale build")


def test_asking_for_the_compiled_walk_when_absent_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks._CompiledWalk, "state", "not built (test)")
    with pytest.raises(RuntimeError, match="not available"):
        parse_blocks("<body><p>x</p></body>", compiled=True)
    assert parse_blocks("<body><p>x</p></body>").blocks[0].text == "x"


# Where a tokenizer that only searched for "<script", "<style" and "<svg" would cut wrongly: in
# comments, attribute values, raw text and custom element names; SVG's own rules (self-closing,
# nesting, CDATA, integration points, tags that break out of it, end tags that close it); the
# script escapes; and where the cut must stop and leave the rest to lexbor.
_CUT_EDGES = [
    "<!-- Works even if it blocks <script> execution -->visible<p>kept</p><script>x</script>y",
    "<!-->a<script>b</script><!--->c<!-- x --!>d<script>e</script>",
    "<!-- unclosed <script>x</script>",
    "<svg-icon name=a>kept</svg-icon><p>between</p><svg>x</svg><script-loader>kept</script-loader>y",
    "<p title='<script>'>a</p><script>b</script>c<div data-x=\"<svg>\">d</div><svg></svg>e",
    "<title>a <script> b</title><p>c</p><script>d</script>e",
    "<textarea><style></textarea>f<style>g</style>h<xmp><svg></xmp>i<iframe><script></iframe>j",
    "<svg/>after<svg a='1'/>more<svg>in</svg>x<svg a=1/>unquoted value: not self-closing</svg>y",
    "<svg><path></svg>unclosed path<svg><g><div>breakout</div></svg>z",
    "<svg><title>T</title><desc>D</desc><path/></svg>w<svg><desc><p>html in desc</p></desc></svg>v",
    "<svg><foreignObject><div>x</div></foreignObject></svg>u<script>s</script>",
    "<svg><![CDATA[</svg>]]></svg>t<svg><svg></svg>inner</svg>s",
    "<div><svg><path/></div>r<script>q</script>",
    "<svg><g></svg>after an unclosed g<svg><g></g></svg>p",
    "<svg><font color=red>x</font></svg>y<svg><span>breaks out</span></svg>",
    "<svg></p>x</svg>y<svg></br>z</svg>",
    "<script><!--<script>x</script>y</script>-->z</script>w",
    "<script><!--x</script>y<script>a<!--->b</script>c<script><!-- a --> <script></script>d",
    "<script>x</script foo='>'>y<script/>z</script>w<SCRIPT>v</SCRIPT\t>u",
    "<select><style>x</style></select>y<script>z</script>",
    "<select><script>x</script><textarea>t</textarea></select>y<script>z</script>",
    "<math><script>x</script></math>y<style>z</style>",
    "<plaintext><script>x</script>",
    "<frameset><script>x</script>",
    "<script type='application/ld+json'>{}</script>d<script data-kind=LD+JSON>e</script>f",
    "<script>unclosed",
    "<style>a</STYLE>b<svg><path/></svg>c",
    "<p>caf\u00e9</p><script>\u00e9</script>\u00e9<svg>\u20ac</svg>\U0001f600",
    "no tags at all",
    "a<<svg/>/</svg>b<p>c</p>AT&<script>x</script>amp;T<<style>s</style>b>d</b>",  # kept: cutting joins
    "<SCRIPT type=a>x</script >y<scripts>a</scripts><script" + " a" * 2500 + ">long opening tag</script>g",
]


def _cut_and_removed(html: str) -> tuple[str, str]:
    """The serialized trees of the cut markup and of the whole markup, both less the elements
    (where the cut stops, it leaves them to the tree) and their templates."""
    walk = blocks._compiled()
    data = html.encode("utf-8", "replace")
    trees = [
        blocks.remove_no_text(LexborHTMLParser(walk.cut_no_text(data))),
        blocks.remove_no_text(LexborHTMLParser(data)),
    ]
    for tree in trees:  # selectors do not reach into a template's content (the walk skips it)
        for node in tree.css("template"):
            node.decompose()
    # Comments after a removed script can land elsewhere (after </body>), which nothing reads.
    return tuple(re.sub(r"<!--.*?-->", "", tree.html or "", flags=re.S) for tree in trees)  # type: ignore[return-value]


def test_the_cut_cuts() -> None:
    if blocks._compiled() is None:
        pytest.skip("the compiled walk is not built")
    cut = blocks._compiled().cut_no_text
    assert cut(
        b"<!-- <script> -->a<script>x</script><svg-icon>b</svg-icon><svg/>c<svg><title>t</title></svg>d"
    ) == (b"<!-- <script> -->a<svg-icon>b</svg-icon>c" + b"d")
    assert (
        cut(b"<p title='<svg>'>a</p><style>s</style><svg><g><div>b</div>")
        == b"<p title='<svg>'>a</p><div>b</div>"
    )
    # A "<" or "&" in text right before an element: cutting would join it to what follows.
    assert cut(b"a<<script>x</script>b&<style>s</style>amp;") == b"a<<script>x</script>b&<style>s</style>amp;"
    assert cut(b"<script>x</script><style>y</style><<svg></svg>b") == b"<<svg></svg>b"
    # Escaped ("<!--"), then double escaped ("<script>"): the second "</script>" ends it.
    assert cut(b"<script><!--<script>x</script>y</script>-->z</script>w") == b"-->z</script>w"
    # Where the cut stops, the rest is left to lexbor as it is.
    tail = b"<svg><foreignObject><p>x</p></foreignObject></svg><script>s</script>"
    assert cut(b"<style>s</style>" + tail) == tail


@needs_compiled
def test_the_cut_is_the_tree_less_scripts_styles_and_svg() -> None:
    pages = _CUT_EDGES + (_wcxb(60) if DATA.is_dir() else [])
    if DATA.is_dir():  # pages the first cut got wrong: a <script> in a comment, <svg-icon>
        pages += [gzip.decompress((DATA / f"{n}.html.gz").read_bytes()).decode("utf-8", "replace")
                  for n in ("0649", "2894", "0073", "0153")]  # fmt: skip
    for html in pages:
        cut, removed = _cut_and_removed(html)
        assert cut == removed, html[:80]


@needs_compiled
def test_the_cut_on_fuzzed_tag_soup() -> None:
    rng = random.Random(11)
    parts = [
        "<script>", "</script>", "<script type=application/ld+json>", "<style>", "</style>", "<svg>",
        "<svg/>", "</svg>", "<svg-icon>", "<!--", "-->", "--!>", "<![CDATA[", "]]>", "<title>", "</title>",
        "<desc>", "</desc>", "<textarea>", "</textarea>", "<p>", "</p>", "<div>", "</div>", "<g>", "</g>",
        "<path/>", "<span>", "<font color=red>", "<foreignObject>", "<select>", "</select>", "<math>",
        "<iframe>", "</iframe>", "<a title='<script>'>", " x", "<", ">", "/", "-", "text ", "\u00e9",
        "<!-- <script> -->", "<br>", "</br>", "<noscript>", "</noscript>", "<template>", "<xmp>", "</xmp>",
    ]  # fmt: skip
    walk = blocks._compiled()
    for _ in range(3000):
        html = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 40)))
        data = html.encode("utf-8", "replace")
        # The blocks, not the whole tree: in soup, taking an element away can move an invisible
        # one (a script) between <head> and <body>, or make a stray </p> an empty <p>.
        cut = parse_blocks(LexborHTMLParser(walk.cut_no_text(data)))
        removed = parse_blocks(blocks.remove_no_text(LexborHTMLParser(data)))
        got = [(b.text, cut.elements[b.element].tag) for b in cut.blocks]
        assert got == [(b.text, removed.elements[b.element].tag) for b in removed.blocks], html


# Characters whose code units hold a 0x3C byte that is not "<" (the 2-byte scan must skip them),
# and likewise 0x22, 0x27 and 0x2D bytes that are no quote or "-" (quoted values and comments are
# scanned the same way); Latin-1, BMP and astral characters, and lone surrogates (encoded as "?").
_STR_PIECES = [
    "<script>", "</script>", "<style a=b>", "</style >", "<svg>", "</svg>", "<scripts>", "ld+json",
    " type='application/ld+json'", "\u00e9", "\u20ac", "\U0001f600", "\ud800", "\u013c", "\u3c00", "\u3c3c",
    "\U0001003c", "\U0003c000", "x", ">", "<",
    "<p title=\"", "<p a='", '"', "'", "<!--", "-->", "-", "--!>", "<!x", "<?", "\u2022", "\u0122", "\u2d2d",
    "\u0127", "\u272d", "\U0001002d", "\U00022000",
]  # fmt: skip


@needs_compiled
def test_the_str_cut_equals_the_byte_cut_of_the_encoded_str() -> None:
    walk = blocks._compiled()
    rnd = random.Random(5)
    edges = [
        # The 4000-byte bound on an opening tag, in characters of 2 and 3 UTF-8 bytes.
        *(f"<script a='{c * k}'>x</script>y" for c, k in (("\u00e9", 1998), ("\u00e9", 1999))),
        *(f"<script a='{c * k}'>x</script>y" for c, k in (("\u20ac", 1332), ("\u20ac", 1333))),
        "\ud800<p>x</p><style>\udfff</style>\U0001f600", "<svg\u00e9>x</svg>", "<svg\u0141>x</svg>", "",
    ]  # fmt: skip
    fuzz = ["".join(rnd.choice(_STR_PIECES) for _ in range(rnd.randrange(40))) for _ in range(3000)]
    for html in _CUT_EDGES + edges + fuzz + (_wcxb(60) if DATA.is_dir() else []):
        for text in (html, html.encode("latin-1", "replace").decode("latin-1")):  # also 1-byte str kinds
            assert walk.cut_no_text_str(text) == walk.cut_no_text(text.encode("utf-8", "replace")), text[:60]


@needs_compiled
def test_the_str_cut_encodes_ascii_runs_around_other_characters() -> None:
    """The 16-unit steps over ASCII in 2- and 4-byte strs: a non-ASCII character (or a lone
    surrogate) at every offset of runs around the step's size, kept by the cut or not."""
    walk = blocks._compiled()
    for other in ("\u00e9", "\u20ac", "\U0001f600", "\ud800", "\u0100", "\u3c3c"):
        for k in range(1, 40):
            for at in range(k):
                text = "<p>" + "a" * at + other + "b" * (k - at) + "</p><script>x</script>" + "c" * k
                assert walk.cut_no_text_str(text) == walk.cut_no_text(text.encode("utf-8", "replace")), (
                    other,
                    k,
                    at,
                )


def _random_walk(rnd: random.Random) -> tuple[list[int], list[int], list[int], list[int]]:
    """A random element tree in document order (``end``) and the blocks a walk of it would give
    (``element``: text before, between and after children, so elements go back to their parent)."""
    end: list[int] = []
    words: list[int] = []
    links: list[int] = []
    element: list[int] = []

    def text(el: int) -> None:
        if rnd.random() < 0.5:
            w = rnd.randrange(0, 30) if rnd.random() < 0.9 else 0
            words.append(w)
            links.append(rnd.randrange(0, w + 1))
            element.append(el)

    def grow(depth: int) -> None:
        me = len(end)
        end.append(0)
        text(me)
        for _ in range(rnd.randrange(0, 4) if depth < 6 else 0):
            grow(depth + 1)
            text(me)
        end[me] = len(end)

    grow(0)
    return words, links, element, end


@needs_compiled
def test_compiled_page_columns_match_numpy() -> None:
    walk = blocks._compiled()
    rnd = random.Random(11)
    cases = [_random_walk(rnd) for _ in range(2000)] + [([], [], [], [1])]
    for markup in _wcxb(30) if DATA.is_dir() else []:
        page = parse_blocks(markup)
        cases.append((page.words, page.link_words, page.element, page.end))
    for case in cases:
        words, links, element, end = (np.asarray(c, dtype=np.int64) for c in case)
        fast = [np.frombuffer(raw, dtype=np.int64) for raw in walk.page_columns(words, links, element, end)]
        for got, want in zip(fast, blocks._page_columns(words, links, element, end), strict=True):
            assert np.array_equal(got, want), (case, got, want)


_BOILER_CASES = [
    "Reply", "reply!", "replying", "\u2014 reply \u2014", "\u0130reply", "\u212amenu", "tags", "tagsx",
    "Tags:", "\u00a92024 Acme", "commentary", "comments", "Comment_", "shared", "share.", "shar\u00e9",
    "xshare", "Edit this page", "caf\u00e9 menu", "menu\u00e9", "\u00e9menu", "Next \u2192", "Read more",
    "Ein Absatz", "",
]  # fmt: skip


@needs_compiled
def test_compiled_boilerplate_phrases_match_the_regex() -> None:
    from trawl.extract import features

    walk = features._compiled_boiler()
    assert walk is not None
    texts = list(_BOILER_CASES)
    if DATA.is_dir():
        for html in _wcxb(40):
            texts += [t for t in parse_blocks(html).texts if len(t.split()) <= 12]
    got = walk.boiler_hits(texts, list(range(len(texts))), features._boiler_regex)
    want = [i for i, t in enumerate(texts) if features._boiler_regex(t)]
    assert got == want
    assert len(want) >= 10


def test_threads_share_the_compiled_walk_safely() -> None:
    """Extraction from several threads at once gives each page the answer it gets alone."""
    from concurrent.futures import ThreadPoolExecutor

    from trawl.extract import extract

    pages = _EDGE_PAGES + (_wcxb(12) if DATA.is_dir() else [])
    alone = [extract(p, metadata=False).text for p in pages]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda p: extract(p, metadata=False).text, pages * 3))
    assert together == alone * 3


@needs_compiled
def test_compiled_feature_rows_equal_the_numpy_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same stage-1 and stage-2 matrices from the compiled fills and from numpy."""
    import numpy as np

    from trawl.extract import features

    pages = _EDGE_PAGES + (_wcxb(40) if DATA.is_dir() else [])

    def both_stages(markup: str) -> tuple[Any, Any]:
        page = parse_blocks(markup)
        x1 = features.stage1_matrix(page)
        p1 = 1.0 / (1.0 + np.exp(-(x1 @ np.linspace(-1.0, 1.0, x1.shape[1]))))
        return x1, features.stage2_matrix(page, p1)

    compiled = [both_stages(p) for p in pages]
    monkeypatch.setattr(features._CompiledBoiler, "module", None)
    for markup, (x1, (x2, best)) in zip(pages, compiled, strict=True):
        y1, (y2, best_numpy) = both_stages(markup)
        # The same operations in the same order; libm and numpy's log may differ in the last bit.
        # Stage 2's window means are differences of running sums over the page (up to a few
        # hundred): a last-bit difference there is ~1e-14 absolute, large beside a mean near 0.
        assert np.allclose(x1, y1, rtol=1e-13, atol=0) and np.allclose(x2, y2, rtol=1e-13, atol=1e-12)
        assert best == best_numpy
    # thousands of blocks from the WCXB pages; the hand-made edge pages alone give a few dozen
    assert sum(len(x1) for x1, _ in compiled) > (1000 if DATA.is_dir() else 20)


def _random_page(rng: random.Random) -> str:
    """Malformed HTML from a small grammar: unbalanced and misnested tags, hidden and invisible
    elements, odd attributes, entities, NULs, Unicode spaces and astral characters."""
    tags = "div p a span li ul table td tr h2 pre br hr b noscript script style template section custom-x svg"
    attrs = [
        "", " hidden", " aria-hidden=true", " style='display:none'", " class='nav menu'",
        " class='post-3 content'", " id=x role=main", " class=\"\u00e9t\u00e9 ad\"", " style=color:red",
    ]  # fmt: skip
    words = [
        "word", "Reply", "caf\u00e9", "\u00a0", "\u2003", "&amp;", "&nbsp;", "\x00", "\U0001f600", "x.",
        "Share", "\u0130", "<", ">", "&#0;", "\u3000ideo",
    ]  # fmt: skip
    out = []
    for _ in range(rng.randrange(1, 120)):
        r = rng.random()
        if r < 0.35:
            out.append(f"<{rng.choice(tags.split())}{rng.choice(attrs)}>")
        elif r < 0.55:
            out.append(f"</{rng.choice(tags.split())}>")
        else:
            out.append(" ".join(rng.choice(words) for _ in range(rng.randrange(1, 8))))
    return "".join(out)


@needs_compiled
def test_compiled_walk_matches_python_walk_on_random_malformed_pages() -> None:
    rng = random.Random(20261130)
    for _ in range(400):
        markup = _random_page(rng)
        fast, slow = _both(markup)
        assert fast == slow, markup


def test_deep_nesting_and_attribute_floods_are_flattened_before_parsing() -> None:
    """lexbor is quadratic in nesting depth and in one tag's attributes: 30,000 nested <div>s
    would take seconds (100,000: minutes). The guard flattens them and says so."""
    from trawl.extract import extract

    bottom = "<p>deep text here, at the bottom</p>"
    deep = "<body>" + "<div>" * 30_000 + bottom + "</div>" * 30_000 + "</body>"
    ex = extract(deep)
    assert ex.cutoff == "depth"
    assert "deep text here, at the bottom" in ex.text
    # Attributes that nothing reads are dropped before the guard (with the compiled walk): the
    # page is then whole. A flood of attributes that are read still trips the guard.
    attributes = " ".join(f'a{i}="{i}"' for i in range(20_000))
    flood = f"<body><div {attributes}>flooded</div><p>after</p></body>"
    ex = extract(flood)
    assert ex.cutoff == (None if blocks._compiled() is not None else "attributes")
    # Both blocks reach the classifier (page_text: every block); whether it keeps a one-word
    # <div> beside a one-word <p> is the model's call, not the guard's.
    assert ex.page_text.split() == ["flooded", "after"] and "after" in ex.text
    classes = " ".join(f'class="c{i}"' for i in range(20_000))
    ex = extract(f"<body><div {classes}>flooded</div><p>after</p></body>")
    assert ex.cutoff == "attributes"
    assert ex.page_text.split() == ["flooded", "after"] and "after" in ex.text
    normal = extract(_EDGE_PAGES[10])
    assert normal.cutoff is None


@needs_compiled
def test_compiled_guard_matches_the_python_guard() -> None:
    from trawl.html.nesting import guard_markup

    walk = blocks._compiled()
    rng = random.Random(11)
    pages = [_random_page(rng) for _ in range(300)] + (_wcxb(20) if DATA.is_dir() else [])
    rewritten = 0
    for markup in pages:
        for depth, attrs in ((3, 2), (1000, 1000)):
            fast, why = walk.guard_markup(markup.encode(), depth, attrs)
            slow, slow_why = guard_markup(markup, depth, attrs)
            assert (fast, why) == (slow.encode(), slow_why)
            rewritten += why is not None
    assert rewritten > 100


_META_EDGE_PAGES = [
    "<html class='author-page'><head><title>T</title></head><body><p>x</p></body></html>",
    "<head><meta content><meta name=Author content=' A  B '><meta property=og:title content=OG>"
    "<meta itemprop=datePublished><meta name=x></head><body><h1>Head</h1></body>",
    '<body><script TYPE=\'Application/LD+JSON\'>{"headline": "H"}</script>'
    "<script type=application/ld+json></script><script type='text/json'>{}</script></body>",
    "<body><a REL='nofollow Author' href=/u>Rel</a><a rel=author>No href</a><a rel>bare</a>"
    "<span class='x-byline'>By Someone</span><div class='AUTHOR'>upper</div>"
    "<p class='post-author-name'>Name <b>Bold</b></p><span itemprop=author>I P</span></body>",
    "<body><h1 class=logo><a href='https://x.org/'>Site</a></h1><h1><a>no href</a><a href=/>"
    "Home</a> more</h1><h1><span><a href>empty</a></span></h1><time>May 1, 2024</time>"
    "<time datetime='2024-05-02'>x</time><div itemprop='datePublished' content='2024-01-01'></div>"
    "</body>",
    "<body><h1>caf\u00e9 &amp; <i>\U0001f600</i></h1><div class='author'><a href=/a class=author>"
    "A</a></div><template><span class=author>in template</span></template></body>",
    "<body><p>no metadata at all</p></body>",
    "",
]
_META_ATTRS = ("content", "property", "name", "itemprop", "type", "rel", "class", "datetime")


def _meta_pages() -> list[str]:
    return _META_EDGE_PAGES + (_wcxb(120) if DATA.is_dir() else [])


@needs_compiled
def test_compiled_metadata_scan_finds_what_the_selectors_find() -> None:
    from trawl.html import metadata

    walk = blocks._compiled()
    for html in _meta_pages():
        tree = LexborHTMLParser(html)
        found = {c.node: (i, c) for i, c in enumerate(metadata._candidates(tree))}
        assert all(isinstance(c, metadata._Candidate) for _, c in found.values())
        selected = tree.css(metadata._WANTED)
        # Every element the selectors match is a candidate, in the same order, read the same.
        order = [found[node.mem_id][0] for node in selected]
        assert order == sorted(order)
        for node in selected:
            candidate = found[node.mem_id][1]
            assert candidate.tag in ("", node.tag)
            assert candidate.tag or node.tag not in blocks.META_TAGS
            for name in _META_ATTRS:
                assert (name in candidate.attrs) == (name in node.attrs)
                assert candidate.attrs.get(name) == node.attrs.get(name)
            assert candidate.text() == node.text(deep=True)
            link, compiled_link = node.css_first("a[href]"), metadata._first_link(candidate)
            assert (link is None) == (compiled_link is None)
            if link is not None and compiled_link is not None:
                assert compiled_link.attrs["href"] == link.attrs.get("href")
                assert compiled_link.text() == link.text(deep=True)
        if tree.root is not None:
            assert walk.meta_text(tree.root.mem_id) == tree.root.text(deep=True)


@needs_compiled
def test_compiled_metadata_scan_gives_the_same_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.html import metadata

    pages = _meta_pages()
    fast = [metadata.read_metadata(LexborHTMLParser(html), "https://x.org/2024/05/03/a") for html in pages]
    monkeypatch.setattr(metadata, "compiled_walk", lambda: None)
    slow = [metadata.read_metadata(LexborHTMLParser(html), "https://x.org/2024/05/03/a") for html in pages]
    assert fast == slow
    assert any(m.author for m in fast[: len(_META_EDGE_PAGES)])


@needs_compiled
def test_compiled_style_test_matches_the_regex() -> None:
    walk = blocks._compiled()
    rng = random.Random(7)
    parts = ["display", "DISPLAY", "Visibility", "none", "hidden", ":", " ", "\t", "\x1c", "\x0b", ";", "x"]
    styles = [
        "display:none",
        "display : None",
        "color:red; visibility:\n hidden",
        "display: block",
        "displaynone",
        "display:\x1fnone",
        "visibility:hid",
        "",
    ]
    styles += ["".join(rng.choice(parts) for _ in range(rng.randrange(1, 9))) for _ in range(5000)]
    for style in styles:
        assert walk.style_hidden(style.encode()) == blocks._hidden_style(style), style
    # Not ASCII: left to the regex (its case folding and spaces are Unicode's).
    for style in ("di\u017fplay:none", "display:\u2003none", "visibility:hidden \u00e9"):
        assert walk.style_hidden(style.encode()) is None
    assert blocks._hidden_style("di\u017fplay:none") and blocks._hidden_style("display:\u2003none")


_STRIP_KEPT = {
    "class", "id", "role", "hidden", "aria-hidden", "style", "content", "property", "name", "itemprop",
    "type", "rel", "datetime", "encoding", "color", "face", "size", "shadowrootmode",
}  # fmt: skip
_STRIP_EDGE_PAGES = [
    "<p data-x=1 class=a onclick='f()'>text</p><a href=/x data-y=2 title=t>link</a><abbr href=x>y</abbr>",
    '<button aria-label="Close"class="sm-max:hidden">x</button><i a="1"b="2"id=k c=3>i</i>',
    "<img src=x alt='a>b' / ><br data-x=1/><div data-q = \"v\" hidden>h</div><DIV DATA-X=1 CLASS=Y>u</DIV>",
    "<title>a <b data-q=1> c</title><textarea><i x=1 class=c></textarea><xmp><u y=2></xmp><p z=1>p</p>",
    '<script type="application/ld+json">{"a": "<b x=1 class=c>"}</script><em z=1 class=e>e</em>',
    "<!-- <a x=\"1\" --> <i data-z='q' id=k>i</i><!--> <b x=1>b</b><!---> <s y=2>s</s>",
    "<?xml version='1.0'?><!DOCTYPE html><![CDATA[ <b x=1> ]]><u data-u=1>u</u>",
    "<math><mi data-m=1>x</mi><annotation-xml encoding='text/html' data-a=1><p>in</p></annotation-xml>"
    "<font color=red data-f=1>f</font></math>",
    "<table data-t=1><input type=hidden name=n data-i=1><tr><td data-c=1>cell</td></tr></table>",
    "</a data-x=1 title='<b y=2>'><b y=2 id=b>b</b></ x data-z=1><p =x data-w=1>p</p>",
    '<div x="unterminated quote <p class=a>never</p>',
    "<plaintext><b x=1>text to the end",
    "<p class=a data-x=1>x</p><div data-y=",
]


def _tree_items(tree: Any, only_kept: bool) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if tree.root is None:
        return out
    for node in tree.root.traverse(include_text=True):
        if node.tag == "-text":
            out.append(("#text", node.text_content))
            continue
        kept = _STRIP_KEPT | ({"href"} if node.tag == "a" else set())
        attrs = tuple((k, v) for k, v in node.attributes.items() if k in kept or not only_kept)
        out.append((node.tag, attrs))
    return out


@needs_compiled
def test_stripping_unread_attributes_keeps_the_tree() -> None:
    walk = blocks._compiled()
    pages = _STRIP_EDGE_PAGES + (_wcxb(60) if DATA.is_dir() else [])
    before = after = 0
    for html in pages:
        data = walk.cut_no_text_str(html)
        stripped = walk.strip_attributes(data)
        before, after = before + len(data), after + len(stripped)
        # The same elements, texts and kept attributes, in the same order.
        want = _tree_items(LexborHTMLParser(data), True)
        assert _tree_items(LexborHTMLParser(stripped), True) == want, html[:80]
    # real pages carry many attributes nobody reads; the hand-made edge pages only a few
    assert after < (0.8 if DATA.is_dir() else 1.0) * before
    strip = walk.strip_attributes
    assert strip(b"<p class=a>x</p>") == b"<p class=a>x</p>"  # nothing to drop: the same bytes
    assert strip(b'<button aria-label="Close"class="c">') == b'<button class="c">'
    assert strip(b"<title><b x=1></title><i x=1>") == b"<title><b x=1></title><i>"
    assert strip(b"<a href=/h data-x=1>") == b"<a href=/h>"
    assert strip(b"<link href=/h rel=r>") == b"<link href=/h rel=r>"  # the canonical URL is read
    assert strip(b"<img src=/i alt=x>") == b"<img alt=x>"
    assert strip(b"<p data-x=1>a<div x='") == b"<p>a<div x='"  # an open quote to the end: left as it is
    assert strip(b"<![CDATA[ x ]> <b y=1>") == b"<![CDATA[ x ]> <b>"  # in HTML, a bogus comment to ">"
    assert strip(b"<!-- a --!> <b y=1>") == b"<!-- a --!> <b>"  # "--!>" ends a comment too
    # Where the tokenizer's state depends on the tree, the rest is left as it is: SVG or MathML
    # that the cut left (CDATA, raw text follow other rules), raw text inside a <select>, a
    # script whose "<!--" may carry it past its first "</script>".
    for rest in (b"<math><![CDATA[ x ]> <b y=1>", b"<svg><title><b y=1>", b"<frameset><b y=1>"):
        assert strip(b"<i z=1>" + rest) == b"<i>" + rest
    assert strip(b"<select z=1><title></select><textarea></title><b y=1>") == (
        b"<select><title></select><textarea></title><b y=1>"
    )
    assert strip(b"<select><textarea><b y=1></textarea><i z=1>") == b"<select><textarea><b y=1></textarea><i>"
    script = b"<script><!--<script></script><b y=1></script><i z=1>"
    assert strip(script) == script
    assert strip(b"<script></script><i z=1>") == b"<script></script><i>"


@needs_compiled
def test_the_cut_stays_linear_on_hostile_markup() -> None:
    # As for the stripper below: each shape makes the cut look ahead (for a comment's end, a
    # "</title>", a "]]>", the end of a script or of a tag) from every repetition, unless it stops.
    walk = blocks._compiled()
    for unchanged in (
        b"<!-- x --!" * 300_000,
        b"<!---->" * 300_000,
        b"<svg><g>" * 300_000,
        b"<svg><title>" * 300_000,
        b"<svg>" + b"<![CDATA[" * 300_000,
        b"<script><!--<script>" * 200_000,
        b"<p title='" * 300_000,
        b"<iframe>" * 300_000,
    ):
        assert walk.cut_no_text(unchanged) == unchanged
        assert walk.cut_no_text_str(unchanged.decode() + "\u20ac") == unchanged + "\u20ac".encode()
    assert walk.cut_no_text(b"<svg></svg><script>x</script>y" * 200_000) == b"y" * 200_000


@needs_compiled
def test_stripping_stays_linear_on_hostile_markup() -> None:
    # Each shape repeats something the tokenizer must look ahead for (a "]]>", a "-->", a
    # "</title>", the end of a tag); looking again from every repetition would be quadratic
    # (minutes for these 2 MB; the suite's timeout stops it).
    strip = blocks._compiled().strip_attributes
    for unchanged in (
        b"<![CDATA[>" * 200_000,
        b"<math>" + b"<![CDATA[>" * 200_000,
        b"<![CDATA[>" * 200_000 + b"]]>",
        b"<!--" * 300_000,
        b"<title>" * 300_000,
        b"<a x=1 " * 300_000,
        b'</a x="' * 300_000,
    ):
        assert strip(unchanged) == unchanged
    assert strip(b"<p data-x=1>t</p>" * 200_000) == b"<p>t</p>" * 200_000


@needs_compiled
def test_stripping_keeps_the_tree_of_fuzzed_tag_soup() -> None:
    walk = blocks._compiled()
    rng = random.Random(13)
    parts = [
        "<p", "<div", "<a", " href=x", " class='c'", ' data-x="', '"', "'", ">", "</p>", "</div>", "<!--",
        "-->", "--!>", "<![CDATA[", "]]>", "<title>", "</title>", "<textarea>", "</textarea>", "<math>",
        "<script type=application/ld+json>", "</script>", "<style>", "</style>", "<svg>", "</svg>", " id=k",
        " style='display:none'", "text ", "<", "/", "=", "\u00e9", "<plaintext>", "<br/>", "<h1>",
        "<meta content=x name=author>", "<input type=hidden>", "<table>", "<td>", "<font color=red>", " ",
        "<select>", "</select>", "<option>", "<frameset>", "<noframes>", "<iframe>", "</iframe>", "<xmp>",
        "<!-- <script>", "<?x>", "</ x>", "<template>", "<noscript>", "<script>", " data-q=1", "<i a=1/b=2>",
        '<b a="1"c=2>',
    ]  # fmt: skip
    for _ in range(1500):
        html = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 60)))
        data = walk.cut_no_text_str(html)
        want = _tree_items(LexborHTMLParser(data), True)
        assert _tree_items(LexborHTMLParser(walk.strip_attributes(data)), True) == want, html


@needs_compiled
def test_compiled_metadata_scan_on_fuzzed_tag_soup(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.html import metadata

    rng = random.Random(3)
    parts = [
        "<meta", " content='2024-05-01'", " name=author", " property=og:title", " itemprop=author",
        " itemprop=datePublished", " class='byline x'", " class=author-name", " rel=author",
        " REL='Author me'", "<a", " href=/", " href='https://x.org/'", "<h1", "<title>", "</title>", "<time",
        " datetime=2023-02-03", "<script type='application/ld+json'>",
        '{"@type": "Article", "headline": "H", "author": {"name": "N"}}', "</script>", ">", "</a>", "</h1>",
        "text ", "By Someone ", "<div", "</div>", "<span", "<!--", "-->", "'", '"', "<",
        "<html class=author>", " data-x=1",
    ]  # fmt: skip
    pages = ["".join(rng.choice(parts) for _ in range(rng.randrange(1, 50))) for _ in range(1000)]
    trees = [blocks.parse_page(html, lite=False)[0] for html in pages]
    for tree in trees:
        found = {c.node for c in metadata._candidates(tree)}
        assert all(node.mem_id in found for node in tree.css(metadata._WANTED))
    fast = [metadata.read_metadata(tree, "https://x.org/2024/01/02/p") for tree in trees]
    monkeypatch.setattr(metadata, "compiled_walk", lambda: None)
    assert [metadata.read_metadata(tree, "https://x.org/2024/01/02/p") for tree in trees] == fast
