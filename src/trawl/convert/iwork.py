"""Apple iWork packages (``.pages``, ``.numbers``, ``.key``) to text, where the package allows.

An iWork file is a ZIP package (:func:`~trawl.sniff.identify.identify` tells it from a plain ZIP
by its members). What it holds depends on the version that wrote it:

* iWork '09 and older keep the document as XML, ``index.xml`` (Pages, Numbers) or
  ``index.apxl`` (Keynote), often gzipped (``index.xml.gz``): its paragraphs (``sf:p``), table
  cells (``sf:ct``'s string, ``sf:n``'s number) are read in document order, leaving out style
  sheets and master slides; ``metadata["converter"] = "iwork-xml"``;
* most also carry ``QuickLook/Preview.pdf`` (some versions ``preview.pdf``), a PDF rendering of the
  document, read by the PDF converter when there is no XML body, or it has no text or cannot be
  read (``"iwork-preview"``; counted ``iwork/preview/<reason>`` then);
* iWork 2013 and later keep the text in IWA streams (Snappy-framed protobuf, ``Index/*.iwa``) with
  only JPEG previews: those are skipped, counted ``convert/skipped/unsupported-iwork-version``.

The package is opened as every ZIP package is (:func:`~trawl.convert.office.open_package`:
bomb, encryption and truncation checks, a byte budget), and the gzipped body is inflated within
that budget.
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as ET
import zlib

from trawl.convert.base import ConversionError, Converted, ConvertOptions, collapse
from trawl.convert.office import Package, open_package
from trawl.convert.xmlsafe import XmlError, local_name, parse_xml

__all__ = ["IWORK_FORMATS", "convert_iwork"]

#: The formats :func:`~trawl.sniff.identify.identify` gives iWork packages.
IWORK_FORMATS = ("pages", "numbers", "key")

_BODIES = ("index.xml", "index.xml.gz", "index.apxl", "index.apxl.gz")
_PREVIEWS = ("quicklook/preview.pdf", "preview.pdf")
# Subtrees that hold styles, masters and document settings, not the document's text.
_SKIP = frozenset(
    {"stylesheet", "master-slides", "master-slide", "theme", "theme-list", "styles", "anon-styles",
     "calc-engine", "slide-style", "data", "metadata", "thumbnails", "ui-state", "print-info"}
)  # fmt: skip
_BREAKS = frozenset({"tab", "br", "lnbr", "pgbr", "crbr", "sectbr", "intratopicbr"})


def _member(package: Package, wanted: tuple[str, ...]) -> str | None:
    """The member named one of ``wanted`` (any case, in any folder: a zipped bundle), shallowest first."""
    found = [
        (name.count("/"), wanted.index(name.lower()[-len(w) :]), name)
        for name in package.names
        for w in wanted
        if name.lower() == w or name.lower().endswith("/" + w)
    ]
    return min(found)[2] if found else None


def _inflate(data: bytes, budget: int) -> bytes:
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(data, budget + 1)
    except zlib.error as exc:
        raise ConversionError(f"the gzipped iWork body is damaged: {exc}", "iwork-damaged") from exc
    if len(out) > budget:
        raise ConversionError("the gzipped iWork body expands past the limit", "zip-bomb")
    return out


def _text_of(el: ET.Element, parts: list[str]) -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        if local_name(child.tag) in _BREAKS:
            parts.append(" ")
        _text_of(child, parts)
        if child.tail:
            parts.append(child.tail)


def _lines(root: ET.Element, limit: int) -> list[str]:
    lines: list[str] = []
    total = 0
    stack = [root]
    while stack and total <= limit:
        el = stack.pop()
        name = local_name(el.tag)
        if name in _SKIP:
            continue
        line = ""
        if name == "p":
            parts: list[str] = []
            _text_of(el, parts)
            line = collapse("".join(parts))
        elif name == "ct":  # a text cell: <sf:ct sfa:s="..."/>
            line = collapse(next((v for k, v in el.attrib.items() if local_name(k) == "s"), ""))
        elif name == "n":  # a number cell: <sf:n sf:v="42"/>
            line = collapse(next((v for k, v in el.attrib.items() if local_name(k) == "v"), ""))
        if line:
            lines.append(line)
            total += len(line)
        if name != "p":
            stack.extend(reversed(list(el)))
    return lines


def _metadata(root: ET.Element) -> dict[str, str]:
    """Title and author from the document's ``metadata`` block (``<sl:title><sf:string sfa:string=…>``)."""
    meta: dict[str, str] = {}
    for block in root.iter():
        if local_name(block.tag) != "metadata":
            continue
        for field in block:
            key = {"title": "title", "authors": "author", "keywords": "keywords", "comment": "description"}
            name = key.get(local_name(field.tag))
            if name is None:
                continue
            values = [v for node in field.iter() for k, v in node.attrib.items() if local_name(k) == "string"]
            if values and values[0].strip():
                meta[name] = collapse(values[0])
        break
    return meta


def _read_body(package: Package, body: str, options: ConvertOptions) -> Converted:
    raw = package.read(body) or b""
    if body.lower().endswith(".gz"):
        raw = _inflate(raw, package.budget)
    try:
        root = parse_xml(raw, forbid_dtd=True)
    except XmlError as exc:
        raise ConversionError(f"{body}: {exc}", exc.reason) from exc
    meta: dict[str, object] = dict(_metadata(root))
    meta["converter"] = "iwork-xml"
    out = Converted(text="\n".join(_lines(root, options.max_chars)), metadata=meta)
    out.title = str(meta.get("title", ""))
    return out


def convert_iwork(data: bytes, options: ConvertOptions) -> Converted:
    """An iWork package's text (see the module docstring)."""
    package = open_package(data, options)
    body = _member(package, _BODIES)
    preview = _member(package, _PREVIEWS)
    failure: ConversionError | None = None
    if body is not None:
        try:
            out = _read_body(package, body, options)
        except ConversionError as exc:
            if preview is None or exc.reason == "zip-bomb":
                raise
            failure = exc
        else:
            if out.text:
                return out
    if preview is not None:
        from trawl.convert.pdf import convert_pdf  # noqa: PLC0415  # PDFium only when needed

        out = convert_pdf(package.read(preview) or b"", options)
        out.metadata["converter"] = "iwork-preview"
        out.metadata["iwork_preview"] = posixpath.basename(preview)
        if failure is not None:
            out.count(f"iwork/preview/{failure.reason}")
            out.warnings.append(f"the preview PDF read instead of the body: {failure}")
        return out
    raise ConversionError(
        "an iWork package with neither an XML body (iWork '09) nor a preview PDF: iWork 2013 and later "
        "keep the text in IWA streams, which trawl does not read",
        "unsupported-iwork-version",
    )
