"""HTML conversion: title, visible text, links and metadata from one parse; real and hostile pages."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.config import load_config
from trawl.convert.html import HtmlConverter
from trawl.convert.sniff import TypeSniffer
from trawl.convert.text import TextConverter
from trawl.decode.charset import CharsetDecoder
from trawl.document import Document, Link
from trawl.html.page import read_page, resolve_link
from trawl.jobs.steps import default_steps
from trawl.pipeline.base import RunContext, Step

URL = "http://example.com/dir/page.html"


def convert(body: bytes | str, url: str = URL, **headers: str) -> tuple[Document, RunContext]:
    raw = body.encode() if isinstance(body, str) else body
    hdrs = [("Content-Type", "text/html")] + [(k.replace("_", "-"), v) for k, v in headers.items()]
    doc = Document(url=url, raw=raw, http_headers=hdrs)
    ctx = RunContext()
    (out,) = run_steps(default_steps(), [doc], ctx)
    return out, ctx


def run_steps(steps: list[Step], docs: list[Document], ctx: RunContext) -> list[Document]:
    stream = iter(docs)
    for step in steps:
        stream = step.run(stream, ctx)
    return list(stream)


def test_title_is_collapsed_and_svg_titles_do_not_count() -> None:
    doc, _ = convert("<body><svg><title>icon</title></svg></body><title>\n  A  &amp;\tB </title>")
    assert doc.title == "A & B"


def test_title_falls_back_to_the_first_h1() -> None:
    doc, ctx = convert("<h2>Sub</h2><h1> Main\n heading </h1><h1>Second</h1>")
    assert doc.title == "Main heading"
    doc, ctx = convert("<p>no headings at all</p>")
    assert doc.title == "" and ctx.stats["html/untitled"] == 1


def test_visible_text_in_reading_order_with_block_lines() -> None:
    html = """<html><head><title>T</title><style>p{color:red}</style><script>x = "<p>no</p>"</script></head>
    <body>
      <noscript>enable js</noscript><template><p>tpl</p></template>
      <div>First <b>bold</b><i>italic</i> words</div>
      <p>Second&nbsp;para &amp;lt;kept&amp;gt;</p>
      line one<br>line two
      <ul><li>item 1</li><li>item 2</li></ul>
      <table><tr><td>cell a</td><td>cell b</td></tr></table>
      <p hidden>hidden para</p><div style="display: none">gone</div>
      <span style="visibility:hidden">gone too</span>
      <svg><text>chart label</text></svg>
      <pre>code line 1
    code   line 2</pre>
    </body></html>"""
    doc, ctx = convert(html)
    # One line per text block, the blocks the extractor classifies: a <br> or a <pre>'s line
    # breaks do not start a block; hidden inline elements are gone, hidden blocks (tab panels,
    # accordions: content a click away) stay.
    assert doc.text.split("\n") == [
        "First bolditalic words",
        "Second para &lt;kept&gt;",
        "line one line two",
        "item 1",
        "item 2",
        "cell a",
        "cell b",
        "hidden para",
        "gone",
        "code line 1 code line 2",
    ]
    assert ctx.stats["convert/html"] == 1


def test_a_body_hidden_until_scripts_run_still_has_text() -> None:
    doc, _ = convert('<html style="display:none"><body hidden><p>Shown by JavaScript</p></body></html>')
    assert doc.text == "Shown by JavaScript"


def test_head_elements_after_a_noscript_are_still_found() -> None:
    # Parsed without scripting, the <img> in <noscript> ends <head>: what follows lands in <body>.
    html = (
        '<html><head><noscript><img src="pixel.gif"></noscript><title>Kept</title>'
        '<link rel="canonical" href="/canon"><meta name="description" content="Desc">'
        "</head><body>x</body></html>"
    )
    doc, _ = convert(html)
    assert doc.title == "Kept"
    assert doc.metadata["canonical"] == "http://example.com/canon"
    assert doc.metadata["description"] == "Desc"
    assert doc.text == "x"


def test_content_only_revealed_by_scripts_is_kept() -> None:
    article = "<p>" + "The whole article is here. " * 20 + "</p>"
    streamed, _ = convert(f'<div hidden id="S:0">{article}</div><p>Loading</p><b hidden>menu</b>')
    assert "The whole article is here." in streamed.text and "menu" not in streamed.text
    forum, _ = convert(f"<body><noscript>{article}</noscript><div id=app>Loading</div></body>")
    assert forum.text.split("\n") == [("The whole article is here. " * 20).strip(), "Loading"]
    normal, _ = convert(f"<body>{article}<noscript>Please enable JavaScript</noscript></body>")
    assert "JavaScript" not in normal.text


def test_links_resolved_against_base_with_text_and_rel() -> None:
    html = """<head><base href="http://base.example/sub/"></head><body>
      <a href="rel.html#frag"> Relative\n link </a>
      <a href="/root" rel="nofollow">Root</a>
      <a href="https://other.example/x?q=1"><img src="i.png" alt="Logo image"></a>
      <a href="#top">Top</a><a href="mailto:a@b.c">Mail</a><a href="javascript:void(0)">JS</a>
      <a name="anchor">not a link</a>
      <map><area href="/area" alt="Area alt"></map>
      <div hidden><a href="/hidden-menu">Menu</a></div>
    </body>"""
    doc, ctx = convert(html)
    assert doc.links == [
        Link("http://base.example/sub/rel.html", "Relative link"),
        Link("http://base.example/root", "Root", "nofollow"),
        Link("https://other.example/x?q=1", "Logo image"),
        Link("http://base.example/area", "Area alt"),
        Link("http://base.example/hidden-menu", "Menu"),
    ]
    assert ctx.stats["html/links/skipped-fragment"] == 1
    assert ctx.stats["html/links/skipped-scheme"] == 2
    assert "Relative link" in doc.text


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("http://a.example/x y", ("http://a.example/x%20y", "")),
        ("/p\u00e4th?q=\u00fc#f", ("http://example.com/p%C3%A4th?q=%C3%BC", "")),
        ("https://b\u00fccher.example/a", ("https://xn--bcher-kva.example/a", "")),
        ("  /a\n/b ", ("http://example.com/a/b", "")),
        ("//cdn.example/y", ("http://cdn.example/y", "")),
        ("HTTP://Host.example/Y", ("http://Host.example/Y", "")),
        ("../up", ("http://example.com/up", "")),
        ("/a/./b/../c", ("http://example.com/a/c", "")),
        ("?q=1", ("http://example.com/dir/page.html?q=1", "")),
        ("\\\\other.example\\path", ("http://other.example/path", "")),
        ("http://[::1", (None, "invalid")),
        ("ftp://files.example/", (None, "scheme")),
        ("", (None, "fragment")),
    ],
)
def test_resolve_link(href: str, expected: tuple[str | None, str]) -> None:
    assert resolve_link(href, URL) == expected


def test_relative_links_on_a_local_file_are_not_web_links() -> None:
    assert resolve_link("other.html", "file:///home/me/page.html") == (None, "scheme")


def test_metadata() -> None:
    html = """<html lang=" en-GB "><head>
      <meta name="Description" content=" A  page ">
      <meta property="og:description" content="OG text">
      <meta name="keywords" content="a, b">
      <meta name="author" content="Ann Author">
      <meta name="generator" content="Gen 1.0">
      <meta name="robots" content="NOINDEX, follow">
      <link rel="Canonical" href="canonical.html#x">
    </head><body><h1>One</h1><h3>Three</h3><h4>Four</h4><h2></h2></body></html>"""
    doc, _ = convert(html)
    meta = doc.metadata
    assert meta["description"] == "A page"
    assert (meta["keywords"], meta["author"], meta["generator"]) == ("a, b", "Ann Author", "Gen 1.0")
    assert meta["robots"] == "NOINDEX, follow" and meta["noindex"] is True and "nofollow" not in meta
    assert meta["canonical"] == "http://example.com/dir/canonical.html"
    assert meta["lang"] == "en-GB"
    assert meta["headings"] == [{"level": 1, "text": "One"}, {"level": 3, "text": "Three"}]


def test_og_description_is_the_fallback_and_robots_none() -> None:
    doc, _ = convert('<meta property="og:description" content="OG"><meta name="robots" content="none">')
    assert doc.metadata["description"] == "OG"
    assert doc.metadata["noindex"] is True and doc.metadata["nofollow"] is True


def test_legacy_encoding_end_to_end() -> None:
    body = '<meta charset="koi8-r"><title>Привет</title><p>мир</p>'.encode("koi8_r")
    doc, _ = convert(body)
    assert (doc.title, doc.text, doc.encoding, doc.encoding_source) == ("Привет", "мир", "koi8-r", "meta")


@pytest.mark.parametrize(
    "body",
    [
        b"",
        bytes(range(256)) * 64,
        b"\x00\x00<html>\x00<p>nul\x00s</p>",
        b"<div><p><b><i>unclosed <a href='/x'>tags <table><tr><td>everywhere",
        b"<html><title>never closed" + b" word" * 1000,
        b"<<<>>><!-- <!-- --!> <![CDATA[ x ]]> </p></div></body></html></html>",
        b"<div>" * 10_000 + b"deep" + b"</div>" * 10_000,
        b"<span>" * 50_000 + b"deeper",
        b"<a href='/x'>" * 5_000,
    ],
)
def test_hostile_pages_never_crash(body: bytes) -> None:
    doc, ctx = convert(body)
    # The only note allowed: nesting deeper than html.nesting.MAX_DEPTH was flattened.
    deep = body.count(b"<div>") > 1_000 or body.count(b"<span>") > 1_000
    flattened = "html: markup flattened before parsing (depth; see trawl.html.nesting)"
    assert doc.errors == ([flattened] if deep else [])
    assert ctx.stats.prefix("error/") == {}
    assert len(doc.title) <= 1000


def test_deep_nesting_keeps_the_text() -> None:
    doc, _ = convert(b"<div>" * 10_000 + b"deep" + b"</div>" * 10_000)
    assert doc.text == "deep"


def test_huge_page_is_capped_and_counted() -> None:
    doc = Document(url=URL, raw=b"<p>" + b"word " * 100_000, http_headers=[("Content-Type", "text/html")])
    ctx = RunContext()
    steps: list[Step] = [TypeSniffer(), CharsetDecoder(), HtmlConverter(max_chars=10_000), TextConverter()]
    (doc,) = run_steps(steps, [doc], ctx)
    assert ctx.stats["html/capped"] == 1
    assert len(doc.text) <= 10_000
    assert any("max_chars" in e for e in doc.errors)


def test_links_are_capped() -> None:
    page = read_page("".join(f"<a href='/p{i}'>p</a>" for i in range(50)), URL, max_links=10)
    assert len(page.links) == 10 and page.counts["html/links/capped"] == 1


def test_converter_without_a_decoder_decodes_itself() -> None:
    doc = Document(url=URL, raw="<title>café</title>".encode("cp1252"), sniffed_type="text/html")
    HtmlConverter().process(doc)
    assert (doc.title, doc.encoding, doc.encoding_source) == ("café", "windows-1252", "detector")


def test_non_html_documents_pass_untouched() -> None:
    doc = Document(url=URL, raw=b"%PDF-1.4", http_headers=[("Content-Type", "text/html")])
    doc.sniffed_type = "application/pdf"
    HtmlConverter().process(doc)
    assert doc.text == "" and doc.encoding is None


def test_default_steps_follow_the_configuration() -> None:
    config = load_config(env={}, overrides=["html.max_chars=1234", "decode.default_encoding=iso-8859-2"])
    steps = default_steps(config)
    from trawl.convert.registry import FormatConverter

    kinds = [TypeSniffer, CharsetDecoder, HtmlConverter, FormatConverter, TextConverter]
    assert [type(s) for s in steps] == kinds
    decoder, html = steps[1], steps[2]
    assert isinstance(decoder, CharsetDecoder) and decoder.default_encoding == "iso-8859-2"
    assert isinstance(html, HtmlConverter) and html.max_chars == 1234


def test_real_pages(shared_data: Path) -> None:
    """Real pages from the WCXB benchmark: no failures, titles for nearly all, mostly the right one."""
    folder = shared_data / "extraction" / "wcxb-dev"
    pages = sorted((folder / "html").glob("*.html.gz"))[: int(os.environ.get("TRAWL_TEST_PAGES", "60"))]
    if not pages:
        pytest.skip(f"no pages in {folder}")
    docs, truths = [], []
    for path in pages:
        truth = json.loads((folder / "truth" / path.name.replace(".html.gz", ".json")).read_text("utf-8"))
        raw = gzip.decompress(path.read_bytes())
        docs.append(Document(url=truth["url"], raw=raw, http_headers=[("Content-Type", "text/html")]))
        truths.append(truth)
    ctx = RunContext()
    out = run_steps(default_steps(), docs, ctx)
    assert len(out) == len(docs)
    assert ctx.stats.prefix("error/") == {}
    assert ctx.stats["convert/html"] == len(docs)
    titled = sum(1 for d in out if d.title)
    assert titled >= 0.95 * len(docs)

    def words(text: str) -> set[str]:
        return set(re.findall(r"\w+", text.lower()))

    def loose(ours: str, truth: str) -> bool:
        # The benchmark's title is often the article headline, ours the <title> around it
        # ("Headline | Site"): at least half of the headline's words must be in ours.
        expected = words(truth)
        return not expected or len(expected & words(ours)) >= 0.5 * len(expected)

    matching = sum(1 for d, t in zip(out, truths, strict=True) if loose(d.title, t.get("title") or ""))
    assert matching >= 0.85 * len(docs)  # 95% over all 1,337 pages
    # A few pages (Discourse shells) carry their content only in <meta> tags: no text is right.
    assert sum(1 for d in out if d.text) >= 0.98 * len(docs)
    for d in out:
        assert all(link.url.startswith(("http://", "https://")) and "#" not in link.url for link in d.links)


@settings(max_examples=200, deadline=None)
@given(
    markup=st.lists(
        st.sampled_from([*"<>/=\"' abp!-\n&;#x\x00\u00e9", "<div>", "</div>", "<a href=", "<pre>", "<title"]),
        max_size=200,
    ).map("".join)
)
def test_read_page_never_raises(markup: str) -> None:
    page = read_page(markup, URL)
    assert isinstance(page.text, str) and "\x1e" not in page.text


def test_default_steps_follow_the_decode_config() -> None:
    from trawl.pipeline import Pipeline, Source

    page = "<html><title>Größe</title><p>Übergrößen für Bären und Löwen, schöne Grüße.</p></html>"

    class One(Source):
        def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
            yield Document(
                url="http://e.de/",
                raw=page.encode("windows-1252"),
                record_type="resource",
                declared_type="text/html",
            )

    for detector, source in ((True, "detector"), (False, "default")):
        config = load_config(env={}, overrides=[f"decode.detector={str(detector).lower()}"])
        (doc,) = list(Pipeline([One()], default_steps(config)))
        assert doc.encoding_source == source
        assert doc.title == "Größe"
