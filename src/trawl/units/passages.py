"""Passages as document units, for passage retrieval: a document's text cut into windows or paragraphs.

:class:`PassageUnits` runs after main-content extraction (see :mod:`trawl.units.text`), on every
document with text (a page's main content, a converted PDF, a mail message…). Each passage is a
unit at the parent's URL plus ``#unit=p-1``, ``p-2``… (``…#unit=msg-3/p-2`` under a message),
whose text is *exactly* ``parent.text[start:end]`` and whose ``metadata["unit"]`` is
``{"parent", "kind": "passage", "position", "span": [start, end], "root"}``; offsets count the
characters (code points) of the parent's stored text. Its title is its parent's.

Two ways to cut (``[units] passages``):

* ``"window"``: windows of at most ``passage_chars`` characters. A window ends at the last
  sentence end in its second half, else at the last space there, else (a run of text without
  spaces: CJK, a long token) at ``passage_chars`` exactly; the next starts ``passage_overlap``
  characters before that end, moved forward to the first sentence start in the overlap, else the
  first word start, so a sentence cut by one window's end is whole in the next.
* ``"paragraph"``: one passage per paragraph (paragraphs are separated by blank lines, or by line
  breaks in a text that has no blank line), a paragraph shorter than ``passage_min_chars`` merged
  with those after it (a heading joins its first paragraph) as long as the passage stays within
  ``passage_chars``, else (and at the end) with the passage before it if it fits there, and a
  paragraph longer than ``passage_chars`` cut into windows as above.

A passage never starts or ends with whitespace; a text that fits in one window is one passage,
so that the passages of a collection cover all of its text, once: the parts of a long document
(:mod:`trawl.units.pages`: pages, sections, slides, sheets, chapters) get none, their parent's
passages holding their text, while other units (a mail message, an attachment) get their own.
At most ``max_passages`` passages are made per document: when that bound is hit it is counted
(``units/passages/capped``) and the parent gets ``metadata["passages_capped"]`` = the passages
not made. Counters: ``units/passages/documents`` (documents cut), ``units/passages/made``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from trawl.document import Document
from trawl.errors import ConfigError
from trawl.units.text import PART_KINDS, TextUnitStep, text_unit

__all__ = ["MODES", "PassageUnits", "paragraph_spans", "window_spans"]

#: The values of ``[units] passages``.
MODES = ("none", "window", "paragraph")

#: A sentence's end: terminal punctuation (and closing quotes or brackets) before a space, or a
#: CJK full stop, which needs none. The match ends where the sentence does.
_SENTENCE_END = re.compile("[.!?\u2026][\"'\u201d\u2019\u00bb)\\]]*(?=\\s)|[\u3002\uff01\uff1f]")
#: The first character of a word after a space.
_WORD_START = re.compile(r"(?<=\s)\S")
#: A paragraph break: a line break, a line of nothing but spaces, and any space after it.
_BLANK_LINE = re.compile(r"\n[ \t\f\v\r]*\n\s*")
_LINE_BREAK = re.compile(r"\n\s*")


def _skip_space(text: str, i: int, hi: int) -> int:
    while i < hi and text[i].isspace():
        i += 1
    return i


def _strip_end(text: str, lo: int, i: int) -> int:
    while i > lo and text[i - 1].isspace():
        i -= 1
    return i


def _window_end(text: str, start: int, end: int) -> int:
    """Where a window from ``start`` that may reach ``end`` ends (see the module docstring)."""
    half = start + (end - start) // 2
    last: re.Match[str] | None = None
    for m in _SENTENCE_END.finditer(text, half, end):
        last = m
    if last is not None:
        return last.end()
    space = max(text.rfind(" ", half, end), text.rfind("\n", half, end), text.rfind("\t", half, end))
    if space > start:
        return space
    return end


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Where the window after ``[start, end)`` starts: ``overlap`` characters before ``end``,
    moved to a sentence start, else a word start, within the overlap (never at or before
    ``start``: every window moves on)."""
    lo = max(end - overlap, start + 1)
    if lo >= end:
        return end
    for m in _SENTENCE_END.finditer(text, lo, end):
        at = _skip_space(text, m.end(), end)
        if at < end:
            return at
        break
    if text[lo - 1].isspace() and not text[lo].isspace():
        return lo
    word = _WORD_START.search(text, lo, end)
    return word.start() if word is not None else end


def window_spans(
    text: str, size: int, overlap: int, lo: int = 0, hi: int | None = None
) -> list[tuple[int, int]]:
    """The windows of ``text[lo:hi]`` (all of it by default): ``(start, end)`` offsets into
    ``text``, each at most ``size`` characters, consecutive ones sharing up to ``overlap``."""
    hi = len(text) if hi is None else hi
    out: list[tuple[int, int]] = []
    start = _skip_space(text, lo, hi)
    while start < hi:
        reach = start + size
        end = hi if reach >= hi else _window_end(text, start, reach)
        stripped = _strip_end(text, start, end)
        if stripped > start:
            out.append((start, stripped))
        if end >= hi:
            break
        start = _skip_space(text, _next_start(text, start, end, overlap), hi)
    return out


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """The paragraphs of ``text``: ``(start, end)``, stripped, none empty."""
    breaks = _BLANK_LINE if _BLANK_LINE.search(text) else _LINE_BREAK
    out = []
    start = 0
    for m in breaks.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    spans = []
    for lo, hi in out:
        s = _skip_space(text, lo, hi)
        e = _strip_end(text, s, hi)
        if e > s:
            spans.append((s, e))
    return spans


def paragraph_spans(text: str, size: int, overlap: int, min_chars: int) -> list[tuple[int, int]]:
    """The paragraph passages of ``text`` (see the module docstring)."""
    groups: list[list[int]] = []

    def settle() -> None:  # a short passage that could not take the next joins the one before
        if len(groups) > 1:
            last, before = groups[-1], groups[-2]
            if last[1] - last[0] < min_chars and last[1] - before[0] <= size:
                before[1] = groups.pop()[1]

    for s, e in _paragraphs(text):
        last = groups[-1] if groups else None
        if last is not None and last[1] - last[0] < min_chars and e - last[0] <= size:
            last[1] = e
        else:
            settle()
            groups.append([s, e])
    settle()
    out: list[tuple[int, int]] = []
    for s, e in groups:
        if e - s > size:
            out.extend(window_spans(text, size, overlap, s, e))
        else:
            out.append((s, e))
    return out


class PassageUnits(TextUnitStep):
    """Cuts each document's text into passage units (see the module docstring)."""

    name: ClassVar[str] = "passages"

    def __init__(
        self,
        *,
        mode: str = "window",
        size: int = 1000,
        overlap: int = 200,
        min_chars: int = 200,
        max_passages: int = 1000,
    ) -> None:
        if mode not in ("window", "paragraph"):
            raise ConfigError(f"units.passages = {mode!r}: choose one of {', '.join(map(repr, MODES))}")
        if size < 1 or not 0 <= overlap < size or min_chars < 0 or max_passages < 1:
            raise ConfigError(
                "units: passage_chars and max_passages must be at least 1, passage_overlap from 0 to "
                f"below passage_chars, passage_min_chars at least 0 (not {size}, {max_passages}, "
                f"{overlap}, {min_chars})"
            )
        self.mode = mode
        self.size = size
        self.overlap = overlap
        self.min_chars = min_chars
        self.max_passages = max_passages

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The passages of ``text``, as offsets, before the bound."""
        if self.mode == "window":
            return window_spans(text, self.size, self.overlap)
        return paragraph_spans(text, self.size, self.overlap, self.min_chars)

    def units(self, doc: Document) -> list[Document]:
        unit = doc.metadata.get("unit")
        if isinstance(unit, dict) and unit.get("kind") in PART_KINDS:
            return []  # a page, slide, chapter…: its parent's passages hold its text
        text = doc.text
        spans = self.spans(text)
        if not spans:
            return []
        if len(spans) > self.max_passages:
            self.count("units/passages/capped")
            doc.metadata["passages_capped"] = len(spans) - self.max_passages
            spans = spans[: self.max_passages]
        self.count("units/passages/documents")
        self.count("units/passages/made", len(spans))
        return [
            text_unit(
                doc,
                f"p-{position}",
                kind="passage",
                position=position,
                text=text[start:end],
                span=[start, end],
                title=doc.title,
            )
            for position, (start, end) in enumerate(spans, 1)
        ]
