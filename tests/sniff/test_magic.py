"""Type sniffing by magic number and markup, and reconciling it with the declared type."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from trawl.convert.sniff import TypeSniffer
from trawl.document import Document
from trawl.pipeline.base import RunContext
from trawl.sniff.magic import effective_type, is_html, is_plain_text, is_textual, sniff_type, types_disagree

OOXML = "application/vnd.openxmlformats-officedocument"
ODF = "application/vnd.oasis.opendocument"
XHTML = "application/xhtml+xml"


def zipped(*entries: tuple[str, bytes], stored_first: bool = False) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i, (name, data) in enumerate(entries):
            method = zipfile.ZIP_STORED if stored_first and i == 0 else zipfile.ZIP_DEFLATED
            z.writestr(name, data, compress_type=method)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"%PDF-1.7\n%\xe2\xe3", "application/pdf"),
        (b"\n\n  %PDF-1.4", "application/pdf"),
        (b"\x1f\x8b\x08\x00rest", "application/gzip"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF89a\x01\x00", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"II*\x00\x08\x00\x00\x00", "image/tiff"),  # a scanner's TIFF, little- and big-endian
        (b"MM\x00*\x00\x00\x00\x08", "image/tiff"),
        (b"{\\rtf1\\ansi hello}", "application/rtf"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", "application/x-ole-storage"),
        (b"PK\x03\x04" + b"\x00" * 26 + b"data.csv", "application/zip"),
        (b"<!DOCTYPE html><html>", "text/html"),
        (b"\r\n  <html lang=en>", "text/html"),
        (b"<!-- generated --><div>", "text/html"),
        (b"<p>Hello</p>", "text/html"),
        (b"Some text first\n<html><body>x", "text/html"),
        (b'<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN">', XHTML),
        (b'<?xml version="1.0"?><rss version="2.0"><channel>', "application/xml"),
        (b'<svg xmlns="http://www.w3.org/2000/svg">', "image/svg+xml"),
        (b"\xef\xbb\xbf<!doctype html>", "text/html"),
        (b"\xff\xfe" + "<html><body>".encode("utf-16-le"), "text/html"),
        (b"\xfe\xff" + "plain words".encode("utf-16-be"), "text/plain"),
        ("Just words, caf\u00e9.\r\n".encode("cp1252"), "text/plain"),
        (b"\x00\x01\x02binary\x03", "application/octet-stream"),
        (b"", "application/x-empty"),
    ],
)
def test_sniff_type(head: bytes, expected: str) -> None:
    assert sniff_type(head) == expected


def test_office_formats_inside_zip() -> None:
    odt = zipped(
        ("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", b"<x/>"), stored_first=True
    )
    assert sniff_type(odt[:1445]) == "application/vnd.oasis.opendocument.text"
    docx = zipped(("[Content_Types].xml", b"<Types/>"), ("word/document.xml", b"<w:document/>"))
    assert sniff_type(docx[:1445]) == f"{OOXML}.wordprocessingml.document"
    assert sniff_type(zipped(("a.txt", b"hello"))) == "application/zip"


@pytest.mark.parametrize(
    ("declared", "sniffed", "disagree"),
    [
        ("text/html", "application/pdf", True),
        ("text/html", "text/plain", False),
        ("application/xhtml+xml", "text/html", False),
        ("text/plain", "application/xml", False),
        ("text/html", "application/octet-stream", True),
        ("video/mp4", "application/octet-stream", False),  # a format trawl does not sniff
        ("image/png", "text/html", True),  # an error page served as an image
        ("image/jpeg", "image/png", False),
        (f"{OOXML}.wordprocessingml.document", "application/zip", False),
        ("application/msword", "application/x-ole-storage", False),
        ("application/octet-stream", "application/pdf", False),  # nothing was really declared
        (None, "application/pdf", False),
        ("text/html", "application/x-empty", False),
    ],
)
def test_types_disagree(declared: str | None, sniffed: str, disagree: bool) -> None:
    assert types_disagree(declared, sniffed) is disagree


def doc(declared: str | None, sniffed: str | None) -> Document:
    d = Document(url="http://x/", declared_type=declared)
    d.sniffed_type = sniffed
    return d


@pytest.mark.parametrize(
    ("declared", "sniffed", "effective"),
    [
        ("text/html", "application/pdf", "application/pdf"),  # a signature always wins
        ("text/plain", "text/html", "text/html"),  # markup in the bytes wins
        ("application/xhtml+xml", "application/xml", "application/xhtml+xml"),
        ("text/html", "text/plain", "text/html"),  # an HTML fragment without a leading tag
        ("text/css", "text/plain", "text/css"),
        ("application/x-unheard-of", "text/plain", "text/plain"),
        ("application/octet-stream", "text/plain", "text/plain"),
        ("text/html", "application/octet-stream", "text/html"),  # trust the server on odd bytes
        (f"{ODF}.text", "application/zip", f"{ODF}.text"),
        ("text/html", "application/x-empty", "text/html"),
        (None, "application/x-empty", "application/x-empty"),
        ("text/html; charset=utf-8", None, "text/html"),
        (None, None, None),
    ],
)
def test_effective_type(declared: str | None, sniffed: str | None, effective: str | None) -> None:
    assert effective_type(doc(declared, sniffed)) == effective


def test_type_predicates() -> None:
    assert is_html("text/html") and is_html("application/xhtml+xml") and not is_html("text/plain")
    assert is_plain_text("text/plain") and is_plain_text("application/json") and is_plain_text(None)
    assert not is_plain_text("application/xml") and not is_plain_text("text/html")
    assert is_textual("application/rss+xml") and not is_textual("application/pdf")
    assert not is_textual("application/octet-stream")


def test_type_sniffer_step_reads_through_content_encoding() -> None:
    html = Document(
        url="http://x/",
        raw=gzip.compress(b"<!doctype html><title>t</title>" + b"x" * 100_000),
        http_headers=[("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")],
    )
    lying = Document(url="http://x/a", raw=b"%PDF-1.5 ...", http_headers=[("Content-Type", "text/html")])
    ctx = RunContext()
    html, lying = TypeSniffer().run([html, lying], ctx)
    assert (html.sniffed_type, html.declared_type, html.type_mismatch) == ("text/html", "text/html", False)
    assert (lying.sniffed_type, lying.type_mismatch) == ("application/pdf", True)
    assert ctx.stats["format/sniffed/text/html"] == 1
    assert ctx.stats["format/sniffed/application/pdf"] == 1
    assert ctx.stats["format/mismatch"] == 1


def test_type_sniffer_keeps_a_type_declared_by_the_source() -> None:
    d = Document(url="file:///a.md", raw=b"# Title\n", declared_type="text/markdown")
    TypeSniffer().process(d)
    assert d.declared_type == "text/markdown" and d.sniffed_type == "text/plain" and not d.type_mismatch


def test_a_gzipped_file_is_judged_by_what_is_inside(tmp_path: Path) -> None:
    """A desktop crawl's page.html.gz: the gzip is a content coding, the inside is HTML."""
    from trawl.acquire.localdir import LocalDirSource
    from trawl.jobs.steps import default_steps
    from trawl.pipeline import Pipeline

    (tmp_path / "page.html.gz").write_bytes(gzip.compress(b"<title>Packed</title><p>Inside a gzip.</p>"))
    (tmp_path / "fake.html.gz").write_bytes(b"<p>not gzip at all</p>")  # the name lies
    docs = {Path(d.source).name: d for d in Pipeline([LocalDirSource([tmp_path])], default_steps())}
    packed = docs["page.html.gz"]
    assert packed.declared_type == "application/gzip"  # raw is still the compressed file
    assert packed.sniffed_type == "text/html" and not packed.type_mismatch
    assert packed.title == "Packed" and "Inside a gzip." in packed.text
    fake = docs["fake.html.gz"]
    assert fake.sniffed_type == "text/html" and fake.type_mismatch  # declared gzip, is not
