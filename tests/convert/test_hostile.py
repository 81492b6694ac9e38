"""Broken and hostile files: each is identified, bounded, and dropped or converted with a recorded
reason, within seconds, in the pipeline as in :func:`convert_bytes`."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.convert.corpus import build, empty_pages_pdf, scanned_pdf
from trawl.acquire.localdir import LocalDirSource
from trawl.convert.base import ConvertOptions
from trawl.convert.guard import Guard
from trawl.convert.registry import convert_bytes
from trawl.jobs.steps import default_steps
from trawl.pipeline import Pipeline
from trawl.pipeline.base import RunContext

BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b"]><rss><channel><title>&lol9;</title></channel></rss>"
)
EXTERNAL_ENTITY = (
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><feed '
    b'xmlns="http://www.w3.org/2005/Atom"><title>&e;</title></feed>'
)


@pytest.fixture(scope="module")
def guard() -> Iterator[Guard]:
    with Guard(timeout=20) as shared:
        yield shared


def docx_bytes() -> bytes:
    pytest.importorskip("docx")
    return build("docx", seed=3, size=4).data


def zip_bomb() -> bytes:
    """A DOCX whose document part is 16 MiB of zeros compressed to ~16 KB (1000:1)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", b"\0" * (16 * 1024 * 1024))
    return buf.getvalue()


def declared_huge() -> bytes:
    """A DOCX whose central directory says its document part is 4 GiB (the bytes are small)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", b"<w:document/>")
    data = bytearray(buf.getvalue())
    entry = data.rfind(b"PK\x01\x02")  # the last central directory entry: word/document.xml
    data[entry + 24 : entry + 28] = b"\xff\xff\xff\xfe"  # its uncompressed size
    return bytes(data)


def docx_with_xml_bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", BILLION_LAUGHS)
    return buf.getvalue()


def encrypted_pdf() -> bytes:
    pytest.importorskip("reportlab")
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, encrypt=StandardEncryption("secret", canPrint=0))
    c.drawString(72, 700, "Hidden words")
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize(
    ("make", "name", "reason"),
    [
        (lambda: docx_bytes()[:3000], "cut.docx", "zip-truncated"),
        (zip_bomb, "bomb.docx", "zip-bomb"),
        (declared_huge, "huge.docx", "zip-bomb"),
        (docx_with_xml_bomb, "laughs.docx", "xml-dtd"),
        (lambda: BILLION_LAUGHS, "laughs.rss", "xml-entities"),
        (lambda: EXTERNAL_ENTITY, "external.atom", "xml-external-entity"),
        (lambda: b"%PDF-1.4\n" + bytes(range(256)) * 40, "garbage.pdf", "pdf-malformed"),
        (encrypted_pdf, "locked.pdf", "pdf-encrypted"),
        (lambda: b"{\\rtf1 " + b"{" * 2000 + b"deep" + b"}" * 2000 + b"}", "deep.rtf", "rtf-too-deep"),
    ],
)
def test_hostile_files_are_recorded_drops(make: object, name: str, reason: str, guard: Guard) -> None:
    data = make()  # type: ignore[operator]
    t0 = time.perf_counter()
    conversion = convert_bytes(data, filename=name, guard=guard)
    assert conversion.dropped == reason, conversion.message
    assert conversion.message
    assert time.perf_counter() - t0 < 15


def test_ten_thousand_empty_pages_are_bounded() -> None:
    pytest.importorskip("pypdfium2")
    t0 = time.perf_counter()
    conversion = convert_bytes(empty_pages_pdf(10_000), options=ConvertOptions(max_pages=2000))
    assert time.perf_counter() - t0 < 10
    assert conversion.converted is not None
    assert conversion.converted.metadata["pages"] == 10_000
    assert conversion.converted.counts["pdf/pages-capped"] == 1
    assert conversion.converted.text == "" and not conversion.converted.needs_ocr


def test_a_scanned_pdf_needs_ocr() -> None:
    pytest.importorskip("PIL")
    pytest.importorskip("pypdfium2")
    conversion = convert_bytes(scanned_pdf())
    assert conversion.converted is not None and conversion.converted.needs_ocr


def test_a_truncated_pdf_is_converted_or_dropped_never_raised() -> None:
    pytest.importorskip("reportlab")
    data = build("pdf", seed=2, size=60).data
    conversion = convert_bytes(data[: len(data) // 2])
    assert conversion.dropped == "pdf-malformed" or conversion.converted is not None


def test_html_that_is_really_a_png() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    conversion = convert_bytes(png, declared="text/html", filename="index.html")
    identity = conversion.identity
    assert identity.format == "image" and identity.mime == "image/png"
    assert identity.declared_disagrees and identity.extension_disagrees and identity.disagree
    assert conversion.skipped and conversion.dropped is None


def test_a_docx_named_xlsx_disagrees() -> None:
    identity = convert_bytes(docx_bytes(), filename="figures.xlsx").identity
    assert identity.format == "docx" and identity.extension_disagrees


def test_the_ingest_pipeline_converts_and_drops_with_reasons(tmp_path: Path) -> None:
    pytest.importorskip("docx")
    for fmt in ("docx", "pdf", "xlsx", "odt", "rtf", "epub", "rss"):
        s = build(fmt, seed=5, size=6)
        (tmp_path / s.name).write_bytes(s.data)
    (tmp_path / "cut.docx").write_bytes(docx_bytes()[:3000])
    (tmp_path / "bomb.docx").write_bytes(zip_bomb())
    (tmp_path / "logo.html").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    ctx = RunContext()
    docs = {Path(d.source).name: d for d in Pipeline([LocalDirSource([tmp_path])], default_steps(), ctx)}
    names = (
        "report.docx",
        "review.pdf",
        "tonnage.xlsx",
        "minutes.odt",
        "review.rtf",
        "review.epub",
        "notices.rss",
    )
    for name in names:
        assert docs[name].text and docs[name].title, name
        assert docs[name].metadata["format"] == name.rsplit(".", 1)[1]
    assert docs["notices.rss"].links[0].text.startswith("Notice 0")
    assert "cut.docx" not in docs and "bomb.docx" not in docs
    assert ctx.stats["drop/convert/zip-truncated"] == 1 and ctx.stats["drop/convert/zip-bomb"] == 1
    reasons = {e.reason for e in ctx.audit.entries}
    assert {"convert/zip-truncated", "convert/zip-bomb"} <= reasons
    logo = docs["logo.html"]
    assert logo.sniffed_type == "image/png" and logo.type_mismatch and logo.text == ""
    assert ctx.stats["convert/skipped/image/png"] == 1
    assert ctx.stats["convert/docx"] == 1 and ctx.stats["convert/pdf"] == 1


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "pptx", "odt", "epub", "pdf", "rtf", "rss", "html"])
def test_damaged_files_never_raise(fmt: str, guard: Guard) -> None:
    """Bytes flipped and files cut at random places: a conversion or a reason, never an exception."""
    import random

    if fmt in ("docx", "xlsx", "pptx", "odt", "pdf"):
        pytest.importorskip(
            {"docx": "docx", "xlsx": "openpyxl", "pptx": "pptx", "odt": "odf", "pdf": "reportlab"}[fmt]
        )
    data = build(fmt, seed=11, size=5).data
    rng = random.Random(fmt)
    for _ in range(4):
        damaged = bytearray(data[: rng.randrange(len(data) // 2, len(data) + 1)])
        for _ in range(rng.randrange(1, 20)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        conversion = convert_bytes(bytes(damaged), filename=f"x.{fmt}", guard=guard)
        assert conversion.converted is not None or conversion.dropped or conversion.skipped
