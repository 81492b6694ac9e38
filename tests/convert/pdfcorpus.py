"""Two-column PDFs with known text and known reading order, written with reportlab.

:func:`columns_pdf` lays deterministic paragraphs (:func:`tests.convert.corpus.paragraphs`) out
as a journal page: a running header (a title on the left, the volume on the right), a page
number at the foot, on the first page a centred title and a full-width abstract, then two
columns of 10 pt text whose paragraphs run on from the left column to the right one and from
page to page, and a footnote in 7 pt at the foot of each page's left column. ``order`` says how
the page is drawn: ``"rows"`` draws each left-column line and then the line beside it (the
content order that PDFium reads as interleaved columns), ``"columns"`` draws the left column,
its footnote, then the right column (as LaTeX does).

The sample's ``text`` is the reading order: title and abstract, then per page the left column,
the right column and the footnote, without the running header and page numbers.
:func:`bigrams_in_order` is the measure: the share of the known text's word bigrams found next to
each other in a converter's text.
"""

from __future__ import annotations

import io
import itertools
import re
from collections import Counter
from typing import Any

from tests.convert.corpus import AUTHOR, Sample, paragraphs, pdf_of

__all__ = ["HEADER", "VOLUME", "bigrams_in_order", "columns_pdf"]

HEADER = "Northbridge Harbour Board Proceedings"
VOLUME = "Volume 7"
PAPER_TITLE = "Sediment and Tide at the Northbridge Quays"
_LEADING = 13.0
_NOTE_LEADING = 8.5
_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def bigrams_in_order(expected: str, got: str) -> float:
    """The share of ``expected``'s word bigrams (lower case) that ``got`` has as adjacent words,
    each counted as often as it occurs in both."""
    known, read = _words(expected), _words(got)
    want = Counter(itertools.pairwise(known))
    have = Counter(itertools.pairwise(read))
    total = sum(want.values())
    return sum((want & have).values()) / total if total else 1.0


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    from reportlab.lib.utils import simpleSplit

    return list(simpleSplit(text, font, size, width))


def columns_pdf(
    seed: int = 1, size: int = 24, *, order: str = "rows", notes: bool = True, shift: float = 0.0
) -> Sample:
    """A two-column paper of ``size`` paragraphs (see the module docstring); ``notes=False`` leaves
    the footnotes out, ``shift`` sets the right column's lines that many points lower than the left
    one's (lines no longer level with each other)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    if order not in ("rows", "columns"):
        raise ValueError(f"order must be 'rows' or 'columns', not {order!r}")
    width, height = A4
    margin, gutter = 56.0, 24.0
    column = (width - 2 * margin - gutter) / 2
    body: list[str] = []  # the column lines, "" between paragraphs
    for para in paragraphs(seed, size, words=40):
        body += [*_wrap(para, "Helvetica", 10, column), ""]
    abstract = _wrap(
        " ".join(paragraphs(seed + 1000, 2, words=30)), "Helvetica-Oblique", 10, width - 2 * margin
    )
    footnotes = paragraphs(seed + 2000, 40, words=14)

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=True)  # the same bytes every time
    c.setTitle(PAPER_TITLE)
    c.setAuthor(AUTHOR)
    expected: list[str] = [PAPER_TITLE, *abstract]
    pages: list[list[Any]] = []  # per page: (left lines, right lines, note lines, column top)
    at = 0
    while at < len(body):
        top = height - 80.0
        if not pages:
            top -= 40 + len(abstract) * _LEADING + 16
        note = _wrap(f"{len(pages) + 1} {footnotes[len(pages) % len(footnotes)]}", "Helvetica", 7, column)
        note = note if notes else []
        rows = int((top - 72) // _LEADING)
        left_rows = rows - (int((len(note) * _NOTE_LEADING + 12) // _LEADING) + 1 if note else 0)
        cols = []
        for capacity in (left_rows, rows):
            lines = body[at : at + capacity]
            at += capacity
            while lines and not lines[0]:
                lines = lines[1:]
            cols.append(lines)
        pages.append([cols[0], cols[1], note, top])
    total = len(pages)
    for number, (left, right, note, top) in enumerate(pages, 1):
        c.setFont("Helvetica", 8)
        c.drawString(margin, height - 44, HEADER)
        c.drawRightString(width - margin, height - 44, VOLUME)
        if number == 1:
            c.setFont("Helvetica-Bold", 16)
            c.drawCentredString(width / 2, height - 96, PAPER_TITLE)
            c.setFont("Helvetica-Oblique", 10)
            for i, line in enumerate(abstract):
                c.drawString(margin, height - 124 - i * _LEADING, line)
        x = (margin, margin + column + gutter)

        def draw_note(note: list[str] = note, left: list[str] = left, top: float = top) -> None:
            if not note:
                return
            y = 72 + (len(note) - 1) * _NOTE_LEADING
            c.line(margin, y + 10, margin + 60, y + 10)
            c.setFont("Helvetica", 7)
            for i, line in enumerate(note):
                c.drawString(margin, y - i * _NOTE_LEADING, line)

        c.setFont("Helvetica", 10)
        if order == "rows":
            for r in range(max(len(left), len(right))):
                for k, lines in enumerate((left, right)):
                    if r < len(lines) and lines[r]:
                        c.setFont("Helvetica", 10)
                        c.drawString(x[k], top - r * _LEADING - k * shift, lines[r])
            draw_note()
        else:
            for k, lines in enumerate((left, right)):
                c.setFont("Helvetica", 10)
                for r, line in enumerate(lines):
                    if line:
                        c.drawString(x[k], top - r * _LEADING - k * shift, line)
                if k == 0:
                    draw_note()
        c.setFont("Helvetica", 8)
        c.drawCentredString(width / 2, 36, f"Page {number} of {total}")
        c.showPage()
        expected += [line for line in (*left, *right, *note) if line]
    c.save()
    return Sample(
        "paper.pdf", "pdf", buf.getvalue(), "\n".join(expected), PAPER_TITLE, AUTHOR,
        extra={"pages": total, "order": order},
    )  # fmt: skip


def _pdf_string(text: str) -> bytes:
    return b"(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("cp1252") + b")"


def tagged_pdf(seed: int = 1, size: int = 12, *, structure: str = "columns") -> Sample:
    """A tagged PDF (``/MarkInfo /Marked``, a structure tree, marked content), written by hand:
    two columns of ``size`` paragraphs drawn row by row as in :func:`columns_pdf`, each line a
    marked-content sequence of the paragraph's ``P`` element, the running header and the page
    number marked as ``/Artifact``. ``structure`` is the order of the ``P`` elements in the tree:
    ``"columns"`` (left column, then right: what the layout also finds) or ``"reversed"`` (the
    last paragraph first: an order only the tree tells). The sample's ``text`` is the tree's
    order, without the artifacts."""
    from reportlab.lib.pagesizes import A4

    if structure not in ("columns", "reversed"):
        raise ValueError(f"structure must be 'columns' or 'reversed', not {structure!r}")
    width, height = A4
    margin, gutter = 56.0, 24.0
    column = (width - 2 * margin - gutter) / 2
    rows = int((height - 160) // _LEADING)
    # (paragraph, page, column, row, line) for every line; a paragraph may run on to the next column
    placed: list[tuple[int, int, int, int, str]] = []
    slot = 0
    for number, para in enumerate(paragraphs(seed, size, words=40)):
        for line in _wrap(para, "Helvetica", 10, column):
            page, rest = divmod(slot, 2 * rows)
            placed.append((number, page, rest // rows, rest % rows, line))
            slot += 1
        slot += 1 if slot % rows else 0  # a blank row between paragraphs, not at a column's top
    pages = placed[-1][1] + 1
    objects: list[bytes] = []

    def new(body: bytes = b"") -> int:
        objects.append(body)
        return len(objects)

    catalog, tree, root, document, parents, font = new(), new(), new(), new(), new(), new()
    objects[font - 1] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    page_ids = [new() for _ in range(pages)]
    elements: list[tuple[int, int, int]] = []  # (object, paragraph, page): one P per paragraph and page
    per_page_mcids: list[list[int]] = [[] for _ in range(pages)]  # MCID -> its element's object
    streams: list[list[bytes]] = [[] for _ in range(pages)]
    by_row = sorted(placed, key=lambda p: (p[1], p[3], p[2]))  # drawn row by row
    element_of: dict[tuple[int, int], int] = {}
    kids: dict[int, list[tuple[int, int, int]]] = {}  # element -> (column, row, MCID) of its lines
    for para, page, col, row, line in by_row:
        key = (para, page)
        if key not in element_of:
            element_of[key] = new()
            elements.append((element_of[key], para, page))
        mcid = len(per_page_mcids[page])
        per_page_mcids[page].append(element_of[key])
        kids.setdefault(element_of[key], []).append((col, row, mcid))
        x, y = margin + col * (column + gutter), height - 90 - row * _LEADING
        streams[page].append(
            b"/P <</MCID %d>> BDC BT /F1 10 Tf %.2f %.2f Td %s Tj ET EMC" % (mcid, x, y, _pdf_string(line))
        )
    for page in range(pages):
        artifacts = (
            b"/Artifact <</Type /Pagination>> BDC BT /F1 8 Tf %.2f %.2f Td %s Tj ET EMC"
            % (margin, height - 44, _pdf_string(HEADER)),
            b"/Artifact <</Type /Pagination>> BDC BT /F1 8 Tf %.2f 36 Td %s Tj ET EMC"
            % (width / 2 - 20, _pdf_string(f"Page {page + 1}")),
        )
        content = b"\n".join([artifacts[0], *streams[page], artifacts[1]])
        stream = new(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        objects[page_ids[page] - 1] = (
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R /StructParents %d >>"
            % (tree, width, height, font, stream, page)
        )
    ordered = sorted(elements, key=lambda e: (e[1], e[2]))  # paragraph order, a paragraph's pages in order
    if structure == "reversed":
        ordered = sorted(elements, key=lambda e: (-e[1], e[2]))
    for obj, _, page in elements:
        mcids = " ".join(str(m) for _, _, m in sorted(kids[obj])).encode()  # in reading order
        objects[obj - 1] = b"<< /Type /StructElem /S /P /P %d 0 R /Pg %d 0 R /K [%s] >>" % (
            document,
            page_ids[page],
            mcids,
        )
    refs = b" ".join(b"%d 0 R" % obj for obj, _, _ in ordered)
    objects[document - 1] = b"<< /Type /StructElem /S /Document /P %d 0 R /K [%s] >>" % (root, refs)
    nums = b" ".join(
        b"%d [%s]" % (page, b" ".join(b"%d 0 R" % obj for obj in mcids))
        for page, mcids in enumerate(per_page_mcids)
    )
    objects[parents - 1] = b"<< /Nums [%s] >>" % nums
    objects[root - 1] = (
        b"<< /Type /StructTreeRoot /K [%d 0 R] /ParentTree %d 0 R /ParentTreeNextKey %d >>"
        % (document, parents, pages)
    )
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % p for p in page_ids),
        pages,
    )
    objects[catalog - 1] = (
        b"<< /Type /Catalog /Pages %d 0 R /MarkInfo << /Marked true >> /StructTreeRoot %d 0 R >>"
        % (tree, root)
    )
    data = pdf_of(objects, root=catalog, version=b"1.7")
    lines: dict[tuple[int, int], list[str]] = {}  # (paragraph, page) -> its lines there
    for para, page, _, _, line in sorted(placed, key=lambda p: (p[1], p[2], p[3])):
        lines.setdefault((para, page), []).append(line)
    # pages stay in order: the tree's order within each page
    text = "\n".join(
        line for page in range(pages) for _, para, on in ordered if on == page for line in lines[para, page]
    )
    return Sample("tagged.pdf", "pdf", data, text, extra={"pages": pages, "structure": structure})
