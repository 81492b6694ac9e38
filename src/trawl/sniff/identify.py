"""What a file really is: its format by magic number and container inspection, checked against
what it was declared to be and what its name says.

:func:`sniff_type` (:mod:`trawl.convert.sniff`) looks at the first kilobyte and a ZIP's first
local header; :func:`identify` has the whole payload and goes further:

* a ZIP is opened by its central directory: ``word/document.xml`` is DOCX, ``xl/workbook.xml``
  XLSX, ``ppt/presentation.xml`` PPTX, a ``mimetype`` member names ODT/ODS/ODP/EPUB (whatever
  order the writer put the members in, which the first local header cannot tell); iWork packages
  by theirs (``index.xml``/``index.apxl`` with ``QuickLook/``, or ``Index/*.iwa``: ``pages``,
  ``numbers`` or ``key``, the file name deciding where the members do not). A ZIP whose
  central directory cannot be read is reported as what its first header suggests, marked
  ``truncated``;
* XML is told apart as an RSS feed (``<rss>``, RSS 1.0 ``<rdf:RDF>``), an Atom feed (``<feed>``),
  SVG, or other XML, by its root element.

The result carries the *format* (a short name that keys the converter registry: ``pdf``,
``docx``, ``xlsx``, ``pptx``, ``odt``, ``ods``, ``odp``, ``epub``, ``pages``, ``numbers``, ``key``,
``rtf``, ``html``, ``xml``, ``rss``, ``atom``, ``text``, ``svg``, ``image``, ``ole``, ``zip``,
``gzip``, ``email``, ``mbox``, ``binary``, ``empty``; bytes that sniff as plain text but are
*declared* a message, such as a unit cut from an mbox, are ``email`` when they open with a header
block), the declared type and the
type the file name suggests, and whether either disagrees with the bytes. Two declarations of
the same family disagree when both name different specific formats (a ``.docx`` that is an
XLSX), not when one is vaguer (``application/zip``).
"""

from __future__ import annotations

import io
import lzma
import mimetypes
import re
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

from trawl.sniff.magic import (
    SNIFF_BYTES,
    informative_type,
    looks_like_message,
    sniff_type,
    type_family,
    types_disagree,
)

__all__ = ["FORMAT_TYPES", "Identity", "extension_type", "format_of_type", "identify"]

_OOXML = "application/vnd.openxmlformats-officedocument."
_ODF = "application/vnd.oasis.opendocument."

#: The media type each format is reported as.
FORMAT_TYPES: dict[str, str] = {
    "pdf": "application/pdf",
    "docx": _OOXML + "wordprocessingml.document",
    "xlsx": _OOXML + "spreadsheetml.sheet",
    "pptx": _OOXML + "presentationml.presentation",
    "odt": _ODF + "text",
    "ods": _ODF + "spreadsheet",
    "odp": _ODF + "presentation",
    "epub": "application/epub+zip",
    "pages": "application/vnd.apple.pages",
    "numbers": "application/vnd.apple.numbers",
    "key": "application/vnd.apple.keynote",
    "rtf": "application/rtf",
    "html": "text/html",
    "xml": "application/xml",
    "rss": "application/rss+xml",
    "atom": "application/atom+xml",
    "svg": "image/svg+xml",
    "text": "text/plain",
    "zip": "application/zip",
    "ole": "application/x-ole-storage",
    "gzip": "application/gzip",
    "email": "message/rfc822",
    "mbox": "application/mbox",
    "binary": "application/octet-stream",
    "empty": "application/x-empty",
}
_TYPE_FORMATS = {kind: fmt for fmt, kind in FORMAT_TYPES.items()}
_TYPE_FORMATS.update(
    {
        "application/xhtml+xml": "html",
        "text/xml": "xml",
        "application/x-rss+xml": "rss",
        "text/rtf": "rtf",
        "application/x-pdf": "pdf",
        _OOXML + "wordprocessingml.template": "docx",
        _OOXML + "spreadsheetml.template": "xlsx",
        _OOXML + "presentationml.slideshow": "pptx",
        _ODF + "text-template": "odt",
        "message/global": "email",
        "message/news": "email",
    }
)
_SPECIFIC_ZIP = frozenset({"docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "pages", "numbers", "key"})
_EXTENSIONS = mimetypes.MimeTypes()  # Python's own table only: not the host's /etc/mime.types
for _ext, _kind in {
    ".md": "text/markdown",
    ".rss": "application/rss+xml",
    ".atom": "application/atom+xml",
    ".jsonl": "application/jsonl",
    ".docx": FORMAT_TYPES["docx"],
    ".xlsx": FORMAT_TYPES["xlsx"],
    ".pptx": FORMAT_TYPES["pptx"],
    ".odt": FORMAT_TYPES["odt"],
    ".ods": FORMAT_TYPES["ods"],
    ".odp": FORMAT_TYPES["odp"],
    ".epub": FORMAT_TYPES["epub"],
    ".pages": FORMAT_TYPES["pages"],
    ".numbers": FORMAT_TYPES["numbers"],
    ".rtf": FORMAT_TYPES["rtf"],
    ".mbox": FORMAT_TYPES["mbox"],
    ".eml": FORMAT_TYPES["email"],
}.items():
    _EXTENSIONS.add_type(_kind, _ext)

_ROOT = re.compile(rb"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s>/]")
_SKIP_PROLOG = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)", re.DOTALL)


def format_of_type(kind: str | None) -> str | None:
    """The format name a media type stands for, or ``None`` for a type trawl has no name for."""
    if kind is None:
        return None
    kind = kind.split(";", 1)[0].strip().lower()
    found = _TYPE_FORMATS.get(kind)
    if found is not None:
        return found
    family = type_family(kind)
    if family in ("text", "image", "ole", "gzip", "zip"):
        return family
    return None


def extension_type(filename: str | None) -> str | None:
    """The media type a file name suggests (``report.docx`` → the DOCX type), or ``None``."""
    if not filename:
        return None
    kind, encoding = _EXTENSIONS.guess_type(filename, strict=False)
    if encoding is not None:
        return "application/gzip" if encoding == "gzip" else None
    return kind


@dataclass(slots=True)
class Identity:
    """What :func:`identify` found (see the module docstring)."""

    format: str
    mime: str
    sniffed: str  # what the head alone says (sniff_type)
    declared: str | None = None
    by_extension: str | None = None
    declared_disagrees: bool = False
    extension_disagrees: bool = False
    truncated: bool = False  # a ZIP whose central directory is missing or unreadable
    container_entries: int | None = None

    @property
    def disagree(self) -> bool:
        """Whether the declared type or the file name contradicts the bytes."""
        return self.declared_disagrees or self.extension_disagrees

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "mime": self.mime,
            "sniffed": self.sniffed,
            "declared": self.declared,
            "by_extension": self.by_extension,
            "disagree": self.disagree,
            "declared_disagrees": self.declared_disagrees,
            "extension_disagrees": self.extension_disagrees,
            "truncated": self.truncated,
        }


# The compression methods zipfile can read.
_ZIP_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA})


def _zip_format(data: bytes) -> tuple[str | None, int | None]:
    """The format inside a ZIP by its member names (central directory), or ``None`` if unreadable."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            infos = package.infolist()
            names = {info.filename for info in infos}
            if "mimetype" in names:
                info = package.getinfo("mimetype")
                # a member compressed with a method zipfile cannot undo (deflate64, ...) is not read
                if info.file_size <= 200 and info.compress_type in _ZIP_METHODS:
                    inner = package.read(info).decode("ascii", "replace").strip()
                    fmt = _TYPE_FORMATS.get(inner)
                    if fmt is not None:
                        return fmt, len(infos)
    # RuntimeError: an encrypted member, or a ZIP feature zipfile lacks ("zip file version 20.9");
    # zlib/lzma errors: a damaged mimetype member
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, zlib.error, lzma.LZMAError):
        return None, None
    if "[Content_Types].xml" in names:
        if "word/document.xml" in names:
            return "docx", len(names)
        if "xl/workbook.xml" in names:
            return "xlsx", len(names)
        if "ppt/presentation.xml" in names:
            return "pptx", len(names)
    if "META-INF/container.xml" in names:
        return "epub", len(names)
    iwork = _iwork_format(names)
    if iwork is not None:
        return iwork, len(names)
    return "zip", len(names)


def _iwork_format(names: set[str]) -> str | None:
    """``pages``, ``numbers`` or ``key`` for an iWork package (``iwork`` when its members do not
    say which), ``None`` for any other ZIP. iWork '09 has ``index.xml`` (Keynote ``index.apxl``)
    and a ``QuickLook`` folder; iWork 2013+ has ``Index/*.iwa`` streams (or ``Index.zip``) and
    ``Metadata/Properties.plist``. A zipped bundle has them one folder down."""
    bases: set[str] = set()
    for name in names:
        head, _, rest = name.lower().partition("/")
        bases.add(rest if rest and head.endswith((".pages", ".numbers", ".key")) else name.lower())
    if bases & {"index.apxl", "index.apxl.gz"} or any(
        b.startswith(("index/slide", "index/presentation")) for b in bases
    ):
        return "key"
    if any(b.startswith(("index/calculationengine", "index/tables/")) for b in bases):
        return "numbers"
    old = bool(bases & {"index.xml", "index.xml.gz"}) and any(b.startswith("quicklook/") for b in bases)
    new = "metadata/properties.plist" in bases and (
        "index.zip" in bases or any(b.startswith("index/") and b.endswith(".iwa") for b in bases)
    )
    return "iwork" if old or new else None


def _xml_format(data: bytes) -> str:
    """rss, atom, svg or xml, by the root element after the prolog."""
    head = data[:8192]
    if head[:3] == b"\xef\xbb\xbf":
        head = head[3:]
    elif head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        head = head[2 : len(head) & ~1].decode(codec, "replace").encode("utf-8", "replace")
    pos = 0
    while (m := _SKIP_PROLOG.match(head, pos)) is not None and m.end() > pos:
        pos = m.end()
    root = _ROOT.match(head, pos + len(head[pos:]) - len(head[pos:].lstrip()))
    if root is None:
        return "xml"
    name = root.group(2).decode("ascii").lower()
    if name == "rss" or (name == "rdf" and b"purl.org/rss" in head):
        return "rss"
    if name == "feed" and b"w3.org/2005/atom" in head.lower():
        return "atom"
    if name == "svg":
        return "svg"
    if name == "html":
        return "html"
    return "xml"


def _specific_disagree(claimed: str | None, found: str, sniffed_type: str) -> bool:
    if claimed is None:
        return False
    if types_disagree(claimed, sniffed_type):
        return True
    claimed_format = format_of_type(claimed)
    # Same family: only two different *specific* formats contradict each other.
    return claimed_format in _SPECIFIC_ZIP and found in _SPECIFIC_ZIP and claimed_format != found


def identify(data: bytes, declared: str | None = None, filename: str | None = None) -> Identity:
    """The format of ``data``, checked against a declared type and a file name (module docstring)."""
    sniffed = sniff_type(data[:SNIFF_BYTES])
    family = type_family(sniffed)
    truncated = False
    entries: int | None = None
    fmt = format_of_type(sniffed) or "binary"
    if family == "zip":
        inner, entries = _zip_format(data)
        if inner is None:
            truncated = True
        else:
            fmt = inner
        if fmt == "iwork":  # Pages or Numbers (the same members): the name says which
            suffix = (filename or "").lower().rsplit(".", 1)[-1]
            fmt = suffix if suffix in ("pages", "numbers", "key") else "pages"
    elif family == "xml":
        fmt = _xml_format(data)
    elif family == "html":
        # "<?xml" with an <html>/<body> tag somewhere: XHTML only if <html> is the root element.
        fmt = _xml_format(data) if sniffed == "application/xhtml+xml" else "html"
    elif family == "text" and data[:SNIFF_BYTES].lstrip()[:1] == b"<":
        # XML without a declaration (an Atom feed starting <feed xmlns=...>) sniffs as text.
        inner_xml = _xml_format(data)
        if inner_xml != "xml" or data.rstrip()[-1:] == b">":
            fmt = inner_xml
    declared_type = informative_type(declared.split(";", 1)[0].strip().lower() if declared else None)
    if fmt == "text" and format_of_type(declared_type) == "email" and looks_like_message(data[:SNIFF_BYTES]):
        fmt = "email"  # declared a message, and its header block says so, if too quietly for sniffing
    mime = FORMAT_TYPES.get(fmt, sniffed)
    if fmt in ("zip", "image", "ole", "text"):
        mime = sniffed  # the sniffer's exact type (image/png, application/x-ole-storage...)
    by_extension = extension_type(filename)
    return Identity(
        format=fmt,
        mime=mime,
        sniffed=sniffed,
        declared=declared_type,
        by_extension=by_extension,
        declared_disagrees=_specific_disagree(declared_type, fmt, mime),
        extension_disagrees=_specific_disagree(by_extension, fmt, mime),
        truncated=truncated,
        container_entries=entries,
    )
