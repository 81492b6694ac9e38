"""OCR (:mod:`trawl.convert.ocr`): scanned PDFs and images read by the real Tesseract, the language
chosen from the text, the page budget and the time cap, and a missing Tesseract as a counted skip.

Scans are made the way a scanner makes them: a known-text PDF (reportlab) rendered to images by
PDFium and wrapped back into a PDF of images by Pillow, so the text layer is gone.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.convert.corpus import build, token_f1
from trawl.cli.main import main
from trawl.config import load_config
from trawl.convert import ocr
from trawl.convert.base import ConvertOptions
from trawl.convert.guard import Guard
from trawl.convert.ocr import installed_languages, ocr_available, parse_tsv, tesseract_code
from trawl.convert.registry import FormatConverter, convert_bytes
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.jobs.steps import convert_options, decode_steps
from trawl.pipeline.base import RunContext

pytest.importorskip("PIL")
pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

needs_tesseract = pytest.mark.skipif(
    not ocr_available(), reason="tesseract is not installed (apt install tesseract-ocr tesseract-ocr-eng)"
)

AUTO = ConvertOptions(ocr="auto")
GERMAN = [
    "Der Hafen wurde im vergangenen Jahr erweitert und vertieft.",
    "Die Schiffe kamen trotz der Stürme pünktlich an ihre Liegeplätze.",
    "Für das nächste Jahr plant die Behörde eine größere Schleuse.",
    "Über die Kosten entscheidet der Ausschuss im Frühjahr.",
]


@pytest.fixture(scope="module")
def guard() -> Iterator[Guard]:
    with Guard(timeout=30) as shared:
        yield shared


def _text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose pages hold these lines as text (Helvetica 12)."""
    from reportlab.lib.pagesizes import A5
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A5)
    for lines in pages:
        c.setFont("Helvetica", 12)
        y = 540
        for line in lines:
            c.drawString(36, y, line)
            y -= 20
        c.showPage()
    c.save()
    return buf.getvalue()


def _images(pdf: bytes, dpi: int = 200) -> list[object]:
    import pypdfium2 as pdfium
    from PIL import Image

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for index in range(len(doc)):
            grey = doc[index].render(scale=dpi / 72, grayscale=True).to_pil()
            out.append(Image.frombytes("L", grey.size, grey.tobytes()))  # a plain image, no PDFium state
        return out
    finally:
        doc.close()


def _scan(pdf: bytes, *, keep_text: int | None = None) -> bytes:
    """The PDF as a scanner would make it: every page an image (page ``keep_text``, from 0,
    keeps its text layer instead)."""
    from pypdf import PdfReader, PdfWriter

    images = _images(pdf)
    buf = io.BytesIO()
    images[0].save(buf, "PDF", save_all=True, append_images=images[1:], resolution=200)  # type: ignore[attr-defined]
    if keep_text is None:
        return buf.getvalue()
    scanned, original = PdfReader(io.BytesIO(buf.getvalue())), PdfReader(io.BytesIO(pdf))
    writer = PdfWriter()
    for index, page in enumerate(scanned.pages):
        writer.add_page(original.pages[index] if index == keep_text else page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _png(pdf: bytes) -> bytes:
    buf = io.BytesIO()
    _images(pdf)[0].save(buf, "PNG")  # type: ignore[attr-defined]
    return buf.getvalue()


def _converted(
    options: ConvertOptions, files: dict[str, tuple[bytes, str]]
) -> tuple[list[Document], RunContext]:
    """The documents after the pipeline's sniffing, decoding and (unguarded) format converter."""
    ctx = RunContext()
    stream: Iterator[Document] = iter(
        [
            Document(url=f"file:///{name}", raw=raw, http_headers=[("Content-Type", kind)])
            for name, (raw, kind) in files.items()
        ]
    )
    for step in [*decode_steps(), FormatConverter(options=options, isolate=False)]:
        stream = step.run(stream, ctx)
    return list(stream), ctx


def test_parse_tsv_groups_words_into_lines_and_averages_confidence() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t",
        "5\t1\t1\t1\t1\t1\t0\t0\t9\t9\t90\tHarbour",
        "5\t1\t1\t1\t1\t2\t0\t0\t9\t9\t80\tex-",
        "5\t1\t1\t1\t2\t1\t0\t0\t9\t9\t70\tpansion",
        "5\t1\t1\t1\t2\t2\t0\t0\t9\t9\t-1\t ",
        "5\t1\t2\t1\t1\t1\t0\t0\t9\t9\t60\tplans",
    ]
    text, confidence, words = parse_tsv("\n".join([header, *rows]))
    assert text == "Harbour expansion\nplans"  # a line-end hyphen joined, as in a PDF text layer
    assert confidence == pytest.approx(75.0) and words == 4
    assert parse_tsv(header) == ("", None, 0)


def test_tesseract_codes_follow_the_packs_names() -> None:
    assert [tesseract_code(label) for label in ("en", "de", "fr", "zh", "nb", "sr")] == [
        "eng", "deu", "fra", "chi_sim", "nor", "srp",
    ]  # fmt: skip


def test_ocr_options_are_checked_and_reach_the_converter() -> None:
    config = load_config(
        overrides=["convert.ocr=always", "convert.ocr_max_pages=3", "convert.ocr_languages=deu"]
    )
    options = convert_options(config)
    assert (options.ocr, options.ocr_max_pages, options.ocr_languages) == ("always", 3, ("deu",))
    assert convert_options(load_config()).ocr == "auto"
    assert ConvertOptions().ocr == "never"  # the library's default: no subprocess unless asked
    with pytest.raises(ConfigError, match=r"convert\.ocr = 'sometimes'"):
        load_config(overrides=["convert.ocr=sometimes"])
    with pytest.raises(ConfigError, match="ocr_max_pages"):
        load_config(overrides=["convert.ocr_max_pages=0"])


@needs_tesseract
def test_a_scanned_pdf_is_read_by_ocr(guard: Guard) -> None:
    sample = build("pdf", seed=3, size=26)  # two pages, a running header and page numbers
    scan = _scan(sample.data)
    never = convert_bytes(scan, options=ConvertOptions(ocr="never"), guard=guard).converted
    assert never is not None and never.needs_ocr and never.text == "" and "ocr" not in never.metadata
    conversion = convert_bytes(scan, options=AUTO, guard=guard)
    out = conversion.converted
    assert out is not None, conversion.message
    assert not out.needs_ocr and token_f1(sample.text, out.text) > 0.97
    assert "Northbridge Harbour Board" not in out.text  # the running header dropped as from a text layer
    record = out.metadata["ocr"]
    assert record["pages"] == 2 and record["page_numbers"] == [1, 2] and record["lang"] == "eng"
    assert len(record["confidence"]) == 2 and all(c > 80 for c in record["confidence"])
    assert record["seconds"] > 0 and out.metadata["converter"] == "tesseract"
    assert [s.position for s in out.segments] == [1, 2] and out.segments[1].end == len(out.text)
    assert out.counts["ocr/pages"] == 2 and out.counts["pdf/scanned-pages"] == 2


@needs_tesseract
def test_a_png_is_read_and_ocr_never_skips_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ["Quarterly freight tonnage rose sharply.", "The new pontoon opens in spring."]
    (tmp_path / "notice.png").write_bytes(_png(_text_pdf([lines])))
    assert main(["convert", "--json", "--no-isolate", str(tmp_path / "notice.png")]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["format"] == "image" and not row["skipped"] and not row["dropped"]
    assert token_f1("\n".join(lines), row["text"]) == 1.0
    assert row["metadata"]["converter"] == "tesseract" and row["metadata"]["ocr"]["pages"] == 1
    assert row["title"] == lines[0]
    assert main(["convert", "--json", "--no-isolate", "--ocr", "never", str(tmp_path / "notice.png")]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["skipped"] and row["text"] == "" and "ocr" not in row["metadata"]


@needs_tesseract
def test_text_on_a_transparent_background_is_read(guard: Guard) -> None:
    from PIL import Image

    (page,) = _images(_text_pdf([["Berth four closes for repairs."]]))
    ink = Image.eval(page, lambda v: 255 - v)  # type: ignore[arg-type]  # dark text as opacity
    image = Image.new("LA", ink.size, 0)
    image.putalpha(ink)
    buf = io.BytesIO()
    image.save(buf, "PNG")
    out = convert_bytes(buf.getvalue(), options=AUTO, guard=guard).converted
    assert out is not None and out.text == "Berth four closes for repairs."


@needs_tesseract
def test_a_multipage_tiff_is_one_page_per_frame(guard: Guard) -> None:
    pages = [["First page of the harbour survey."], ["Second page about the breakwater."]]
    images = _images(_text_pdf(pages))
    buf = io.BytesIO()
    images[0].save(buf, "TIFF", compression="tiff_lzw", save_all=True, append_images=images[1:])  # type: ignore[attr-defined]
    conversion = convert_bytes(buf.getvalue(), options=AUTO, guard=guard)
    assert conversion.identity.mime == "image/tiff"
    out = conversion.converted
    assert out is not None, conversion.message
    assert out.text == "First page of the harbour survey.\nSecond page about the breakwater."
    assert out.metadata["pages"] == 2 and [s.position for s in out.segments] == [1, 2]
    capped = convert_bytes(buf.getvalue(), options=dataclasses.replace(AUTO, ocr_max_pages=1), guard=guard)
    assert capped.converted is not None and capped.converted.text == "First page of the harbour survey."
    assert capped.converted.counts["ocr/pages-capped"] == 1


@needs_tesseract
@pytest.mark.skipif("deu" not in installed_languages(), reason="no German pack (tesseract-ocr-deu)")
def test_the_language_is_chosen_from_the_first_page_with_text(guard: Guard) -> None:
    cover = ["Port Authority Report 2025"]  # English, and too short to decide
    conversion = convert_bytes(_scan(_text_pdf([cover, GERMAN])), options=AUTO, guard=guard)
    out = conversion.converted
    assert out is not None, conversion.message
    assert out.metadata["ocr"]["lang"] == "deu"  # the cover decided nothing
    for word in ("Stürme", "pünktlich", "größere", "Über", "Frühjahr"):  # what eng cannot read
        assert word in out.text[out.segments[1].start :]


@needs_tesseract
@pytest.mark.skipif("deu" not in installed_languages(), reason="no German pack (tesseract-ocr-deu)")
def test_a_partial_text_layer_chooses_the_language_and_is_kept(guard: Guard) -> None:
    first = [  # enough text for the identifier, and none of the scanned page's lines (running lines)
        "Der Jahresbericht der Hafenbehörde beschreibt die Arbeiten des vergangenen Jahres.",
        "Im Herbst wurden die Kaimauern ausgebessert und neue Poller gesetzt.",
        "Die Zahl der Anläufe stieg gegenüber dem Vorjahr um ein Zehntel.",
        "Der Fährverkehr zur Insel blieb auch im Winter ohne Unterbrechung.",
    ]
    pdf = _text_pdf([first, GERMAN])
    conversion = convert_bytes(_scan(pdf, keep_text=0), options=AUTO, guard=guard)
    out = conversion.converted
    assert out is not None, conversion.message
    assert out.metadata["ocr"]["lang"] == "deu" and out.metadata["ocr"]["page_numbers"] == [2]
    assert out.metadata["converter"] == "pypdfium2+tesseract"
    assert out.text.startswith(first[0]) and "Frühjahr" in out.text[out.segments[1].start :]


@needs_tesseract
def test_always_reads_every_page_and_the_budget_caps_it(guard: Guard) -> None:
    pdf = _text_pdf([["A page with a text layer."], ["Another page with a text layer."]])
    options = ConvertOptions(ocr="always", ocr_max_pages=1)
    out = convert_bytes(pdf, options=options, guard=guard).converted
    assert out is not None and out.metadata["ocr"]["page_numbers"] == [1]
    assert out.counts["ocr/pages-capped"] == 1
    assert out.text == "A page with a text layer.\nAnother page with a text layer."
    assert out.metadata["converter"] == "pypdfium2+tesseract"


@needs_tesseract
def test_the_time_cap_per_page_keeps_what_the_text_layer_had(guard: Guard) -> None:
    scan = _scan(build("pdf", seed=3, size=4).data)
    options = dataclasses.replace(AUTO, ocr_timeout=0.001)
    conversion = convert_bytes(scan, options=options, guard=guard)
    out = conversion.converted
    assert out is not None and out.needs_ocr and out.text == ""
    assert out.counts["ocr/failed/ocr-timeout"] == 1 and "longer than" in out.warnings[0]
    image = convert_bytes(_png(_text_pdf([["Some words."]])), options=options, guard=guard)
    assert image.skipped and image.skip_reason == "ocr-timeout" and image.converted is None


@needs_tesseract
def test_broken_and_tiny_images_are_kept_as_counted_skips(tmp_path: Path) -> None:
    from PIL import Image

    tiny = io.BytesIO()
    Image.new("L", (4, 4), 255).save(tiny, "PNG")
    docs, ctx = _converted(
        AUTO,
        {
            "broken.png": (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "image/png"),
            "tiny.png": (tiny.getvalue(), "image/png"),
        },
    )
    assert len(docs) == 2 and all(doc.text == "" for doc in docs)
    assert ctx.stats["convert/skipped/image-unreadable"] == 1
    assert ctx.stats["convert/skipped/image-too-small"] == 1
    assert "not a readable image" in docs[0].errors[0]


def test_without_tesseract_ocr_is_a_counted_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")  # the machine as it is without tesseract-ocr
    ocr._tesseract.cache_clear()
    ocr.installed_languages.cache_clear()
    try:
        files = {
            "notice.png": (_png(_text_pdf([["Words."]])), "image/png"),
            "scan.pdf": (_scan(_text_pdf([["Words."]])), "application/pdf"),
        }
        (png, scan), ctx = _converted(AUTO, files)
        assert png.text == "" and scan.text == "" and scan.metadata["needs_ocr"]
        assert ctx.stats["convert/skipped/ocr-unavailable"] == 2
        assert "tesseract" in png.errors[0] and "apt install" in png.errors[0]
    finally:
        ocr._tesseract.cache_clear()
        ocr.installed_languages.cache_clear()


@needs_tesseract
def test_ingest_ocr_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "notice.png").write_bytes(_png(_text_pdf([["The ferry timetable changes in May."]])))
    counters = {}
    for mode in ("never", "auto"):
        out = tmp_path / f"c-{mode}"
        assert main(["ingest", str(folder), "-o", str(out), "--no-progress", "--json", "--ocr", mode]) == 0
        counters[mode] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["counters"]
    assert (
        counters["never"].get("convert/skipped/image/png") == 1 and "convert/image" not in counters["never"]
    )
    assert counters["auto"].get("convert/image") == 1 and counters["auto"].get("ocr/pages") == 1
    url = (folder / "notice.png").resolve().as_uri()
    assert main(["get", str(tmp_path / "c-auto"), url, "--text"]) == 0
    assert "ferry timetable changes in May" in capsys.readouterr().out
