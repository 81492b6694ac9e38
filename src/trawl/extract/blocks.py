"""A page as a sequence of text blocks with their DOM context, from one lexbor parse.

The atomic unit is Kohlschütter et al.'s (2010) *text block*: a run of text between two block-level
element boundaries. Each block knows its words, how many of them sit inside links, the element that
holds it and that element's ancestors (their tags and class/id hints), so that a classifier can
tell content from boilerplate by text density, link density, markup hints, position and its
neighbours.

Speed: Python never walks text nodes. One pass over the *elements* (integer tag ids) inserts a
numbered marker text node before and after every block element and around every link; the text
of the whole body is then read in one C call and split on the markers. Python work is proportional
to the number of block elements, not to the number of nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = [
    "HINT_NAMES",
    "Block",
    "Element",
    "PageBlocks",
    "parse_blocks",
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
_HIDDEN = (
    '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i], '
    '[style*="visibility:hidden" i], [style*="visibility: hidden" i], noscript'
)
_PROBE = LexborHTMLParser("")


def _tid(tag: str) -> int:
    return int(_PROBE.create_node(tag).tag_id)


_BLOCK_IDS = {_tid(t): t for t in _BLOCKS}
_INVISIBLE_IDS = frozenset(_tid(t) for t in _INVISIBLE)
_ANCHOR_ID = _tid("a")
_BR_ID = _tid("br")
_HR_ID = _tid("hr")
_BREAK_IDS = frozenset((_BR_ID, _HR_ID))
_HINT_ATTRS = frozenset(("class", "id", "role"))

#: Class/id hint families; an element's hint bit ``k`` is set when its class or id matches.
HINT_NAMES = ("nav", "footer", "side", "comment", "social", "meta", "ad", "content", "title", "hidden")
_HINT_PATTERNS = (
    r"nav|menu|breadcrumb|crumb|skip|pagination|pager|toolbar|masthead|topbar|header|dropdown|mega",
    r"foot|copyright|legal|bottom|disclaimer|colophon",
    r"side|aside|widget|related|recommend|popular|trending|more-|also|teaser|rail|sticky|promo",
    r"comment|reply|replies|discuss|respons|review|thread|post-?\d|message|answer|forum",
    r"share|social|sharing|follow|facebook|twitter|newsletter|subscribe|signup|sign-up|cookie|consent"
    r"|gdpr|login",
    r"byline|author|date|time|meta|tags?\b|categor|label|badge|caption|credit",
    r"\bads?\b|advert|sponsor|banner|dfp|gpt-|outbrain|taboola|adsense|ad-|-ad\b",
    r"article|content|entry|post|main|body|text|story|blog|prose|markdown|rich|detail|descr|product|doc",
    r"title|headline|heading|h1",
    r"hidden|modal|popup|overlay|drawer|offcanvas|visually-hidden|sr-only|screen-reader",
)
_HINTS = re.compile("|".join(f"(?P<h{k}>{p})" for k, p in enumerate(_HINT_PATTERNS)))
_HINT_BITS = {f"h{k}": 1 << k for k in range(len(_HINT_PATTERNS))}
_hint_cache: dict[str, int] = {}
_SEMANTIC = {  # tags that carry a hint by themselves
    "nav": 1 << 0,
    "header": 1 << 0,
    "menu": 1 << 0,
    "footer": 1 << 1,
    "aside": 1 << 2,
    "article": 1 << 7,
    "main": 1 << 7,
}
_MARK = re.compile("\x00(\\d+)([\\[\\]])")
_LINK_OPEN = "\x01"
_LINK_CLOSE = "\x02"
_LINK_TEXT = re.compile("\x01([^\x01\x02]*)\x02?")


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


def _hints(node: LexborNode, tag: str) -> int:
    bits = _SEMANTIC.get(tag, 0)
    attrs = node.attributes
    if not attrs:
        return bits
    names = " ".join([v for k, v in attrs.items() if v and k in _HINT_ATTRS])
    if names:
        cached = _hint_cache.get(names)
        if cached is None:
            cached = 0
            for m in _HINTS.finditer(names.lower()):
                cached |= _HINT_BITS[m.lastgroup or "h0"]
            if len(_hint_cache) > 50_000:
                _hint_cache.clear()
            _hint_cache[names] = cached
        bits |= cached
    return bits


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
    invisible: list[LexborNode] = []
    n = 1
    # One walk over the elements: a tag-id test per element is far cheaper than one CSS or
    # strip_tags pass per tag name.
    for node in body.traverse():
        tag_id = node.tag_id
        tag = _BLOCK_IDS.get(tag_id)
        if tag is not None:
            if tag == "body":
                continue
            node.insert_before(f"\x00{n}[")
            node.insert_after(f"\x00{n}]")
            tags.append(tag)
            hints.append(_hints(node, tag))
            n += 1
        elif tag_id == _ANCHOR_ID:
            node.insert_before(_LINK_OPEN)
            node.insert_after(_LINK_CLOSE)
        elif tag_id in _BREAK_IDS:
            node.insert_after("\n")
        elif tag_id in _INVISIBLE_IDS:
            invisible.append(node)
    for node in invisible:
        node.remove()  # unlinked, not freed: a node inside an already removed one stays valid
    if remove_hidden:
        total = len(body.text(deep=True))
        for node in tree.css(_HIDDEN):
            if node.tag_id in _BLOCK_IDS and _BLOCK_IDS[node.tag_id] == "body":
                continue
            if 2 * len(node.text(deep=True)) < total:
                node.decompose()
    parts = _MARK.split(body.text(deep=True))
    elements = page.elements
    elements.append(Element("body", -1, 0, hints[0], hints[0]))
    blocks = page.blocks
    stack = [0]
    seen = {0}
    offset = 0

    def add(text: str) -> None:
        nonlocal offset
        if not text or text.isspace():
            return  # most segments: the whitespace between two tags
        if "\x01" in text:
            link_words = sum(len(m.split()) for m in _LINK_TEXT.findall(text))
            text = text.replace(_LINK_OPEN, "").replace(_LINK_CLOSE, "")
        else:
            link_words = 0
            if "\x02" in text:
                text = text.replace(_LINK_CLOSE, "")
        toks = text.split()
        words = len(toks)
        if not words:
            return
        blocks.append(Block(" ".join(toks), words, min(link_words, words), stack[-1], len(blocks), offset))
        offset += words

    add(parts[0])
    # Indexes in the marker are traversal order; elements are renumbered in marker order, which is
    # the same order unless lexbor moved nodes, so map them.
    index: dict[int, int] = {0: 0}
    for k in range(1, len(parts), 3):
        num = int(parts[k])
        if parts[k + 1] == "[":
            if num not in seen:
                seen.add(num)
                parent = stack[-1]
                pe = elements[parent]
                h = hints[num] if num < len(hints) else 0
                index[num] = len(elements)
                elements.append(
                    Element(
                        tags[num] if num < len(tags) else "div",
                        parent,
                        pe.depth + 1,
                        h,
                        pe.ancestor_hints | h,
                    )
                )
            stack.append(index.get(num, 0))
        elif len(stack) > 1:
            stack.pop()
        add(parts[k + 2])
    page.total_words = offset
    # Words per element, own blocks first, then children into parents: a child always comes after
    # its parent in ``elements``, so one backward pass adds every subtree up.
    for b in reversed(blocks):
        el = elements[b.element]
        el.words += b.words
        el.order = b.index
    for i in range(len(elements) - 1, 0, -1):
        el = elements[i]
        if el.words:
            up = elements[el.parent]
            if not up.words or el.order < up.order:
                up.order = el.order
            up.words += el.words
    return page
