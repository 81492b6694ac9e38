"""What every converter returns, how it fails, and the bounds it works within.

A converter is a plain function ``(data: bytes, options: ConvertOptions) -> Converted``. It raises
:class:`ConversionError` with a short, countable ``reason`` (``pdf-encrypted``, ``zip-bomb``,
``xml-entities``...) for input it refuses; any other exception is a converter bug or a library
failure and is reported as ``<format>-failed``. Converters never decode from ``doc`` or touch the
pipeline: they see bytes and return data, so they can run in a worker process
(:mod:`trawl.convert.guard`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from trawl.errors import FormatError

__all__ = [
    "ConversionError",
    "ConvertOptions",
    "Converted",
    "Segment",
    "clip_segments",
    "collapse",
    "cut_text",
    "join_lines",
    "segments_of",
]


class ConversionError(FormatError):
    """A file that a converter refuses or cannot read; ``reason`` names why, for counting."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True, frozen=True)
class ConvertOptions:
    """Bounds and context of one conversion (picklable: it travels to worker processes)."""

    url: str = ""
    #: Text longer than this is cut (``convert/capped``).
    max_chars: int = 5_000_000
    #: PDF pages beyond this are not read (``pdf/pages-capped``).
    max_pages: int = 2_000
    #: A ZIP container whose members would expand to more than this is refused as a bomb.
    max_unzipped_bytes: int = 512 * 1024 * 1024
    #: ... and so is one with a member compressed more than this many times (and over 1 MiB).
    max_zip_ratio: int = 200
    #: Spreadsheet cells read at most, over all sheets.
    max_cells: int = 1_000_000
    #: At most this many links are kept.
    max_links: int = 10_000
    #: Mail (:mod:`trawl.convert.mail`): ``"units"`` lists a message's attachments in its
    #: metadata (the units step makes each a document of its own); ``"fold"`` adds their text to
    #: the message's text.
    mail_attachments: str = "units"
    #: Attachments read (listed, or folded) per message, and messages read per mbox, at most.
    mail_max_attachments: int = 100
    mail_max_messages: int = 100_000
    #: An attachment that decodes to more than this many bytes is listed but not folded in.
    mail_max_part_bytes: int = 50 * 1024 * 1024
    #: How deep messages attached to messages are read (``mail_depth`` is this one's depth).
    mail_max_depth: int = 3
    mail_depth: int = 0
    #: PDF: read the outline (bookmarks) into ``section`` segments as well as the pages.
    pdf_outline: bool = False
    #: Render Markdown as well as text (:attr:`Converted.markdown`; :mod:`trawl.convert.markdown`).
    markdown: bool = False
    #: Files embedded in a document (office ``embeddings``, ODF objects, PDF attachments):
    #: ``"units"`` lists them (``metadata["embedded"]``; :mod:`trawl.units.embedded` makes each a
    #: document), ``"fold"`` adds their text to the document's, ``"none"`` leaves them out.
    embedded: str = "units"
    #: Embedded files read per document, the bytes of one, and how deep files in files are read
    #: (``embedded_depth`` is this document's depth).
    embedded_max_objects: int = 100
    embedded_max_bytes: int = 50 * 1024 * 1024
    embedded_max_depth: int = 2
    embedded_depth: int = 0
    #: OCR (:mod:`trawl.convert.ocr`, Tesseract): ``"never"``; ``"auto"``: images, and the PDF
    #: pages with no text layer; ``"always"``: every PDF page as well.
    ocr: str = "never"
    #: Pages (PDF pages, image frames) OCRed per document at most (``ocr/pages-capped``).
    ocr_max_pages: int = 50
    #: Seconds the OCR of one page may take (``ocr/page-timeout``).
    ocr_timeout: float = 60.0
    #: Tesseract languages a page is first read with; the language identified in its text (or
    #: the PDF's text layer) picks another installed one.
    ocr_languages: tuple[str, ...] = ("eng",)
    #: LibreOffice (:mod:`trawl.convert.legacy`): ``"auto"`` converts the legacy Office files the
    #: Python readers cannot read (when ``soffice`` is installed), ``"always"`` reads every
    #: ``.doc``, ``.xls`` and ``.ppt`` with it, ``"never"`` none.
    libreoffice: str = "auto"
    #: Seconds one LibreOffice conversion may take, and its address space in bytes (0: no limit).
    libreoffice_timeout: float = 20.0
    libreoffice_max_memory: int = 4 * 1024**3
    #: PDF: read each page in its layout's order (columns, margins, footnotes:
    #: :mod:`trawl.convert.pdflayout`); ``False`` keeps PDFium's content order.
    pdf_layout: bool = True


class Segment(NamedTuple):
    """A part of a converted document that the document itself delimits: a PDF's page or outline
    section, a slide, a sheet, an EPUB chapter. ``start``/``end`` are character offsets into the
    :class:`Converted` text (``text[start:end]`` is the part, without the newline that joins it
    to the next); ``position`` is its number in the document, from 1 (page 7 is the seventh page,
    whether or not page 6 has text); ``title`` is its own (a slide's or chapter's title, a sheet's
    name), or empty."""

    kind: str
    position: int
    title: str
    start: int
    end: int


@dataclass(slots=True)
class Converted:
    """A converter's result: text with its block boundaries as newlines, and what it found.

    ``metadata`` uses the keys HTML pages use where they mean the same (``description``,
    ``keywords``, ``author``, ``lang``, ``headings`` as ``[{"level", "text"}]``, ``canonical``)
    plus ``created``, ``modified``, ``published`` (ISO 8601), ``pages``, ``sheets``, ``slides``,
    ``items`` (feeds), ``producer``. ``needs_ocr`` marks a scanned document: pages of images with
    little or no text layer.
    """

    text: str = ""
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    links: list[tuple[str, str]] = field(default_factory=list)  # (url, anchor text)
    needs_ocr: bool = False
    #: Pages, sections, slides, sheets or chapters, in order (:class:`Segment`); what the units
    #: step (:mod:`trawl.units.pages`) cuts the document into when asked to.
    segments: list[Segment] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: The document as Markdown (headings, lists, tables, links), when ``options.markdown``.
    markdown: str = ""

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


#: How far back from the limit a cut looks for the end of a word (or better, of a line).
_CUT_WINDOW = 2000


def cut_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters at the end of a line or, failing that, of a
    word within the last :data:`_CUT_WINDOW` characters (mid-word only when there is none), and
    whether it was cut."""
    if len(text) <= limit:
        return text, False
    window = max(0, limit - _CUT_WINDOW)
    at = text.rfind("\n", window, limit + 1)
    if at <= window:
        at = max(text.rfind(" ", window, limit + 1), text.rfind("\t", window, limit + 1))
    return (text[:at] if at > window else text[:limit]).rstrip(), True


def segments_of(blocks: list[str], marks: list[tuple[int, str, int, str]]) -> list[Segment]:
    """The segments of ``"\\n".join(b for b in blocks if b)``: each mark ``(first block, kind,
    position, title)`` runs to the next mark's first block (the last one to the end). A segment
    whose blocks are all empty has an empty span where it would be."""
    starts: list[int] = []  # where each block starts in the joined text
    ends: list[int] = []
    pos = 0
    any_text = False
    for block in blocks:
        if block:
            pos += any_text  # the newline before it
            any_text = True
            starts.append(pos)
            pos += len(block)
        else:
            starts.append(pos)
        ends.append(pos)
    out: list[Segment] = []
    for i, (first, kind, position, title) in enumerate(marks):
        last = marks[i + 1][0] if i + 1 < len(marks) else len(blocks)
        texts = [b for b in range(first, last) if blocks[b]]
        if texts:
            out.append(Segment(kind, position, title, starts[texts[0]], ends[texts[-1]]))
        else:
            at = ends[first - 1] if 0 < first <= len(ends) else 0
            out.append(Segment(kind, position, title, at, at))
    return out


def clip_segments(segments: list[Segment], length: int) -> list[Segment]:
    """``segments`` of a text cut to ``length`` characters: those that start past it are gone,
    the one it cuts ends there."""
    return [
        s._replace(end=min(s.end, length)) for s in segments if s.start < length or s.start == s.end <= length
    ]


def collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped."""
    return " ".join(text.split())


def join_lines(lines: list[str]) -> str:
    """Non-empty lines, each whitespace-collapsed, joined by newlines."""
    out = []
    for line in lines:
        cleaned = " ".join(line.split())
        if cleaned:
            out.append(cleaned)
    return "\n".join(out)
