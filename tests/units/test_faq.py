"""FAQ question/answer pairs as document units: from FAQPage JSON-LD, <dl>, <details> and runs of
question headings, read from the page's one parse, with the near misses that must make none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.acquire.localdir import file_document
from trawl.config import load_config
from trawl.document import Document
from trawl.html.page import read_page
from trawl.jobs.procs import run_steps
from trawl.jobs.steps import build_steps
from trawl.pipeline.base import RunContext
from trawl.units.faq import FaqUnits, is_question

ARTICLE = (
    "<p>Our ferries have linked the harbour and the islands since 1952, carrying islanders, "
    "visitors, bicycles and the post across the sound in every season of the year.</p>"
)


def page(body: str, head: str = "") -> str:
    return (
        f"<html><head><title>Ferry help</title>{head}</head><body><nav><a href='/'>Home</a> "
        f"<a href='/times'>Times</a></nav><main><h1>Ferry help</h1>{ARTICLE}{body}</main>"
        "<footer>© Harbour board</footer></body></html>"
    )


def run(tmp_path: Path, markup: str, *overrides: str) -> tuple[Document, list[Document], RunContext]:
    path = tmp_path / "faq.html"
    path.write_text(markup, encoding="utf-8")
    config = load_config(overrides=["units.faq=true", *overrides])
    steps = build_steps(config)
    ctx = RunContext()
    try:
        out = run_steps(steps, [file_document(str(path), path.read_bytes())], ctx)
    finally:
        for step in steps:
            step.close()
    return out[0], out[1:], ctx


LD = {
    "@context": "https://schema.org",
    "@graph": [
        {"@type": "Organization", "name": "Harbour board"},
        {
            "@type": "FAQPage",
            "mainEntity": [
                {
                    "@type": "Question",
                    "name": "Can I take my bicycle?",
                    "acceptedAnswer": {
                        "@type": "Answer",
                        "text": "<p>Yes, for a fee of <b>2 &amp; 50</b>.</p>",
                    },
                },
                {
                    "@type": "Question",
                    "name": "Do dogs travel free?",
                    "acceptedAnswer": [{"@type": "Answer", "text": "Dogs travel free on a lead."}],
                },
                {"@type": "Question", "name": "What about cars?"},  # no answer: malformed
                "not a question",
            ],
        },
    ],
}


def test_json_ld_pairs(tmp_path: Path) -> None:
    head = f'<script type="application/ld+json">{json.dumps(LD)}</script>'
    body = "<h2>Can I take my bicycle?</h2><p>Yes, for a fee of 2 & 50.</p>"
    parent, units, ctx = run(tmp_path, page(body, head))
    assert [u.url for u in units] == [f"{parent.url}#unit=qa-1", f"{parent.url}#unit=qa-2"]
    first, second = units
    assert first.title == "Can I take my bicycle?" and first.metadata["answer"] == "Yes, for a fee of 2 & 50."
    assert first.text == "Can I take my bicycle?\n\nYes, for a fee of 2 & 50."
    assert first.metadata["question"] == first.title and first.metadata["faq"] == "json-ld"
    unit = first.metadata["unit"]
    assert unit["kind"] == "qa" and unit["position"] == 1 and unit["parent"] == parent.url
    start, end = unit["span"]  # the page shows this pair: found in its main content
    assert parent.text[start:end] == "Can I take my bicycle?\n\nYes, for a fee of 2 & 50."
    assert second.metadata["unit"]["span"] is None  # only in the JSON-LD
    assert second.lang == "en" and second.raw == second.text.encode()
    assert ctx.stats["units/faq/skipped/malformed"] == 2
    assert ctx.stats["units/faq/source/json-ld"] == 2 and ctx.stats["units/faq/pages"] == 1


DL_FAQ = (
    "<dl><dt>When does the first boat leave?</dt>"
    "<dd><p>At six in the morning.</p><p>Seven on Sundays.</p></dd>"
    "<dt>Where do I buy tickets?</dt><dd>At the kiosk beside the pier.</dd>"
    "<dt>Opening hours</dt><dd>Six to ten.</dd></dl>"
)


def test_dl_pairs_with_spans_in_the_main_content(tmp_path: Path) -> None:
    parent, units, ctx = run(tmp_path, page(DL_FAQ))
    assert [u.title for u in units] == ["When does the first boat leave?", "Where do I buy tickets?"]
    assert units[0].metadata["answer"] == "At six in the morning.\n\nSeven on Sundays."
    for unit in units:
        start, end = unit.metadata["unit"]["span"]
        piece = parent.text[start:end]
        assert piece.startswith(unit.metadata["question"]) and piece.endswith(unit.metadata["answer"])
        assert unit.metadata["faq"] == "dl"
    assert ctx.stats["units/faq/pairs"] == 2


def test_a_glossary_is_no_faq(tmp_path: Path) -> None:
    glossary = (
        "<dl><dt>Sound</dt><dd>A narrow stretch of sea between two islands.</dd>"
        "<dt>Pier</dt><dd>A platform on pillars out into the sea.</dd>"
        "<dt>Is a jetty a pier?</dt><dd>Near enough.</dd></dl>"
    )
    _, units, ctx = run(tmp_path, page(glossary))
    assert units == []
    assert ctx.stats["units/faq/skipped/glossary"] == 1


def test_question_headings(tmp_path: Path) -> None:
    body = (
        "<section><h2>Tickets</h2><p>Buy them at the kiosk.</p></section>"
        "<section><h2>How long is the crossing?</h2><p>Forty minutes.</p><h3>In winter</h3>"
        "<p>An hour, with the longer route.</p></section>"
        "<section><header><h2>Is there a cafe on board?</h2></header><p>Yes, on the upper deck.</p>"
        "</section><section><h2>Contact</h2><p>Write to the harbour office.</p></section>"
    )
    parent, units, ctx = run(tmp_path, page(body))
    assert [u.title for u in units] == ["How long is the crossing?", "Is there a cafe on board?"]
    assert units[0].metadata["answer"] == "Forty minutes.\n\nIn winter\n\nAn hour, with the longer route."
    assert units[1].metadata["answer"] == "Yes, on the upper deck."  # not the Contact section
    assert all(u.metadata["faq"] == "headings" for u in units)
    start, end = units[1].metadata["unit"]["span"]
    assert parent.text[start:end] == units[1].text
    assert ctx.stats["units/faq/source/headings"] == 2


def test_one_question_heading_is_no_faq(tmp_path: Path) -> None:
    body = (
        "<h2>Why we run ferries</h2><p>Because the islands need them.</p>"
        "<h2>What changed in 2024?</h2><p>The new boat arrived in March.</p>"
        "<h2>The new boat</h2><p>It carries two hundred people.</p>"
    )
    _, units, ctx = run(tmp_path, page(body))
    assert units == []
    assert ctx.stats["units/faq/skipped/one-question"] == 1


def test_details_accordion(tmp_path: Path) -> None:
    body = (
        "<details><summary>Can I bring a pram?</summary><p>Yes, there is room by the door.</p></details>"
        "<details><summary>Is the boat step-free?</summary><p>Yes, with a ramp at both piers.</p></details>"
        "<details><summary>More</summary><p>See the timetable.</p></details>"
    )
    _, units, _ = run(tmp_path, page(body))
    assert [u.metadata["question"] for u in units] == ["Can I bring a pram?", "Is the boat step-free?"]
    assert units[1].text == "Is the boat step-free?\n\nYes, with a ramp at both piers."
    assert {u.metadata["faq"] for u in units} == {"details"}


def test_pairs_outside_the_main_content_make_no_unit() -> None:
    """A FAQ the main content leaves out (a sidebar repeated on every page) makes none, and the
    step reads the page's own parse: the document's bytes are not read again."""
    markup = page(DL_FAQ)
    doc = Document(url="https://ferry.test/help", text="Ferry help\n\nOnly the article.")
    doc.page = read_page(markup, doc.url)
    ctx = RunContext()
    out = list(FaqUnits().run([doc], ctx))
    assert out == [doc]
    assert ctx.stats["units/faq/skipped/outside-content"] == 2
    doc.text = doc.page.text  # with the whole page as its text, the pairs are there
    out = list(FaqUnits(max_pairs=1).run([doc], ctx))
    assert [d.url for d in out] == [doc.url, "https://ferry.test/help#unit=qa-1"]
    assert ctx.stats["units/faq/capped"] == 1


def test_pages_without_a_faq_and_documents_without_a_page(tmp_path: Path) -> None:
    _, units, ctx = run(tmp_path, page("<p>Is this a question? It is only a sentence in a paragraph.</p>"))
    assert units == [] and ctx.stats["units/faq/pairs"] == 0
    broken_ld = '<script type="application/ld+json">{"@type": "FAQPage", "mainEntity": [</script>'
    _, units, _ = run(tmp_path, page("", broken_ld))
    assert units == []
    text = Document(url="file:///a.txt", text="What is it?\n\nA text file.")
    assert list(FaqUnits().run([text], RunContext())) == [text]


def test_questions() -> None:
    assert is_question("How much?") and is_question("Combien ça coûte ?")
    assert is_question("\u591a\u5c11\u94b1\uff1f")  # full-width question mark
    assert not is_question("Tickets") and not is_question("?") and not is_question("x" * 400 + "?")


def test_json_ld_answers_of_unclosed_markup_are_read_in_linear_time() -> None:
    """An answer's HTML of unclosed ``<script``, ``<p`` or ``<`` (a hostile page) must not make the
    tag patterns rescan the rest of it at each one: 64 kB of them took seconds, growing squared."""
    import time

    from trawl.units.faq import _plain

    t0 = time.perf_counter()
    for junk in ("<script>" * 40_000, "<p " * 100_000, "< " * 150_000, "<style><script>" * 20_000):
        _plain(junk + "the answer")
    assert time.perf_counter() - t0 < 2
    # what the patterns do, unchanged
    assert _plain("a<script>x</script>b<style>y</ScRiPt></style>c") == "a b c"
    assert _plain("<p>one</p><p>two<br/>three</p>") == "one\ntwo\nthree"
    assert _plain("a<script>never closed") == "anever closed"
    assert _plain("a <b>bold</b> &amp; more") == "a bold & more"


def test_json_ld_pairs_past_the_bound_are_not_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each JSON-LD pair is looked for in the page's text: a FAQPage of thirty thousand questions
    meant thirty thousand scans of it though only ``max_pairs`` become units."""
    from trawl.units import faq

    ld = {
        "@type": "FAQPage",
        "mainEntity": [
            {"@type": "Question", "name": f"Question {i}?", "acceptedAnswer": {"text": f"Answer {i}."}}
            for i in range(1000)
        ],
    }
    doc = Document(url="https://ferry.test/help", text="Ferry help\n\nOnly the article.")
    doc.page = read_page(page("", f'<script type="application/ld+json">{json.dumps(ld)}</script>'), doc.url)
    looked: list[str] = []
    real = faq._locate

    def locate(text: str, question: str, answer: list[str], cursor: int) -> tuple[int, list[tuple[int, int]]]:
        looked.append(question)
        return real(text, question, answer, cursor)

    monkeypatch.setattr(faq, "_locate", locate)
    ctx = RunContext()
    out = list(FaqUnits(max_pairs=10).run([doc], ctx))
    assert len(out) == 11 and ctx.stats["units/faq/capped"] == 1
    assert len(looked) <= 11
