"""Plain-text conversion, and the formats left for later converters."""

from __future__ import annotations

import pytest

from trawl.convert.text import TextConverter, normalize_text, text_title
from trawl.document import Document
from trawl.jobs.steps import default_steps
from trawl.pipeline.base import RunContext


def convert(doc: Document) -> tuple[Document, RunContext]:
    ctx = RunContext()
    stream = iter([doc])
    for step in default_steps():
        stream = step.run(stream, ctx)
    (out,) = stream
    return out, ctx


def test_normalize_text() -> None:
    assert normalize_text("a\r\nb\rc\nd\x00e") == "a\nb\nc\nde"
    assert normalize_text("unchanged\n") == "unchanged\n"


def test_title_is_the_first_non_empty_line_cut_at_200() -> None:
    assert text_title("\n   \n  Hello world  \nsecond") == "Hello world"
    assert text_title("x" * 500) == "x" * 200
    assert text_title("") == "" and text_title("\n\n \t\n") == ""


def test_plain_text_document() -> None:
    raw = "\r\n\r\n  Caf\u00e9 notes\r\nline two\x00\r\n".encode("cp1252")
    headers = [("Content-Type", "text/plain")]
    doc, ctx = convert(Document(url="http://x/notes.txt", raw=raw, http_headers=headers))
    assert doc.text == "\n\n  Caf\u00e9 notes\nline two\n"
    assert doc.title == "Caf\u00e9 notes"
    assert (doc.encoding, doc.encoding_source) == ("windows-1252", "detector")
    assert ctx.stats["convert/text"] == 1


@pytest.mark.parametrize(
    ("declared", "raw"),
    [
        ("text/css", b"body { color: red }\n"),
        ("application/json", b'{"a": 1}'),
        (None, b"no type declared, but the bytes are text"),
        ("application/octet-stream", b"mislabelled text"),
        ("text/markdown", b"# Heading\n\nBody"),
    ],
)
def test_other_textual_types_are_text(declared: str | None, raw: bytes) -> None:
    doc, ctx = convert(Document(url="http://x/f", raw=raw, declared_type=declared))
    assert doc.text == raw.decode() and doc.title
    assert ctx.stats["convert/text"] == 1


@pytest.mark.parametrize(
    ("declared", "raw", "kind"),
    [
        ("image/png", b"\x89PNG\r\n\x1a\n\x00\x00\x00", "image/png"),
        (None, b"\x00\x01\x02\x03binary", "application/octet-stream"),
    ],
)
def test_formats_without_a_converter_are_skipped_and_counted(
    declared: str | None, raw: bytes, kind: str
) -> None:
    doc, ctx = convert(Document(url="http://x/f", raw=raw, declared_type=declared))
    assert doc.text == "" and doc.title == ""
    assert ctx.stats[f"convert/skipped/{kind}"] == 1


@pytest.mark.parametrize(
    ("declared", "raw", "reason"),
    [
        ("application/pdf", b"%PDF-1.7\n...", "pdf-malformed"),
        ("text/html", b"%PDF-1.7\n...", "pdf-malformed"),  # the bytes, not the label, decide
        ("application/rss+xml", b'<?xml version="1.0"?><rss><channel>', "xml-malformed"),
    ],
)
def test_broken_files_of_other_formats_are_recorded_drops(
    declared: str | None, raw: bytes, reason: str
) -> None:
    ctx = RunContext()
    stream = iter([Document(url="http://x/f", raw=raw, declared_type=declared)])
    for step in default_steps():
        stream = step.run(stream, ctx)
    assert list(stream) == []
    assert ctx.stats[f"drop/convert/{reason}"] == 1
    assert ctx.audit.entries[0].reason == f"convert/{reason}"


def test_text_converter_alone_counts_what_it_leaves() -> None:
    ctx = RunContext()
    (_doc,) = TextConverter().run(
        [Document(url="http://x/f", raw=b"%PDF-1.7", declared_type="application/pdf")], ctx
    )
    assert ctx.stats["convert/skipped/application/pdf"] == 1


def test_html_is_left_to_the_html_converter() -> None:
    doc = Document(url="http://x/", raw=b"<p>hi", sniffed_type="text/html")
    TextConverter().process(doc)
    assert doc.text == "" and doc.encoding is None


def test_long_text_is_capped_and_counted() -> None:
    doc = Document(url="http://x/", raw=b"a" * 5000, declared_type="text/plain")
    ctx = RunContext()
    (doc,) = TextConverter(max_chars=1000).run([doc], ctx)
    assert len(doc.text) == 1000
    assert ctx.stats["text/capped"] == 1
