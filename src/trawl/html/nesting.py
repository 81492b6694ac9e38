"""Flatten hostile nesting before an HTML parse.

lexbor's tree building is quadratic in nesting depth and in the attributes of one tag: 100,000
nested ``<div>``s took 104 s to parse, one tag with 50,000 attributes 7 s — a single page could
hold a conversion or extraction worker for minutes, beyond any checkpoint a Python time limit can
reach. :func:`guard_markup` finds both with one scan of the tags and, only when a limit is passed,
rewrites the markup: tags nested deeper than the limit are dropped (their text stays) and the
attributes of one tag past the limit are dropped. Real pages stay far below the limits (the
1,337 WCXB pages nest at most ~150 deep). Depth counts the start and end tags of elements that
nest; void elements and those whose end tag is routinely omitted (``p``, ``li``, ``td``…) do not
count, nor do those a parser never nests in themselves (``a``, ``form``, headings…), and comments
are skipped.

The scan is compiled (``trawl.html._walk.guard_markup``, over UTF-8) when that module was built,
and :func:`guard_markup` here is its reference (the tests compare them); :func:`flatten_utf8` picks.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["MAX_ATTRIBUTES", "MAX_DEPTH", "flatten_utf8", "guard_markup"]

#: Elements nested deeper than this are flattened before parsing.
MAX_DEPTH = 1_000
#: Attributes of one tag past this many are dropped before parsing.
MAX_ATTRIBUTES = 1_000

_NO_NESTING = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
    "wbr", "keygen", "p", "li", "dt", "dd", "tr", "td", "th", "tbody", "thead", "tfoot", "option",
    "optgroup", "rb", "rt", "rtc", "rp", "colgroup", "caption", "html", "head", "body",
    "a", "button", "form", "nobr", "h1", "h2", "h3", "h4", "h5", "h6",
))  # fmt: skip
_TAG_OR_COMMENT = re.compile(r"<(?:!--|!|/?)")
_NAME = re.compile(r"[A-Za-z0-9_:\-\u0080-\U0010ffff]*")
_WORD_START = re.compile(r"[A-Za-z0-9_]")
_TAG_SPACE = " \t\n\f\r"


def _ascii_lower(name: str) -> str:
    return name.lower() if name.isascii() else name


def _tag_end(markup: str, i: int, max_attrs: int) -> tuple[int, int, int]:
    """From just after a start tag's name: one past its ``>``, its attribute count and where its
    ``max_attrs``-th attribute ends (``len(markup)`` when it has no more)."""
    n = len(markup)
    attrs, cut = 0, n
    while i < n:
        while i < n and (markup[i] in _TAG_SPACE or markup[i] == "/"):
            i += 1
        if i >= n:
            return n, attrs, cut
        if markup[i] == ">":
            return i + 1, attrs, cut
        i += 1
        while i < n and markup[i] not in _TAG_SPACE and markup[i] not in "/>=":
            i += 1
        while i < n and markup[i] in _TAG_SPACE:
            i += 1
        if i < n and markup[i] == "=":
            i += 1
            while i < n and markup[i] in _TAG_SPACE:
                i += 1
            if i < n and markup[i] in "\"'":
                close = markup.find(markup[i], i + 1)
                i = n + 1 if close < 0 else close + 1
            else:
                while i < n and markup[i] not in _TAG_SPACE and markup[i] != ">":
                    i += 1
        attrs += 1
        if attrs == max_attrs:
            cut = min(i, n)
    return n, attrs, cut


def guard_markup(markup: str, max_depth: int, max_attrs: int) -> tuple[str, str | None]:
    """``(markup, None)`` when no element nests deeper than ``max_depth`` and no tag has more
    than ``max_attrs`` attributes, else the markup with the tags nested deeper dropped (their text
    kept) and the attributes past the limit dropped, and why (``"depth"`` or ``"attributes"``).

    Depth counts start and end tags of elements that nest (void elements and those whose end
    tag is routinely omitted — ``p``, ``li``, ``td``… — do not); comments are skipped. lexbor's
    tree building is quadratic in both, so a hostile page would otherwise hold a worker for
    minutes. The reference for the compiled ``_walk.guard_markup`` (same scan, over UTF-8).
    """
    n = len(markup)
    deep = many = False
    for rewrite in (False, True):
        if rewrite and not (deep or many):
            break
        out: list[str] = []
        depth = emit_from = 0
        i = 0
        while True:
            m = _TAG_OR_COMMENT.search(markup, i)
            if m is None or m.start() + 1 >= n:
                break
            i = m.start()
            if markup.startswith("<!--", i):
                close = markup.find("-->", i + 4)
                i = n if close < 0 else close + 3
                continue
            if markup[i + 1] == "!":
                close = markup.find(">", i)
                i = n if close < 0 else close + 1
                continue
            if markup[i + 1] == "/":
                name_end = _NAME.match(markup, i + 2).end()  # type: ignore[union-attr]
                name = _ascii_lower(markup[i + 2 : name_end])
                close = markup.find(">", name_end)
                end = n if close < 0 else close + 1
                if name and name not in _NO_NESTING and depth > 0:
                    if rewrite and depth > max_depth:
                        out.append(markup[emit_from:i])
                        emit_from = end
                    depth -= 1
                i = end
                continue
            if not _WORD_START.match(markup, i + 1):
                i += 1
                continue
            name_end = _NAME.match(markup, i + 1).end()  # type: ignore[union-attr]
            name = _ascii_lower(markup[i + 1 : name_end])
            close = markup.find(">", name_end)
            if (
                close >= 0
                and close - name_end < 2 * max_attrs
                and markup.find('"', name_end, close) < 0
                and markup.find("'", name_end, close) < 0
            ):
                end, attrs, cut = close + 1, 0, n
            else:
                end, attrs, cut = _tag_end(markup, name_end, max_attrs)
            if attrs > max_attrs:
                many = True
                if rewrite:
                    out.append(markup[emit_from:cut] + ">")
                    emit_from = end
            if name not in _NO_NESTING:
                depth += 1
                if depth > max_depth:
                    deep = True
                    if rewrite and emit_from <= i:
                        out.append(markup[emit_from:i])
                        emit_from = end
            i = end
        if rewrite:
            out.append(markup[emit_from:])
            return "".join(out), "depth" if deep else "attributes"
    return markup, None


def _compiled() -> Any:
    """The compiled scanner (the extractor's ``_walk`` module) when it was built, else None."""
    if os.environ.get("TRAWL_PURE_PYTHON"):
        return None
    try:
        from trawl.html import _walk  # noqa: PLC0415 - optional, and extract imports this module
    except ImportError:
        return None
    return _walk


def flatten_utf8(data: bytes) -> tuple[bytes, str | None]:
    """:func:`guard_markup` on UTF-8 markup (compiled when built): ``(markup, reason or None)``."""
    walk = _compiled()
    if walk is not None:
        flat: tuple[bytes, str | None] = walk.guard_markup(data, MAX_DEPTH, MAX_ATTRIBUTES)
        return flat
    text, reason = guard_markup(data.decode("utf-8", "replace"), MAX_DEPTH, MAX_ATTRIBUTES)
    return (text.encode("utf-8", "replace") if reason else data), reason
