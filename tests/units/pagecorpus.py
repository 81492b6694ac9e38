"""Long documents made on the spot for the page-unit tests: PDFs with and without an outline (and
with a blank page), and an EPUB whose table of contents names its chapters."""

from __future__ import annotations

import io
import zipfile

__all__ = ["CHAPTERS", "PAGE_LINES", "SECTIONS", "epub_bytes", "pdf_bytes"]

#: Each page's lines: words no other page has, so a unit's text shows which page it is.
PAGE_LINES = [
    ["Tides", "Spring tides flood the lower quay twice a month.", "Pilots board vessels at the outer buoy."],
    ["Neap tides leave the dredged channel shallow.", "Soundings are taken every Tuesday morning."],
    ["Cargo", "Grain arrives in bulk carriers from the Baltic.", "Ledger", "Tariffs are invoiced quarterly."],
    ["Warehouse rents rose by four percent this year.", "The harbourmaster signs every permit."],
]
#: The outline of :func:`pdf_bytes` with ``outline=True``: (title, page index); "Ledger" is a
#: heading lower down the page "Cargo" starts on.
SECTIONS = [("Tides", 0), ("Cargo", 2), ("Ledger", 2)]


def pdf_bytes(
    pages: list[list[str]] = PAGE_LINES, *, outline: bool = False, title: str = "Harbour Notes"
) -> bytes:
    """A PDF of ``pages`` (an empty list of lines: a blank page), with ``SECTIONS`` as bookmarks."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setTitle(title)
    for index, lines in enumerate(pages):
        y = 760
        for line in lines:
            c.drawString(72, y, line)
            y -= 20
        if outline:
            for n, (name, page) in enumerate(SECTIONS):
                if page == index:
                    key = f"s{n}"
                    c.bookmarkPage(key)
                    c.addOutlineEntry(name, key, level=0)
        c.showPage()
    c.save()
    return buf.getvalue()


#: The chapters of :func:`epub_bytes`: (file, title in the table of contents, first heading, paragraphs).
CHAPTERS = [
    ("cover.xhtml", "", "", []),
    ("one.xhtml", "Arrival of the Ferry", "I", ["The ferry docked at dawn.", "Gulls circled the pontoon."]),
    ("two.xhtml", "", "The Storm Surge", ["Water rose above the sluice gate.", "The barrier held."]),
]


def epub_bytes(*, ncx: bool = True) -> bytes:
    """An EPUB 2 book: a cover with no text, a chapter the NCX names, one it does not."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        items = "".join(
            f'<item id="c{i}" href="text/{name}" media-type="application/xhtml+xml"/>'
            for i, (name, *_rest) in enumerate(CHAPTERS)
        )
        items += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(CHAPTERS)))
        zf.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbour Tales</dc:title>'
            f"<dc:language>en</dc:language></metadata><manifest>{items}</manifest>"
            f'<spine toc="{"ncx" if ncx else ""}">{spine}</spine></package>',
        )
        points = "".join(
            f'<navPoint id="p{i}"><navLabel><text>{toc}</text></navLabel>'
            f'<content src="text/{name}#start"/></navPoint>'
            for i, (name, toc, _h, _p) in enumerate(CHAPTERS)
            if toc
        )
        zf.writestr(
            "OEBPS/toc.ncx",
            '<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
            f"<navMap>{points}</navMap></ncx>",
        )
        for name, _toc, heading, paras in CHAPTERS:
            body = (f"<h1>{heading}</h1>" if heading else "") + "".join(f"<p>{p}</p>" for p in paras)
            zf.writestr(
                f"OEBPS/text/{name}",
                '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
                f"<title>Harbour Tales</title></head><body>{body}</body></html>",
            )
    return buf.getvalue()
