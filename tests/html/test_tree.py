"""The compiled module's own tree builder (``_walk.build_tree``, ``_tree.pxi``) gives the walk and
the metadata what lexbor's tree gives them, or says why it gave up.

The reference is the tree the extractor parsed before: lexbor over the cut, stripped markup
(``parse_page(..., lite=False)``). Each check compares the text blocks with every column of
:class:`~trawl.html.blocks.PageBlocks`, and the title, author, date and their sources, on
hand-made pages aimed at the tree construction rules, on real WCXB pages and on fuzzed tag soup.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trawl.extract import extract
from trawl.html import blocks, metadata
from trawl.html.blocks import compiled_walk_status, parse_page
from trawl.html.nesting import MAX_ATTRIBUTES, MAX_DEPTH

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "extraction" / "wcxb-dev" / "html"

pytestmark = pytest.mark.skipif(
    compiled_walk_status() != "ready", reason=f"compiled walk: {compiled_walk_status()}"
)

_COLUMNS = (
    "words", "link_words", "element", "tag_index", "parent", "depth", "hints", "ancestor_hints", "inside",
    "end",
)  # fmt: skip


def _lite(markup: str) -> Any:
    walk = blocks._compiled()
    assert walk is not None
    return walk.build_tree(walk.cut_no_text_str(markup), MAX_DEPTH, MAX_ATTRIBUTES)


def _same(markup: str, *, text_date: bool = False) -> str:
    """ "" when the lite tree gives lexbor's blocks and metadata; else what differs, or why the
    builder gave up ("gave up: <reason>")."""
    lite = _lite(markup)
    if lite.reason:
        return f"gave up: {lite.reason}"
    ref = parse_page(markup, lite=False).tree
    want, got = blocks.parse_blocks(ref), blocks.parse_blocks(lite)
    if want.texts != got.texts:
        return f"texts {want.texts} != {got.texts}"
    for name in _COLUMNS:
        if not np.array_equal(getattr(want, name), getattr(got, name)):
            return f"{name} {getattr(want, name).tolist()} != {getattr(got, name).tolist()}"
    a = metadata.read_metadata(ref, "https://example.org/2024/05/06/page", text_date=text_date)
    b = metadata.read_metadata(lite, "https://example.org/2024/05/06/page", text_date=text_date)
    if (a.title, a.author, a.date, a.sources) != (b.title, b.author, b.date, b.sources):
        return f"metadata {a} != {b}"
    return ""


# Pages the builder follows the standard on, each aimed at a rule of tree construction.
_BUILT = [
    # implied end tags and scopes
    "<p>one<p>two<div>three</div>four</p>five",
    "<ul><li>a<li>b<ol><li>c</ol>d</ul><dl><dt>t<dd>d<dt>t2</dl>",
    "<h1>head<h2>sub</h1>after</h2>text",
    "<p>x</p></p>stray</li></dd></div></span>end",
    "<button>a<button>b</button>c",
    "<div><p>text</div>more</p>",
    # formatting elements: reconstruction, the adoption agency without a furthest block, Noah's ark
    "<p><b>bold<p>still bold</b>plain",
    "<b><i>x</b>y</i>z",
    "<a href=1>one<a href=2>two</a>three",
    "<p><a href=1>x</p>y<a href=2>z",
    "<p><b class=x><b class=x><b class=x><b class=x>four<p>three reopened</b></b>after",
    "<nobr>a<nobr>b</nobr>c",
    "<font>x<span>y</font>z</span>",
    # the adoption agency with a furthest block: nodes move, clones take their places
    "<a href=1><div>block</a>misnested</div>",
    "<b>1<p>2</b>3</p>4",
    "<a href=1>a<b>b<i>c<u>d<s>e<div>f</a>g</div>h",
    "<b><i><u><em><s><p>deep</b>after</p>",
    "<a href=1><p>x<a href=2>y</p>z",
    "<div><b class=k>one<div>two</b>three</div>four</div>",
    "<em>1<section>2<em>3<p>4</em>5</section>6",
    "<nobr>a<div>b<nobr>c</nobr>d</div>e",
    "<b>x<table><tr><td>y</b>z</td></tr></table>w</b>",
    # tables (no text or elements outside cells)
    "<table><tr><td>a<td>b<tr><th>c</table>after",
    "<table><caption>cap</caption><colgroup><col><col></colgroup><thead><tr><td>h</thead>"
    "<tbody><tr><td>b</tbody><tfoot><tr><td>f</table>",
    "<table>\n <tr>\n  <td>cell<table><tr><td>inner</table>back</td>\n </tr>\n</table>",
    "<table><td>implied tbody and tr</td></table>",
    "<table><tr><td>a</td></tr></tbody></table></td>after",
    "<table><form><tr><td>x</td></tr></form></table>y",
    "<table><input type=hidden><tr><td>x</table>",
    "<p>quirks<table><tr><td>in the p</table>",
    "<!DOCTYPE html><p>standards<table><tr><td>not in the p</table>",
    "<!DOCTYPE html PUBLIC '-//W3C//DTD HTML 4.01 Transitional//EN'><p>quirks<table><tr><td>x</table>",
    "<!DOCTYPE html PUBLIC '-//W3C//DTD XHTML 1.0 Strict//EN' 'x.dtd'><p>standards<table><tr><td>x</table>",
    "</b><!DOCTYPE html><p>quirks: the end tag came first<table><tr><td>in the p</table>",
    "<td>stray cell</td><tr>stray row",
    # foster parenting: what a table holds outside its cells goes before it
    "<table>text outside cells</table>",
    "<p><table><div>element outside cells</div><tr><td>in<b>bold</table>after",
    "<table><tr>stray <b>bold</b><td>cell</td> tail</tr></table>",
    "<div><table><a href=1>link<tr><td>x</td></tr>y</a></table></div>",
    "<table><tr><td>x</td></tr></p></br><input type=text><form><input></table>",
    "<b><table><tr><td>a</b>b</td></tr><i>c</table>d",
    "<template><table>t<div>d</div></table></template>after",
    # select (lexbor's select parsing: its content is kept, it bounds scopes)
    "<select><option>a<option>b<optgroup><option>c</select>after",
    "<p>a<select><p>b</select>c",
    "<select><div>x</div><hr><option>y<select>z",
    "<select>x<input>y",
    "<a href=1>a<select><a href=2>b</select>c",
    # head and body
    "<title>T &amp; U</title><meta name=author content='Ann &amp; Bo'>text",
    "<html><head><noscript><img src=x></noscript><title>t</title></head><body>b</body></html>",
    "<html><head><noscript><style>s</style></noscript><link></head>x",
    "  \n <head> <title>t</title> </head> \n <body class=a><body class=b id=c>text</body>\n</html> tail",
    "<head></head><title>late title</title><meta name=description content=d><p>text",
    "<body><p>text</body></html><p>after the end",
    "<frameset-like>not a frameset</frameset-like>",
    # raw text, RCDATA, templates, comments
    "<textarea>\nfirst line kept</textarea><pre>\nleading newline dropped</pre><listing>\nx</listing>",
    "<title>a <b> not a tag &amp; entity</title><xmp><b>raw</b></xmp><iframe><p>raw</iframe>text",
    "<template><p>template content is not walked</template><p>after",
    "<head><template><meta name=author content=hidden></template></head><p>x",
    "<div class=author><template shadowrootmode=open><p class=byline>shadow</p></template>after</div>",
    "text <!-- comment <p> --> more <!--> <!---> <?pi x> </ bogus> </> end",
    '<script type=application/ld+json>{"@type": "Article", "author": {"name": "A &amp; B"}}</script><p>text',
    # character references, line ends
    "<p>&amp; &lt;&gt; &copy &copyx &notin; &notit; &#169; &#x41; &#0; &#x110000; &#128; &#xD800; &#; &</p>",
    "<div class='a&amp;b' id=x&copy=y title=&copy>refs in attributes</div>",
    '<p>crlf\r\nline\rend</p><div class="x\r\ny">z</div>',
    # hidden elements, classes, custom elements
    "<div hidden><p>hidden</p></div><div aria-hidden=true>a</div><p style='display: none'>s</p><p>shown</p>",
    "<DIV CLASS='Nav Menu' ID=Top ROLE=navigation>upper case</DIV>",
    "<x-card class=post><x-title>custom</x-title></x-card></x-other>text",
    "<image src=x>image is img<br/>break</br>end tag br",
    # byte order mark, control characters, lone surrogates (the str's UTF-8 has "?" for them)
    "\ufeff<!DOCTYPE html><p>a<table><tr><td>b</table>",
    "x\ufeffy<p>\x01\x0b\x7f\x85 ctl\u2028ls</p><p>\udc80</p>",
]

# Pages it gives up on, and why: lexbor parses them.
_GIVES_UP = {
    "<p>x<math><mi>y</mi></math>": "foreign",
    "<frameset><frame></frameset>": "frameset",
    "<p>x<plaintext><p>all text": "plaintext",
    "<p>nul \x00 character": "nul",
    "<template><tr><td>x</template>y": "template",
    "<template><col><title></template>text": "template",
    "<!DOCTYPE html PUBLIC '-//IETF//DTD HTML//EN'><p>x<table><tr><td>y</table>": "quirks",
    "<div>" * 500 + "deep": "depth",
    "<div " + " ".join(f"class=c{i}" for i in range(MAX_ATTRIBUTES + 1)) + ">x</div>": "attributes",
}


@pytest.mark.parametrize("markup", _BUILT)
def test_the_lite_tree_gives_lexbors_blocks_and_metadata(markup: str) -> None:
    assert _same(markup) == ""
    assert _same(markup, text_date=True) == ""


@pytest.mark.parametrize(("markup", "reason"), list(_GIVES_UP.items()))
def test_where_the_builder_does_not_follow_the_standard_it_gives_up(markup: str, reason: str) -> None:
    assert _lite(markup).reason == reason
    parsed = parse_page(markup)
    assert type(parsed.tree).__name__ == "LexborHTMLParser"  # and lexbor parses the page
    assert parsed.parser == f"lexbor:{reason}"


def test_parse_page_builds_lite_trees_for_str_only() -> None:
    html = "<p>a paragraph of text</p>"
    assert type(parse_page(html)[0]).__name__ == "LiteTree"
    assert parse_page(html).parser == "lite" and extract(html).parser == "lite"
    assert parse_page(html.encode()).parser == "lexbor"
    assert type(parse_page(html.encode())[0]).__name__ == "LexborHTMLParser"
    assert type(parse_page(html, lite=False)[0]).__name__ == "LexborHTMLParser"
    lite = parse_page(html)[0]
    assert lite.root is not None and lite.body is not None and lite.head is not None
    with pytest.raises(RuntimeError):
        blocks.parse_blocks(lite, compiled=False)  # the Python walk reads lexbor's trees only


def test_the_guard_still_reports_deep_pages() -> None:
    ex = extract("<body>" + "<span>" * (MAX_DEPTH + 5) + "deep words</body>")
    assert ex.cutoff == "depth"
    assert "deep words" in ex.text


@pytest.mark.skipif(not DATA.is_dir(), reason="shared WCXB data not present")
def test_the_lite_tree_on_wcxb_pages() -> None:
    paths = sorted(DATA.glob("*.html.gz"))[::25]
    built = 0
    for path in paths:
        markup = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        diff = _same(markup)
        assert diff == "" or diff.startswith("gave up"), (path.name, diff)
        built += diff == ""
    assert built >= 0.9 * len(paths)  # 1,282 of all 1,337 pages are built


_SOUP = [
    "<p", "<div", "<a", " href=x", " class='c d'", " class=menu", " id=k", ' data-x="', '"', "'", ">", "</p>",
    "</div>", "<!--", "-->", "text ", "more words ", "<", "/", "=", "&amp;", "&nbsp;", "&lt;", "&#169;",
    "&copy", "&", "\r\n", " ", "<b>", "</b>", "<i>", "</i>", "<a href=1>", "</a>", "<font>", "</font>",
    "<nobr>", "<span>", "</span>", "<ul>", "<li>", "</li>", "</ul>", "<dl>", "<dt>", "<dd>", "<h1>", "</h1>",
    "<h2>", "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<tbody>", "<caption>",
    "</caption>", "<col>", "<colgroup>", "<form>", "</form>", "<button>", "</button>", "<select>",
    "</select>", "<option>", "<optgroup>", "<input>", "<input type=hidden>", "<textarea>", "</textarea>",
    "<title>",
    "</title>", "<head>", "</head>", "<body>", "</body>", "<html>", "</html>", "<meta name=author content=x>",
    "<link>", "<noscript>", "</noscript>", "<style>", "</style>", "<script type=application/ld+json>",
    "</script>", "<template>", "</template>", "<pre>", "<hr>", "<br>", "</br>", "<img>", "<image>", "<xmp>",
    "<iframe>", "</iframe>", "<applet>", "</applet>", "<object>", "<section>", "</section>", "<nav>", "<x-y>",
    "</x-y>", "<ruby>", "<rt>", "<rp>", "<rtc>", "<p hidden>", "<div style='display:none'>",
    "<div aria-hidden=true>", "<details>", "<summary>", "<!DOCTYPE html>", "<?x>", "</ x>", "</>",
    "<time datetime=2020-01-01>", "<listing>", "<marquee>", "<plaintext>",
]  # fmt: skip


def test_the_lite_tree_on_fuzzed_tag_soup() -> None:
    rng = random.Random(2026)
    built = 0
    for _ in range(1500):
        markup = "".join(rng.choice(_SOUP) for _ in range(rng.randrange(1, 40)))
        diff = _same(markup)
        assert diff == "" or diff.startswith("gave up"), (markup, diff)
        built += diff == ""
    assert built > 1000


def test_extraction_is_the_same_with_either_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    from functools import partial

    from trawl.html import page

    article = "<nav><a href=/>Home</a></nav><article><h1>Head</h1>" + "<p>words " * 30 + "</article>"
    pages = [f"<title>T{k}</title>{article}" for k in range(3)] + _BUILT
    lite = [extract(p).as_dict() for p in pages]
    monkeypatch.setattr(page, "parse_page", partial(parse_page, lite=False))
    assert [extract(p).as_dict() for p in pages] == lite


def test_the_builder_stays_linear_on_hostile_markup() -> None:
    # Each shape makes a naive builder look back (scopes, the formatting list) or ahead (a tag's
    # end, a raw text's end tag) from every repetition, or allocate a node per repetition; the
    # suite's timeout stops a quadratic one. Each ends built or with a reason, never an error.
    shapes = [
        "<a href=1>x" * 100_000, "<dl>" + "<dd><dt>" * 100_000, "<button>" * 100_000,
        "<form></form>" * 100_000, "".join(f"<p><b class=c{i}>" for i in range(50_000)),
        "".join(f"<p><i id=x{i}>t" for i in range(50_000)), "&amp" * 200_000, "</div>" * 200_000,
        "a<1" * 300_000, "<title>" * 300_000, "<!--" * 300_000, "<a x=1 " * 300_000, '</a x="' * 300_000,
        "<table><tr><td>" * 100_000, "<select>" * 100_000, "<textarea>" * 100_000,
        "<a href=1><p>x" * 100_000, "<b><div>x</b>" * 100_000, "<b>" * 300 + "<div>" * 90 + "</b>" * 100_000,
        "x\r" * 300_000 + "&amp;", "<a href='" + "\r" * 300_000 + "&amp;'>x",  # CRs before one "&"
    ]  # fmt: skip
    for markup in shapes:
        tree = _lite(markup)
        assert tree.reason in ("", "depth"), (markup[:40], tree.reason)
    one = _lite("a<1" * 300_000)
    assert blocks.parse_blocks(one).texts == ["a<1" * 300_000]  # one text node, one block


def test_threads_read_lite_and_lexbor_trees_at_once() -> None:
    # Attribute access is chosen per node, not switched globally: a thread walking a lite tree
    # and one walking lexbor's (whose walks call back into Python for non-ASCII class names and
    # styles, where threads switch) must not disturb each other.
    from concurrent.futures import ThreadPoolExecutor

    odd = (
        "<div class='caf\u00e9 navigation' style='display:\u2003none'>x</div><p class='\u00fcber'>"
        + "w " * 40
    )
    pages = [odd + page for page in _BUILT]
    want_lite = [extract(p).as_dict() for p in pages]
    want_lexbor = [metadata.extract_metadata(p) for p in pages]  # lexbor's tree (selectolax's API)

    def work(k: int) -> bool:
        for _ in range(3):
            if k % 2:
                if [extract(p).as_dict() for p in pages] != want_lite:
                    return False
            elif [metadata.extract_metadata(p) for p in pages] != want_lexbor:
                return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(8)))
