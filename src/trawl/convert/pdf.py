"""PDF to text with pypdfium2 (PDFium: Apache-2.0/BSD-3), pypdf (BSD-3) as the fallback.

Text comes from PDFium's text layer page by page, in reading order: PDFium's content order
(with its line breaks) where that is the reading order, else the structure tree's order of a
tagged PDF or the order its layout gives (columns one after the other, footnotes at the page's
end: :mod:`trawl.convert.pdflayout`; ``options.pdf_layout``, counted ``pdf/pages-reordered``), and
is then cleaned the way a search engine needs it:

* **hyphenation**: PDFium marks a hyphen it judged to be a line-end hyphenation with U+FFFE and
  joins the word itself; a plain ``-`` at the end of a line followed by a lower-case letter is
  joined too (``exam-\\nple`` → ``example``);
* **ligatures** (U+FB00-FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) are mapped to their letters, so ``ﬁnal`` matches
  ``final``;
* **running headers, footers and page numbers**: a line among the first or last two of a page
  that recurs (digits ignored) on at least half of the pages, three at least (on every page of
  a document of two or three pages), is dropped, and so
  is a bare page number (``12``, ``Page 3 of 10``, ``- iv -``) opening or closing a page of a
  multi-page document;
* **scanned PDFs**: a page with image objects and (almost) no text is counted; when such pages
  are at least half of those read, the result is flagged ``needs_ocr`` (text is not invented).
  A page whose text layer is mostly private-use, replacement or control characters (fonts with
  no usable character map: glyph ids, not words) counts the same way, and its junk is dropped
  (``pdf/garbled-pages``). With ``options.ocr`` other than ``"never"`` those pages (``"always"``:
  every page) are rendered and read by Tesseract (:func:`trawl.convert.ocr.read_pdf_pages`); the
  pages OCR read no longer count as scanned.

Segments (:attr:`Converted.segments`, what page and section units are cut by): one ``page`` per
page read, its span its text after the cleaning above (an empty span for a page with no text),
and with ``pdf_outline`` one ``section`` per outline entry (bookmark) that points at a page read,
all levels flattened in page order: it starts where its title is found on its page (the page's
start when it is not) and runs to the next one's start, the last to the end of the text.

Bounds: at most ``max_pages`` pages are read (``pdf/pages-capped``; ``metadata["pages"]`` is
always the full count), text is cut at ``max_chars``. Encrypted files that need a password are
refused (``pdf-encrypted``), unreadable ones too (``pdf-malformed``). Metadata: title, author,
subject, keywords, creator, producer and the creation and modification dates. Links: the
http(s) targets of link annotations, with the text under each as anchor text, and URLs written
in the text (PDFium's web-link detection, the URL as its own anchor text).
"""

from __future__ import annotations

import io
import itertools
import re
from typing import Any

from trawl.convert.base import (
    ConversionError,
    Converted,
    ConvertOptions,
    Segment,
    clip_segments,
    collapse,
    cut_text,
    segments_of,
)
from trawl.convert.pdflayout import ordered_text
from trawl.errors import MissingDependency

__all__ = [
    "GARBLED_SHARE",
    "LIGATURES",
    "clean_page_text",
    "convert_pdf",
    "convert_pdf_pypdf",
    "drop_running_lines",
    "garbled",
]

#: Ligature code points and the letters they stand for.
LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-\n(?=[a-zà-ÿ])")
_DASHES = "-\u2013\u2014"  # hyphen, en dash, em dash around a page number: "- 4 -"
_PAGE_NUMBER = re.compile(
    rf"^(?:[{_DASHES}]\s*)?(?:page\s+|p\.\s*|seite\s+)?(?:\d{{1,5}}|[ivxlcdm]{{1,7}})"
    rf"(?:\s*(?:of|/|von|de)\s*\d{{1,5}})?(?:\s*[{_DASHES}])?$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_EDGE = 2  # how many lines at the top and the bottom of a page may be running lines
_SCANNED_CHARS = 20  # fewer characters than this on a page with images: a scanned page
_OUTLINE_ENTRIES = 10_000  # outline entries read at most (a hostile outline can be any size)
_OUTLINE_DEPTH = 8


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_JUNK = re.compile(r"[\ue000-\uf8ff\ufffd\x00-\x08\x0b-\x1f]")
#: A page whose text is more than this share of private-use, replacement and control characters
#: has fonts without a usable character map: its "text" is glyph ids, not words.
GARBLED_SHARE = 0.3


def garbled(text: str) -> bool:
    """Whether a page's raw text is mostly glyph ids rather than characters (see GARBLED_SHARE)."""
    if len(text) < _SCANNED_CHARS:
        return False
    return len(_JUNK.findall(text)) > GARBLED_SHARE * len(text.strip())


def clean_page_text(text: str) -> str:
    """One page's text: LF line ends, PDFium's hyphen markers and ligatures resolved, control
    characters removed, lines trimmed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # the marker ends a line where the page was rebuilt in reading order: the next line goes on the word
    text = text.replace("\ufffe\n", "").replace("\ufffe", "")
    text = _CONTROLS.sub("", text)
    text = text.translate(LIGATURES)
    text = _HYPHEN_BREAK.sub("", text)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def _key(line: str) -> str:
    return _DIGITS.sub("#", line.lower())


def _runs(where: dict[int, str]) -> bool:
    """Whether the lines of one key, by page, are one running line: the same text on each page,
    or a text whose numbers that change go up with the page (``Page 3 of 10``, ``Report — 7``).
    Body lines that differ only in their numbers (``Table 1 shows``, ``Table 4 shows``) are not."""
    if len(set(where.values())) == 1:
        return True
    numbers = [(page, [int(d) for d in _DIGITS.findall(line)]) for page, line in sorted(where.items())]
    width = len(numbers[0][1])
    if any(len(ns) != width for _, ns in numbers):
        return False
    changing = [i for i in range(width) if len({ns[i] for _, ns in numbers}) > 1]
    return all(
        all(b[1][i] - a[1][i] == b[0] - a[0] for a, b in itertools.pairwise(numbers)) for i in changing
    )


def drop_running_lines(pages: list[list[str]]) -> tuple[list[list[str]], int]:
    """Remove running headers/footers and page numbers (see the module docstring).

    Returns the pages' remaining lines and the number of lines removed.
    """
    n = len(pages)
    if n < 2:
        return pages, 0
    seen: dict[str, dict[int, str]] = {}  # key → {page: the line}
    for page, lines in enumerate(pages):
        for line in {*lines[:_EDGE], *lines[-_EDGE:]}:
            seen.setdefault(_key(line), {}).setdefault(page, line)
    need = n if n < 4 else max(3, (n + 1) // 2)  # two or three pages: on every one of them
    running = {key for key, where in seen.items() if len(where) >= need and _runs(where)}
    removed = 0
    out: list[list[str]] = []
    for lines in pages:
        keep = list(lines)
        for index in (*range(min(_EDGE, len(lines))), *range(max(len(lines) - _EDGE, 0), len(lines))):
            line = lines[index]
            if _key(line) in running or _PAGE_NUMBER.match(line):
                keep[index] = ""
        removed += sum(1 for line in keep if not line) - sum(1 for line in lines if not line)
        out.append([line for line in keep if line])
    return out, removed


def _finish(
    pages: list[str],
    meta: dict[str, Any],
    options: ConvertOptions,
    scanned: int,
    read: int,
    *,
    outline: list[tuple[str, int]] | None = None,
) -> Converted:
    split = [page.split("\n") if page else [] for page in pages]
    kept, removed = drop_running_lines(split)
    blocks = ["\n".join(lines) for lines in kept]
    text = "\n".join(block for block in blocks if block)
    out = Converted(text=text, metadata=meta)
    out.segments = segments_of(blocks, [(i, "page", i + 1, "") for i in range(len(blocks))])
    if outline:
        out.segments += sections(text, out.segments, outline)
    if removed:
        out.count("pdf/running-lines-dropped", removed)
    if read and scanned * 2 >= read and scanned:
        out.needs_ocr = True
        out.count("pdf/needs-ocr")
    out.text, capped = cut_text(out.text, options.max_chars)
    if capped:
        out.count("convert/capped")
        meta["truncated"] = True
        out.segments = clip_segments(out.segments, len(out.text))
    title = meta.get("title")
    out.title = title if isinstance(title, str) else ""
    return out


def sections(text: str, pages: list[Segment], outline: list[tuple[str, int]]) -> list[Segment]:
    """``section`` segments of ``text`` from outline entries ``(title, page index)`` (see the
    module docstring); ``pages`` are the page segments, in page order."""
    starts: list[tuple[int, str]] = []
    floor = 0
    ordered = sorted(range(len(outline)), key=lambda i: (outline[i][1], i))
    for i in ordered:
        title, index = outline[i]
        if not 0 <= index < len(pages):
            continue
        page = pages[index]
        start = max(page.start, floor)
        needle = collapse(title)
        at = text.find(needle, start, max(page.end, start)) if needle else -1
        if at >= 0:
            start = at
        starts.append((start, needle[:1000]))
        floor = start
    out = []
    for n, (start, title) in enumerate(starts, 1):
        end = starts[n][0] if n < len(starts) else len(text)
        while end > start and text[end - 1].isspace():
            end -= 1
        out.append(Segment("section", n, title, start, end))
    return out


def _outline(pdf: Any) -> list[tuple[str, int]]:
    """The outline entries' ``(title, page index)``, in outline order (pypdfium2 5: bookmarks with
    destinations; 4: outline items with a page index); entries without a page are skipped."""
    out: list[tuple[str, int]] = []
    for mark in itertools.islice(pdf.get_toc(max_depth=_OUTLINE_DEPTH), _OUTLINE_ENTRIES):
        if hasattr(mark, "get_dest"):
            dest = mark.get_dest()
            index = dest.get_index() if dest is not None else None
            title = mark.get_title()
        else:
            index, title = mark.page_index, mark.title
        if isinstance(index, int) and isinstance(title, str):
            out.append((title, index))
    return out


def _outline_headings(pdf: Any, out: Converted, outline: list[tuple[str, int]] | None) -> None:
    """``metadata["headings"]`` from the outline's titles (level 1; read here unless read already),
    for the Markdown rendering to mark the lines that are headings; none from a damaged outline."""
    import pypdfium2 as pdfium  # noqa: PLC0415  # loaded already: the PDF is open

    if outline is None:
        try:
            outline = _outline(pdf)
        except (pdfium.PdfiumError, ValueError, OSError, UnicodeError):
            return
    headings = [{"level": 1, "text": " ".join(t.split())[:1000]} for t, _ in outline[:100] if t.strip()]
    if headings and "headings" not in out.metadata:
        out.metadata["headings"] = headings


_META_KEYS = {
    "Title": "title",
    "Author": "author",
    "Subject": "subject",
    "Keywords": "keywords",
    "Creator": "creator",
    "Producer": "producer",
    "CreationDate": "created",
    "ModDate": "modified",
}


def convert_pdf(data: bytes, options: ConvertOptions) -> Converted:
    """A PDF's text and metadata through PDFium (module docstring); pypdf when PDFium is absent."""
    try:
        import pypdfium2 as pdfium  # noqa: PLC0415  # the 'convert' extra
        import pypdfium2.raw as pdfium_c  # noqa: PLC0415
    except ImportError:
        return convert_pdf_pypdf(data, options)
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise ConversionError(f"the PDF is encrypted: {message}", "pdf-encrypted") from exc
        raise ConversionError(f"not a readable PDF: {message}", "pdf-malformed") from exc
    try:
        total = len(pdf)
        meta: dict[str, Any] = {"pages": total}
        for key, value in pdf.get_metadata_dict(skip_empty=True).items():
            if key in _META_KEYS and value.strip():
                meta[_META_KEYS[key]] = value.strip()
        pages: list[str] = []
        links: dict[str, str] = {}
        scanned = unreadable = broken = 0
        blank: list[int] = []  # pages with no usable text layer: what OCR reads
        reordered = tagged = notes = artifacts = 0  # pdflayout: pages reordered, by the structure tree
        chars = 0
        read = min(total, options.max_pages)
        for index in range(read):
            try:
                page = pdf[index]
            except pdfium.PdfiumError:  # "Failed to load page": a damaged page object; the rest remain
                broken += 1
                pages.append("")
                continue
            try:
                textpage = page.get_textpage()
                try:
                    raw = textpage.get_text_range()
                    if options.pdf_layout and not garbled(raw):
                        raw, plan = ordered_text(textpage, raw)
                        if plan is not None:
                            reordered += plan.reordered
                            tagged += plan.source == "tagged"
                            notes += plan.footnotes
                            artifacts += plan.artifacts
                    if len(links) < options.max_links:
                        _page_links(pdf, page, textpage, links)
                finally:
                    textpage.close()
                text = clean_page_text(raw)
                if garbled(raw):
                    unreadable += 1
                    blank.append(index)
                    text = ""
                elif len(text) < _SCANNED_CHARS and any(
                    obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=2)
                ):
                    scanned += 1
                    blank.append(index)
            finally:
                page.close()
            pages.append(text)
            chars += len(text)
            if chars > options.max_chars:
                break
        outline = None
        damaged = ""
        if options.pdf_outline:
            try:
                outline = _outline(pdf)
            except (pdfium.PdfiumError, ValueError, OSError, UnicodeError) as exc:
                damaged = f"the outline is unreadable ({type(exc).__name__}: {exc}); pages only"[:300]
        ocr = None
        if options.ocr != "never":
            from trawl.convert.ocr import read_pdf_pages  # noqa: PLC0415  # OCR only when asked

            ocr = read_pdf_pages(pdf, pages, blank, options)
        still_blank = len(set(blank) - set(ocr.read)) if ocr else scanned + unreadable
        out = _finish(pages, meta, options, still_blank, len(pages), outline=outline)
        if options.markdown and not damaged:  # the outline's titles are the Markdown's headings
            _outline_headings(pdf, out, outline)
        if ocr is not None:
            ocr.apply(out)
        if blank:
            out.count("pdf/scanned-pages", len(blank))
        if damaged:  # a damaged outline is no outline: the pages remain
            out.count("pdf/outline-unreadable")
            out.warnings.append(damaged)
        if unreadable:
            out.count("pdf/garbled-pages", unreadable)
        if reordered:
            out.count("pdf/pages-reordered", reordered)
        if notes:
            out.count("pdf/footnotes-moved", notes)
        if tagged:
            out.count("pdf/pages-tagged-order", tagged)
        if artifacts:
            out.count("pdf/artifacts-dropped", artifacts)
        if broken:
            out.count("pdf/broken-pages", broken)
            out.warnings.append(f"{broken} of {read} pages could not be loaded")
        out.links = list(links.items())[: options.max_links]
        if total > options.max_pages:
            out.count("pdf/pages-capped")
            out.warnings.append(f"read {options.max_pages} of {total} pages")
        return out
    finally:
        pdf.close()


def _page_links(pdf: Any, page: Any, textpage: Any, links: dict[str, str]) -> None:
    """The page's http(s) links: link annotations (with the text under them as anchor text), then
    URLs written in the text itself (PDFium's web-link detection). First anchor text wins."""
    import ctypes  # noqa: PLC0415  # only the PDF path needs it

    import pypdfium2.raw as pdfium_c  # noqa: PLC0415

    pos = ctypes.c_int(0)
    link = pdfium_c.FPDF_LINK()
    while pdfium_c.FPDFLink_Enumerate(page.raw, ctypes.byref(pos), ctypes.byref(link)):
        action = pdfium_c.FPDFLink_GetAction(link)
        if not action or pdfium_c.FPDFAction_GetType(action) != pdfium_c.PDFACTION_URI:
            continue
        size = pdfium_c.FPDFAction_GetURIPath(pdf.raw, action, None, 0)
        if size <= 1 or size > 8192:
            continue
        buf = ctypes.create_string_buffer(size)
        pdfium_c.FPDFAction_GetURIPath(pdf.raw, action, buf, size)
        url = buf.value.decode("utf-8", "replace").strip()
        if not url.startswith(("http://", "https://")) or url in links:
            continue
        rect = pdfium_c.FS_RECTF()
        anchor = ""
        if pdfium_c.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            anchor = " ".join(textpage.get_text_bounded(rect.left, rect.bottom, rect.right, rect.top).split())
        links[url] = anchor
    found = pdfium_c.FPDFLink_LoadWebLinks(textpage.raw)
    if not found:
        return
    try:
        for index in range(min(pdfium_c.FPDFLink_CountWebLinks(found), 1000)):
            size = pdfium_c.FPDFLink_GetURL(found, index, None, 0)
            if size <= 1 or size > 8192:
                continue
            chars = (ctypes.c_ushort * size)()
            pdfium_c.FPDFLink_GetURL(found, index, chars, size)
            url = bytes(chars).decode("utf-16-le", "replace").rstrip("\x00").strip()
            if url.startswith(("http://", "https://")) and url not in links:
                links[url] = url
    finally:
        pdfium_c.FPDFLink_CloseWebLinks(found)


def convert_pdf_pypdf(data: bytes, options: ConvertOptions) -> Converted:
    """The same through pypdf (pure Python): slower, used when pypdfium2 is not installed."""
    try:
        import pypdf  # noqa: PLC0415
        from pypdf.errors import PyPdfError  # noqa: PLC0415
    except ImportError as exc:
        raise MissingDependency("pypdfium2", "convert", "the PDF converter") from exc
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ConversionError("the PDF is encrypted", "pdf-encrypted")
        total = len(reader.pages)
        meta: dict[str, Any] = {"pages": total}
        info: Any = reader.metadata or {}
        for key, value in info.items():
            name = _META_KEYS.get(str(key).lstrip("/"))
            if name and isinstance(value, str) and value.strip():
                meta[name] = value.strip()
        pages: list[str] = []
        scanned = 0
        for index in range(min(total, options.max_pages)):
            page = reader.pages[index]
            raw = page.extract_text() or ""
            text = "" if garbled(raw) else clean_page_text(raw)
            if garbled(raw) or (len(text) < _SCANNED_CHARS and list(page.images)):
                scanned += 1
            pages.append(text)
    except ConversionError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise ConversionError(f"not a readable PDF: {type(exc).__name__}: {exc}", "pdf-malformed") from exc
    return _finish(pages, meta, options, scanned, len(pages))
