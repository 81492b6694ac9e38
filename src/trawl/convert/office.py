"""Office documents to text: DOCX, PPTX, XLSX, ODT, ODS, ODP and EPUB, read straight from their XML.

All seven are ZIP packages of XML parts, so one careful reader serves them all, with no office
library at run time (python-docx and friends are used only to *write* the test corpus):

* the package is opened by :func:`open_package`, which refuses a ZIP whose members would expand
  past ``max_unzipped_bytes`` or are compressed more than ``max_zip_ratio`` times (``zip-bomb``),
  an encrypted one (``encrypted``) and one with no readable central directory
  (``zip-truncated``); members are read with a byte budget that the declared sizes cannot cheat
  (the decompressor stops at the declared size, and the budget stops the total);
* every XML part goes through :func:`~trawl.convert.xmlsafe.parse_xml` with DTDs forbidden;
* the text is walked in document order (:class:`_Walker`): one line per paragraph, text boxes
  and table cells as their own lines, tabs and line breaks kept as separators, deleted revisions
  and field codes left out, and for Word's ``mc:AlternateContent`` only the first choice (the
  fallback repeats the same text box).

What each format adds: DOCX headings (paragraph styles ``Title``, ``Heading 1-9``), hyperlinks
with their text, footnotes and endnotes; PPTX slides in presentation order, slide titles as
headings, tables, speaker notes and run hyperlinks; XLSX sheet names (as headings and in
``metadata["sheets"]``), shared and inline strings, numbers, one line per row; ODF headings
(``text:h``), links (``text:a``), sheet names, speaker notes; EPUB chapters in spine order
through the HTML converter. Segments (:attr:`~trawl.convert.base.Converted.segments`, what units
are cut by): PPTX and ODP slides (titled by their title placeholder or frame; speaker notes are
their slide's), XLSX and ODS sheets (titled by their names, which open their text), EPUB chapters
(spine items, numbered in spine order and titled by the table of contents, NCX or EPUB 3 nav, else
their first heading, else their ``<title>``). Document properties (``docProps/core.xml``,
``meta.xml``, the OPF metadata) give title, author, dates, subject, description, keywords and language.
"""

from __future__ import annotations

import io
import lzma
import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from trawl.convert.base import ConversionError, Converted, ConvertOptions, collapse, segments_of
from trawl.convert.markdown import MarkdownWriter, blocks_markdown, escape
from trawl.convert.markdown import link as md_link
from trawl.convert.xmlsafe import XmlError, local_name, parse_xml
from trawl.html.page import read_page

__all__ = [
    "convert_docx",
    "convert_epub",
    "convert_odf",
    "convert_pptx",
    "convert_xlsx",
    "open_package",
]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_DCTERMS = "{http://purl.org/dc/terms/}"
_CP = "{http://schemas.openxmlformats.org/package/2006/metadata/core-properties}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
_XLINK = "{http://www.w3.org/1999/xlink}"
_PRES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_OPF = "{http://www.idpf.org/2007/opf}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
_WP = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}"
_CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}"

_ONE_MIB = 1024 * 1024


# --- the package -----------------------------------------------------------------------------------


class Package:
    """An opened, checked ZIP package with a byte budget for reading its members."""

    def __init__(self, zf: zipfile.ZipFile, budget: int) -> None:
        self.zf = zf
        self.names = set(zf.namelist())
        self.budget = budget

    def read(self, name: str) -> bytes | None:
        """A member's bytes, ``None`` when absent; raises ``zip-bomb`` past the byte budget."""
        if name not in self.names:
            return None
        try:
            with self.zf.open(name) as fh:
                data = fh.read(self.budget + 1)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise ConversionError(f"member {name!r} is damaged: {exc}", "zip-damaged") from exc
        except RuntimeError as exc:
            if type(exc) is RuntimeError:  # zipfile's "encrypted, password required"
                raise ConversionError(f"member {name!r} is encrypted", "encrypted") from exc
            # its subclass: a compression method or ZIP version zipfile lacks
            raise ConversionError(f"member {name!r} cannot be read: {exc}", "zip-unsupported") from exc
        if len(data) > self.budget:
            raise ConversionError(f"members expand past the limit while reading {name!r}", "zip-bomb")
        self.budget -= len(data)
        return data

    def xml(self, name: str) -> ET.Element | None:
        data = self.read(name)
        if data is None:
            return None
        try:
            return parse_xml(data, forbid_dtd=True)
        except XmlError as exc:
            raise ConversionError(f"{name}: {exc}", exc.reason) from exc


def open_package(data: bytes, options: ConvertOptions) -> Package:
    """Open ``data`` as a ZIP package after checking it is not a bomb (see the module docstring)."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ConversionError(f"not a readable ZIP package (truncated?): {exc}", "zip-truncated") from exc
    except RuntimeError as exc:  # "zip file version 20.9": a ZIP feature zipfile lacks
        raise ConversionError(f"a ZIP package that cannot be read: {exc}", "zip-unsupported") from exc
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise ConversionError(f"member {info.filename!r} is encrypted", "encrypted")
        total += info.file_size
        if info.file_size > _ONE_MIB and info.file_size > options.max_zip_ratio * max(info.compress_size, 1):
            raise ConversionError(
                f"member {info.filename!r} expands {info.compress_size} bytes to {info.file_size}: "
                f"over {options.max_zip_ratio} times",
                "zip-bomb",
            )
    if total > options.max_unzipped_bytes:
        raise ConversionError(
            f"members expand to {total} bytes, over the limit of {options.max_unzipped_bytes}", "zip-bomb"
        )
    return Package(zf, options.max_unzipped_bytes)


def _rels(package: Package, part: str) -> dict[str, tuple[str, str, bool]]:
    """A part's relationships: id → (type, target resolved to a part name or URL, external)."""
    folder, name = posixpath.split(part)
    root = package.xml(posixpath.join(folder, "_rels", name + ".rels"))
    out: dict[str, tuple[str, str, bool]] = {}
    if root is None:
        return out
    for rel in root.iter(f"{_PKG_REL}Relationship"):
        target = rel.get("Target", "")
        external = rel.get("TargetMode", "") == "External"
        if not external:
            target = posixpath.normpath(
                target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            )
        out[rel.get("Id", "")] = (rel.get("Type", ""), target, external)
    return out


# --- walking text in document order ---------------------------------------------------------------


@dataclass
class _Walker:
    """Collects lines from XML in document order; see the module docstring."""

    blocks: frozenset[str]
    skip: frozenset[str] = frozenset()
    text_tags: frozenset[str] | None = None  # None: mixed content (ODF): every text and tail counts
    tabs: frozenset[str] = frozenset()
    breaks: frozenset[str] = frozenset()
    heading: Callable[[ET.Element], int | None] = lambda _el: None
    link: Callable[[ET.Element], str | None] = lambda _el: None
    spaces: str = ""  # ODF's <text:s text:c="N"/>
    # Tags that need the recursive walk (links); without them, and without nested blocks, a
    # paragraph of an element-only format is read in one flat loop (several times faster).
    complex_tags: frozenset[str] = frozenset()
    # Embedded objects (an image's alt text, a chart): ``objects`` gives the lines each of these
    # tags adds, after its paragraph's.
    object_tags: frozenset[str] = frozenset()
    objects: Callable[[ET.Element], list[str]] = lambda _el: []
    lines: list[str] = field(default_factory=list)
    headings: list[dict[str, Any]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)

    def walk(self, el: ET.Element, buf: list[str] | None = None) -> None:
        tag = el.tag
        if tag in self.skip:
            return
        if tag == f"{_MC}AlternateContent":
            for child in el:  # the first choice only: the fallback repeats it
                self.walk(child, buf)
                return
            return
        mixed = self.text_tags is None
        if tag in self.blocks or buf is None:
            slot = len(self.lines)
            self.lines.append("")
            own = None if mixed else self._flat(el)
            if own is None:
                own = []
                self._inline(el, own, mixed)
            text = "\n".join(collapse(part) for part in "".join(own).split("\n") if part.strip())
            self.lines[slot] = text
            level = self.heading(el) if tag in self.blocks else None
            if level is not None and text:
                self.headings.append({"level": level, "text": collapse(text)[:1000]})
            return
        self._inline(el, buf, mixed)

    def _flat(self, el: ET.Element) -> list[str] | None:
        """The text of a paragraph with no nested blocks, links or alternate content, else ``None``."""
        parts: list[str] = []
        text_tags = self.text_tags or frozenset()
        avoid = self.blocks | self.complex_tags | self.object_tags | {f"{_MC}AlternateContent"}
        for node in el.iter():
            tag = node.tag
            if tag in text_tags:
                if node.text:
                    parts.append(node.text)
            elif tag in self.tabs:
                parts.append("\t")
            elif tag in self.breaks:
                parts.append("\n")
            elif tag in avoid and node is not el:
                return None
        return parts

    def _inline(self, el: ET.Element, buf: list[str], mixed: bool) -> None:
        tag = el.tag
        if tag in self.tabs:
            buf.append("\t")
        elif tag in self.breaks:
            buf.append("\n")
        elif tag == self.spaces:
            buf.append(" " * min(int(el.get(f"{_TEXT}c", "1") or 1), 100))
        elif tag in self.object_tags:
            self.lines.extend(line for line in self.objects(el) if line)
        target = self.link(el)
        start = len(buf)
        if el.text and (mixed or (self.text_tags is not None and tag in self.text_tags)):
            buf.append(el.text)
        for child in el:
            if child.tag in self.blocks:
                self.walk(child)
            elif child.tag not in self.skip:
                if child.tag == f"{_MC}AlternateContent":
                    self.walk(child, buf)
                else:
                    self._inline(child, buf, mixed)
            if mixed and child.tail:
                buf.append(child.tail)
        if target:
            self.links.append((target, collapse("".join(buf[start:]))))

    def text(self) -> str:
        return "\n".join(line for line in self.lines if line)


# --- document properties ---------------------------------------------------------------------------


def _core_properties(package: Package, part: str = "docProps/core.xml") -> dict[str, Any]:
    root = package.xml(part)
    meta: dict[str, Any] = {}
    if root is None:
        return meta
    names = {
        f"{_DC}title": "title",
        f"{_DC}creator": "author",
        f"{_CP}lastModifiedBy": "last_modified_by",
        f"{_DCTERMS}created": "created",
        f"{_DCTERMS}modified": "modified",
        f"{_DC}subject": "subject",
        f"{_DC}description": "description",
        f"{_CP}keywords": "keywords",
        f"{_DC}language": "lang",
        f"{_CP}category": "category",
    }
    for child in root:
        key = names.get(child.tag)
        if key and child.text and child.text.strip():
            meta[key] = child.text.strip()
    return meta


def _finish(walker: _Walker, meta: dict[str, Any], options: ConvertOptions) -> Converted:
    out = Converted(text=walker.text(), metadata=meta)
    if walker.headings:
        meta["headings"] = walker.headings[:100]
    out.links = walker.links[: options.max_links]
    title = meta.get("title")
    if isinstance(title, str):
        out.title = title
    else:
        out.title = next((str(h["text"]) for h in walker.headings if h["level"] <= 1), "")
    return out


# --- embedded objects: images' alt text, charts ---------------------------------------------------


_IMAGE_NAME = re.compile(r"\S+\.(?:png|jpe?g|gif|bmp|tiff?|emf|wmf|svg|webp)", re.IGNORECASE)


class _Objects:
    """Images' alt text and charts' titles and series names, as lines of their document's text;
    counted ``office/alt-text``, ``office/charts`` and ``office/chart-unreadable`` (a chart part
    that cannot be read is left out, its document read on)."""

    def __init__(self, package: Package) -> None:
        self.package = package
        self.counts: dict[str, int] = {}

    def _count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def alt(self, el: ET.Element | None) -> str:
        """The alt text of a drawing's ``docPr``/``cNvPr`` (its ``descr``), counted; a bare file
        name (``IMG_0012.JPG``, which writers put there when no one wrote alt text) is none."""
        text = collapse(el.get("descr") or "") if el is not None else ""
        if _IMAGE_NAME.fullmatch(text):
            return ""
        if text:
            self._count("office/alt-text")
        return text[:2000]

    def chart(self, part: str) -> list[str]:
        """A DrawingML chart part's titles (the chart's, its axes') and series names."""
        try:
            root = self.package.xml(part)
        except ConversionError as exc:
            if exc.reason == "zip-bomb":
                raise
            self._count("office/chart-unreadable")
            return []
        if root is None:
            return []
        self._count("office/charts")
        lines: list[str] = []
        for title in root.iter(f"{_C}title"):
            text = collapse(" ".join(t.text or "" for t in title.iter(f"{_A}t")))
            text = text or collapse(" ".join(v.text or "" for v in title.iter(f"{_C}v")))
            if text and text not in lines:
                lines.append(text[:1000])
        for series in root.iter(f"{_C}ser"):
            tx = series.find(f"{_C}tx")
            name = collapse(" ".join(v.text or "" for v in tx.iter(f"{_C}v"))) if tx is not None else ""
            if name and name not in lines:
                lines.append(name[:1000])
        return lines

    def drawing(self, el: ET.Element, rels: dict[str, tuple[str, str, bool]]) -> tuple[str, str, list[str]]:
        """A drawing (``wp:inline``, ``wp:anchor``, ``p:pic``, ``p:graphicFrame``...): its image's
        alt text, the image's part name, and its chart's lines."""
        props = next((e for e in el.iter() if e.tag.endswith(("}docPr", "}cNvPr"))), None)
        alt = self.alt(props)
        blip = el.find(f".//{_A}blip")
        rel = rels.get(blip.get(f"{_R}embed", "")) if blip is not None else None
        image = rel[1] if rel is not None and not rel[2] else ""
        chart = el.find(f".//{_C}chart")
        target = rels.get(chart.get(f"{_R}id", "")) if chart is not None else None
        lines = self.chart(target[1]) if target is not None and not target[2] else []
        return alt, image, lines

    def finish(self, out: Converted) -> Converted:
        for key, n in self.counts.items():
            out.count(key, n)
        return out


def _md_links(text: str, links: list[tuple[str, str]]) -> str:
    """A paragraph's ``text`` as Markdown with its ``links`` (target, anchor text; in the order
    they stand) written in, each looked for after the one before it (never inside it)."""
    rest = escape(text)
    out: list[str] = []
    for url, label in links:
        at = rest.find(label) if label else -1
        if at >= 0:
            out += [rest[:at], md_link(label, url)]
            rest = rest[at + len(label) :]
    out.append(rest)
    return "".join(out)


# --- DOCX ------------------------------------------------------------------------------------------


def convert_docx(data: bytes, options: ConvertOptions) -> Converted:
    """A Word document: body, text boxes, tables, footnotes, endnotes; headings and links."""
    package = open_package(data, options)
    main = "word/document.xml"
    root = package.xml(main)
    if root is None:
        raise ConversionError("no word/document.xml: not a Word document", "docx-no-body")
    rels = _rels(package, main)
    styles: _StyleNames | None = None  # read when the first styled paragraph needs it

    def heading(el: ET.Element) -> int | None:
        style = el.find(f"{_W}pPr/{_W}pStyle")
        if style is None:
            return None
        nonlocal styles
        if styles is None:
            styles = _StyleNames(package.read("word/styles.xml") or b"")
            if styles.foreign_prefix and styles.data:
                styles.names = _parse_style_names(styles.data)
        name = styles(style.get(f"{_W}val", ""))
        if name == "title":
            return 0
        if name.startswith("heading") and name[7:].strip().isdecimal():
            return int(name[7:].strip())
        return None

    def link(el: ET.Element) -> str | None:
        if el.tag != f"{_W}hyperlink":
            return None
        rel = rels.get(el.get(f"{_R}id", ""))
        return rel[1] if rel is not None and rel[2] else None

    objects = _Objects(package)

    def drawing(el: ET.Element) -> list[str]:
        alt, _image, chart = objects.drawing(el, rels)
        return [alt, *chart]

    def make_walker(objects_of: Callable[[ET.Element], list[str]]) -> _Walker:
        return _Walker(
            blocks=frozenset({f"{_W}p"}),
            skip=frozenset({f"{_W}delText", f"{_W}instrText", f"{_W}pPr", f"{_W}rPr", f"{_W}sectPr"}),
            text_tags=frozenset({f"{_W}t"}),
            tabs=frozenset({f"{_W}tab"}),
            breaks=frozenset({f"{_W}br", f"{_W}cr"}),
            heading=heading,
            link=link,
            complex_tags=frozenset({f"{_W}hyperlink"}),
            object_tags=frozenset({f"{_WP}inline", f"{_WP}anchor"}),
            objects=objects_of,
        )

    walker = make_walker(drawing)
    body = root.find(f"{_W}body")
    for child in body if body is not None else root:
        walker.walk(child)
    notes_parts = [package.xml(part) for part in ("word/footnotes.xml", "word/endnotes.xml")]
    note_blocks = [
        child
        for notes in notes_parts
        if notes is not None
        for note in notes
        if note.get(f"{_W}type") in (None, "normal")
        for child in note
    ]
    for child in note_blocks:
        walker.walk(child)
    out = _finish(walker, _core_properties(package), options)
    if options.markdown:
        md_objects = _Objects(package)  # counted once, by the text's walk
        out.markdown = _docx_markdown(
            [*(body if body is not None else root), *note_blocks],
            make_walker,
            heading,
            lambda el: md_objects.drawing(el, rels),
            lambda sid: styles(sid) if styles is not None else sid.lower(),
            package,
        )
    return objects.finish(out)


def _docx_markdown(  # noqa: PLR0917 -- the closures of convert_docx it shares
    blocks: list[ET.Element],
    make_walker: Callable[[Callable[[ET.Element], list[str]]], _Walker],
    heading: Callable[[ET.Element], int | None],
    drawing: Callable[[ET.Element], tuple[str, str, list[str]]],
    style_name: Callable[[str], str],
    package: Package,
) -> str:
    """A Word document's body (and notes) as Markdown: headings by paragraph style, list items
    (numbered paragraphs, ``List …`` styles) by level, tables, links, images' alt text."""
    md = MarkdownWriter()
    extras: list[str] = []  # what the paragraph's drawings add: images, charts' lines

    def hook(el: ET.Element) -> list[str]:
        alt, image, chart = drawing(el)
        if alt or image:
            extras.append(f"![{alt.replace(']', ' ')}]({image})")
        extras.extend(escape(line) for line in chart)
        return []

    walker = make_walker(hook)
    formats = _numbering_formats(package) if any(b.tag == f"{_W}p" for b in blocks) else {}

    def text_of(p: ET.Element) -> tuple[str, list[str]]:
        walker.lines.clear()
        walker.links.clear()
        extras.clear()
        walker.walk(p)
        first = walker.lines[0] if walker.lines else ""
        rest = [escape(line) for line in walker.lines[1:] if line]
        return _md_links(first, walker.links), [*rest, *extras]

    def paragraph(p: ET.Element) -> None:
        text, more = text_of(p)
        level = heading(p)
        props = p.find(f"{_W}pPr")
        num = props.find(f"{_W}numPr") if props is not None else None
        style = props.find(f"{_W}pStyle") if props is not None else None
        name = style_name(style.get(f"{_W}val", "")) if style is not None else ""
        if level is not None:
            md.heading(level or 1, text)
        elif num is not None or name.startswith(("list bullet", "list number")):
            depth_el = num.find(f"{_W}ilvl") if num is not None else None
            depth = int(depth_el.get(f"{_W}val", "0")) if depth_el is not None else 0
            num_id = num.find(f"{_W}numId") if num is not None else None
            fmt = formats.get((num_id.get(f"{_W}val", ""), depth)) if num_id is not None else None
            ordered = fmt not in (None, "bullet", "none") if fmt else name.startswith("list number")
            md.item(text, depth, ordered=ordered)
        elif text:
            md.markdown(text)
        for line in more:
            md.markdown(line)

    def visit(el: ET.Element) -> None:
        if el.tag == f"{_W}p":
            paragraph(el)
        elif el.tag == f"{_W}tbl":
            rows = []
            for tr in el.iterfind(f"{_W}tr"):
                cells = []
                for tc in tr.iterfind(f"{_W}tc"):
                    parts = [text_of(p)[0] for p in tc.iter(f"{_W}p")]
                    cells.append(" ".join(part for part in parts if part))
                rows.append(cells)
            md.table(rows)
        elif el.tag in (f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml", f"{_W}smartTag"):
            for child in el:
                visit(child)

    for block in blocks:
        visit(block)
    return md.render()


def _numbering_formats(package: Package) -> dict[tuple[str, int], str]:
    """``(numId, level)`` → the number format (``bullet``, ``decimal``…) of a Word document's
    lists, from ``word/numbering.xml`` (none when it cannot be read)."""
    try:
        root = package.xml("word/numbering.xml")
    except ConversionError as exc:
        if exc.reason == "zip-bomb":
            raise
        return {}
    if root is None:
        return {}
    abstract: dict[str, dict[int, str]] = {}
    for item in root.iterfind(f"{_W}abstractNum"):
        levels: dict[int, str] = {}
        for lvl in item.iterfind(f"{_W}lvl"):
            fmt = lvl.find(f"{_W}numFmt")
            ilvl = lvl.get(f"{_W}ilvl", "0")
            if fmt is not None and ilvl.isdecimal():
                levels[int(ilvl)] = fmt.get(f"{_W}val", "")
        abstract[item.get(f"{_W}abstractNumId", "")] = levels
    out: dict[tuple[str, int], str] = {}
    for num in root.iterfind(f"{_W}num"):
        ref = num.find(f"{_W}abstractNumId")
        formats = abstract.get(ref.get(f"{_W}val", "") if ref is not None else "", {})
        for level, name in formats.items():
            out[(num.get(f"{_W}numId", ""), level)] = name
    return out


_STYLE_NAME = re.compile(rb'<w:name w:val="([^"]*)"')


class _StyleNames:
    """Paragraph style id → lower-cased name, looked up in ``styles.xml`` only for ids in use.

    Word's styles part is hundreds of kilobytes of latent styles; parsing it, or even scanning
    all of it, costs more than the document itself, and a document uses a handful. The ``w:``
    prefix is the one every writer uses; a part that uses another gets a full parse.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.names: dict[str, str] = {}
        self.foreign_prefix = b"<w:style" not in data  # names come from a full parse then

    def __call__(self, sid: str) -> str:
        found = self.names.get(sid)
        if found is not None:
            return found
        name = sid.lower()
        if self.foreign_prefix:
            return name
        at = self.data.find(b'w:styleId="' + sid.encode("utf-8", "replace") + b'"')
        if at >= 0:
            m = _STYLE_NAME.search(self.data, at, at + 2000)
            if m is not None:
                name = m.group(1).decode("utf-8", "replace").lower()
        self.names[sid] = name
        return name


def _parse_style_names(data: bytes) -> dict[str, str]:
    names: dict[str, str] = {}
    try:
        root = parse_xml(data, forbid_dtd=True)
    except XmlError:
        return names
    for style in root.iter(f"{_W}style"):
        name = style.find(f"{_W}name")
        if name is not None:
            names[style.get(f"{_W}styleId", "")] = (name.get(f"{_W}val") or "").lower()
    return names


# --- PPTX ------------------------------------------------------------------------------------------


def convert_pptx(data: bytes, options: ConvertOptions) -> Converted:
    """A presentation: slides in order, titles as headings, tables, speaker notes, links."""
    package = open_package(data, options)
    main = "ppt/presentation.xml"
    root = package.xml(main)
    if root is None:
        raise ConversionError("no ppt/presentation.xml: not a presentation", "pptx-no-body")
    rels = _rels(package, main)
    slides = [rels[s.get(f"{_R}id", "")][1] for s in root.iter(f"{_P}sldId") if s.get(f"{_R}id", "") in rels]
    current: dict[str, tuple[str, str, bool]] = {}

    def link(el: ET.Element) -> str | None:
        if el.tag != f"{_A}r":
            return None
        click = el.find(f"{_A}rPr/{_A}hlinkClick")
        if click is None:
            return None
        rel = current.get(click.get(f"{_R}id", ""))
        return rel[1] if rel is not None and rel[2] else None

    walker = _Walker(
        blocks=frozenset({f"{_A}p"}),
        skip=frozenset({f"{_A}rPr", f"{_A}pPr", f"{_A}endParaRPr"}),
        text_tags=frozenset({f"{_A}t"}),
        breaks=frozenset({f"{_A}br"}),
        link=link,
        complex_tags=frozenset({f"{_A}hlinkClick"}),
    )
    notes = 0
    marks: list[tuple[int, str, int, str]] = []
    objects = _Objects(package)
    md = MarkdownWriter() if options.markdown else None
    for number, slide in enumerate(slides, 1):
        current = _rels(package, slide)
        slide_root = package.xml(slide)
        if slide_root is None:
            continue
        first = len(walker.lines)
        slide_title = ""
        for shape in slide_root.iter():
            if shape.tag not in (f"{_P}sp", f"{_P}graphicFrame", f"{_P}pic"):
                continue
            ph = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
            is_title = ph is not None and ph.get("type") in ("title", "ctrTitle")
            before = len(walker.lines)
            if shape.tag != f"{_P}sp":  # a picture's alt text, a chart's titles and series
                alt, image, chart = objects.drawing(shape, current)
                walker.lines.extend(line for line in (alt, *chart) if line)
                if md is not None:
                    if alt or image:
                        md.markdown(f"![{alt.replace(']', ' ')}]({image})")
                    for line in chart:
                        md.paragraph(line)
            # placeholders other than titles and subtitles are bulleted by the slide's master
            bullets = ph is not None and ph.get("type") in (None, "body", "obj")
            for body in shape.iter(f"{_P}txBody"):
                for child in body.iter(f"{_A}p"):
                    links = len(walker.links)
                    walker.walk(child)
                    if md is not None and not is_title:
                        _pptx_paragraph(md, child, walker.lines[-1], walker.links[links:], bullets)
            for table in shape.iter(f"{_A}tbl"):
                rows: list[list[str]] = []
                for tr in table.iter(f"{_A}tr"):
                    rows.append([])
                    for tc in tr.iter(f"{_A}tc"):
                        cell = len(walker.lines)
                        for child in tc.iter(f"{_A}p"):
                            walker.walk(child)
                        rows[-1].append(" ".join(line for line in walker.lines[cell:] if line))
                if md is not None:
                    md.table(rows)
            if is_title:
                text = collapse(" ".join(walker.lines[before:]))
                if text:
                    level = 1 if ph is not None and ph.get("type") == "ctrTitle" else 2
                    walker.headings.append({"level": level, "text": text[:1000], "slide": number})
                    slide_title = slide_title or text[:1000]
                    if md is not None:
                        md.heading(level, text)
        for kind, target, _external in current.values():
            if kind.endswith("/notesSlide"):
                notes_root = package.xml(target)
                if notes_root is None:
                    continue
                for shape in notes_root.iter(f"{_P}sp"):
                    ph = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
                    if ph is not None and ph.get("type") == "body":
                        before = len(walker.lines)
                        for child in shape.iter(f"{_A}p"):
                            walker.walk(child)
                        notes += any(walker.lines[before:])
                        if md is not None:
                            for line in walker.lines[before:]:
                                if line:
                                    md.markdown("> " + escape(collapse(line)))
        marks.append((first, "slide", number, slide_title))
    meta = _core_properties(package)
    meta["slides"] = len(slides)
    if notes:
        meta["notes"] = notes
    out = _finish(walker, meta, options)
    out.segments = segments_of(walker.lines, marks)
    if not out.title and walker.headings:
        out.title = str(walker.headings[0]["text"])
    if md is not None:
        out.markdown = md.render()
    return objects.finish(out)


def _pptx_paragraph(
    md: MarkdownWriter, p: ET.Element, text: str, links: list[tuple[str, str]], bullets: bool
) -> None:
    """A slide's paragraph: a list item at its level where it is bulleted (by its placeholder,
    or its own ``buChar``/``buAutoNum``; ``buNone`` turns that off), else a paragraph."""
    if not text:
        return
    props = p.find(f"{_A}pPr")
    if props is not None:
        if props.find(f"{_A}buNone") is not None:
            bullets = False
        elif props.find(f"{_A}buChar") is not None or props.find(f"{_A}buAutoNum") is not None:
            bullets = True
    level = props.get("lvl", "0") if props is not None else "0"
    inline = _md_links(text, links)
    if bullets:
        ordered = props is not None and props.find(f"{_A}buAutoNum") is not None
        md.item(inline, int(level) if level.isdecimal() else 0, ordered=ordered)
    else:
        md.markdown(inline)


# --- XLSX ------------------------------------------------------------------------------------------


def _cell_text(el: ET.Element) -> str:
    """The text of a shared-string item or an inline string: plain ``t`` or rich-text runs."""
    parts = [t.text or "" for t in el.iter(f"{_S}t")]
    return "".join(parts)


def convert_xlsx(data: bytes, options: ConvertOptions) -> Converted:
    """A workbook: each sheet's name, then one line per row of its cells (tab-separated)."""
    package = open_package(data, options)
    main = "xl/workbook.xml"
    root = package.xml(main)
    if root is None:
        raise ConversionError("no xl/workbook.xml: not a workbook", "xlsx-no-body")
    rels = _rels(package, main)
    shared: list[str] = []
    strings_target = next(
        (t for k, t, _ in rels.values() if k.endswith("/sharedStrings")), "xl/sharedStrings.xml"
    )
    strings = package.xml(strings_target)
    if strings is not None:
        shared = [_cell_text(si) for si in strings.iter(f"{_S}si")]
    lines: list[str] = []
    headings: list[dict[str, Any]] = []
    names: list[str] = []
    links: list[tuple[str, str]] = []
    cells = 0
    capped = False
    marks: list[tuple[int, str, int, str]] = []
    objects = _Objects(package)
    md = MarkdownWriter() if options.markdown else None
    for sheet in root.iter(f"{_S}sheet"):
        name = sheet.get("name", "")
        rel = rels.get(sheet.get(f"{_R}id", ""))
        if rel is None:
            continue
        names.append(name)
        marks.append((len(lines), "sheet", len(names), collapse(name)[:1000]))
        headings.append({"level": 2, "text": name})
        lines.append(name)
        if md is not None:
            md.heading(2, name)
        sheet_root = package.xml(rel[1])
        if sheet_root is None:
            continue
        grid: list[list[str]] = []  # Markdown's table: the cells in their columns
        for row in sheet_root.iter(f"{_S}row"):
            values = []
            if md is not None:
                grid.append([])
            for cell in row.iter(f"{_S}c"):
                cells += 1
                kind = cell.get("t", "n")
                if kind == "inlineStr":
                    value = _cell_text(cell)
                else:
                    v = cell.find(f"{_S}v")
                    value = v.text or "" if v is not None else ""
                    if kind == "s" and value.strip().isdecimal():
                        index = int(value)
                        value = shared[index] if index < len(shared) else ""
                    elif kind == "b":
                        value = "TRUE" if value == "1" else "FALSE"
                if value.strip():
                    values.append(collapse(value))
                    if md is not None:
                        _grid_put(grid[-1], _column(cell.get("r", "")), value)
            if values:
                lines.append("\t".join(values))
            if cells >= options.max_cells:
                capped = True
                break
        sheet_rels = _rels(package, rel[1])
        for link in sheet_root.iter(f"{_S}hyperlink"):
            target = sheet_rels.get(link.get(f"{_R}id", ""))
            if target is not None and target[2]:
                links.append((target[1], link.get("display", "") or link.get("ref", "")))
        if md is not None:
            md.table(grid)
        for kind, part, external in sheet_rels.values():
            if kind.endswith("/drawing") and not external:  # the sheet's pictures and charts
                drawing_root = package.xml(part)
                drawing_rels = _rels(package, part)
                for anchor in drawing_root if drawing_root is not None else ():
                    alt, image, chart = objects.drawing(anchor, drawing_rels)
                    lines.extend(line for line in (alt, *chart) if line)
                    if md is not None:
                        if alt:
                            md.markdown(f"![{alt.replace(']', ' ')}]({image})")
                        for line in chart:
                            md.paragraph(line)
        if capped:
            break
    meta = _core_properties(package)
    meta["sheets"] = names
    if headings:
        meta["headings"] = headings
    out = Converted(text="\n".join(lines), metadata=meta, links=links[: options.max_links])
    out.segments = segments_of(lines, marks)
    out.title = str(meta.get("title", ""))
    if capped:
        out.count("xlsx/cells-capped")
        out.warnings.append(f"stopped after {options.max_cells} cells")
    if md is not None:
        out.markdown = md.render()
    return objects.finish(out)


def _column(ref: str) -> int:
    """A cell reference's column, from 0 (``C7`` → 2); -1 when it has none."""
    column = 0
    for char in ref:
        if not "A" <= char <= "Z":
            break
        column = column * 26 + ord(char) - 64
    return column - 1


#: Columns a Markdown table of a sheet keeps at most (a cell far to the right is put after the rest).
_MAX_COLUMNS = 256


def _grid_put(row: list[str], column: int, value: str) -> None:
    if not 0 <= column < _MAX_COLUMNS or column < len(row):
        column = len(row)  # no reference, or out of order: the next column
    row.extend([""] * (column - len(row)))
    row.append(value)


# --- ODF -------------------------------------------------------------------------------------------


def _odf_meta(package: Package) -> dict[str, Any]:
    root = package.xml("meta.xml")
    meta: dict[str, Any] = {}
    if root is None:
        return meta
    office_meta = root.find(f"{_OFFICE}meta")
    if office_meta is None:
        return meta
    names = {
        f"{_DC}title": "title",
        f"{_META}initial-creator": "author",
        f"{_DC}creator": "last_modified_by",
        f"{_META}creation-date": "created",
        f"{_DC}date": "modified",
        f"{_DC}subject": "subject",
        f"{_DC}description": "description",
        f"{_DC}language": "lang",
    }
    keywords = []
    for child in office_meta:
        if child.tag == f"{_META}keyword" and child.text:
            keywords.append(child.text.strip())
        key = names.get(child.tag)
        if key and child.text and child.text.strip():
            meta[key] = child.text.strip()
    if keywords:
        meta["keywords"] = ", ".join(keywords)
    if "author" not in meta and "last_modified_by" in meta:
        meta["author"] = meta.pop("last_modified_by")
    return meta


def convert_odf(data: bytes, options: ConvertOptions) -> Converted:
    """An OpenDocument text, spreadsheet or presentation: headings, links, sheets, notes."""
    package = open_package(data, options)
    root = package.xml("content.xml")
    if root is None:
        raise ConversionError("no content.xml: not an OpenDocument file", "odf-no-body")

    def heading(el: ET.Element) -> int | None:
        if el.tag != f"{_TEXT}h":
            return None
        level = el.get(f"{_TEXT}outline-level", "1")
        return int(level) if level.isdecimal() else 1

    def link(el: ET.Element) -> str | None:
        if el.tag != f"{_TEXT}a":
            return None
        href = el.get(f"{_XLINK}href", "")
        return href if href.startswith(("http://", "https://")) else None

    walker = _Walker(
        blocks=frozenset({f"{_TEXT}p", f"{_TEXT}h"}),
        skip=frozenset(
            {
                f"{_OFFICE}annotation",
                f"{_TEXT}tracked-changes",
                f"{_TEXT}note-citation",
                f"{_OFFICE}forms",
                f"{_TEXT}sequence-decls",
                f"{_TABLE}table-header-columns",
                f"{_TABLE}table-columns",
            }
        ),
        text_tags=None,
        tabs=frozenset({f"{_TEXT}tab"}),
        breaks=frozenset({f"{_TEXT}line-break"}),
        heading=heading,
        link=link,
        spaces=f"{_TEXT}s",
        object_tags=frozenset({f"{_DRAW}object"}),
        objects=lambda el: _odf_chart(package, el, counts),
    )
    counts: dict[str, int] = {}
    body = root.find(f"{_OFFICE}body")
    sheets: list[str] = []
    slides = 0
    marks: list[tuple[int, str, int, str]] = []
    for el in body.iter() if body is not None else ():
        if el.tag == f"{_OFFICE}spreadsheet":
            for table in el.iter(f"{_TABLE}table"):
                name = table.get(f"{_TABLE}name", "")
                sheets.append(name)
                marks.append((len(walker.lines), "sheet", len(sheets), collapse(name)[:1000]))
                walker.lines.append(name)
                walker.headings.append({"level": 2, "text": name})
                _sheet_rows(walker, table, options)
                for obj in table.iter(f"{_DRAW}object"):  # the sheet's charts
                    walker.lines.extend(_odf_chart(package, obj, counts))
            break
        if el.tag in (f"{_OFFICE}text", f"{_OFFICE}presentation"):
            for child in el:
                if child.tag == f"{_DRAW}page":
                    slides += 1
                    marks.append((len(walker.lines), "slide", slides, _odp_title(child)))
                _walk_blocks(walker, child)
            break
    meta = _odf_meta(package)
    if sheets:
        meta["sheets"] = sheets
    if slides:
        meta["slides"] = slides
    out = _finish(walker, meta, options)
    out.segments = segments_of(walker.lines, marks)
    for key, n in counts.items():
        out.count(key, n)
    if options.markdown and body is not None:
        walker.objects = lambda el: _odf_chart(package, el, {})  # counted once, by the text's walk
        out.markdown = _odf_markdown(body, walker, options)
    return out


def _odf_chart(package: Package, el: ET.Element, counts: dict[str, int]) -> list[str]:
    """An ODF chart object's (``draw:object``, its ``Object N/content.xml``) title, subtitle and
    series names (the header row of its data table); nothing for any other object (an embedded
    document: :mod:`trawl.units.embedded`) or one that cannot be read (``odf/chart-unreadable``)."""
    href = unquote(el.get(f"{_XLINK}href", "")).removeprefix("./").strip("/")
    if not href or "://" in href or href.startswith("/"):
        return []
    try:
        root = package.xml(posixpath.normpath(href) + "/content.xml")
    except ConversionError as exc:
        if exc.reason == "zip-bomb":
            raise
        counts["odf/chart-unreadable"] = counts.get("odf/chart-unreadable", 0) + 1
        return []
    chart = root.find(f"{_OFFICE}body/{_OFFICE}chart") if root is not None else None
    if chart is None:
        return []
    counts["office/charts"] = counts.get("office/charts", 0) + 1
    lines: list[str] = []
    for tag in (f"{_CHART}title", f"{_CHART}subtitle"):
        for title in chart.iter(tag):
            text = collapse(" ".join(title.itertext()))
            if text and text not in lines:
                lines.append(text[:1000])
    for header in chart.iter(f"{_TABLE}table-header-rows"):
        for row in header.iter(f"{_TABLE}table-row"):
            for cell in list(row)[1:]:  # the first column holds the categories
                name = collapse(" ".join(cell.itertext()))
                if name and name not in lines:
                    lines.append(name[:1000])
        break
    return lines


def _odf_markdown(body: ET.Element, walker: _Walker, options: ConvertOptions) -> str:
    """An OpenDocument's body as Markdown: ``text:h`` headings, lists by depth, tables (each sheet
    under its name), slides under their titles, speaker notes quoted, links."""
    md = MarkdownWriter()
    cell_tags = (f"{_TABLE}table-cell", f"{_TABLE}covered-table-cell")

    def text_of(p: ET.Element) -> tuple[str, list[str]]:
        walker.lines.clear()
        walker.links.clear()
        walker.walk(p)
        first = walker.lines[0] if walker.lines else ""
        return _md_links(first, walker.links), [escape(line) for line in walker.lines[1:] if line]

    def table(el: ET.Element) -> None:
        rows: list[list[str]] = []
        cells = 0
        for row in el.iter(f"{_TABLE}table-row"):
            rows.append([])
            for cell in row:
                if cell.tag not in cell_tags:
                    continue
                cells += 1
                text = " ".join(text_of(p)[0] for p in cell.iter(f"{_TEXT}p"))
                repeat = cell.get(f"{_TABLE}number-columns-repeated", "1")
                rows[-1].extend([collapse(text)] * min(int(repeat) if repeat.isdecimal() else 1, 20))
            if cells >= options.max_cells:
                break
        md.table(rows)

    def visit(el: ET.Element, depth: int) -> None:
        tag = el.tag
        if tag in walker.skip:
            return
        if tag in (f"{_TEXT}p", f"{_TEXT}h"):
            text, more = text_of(el)
            level = walker.heading(el)
            if level is not None:
                md.heading(level, text)
            elif depth >= 0:
                md.item(text, depth)
            else:
                md.markdown(text)
            for line in more:
                md.markdown(line)
        elif tag == f"{_TEXT}list":
            for child in el:
                visit(child, depth + 1)
        elif tag == f"{_TABLE}table":
            name = el.get(f"{_TABLE}name", "")
            if el in sheets and name:
                md.heading(2, name)
            table(el)
        elif tag == f"{_DRAW}page":
            title = _odp_title(el)
            if title:
                md.heading(2, title)
            for child in el:
                if child.get(f"{_PRES}class") != "title":
                    visit(child, depth)
        elif tag == f"{_PRES}notes":
            for p in el.iter(f"{_TEXT}p"):
                text = text_of(p)[0]
                if text:
                    md.markdown("> " + text)
        else:
            for child in el:
                visit(child, depth)

    spreadsheet = body.find(f"{_OFFICE}spreadsheet")
    sheets = set(spreadsheet.iterfind(f"{_TABLE}table")) if spreadsheet is not None else set()
    visit(body, -1)
    return md.render()


def _odp_title(page: ET.Element) -> str:
    """A presentation page's title: the text of its frame of class ``title``, if it has one."""
    for frame in page.iter(f"{_DRAW}frame"):
        if frame.get(f"{_PRES}class") == "title":
            return collapse(" ".join(frame.itertext()))[:1000]
    return ""


def _sheet_rows(walker: _Walker, table: ET.Element, options: ConvertOptions) -> None:
    """One line per spreadsheet row, its non-empty cells tab-separated (as for XLSX)."""
    cells = 0
    cell_tags = (f"{_TABLE}table-cell", f"{_TABLE}covered-table-cell")
    inner = _Walker(blocks=walker.blocks, skip=walker.skip, text_tags=None, tabs=walker.tabs,
                    breaks=walker.breaks, link=walker.link, spaces=walker.spaces)  # fmt: skip
    for row in table.iter(f"{_TABLE}table-row"):
        values: list[str] = []
        for cell in row:
            if cell.tag not in cell_tags:
                continue
            cells += 1
            if not len(cell):
                continue  # an empty cell (often one standing for thousands of repeated ones)
            first = cell[0]
            if len(cell) == 1 and first.tag == f"{_TEXT}p" and not len(first):
                text = " ".join((first.text or "").split())  # the common case: one plain paragraph
            else:
                inner.lines.clear()
                _walk_blocks(inner, cell)
                text = " ".join(inner.text().split())
            if text:
                # A run of identical cells is stored once with a repeat count; a few are kept.
                repeat = cell.get(f"{_TABLE}number-columns-repeated", "1")
                values.extend([text] * min(int(repeat) if repeat.isdecimal() else 1, 20))
        if values:
            walker.lines.append("\t".join(values))
        if cells >= options.max_cells:
            break
    walker.links.extend(inner.links)


def _walk_blocks(walker: _Walker, el: ET.Element) -> None:
    """Walk down to the paragraphs of ``el`` (frames, cells, lists, notes are containers)."""
    if el.tag in walker.blocks:
        walker.walk(el)
        return
    if el.tag in walker.skip:
        return
    for child in el:
        _walk_blocks(walker, child)


# --- EPUB ------------------------------------------------------------------------------------------


def convert_epub(data: bytes, options: ConvertOptions) -> Converted:
    """An EPUB book: its chapters in spine order through the HTML converter, and its OPF metadata."""
    package = open_package(data, options)
    container = package.xml("META-INF/container.xml")
    rootfile = container.find(f".//{_CONTAINER}rootfile") if container is not None else None
    opf_name = rootfile.get("full-path", "") if rootfile is not None else ""
    opf = package.xml(opf_name) if opf_name else None
    if opf is None:
        raise ConversionError("no readable OPF package document: not an EPUB", "epub-no-body")
    folder = posixpath.dirname(opf_name)
    meta: dict[str, Any] = {}
    metadata_el = opf.find(f"{_OPF}metadata")
    names = {"title": "title", "creator": "author", "language": "lang", "date": "published",
             "description": "description", "subject": "keywords", "publisher": "publisher"}  # fmt: skip
    for child in metadata_el if metadata_el is not None else ():
        key = names.get(local_name(child.tag))
        if key and child.text and child.text.strip() and key not in meta:
            meta[key] = child.text.strip()
    manifest = {
        item.get("id", ""): posixpath.normpath(posixpath.join(folder, item.get("href", "")))
        for item in opf.iter(f"{_OPF}item")
    }
    lines: list[str] = []
    headings: list[dict[str, Any]] = []
    links: list[tuple[str, str]] = []
    chapters = 0
    marks: list[tuple[int, str, int, str]] = []
    toc = _epub_toc(package, opf, manifest)
    chapters_md: list[str] = []
    for number, ref in enumerate(opf.iter(f"{_OPF}itemref"), 1):
        part = manifest.get(ref.get("idref", ""))
        chapter = package.read(part) if part else None
        if chapter is None or part is None:
            continue
        chapters += 1
        page = read_page(chapter.decode("utf-8", "replace"), options.url or "about:blank")
        own = page.metadata.get("headings", [])
        title = toc.get(part) or (str(own[0]["text"]) if own else "") or page.title
        marks.append((len(lines), "chapter", number, collapse(title)[:1000]))
        lines.append(page.text)
        if options.markdown:
            chapters_md.append(blocks_markdown(page.blocks, links=page.links))
        headings.extend(own)
        links.extend((link.url, link.text) for link in page.links)
    meta["chapters"] = chapters
    if headings:
        meta["headings"] = headings[:100]
    out = Converted(
        text="\n".join(line for line in lines if line), metadata=meta, links=links[: options.max_links]
    )
    out.segments = segments_of(lines, marks)
    out.title = str(meta.get("title", ""))
    out.markdown = "\n\n".join(chapter for chapter in chapters_md if chapter)
    return out


_OPS = "{http://www.idpf.org/2007/ops}"
_NCX = "{http://www.daisy.org/z3986/2005/ncx/}"


def _epub_toc(package: Package, opf: ET.Element, manifest: dict[str, str]) -> dict[str, str]:
    """Chapter titles by part name, from the table of contents: the EPUB 3 navigation document's
    ``toc`` nav, then the EPUB 2 NCX; the first entry pointing into a part names it. A table of
    contents that cannot be read names nothing (the chapters keep their headings)."""
    titles: dict[str, str] = {}
    spine = opf.find(f"{_OPF}spine")
    sources = [
        (manifest.get(item.get("id", ""), ""), "nav")
        for item in opf.iter(f"{_OPF}item")
        if "nav" in item.get("properties", "").split()
    ]
    if spine is not None and spine.get("toc"):
        sources.append((manifest.get(spine.get("toc", ""), ""), "ncx"))
    for name, kind in sources:
        try:
            root = package.xml(name) if name else None
        except ConversionError as exc:
            if exc.reason == "zip-bomb":
                raise
            continue  # an unreadable table of contents (HTML entities in the nav...): no titles
        if root is None:
            continue
        folder = posixpath.dirname(name)
        entries: list[tuple[str, str]] = []
        if kind == "nav":
            navs = [nav for nav in root.iter() if local_name(nav.tag) == "nav"]
            tocs = [nav for nav in navs if nav.get(f"{_OPS}type") == "toc"] or navs
            for nav in tocs:
                entries += [
                    (a.get("href", ""), " ".join(a.itertext()))
                    for a in nav.iter()
                    if local_name(a.tag) == "a"
                ]
        else:
            for point in root.iter(f"{_NCX}navPoint"):
                text_el = point.find(f"{_NCX}navLabel/{_NCX}text")
                content = point.find(f"{_NCX}content")
                if text_el is not None and content is not None:
                    entries.append((content.get("src", ""), text_el.text or ""))
        for href, label in entries:
            target = unquote(href.partition("#")[0])
            text = collapse(label)
            if target and text and "://" not in target:
                titles.setdefault(posixpath.normpath(posixpath.join(folder, target)), text[:1000])
    return titles
