"""Files embedded in documents: office packages' embeddings, ODF sub-documents, PDF attachments.

:func:`embedded_files` finds them in one document's bytes:

* DOCX, PPTX, XLSX: the members under ``word/embeddings/``, ``ppt/embeddings/`` and
  ``xl/embeddings/`` (a workbook in a report, a document in a slide; ``oleObjectN.bin`` is an OLE
  container, read as its format is), through :func:`~trawl.convert.office.open_package`'s bomb
  checks and byte budget;
* ODT, ODS, ODP: each ``Object N/`` sub-document whose manifest type is an OpenDocument text,
  spreadsheet or presentation, packed again as a file of its own (a chart object is not a file:
  its title and series are its parent's text, :mod:`trawl.convert.office`);
* PDF: the embedded files of the document's name tree (attachments, portfolios' files), read with
  PDFium. Only a PDF holding an ``/EmbeddedFile`` stream is opened (a stream cannot hide in an
  object stream, so the bytes tell), and that in the guarded worker when there is a guard.

The bounds of :class:`~trawl.convert.base.ConvertOptions` hold: at most ``embedded_max_objects``
files (``embedded/capped/objects``), none over ``embedded_max_bytes`` (``embedded/capped/bytes``);
a container that cannot be read gives none (``embedded/unreadable``). What is done with them is
the caller's: ``embedded = "fold"`` adds their text to their document's
(:func:`~trawl.convert.registry.convert_bytes`), ``"units"`` makes each a document
(:class:`~trawl.units.embedded.EmbeddedUnits`).
"""

from __future__ import annotations

import io
import mimetypes
import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trawl.convert.base import ConversionError, ConvertOptions
from trawl.convert.office import _rels, open_package
from trawl.convert.xmlsafe import XmlError, parse_xml

if TYPE_CHECKING:
    from trawl.convert.guard import Guard

__all__ = ["EMBEDDING_FORMATS", "Embedded", "EmbeddedFiles", "embedded_files", "pdf_attachments"]

#: The formats whose files can hold others.
EMBEDDING_FORMATS = frozenset({"docx", "pptx", "xlsx", "odt", "ods", "odp", "pdf", "ole"})

_OOXML_EMBEDDINGS = re.compile(r"^(?:word|ppt|xl)/embeddings/[^/]+$")
_CHART_RELS = re.compile(r"^(?:word|ppt|xl)/charts/_rels/[^/]+\.xml\.rels$")
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_ODF_DOCUMENTS = {
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/vnd.oasis.opendocument.spreadsheet": ".ods",
    "application/vnd.oasis.opendocument.presentation": ".odp",
}


@dataclass(slots=True, frozen=True)
class Embedded:
    """One embedded file: its name (a member's base name, an attachment's file name), bytes and
    declared media type (from its name or manifest; the converter sniffs it again)."""

    name: str
    data: bytes
    type: str


@dataclass(slots=True)
class EmbeddedFiles:
    """What :func:`embedded_files` found, and its counts."""

    files: list[Embedded] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def add(self, item: Embedded, options: ConvertOptions) -> bool:
        """Keep ``item`` within the bounds; ``False`` once no more may be kept."""
        if len(self.files) >= options.embedded_max_objects:
            self.count("embedded/capped/objects")
            return False
        if len(item.data) > options.embedded_max_bytes:
            self.count("embedded/capped/bytes")
            return True
        if item.data:
            self.files.append(item)
        return True


def _type_of(name: str) -> str:
    return mimetypes.guess_type(name, strict=False)[0] or "application/octet-stream"


def embedded_files(
    data: bytes, fmt: str, options: ConvertOptions, guard: Guard | None = None
) -> EmbeddedFiles:
    """The files embedded in ``data``, a document of format ``fmt`` (see the module docstring).
    Never raises for bad input: an unreadable container gives none, counted."""
    found = EmbeddedFiles()
    try:
        if fmt in ("pdf", "ole"):  # PDFium, olefile: opened in the guarded worker
            if fmt == "pdf" and b"/EmbeddedFile" not in data:
                return found
            read = pdf_attachments if fmt == "pdf" else _msg_attachments
            attachments = guard.call(read, data, options) if guard is not None else read(data, options)
            for name, blob, size in attachments:
                if size > options.embedded_max_bytes:
                    found.count("embedded/capped/bytes")
                elif not found.add(Embedded(name, blob, _type_of(name)), options):
                    break
        elif fmt in ("docx", "pptx", "xlsx"):
            _ooxml(data, options, found)
        elif fmt in ("odt", "ods", "odp"):
            _odf(data, options, found)
    except ConversionError as exc:
        found.count("embedded/unreadable")
        found.count(f"embedded/unreadable/{exc.reason}")
    except Exception as exc:  # a library failure on bad input (unguarded): the document reads on
        found.count("embedded/unreadable")
        found.count(f"embedded/unreadable/{type(exc).__name__}")
    return found


def _ooxml(data: bytes, options: ConvertOptions, found: EmbeddedFiles) -> None:
    package = open_package(data, options)
    infos = {info.filename: info for info in package.zf.infolist()}
    charts_data: set[str] = set()  # a chart's own workbook: its data, which the chart's text gives
    for rels in (n for n in package.names if _CHART_RELS.match(n)):
        chart = posixpath.join(posixpath.dirname(posixpath.dirname(rels)), posixpath.basename(rels)[:-5])
        charts_data.update(
            target for _kind, target, external in _rels(package, chart).values() if not external
        )
    for name in sorted(n for n in package.names if _OOXML_EMBEDDINGS.match(n) and n not in charts_data):
        if infos[name].file_size > options.embedded_max_bytes:
            found.count("embedded/capped/bytes")
            continue
        blob = package.read(name) or b""
        if not found.add(Embedded(posixpath.basename(name), blob, _type_of(name)), options):
            return


def _odf(data: bytes, options: ConvertOptions, found: EmbeddedFiles) -> None:
    package = open_package(data, options)
    manifest_bytes = package.read("META-INF/manifest.xml")
    if manifest_bytes is None:
        return
    try:
        manifest = parse_xml(manifest_bytes, forbid_dtd=True)
    except XmlError as exc:
        raise ConversionError(f"META-INF/manifest.xml: {exc}", exc.reason) from exc
    seen: set[str] = set()  # a path listed again is the same sub-document, not another one
    for entry in manifest.iter(f"{_MANIFEST}file-entry"):
        path = entry.get(f"{_MANIFEST}full-path", "")
        media = entry.get(f"{_MANIFEST}media-type", "")
        suffix = _ODF_DOCUMENTS.get(media)
        if suffix is None or not path.endswith("/") or path == "/" or path in seen:
            continue  # a chart, a formula, a picture, the document itself
        seen.add(path)
        if len(seen) > options.embedded_max_objects + 1:  # over-size ones too: each lists the members
            found.count("embedded/capped/objects")
            return
        folder = path.rstrip("/")
        members = sorted(n for n in package.names if n.startswith(path) and not n.endswith("/"))
        size = sum(package.zf.getinfo(n).file_size for n in members)
        if size > options.embedded_max_bytes:
            found.count("embedded/capped/bytes")
            continue
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as out:  # the sub-document as a package of its own
            out.writestr(zipfile.ZipInfo("mimetype"), media)
            for name in members:
                out.writestr(name[len(path) :], package.read(name) or b"", zipfile.ZIP_DEFLATED)
        name = posixpath.basename(folder).replace(" ", "_") + suffix
        if not found.add(Embedded(name, buf.getvalue(), media), options):
            return


def _msg_attachments(data: bytes, options: ConvertOptions) -> list[tuple[str, bytes, int]]:
    from trawl.convert.legacy import msg_attachments  # noqa: PLC0415 -- olefile, loaded where used

    return msg_attachments(data, options)


def pdf_attachments(data: bytes, options: ConvertOptions) -> list[tuple[str, bytes, int]]:
    """A PDF's embedded files, ``(name, bytes, size)``, with PDFium: at most one more than
    ``embedded_max_objects`` (so that the cap can be counted); one over ``embedded_max_bytes`` is
    given without its bytes (to be counted)."""
    import pypdfium2 as pdfium  # noqa: PLC0415 -- the convert extra, loaded where used

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ConversionError(f"the PDF cannot be opened: {exc}", "pdf-unreadable") from exc
    out: list[tuple[str, bytes, int]] = []
    try:
        for index in range(min(pdf.count_attachments(), options.embedded_max_objects + 1)):
            attachment = pdf.get_attachment(index)
            name = " ".join(attachment.get_name().split()) or f"attachment-{index + 1}"
            try:
                blob = bytes(attachment.get_data())
            except pdfium.PdfiumError:
                continue  # an attachment whose stream cannot be read
            keep = blob if len(blob) <= options.embedded_max_bytes else b""
            out.append((posixpath.basename(name) or name, keep, len(blob)))
    finally:
        pdf.close()
    return out
