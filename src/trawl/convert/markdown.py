"""Markdown renderings of converted documents: headings, lists, tables and links kept.

A converter that knows its document's structure writes Markdown with a :class:`MarkdownWriter`
as it reads, when ``options.markdown`` asks (it costs a second walk over the parts): DOCX
(paragraph styles ``Title`` and ``Heading N``, numbered and bulleted paragraphs, tables,
hyperlinks, images' alt text), PPTX (slide titles as headings, bullets by indent level, tables,
speaker notes), XLSX and ODS (each sheet a heading and a table, cells in their columns), ODT and
ODP (``text:h``, ``text:list``, tables, links), and HTML and EPUB chapters from the page
reader's text blocks and the block elements that hold them (:func:`blocks_markdown`: headings,
nested lists, tables by ``tr``, code, quotes, the page's links; after main-content extraction,
of the content's blocks only). Any other format's text becomes
Markdown through :func:`text_markdown`: its lines as paragraphs, those that match one of its
headings (a PDF's outline titles, an HTML page's ``h1``-``h6``) as headings.

Markdown is escaped where plain text would be misread: a line that would open a heading, a
list item or a quote gets a backslash, and a table cell's ``|`` is ``\\|``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from trawl.convert.base import collapse

if TYPE_CHECKING:
    from trawl.html.blocks import PageBlocks

__all__ = ["MarkdownWriter", "blocks_markdown", "escape", "link", "table", "text_markdown"]

#: What would start a block if a paragraph began with it: ``#``, ``>``, a list marker, a code
#: fence (which would take every line after it), an HTML block's ``<``, a thematic break.
_LEADING = re.compile(r"([#><]|[-+*](?=\s)|\d{1,9}[.)](?=\s)|`{3}|~{3}|([-*_])(?=(?:[ \t]*\2){2,}[ \t]*$))")


def escape(text: str) -> str:
    """``text`` as a paragraph: a leading character that Markdown would read as a block marker
    gets a backslash (``# 1`` → ``\\# 1``, ``- x`` → ``\\- x``, ``3. x`` → ``3\\. x``)."""
    m = _LEADING.match(text)
    if m is None:
        return text
    marker = m.group(1)
    if marker[0].isdigit():
        return marker[:-1] + "\\" + marker[-1] + text[m.end() :]
    return "\\" + text


def link(text: str, url: str) -> str:
    """``[text](url)``; a URL with spaces or parentheses is written in angle brackets."""
    label = text.replace("[", "\\[").replace("]", "\\]") or url
    target = f"<{url}>" if any(c in url for c in " ()<>") else url
    return f"[{label}]({target})"


def _cell(text: str) -> str:
    return collapse(text).replace("|", "\\|")


def table(rows: Sequence[Sequence[str]]) -> str:
    """A pipe table of ``rows`` (the first one its header), every row as wide as the widest;
    empty columns at the right end are dropped."""
    width = max((len(row) for row in rows), default=0)
    cells = [[_cell(c) for c in row] + [""] * (width - len(row)) for row in rows]
    while width and not any(row[width - 1] for row in cells):
        width -= 1
    if not width:
        return ""
    lines = ["| " + " | ".join(row[:width]) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


class MarkdownWriter:
    """Collects a document's blocks in order and joins them: list items on consecutive lines,
    every other block after a blank line."""

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        self.blocks: list[tuple[bool, str]] = []  # (is a list item, markdown)

    def heading(self, level: int, text: str) -> None:
        text = collapse(text)
        if text:
            self.blocks.append((False, "#" * min(max(level, 1), 6) + " " + text))

    def paragraph(self, text: str) -> None:
        """Plain text, one paragraph per line (escaped)."""
        for raw in text.split("\n"):
            line = collapse(raw)
            if line:
                self.blocks.append((False, escape(line)))

    def markdown(self, text: str) -> None:
        """A block already written as Markdown (links in a paragraph, a table)."""
        if text.strip():
            self.blocks.append((False, text.strip("\n")))

    def item(self, text: str, depth: int = 0, *, ordered: bool = False) -> None:
        """A list item, ``depth`` levels deep (0: the outermost list); ``text`` is Markdown."""
        text = collapse(text)
        if text:
            self.blocks.append((True, "  " * min(max(depth, 0), 8) + ("1. " if ordered else "- ") + text))

    def table(self, rows: Sequence[Sequence[str]]) -> None:
        rows = [row for row in rows if any(c.strip() for c in row)]
        if rows:
            self.markdown(table(rows))

    def render(self) -> str:
        out: list[str] = []
        previous_item = False
        for is_item, text in self.blocks:
            if out:
                out.append("\n" if is_item and previous_item else "\n\n")
            out.append(text)
            previous_item = is_item
        return "".join(out)


def text_markdown(text: str, headings: Iterable[Any] = ()) -> str:
    """Plain ``text`` as Markdown: one paragraph per line, a line that is one of ``headings``
    (``{"level", "text"}`` as converters record them; level 0, a title, is a level-1 heading) as
    a heading of its level."""
    levels: dict[str, int] = {}
    for h in headings:
        if isinstance(h, dict) and isinstance(h.get("text"), str):
            level = h.get("level", 1)
            levels.setdefault(collapse(h["text"]), level if isinstance(level, int) else 1)
    writer = MarkdownWriter()
    for raw in text.split("\n"):
        line = collapse(raw)
        if not line:
            continue
        level = levels.get(line)
        if level is not None:
            writer.heading(level, line)
        else:
            writer.paragraph(line)
    return writer.render()


#: HTML list containers, and the tags whose blocks are table cells.
_LISTS = frozenset({"ul", "ol", "menu", "dir"})
_CELLS = frozenset({"td", "th"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


def blocks_markdown(blocks: PageBlocks, index: Sequence[int] | None = None, links: Iterable[Any] = ()) -> str:
    """An HTML page's text blocks (those at ``index``, all by default) as Markdown: ``h1``-``h6``
    headings, list items by their depth in nested ``ul``/``ol`` (numbered in an ``ol``), the cells
    of a ``table`` as a pipe table (one row per ``tr``), ``pre`` as a code block, ``blockquote``
    quoted, and the page's ``links`` (:class:`~trawl.document.Link`, or ``(url, text)``) written
    into the blocks that hold link text."""
    texts = blocks.texts
    chosen = range(len(texts)) if index is None else index
    tags = blocks.tags
    parent = blocks.parent.tolist()
    element = blocks.element.tolist()
    link_words = blocks.link_words.tolist()
    targets: dict[str, str] = {}
    for item in links:
        url, label = (item.url, item.text) if hasattr(item, "url") else item
        label = collapse(label)
        if len(label) > 1 and url:
            targets.setdefault(label, url)
    md = MarkdownWriter()
    rows: list[list[str]] = []
    table_of: int | None = None
    row_of: int | None = None

    def flush() -> None:
        nonlocal table_of, row_of
        if rows:
            md.table(rows)
            rows.clear()
        table_of = row_of = None

    for i in chosen:
        text = texts[i]
        chain: list[int] = []  # the block's element and its ancestors, nearest first
        e = element[i]
        while e >= 0 and len(chain) < 64:
            chain.append(e)
            e = parent[e]
        names = [tags[e] for e in chain]
        cell = next((k for k, name in enumerate(names) if name in _CELLS or name == "table"), None)
        inline = _html_links(escape(text), targets) if link_words[i] and targets else escape(text)
        if cell is not None and names[cell] in _CELLS:
            table = next((chain[k] for k in range(cell, len(names)) if names[k] == "table"), -1)
            row = next((chain[k] for k in range(cell, len(names)) if names[k] == "tr"), -1)
            if table != table_of:
                flush()
                table_of = table
            if row != row_of or not rows:
                rows.append([])
                row_of = row
            rows[-1].append(inline)
            continue
        flush()
        tag = names[0] if names else ""
        if tag in _HEADINGS:
            md.heading(_HEADINGS[tag], text)
        elif tag in ("li", "dd"):
            lists = [name for name in names if name in _LISTS]
            md.item(inline, max(len(lists) - 1, 0), ordered=bool(lists) and lists[0] == "ol")
        elif tag == "pre":
            md.markdown("```\n" + text + "\n```")
        elif tag == "blockquote" or "blockquote" in names:
            md.markdown("> " + inline)
        else:
            md.markdown(inline)
    flush()
    return md.render()


def _html_links(text: str, targets: dict[str, str]) -> str:
    """``text`` with each link text it holds (longest first, once each) written as a link; a
    shorter label is looked for outside the links already written, never inside one."""
    pieces: list[tuple[str, bool]] = [(text, False)]  # (markdown, is a link written here)
    for label in sorted((t for t in targets if t in text), key=len, reverse=True):
        for n, (piece, written) in enumerate(pieces):
            at = -1 if written else piece.find(label)
            if at >= 0:
                pieces[n : n + 1] = [
                    (piece[:at], False),
                    (link(label, targets[label]), True),
                    (piece[at + len(label) :], False),
                ]
                break
    return "".join(piece for piece, _written in pieces)
