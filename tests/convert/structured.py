"""Documents with known structure (headings, list items, table cells, links) and embedded objects
(images with alt text, charts, embedded workbooks, PDF attachments), written with the formats' own
libraries, for the Markdown and embedded-object tests and ``bench/markdown.py``."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field

from tests.convert.corpus import build, paragraphs

__all__ = [
    "Structured",
    "chart_pptx",
    "docx_with_objects",
    "odt_structured",
    "pdf_with_attachment",
    "png_bytes",
    "structured",
]


@dataclass
class Structured:
    """A file and the structure a Markdown rendering must keep."""

    name: str
    format: str
    data: bytes
    headings: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)  # (url, text)
    words: str = ""  # all the text


def png_bytes() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (30, 60, 90)).save(buf, "PNG")
    return buf.getvalue()


def _docx(seed: int, size: int, *, objects: bool = False) -> Structured:
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    body = paragraphs(seed, size, words=10)
    doc = docx.Document()
    out = Structured("report.docx", "docx", b"")
    doc.add_heading("Harbour operations", level=1)
    out.headings.append("Harbour operations")
    for i, para in enumerate(body):
        doc.add_paragraph(para)
        if i % 3 == 0:
            heading = f"Section {para.split()[0]} {i}"
            doc.add_heading(heading, level=2)
            out.headings.append(heading)
    for i in range(3):
        item = f"Bullet {body[i].split()[1]} point {i}"
        doc.add_paragraph(item, style="List Bullet")
        out.items.append(item)
        number = f"Step {body[i].split()[2]} number {i}"
        doc.add_paragraph(number, style="List Number")
        out.items.append(number)
    table = doc.add_table(rows=3, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = f"{body[r].split()[c]} cell {r}{c}"
            out.cells.append(cell.text)
    para = doc.add_paragraph("Read the ")
    url = "https://harbour.example.org/report"
    rid = para.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    para._p.append(
        parse_xml(
            f'<w:hyperlink xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            f'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="{rid}">'
            "<w:r><w:t>full report</w:t></w:r></w:hyperlink>"
        )
    )
    out.links.append((url, "full report"))
    if objects:
        doc.add_picture(io.BytesIO(png_bytes()))
        props = doc.inline_shapes[-1]._inline.docPr
        props.set("descr", "Aerial photograph of the northern quay")
    buf = io.BytesIO()
    doc.save(buf)
    out.data = buf.getvalue()
    if objects:  # an embedded workbook, as Word keeps one (the OLE link itself is not needed)
        workbook = build("xlsx", seed=seed, size=2).data
        rebuilt = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(out.data)) as src, zipfile.ZipFile(rebuilt, "w") as dst:
            for info in src.infolist():
                dst.writestr(info, src.read(info.filename))
            dst.writestr("word/embeddings/Microsoft_Excel_Worksheet.xlsx", workbook)
        out.data = rebuilt.getvalue()
    out.words = "\n".join([*out.headings, *body, *out.items, *out.cells, "Read the full report"])
    return out


def docx_with_objects(seed: int = 1, size: int = 6) -> Structured:
    """A report with an image (alt text ``Aerial photograph of the northern quay``) and an
    embedded workbook (``tests.convert.corpus`` xlsx: sheets Tonnage and Pilotage)."""
    return _docx(seed, size, objects=True)


def chart_pptx(seed: int = 1) -> Structured:
    """Slides: bullets, a column chart (title ``Tonnage by quay``, series ``Imports`` and
    ``Exports``) and a picture with alt text ``Map of the harbour approaches``."""
    import pptx
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    body = paragraphs(seed, 4, words=8)
    prs = pptx.Presentation()
    out = Structured("charts.pptx", "pptx", b"")
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Quarterly tonnage"
    out.headings.append("Quarterly tonnage")
    frame = slide.placeholders[1].text_frame
    frame.text = body[0]
    out.items.append(body[0])
    for line in body[1:3]:
        para = frame.add_paragraph()
        para.text = line
        para.level = 1
        out.items.append(line)
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Tonnage chart"
    out.headings.append("Tonnage chart")
    data = CategoryChartData()
    data.categories = ["North quay", "South quay"]
    data.add_series("Imports", (120.0, 80.0))
    data.add_series("Exports", (60.0, 95.0))
    chart = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.5), Inches(6), Inches(4), data
    ).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Tonnage by quay"
    picture = slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(7), Inches(1), Inches(1), Inches(1))
    picture._element.nvPicPr.cNvPr.set("descr", "Map of the harbour approaches")
    buf = io.BytesIO()
    prs.save(buf)
    out.data = buf.getvalue()
    out.words = "\n".join([*out.headings, *out.items])
    return out


def odt_structured(seed: int = 1) -> Structured:
    """An ODT with headings, a nested list, a table and a link."""
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import A, H, List, ListItem, P

    body = paragraphs(seed, 4, words=8)
    doc = OpenDocumentText()
    out = Structured("notes.odt", "odt", b"")
    for level, heading in ((1, "Pilotage notes"), (2, "Arrivals")):
        doc.text.addElement(H(outlinelevel=level, text=heading))
        out.headings.append(heading)
    doc.text.addElement(P(text=body[0]))
    outer = List()
    for i in range(2):
        item = ListItem()
        item.addElement(P(text=f"Berth {body[i].split()[1]} item {i}"))
        out.items.append(f"Berth {body[i].split()[1]} item {i}")
        if i == 1:
            inner = List()
            inner_item = ListItem()
            inner_item.addElement(P(text="Nested tug item"))
            out.items.append("Nested tug item")
            inner.addElement(inner_item)
            item.addElement(inner)
        outer.addElement(item)
    doc.text.addElement(outer)
    table = Table(name="Tides")
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    for r in range(2):
        row = TableRow()
        for c in range(2):
            cell = TableCell()
            text = f"{body[2].split()[c]} tide {r}{c}"
            cell.addElement(P(text=text))
            out.cells.append(text)
            row.addElement(cell)
        table.addElement(row)
    doc.text.addElement(table)
    para = P(text="See ")
    url = "https://harbour.example.org/tides"
    para.addElement(A(href=url, text="tide tables"))
    doc.text.addElement(para)
    out.links.append((url, "tide tables"))
    buf = io.BytesIO()
    doc.write(buf)
    out.data = buf.getvalue()
    return out


def pdf_with_attachment(seed: int = 1) -> tuple[bytes, bytes]:
    """The corpus PDF with the corpus DOCX attached (``minutes.docx``): the PDF, and the DOCX."""
    from pypdf import PdfReader, PdfWriter

    attached = build("docx", seed=seed, size=2).data
    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(build("pdf", seed=seed, size=4).data)).pages:
        writer.add_page(page)
    writer.add_attachment("minutes.docx", attached)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue(), attached


def structured(fmt: str, seed: int = 1, size: int = 6) -> Structured:
    """A structured sample of ``fmt``: docx, pptx or odt; the corpus's xlsx, ods (cells)."""
    if fmt == "docx":
        return _docx(seed, size)
    if fmt == "pptx":
        return chart_pptx(seed)
    if fmt == "odt":
        return odt_structured(seed)
    sample = build(fmt, seed=seed, size=size)
    out = Structured(sample.name, fmt, sample.data, headings=list(sample.headings))
    if fmt in ("xlsx", "ods"):  # one line per row, the cells' words
        names = {*sample.headings, *sample.extra.get("sheets", [])}
        lines = [line for line in sample.text.split("\n") if line not in names]
        out.cells = [cell for line in lines for cell in line.split(" ")]
    out.words = sample.text
    return out
