"""A page as a sequence of text blocks with their DOM context, from one lexbor parse.

The atomic unit is Kohlschütter et al.'s (2010) *text block*: a run of text between two block-level
element boundaries. Each block knows its words, how many of them sit inside links, the element that
holds it and that element's ancestors (their tags and class/id hints), so that a classifier can
tell content from boilerplate by text density, link density, markup hints, position and its
neighbours.

Speed: Python never walks text nodes. One pass over the *elements* (integer tag ids) inserts a
numbered marker text node before and after every block element and around every link; the text
of the whole body is then read in one C call and split on the markers. Python work is proportional
to the number of block elements, not to the number of nodes. Hidden elements are found in the same
pass (no CSS query), and class/id hints are matched by one prefix-factored regex cached per class
name (:func:`hint_bits`): with a flat alternation of the ~120 keywords, hint matching alone cost
more than the rest of the walk.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from selectolax.lexbor import LexborHTMLParser

__all__ = [
    "ANCESTOR_GROUPS",
    "HINT_NAMES",
    "Block",
    "Element",
    "PageBlocks",
    "hint_bits",
    "parse_blocks",
    "trie_pattern",
]

# Never visible, or fallback content for media and plugins.
_INVISIBLE = (
    "script", "style", "template", "svg", "iframe", "object", "embed", "canvas", "video", "audio",
    "datalist", "select", "option", "button", "textarea", "input", "head", "title",
    "map", "math",
)  # fmt: skip
_BLOCKS = (
    "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dialog",
    "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
    "h3", "h4", "h5", "h6", "header", "hgroup", "legend", "li", "main", "menu", "nav", "ol", "p",
    "pre", "section", "summary", "table", "td", "th", "tr", "ul", "body", "tbody", "thead",
    "tfoot",
)  # fmt: skip
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _is_hidden(attrs: dict[str, str | None]) -> bool:
    """``hidden``, ``aria-hidden="true"`` or an inline ``display: none`` / ``visibility: hidden``."""
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    style = attrs.get("style")
    return bool(style) and _HIDDEN_STYLE.search(style) is not None  # type: ignore[arg-type]


_PROBE = LexborHTMLParser("")


def _tid(tag: str) -> int:
    return int(_PROBE.create_node(tag).tag_id)


_BLOCK_IDS = {_tid(t): t for t in _BLOCKS}
_INVISIBLE_IDS = frozenset(_tid(t) for t in _INVISIBLE)
_ANCHOR_ID = _tid("a")
_BODY_ID = _tid("body")
_NOSCRIPT_ID = _tid("noscript")
_BR_ID = _tid("br")
_HR_ID = _tid("hr")
_BREAK_IDS = frozenset((_BR_ID, _HR_ID))

#: Class/id hint families; an element's hint bit ``k`` is set when its class, id or role contains one
#: of the family's keywords.
HINT_NAMES = ("nav", "footer", "side", "comment", "social", "meta", "ad", "content", "title", "hidden")
_HINT_WORDS = (
    "nav menu breadcrumb crumb skip pagination pager toolbar masthead topbar header dropdown mega",
    "foot copyright legal bottom disclaimer colophon",
    "side aside widget related recommend popular trending more- also teaser rail sticky promo",
    "comment reply replies discuss respons review thread message answer forum",
    "share social sharing follow facebook twitter newsletter subscribe signup sign-up cookie consent"
    " gdpr login",
    "byline author date time meta categor label badge caption credit",
    "advert sponsor banner dfp gpt- outbrain taboola adsense ad-",
    "article content entry post main body text story blog prose markdown rich detail descr product doc",
    "title headline heading h1",
    "hidden modal popup overlay drawer offcanvas visually-hidden sr-only screen-reader",
)
_KEYWORD_BITS = {w: 1 << k for k, words in enumerate(_HINT_WORDS) for w in words.split()}
# Keywords that must be followed by something: "post-12" is a comment (a bare "post" content),
# "tag"/"tags" only as a whole word, "-ad" only at a word's end. Whole-word "ad"/"ads" is tested
# on the words of the name (see hint_bits).
_SUFFIXED = {"post": r"(?:-?\d)?", "tag": r"s?\b", "-ad": r"\b"}
_SUFFIX_BITS = {"post": 1 << 3, "tag": 1 << 5, "-ad": 1 << 6}
_NON_WORD = str.maketrans({c: " " for c in "-_.:/#[]()"})
_AD_WORDS = frozenset(("ad", "ads"))
_HINT_NAME_CHARS = 400  # utility-class soups run to kilobytes; the hints are in their first words


def trie_pattern(words: list[str], suffixes: dict[str, str]) -> str:
    """One regex for many literal keywords, factored by prefix: Python's ``re`` tries the branches
    of an alternation one by one at every position, so a flat ``a|b|c…`` of 120 keywords costs
    ~120 comparisons per character, a trie about one per distinct next letter. A keyword in
    ``suffixes`` must be followed by its pattern there."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = suffixes.get(word, "")

    def walk(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + walk(node[ch]) for ch in sorted(node) if ch]
        end = node.get("")
        if end:  # a keyword ending here with a required suffix
            alts.append(end)
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if end == "" else body

    return walk(trie)


_HINTS = re.compile(trie_pattern(sorted({*_KEYWORD_BITS, *_SUFFIXED}), _SUFFIXED))
_hint_cache: dict[str, int] = {}
_word_cache: dict[str, int] = {}
_SEMANTIC = {  # tags that carry a hint by themselves
    "nav": 1 << 0,
    "header": 1 << 0,
    "menu": 1 << 0,
    "footer": 1 << 1,
    "aside": 1 << 2,
    "article": 1 << 7,
    "main": 1 << 7,
}


def _word_hint_bits(word: str) -> int:
    bits = 0
    for m in _HINTS.findall(word):
        b = _KEYWORD_BITS.get(m)
        if b is None:
            b = _SUFFIX_BITS["post" if m[0] == "p" else "tag" if m[0] == "t" else "-ad"]
        bits |= b
    if "ad" in word and not _AD_WORDS.isdisjoint(word.translate(_NON_WORD).split()):
        bits |= 1 << 6
    return bits


def hint_bits(names: str) -> int:
    """The hint bits of a class/id/role string (see :data:`HINT_NAMES`).

    Cached per string and per class name: class names recur across sites (``menu-item``,
    ``col-md-8``), whole class strings much less, and the keyword regex costs microseconds.
    """
    bits = _hint_cache.get(names)
    if bits is None:
        bits = 0
        words = _word_cache
        for word in names[:_HINT_NAME_CHARS].lower().split():
            b = words.get(word)
            if b is None:
                b = words[word] = _word_hint_bits(word)
            bits |= b
        if len(_hint_cache) > 100_000:
            _hint_cache.clear()
        if len(words) > 200_000:
            words.clear()
        _hint_cache[names] = bits
    return bits


#: Marker strings by element number, made once for all pages (an f-string per marker costs more).
_OPEN_MARKS: list[str] = []
_CLOSE_MARKS: list[str] = []
_MAX_MARKS = 100_000  # beyond this many block elements (rare pages), formatted per element


_MARKS_LOCK = threading.Lock()


def _grow_marks(n: int) -> None:
    """Extend the marker tables past ``n`` (up to ``_MAX_MARKS``). Under a lock, and the close
    marker appended after the open one: a reader that sees ``len(_CLOSE_MARKS) > n`` in another
    thread finds both strings of element ``n`` in place."""
    with _MARKS_LOCK:
        for i in range(len(_CLOSE_MARKS), min(max(2 * n, 4096), _MAX_MARKS)):
            _OPEN_MARKS.append(f"\x00{i}[")
            _CLOSE_MARKS.append(f"\x00{i}]")


_MARK = re.compile("\x00(\\d+)([\\[\\]])")
_LINK_OPEN = "\x01"
_LINK_CLOSE = "\x02"
_LINK_TEXT = re.compile("\x01([^\x01\x02]*)\x02?")


#: Tags whose elements put their text blocks "inside a list / table / form / quote" (bit order).
ANCESTOR_GROUPS = {"li": 0, "ul": 0, "ol": 0, "dl": 0, "table": 1, "form": 2, "blockquote": 3, "pre": 3}


@dataclass(slots=True)
class Element:
    """A block-level element: its tag, parent element index, depth and class/id hint bits."""

    tag: str
    parent: int
    depth: int
    hints: int
    ancestor_hints: int  # the union of the hint bits of its ancestors and itself
    words: int = 0  # words of all the blocks inside it
    order: int = 0  # position of its first block
    inside: int = 0  # bits of ANCESTOR_GROUPS for the groups among its proper ancestors
    link_words: int = 0  # link words of all the blocks inside it


@dataclass(slots=True)
class Block:
    """One text block: collapsed text, word and link-word counts, and the element holding it."""

    text: str
    words: int
    link_words: int
    element: int
    index: int = 0
    start: int = 0  # word offset of the block in the page


@dataclass(slots=True)
class PageBlocks:
    """The text blocks of a page and the block elements that hold them (index 0 is ``<body>``)."""

    blocks: list[Block] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)
    total_words: int = 0
    cache: dict[str, Any] = field(default_factory=dict)  # derived columns (features.py)


def parse_blocks(markup: str | bytes | LexborHTMLParser, *, remove_hidden: bool = True) -> PageBlocks:
    """Segment a page into text blocks with their element context (see the module docstring).

    ``markup`` may be an already parsed tree, which this modifies (markers, removed elements).
    """
    tree = markup if isinstance(markup, LexborHTMLParser) else LexborHTMLParser(markup)
    body = tree.body
    page = PageBlocks()
    if body is None:
        return page
    tags: list[str] = ["body"]
    hints: list[int] = [0]  # <body> classes name every kind of page: no hint
    invisible = []
    hidden = []
    n = 1
    block_ids = _BLOCK_IDS
    semantic = _SEMANTIC
    cache = _hint_cache
    anchor, breaks, invisible_ids, noscript = _ANCHOR_ID, _BREAK_IDS, _INVISIBLE_IDS, _NOSCRIPT_ID
    opens, closes = _OPEN_MARKS, _CLOSE_MARKS
    # One walk over the elements: a tag-id test per element is far cheaper than one CSS or
    # strip_tags pass per tag name. Everything per element is inlined (this loop is the hot path).
    for node in body.traverse():
        tag_id = node.tag_id
        tag = block_ids.get(tag_id)
        if tag is not None:
            if tag_id == _BODY_ID:
                continue
            if n >= len(closes):
                _grow_marks(n)
            if n < len(closes):
                node.insert_before(opens[n])
                node.insert_after(closes[n])
            else:
                node.insert_before(f"\x00{n}[")
                node.insert_after(f"\x00{n}]")
            tags.append(tag)
            bits = semantic.get(tag, 0)
            attrs = node.attributes
            if attrs:
                names = attrs.get("class") or ""
                ident = attrs.get("id")
                if ident:
                    names = f"{names} {ident}"
                if "role" in attrs:
                    names = f"{names} {attrs['role']}"
                if names:
                    cached = cache.get(names)
                    bits |= hint_bits(names) if cached is None else cached
                maybe = "style" in attrs or "hidden" in attrs or "aria-hidden" in attrs
                if maybe and remove_hidden and _is_hidden(attrs):
                    hidden.append(node)
            hints.append(bits)
            n += 1
        elif tag_id in invisible_ids:
            invisible.append(node)
        else:
            if tag_id == anchor:
                node.insert_before(_LINK_OPEN)
                node.insert_after(_LINK_CLOSE)
            elif tag_id in breaks:
                node.insert_after("\n")
            elif tag_id == noscript:
                hidden.append(node)
                continue
            if remove_hidden:
                attrs = node.attributes
                maybe = bool(attrs) and ("style" in attrs or "hidden" in attrs or "aria-hidden" in attrs)
                if maybe and _is_hidden(attrs):
                    hidden.append(node)
    for node in invisible:
        node.remove()  # unlinked, not freed: a node inside an already removed one stays valid
    if hidden:
        # Hidden unless it holds most of the page (Discourse serves its posts in <noscript>).
        # Most hidden elements are empty (icons): they change nothing, and the page's length is
        # only read when one is not.
        total = -1
        for node in hidden:
            size = len(node.text(deep=True))
            if size:
                if total < 0:
                    total = len(body.text(deep=True))
                if 2 * size < total:
                    node.decompose()
    parts = _MARK.split(body.text(deep=True))
    elements = page.elements
    elements.append(Element("body", -1, 0, hints[0], hints[0]))
    blocks = page.blocks
    stack = [0]
    push, pop = stack.append, stack.pop
    offset = 0
    # Indexes in the marker are traversal order; elements are renumbered in marker order, which is
    # the same order unless lexbor moved nodes, so map them.
    index: dict[int, int] = {0: 0}
    groups = ANCESTOR_GROUPS
    n_tags = len(tags)
    top = 0
    link_text = _LINK_TEXT.findall
    # ``parts`` is text, (number, bracket, text)*: walked as triples, the leading text first.
    it = iter(parts)
    for num_s, kind, text_s in chain((("", "", next(it)),), zip(it, it, it, strict=True)):
        if kind == "[":
            num = int(num_s)
            at = index.get(num)
            if at is None:
                pe = elements[top]
                h = hints[num] if num < n_tags else 0
                at = index[num] = len(elements)
                g = groups.get(pe.tag)
                elements.append(
                    Element(
                        tags[num] if num < n_tags else "div",
                        top,
                        pe.depth + 1,
                        h,
                        pe.ancestor_hints | h,
                        0,
                        0,
                        pe.inside if g is None else pe.inside | (1 << g),
                    )
                )
            top = at
            push(top)
        elif kind and len(stack) > 1:
            pop()
            top = stack[-1]
        if not text_s or text_s.isspace():
            continue  # most segments: the whitespace between two tags
        text = text_s
        if "\x01" in text:
            link_words = sum([len(m.split()) for m in link_text(text)])
            text = text.replace(_LINK_OPEN, "").replace(_LINK_CLOSE, "")
        else:
            link_words = 0
            if "\x02" in text:
                text = text.replace(_LINK_CLOSE, "")
        toks = text.split()
        words = len(toks)
        if words:
            blocks.append(
                Block(
                    " ".join(toks),
                    words,
                    link_words if link_words < words else words,
                    top,
                    len(blocks),
                    offset,
                )
            )
            offset += words
    page.total_words = offset
    # Words per element, own blocks first, then children into parents: a child always comes after
    # its parent in ``elements``, so one backward pass adds every subtree up.
    for b in reversed(blocks):
        el = elements[b.element]
        el.words += b.words
        el.link_words += b.link_words
        el.order = b.index
    for i in range(len(elements) - 1, 0, -1):
        el = elements[i]
        if el.words:
            up = elements[el.parent]
            if not up.words or el.order < up.order:
                up.order = el.order
            up.words += el.words
            up.link_words += el.link_words
    return page
