"""Reading order of a PDF page from where its text sits: columns, margins, footnotes.

PDFium's text comes in content order, the order the producer drew it. Most producers draw a
two-column page column after column, but some draw it row by row (a line of the left column, the
line beside it in the right one), and PDFium then joins each pair into one line: the columns
come out interleaved. This module finds the columns from the geometry of the page's text
objects, cheaply, and says in which order to read them:

1. **boxes**: PDFium's text rectangles (``FPDFText_CountRects``/``GetRect``: one per run of a
   text object's characters), consecutive ones on the same line and closer than a gutter
   (:data:`GUTTER` line heights) merged: the pieces of lines;
2. **bands**: boxes whose vertical extents overlap, top to bottom;
3. **margins**: the first and the last band or two of the page (running header, page number)
   are set apart when they are one line high and a gap wider than twice the median gap between
   bands and than one and a half lines follows (precedes) them, so a right-aligned header does
   not join the right column;
4. **sections**: runs of consecutive bands that share a vertical strip of white space at least a
   gutter wide. A section whose strips cut it into columns that look like columns of text (each
   a fifth of the section's width, its boxes filling :data:`FILL` of the column's width on the
   median, one of them :data:`MIN_LINES` boxes at least, the strips between them narrower than
   :data:`MAX_GUTTER` of the wider column beside) is read column by column, left to right,
   each column the same way (a column may hold columns); any other section, in content order;
5. **footnotes**: the lines at the foot of a column set in a smaller font (under
   :data:`NOTE_SIZE` of the column's body size, measured on PDFium's loose character boxes)
   move to the end of the page, before its bottom margin.

When the order found is the content order (a single-column page, or columns drawn one after the
other), the page's text stays PDFium's own, and the only cost is one rectangle per text run;
otherwise (``pdf/pages-reordered``) the text is rebuilt from each box's characters, one box or a
band's boxes per line. Pages of more than :data:`MAX_RECTS` text runs, and rotated pages, keep
their content order.
"""

from __future__ import annotations

import ctypes
import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "FILL",
    "GUTTER",
    "MAX_ELEMENTS",
    "MAX_GUTTER",
    "MAX_RECTS",
    "MIN_LINES",
    "NOTE_SIZE",
    "Box",
    "Plan",
    "ordered_text",
    "page_boxes",
    "reading_order",
]

#: The narrowest white strip between columns, in median line heights (LaTeX's default column
#: separation is 10 pt beside 10 pt type: about one line height).
GUTTER = 0.8
#: One column of a section read as columns has at least this many boxes (the last page's right
#: column may hold a line or two) ...
MIN_LINES = 3
#: ... and each column's boxes are on the median at least this share of its width wide (tables'
#: cells rarely are).
FILL = 0.6
#: ... and the white between two columns is at most this share of the wider one's width (a
#: typeset gutter is a tenth to a fifth of its columns; a table's cells often have as much white
#: between them as they hold text, and are read row by row).
MAX_GUTTER = 0.5
#: A line at the foot of a column in a font under this share of the column's body size is a note.
NOTE_SIZE = 0.85
#: Pages with more text runs than this keep their content order (bounded work per page).
MAX_RECTS = 5_000
#: Structure elements read per page at most (a hostile tree can be any size).
MAX_ELEMENTS = 100_000
_MARGIN_BANDS = 2  # bands at the top and at the bottom of a page that may be margins
_MAX_DEPTH = 3  # columns inside columns, at most this deep
_STRIPS = 64  # white strips of a band considered at most (bounds the work on a hostile page)


Rect = tuple[float, float, float, float]  # left, bottom, right, top (PDF units, y up)


@dataclass(slots=True)
class Box:
    """A piece of a line: consecutive text rectangles ``first..last`` (content order) on one line."""

    index: int
    x0: float
    y0: float
    x1: float
    y1: float
    first: int
    last: int

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def width(self) -> float:
        return self.x1 - self.x0


class Plan(NamedTuple):
    """A page's reading order: ``lines`` of box indices (a line's boxes are joined by a space);
    from the structure tree (``source="tagged"``), the text runs dropped as artifacts instead."""

    lines: list[list[int]]
    columns: int  # the most columns of any section
    footnotes: int  # lines moved to the end of the page
    source: str = "layout"
    artifacts: int = 0
    reordered: bool = True  # False: a tagged page in content order whose artifacts were dropped


def page_boxes(rects: Sequence[Rect]) -> list[Box]:
    """Line pieces from text rectangles in content order (see the module docstring, step 1)."""
    heights = [t - b for _, b, _, t in rects if t > b]
    if not heights:
        return []
    gap = GUTTER * statistics.median(heights)
    boxes: list[Box] = []
    for i, (x0, y0, x1, y1) in enumerate(rects):
        prev = boxes[-1] if boxes else None
        if prev is not None and (x1 <= x0 or y1 <= y0):  # an empty run (spaces): the box before holds it
            prev.last = i
            continue
        if (
            prev is not None
            and min(prev.y1, y1) - max(prev.y0, y0) >= 0.5 * min(prev.height, y1 - y0)
            and prev.x0 - 1 <= x0
            and x0 - prev.x1 < gap
        ):
            prev.x1, prev.y0, prev.y1, prev.last = max(prev.x1, x1), min(prev.y0, y0), max(prev.y1, y1), i
            continue
        boxes.append(Box(len(boxes), x0, y0, x1, y1, i, i))
    return boxes


@dataclass(slots=True)
class _Band:
    boxes: list[Box] = field(default_factory=list)
    top: float = 0.0
    bottom: float = 0.0
    left: float = 0.0
    right: float = 0.0


def _bands(boxes: list[Box]) -> list[_Band]:
    bands: list[_Band] = []
    band = None
    for box in sorted(boxes, key=lambda b: -b.y1):
        if band is not None and box.y1 - band.bottom > 0.3 * (box.y1 - box.y0):
            band.boxes.append(box)
            band.bottom = min(band.bottom, box.y0)
            band.left = min(band.left, box.x0)
            band.right = max(band.right, box.x1)
        else:
            band = _Band([box], box.y1, box.y0, box.x0, box.x1)
            bands.append(band)
    for band in bands:
        band.boxes.sort(key=lambda b: b.x0)
    return bands


Interval = tuple[float, float]


def _free(boxes: list[Box], lo: float, hi: float, gap: float) -> list[Interval]:
    """The white strips at least ``gap`` wide between ``lo`` and ``hi`` that no box crosses."""
    out: list[Interval] = []
    at = lo
    for box in boxes:  # sorted by x0
        if box.x0 - at >= gap:
            out.append((at, box.x0))
        at = max(at, box.x1)
    if hi - at >= gap:
        out.append((at, hi))
    return out


def _intersect(a: list[Interval], b: list[Interval], gap: float) -> list[Interval]:
    out = []
    for a0, a1 in a:
        for b0, b1 in b:
            lo, hi = max(a0, b0), min(a1, b1)
            if hi - lo >= gap:
                out.append((lo, hi))
    return out


class _Reader:
    """One page's layout analysis (steps 2 to 5 of the module docstring)."""

    def __init__(self, boxes: list[Box], size_of: Callable[[Box], float] | None) -> None:
        self.unit = statistics.median(b.height for b in boxes)
        self.gap = GUTTER * self.unit
        self.size_of = size_of
        self.columns = 1
        self.notes: list[list[Box]] = []
        self.margins: set[int] = set()  # the boxes of the top and bottom margins

    def read(self, boxes: list[Box], depth: int) -> list[list[Box]]:
        bands = _bands(boxes)
        if depth and not _side_by_side(boxes, self.unit, self.gap):  # a column without columns
            return self._leaf(bands)
        head: list[_Band] = []
        foot: list[_Band] = []
        if depth == 0 and len(bands) > 2 * _MARGIN_BANDS:
            gaps = [a.bottom - b.top for a, b in itertools.pairwise(bands)]
            wide = max(2 * statistics.median(gaps), 1.5 * self.unit)
            thin = 1.5 * self.unit  # a margin is one line high
            while len(head) < _MARGIN_BANDS and gaps[len(head)] > wide:
                if bands[len(head)].top - bands[len(head)].bottom > thin:
                    break
                head.append(bands[len(head)])
            while len(foot) < _MARGIN_BANDS and gaps[-1 - len(foot)] > wide:
                if bands[-1 - len(foot)].top - bands[-1 - len(foot)].bottom > thin:
                    break
                foot.insert(0, bands[-1 - len(foot)])
            bands = bands[len(head) : len(bands) - len(foot)]
            self.margins = {box.index for band in (*head, *foot) for box in band.boxes}
        lines = [line for band in head for line in self._leaf([band])]
        lo, hi = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
        plain: list[_Band] = []  # consecutive sections without columns: one content-order run
        for section, free, left, right in self._sections(bands, lo, hi):
            inner = [g for g in free if left < g[0] and g[1] < right]  # strips with text both sides
            columns = self._columns(section, inner) if inner and depth < _MAX_DEPTH else None
            if columns is None:
                plain += section
                continue
            lines += self._leaf(plain)
            plain = []
            self.columns = max(self.columns, len(columns))
            for column in columns:
                read = self.read(column, depth + 1)
                notes = self._notes(read)
                if notes:
                    self.notes += read[len(read) - notes :]
                    read = read[: len(read) - notes]
                lines += read
        lines += self._leaf(plain)
        if depth == 0:
            lines += self.notes
            lines += [line for band in foot for line in self._leaf([band])]
        return lines

    def _sections(
        self, bands: list[_Band], lo: float, hi: float
    ) -> list[tuple[list[_Band], list[Interval], float, float]]:
        """Consecutive bands that keep a white strip in common, and every gutter either has
        (a strip with text on both sides): a full-width line below a ragged one shares the white
        at the right margin but not the columns' gutter, so it starts a section."""
        out: list[tuple[list[_Band], list[Interval], float, float]] = []
        shared: list[Interval] = []  # the white strips the current section's bands share
        at = to = 0.0  # the current section's leftmost and rightmost x
        for band in bands:
            free = _free(band.boxes, lo, hi, self.gap)
            if len(free) > _STRIPS:  # a band of scattered words, not lines of columns: its own section
                free = []
            left, right = band.left, band.right
            if out:
                both = _intersect(shared, free, self.gap)
                if both and all(
                    any(s[0] < g[1] and g[0] < s[1] for s in both)
                    for g in (*free, *shared)
                    if (left < g[0] and g[1] < right) or (at < g[0] and g[1] < to)
                ):
                    shared, at, to = both, min(at, left), max(to, right)
                    out[-1][0].append(band)
                    out[-1] = (out[-1][0], both, at, to)
                    continue
            shared, at, to = free, left, right
            out.append(([band], free, at, to))
        return out

    def _columns(self, section: list[_Band], inner: list[Interval]) -> list[list[Box]] | None:
        """The section's columns, cut at its inner white strips (all, else the widest), if they
        look like columns of text; else ``None``."""
        if len(section) < MIN_LINES:
            return None
        boxes = [box for band in section for box in band.boxes]
        if len(boxes) < 2 * MIN_LINES:
            return None
        lo, hi = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
        tries = [inner]
        if len(inner) > 1:
            tries.append([max(inner, key=lambda g: g[1] - g[0])])
        for gutters in tries:
            if not gutters:
                continue
            cuts = sorted((g[0] + g[1]) / 2 for g in gutters)
            columns: list[list[Box]] = [[] for _ in range(len(cuts) + 1)]
            for box in boxes:
                columns[sum(1 for cut in cuts if box.x0 > cut)].append(box)
            if (
                max(len(column) for column in columns) >= MIN_LINES
                and all(self._is_text_column(column, hi - lo) for column in columns)
                and _narrow_gutters(sorted(gutters), columns)
            ):
                return columns
        return None

    @staticmethod
    def _is_text_column(column: list[Box], width: float) -> bool:
        if not column:
            return False
        extent = max(b.x1 for b in column) - min(b.x0 for b in column)
        return extent >= 0.2 * width and statistics.median(b.width for b in column) >= FILL * extent

    def _leaf(self, bands: list[_Band]) -> list[list[Box]]:
        """The section's boxes in content order, boxes of one band that follow each other on one line."""
        band_of = {box.index: n for n, band in enumerate(bands) for box in band.boxes}
        lines: list[list[Box]] = []
        last = -1
        for box in sorted((box for band in bands for box in band.boxes), key=lambda b: b.index):
            if lines and band_of[box.index] == last:
                lines[-1].append(box)
            else:
                lines.append([box])
            last = band_of[box.index]
        return lines

    def _notes(self, lines: list[list[Box]]) -> int:
        """How many of a column's last lines are notes (step 5)."""
        if self.size_of is None or len(lines) < 2 * MIN_LINES:
            return 0
        # Lower boxes first (cheap): a note's line is lower than the body's typical line; then
        # the font sizes (a call that scans the page's characters) of a few typical lines and of
        # the low lines at the foot.
        heights = [max(box.height for box in line) for line in lines]
        typical = statistics.median(heights)
        low = 0
        while low < len(lines) // 2 and heights[-1 - low] < NOTE_SIZE * typical:
            low += 1
        if not low:
            return 0
        size_of = self.size_of
        middle = sorted(range(len(lines)), key=lambda i: abs(heights[i] - typical))[:3]
        body = statistics.median(size_of(lines[i][0]) for i in middle)
        notes = 0
        while notes < low and 0 < size_of(lines[-1 - notes][0]) < NOTE_SIZE * body:
            notes += 1
        return notes


def _narrow_gutters(gutters: list[Interval], columns: list[list[Box]]) -> bool:
    """Whether each white strip (left to right) is at most :data:`MAX_GUTTER` of the wider of
    the two columns beside it (each column has boxes: :meth:`_Reader._is_text_column`)."""
    extents = [max(b.x1 for b in column) - min(b.x0 for b in column) for column in columns]
    return all(hi - lo <= MAX_GUTTER * max(extents[k], extents[k + 1]) for k, (lo, hi) in enumerate(gutters))


def _side_by_side(boxes: list[Box], unit: float, gap: float) -> bool:
    """Whether two boxes sit beside each other (tops within a line height, a gutter apart): the
    cheap test that a page may have columns (in a single column, each line is alone at its height)."""
    ordered = sorted(boxes, key=lambda b: -b.y1)
    budget = _STRIPS * len(ordered)  # boxes piled at one height: past this, assume columns may be
    for i, a in enumerate(ordered):
        for j in range(i + 1, len(ordered)):
            b = ordered[j]
            if a.y1 - b.y1 > unit:
                break
            if b.x0 - a.x1 >= gap or a.x0 - b.x1 >= gap:
                return True
            budget -= 1
            if budget < 0:
                return True
    return False


def reading_order(boxes: list[Box], size_of: Callable[[Box], float] | None = None) -> Plan | None:
    """The page's reading order, or ``None`` when it is the content order (module docstring).

    ``size_of`` gives a box's font size, for footnotes (none are looked for without it).
    """
    if len(boxes) < 2 * MIN_LINES:
        return None
    reader = _Reader(boxes, size_of)
    if reader.unit <= 0 or not _side_by_side(boxes, reader.unit, reader.gap):
        return None
    lines = reader.read(boxes, 0)
    body = [box.index for line in lines for box in line if box.index not in reader.margins]
    if body == sorted(body):  # margins drawn first or last stay where they are: the same text
        return None
    return Plan([[box.index for box in line] for line in lines], reader.columns, len(reader.notes))


def _rects(pdfium_c: Any, textpage: Any) -> list[Rect] | None:
    count = pdfium_c.FPDFText_CountRects(textpage, 0, -1)
    if count <= 0 or count > MAX_RECTS:
        return None
    left, top, right, bottom = (ctypes.c_double() for _ in range(4))
    refs = (ctypes.byref(left), ctypes.byref(top), ctypes.byref(right), ctypes.byref(bottom))
    get = pdfium_c.FPDFText_GetRect
    out = []
    for i in range(count):
        if not get(textpage, i, *refs):
            return None
        out.append((left.value, bottom.value, right.value, top.value))
    return out


def _first_chars(pdfium_c: Any, textpage: Any, rects: int, chars: int, text: str) -> list[int]:
    """The index of each rectangle's first character. PDFium counts the rectangles of any range
    of characters the way it counts the page's, so each boundary is the shortest range from the
    last one that holds one rectangle more: tried first just past the next line break (where a
    text object usually ends), else found by exponential then binary search (O(log n) counts)."""
    count = pdfium_c.FPDFText_CountRects
    lines = len(text) == chars  # text index = character index: line breaks are good guesses
    out: list[int] = []
    at = 0
    for k in range(rects):
        want = 1 if k == 0 else 2  # the first rectangle from 0; the next one after this one's start
        lo = hi = want
        brk = text.find("\n", at) if lines else -1
        if brk >= 0 and brk + 2 - at > want:  # a range that ends with the next line's first character
            guess = min(brk + 2 - at, chars - at)
            if count(textpage, at, guess) >= want:
                if count(textpage, at, guess - 1) < want:
                    at += guess - 1
                    out.append(at)
                    continue
                hi = guess - 1
            else:
                lo = hi = guess + 1
        while hi < chars - at and count(textpage, at, hi) < want:
            lo, hi = hi + 1, hi * 2
        hi = min(hi, chars - at)
        while lo < hi:
            mid = (lo + hi) // 2
            if count(textpage, at, mid) >= want:
                hi = mid
            else:
                lo = mid + 1
        at += lo - 1
        out.append(at)
    return out


def _rect_texts(textpage: Any, text: str, starts: list[int], chars: int) -> list[str]:
    """Each rectangle's characters, with the ones PDFium adds after it (spaces, line breaks)."""
    starts = [0, *starts[1:]]
    ends = [*starts[1:], chars]
    if len(text) == chars:  # text index = character index (no character outside the BMP)
        return [text[a:b] for a, b in zip(starts, ends, strict=True)]
    return [textpage.get_text_range(a, b - a) if b > a else "" for a, b in zip(starts, ends, strict=True)]


def _structure_mcids(pdfium_c: Any, page: Any) -> list[int]:
    """The marked-content ids of the page's structure tree, depth first: its reading order."""
    tree = pdfium_c.FPDF_StructTree_GetForPage(page)
    if not tree:
        return []
    try:
        out: list[int] = []
        top = min(pdfium_c.FPDF_StructTree_CountChildren(tree), MAX_ELEMENTS)
        stack: list[tuple[Any, int]] = [
            (pdfium_c.FPDF_StructTree_GetChildAtIndex(tree, i), -1) for i in range(top)
        ]
        stack.reverse()
        visited = 0  # elements and ids taken from the stack and put on it: bounded work
        while stack and visited < MAX_ELEMENTS:
            element, mcid = stack.pop()
            visited += 1
            if mcid >= 0:
                out.append(mcid)
                continue
            if not element:
                continue
            kids: list[tuple[Any, int]] = []
            for i in range(min(pdfium_c.FPDF_StructElement_CountChildren(element), MAX_ELEMENTS - visited)):
                child = pdfium_c.FPDF_StructElement_GetChildAtIndex(element, i)
                if child:
                    kids.append((child, -1))
                else:
                    kids.append((None, pdfium_c.FPDF_StructElement_GetChildMarkedContentID(element, i)))
            if not kids:  # an element whose K is one MCID
                kids.append((None, pdfium_c.FPDF_StructElement_GetMarkedContentID(element)))
            visited += len(kids)
            stack.extend(reversed(kids))
        return out
    finally:
        pdfium_c.FPDF_StructTree_Close(tree)


def _is_artifact(pdfium_c: Any, obj: Any) -> bool:
    """Whether a page object is marked ``/Artifact`` (headers, footers, page numbers, decoration)."""
    name = (ctypes.c_ushort * 16)()
    size = ctypes.c_ulong()
    for i in range(min(pdfium_c.FPDFPageObj_CountMarks(obj), 8)):
        mark = pdfium_c.FPDFPageObj_GetMark(obj, i)
        if (
            mark
            and pdfium_c.FPDFPageObjMark_GetName(mark, name, ctypes.sizeof(name), ctypes.byref(size))
            and bytes(name)[: max(size.value - 2, 0)].decode("utf-16-le", "replace") == "Artifact"
        ):
            return True
    return False


def _tagged_text(
    pdfium_c: Any, page: Any, textpage: Any, text: str, rects: int
) -> tuple[str, Plan | None] | None:
    """The page's text in its structure tree's order, artifacts left out; ``None`` when the
    tree holds less of the page's text than is neither in it nor an artifact (a partly tagged
    file: the layout reads it)."""
    order = _structure_mcids(pdfium_c, page)
    if not order:
        return None
    rank: dict[int, int] = {}
    for mcid in order:
        rank.setdefault(mcid, len(rank))
    raw = textpage.raw
    chars = pdfium_c.FPDFText_CountChars(raw)
    starts = _first_chars(pdfium_c, raw, rects, chars, text)
    pieces = _rect_texts(textpage, text, starts, chars)
    objects = [pdfium_c.FPDFText_GetTextObject(raw, start) for start in starts]
    mcids = [pdfium_c.FPDFPageObj_GetMarkedContentID(obj) if obj else -1 for obj in objects]
    tagged = [k for k in range(rects) if mcids[k] in rank]
    untagged = [k for k in range(rects) if mcids[k] not in rank and pieces[k].strip()]
    artifacts = {k for k in untagged if objects[k] and _is_artifact(pdfium_c, objects[k])}
    loose = [k for k in untagged if k not in artifacts]  # neither in the tree nor an artifact
    if sum(len(pieces[k].strip()) for k in tagged) < sum(len(pieces[k].strip()) for k in loose):
        return None
    kept = sorted(tagged, key=lambda k: (rank[mcids[k]], k)) + loose
    if kept == sorted(kept) and not artifacts:
        return text, None
    groups: list[list[str]] = []  # runs that follow each other in content order keep PDFium's spacing
    for n, k in enumerate(kept):
        if n and k == kept[n - 1] + 1:
            groups[-1].append(pieces[k])
        else:
            groups.append([pieces[k]])
    lines = (" ".join(line.split()) for group in groups for line in "".join(group).splitlines())
    plan = Plan([], 1, 0, "tagged", len(artifacts), kept != sorted(kept))
    return "\n".join(line for line in lines if line), plan


def _size_of(pdfium_c: Any, textpage: Any) -> Callable[[Box], float]:
    """A box's font size: the height of PDFium's loose box (the font's ascent to descent, as drawn)
    of the character nearest its left end."""
    rect = pdfium_c.FS_RECTF()

    def size_of(box: Box) -> float:
        x = box.x0 + min(2.0, box.width / 2)
        index = pdfium_c.FPDFText_GetCharIndexAtPos(
            textpage, x, (box.y0 + box.y1) / 2, box.height / 2 + 1, box.height / 2 + 1
        )
        if index < 0 or not pdfium_c.FPDFText_GetLooseCharBox(textpage, index, ctypes.byref(rect)):
            return 0.0
        return float(rect.top - rect.bottom)

    return size_of


def ordered_text(textpage: Any, text: str) -> tuple[str, Plan | None]:
    """A page's text in reading order: ``text`` (its content-order text from ``textpage``, a
    pypdfium2 ``PdfTextPage``) itself when that is the reading order, else rebuilt from its boxes;
    and the plan that rebuilt it, if one did."""
    import pypdfium2.raw as pdfium_c  # noqa: PLC0415  # the 'convert' extra

    raw = textpage.raw
    rects = _rects(pdfium_c, raw)
    if rects is None:
        return text, None
    page = textpage.page
    if pdfium_c.FPDFCatalog_IsTagged(page.pdf.raw):
        tagged = _tagged_text(pdfium_c, page.raw, textpage, text, len(rects))
        if tagged is not None:
            return tagged
    boxes = page_boxes(rects)
    if not boxes or statistics.median(b.height for b in boxes) > statistics.median(b.width for b in boxes):
        return text, None  # vertical or rotated text: not what the columns model reads
    plan = reading_order(boxes, _size_of(pdfium_c, raw))
    if plan is None:
        return text, None
    chars = pdfium_c.FPDFText_CountChars(raw)
    pieces = _rect_texts(textpage, text, _first_chars(pdfium_c, raw, len(rects), chars, text), chars)
    words = [" ".join("".join(pieces[box.first : box.last + 1]).split()) for box in boxes]
    lines = (" ".join(words[i] for i in line if words[i]) for line in plan.lines)
    return "\n".join(line for line in lines if line), plan
