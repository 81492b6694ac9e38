"""PDF reading order (:mod:`trawl.convert.pdflayout`): the geometry on its own, then real PDFs
written with reportlab (two columns drawn row by row and column by column), a tagged PDF written
by hand, and single-column PDFs that must come out as before."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.convert.corpus import build, paragraphs, token_f1
from tests.convert.pdfcorpus import HEADER, VOLUME, bigrams_in_order, columns_pdf, tagged_pdf
from trawl.convert.base import Converted, ConvertOptions
from trawl.convert.pdflayout import MAX_RECTS, Box, page_boxes, reading_order
from trawl.convert.registry import convert_bytes

CONTENT_ORDER = ConvertOptions(pdf_layout=False)
LINE = 9.4  # the height of a 10 pt line's text rectangle


def line(x0: float, x1: float, y: float, height: float = LINE) -> tuple[float, float, float, float]:
    return (x0, y, x1, y + height)


def order(boxes: list[Box], **kw: object) -> list[int] | None:
    plan = reading_order(boxes, **kw)  # type: ignore[arg-type]
    return None if plan is None else [i for row in plan.lines for i in row]


def test_rectangles_on_a_line_merge_until_a_gutter() -> None:
    boxes = page_boxes([line(56, 100, 700), line(103, 200, 700), line(230, 300, 700), line(56, 300, 687)])
    assert [(b.x0, b.x1, b.first, b.last) for b in boxes] == [
        (56, 200, 0, 1),
        (230, 300, 2, 2),
        (56, 300, 3, 3),
    ]


def test_two_columns_drawn_row_by_row_are_read_column_by_column() -> None:
    rects = [line(x0, x1, 700 - 13 * r) for r in range(12) for x0, x1 in ((56, 270), (310, 530))]
    plan = reading_order(page_boxes(rects))
    assert plan is not None and plan.columns == 2
    assert [i for row in plan.lines for i in row] == [*range(0, 24, 2), *range(1, 24, 2)]


def test_columns_drawn_one_after_the_other_keep_the_content_order() -> None:
    rects = [line(x0, x1, 700 - 13 * r) for x0, x1 in ((56, 270), (310, 530)) for r in range(12)]
    assert reading_order(page_boxes(rects)) is None


def test_a_single_column_keeps_the_content_order() -> None:
    widths = [530, 528, 525, 300, 530, 529, 410, 530, 531, 200, 530, 527]  # ragged, short paragraph ends
    assert reading_order(page_boxes([line(56, w, 700 - 13 * r) for r, w in enumerate(widths)])) is None


def test_a_table_of_short_cells_is_not_read_as_columns() -> None:
    rows = [line(x0, x0 + 50, 700 - 13 * r) for r in range(10) for x0 in (56, 300, 460)]
    assert reading_order(page_boxes(rows)) is None


def test_three_columns() -> None:
    cols = ((56, 210), (230, 384), (404, 558))
    rects = [line(x0, x1, 700 - 13 * r) for r in range(8) for x0, x1 in cols]
    plan = reading_order(page_boxes(rects))
    assert plan is not None and plan.columns == 3
    assert [i for row in plan.lines for i in row] == [*range(0, 24, 3), *range(1, 24, 3), *range(2, 24, 3)]


def test_a_title_above_and_a_right_aligned_header_stay_out_of_the_columns() -> None:
    head = [line(56, 200, 800, 7), line(480, 530, 800, 7)]  # a running header: title left, volume right
    title = [line(150, 440, 740, 14)]
    body = [line(x0, x1, 700 - 13 * r) for r in range(12) for x0, x1 in ((56, 270), (310, 530))]
    folio = [line(280, 310, 36, 7)]
    got = order(page_boxes([*head, *title, *body, *folio]))
    assert got == [0, 1, 2, *range(3, 27, 2), *range(4, 27, 2), 27]


def test_footnotes_at_the_foot_of_a_column_go_to_the_end_of_the_page() -> None:
    rows = [line(x0, x1, 700 - 13 * r) for r in range(14) for x0, x1 in ((56, 270), (310, 530))]
    notes = [line(56, 268, 150 - 8.5 * n, 6.5) for n in range(2)]  # 7 pt, below the left column
    boxes = page_boxes([*rows, *notes])
    got = order(boxes, size_of=lambda b: b.height)
    assert got == [*range(0, 28, 2), *range(1, 28, 2), 28, 29]
    plan = reading_order(boxes, size_of=lambda b: b.height)
    assert plan is not None and plan.footnotes == 2
    assert order(boxes) == [*range(0, 28, 2), 28, 29, *range(1, 28, 2)]  # without sizes: left column's end


def _converted(data: bytes, options: ConvertOptions | None = None) -> Converted:
    conversion = convert_bytes(data, filename="paper.pdf", options=options or ConvertOptions())
    assert conversion.converted is not None, conversion.message
    return conversion.converted


@pytest.fixture
def writers() -> None:
    pytest.importorskip("reportlab")
    pytest.importorskip("pypdfium2")


@pytest.mark.usefixtures("writers")
def test_a_paper_drawn_row_by_row_reads_column_by_column() -> None:
    s = columns_pdf(3, 30, order="rows")
    conv = _converted(s.data)
    assert bigrams_in_order(s.text, conv.text) >= 0.999
    assert token_f1(s.text, conv.text) >= 0.99
    before = _converted(s.data, CONTENT_ORDER)  # PDFium's order: the columns interleaved
    assert bigrams_in_order(s.text, before.text) < 0.95
    pages = s.extra["pages"]
    assert conv.counts["pdf/pages-reordered"] == pages and conv.counts["pdf/footnotes-moved"] >= pages
    assert HEADER not in conv.text and VOLUME not in conv.text and "Page 1 of" not in conv.text
    assert conv.counts["pdf/running-lines-dropped"] >= 2 * pages


@pytest.mark.usefixtures("writers")
@pytest.mark.parametrize("order", ["rows", "columns"])
def test_columns_whose_lines_are_not_level_with_each_other(order: str) -> None:
    s = columns_pdf(4, 50, order=order, shift=6.5)  # the right column half a line lower: bands chain
    conv = _converted(s.data)
    assert bigrams_in_order(s.text, conv.text) >= 0.999
    assert conv.counts["pdf/pages-reordered"] >= s.extra["pages"] - 1


@pytest.mark.usefixtures("writers")
def test_a_paper_drawn_column_by_column_gets_its_footnotes_at_the_page_end() -> None:
    s = columns_pdf(4, 30, order="columns")
    conv = _converted(s.data)
    assert bigrams_in_order(s.text, conv.text) >= 0.999
    assert bigrams_in_order(s.text, conv.text) > bigrams_in_order(
        s.text, _converted(s.data, CONTENT_ORDER).text
    )
    first = next(seg for seg in conv.segments if seg.kind == "page" and seg.position == 1)
    assert conv.text[first.start : first.end].split("\n")[-2].startswith("1 ")  # the note closes its page


@pytest.mark.usefixtures("writers")
def test_single_column_pdfs_come_out_as_before() -> None:
    for seed in (7, 8):
        s = build("pdf", seed=seed, size=70)
        conv = _converted(s.data)
        assert conv.text == _converted(s.data, CONTENT_ORDER).text
        assert "pdf/pages-reordered" not in conv.counts


@pytest.mark.usefixtures("writers")
def test_a_tagged_pdf_is_read_in_its_structure_trees_order() -> None:
    s = tagged_pdf(2, 14, structure="reversed")  # the tree says: last paragraph first
    conv = _converted(s.data)
    assert bigrams_in_order(s.text, conv.text) == 1.0
    assert conv.text.split("\n")[0] == s.text.split("\n")[0]
    geometric = tagged_pdf(2, 14, structure="columns").text  # what the layout alone would read
    assert bigrams_in_order(geometric, conv.text) < 0.99
    pages = s.extra["pages"]
    assert conv.counts["pdf/pages-tagged-order"] == pages
    assert conv.counts["pdf/artifacts-dropped"] == 2 * pages  # the running header and the page number
    assert HEADER not in conv.text and "Page 1" not in conv.text


def _many_runs(runs: int) -> bytes:
    """One page of two columns drawn row by row, one three-letter word per text object (160 pt
    columns, 40 pt apart)."""
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=True)
    c.setFont("Helvetica", 4)
    step = c.stringWidth("abc ", "Helvetica", 4)
    for i in range(runs):  # 20 words a line, a left-column line then a right-column one
        c.drawString(40 + 200 * (i % 2) + (i // 2 % 20) * step, 800 - (i // 40) * 5, "abc")
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.usefixtures("writers")
def test_a_page_of_too_many_text_runs_keeps_its_content_order() -> None:
    assert _converted(_many_runs(MAX_RECTS - 1000)).counts["pdf/pages-reordered"] == 1
    data = _many_runs(MAX_RECTS + 1)
    conv = _converted(data)
    assert "pdf/pages-reordered" not in conv.counts
    assert conv.text == _converted(data, CONTENT_ORDER).text


@pytest.mark.slow
@pytest.mark.usefixtures("writers")
@pytest.mark.parametrize("tagged", [False, True])
def test_a_two_column_document_exported_by_libreoffice(tmp_path: Path, tagged: bool) -> None:
    """A real producer's PDF: a two-column DOCX with a running header, exported by LibreOffice
    (tagged: the header an ``/Artifact``), reads in order without its header."""
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    docx = pytest.importorskip("docx")
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    doc = docx.Document()
    section = doc.sections[0]
    section.header.paragraphs[0].text = HEADER
    cols = section._sectPr.xpath("./w:cols")
    columns = cols[0] if cols else OxmlElement("w:cols")
    columns.set(qn("w:num"), "2")
    if not cols:
        section._sectPr.append(columns)
    body = paragraphs(7, 40, words=40)
    for para in body:
        doc.add_paragraph(para)
    doc.save(tmp_path / "paper.docx")
    export = 'pdf:writer_pdf_Export:{"UseTaggedPDF":{"type":"boolean","value":"true"}}' if tagged else "pdf"
    subprocess.run(
        [soffice, f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}", "--headless", "--convert-to",
         export, "--outdir", str(tmp_path), str(tmp_path / "paper.docx")],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    conv = _converted((tmp_path / "paper.pdf").read_bytes())
    assert bigrams_in_order("\n".join(body), conv.text) >= 0.999
    assert HEADER not in conv.text
    if tagged:
        assert conv.counts["pdf/artifacts-dropped"] >= conv.metadata["pages"]


@pytest.mark.usefixtures("writers")
def test_a_word_hyphenated_at_a_columns_line_end_is_joined_when_reordered() -> None:
    """PDFium marks a line-end hyphen it judged hyphenation (U+FFFE) and, in content order, runs
    the next line on; rebuilt in reading order the marker ends a line, and the word's halves must
    still be joined (``me-`` / ``tres`` is ``metres``, not ``me`` and ``tres``)."""
    import io

    from reportlab.pdfgen import canvas

    left = [f"the pilots read the long report number {i} before the tide" for i in range(8)]
    right = [f"vessels longer than forty metres pay the berth fee {i} again" for i in range(8)]
    right[3] = "vessels longer than forty me-"
    right[4] = "tres pay the berth fee again"
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, invariant=True)
    pdf.setFont("Helvetica", 9)
    for row, (a, b) in enumerate(zip(left, right, strict=True)):  # row by row: PDFium interleaves
        pdf.drawString(56, 760 - 12 * row, a)
        pdf.drawString(310, 760 - 12 * row, b)
    pdf.showPage()
    pdf.save()
    conv = _converted(buf.getvalue())
    assert conv.counts.get("pdf/pages-reordered") == 1
    lines = conv.text.split("\n")
    assert lines[:8] == left
    assert "vessels longer than forty metres pay the berth fee again" in lines, lines[8:]


def test_a_table_in_a_single_column_keeps_its_rows() -> None:
    """A single-column page with a table of three columns of like cells is no page of text
    columns: its rows, and the line after it, stay in content order. The text rectangles of
    ``structured("docx")`` exported to PDF by LibreOffice 7 (paragraphs, a bulleted list, the
    3 x 3 table: cells of 60-85 pt with 65 pt of white between them, then a short paragraph)."""
    rects = [
        (91.4, 680.1, 243.7, 693.6), (90.7, 664.7, 519.2, 675.5), (90.5, 650.0, 139.1, 660.5),
        (91.0, 625.6, 212.5, 635.7), (90.7, 607.9, 473.8, 618.7), (90.5, 595.5, 164.4, 603.7),
        (90.0, 568.5, 497.2, 579.3), (90.7, 543.8, 484.6, 554.6), (90.7, 531.4, 187.1, 539.0),
        (91.0, 502.1, 231.7, 514.8), (90.7, 487.0, 496.6, 497.8), (90.3, 474.6, 153.2, 483.1),
        (90.7, 447.6, 468.8, 458.4), (90.5, 432.9, 187.1, 443.7), (90.1, 412.6, 93.8, 416.3),
        (108.7, 408.2, 225.9, 419.0), (91.4, 385.8, 99.6, 394.1), (109.0, 383.6, 238.3, 394.3),
        (90.1, 363.2, 93.8, 366.9), (108.7, 358.9, 219.7, 369.6), (90.8, 336.4, 99.6, 344.7),
        (109.0, 334.1, 217.3, 344.9), (90.1, 313.8, 93.8, 317.5), (108.7, 309.5, 211.3, 320.2),
        (90.9, 287.0, 99.6, 295.3), (109.0, 284.8, 227.3, 295.5), (90.7, 262.3, 168.3, 270.8),
        (234.7, 260.0, 312.6, 270.8), (378.5, 262.3, 462.3, 270.8), (90.7, 237.6, 161.7, 246.1),
        (234.1, 237.6, 307.2, 246.1), (378.6, 235.3, 442.2, 246.1), (90.0, 213.0, 165.7, 221.5),
        (234.4, 210.8, 298.3, 221.5), (378.1, 213.0, 451.7, 221.5), (90.7, 188.3, 143.4, 196.8),
        (143.9, 186.1, 200.2, 196.8),
    ]  # fmt: skip
    assert reading_order(page_boxes(rects)) is None
