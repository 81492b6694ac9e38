"""The HTML stage: a page's title, visible text, links and head metadata, from one parse.

:class:`HtmlConverter` decodes nothing itself (the charset decoder left the characters in
``doc.markup``) and parses each page once, with :func:`~trawl.html.page.read_page`; the page it
read stays on the document (``doc.page``, transient) for the main-content extractor, which
classifies the same text blocks instead of parsing the page again.
"""

from __future__ import annotations

from typing import ClassVar

from trawl.convert.base import cut_text
from trawl.convert.markdown import blocks_markdown
from trawl.convert.meta import check_metadata
from trawl.decode.charset import decode_document
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.html.page import DEFAULT_MAX_CHARS, DEFAULT_MAX_LINKS, read_page
from trawl.pipeline.base import Step
from trawl.sniff.magic import effective_type, is_html

__all__ = ["HtmlConverter"]


class HtmlConverter(Step):
    """Converts documents whose effective type is HTML or XHTML (see :func:`~trawl.html.page.read_page`).

    Sets ``title``, ``text`` (the visible text, one line per text block), ``links``,
    ``metadata`` and ``page`` (the page read, for the extractor); counts ``convert/html``,
    ``html/untitled``, ``html/capped``, ``html/flattened/<why>`` and the link counters. Other
    documents pass untouched. ``markdown``: also ``metadata["markdown"]``, the page's text blocks
    as Markdown (the main-content extractor, after it, keeps its content's).
    """

    name: ClassVar[str] = "html"

    def __init__(
        self,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_links: int = DEFAULT_MAX_LINKS,
        markdown: bool = False,
    ) -> None:
        if max_chars <= 0 or max_links < 0:
            raise ConfigError(
                f"html: max_chars must be positive and max_links not negative, not {max_chars}, {max_links}"
            )
        self.max_chars = max_chars
        self.max_links = max_links
        self.markdown = markdown

    def process(self, doc: Document) -> Document:
        if not is_html(effective_type(doc)):
            return doc
        markup = decode_document(doc, self)
        if len(markup) > self.max_chars:  # read_page cuts it there (its cutoff: "size")
            doc.error(self.name, f"page of {len(markup)} characters cut at html.max_chars = {self.max_chars}")
            self.count("html/capped")
            doc.metadata["truncated"] = True
        page = read_page(markup, doc.url, max_chars=self.max_chars, max_links=self.max_links)
        if page.cutoff in ("depth", "attributes"):
            doc.error(self.name, f"markup flattened before parsing ({page.cutoff}; see trawl.html.nesting)")
        doc.title = page.title
        doc.text = page.text
        doc.links = page.links
        for flag in check_metadata(page.metadata):
            self.count(f"convert/metadata/{flag}")
        doc.metadata.update(page.metadata)
        if self.markdown:
            markdown = blocks_markdown(page.blocks, links=page.links)
            doc.metadata["markdown"] = cut_text(markdown, self.max_chars)[0]
        for key, n in page.counts.items():
            self.count(key, n)
        self.count("convert/html")
        if not page.title:
            self.count("html/untitled")
        doc.page = page
        return doc
