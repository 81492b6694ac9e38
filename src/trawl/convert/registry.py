"""The converter registry: format → converter, and the pipeline step that uses it.

:data:`REGISTRY` maps each format name that :func:`~trawl.sniff.identify.identify` reports to a
:class:`ConverterSpec`: the function, whether it takes bytes or decoded characters, and whether
it runs isolated in a worker process (:class:`~trawl.convert.guard.Guard`) — PDF (PDFium is C),
every ZIP package (bombs, deep XML), mail (MIME trees, and folded attachments' converters) and
legacy OLE files (:mod:`trawl.convert.legacy`, which may call LibreOffice).
:func:`convert_bytes` is the whole job for one payload — identify, decode if textual, convert,
check the metadata (:func:`~trawl.convert.meta.check_metadata`) — and never raises for bad input:
a refusal or failure comes back as :attr:`Conversion.dropped` (``<format>-<why>`` or a converter's
own reason such as ``zip-bomb``) with a message.

:class:`FormatConverter` is the pipeline step for every document that is neither HTML nor plain
text (those keep their own steps, which share the decoding already done). It sets ``text``,
``title``, ``links`` and ``metadata`` (with ``metadata["format"]``, and ``needs_ocr`` where it
applies), refines ``sniffed_type`` and ``type_mismatch`` from the whole payload, and counts
``convert/<format>``; when asked, it hands the units step the segments (``metadata["_segments"]``).
A document whose conversion fails is dropped with reason ``convert/<reason>``; a format with no
converter (archives, images without OCR) is kept untouched and counted as
``convert/skipped/<type>``, one a converter calls ``unsupported-…`` (an iWork package with no
readable body, an OLE file that is no Office document) as ``convert/skipped/<reason>``, and so is
a container whose units are documents of their own
(``metadata["units"]``, an mbox split by :mod:`trawl.units.mail`: ``convert/container``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, ClassVar, Literal
from urllib.parse import unquote, urlsplit

from trawl.convert.base import ConversionError, Converted, ConvertOptions, clip_segments, cut_text
from trawl.convert.embedded import EMBEDDING_FORMATS, embedded_files
from trawl.convert.feeds import convert_feed, convert_xml
from trawl.convert.guard import DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT, Guard
from trawl.convert.iwork import IWORK_FORMATS, convert_iwork
from trawl.convert.legacy import convert_ole, libreoffice_available
from trawl.convert.mail import convert_email, convert_mbox
from trawl.convert.markdown import blocks_markdown, text_markdown
from trawl.convert.meta import check_metadata
from trawl.convert.ocr import IMAGE_TYPES, convert_image
from trawl.convert.office import convert_docx, convert_epub, convert_odf, convert_pptx, convert_xlsx
from trawl.convert.pdf import convert_pdf
from trawl.convert.rtf import convert_rtf
from trawl.convert.text import normalize_text, text_title
from trawl.decode.charset import body_of, decode_html
from trawl.document import Document, Link
from trawl.errors import ConfigError, MissingDependency
from trawl.html.page import read_page
from trawl.pipeline.base import Step
from trawl.sniff.identify import Identity, format_of_type, identify
from trawl.sniff.magic import effective_type, is_html, is_plain_text

__all__ = [
    "REGISTRY",
    "SEGMENTS",
    "Conversion",
    "ConverterSpec",
    "FormatConverter",
    "convert_bytes",
    "convert_html",
    "convert_text",
    "filename_of",
]


#: ``metadata`` key (never stored: it begins with ``_``) of a converted document's segments
#: (:class:`~trawl.convert.base.Segment`), for :class:`~trawl.units.pages.PageUnits`.
SEGMENTS = "_segments"


def convert_html(data: bytes | str, options: ConvertOptions) -> Converted:
    """HTML through :func:`~trawl.html.page.read_page`, as a :class:`Converted`."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    page = read_page(
        text, options.url or "about:blank", max_chars=options.max_chars, max_links=options.max_links
    )
    out = Converted(text=page.text, title=page.title, metadata=page.metadata, counts=page.counts)
    out.links = [(link.url, link.text) for link in page.links]
    if options.markdown:
        out.markdown = blocks_markdown(page.blocks, links=page.links)
    return out


def convert_text(data: bytes | str, options: ConvertOptions) -> Converted:
    """Plain text: line ends normalised, first non-empty line as the title."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    text, capped = cut_text(normalize_text(text), options.max_chars)
    out = Converted(text=text, title=text_title(text))
    if capped:
        out.metadata["truncated"] = True
    return out


def _convert_part(
    data: bytes, declared: str | None, filename: str | None, options: ConvertOptions
) -> tuple[Converted | None, str]:
    """One attachment folded into its message's text: converted here, in the process that
    converts the message (the guarded worker, in a pipeline)."""
    conversion = convert_bytes(data, declared=declared, filename=filename, options=options)
    if conversion.converted is not None:
        return conversion.converted, ""
    return None, conversion.dropped or ("skipped" if conversion.skipped else "failed")


def _convert_email(data: bytes, options: ConvertOptions) -> Converted:
    return convert_email(data, options, _convert_part)


def _convert_mbox(data: bytes, options: ConvertOptions) -> Converted:
    return convert_mbox(data, options, _convert_part)


def _convert_ole(data: bytes, options: ConvertOptions) -> Converted:
    return convert_ole(data, options, _convert_part)


@dataclass(slots=True, frozen=True)
class ConverterSpec:
    """How one format is converted."""

    format: str
    func: Callable[[Any, ConvertOptions], Converted]
    input: Literal["bytes", "text"] = "bytes"  # "text": decoded characters (markup and text)
    isolate: bool = False  # run in the guarded worker process
    #: A refusal or failure keeps the document, unconverted, counted ``convert/skipped/<reason>``
    #: rather than dropping it (an image: the file is the document, its OCR text an addition).
    keep_on_failure: bool = False


#: Every format trawl converts, by the name :func:`identify` gives it.
REGISTRY: dict[str, ConverterSpec] = {
    spec.format: spec
    for spec in (
        ConverterSpec("html", convert_html, "text"),
        ConverterSpec("text", convert_text, "text"),
        ConverterSpec("xml", convert_xml, "text"),
        ConverterSpec("rss", convert_feed, "text"),
        ConverterSpec("atom", convert_feed, "text"),
        ConverterSpec("rtf", convert_rtf),
        ConverterSpec("pdf", convert_pdf, isolate=True),
        ConverterSpec("docx", convert_docx, isolate=True),
        ConverterSpec("pptx", convert_pptx, isolate=True),
        ConverterSpec("xlsx", convert_xlsx, isolate=True),
        ConverterSpec("odt", convert_odf, isolate=True),
        ConverterSpec("ods", convert_odf, isolate=True),
        ConverterSpec("odp", convert_odf, isolate=True),
        ConverterSpec("epub", convert_epub, isolate=True),
        # hostile MIME, and with mail_attachments = "fold" the attachments' own converters
        ConverterSpec("email", _convert_email, isolate=True),
        ConverterSpec("mbox", _convert_mbox, isolate=True),
        # .doc .xls .ppt .msg: olefile, xlrd, LibreOffice as a subprocess of the worker
        ConverterSpec("ole", _convert_ole, isolate=True),
        *(ConverterSpec(fmt, convert_iwork, isolate=True) for fmt in IWORK_FORMATS),
        # OCR (Tesseract in a subprocess of the worker), when options.ocr is not "never"
        ConverterSpec("image", convert_image, isolate=True, keep_on_failure=True),
    )
}


@dataclass(slots=True)
class Conversion:
    """What :func:`convert_bytes` made of one payload."""

    identity: Identity
    converted: Converted | None = None
    dropped: str | None = None  # the reason, when the payload was refused or conversion failed
    message: str = ""
    skipped: bool = False  # no converter for this format (an image, an archive)
    skip_reason: str = ""  # why, when not for want of a converter (ocr-unavailable)
    seconds: float = 0.0
    encoding: str | None = None
    meta_flags: list[str] = field(default_factory=list)


def filename_of(url: str) -> str | None:
    """The last path segment of a URL (``…/report.pdf`` → ``report.pdf``), if it has one."""
    try:
        name = PurePosixPath(unquote(urlsplit(url).path)).name
    except ValueError:
        return None
    return name or None


def _run(
    spec: ConverterSpec,
    payload: bytes | str,
    options: ConvertOptions,
    guard: Guard | None,
    timeout: float | None = None,
) -> Converted:
    if spec.isolate and guard is not None:
        result: Converted = guard.call(spec.func, payload, options, timeout=timeout)
        return result
    try:
        return spec.func(payload, options)
    except (ConversionError, MissingDependency):
        raise
    except MemoryError as exc:
        raise ConversionError("out of memory", "memory") from exc
    except RecursionError as exc:
        raise ConversionError("the document is nested too deeply", "too-deep") from exc
    except Exception as exc:  # a library failure on bad input is the document's problem, not the run's
        raise ConversionError(f"{type(exc).__name__}: {exc}"[:500], "failed") from exc


def _convert(
    spec: ConverterSpec, payload: bytes | str, options: ConvertOptions, guard: Guard | None
) -> Converted:
    """:func:`_run`, with the time OCR needs: an image's worker gets ``ocr_timeout`` more seconds
    a page; a PDF is first converted without OCR and, when it has pages to OCR (no text layer, or
    ``ocr = "always"``), again with OCR and that much more time for them, so that a PDF with a
    text layer keeps the guard's limit. A failed OCR pass leaves the first pass's result (counted
    ``ocr/failed/<reason>``). A legacy Office file's worker gets ``libreoffice_timeout`` more, so
    that LibreOffice's own limit stops it first (its process group killed, its folder removed)."""
    base = guard.timeout if guard is not None else 0.0
    if spec.format == "ole" and options.libreoffice != "never" and libreoffice_available():
        return _run(spec, payload, options, guard, base + options.libreoffice_timeout)
    if options.ocr == "never" or spec.format not in ("pdf", "image"):
        return _run(spec, payload, options, guard)
    if spec.format == "image":  # a TIFF has pages; the first may be read twice (its language)
        tiff = isinstance(payload, bytes) and payload[:4] in (b"II*\x00", b"MM\x00*")
        frames = options.ocr_max_pages if tiff else 1
        return _run(spec, payload, options, guard, base + (frames + 1) * options.ocr_timeout)
    first = _run(spec, payload, dataclasses.replace(options, ocr="never"), guard)
    pages = first.metadata.get("pages")
    read = min(pages, options.max_pages) if isinstance(pages, int) else 0
    wanted = read if options.ocr == "always" else first.counts.get("pdf/scanned-pages", 0)
    if not wanted:
        return first
    timeout = base + (min(wanted, options.ocr_max_pages) + 1) * options.ocr_timeout
    try:
        return _run(spec, payload, options, guard, timeout)
    except ConversionError as exc:
        first.count(f"ocr/failed/{exc.reason}")
        first.warnings.append(f"OCR failed, the text layer kept: {exc}")
        return first


def _fold_embedded(
    converted: Converted, data: bytes, fmt: str, options: ConvertOptions, guard: Guard | None
) -> None:
    """``embedded = "fold"``: the text of each file embedded in ``data``
    (:func:`~trawl.convert.embedded.embedded_files`), converted as any document of its format is
    (files in it too, to ``embedded_max_depth``), added after the document's text under its name;
    ``metadata["embedded"]`` lists them (``name``, ``type``, ``size``, ``format``, ``dropped``).
    Counted ``embedded/folded``, ``embedded/failed/<reason>``, ``embedded/capped/depth``."""
    found = embedded_files(data, fmt, options, guard)
    for key, n in found.counts.items():
        converted.count(key, n)
    if not found.files:
        return
    if options.embedded_depth >= options.embedded_max_depth:
        converted.count("embedded/capped/depth", len(found.files))
        return
    inner = dataclasses.replace(options, embedded_depth=options.embedded_depth + 1)
    if options.markdown and not converted.markdown:  # the document's own, before the files' text
        headings = converted.metadata.get("headings")
        converted.markdown = text_markdown(converted.text, headings if isinstance(headings, list) else ())
    listed: list[dict[str, Any]] = []
    for item in found.files:
        conversion = convert_bytes(
            item.data, declared=item.type, filename=item.name, options=inner, guard=guard
        )
        entry: dict[str, Any] = {"name": item.name, "type": item.type, "size": len(item.data)}
        entry["format"] = conversion.identity.format
        part = conversion.converted
        if part is None or not part.text:
            entry["dropped"] = conversion.dropped or ("skipped" if conversion.skipped else "empty")
            converted.count(f"embedded/failed/{entry['dropped']}")
        else:
            converted.count("embedded/folded")
            converted.text = f"{converted.text}\n{item.name}\n{part.text}" if converted.text else part.text
            if options.markdown:
                markdown = part.metadata.get("markdown") or part.text
                converted.markdown += f"\n\n## {item.name}\n\n{markdown}"
            for key, n in part.counts.items():
                converted.count(key, n)
        listed.append(entry)
    converted.metadata["embedded"] = listed


def _store_markdown(converted: Converted, options: ConvertOptions) -> None:
    """``metadata["markdown"]``: the converter's own rendering, else its text with its headings
    marked (:func:`~trawl.convert.markdown.text_markdown`), cut as the text is."""
    headings = converted.metadata.get("headings")
    known = headings if isinstance(headings, list) else ()
    markdown = converted.markdown or text_markdown(converted.text, known)
    markdown, _capped = cut_text(markdown, options.max_chars)
    if markdown:
        converted.metadata["markdown"] = markdown


def _reason(fmt: str, reason: str) -> str:
    """``failed`` → ``pdf-failed``; reasons that already say their format stay as they are."""
    generic = ("failed", "timeout", "crashed", "memory", "too-deep")
    return f"{fmt}-{reason}" if reason in generic else reason


def convert_bytes(
    data: bytes,
    *,
    declared: str | None = None,
    filename: str | None = None,
    options: ConvertOptions | None = None,
    guard: Guard | None = None,
    text: str | None = None,
) -> Conversion:
    """Identify and convert one payload; never raises for bad input (see the module docstring).

    ``text`` is the payload already decoded (the pipeline's decoder ran); otherwise textual
    formats are decoded here. Without a ``guard`` everything runs in this process.
    """
    options = options or ConvertOptions()
    t0 = time.perf_counter()
    identity = identify(data, declared, filename)
    result = Conversion(identity)
    spec = REGISTRY.get(identity.format)
    ocr_off = options.ocr == "never" or identity.mime not in IMAGE_TYPES
    if spec is not None and spec.format == "image" and ocr_off:
        spec = None  # OCR off, or an image it does not read (an icon): skipped as before
    if spec is None:
        result.skipped = True
        if identity.truncated:
            result.dropped, result.message = "zip-truncated", "a ZIP without a readable central directory"
        return result
    payload: bytes | str = data
    if spec.input == "text":
        if text is None:
            decoded = decode_html(data, declared, html=identity.format == "html")
            text, result.encoding = decoded.text, decoded.encoding
        payload = text
    try:
        converted = _convert(spec, payload, options, guard)
    except ConversionError as exc:
        if spec.keep_on_failure or exc.reason.startswith("unsupported-"):
            # kept unconverted: an image OCR could not read, an old iWork package, a Thumbs.db
            result.skipped, result.message = True, str(exc)
            result.skip_reason = _reason(identity.format, exc.reason)
        else:
            result.dropped, result.message = _reason(identity.format, exc.reason), str(exc)
    except MissingDependency as exc:
        result.skipped = True
        result.message = str(exc)
    else:
        folded = options.embedded == "fold" and identity.format in EMBEDDING_FORMATS
        if folded and not (identity.format == "ole" and options.mail_attachments == "fold"):
            _fold_embedded(converted, data, identity.format, options, guard)
        converted.text, capped = cut_text(converted.text, options.max_chars)
        if capped:
            converted.count("convert/capped")
            converted.metadata["truncated"] = True
            converted.segments = clip_segments(converted.segments, len(converted.text))
        if options.markdown:
            _store_markdown(converted, options)
        claimed_title = converted.metadata.get("title")
        result.meta_flags = check_metadata(converted.metadata)
        if claimed_title and converted.title == claimed_title:
            trusted = converted.metadata.get("title")  # gone if it was a placeholder
            converted.title = trusted if isinstance(trusted, str) else ""
        if not converted.title:
            converted.title = text_title(converted.text)
        result.converted = converted
    result.seconds = time.perf_counter() - t0
    return result


class FormatConverter(Step):
    """Converts PDF, office, ODF, EPUB, RTF, XML and feed documents (see the module docstring)."""

    name: ClassVar[str] = "convert"

    def __init__(
        self,
        *,
        max_chars: int = 5_000_000,
        isolate: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        max_memory: int = DEFAULT_MAX_MEMORY,
        max_pages: int = 2_000,
        options: ConvertOptions | None = None,
        segments: bool = False,
    ) -> None:
        """``options`` gives the bounds not named here (the mail ones); ``max_chars`` and
        ``max_pages`` override it. ``segments``: hand a document's pages, slides, sheets or
        chapters on to the units step after it (``metadata["_segments"]``, never stored)."""
        if max_chars <= 0 or max_pages <= 0:
            raise ConfigError(
                f"convert: max_chars and max_pages must be positive, not {max_chars}, {max_pages}"
            )
        self.options = dataclasses.replace(
            options or ConvertOptions(), max_chars=max_chars, max_pages=max_pages
        )
        self.guard = Guard(timeout=timeout, max_memory=max_memory) if isolate else None
        self.segments = segments

    def close(self) -> None:
        if self.guard is not None:
            self.guard.close()

    def _apply(self, doc: Document) -> Document | None:
        kind = effective_type(doc)
        if is_html(kind) or is_plain_text(kind):
            return doc  # the HTML and text converters share the decoder's work
        if isinstance(doc.metadata.get("units"), int):
            # a container a units step split (an mbox): its units are documents of their own
            self.count("convert/container")
            return doc
        payload = body_of(doc, self)
        text = doc.markup  # XML and feeds: what the charset decoder made of them
        options = dataclasses.replace(self.options, url=doc.url)
        name = doc.metadata.get("filename")  # a unit's (an attachment's) own file name
        conversion = convert_bytes(
            payload,
            declared=doc.content_type,
            filename=name if isinstance(name, str) else filename_of(doc.url),
            options=options,
            guard=self.guard,
            text=text,
        )
        identity = conversion.identity
        doc.metadata["format"] = identity.format
        if format_of_type(doc.sniffed_type) != identity.format:
            doc.sniffed_type = identity.mime
            doc.type_mismatch = identity.declared_disagrees or (
                not doc.http_headers and identity.extension_disagrees
            )
        if conversion.dropped is not None:
            reason = f"convert/{conversion.dropped}"
            doc.dropped = reason
            doc.error(self.name, conversion.message)
            if self.ctx is not None:
                self.ctx.drop(self.name, reason, conversion.message, url=doc.url, source=doc.source)
            return None
        converted = conversion.converted
        if converted is None:
            if conversion.message:
                doc.error(self.name, conversion.message)
            self.count(f"convert/skipped/{conversion.skip_reason or identity.mime}")
            return doc
        doc.text = converted.text
        doc.title = converted.title
        doc.links = [Link(url, anchor) for url, anchor in converted.links]
        doc.metadata.update(converted.metadata)
        if converted.needs_ocr:
            doc.metadata["needs_ocr"] = True
        if self.segments and converted.segments:
            doc.metadata[SEGMENTS] = converted.segments
        for warning in converted.warnings:
            doc.error(self.name, warning)
        for key, n in converted.counts.items():
            self.count(key, n)
        for flag in conversion.meta_flags:
            self.count(f"convert/metadata/{flag}")
        self.count(f"convert/{identity.format}")
        return doc
