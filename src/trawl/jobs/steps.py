"""The default step lists: what ``trawl ingest``, ``trawl crawl`` and the single-file commands run.

One place assembles the pipeline; no converter, source or crawler builds one. Every command that
shows what ingest would store (``trawl convert``, ``trawl extract``, ``trawl detect-encoding``)
runs these same steps, so what it prints is what ingest stores.
"""

from __future__ import annotations

from trawl.config import Config
from trawl.convert.base import ConvertOptions
from trawl.convert.html import HtmlConverter
from trawl.convert.registry import FormatConverter
from trawl.convert.sniff import TypeSniffer
from trawl.convert.text import TextConverter
from trawl.decode.charset import CharsetDecoder
from trawl.pipeline.base import Step
from trawl.units.embedded import EmbeddedUnits
from trawl.units.faq import FaqUnits
from trawl.units.mail import MailUnits
from trawl.units.pages import PageUnits
from trawl.units.passages import PassageUnits

__all__ = [
    "build_steps",
    "convert_options",
    "decode_steps",
    "default_steps",
    "page_steps",
    "text_unit_steps",
    "unit_steps",
]


def decode_steps(config: Config | None = None) -> list[Step]:
    """The first two steps of every path: sniff the type, then decode the characters."""
    if config is None:
        return [TypeSniffer(), CharsetDecoder()]
    decoder = CharsetDecoder(
        max_body_bytes=config.decode.max_body_bytes,
        default_encoding=config.decode.default_encoding,
        detector=config.decode.detector,
    )
    return [TypeSniffer(), decoder]


def default_steps(
    config: Config | None = None, *, formats: FormatConverter | None = None, segments: bool = False
) -> list[Step]:
    """The conversion path, in order: :func:`decode_steps`, convert HTML, convert every other
    format through the registry (:class:`~trawl.convert.registry.FormatConverter`: PDF, office,
    ODF, EPUB, RTF, XML, feeds; isolated in a worker process), convert plain text.

    ``formats`` replaces the default format converter (``trawl convert`` sets its own time and
    memory limits, or runs it unguarded); ``segments``: the format converter hands documents'
    pages, slides, sheets and chapters on (for :func:`page_steps`, which must follow)."""
    if config is None:
        return [*decode_steps(), HtmlConverter(), formats or FormatConverter(), TextConverter()]
    return [
        *decode_steps(config),
        HtmlConverter(max_chars=config.html.max_chars, markdown=config.convert.markdown),
        formats
        or FormatConverter(
            max_chars=config.html.max_chars, options=convert_options(config), segments=segments
        ),
        TextConverter(max_chars=config.html.max_chars, markdown=config.convert.markdown),
    ]


def convert_options(config: Config) -> ConvertOptions:
    """The format converters' bounds that come from the configuration (mail's, from ``[units]``)."""
    units = config.units
    return ConvertOptions(
        max_chars=config.html.max_chars,
        mail_attachments=units.mail_attachments,
        mail_max_attachments=units.max_attachments,
        mail_max_messages=units.max_messages,
        mail_max_part_bytes=units.max_part_bytes,
        mail_max_depth=units.max_depth,
        pdf_outline=units.pdf == "section",
        markdown=config.convert.markdown,
        embedded=units.embedded,
        embedded_max_objects=units.embedded_max_objects,
        embedded_max_bytes=units.embedded_max_bytes,
        embedded_max_depth=units.embedded_max_depth,
        ocr=config.convert.ocr,
        ocr_max_pages=config.convert.ocr_max_pages,
        ocr_timeout=config.convert.ocr_timeout,
        ocr_languages=tuple(config.convert.ocr_languages) or ("eng",),
        libreoffice=config.convert.libreoffice,
        libreoffice_timeout=config.convert.libreoffice_timeout,
        pdf_layout=config.convert.pdf_layout,
    )


def unit_steps(config: Config) -> list[Step]:
    """The steps that cut documents into units (:mod:`trawl.units`), before everything else: mail
    (an mbox's messages, a message's attachments) when ``units.mail``, then files embedded in
    office documents and PDFs (theirs, and mail attachments') when ``units.embedded = "units"``."""
    units = config.units
    steps: list[Step] = []
    if units.mail:
        steps.append(
            MailUnits(
                attachments=units.mail_attachments,
                max_messages=units.max_messages,
                max_attachments=units.max_attachments,
                max_part_bytes=units.max_part_bytes,
                max_depth=units.max_depth,
                max_body_bytes=config.decode.max_body_bytes,
            )
        )
    if units.embedded == "units":
        steps.append(
            EmbeddedUnits(
                max_objects=units.embedded_max_objects,
                max_bytes=units.embedded_max_bytes,
                max_depth=units.embedded_max_depth,
                max_body_bytes=config.decode.max_body_bytes,
                messages=units.mail_attachments == "units",
            )
        )
    return steps


def page_steps(config: Config) -> list[Step]:
    """The step that cuts converted long documents into units by their pages, sections, slides,
    sheets or chapters (:class:`~trawl.units.pages.PageUnits`), when ``[units]`` asks for any;
    it goes right after :func:`default_steps` (with ``segments=True``)."""
    units = config.units
    step = PageUnits(
        pdf=units.pdf,
        slides=units.slides,
        sheets=units.sheets,
        chapters=units.chapters,
        max_segments=units.max_segments,
    )
    return [step] if step.wanted else []


def text_unit_steps(config: Config) -> list[Step]:
    """The steps that cut units from documents' final text (:mod:`trawl.units.text`): FAQ
    question/answer pairs when ``units.faq``, passages unless ``units.passages = "none"``; none
    by default. They go after main-content extraction and before language tagging, so a unit is
    made of the main content, is never converted or extracted, and gets a language of its own."""
    units = config.units
    steps: list[Step] = []
    if units.faq:
        steps.append(FaqUnits(max_pairs=units.max_faq_pairs))
    if units.passages != "none":
        steps.append(
            PassageUnits(
                mode=units.passages,
                size=units.passage_chars,
                overlap=units.passage_overlap,
                min_chars=units.passage_min_chars,
                max_passages=units.max_passages,
            )
        )
    return steps


def build_steps(config: Config) -> list[Step]:
    """Document units (:func:`unit_steps`: every unit then goes the whole way), conversion (sniff,
    decode, convert), long documents' parts as units (:func:`page_steps`), main content of HTML
    pages when ``extract.enabled``, units cut from the final text (:func:`text_unit_steps`:
    FAQ pairs, passages), then language tagging (of the main content) when ``langid.enabled``."""
    pages = page_steps(config)  # after conversion, before extraction: a unit's text is its part's
    steps = [*unit_steps(config), *default_steps(config, segments=bool(pages)), *pages]
    if config.extract.enabled:
        from trawl.extract import ContentExtractor  # noqa: PLC0415 -- loads its weights only when used

        steps.append(
            ContentExtractor(
                method=config.extract.method,
                fmt=config.extract.format,
                comments=config.extract.comments,
                markdown=config.convert.markdown,
            )
        )
    steps += text_unit_steps(config)
    if config.langid.enabled:
        from trawl.langid import LanguageTagger  # noqa: PLC0415 -- loads its model only when used

        steps.append(LanguageTagger(method=config.langid.method, max_chars=config.langid.max_chars))
    return steps
