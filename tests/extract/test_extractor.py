"""The combined extractor and the ContentExtractor stage: content kept, boilerplate dropped, audited."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from trawl.document import Document
from trawl.errors import ConfigError
from trawl.extract import ContentExtractor, extract
from trawl.html.blocks import compiled_walk
from trawl.pipeline.base import Pipeline, RunContext, Source

_NAV = "".join(f'<li><a href="/s{k}">Section {k}</a></li>' for k in range(12))
_FOOT = (
    '<footer><p>© 2024 Example Media. <a href="/privacy">Privacy</a> · '
    '<a href="/terms">Terms</a></p></footer>'
)
_PARAS = [
    "The river rose three metres overnight, flooding the lower town for the first time since 1953.",
    "Residents were woken by sirens shortly after two in the morning, and most reached the school gym.",
    "Engineers say the old levee held, but water came through the drains, which had no valves fitted.",
    "The council will meet on Thursday to discuss funding for new pumps and a second flood barrier.",
]


def _page(extra: str = "") -> str:
    body = "".join(f"<p>{p}</p>" for p in _PARAS)
    return (
        "<html><head><title>Flood hits lower town | Daily Example</title>"
        '<meta name="author" content="Jo Reporter"><meta name="date" content="2024-02-01"></head><body>'
        f'<header><nav class="menu"><ul>{_NAV}</ul></nav></header>'
        f'<main><article class="post"><h1>Flood hits lower town</h1>{body}{extra}</article></main>'
        '<aside class="sidebar"><h3>Most read</h3><ul>'
        + "".join(f'<li><a href="/r{k}">Another story number {k}</a></li>' for k in range(6))
        + f"</ul></aside>{_FOOT}</body></html>"
    )


def test_article_kept_boilerplate_dropped() -> None:
    ex = extract(_page())
    for para in _PARAS:
        assert para in ex.text
    assert "Section 3" not in ex.text
    assert "Another story" not in ex.text
    assert "Privacy" not in ex.text
    assert ex.title == "Flood hits lower town"
    assert ex.author == "Jo Reporter" and ex.date == "2024-02-01"
    assert ex.method == "dom" and 0.5 < ex.score <= 1.0
    assert ex.expected_f1 is not None and 0.5 < ex.expected_f1 <= 1.0
    assert ex.as_dict()["expected_f1"] == round(ex.expected_f1, 4)
    assert ex.span is not None
    start, end = ex.span
    assert ex.page_text[start:end].startswith("Flood hits lower town")
    assert ex.page_text[start:end].endswith(_PARAS[-1])


def test_expected_f1_is_the_probabilities_expectation_of_the_kept_blocks() -> None:
    """2·Σ_kept p·w / (Σ_kept w + Σ_all p·w) over the classifier's probabilities; None when BTE
    or the whole page decided."""
    from trawl.extract.dom import classify_blocks
    from trawl.html.blocks import parse_blocks, parse_page

    page = parse_blocks(parse_page(_page())[0])
    c = classify_blocks(page)
    p = np.asarray(c.probs)
    kept = np.zeros(len(p), dtype=bool)
    kept[c.index] = True
    w = page.words
    want = 2 * float((p * w)[kept].sum()) / (float(w[kept].sum()) + float((p * w).sum()))
    assert c.expected_f1 == pytest.approx(want)
    assert extract(_page()).expected_f1 == pytest.approx(want)
    assert extract(_page(), method="bte").expected_f1 is None
    for markup in ("<html><body><p>short</p></body></html>", "<html><body></body></html>", _page()):
        ex = extract(markup)
        assert (ex.expected_f1 is None) == (ex.method != "dom")


def test_paragraph_breaks_and_markdown() -> None:
    extra = (
        "<h2>What next</h2><ul><li>Pumps will be ordered this spring.</li><li>A barrier is planned.</li></ul>"
    )
    text = extract(_page(extra)).text
    assert f"{_PARAS[0]}\n\n{_PARAS[1]}" in text
    md = extract(_page(extra), fmt="markdown").text
    assert "# Flood hits lower town" in md
    assert "## What next" in md
    assert "- Pumps will be ordered this spring.\n- A barrier is planned." in md


@pytest.mark.parametrize("method", ["bte", "slope", "dom", "auto"])
def test_every_method_finds_the_story(method: str) -> None:
    ex = extract(_page(), method=method)
    assert ex.method in (method, "dom", "bte")
    assert _PARAS[1] in " ".join(ex.text.split())


def test_bad_input_never_raises() -> None:
    for markup in (
        "",
        "   ",
        "\x00\x01\x02" * 1000,
        "<html><body></body></html>",
        "<<<>>><p",
        b"\xff\xfe<p>x",
    ):
        ex = extract(markup)
        assert isinstance(ex.text, str)
    with pytest.raises(ConfigError, match="unknown extraction method"):
        extract("<p>x</p>", method="magic")


def test_guard_cuts_large_and_slow_pages() -> None:
    big = _page() + "<p>" + "filler words here " * 100_000 + "</p>"
    ex = extract(big, max_chars=50_000)
    assert ex.cutoff == "size"
    assert _PARAS[0] in ex.text
    slow = extract(_page(), time_limit=1e-9)
    assert slow.cutoff == "time" and slow.method == "page"
    many = extract("".join(f"<p>block {k}</p>" for k in range(300)), max_blocks=100)
    assert many.cutoff == "blocks"


class _Pages(Source):
    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def read(self, ctx: RunContext) -> Iterator[Document]:
        yield from self.docs


def test_content_extractor_stage_records_method_score_span() -> None:
    html_doc = Document(
        url="https://news.example/2024/02/01/flood",
        raw=_page().encode(),
        http_headers=[("Content-Type", "text/html; charset=utf-8")],
    )
    other = Document(url="https://news.example/a.pdf", raw=b"%PDF-1.7", declared_type="application/pdf")
    pipe = Pipeline([_Pages([html_doc, other])], [ContentExtractor()])
    out = list(pipe)
    assert len(out) == 2
    doc = out[0]
    assert _PARAS[2] in doc.text and "Section 1" not in doc.text
    assert doc.title == "Flood hits lower town"
    assert doc.metadata["author"] == "Jo Reporter"
    assert doc.content_method == "dom"
    assert doc.content_score is not None and doc.content_score > 0.5
    assert 0.5 < doc.metadata["content_expected_f1"] <= 1.0
    assert doc.content_span is not None
    assert out[1].content_method is None
    assert pipe.ctx.stats["extract/method/dom"] == 1
    # Which parser built the tree: trawl's own, or lexbor where it gave up (here: MathML).
    walk = compiled_walk()
    assert pipe.ctx.stats["extract/parser/lite" if walk else "extract/parser/lexbor"] == 1
    foreign = Document(
        url="https://news.example/t",
        raw=b"<p>x<math><mi>y</mi></math></p>" + _page().encode(),
        http_headers=[("Content-Type", "text/html; charset=utf-8")],
    )
    pipe = Pipeline([_Pages([foreign])], [ContentExtractor()])
    assert len(list(pipe)) == 1
    assert pipe.ctx.stats["extract/parser/lexbor:foreign" if walk else "extract/parser/lexbor"] == 1


def test_stage_rejects_bad_config() -> None:
    with pytest.raises(ConfigError):
        ContentExtractor(method="nope")
    with pytest.raises(ConfigError):
        ContentExtractor(time_limit=0)
