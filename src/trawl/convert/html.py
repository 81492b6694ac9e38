"""HTML to title, visible text, links and page metadata, from one lexbor parse.

:func:`extract_html` parses the decoded page once and reads everything from that tree:

* ``title``: the whitespace-collapsed ``<title>`` (an ``<svg><title>`` does not count), else the
  first ``<h1>``;
* ``text``: the visible text in reading order, one line per block. Nothing comes from ``script``,
  ``style``, ``template``, ``svg``, embedded objects and media; nor from ``noscript`` or elements
  hidden with ``hidden`` or an inline ``display:none`` / ``visibility:hidden``, *unless* one of
  those holds more than half of the page's text: script-driven pages hide their content until a
  script reveals it, or serve it only in ``<noscript>``, and without scripts that is the page
  (``html/hidden-kept``). ``<html>`` and ``<body>`` are never removed. Entities are decoded once,
  by the parser. Whitespace is collapsed within a block; lines of ``<pre>`` stay lines;
* ``links``: ``<a href>`` and ``<area href>`` resolved against ``<base href>`` and the page URL,
  fragments dropped, ``http``/``https`` only, with collapsed anchor text (an image's ``alt`` when
  the anchor has no text) and ``rel``. Links inside hidden elements are kept: a menu hidden until
  hovered is still a link a crawler should follow;
* ``metadata``: ``description`` (``og:description`` as fallback), ``keywords``, ``author``,
  ``generator``, ``published`` / ``created`` / ``modified`` (``article:published_time``,
  ``dcterms.*``, ``date``... as declared; :class:`HtmlConverter` checks them with
  :func:`~trawl.convert.meta.check_metadata`), ``robots`` with ``noindex`` / ``nofollow`` flags,
  ``canonical``, ``lang`` (from ``<html lang>``) and ``headings`` (h1-h3 levels and text, at
  most :data:`MAX_HEADINGS`).

Block boundaries are found by lexbor, not by Python walking the tree: a marker text node is
inserted before and after every block element, the text of the whole body is read in one C call,
and split on the markers. The page is parsed as a browser without JavaScript parses it, so that
``<noscript>`` content is markup, not a string; metadata is looked up in the whole document
because such a parse may move head elements that follow a ``<noscript>`` into the body.

Pathological pages are bounded: input longer than ``max_chars`` is cut before parsing
(``html/capped``), at most ``max_links`` links are kept (``html/links/capped``), and the title is
cut at :data:`MAX_TITLE_CHARS` (an unclosed ``<title>`` swallows the whole page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from trawl.convert.meta import check_metadata
from trawl.decode.charset import decode_document
from trawl.document import Document, Link
from trawl.errors import ConfigError
from trawl.html.nesting import flatten_utf8
from trawl.pipeline.base import Step
from trawl.sniff.magic import effective_type, is_html

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_LINKS",
    "MAX_HEADINGS",
    "MAX_TITLE_CHARS",
    "HtmlConverter",
    "HtmlPage",
    "extract_html",
    "resolve_link",
]

#: Decoded pages longer than this many characters are cut before parsing (``html.max_chars``).
DEFAULT_MAX_CHARS = 5_000_000
#: At most this many links are kept per page.
DEFAULT_MAX_LINKS = 10_000
#: At most this many h1-h3 headings are kept in ``metadata["headings"]``.
MAX_HEADINGS = 100
#: Titles are cut at this many characters.
MAX_TITLE_CHARS = 1000

# Removed before anything is read: never visible, or fallback content shown only when the real
# thing cannot be (media, plugins, frames).
_INVISIBLE = (
    "script", "style", "template", "svg", "iframe", "object", "embed", "canvas", "video", "audio",
    "datalist",
)  # fmt: skip
_HIDDEN = (
    '[hidden], [style*="display:none" i], [style*="display: none" i], '
    '[style*="visibility:hidden" i], [style*="visibility: hidden" i]'
)
# Elements that start a new line in reading order (CSS display: block, list-item, table parts),
# plus form controls, whose labels would otherwise run into the text around them.
_BLOCKS = (
    "address", "article", "aside", "blockquote", "br", "button", "caption", "center", "dd",
    "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "legend", "li", "main",
    "menu", "nav", "ol", "optgroup", "option", "p", "section", "select", "summary", "table",
    "td", "textarea", "th", "tr", "ul",
)  # fmt: skip
# Tag ids are lexbor's static table; reading them off created nodes keeps this in step with it.
_PROBE = LexborHTMLParser("")
_BLOCK_IDS = frozenset(_PROBE.create_node(tag).tag_id for tag in _BLOCKS)
_INVISIBLE_IDS = frozenset(_PROBE.create_node(tag).tag_id for tag in _INVISIBLE)
_PRE_ID = _PROBE.create_node("pre").tag_id
_AREA_ID = _PROBE.create_node("area").tag_id
_NOSCRIPT_ID = _PROBE.create_node("noscript").tag_id
_TITLE_ID = _PROBE.create_node("title").tag_id
_ROOT_IDS = frozenset((_PROBE.create_node("html").tag_id, _PROBE.create_node("body").tag_id))
_ANCHOR_IDS = frozenset((_PROBE.create_node("a").tag_id, _AREA_ID))
_BREAK = "\x1e"  # the block-boundary marker (ASCII record separator): never in visible text
_HEADINGS = "h1, h2, h3"
_HEAD_ITEMS = 'meta[content], base[href], link[rel~="canonical" i][href]'
# Page dates as sites declare them (Open Graph articles, Dublin Core, plain names), first found wins.
_META_DATES = {
    "article:published_time": "published", "datepublished": "published", "date": "published",
    "dc.date": "published", "dc.date.issued": "published", "dcterms.issued": "published",
    "dcterms.created": "created", "dc.date.created": "created",
    "article:modified_time": "modified", "og:updated_time": "modified", "datemodified": "modified",
    "dcterms.modified": "modified", "last-modified": "modified",
}  # fmt: skip
_META_NAMES = frozenset(
    {"description", "og:description", "keywords", "author", "generator", "robots", *_META_DATES}
)

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_STRIP = "".join(map(chr, range(0x21)))  # C0 controls and space, stripped from URLs as browsers do
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"


def _collapse(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class HtmlPage:
    """What :func:`extract_html` read from one page, and the counters it wants incremented."""

    title: str = ""
    text: str = ""
    links: list[Link] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    flattened: str | None = None  # "depth" / "attributes" when hostile nesting was flattened

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


def resolve_link(href: str, base: str) -> tuple[str | None, str]:
    """Resolve ``href`` against ``base`` as a browser would, for ``http``/``https`` targets only.

    Returns ``(url, "")`` with the fragment dropped, or ``(None, reason)`` where reason is
    ``fragment`` (a link within the page), ``scheme`` (``mailto:``, ``javascript:``...; also any
    relative link on a non-HTTP page) or ``invalid``. The fast path, an absolute ``http(s)`` URL,
    avoids ``urljoin`` entirely.
    """
    href = href.strip(_STRIP)
    if "\t" in href or "\n" in href or "\r" in href:
        href = href.translate(_TAB_NEWLINE)
    if not href or href[0] == "#":
        return None, "fragment"
    if href[0] == "/" and not href.startswith("//") and "/." not in href and "\\" not in href:
        # A root-relative path (a third of all links): the base's origin plus the path.
        origin = _origin(base)
        url = origin + href if origin else _join(base, href)
    elif (m := _SCHEME.match(href)) is not None:
        scheme = m.group()[:-1].lower()
        if scheme not in ("http", "https"):
            return None, "scheme"
        # "HTTP://host/" needs no join, only its scheme lower-cased; "http:path" is relative.
        url = scheme + href[m.end() - 1 :] if href.startswith("//", m.end()) else _join(base, href)
    else:
        url = _join(base, href.replace("\\", "/"))
    if url is None:
        return None, "invalid"
    hash_at = url.find("#")
    if hash_at >= 0:
        url = url[:hash_at]
    if not url.startswith(("http://", "https://")):
        return None, "scheme"
    if "[" in url:  # an IPv6 host: the one case where a bracket typo makes the URL unusable
        try:
            urlsplit(url)
        except ValueError:
            return None, "invalid"
    if not _is_safe(url):
        return _percent_encode(url)
    return url, ""


def _is_safe(url: str) -> bool:
    """No character the URL standard percent-encodes in a path or query: controls, non-ASCII,
    space, ``"<>`` and backtick (str methods: several times faster than a regex)."""
    return (
        url.isascii()
        and url.isprintable()
        and " " not in url
        and '"' not in url
        and "<" not in url
        and ">" not in url
        and "`" not in url
    )


@lru_cache(maxsize=64)
def _origin(base: str) -> str:
    """``scheme://host[:port]`` of an http(s) base URL, or ``""``."""
    try:
        parts = urlsplit(base)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme.lower()}://{parts.netloc}"


def _join(base: str, href: str) -> str | None:
    try:
        return urljoin(base, href)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return None


def _percent_encode(url: str) -> tuple[str | None, str]:
    """Encode what may not appear raw in a URL: spaces, quotes, non-ASCII (host as IDNA)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = parts.netloc
        if not host.isascii():
            netloc = netloc.lower().replace(host, host.encode("idna").decode("ascii"))
    except (ValueError, UnicodeError):
        return None, "invalid"
    if not netloc or not _is_safe(netloc):
        return None, "invalid"
    path = quote(parts.path, safe=_URL_SAFE)
    query = quote(parts.query, safe=_URL_SAFE)
    return urlunsplit((parts.scheme, netloc, path, query, "")), ""


def _robots(content: str, metadata: dict[str, Any]) -> None:
    metadata["robots"] = content
    directives = {d.strip() for d in content.lower().split(",")}
    if directives & {"noindex", "none"}:
        metadata["noindex"] = True
    if directives & {"nofollow", "none"}:
        metadata["nofollow"] = True


def _read_head(tree: LexborHTMLParser, url: str, page: HtmlPage) -> str:
    """Title, meta names, canonical link and language; returns the base URL for links."""
    node = tree.css_first("title")
    if node is not None:
        page.title = _collapse(node.text())
    base: str | None = None
    canonical = ""
    meta: dict[str, str] = {}
    for item in tree.css(_HEAD_ITEMS):
        tag = item.tag
        attrs = item.attributes
        if tag == "meta":
            key = (attrs.get("name") or attrs.get("property") or "").strip().lower()
            if key in _META_NAMES and key not in meta:
                meta[key] = _collapse(attrs.get("content") or "")
        elif tag == "base":
            if base is None:  # only the first <base href> counts
                base = _join(url, (attrs.get("href") or "").strip(_STRIP)) or url
        elif not canonical:
            canonical = (attrs.get("href") or "").strip(_STRIP)
    base = base or url
    data = page.metadata
    description = meta.get("description") or meta.get("og:description")
    if description:
        data["description"] = description
    for key in ("keywords", "author", "generator"):
        if meta.get(key):
            data[key] = meta[key]
    for name, key in _META_DATES.items():
        if meta.get(name) and key not in data:
            data[key] = meta[name]
    if meta.get("robots"):
        _robots(meta["robots"], data)
    if canonical:
        resolved, _ = resolve_link(canonical, base)
        if resolved:
            data["canonical"] = resolved
    root = tree.root
    if root is not None:
        lang = root.attributes.get("lang") or root.attributes.get("xml:lang")
        if lang and lang.strip():
            data["lang"] = lang.strip()
    return base


@dataclass(slots=True)
class _Elements:
    """The elements of ``<body>`` the later passes need, gathered in one walk."""

    invisible: list[LexborNode] = field(default_factory=list)
    blocks: list[LexborNode] = field(default_factory=list)
    pres: list[LexborNode] = field(default_factory=list)
    anchors: list[LexborNode] = field(default_factory=list)
    noscripts: list[LexborNode] = field(default_factory=list)
    titles: list[LexborNode] = field(default_factory=list)  # a <title> that ended up in <body>


def _scan(body: LexborNode) -> _Elements:
    # One pass comparing lexbor's integer tag ids: several times cheaper than a CSS selector list
    # of ~50 tag names, which lexbor tries one by one on every element, or than one lookup by
    # name per invisible tag. Removing nodes later (invisible and hidden ones, <pre> replaced by
    # text) only unlinks them, so what is gathered stays valid. Links inside invisible elements
    # (an <svg> or <video> fallback) are gathered too: they are links all the same.
    found = _Elements()
    blocks = found.blocks
    for node in body.traverse():
        tag_id = node.tag_id
        if tag_id in _BLOCK_IDS:
            blocks.append(node)
        elif tag_id in _ANCHOR_IDS:
            found.anchors.append(node)
        elif tag_id in _INVISIBLE_IDS:
            found.invisible.append(node)
        elif tag_id == _PRE_ID:
            found.pres.append(node)
        elif tag_id == _NOSCRIPT_ID:
            found.noscripts.append(node)
        elif tag_id == _TITLE_ID:
            found.titles.append(node)
    return found


def _read_links(anchors: list[LexborNode], base: str, page: HtmlPage, max_links: int) -> None:
    links = page.links
    for node in anchors:
        attrs = node.attributes
        href = attrs.get("href")
        if href is None:
            continue  # a named anchor or a placeholder, not a link
        url, why = resolve_link(href, base)
        if url is None:
            page.count(f"html/links/skipped-{why}")
            continue
        if len(links) >= max_links:
            page.count("html/links/capped")
            break
        if node.tag_id == _AREA_ID:
            text = _collapse(attrs.get("alt") or "")
        else:
            text = _collapse(node.text())
            if not text:
                img = node.css_first("img[alt]")
                if img is not None:
                    text = _collapse(img.attributes.get("alt") or "")
        links.append(Link(url, text, (attrs.get("rel") or "").strip()))


def _remove_hidden(tree: LexborHTMLParser, body: LexborNode, elements: _Elements, page: HtmlPage) -> None:
    """Remove hidden elements and ``<noscript>``, unless one holds most of the page's text.

    Script-driven pages hide their content until a script reveals it (React streams it into a
    ``<div hidden>``, others wrap the page in ``visibility:hidden``), and some serve it only to
    clients without JavaScript (Discourse forums put every post in ``<noscript>``). Without
    scripts, that is the page; removing it would leave nothing.
    """
    hidden = [node for node in tree.css(_HIDDEN) if node.tag_id not in _ROOT_IDS]
    candidates = hidden + elements.noscripts
    if not candidates:
        return
    total = len(body.text())
    for node in candidates:
        if 2 * len(node.text()) > total:
            page.count("html/hidden-kept")
        else:
            node.decompose()


def _read_headings(tree: LexborHTMLParser, page: HtmlPage) -> None:
    headings: list[dict[str, Any]] = []
    for node in tree.css(_HEADINGS):
        text = _collapse(node.text())
        if text:
            level = int((node.tag or "h0")[1])
            headings.append({"level": level, "text": text[:MAX_TITLE_CHARS]})
            if len(headings) >= MAX_HEADINGS:
                break
    if headings:
        page.metadata["headings"] = headings
        if not page.title:
            page.title = next((str(h["text"]) for h in headings if h["level"] == 1), "")


def _visible_text(body: LexborNode, elements: _Elements) -> str:
    for pre in elements.pres:
        # Keep a preformatted block's lines as lines; the markers make each one a block.
        pre.replace_with(_BREAK + pre.text().replace("\n", _BREAK) + _BREAK)
    for node in elements.blocks:
        node.insert_before(_BREAK)
        node.insert_after(_BREAK)
    segments = body.text().split(_BREAK)
    return "\n".join([" ".join(seg.split()) for seg in segments if seg and not seg.isspace()])


def extract_html(
    markup: str,
    url: str,
    *,
    max_links: int = DEFAULT_MAX_LINKS,
) -> HtmlPage:
    """Title, visible text, links and metadata of one decoded page (see the module docstring).

    ``url`` is the page's own URL, against which relative links are resolved.
    """
    page = HtmlPage()
    data, page.flattened = flatten_utf8(markup.encode("utf-8", "replace"))
    if page.flattened:
        page.count(f"html/flattened/{page.flattened}")
    tree = LexborHTMLParser(data)
    body = tree.body
    elements = _scan(body) if body is not None else _Elements()
    for node in elements.invisible:
        node.decompose()
    base = _read_head(tree, url, page)
    _read_links(elements.anchors, base, page, max_links)
    if body is not None:
        _remove_hidden(tree, body, elements, page)
        for title in elements.titles:
            title.decompose()
    _read_headings(tree, page)
    if body is not None:
        page.text = _visible_text(body, elements)
    if len(page.title) > MAX_TITLE_CHARS:
        page.title = page.title[:MAX_TITLE_CHARS]
        page.count("html/title-capped")
    return page


class HtmlConverter(Step):
    """Converts documents whose effective type is HTML or XHTML (see :func:`extract_html`).

    Sets ``title``, ``text``, ``links`` and ``metadata``; counts ``convert/html``,
    ``html/untitled``, ``html/capped`` and the link counters. Other documents pass untouched.
    """

    name: ClassVar[str] = "html"

    def __init__(self, *, max_chars: int = DEFAULT_MAX_CHARS, max_links: int = DEFAULT_MAX_LINKS) -> None:
        if max_chars <= 0 or max_links < 0:
            raise ConfigError(
                f"html: max_chars must be positive and max_links not negative, not {max_chars}, {max_links}"
            )
        self.max_chars = max_chars
        self.max_links = max_links

    def process(self, doc: Document) -> Document:
        if not is_html(effective_type(doc)):
            return doc
        markup = decode_document(doc, self)
        if len(markup) > self.max_chars:
            doc.error(self.name, f"page of {len(markup)} characters cut at html.max_chars = {self.max_chars}")
            self.count("html/capped")
            markup = markup[: self.max_chars]
        page = extract_html(markup, doc.url, max_links=self.max_links)
        if page.flattened:
            doc.error(self.name, f"markup flattened before parsing ({page.flattened}; see convert.nesting)")
        doc.title = page.title
        doc.text = page.text
        doc.links = page.links
        for flag in check_metadata(page.metadata):
            self.count(f"convert/metadata/{flag}")
        doc.metadata.update(page.metadata)
        for key, n in page.counts.items():
            self.count(key, n)
        self.count("convert/html")
        if not page.title:
            self.count("html/untitled")
        return doc
