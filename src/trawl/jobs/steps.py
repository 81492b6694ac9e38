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
from trawl.units.mail import MailUnits

__all__ = ["build_steps", "convert_options", "decode_steps", "default_steps", "unit_steps"]


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


def default_steps(config: Config | None = None, *, formats: FormatConverter | None = None) -> list[Step]:
    """The conversion path, in order: :func:`decode_steps`, convert HTML, convert every other
    format through the registry (:class:`~trawl.convert.registry.FormatConverter`: PDF, office,
    ODF, EPUB, RTF, XML, feeds; isolated in a worker process), convert plain text.

    ``formats`` replaces the default format converter (``trawl convert`` sets its own time and
    memory limits, or runs it unguarded)."""
    if config is None:
        return [*decode_steps(), HtmlConverter(), formats or FormatConverter(), TextConverter()]
    return [
        *decode_steps(config),
        HtmlConverter(max_chars=config.html.max_chars),
        formats or FormatConverter(max_chars=config.html.max_chars, options=convert_options(config)),
        TextConverter(max_chars=config.html.max_chars),
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
    )


def unit_steps(config: Config) -> list[Step]:
    """The steps that cut documents into units (:mod:`trawl.units`), before everything else: mail
    (an mbox's messages, a message's attachments) when ``units.mail``."""
    if not config.units.mail:
        return []
    units = config.units
    return [
        MailUnits(
            attachments=units.mail_attachments,
            max_messages=units.max_messages,
            max_attachments=units.max_attachments,
            max_part_bytes=units.max_part_bytes,
            max_depth=units.max_depth,
            max_body_bytes=config.decode.max_body_bytes,
        )
    ]


def build_steps(config: Config) -> list[Step]:
    """Document units (:func:`unit_steps`: every unit then goes the whole way), conversion (sniff,
    decode, convert), main content of HTML pages when ``extract.enabled``, then language tagging
    (of the main content) when ``langid.enabled``."""
    steps = [*unit_steps(config), *default_steps(config)]
    if config.extract.enabled:
        from trawl.extract import ContentExtractor  # noqa: PLC0415 -- loads its weights only when used

        steps.append(
            ContentExtractor(
                method=config.extract.method, fmt=config.extract.format, comments=config.extract.comments
            )
        )
    if config.langid.enabled:
        from trawl.langid import LanguageTagger  # noqa: PLC0415 -- loads its model only when used

        steps.append(LanguageTagger(method=config.langid.method, max_chars=config.langid.max_chars))
    return steps
