"""Plain text to text and title; a format nobody converted is counted, not guessed at.

:class:`TextConverter` is the last converter of the conversion path. For plain and other
non-markup text (``text/plain``, ``text/css``, JSON, YAML, an unknown type whose bytes sniff as
text) it normalises line breaks (CRLF and lone CR become LF), removes NUL characters, and takes
the first non-empty line as the title. Documents of any other type are left untouched: (X)HTML is
:class:`~trawl.convert.html.HtmlConverter`'s, and the rest went through
:class:`~trawl.convert.registry.FormatConverter`, which set ``metadata["format"]`` and counted
what it could not convert. A document of another type that reached this step without it (the
step used on its own) is counted as ``convert/skipped/<type>``.
"""

from __future__ import annotations

from typing import ClassVar

from trawl.convert.base import cut_text
from trawl.convert.markdown import text_markdown
from trawl.decode.charset import decode_document
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import Step
from trawl.sniff.magic import effective_type, is_html, is_plain_text

__all__ = ["DEFAULT_MAX_CHARS", "MAX_TITLE_CHARS", "TextConverter", "normalize_text", "text_title"]

#: Texts longer than this many characters are cut (``html.max_chars`` in the configuration).
DEFAULT_MAX_CHARS = 5_000_000
#: A plain text's title (its first non-empty line) is cut at this many characters.
MAX_TITLE_CHARS = 200


def normalize_text(text: str) -> str:
    """CRLF and lone CR to LF, NUL characters removed."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "")
    return text


def text_title(text: str) -> str:
    """The first non-empty line, stripped and cut at :data:`MAX_TITLE_CHARS`."""
    start = 0
    n = len(text)
    while start < n:
        end = text.find("\n", start)
        if end < 0:
            end = n
        line = text[start : min(end, start + 4 * MAX_TITLE_CHARS)].strip()
        if line:
            return line[:MAX_TITLE_CHARS].rstrip()
        start = end + 1
    return ""


class TextConverter(Step):
    """Converts plain text; counts ``convert/text``, ``text/capped`` and ``convert/skipped/<type>``.
    ``markdown``: also ``metadata["markdown"]``, the text's lines as paragraphs."""

    name: ClassVar[str] = "text"

    def __init__(self, *, max_chars: int = DEFAULT_MAX_CHARS, markdown: bool = False) -> None:
        if max_chars <= 0:
            raise ConfigError(f"text: max_chars must be positive, not {max_chars}")
        self.max_chars = max_chars
        self.markdown = markdown

    def process(self, doc: Document) -> Document:
        kind = effective_type(doc)
        if is_html(kind):
            return doc
        if not is_plain_text(kind):
            if "format" not in doc.metadata:  # FormatConverter, when it ran, has counted it
                self.count(f"convert/skipped/{kind}")
            return doc
        text = decode_document(doc, self)
        whole = len(text)
        text, capped = cut_text(normalize_text(text), self.max_chars)
        if capped:
            doc.error(self.name, f"text of {whole} characters cut at {self.max_chars}, at the end of a line")
            self.count("text/capped")
            doc.metadata["truncated"] = True
        doc.text = text
        doc.title = text_title(text)
        if self.markdown:
            doc.metadata["markdown"] = text_markdown(text)
        self.count("convert/text")
        return doc
