"""The default step lists: what ``trawl ingest``, ``trawl crawl`` and the single-file commands run.

One place assembles the pipeline; no converter, source or crawler builds one. Every command that
shows what ingest would store (``trawl convert``, ``trawl extract``, ``trawl detect-encoding``)
runs these same steps, so what it prints is what ingest stores.
"""

from __future__ import annotations

from trawl.config import Config
from trawl.convert.html import HtmlConverter
from trawl.convert.registry import FormatConverter
from trawl.convert.sniff import TypeSniffer
from trawl.convert.text import TextConverter
from trawl.decode.charset import CharsetDecoder
from trawl.pipeline.base import Step

__all__ = ["build_steps", "default_steps"]


def default_steps(config: Config | None = None) -> list[Step]:
    """The conversion path, in order: sniff the type, decode, convert HTML, convert every other
    format through the registry (:class:`~trawl.convert.registry.FormatConverter`: PDF, office,
    ODF, EPUB, RTF, XML, feeds; isolated in a worker process), convert plain text."""
    if config is None:
        return [TypeSniffer(), CharsetDecoder(), HtmlConverter(), FormatConverter(), TextConverter()]
    return [
        TypeSniffer(),
        CharsetDecoder(
            max_body_bytes=config.decode.max_body_bytes,
            default_encoding=config.decode.default_encoding,
            detector=config.decode.detector,
        ),
        HtmlConverter(max_chars=config.html.max_chars),
        FormatConverter(max_chars=config.html.max_chars),
        TextConverter(max_chars=config.html.max_chars),
    ]


def build_steps(config: Config) -> list[Step]:
    """Conversion (sniff, decode, convert), main content of HTML pages when ``extract.enabled``,
    then language tagging (of the main content) when ``langid.enabled``."""
    steps = default_steps(config)
    if config.extract.enabled:
        from trawl.extract import ContentExtractor  # noqa: PLC0415 -- loads its weights only when used

        steps.append(ContentExtractor(method=config.extract.method, fmt=config.extract.format))
    if config.langid.enabled:
        from trawl.langid import LanguageTagger  # noqa: PLC0415 -- loads its model only when used

        steps.append(LanguageTagger(method=config.langid.method, max_chars=config.langid.max_chars))
    return steps
