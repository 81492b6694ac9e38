"""The nesting guard flattens only hostile markup, and says what it did."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from trawl.convert.html import HtmlConverter
from trawl.document import Document
from trawl.html.nesting import flatten_utf8, guard_markup
from trawl.html.page import read_page


def test_ordinary_markup_passes_untouched() -> None:
    markup = (
        "<html><head><title>t</title></head><body><!-- <div><div><div> --><ul><li>a<li>b</ul>"
        + "<p>x<p>y" * 500
        + "<table>"
        + "<tr><td>c" * 500
        + "</table><img src=a.png><br></body></html>"
    )
    assert guard_markup(markup, 10, 10) == (markup, None)
    assert flatten_utf8(markup.encode()) == (markup.encode(), None)


def test_tags_past_the_depth_are_dropped_and_their_text_kept() -> None:
    markup = "<body>" + "<div>" * 8 + "core" + "</div>" * 8 + "<p>after</p></body>"
    flat, why = guard_markup(markup, 5, 100)
    assert why == "depth"
    assert flat.count("<div>") == 5 and flat.count("</div>") == 5  # <body> does not count
    tree = LexborHTMLParser(flat)
    assert tree.body is not None and tree.body.text() == "coreafter"


def test_attributes_past_the_limit_are_dropped() -> None:
    attributes = " ".join(f'a{i}="v>{i}"' for i in range(12))  # a ">" inside a quoted value
    flat, why = guard_markup(f"<div {attributes}>text</div>", 50, 5)
    assert why == "attributes"
    assert flat == '<div a0="v>0" a1="v>1" a2="v>2" a3="v>3" a4="v>4">text</div>'


def test_converter_records_a_flattened_page() -> None:
    deep = "<body>" + "<span>" * 5_000 + "deep words" + "</span>" * 5_000 + "</body>"
    page = read_page(deep, "http://example.test/")
    assert page.cutoff == "depth" and page.counts["html/flattened/depth"] == 1
    assert page.text == "deep words"
    doc = Document(url="http://example.test/", raw=deep.encode(), sniffed_type="text/html")
    HtmlConverter().process(doc)
    assert doc.text == "deep words"
    assert any("flattened" in e for e in doc.errors)
