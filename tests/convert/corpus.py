"""A test corpus made on the spot with the formats' own writer libraries, with known text.

Each :class:`Sample` holds a file's bytes and what a converter must find in it: every word of
its body text (``text``), the title, the author, headings, links and so on. The writers are
python-docx, openpyxl, python-pptx, odfpy and reportlab (the ``convert-test`` extra); RTF, EPUB,
HTML and the XML formats are written by hand, since they are text. ``bench/convert.py`` uses the
same corpus, scaled up.

:func:`token_f1` is the measure: F1 of the multisets of lower-cased word tokens.
"""

from __future__ import annotations

import io
import random
import re
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUILDERS", "Sample", "build", "build_all", "paragraphs", "token_f1", "tokens"]

_WORDS = [
    "harbour",
    "tide",
    "pilot",
    "vessel",
    "cargo",
    "quay",
    "crane",
    "berth",
    "dredge",
    "channel",
    "buoy",
    "beacon",
    "mooring",
    "hull",
    "keel",
    "rudder",
    "anchor",
    "ballast",
    "tonnage",
    "draught",
    "ledger",
    "invoice",
    "tariff",
    "survey",
    "inspection",
    "licence",
    "permit",
    "schedule",
    "quarterly",
    "annual",
    "report",
    "board",
    "minutes",
    "meeting",
    "committee",
    "budget",
    "forecast",
    "revenue",
    "expenditure",
    "capital",
    "maintenance",
    "safety",
    "incident",
    "weather",
    "storm",
    "surge",
    "flood",
    "barrier",
    "lock",
    "gate",
    "sluice",
    "pontoon",
    "ferry",
    "terminal",
    "warehouse",
    "container",
    "freight",
    "logistics",
    "customs",
    "tariff",
    "harbourmaster",
    "navigation",
    "chart",
    "sounding",
    "depth",
    "datum",
    "bathymetry",
    "sediment",
    "erosion",
    "groyne",
    "breakwater",
    "lighthouse",
]


def paragraphs(seed: int, count: int, words: int = 24) -> list[str]:
    """Deterministic sentences of real-looking words (no hyphens, no digits at line ends)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        chosen = [rng.choice(_WORDS) for _ in range(words)]
        chosen[0] = chosen[0].capitalize()
        out.append(" ".join(chosen) + ".")
    return out


_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> Counter[str]:
    return Counter(_TOKEN.findall(text.lower()))


def token_f1(expected: str, got: str) -> float:
    """F1 of the multisets of lower-cased word tokens (1.0: the same words, as often)."""
    want, have = tokens(expected), tokens(got)
    common = sum((want & have).values())
    if not want and not have:
        return 1.0
    if not common:
        return 0.0
    precision = common / sum(have.values())
    recall = common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


@dataclass
class Sample:
    """A generated file and what a converter must find in it."""

    name: str
    format: str
    data: bytes
    text: str  # all the body text, in order
    title: str = ""
    author: str = ""
    headings: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


AUTHOR = "Marta Lindqvist"
LINK_TEXT = "Tide tables"
LINK_URL = "https://harbour.example.org/tides"
TITLE = "Harbour Board Annual Review"


def _docx(seed: int, size: int) -> Sample:
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    body = paragraphs(seed, size)
    doc = docx.Document()
    doc.core_properties.title = TITLE
    doc.core_properties.author = AUTHOR
    doc.add_paragraph(TITLE, style="Title")
    doc.add_heading("Operations and Safety", level=1)
    texts = [TITLE, "Operations and Safety"]
    for i, para in enumerate(body):
        doc.add_paragraph(para)
        texts.append(para)
        if i == 1:
            table = doc.add_table(rows=2, cols=2)
            cells = ["Pilot hours", "Tonnage landed", "Dredge volume", "Berth occupancy"]
            for cell, value in zip((c for row in table.rows for c in row.cells), cells, strict=True):
                cell.text = value
            texts.extend(cells)
    doc.add_heading("Finance", level=2)
    texts.append("Finance")
    # A hyperlink, with its relationship, as Word writes it.
    para = doc.add_paragraph("See the ")
    url = "https://harbour.example.org/annual"
    rid = para.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    para._p.append(
        parse_xml(
            f'<w:hyperlink xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            f'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="{rid}">'
            "<w:r><w:t>published accounts</w:t></w:r></w:hyperlink>"
        )
    )
    texts.append("See the published accounts")
    # A text box, as Word writes it: the drawing first, a VML fallback repeating it.
    box = doc.add_paragraph()
    box._p.append(
        parse_xml(
            '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
            'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
            'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent><mc:Choice Requires="wps">'
            "<w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>Sidebar lighthouse keeper</w:t></w:r></w:p>"
            "</w:txbxContent></wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox>"
            "<w:txbxContent><w:p><w:r><w:t>Sidebar lighthouse keeper</w:t></w:r></w:p></w:txbxContent>"
            "</v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r>"
        )
    )
    texts.append("Sidebar lighthouse keeper")
    buf = io.BytesIO()
    doc.save(buf)
    return Sample(
        "report.docx", "docx", buf.getvalue(), "\n".join(texts), TITLE, AUTHOR,
        headings=[TITLE, "Operations and Safety", "Finance"], links=[(url, "published accounts")],
    )  # fmt: skip


def _xlsx(seed: int, size: int) -> Sample:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.properties.title = TITLE
    wb.properties.creator = AUTHOR
    texts: list[str] = []
    sheets = ["Tonnage", "Pilotage"]
    rng = random.Random(seed)
    for index, name in enumerate(sheets):
        ws = wb.active if index == 0 else wb.create_sheet()
        assert ws is not None
        ws.title = name
        texts.append(name)
        ws.append(["Quay", "Vessel", "Cargo", "Tonnes"])
        texts.append("Quay Vessel Cargo Tonnes")
        for _ in range(size):
            values = [
                rng.choice(_WORDS),
                rng.choice(_WORDS).capitalize(),
                rng.choice(_WORDS),
                rng.randint(1, 9999),
            ]
            ws.append(values)
            texts.append(" ".join(str(v) for v in values))
    buf = io.BytesIO()
    wb.save(buf)
    return Sample("tonnage.xlsx", "xlsx", buf.getvalue(), "\n".join(texts), TITLE, AUTHOR,
                  headings=sheets, extra={"sheets": sheets})  # fmt: skip


def _pptx(seed: int, size: int) -> Sample:
    import pptx
    from pptx.util import Inches

    body = paragraphs(seed, size, words=12)
    prs = pptx.Presentation()
    prs.core_properties.title = TITLE
    prs.core_properties.author = AUTHOR
    texts: list[str] = []
    first = prs.slides.add_slide(prs.slide_layouts[0])
    first.shapes.title.text = TITLE
    first.placeholders[1].text = "Presented to the committee"
    texts += [TITLE, "Presented to the committee"]
    url = "https://harbour.example.org/slides"
    for i in range(0, len(body), 3):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        heading = f"Section {body[i].split()[1]} review"
        slide.shapes.title.text = heading
        texts.append(heading)
        frame = slide.placeholders[1].text_frame
        frame.text = body[i]
        texts.append(body[i])
        for line in body[i + 1 : i + 3]:
            frame.add_paragraph().text = line
            texts.append(line)
        slide.notes_slide.notes_text_frame.text = f"Speaker note about {body[i].split()[2]} dredging"
        texts.append(f"Speaker note about {body[i].split()[2]} dredging")
        if i == 0:
            table = slide.shapes.add_table(2, 2, Inches(1), Inches(5), Inches(4), Inches(1)).table
            for cell, value in zip((table.cell(r, c) for r in range(2) for c in range(2)),
                                   ["Berth", "Crane", "Pontoon", "Ferry"], strict=True):  # fmt: skip
                cell.text = value
            texts.append("Berth Crane Pontoon Ferry")
            box = slide.shapes.add_textbox(Inches(5), Inches(5), Inches(3), Inches(1))
            run = box.text_frame.paragraphs[0].add_run()
            run.text = "harbour website"
            run.hyperlink.address = url
            texts.append("harbour website")
    buf = io.BytesIO()
    prs.save(buf)
    return Sample("review.pptx", "pptx", buf.getvalue(), "\n".join(texts), TITLE, AUTHOR,
                  links=[(url, "harbour website")])  # fmt: skip


def _odf_text(seed: int, size: int) -> Sample:
    from odf import dc, meta
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import A, H, P

    body = paragraphs(seed, size)
    doc = OpenDocumentText()
    doc.meta.addElement(dc.Title(text=TITLE))
    doc.meta.addElement(meta.InitialCreator(text=AUTHOR))
    texts = ["Operations and Safety"]
    doc.text.addElement(H(outlinelevel=1, text="Operations and Safety"))
    for i, para in enumerate(body):
        doc.text.addElement(P(text=para))
        texts.append(para)
        if i == 1:
            table = Table(name="Figures")
            table.addElement(TableColumn(numbercolumnsrepeated=2))
            for pair in (("Pilot hours", "Tonnage landed"), ("Dredge volume", "Berth occupancy")):
                row = TableRow()
                for value in pair:
                    cell = TableCell()
                    cell.addElement(P(text=value))
                    row.addElement(cell)
                table.addElement(row)
                texts.extend(pair)
            doc.text.addElement(table)
    url = "https://harbour.example.org/odt"
    para = P(text="Read the ")
    para.addElement(A(href=url, text="harbour accounts"))
    doc.text.addElement(para)
    texts.append("Read the harbour accounts")
    buf = io.BytesIO()
    doc.write(buf)
    return Sample("minutes.odt", "odt", buf.getvalue(), "\n".join(texts), TITLE, AUTHOR,
                  headings=["Operations and Safety"], links=[(url, "harbour accounts")])  # fmt: skip


def _odf_sheet(seed: int, size: int) -> Sample:
    from odf import dc
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    doc.meta.addElement(dc.Title(text=TITLE))
    rng = random.Random(seed)
    texts: list[str] = []
    sheets = ["Berths", "Cranes"]
    for name in sheets:
        table = Table(name=name)
        texts.append(name)
        for _ in range(size):
            row = TableRow()
            values = [rng.choice(_WORDS), rng.choice(_WORDS)]
            for value in values:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=value))
                row.addElement(cell)
            table.addElement(row)
            texts.append(" ".join(values))
        doc.spreadsheet.addElement(table)
    buf = io.BytesIO()
    doc.write(buf)
    return Sample("berths.ods", "ods", buf.getvalue(), "\n".join(texts), TITLE, extra={"sheets": sheets})


def _odf_slides(seed: int, size: int) -> Sample:
    from odf import dc
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.text import P

    body = paragraphs(seed, size, words=12)
    doc = OpenDocumentPresentation()
    doc.meta.addElement(dc.Title(text=TITLE))
    layout = PageLayout(name="PL")
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)
    texts: list[str] = []
    for i, para in enumerate(body):
        page = Page(masterpagename=master, name=f"page{i + 1}")
        frame = Frame(width="20cm", height="10cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text=para))
        frame.addElement(box)
        page.addElement(frame)
        notes = Notes()
        note_frame = Frame(width="20cm", height="5cm", x="1cm", y="1cm")
        note_box = TextBox()
        note_box.addElement(P(text=f"Note on {para.split()[1]} sounding"))
        note_frame.addElement(note_box)
        notes.addElement(note_frame)
        page.addElement(notes)
        doc.presentation.addElement(page)
        texts += [para, f"Note on {para.split()[1]} sounding"]
    buf = io.BytesIO()
    doc.write(buf)
    return Sample("review.odp", "odp", buf.getvalue(), "\n".join(texts), TITLE, extra={"slides": len(body)})


def _pdf(seed: int, size: int) -> Sample:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    body = paragraphs(seed, size, words=10)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setTitle(TITLE)
    c.setAuthor(AUTHOR)
    per_page = 20
    pages = [body[i : i + per_page] for i in range(0, len(body), per_page)]
    for number, lines in enumerate(pages, 1):
        c.setFont("Helvetica", 9)
        c.drawString(72, 800, "Northbridge Harbour Board - Annual Review")  # a running header
        c.drawString(290, 30, str(number))  # a page number
        c.setFont("Helvetica", 11)
        y = 760
        for line in lines:
            c.drawString(72, y, line)
            y -= 16
        if number == 1:  # a link annotation over two words
            width = c.stringWidth(LINK_TEXT, "Helvetica", 11)
            c.drawString(72, y, LINK_TEXT)
            c.linkURL(LINK_URL, (72, y - 2, 72 + width, y + 9), relative=0)
        c.showPage()
    c.save()
    text = "\n".join([*pages[0], LINK_TEXT, *body[len(pages[0]) :]])
    return Sample("review.pdf", "pdf", buf.getvalue(), text, TITLE, AUTHOR, links=[(LINK_URL, LINK_TEXT)],
                  extra={"pages": len(pages)})  # fmt: skip


def _rtf(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    text_rtf = "".join(f"{para}\\par\n" for para in body)
    data = (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times;}}{\\colortbl;\\red0\\green0\\blue0;}\n"  # noqa: E501
        f"{{\\info{{\\title {TITLE}}}{{\\author {AUTHOR}}}{{\\creatim\\yr2023\\mo4\\dy2\\hr10\\min5}}}}\n"
        "{\\header Running head text\\par}\n"
        f"\\f0 {text_rtf}Caf\\'e9 au lait \\u8364? costs\\par\n}}"
    ).encode("ascii")
    return Sample("review.rtf", "rtf", data, "\n".join([*body, "Café au lait € costs"]), TITLE, AUTHOR)


def _epub(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    half = len(body) // 2
    chapters = [("Arrivals", body[:half]), ("Departures", body[half:])]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'  # noqa: E501
            '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        items = "".join(
            f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(2)
        )
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(2))
        zf.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            f"<dc:title>{TITLE}</dc:title><dc:creator>{AUTHOR}</dc:creator><dc:language>en</dc:language>"
            f"</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>",
        )
        for i, (heading, paras) in enumerate(chapters):
            ps = "".join(f"<p>{p}</p>" for p in paras)
            zf.writestr(
                f"OEBPS/c{i}.xhtml",
                f'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{heading}</title>'
                f"</head><body><h1>{heading}</h1>{ps}</body></html>",
            )
    texts = [line for heading, paras in chapters for line in (heading, *paras)]
    return Sample("review.epub", "epub", buf.getvalue(), "\n".join(texts), TITLE, AUTHOR,
                  headings=["Arrivals", "Departures"])  # fmt: skip


def _rss(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size, words=12)
    items = "".join(
        f"<item><title>Notice {i}: {p.split()[0]} {p.split()[1]}</title>"
        f"<link>https://harbour.example.org/notices/{i}</link>"
        f"<description>&lt;p&gt;{p}&lt;/p&gt;</description><pubDate>Tue, 02 May 2023 10:00:00 GMT</pubDate></item>"  # noqa: E501
        for i, p in enumerate(body)
    )
    data = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Harbour notices</title>'
        "<link>https://harbour.example.org/</link><description>Notices to mariners</description>"
        f"<language>en-gb</language>{items}</channel></rss>"
    ).encode()
    texts = ["Harbour notices", "Notices to mariners"]
    links = []
    for i, p in enumerate(body):
        title = f"Notice {i}: {p.split()[0]} {p.split()[1]}"
        texts += [title, p]
        links.append((f"https://harbour.example.org/notices/{i}", title))
    return Sample("notices.rss", "rss", data, "\n".join(texts), "Harbour notices", links=links)


def _atom(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size, words=12)
    entries = "".join(
        f'<entry><title>Entry {i}</title><link href="/entries/{i}"/><updated>2023-05-02T10:00:00Z</updated>'
        f'<summary type="html">&lt;b&gt;{p}&lt;/b&gt;</summary></entry>'
        for i, p in enumerate(body)
    )
    data = (
        '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>Harbour log</title>'
        f'<link href="https://harbour.example.org/"/><author><name>{AUTHOR}</name></author>{entries}</feed>'
    ).encode()
    texts = ["Harbour log"] + [line for i, p in enumerate(body) for line in (f"Entry {i}", p)]
    return Sample("log.atom", "atom", data, "\n".join(texts), "Harbour log", AUTHOR)


def _html(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    ps = "".join(f"<p>{p}</p>" for p in body)
    data = (
        '<!doctype html><html lang="en"><head><title>Harbour page</title><base href="https://harbour.example.org/docs/">'
        f'<meta name="author" content="{AUTHOR}"><meta name="robots" content="noindex">'
        '<link rel="canonical" href="/docs/page"><script>var x = "hidden";</script></head>'
        f'<body><h1>Harbour page</h1>{ps}<a href="tides">Tide tables</a></body></html>'
    ).encode()
    texts = ["Harbour page", *body, "Tide tables"]
    return Sample(
        "page.html",
        "html",
        data,
        "\n".join(texts),
        "Harbour page",
        AUTHOR,
        headings=["Harbour page"],
        links=[("https://harbour.example.org/docs/tides", "Tide tables")],
    )


def _xml(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    records = "".join(
        f"<record><title>Record {i}</title><body>{p}</body></record>" for i, p in enumerate(body)
    )
    data = f'<?xml version="1.0"?><archive xml:lang="en"><title>Harbour archive</title>{records}</archive>'.encode()  # noqa: E501
    texts = ["Harbour archive"] + [line for i, p in enumerate(body) for line in (f"Record {i}", p)]
    return Sample("archive.xml", "xml", data, "\n".join(texts), "Harbour archive")


def _text(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    data = ("Harbour notes\n\n" + "\n\n".join(body) + "\n").encode()
    return Sample("notes.txt", "text", data, "\n".join(["Harbour notes", *body]), "Harbour notes")


def _message(subject: str, body: list[str], number: int) -> bytes:
    from email.message import EmailMessage
    from email.policy import SMTP

    msg = EmailMessage()
    msg["From"] = f"{AUTHOR} <marta@harbour.example.org>"
    msg["To"] = "crew@harbour.example.org"
    msg["Subject"] = subject
    msg["Date"] = f"Tue, 0{number % 9 + 1} Jan 2024 10:00:00 +0100"
    msg["Message-ID"] = f"<log-{number}@harbour.example.org>"
    msg.set_content("\n\n".join(body) + "\n", cte="quoted-printable")
    msg.add_alternative(
        "<html><body><p>The HTML rendering is not the text read.</p></body></html>", subtype="html"
    )
    return msg.as_bytes(policy=SMTP.clone(linesep="\n"))


def _email(seed: int, size: int) -> Sample:
    body = paragraphs(seed, size)
    data = _message("Harbour log, Tuesday", body, 1)
    return Sample("log.eml", "email", data, "\n".join(body), "Harbour log, Tuesday")


def _mbox(seed: int, size: int) -> Sample:
    import re

    out, texts = [], []
    for i in range(3):
        body = paragraphs(seed + i, max(1, size // 3))
        subject = f"Harbour log {i + 1}"
        message = re.sub(rb"(?m)^(>*From )", rb">\1", _message(subject, body, i))
        out.append(b"From marta@harbour.example.org Mon Jan  1 00:00:00 2024\n" + message + b"\n")
        texts += [subject, *body]
    return Sample("log.mbox", "mbox", b"".join(out), "\n".join(texts), "Harbour log 1")


#: Every format's builder: ``(seed, size) -> Sample``.
def _msg(seed: int, size: int) -> Sample:
    from tests.convert.legacy_corpus import msg_sample  # it builds on this module

    return msg_sample(seed, size)


def _iwork(kind: str) -> Callable[[int, int], Sample]:
    def make(seed: int, size: int) -> Sample:
        from tests.convert.legacy_corpus import iwork_sample

        return iwork_sample(kind)(seed, size)

    return make


BUILDERS: dict[str, Callable[[int, int], Sample]] = {
    "docx": _docx,
    "xlsx": _xlsx,
    "pptx": _pptx,
    "odt": _odf_text,
    "ods": _odf_sheet,
    "odp": _odf_slides,
    "pdf": _pdf,
    "rtf": _rtf,
    "epub": _epub,
    "rss": _rss,
    "atom": _atom,
    "html": _html,
    "xml": _xml,
    "text": _text,
    "email": _email,
    "mbox": _mbox,
    # an Outlook message and iWork '09 packages (tests/convert/legacy_corpus.py); .doc/.xls/.ppt
    # need LibreOffice to be made: legacy_corpus.build_legacy
    "ole": _msg,
    "pages": _iwork("pages"),
    "numbers": _iwork("numbers"),
    "key": _iwork("key"),
}


def build(fmt: str, seed: int = 1, size: int = 8) -> Sample:
    return BUILDERS[fmt](seed, size)


def build_all(seed: int = 1, size: int = 8) -> list[Sample]:
    return [builder(seed, size) for builder in BUILDERS.values()]


def empty_pages_pdf(pages: int) -> bytes:
    """A valid PDF of ``pages`` empty pages with a correct xref, written directly (reportlab takes
    seconds for 10,000 pages)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    objects.append(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages))
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    return pdf_of(objects)


def pdf_of(objects: list[bytes], *, root: int = 1, version: bytes = b"1.4") -> bytes:
    """A PDF file of ``objects`` (numbered from 1), its cross-reference table and trailer."""
    out = bytearray(b"%%PDF-%s\n" % version)
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def scanned_pdf(pages: int = 2) -> bytes:
    """Pages holding only an image (a 'scan'), no text layer."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    image = Image.new("L", (64, 64), 200)
    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for _ in range(pages):
        c.drawImage(ImageReader(image), 72, 400, 300, 300)
        c.showPage()
    c.save()
    return buf.getvalue()


def scanned_image(seed: int = 1, size: int = 8) -> Sample:
    """A PNG page of known text as a scanner makes it (300 dpi, grey): reportlab's page rendered by
    PDFium. Not in :data:`BUILDERS`: only OCR reads it (``ocr = "auto"``)."""
    import pypdfium2 as pdfium
    from PIL import Image
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    body = paragraphs(seed, size, words=8)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Helvetica", 11)
    y = 780
    for line in body:
        c.drawString(60, y, line)
        y -= 18
    c.showPage()
    c.save()
    pdf = pdfium.PdfDocument(buf.getvalue())
    try:
        grey = pdf[0].render(scale=300 / 72, grayscale=True).to_pil()
    finally:
        pdf.close()
    png = io.BytesIO()
    Image.frombytes("L", grey.size, grey.tobytes()).save(png, "PNG", dpi=(300, 300))
    return Sample("scan.png", "image", png.getvalue(), "\n".join(body), body[0])
