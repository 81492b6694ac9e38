"""One read of an HTML page: one tree, and from it everything the stages need.

:func:`read_page` parses the decoded page once (:func:`~trawl.html.blocks.parse_page`: scripts,
styles and SVG cut, hostile nesting flattened; trawl's compiled tree builder, lexbor where it
gives up) and reads from that one tree, in one pass each:

* ``about``: title, author and publication date with where each was found
  (:func:`~trawl.html.metadata.read_metadata`); ``title`` is that title;
* ``metadata``: what the head declares: ``description`` (``og:description`` as fallback),
  ``keywords``, ``author``, ``generator``, ``published`` / ``created`` / ``modified``
  (``article:published_time``, ``dcterms.*``, ``date``... as declared), ``robots`` with
  ``noindex`` / ``nofollow`` flags, ``canonical``, ``lang`` (from ``<html lang>``) and
  ``headings`` (h1-h3 levels and text, at most :data:`MAX_HEADINGS`);
* ``links``: ``<a href>`` and ``<area href>`` resolved against ``<base href>`` and the page URL
  (:func:`resolve_link`), fragments dropped, ``http``/``https`` only, with collapsed anchor text
  (an image's ``alt`` when the anchor has no text) and ``rel``. Links inside hidden elements are
  kept: a menu hidden until hovered is still a link a crawler should follow;
* ``blocks``: the page's text blocks with their DOM context (:func:`~trawl.html.blocks.parse_blocks`),
  which the main-content extractor classifies; ``text``, the visible text, is the blocks one per
  line, in reading order (block elements, ``<br>`` and ``<li>`` start lines; hidden inline
  elements and ``<noscript>`` are left out unless they hold most of the page's text, as
  script-driven pages hide their content until a script reveals it; hidden *block* elements —
  tab panels, accordions — are kept, and the extractor judges them).

Pathological pages are bounded: markup longer than ``max_chars`` is cut before parsing
(``cutoff = "size"``), at most ``max_links`` links are kept (``html/links/capped``), and the
title is cut at :data:`MAX_TITLE_CHARS` (an unclosed ``<title>`` swallows the whole page).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

from trawl.document import Link
from trawl.html.blocks import BLOCK_TAGS, PageBlocks, PageTree, compiled_walk, parse_blocks, parse_page
from trawl.html.metadata import PageMetadata, author_in_text, date_in_text, read_metadata

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_LINKS",
    "MAX_HEADINGS",
    "MAX_TITLE_CHARS",
    "HtmlPage",
    "read_page",
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

# Page dates as sites declare them (Open Graph articles, Dublin Core, plain names), first found wins.
_META_DATES = {
    "article:published_time": "published", "datepublished": "published", "date": "published",
    "dc.date": "published", "dc.date.issued": "published", "dcterms.issued": "published",
    "dcterms.created": "created", "dc.date.created": "created",
    "article:modified_time": "modified", "og:updated_time": "modified", "datemodified": "modified",
    "dcterms.modified": "modified", "last-modified": "modified",
}  # fmt: skip
_HEADING_TAGS = {BLOCK_TAGS.index(f"h{k}"): k for k in (1, 2, 3)}

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_STRIP = "".join(map(chr, range(0x21)))  # C0 controls and space, stripped from URLs as browsers do
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
_URL_SAFE = "!#$%&'()*+,-./:;=?@[]_~"


def _collapse(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class HtmlPage:
    """What :func:`read_page` read from one page, and the counters it wants incremented.

    ``markup`` is the decoded markup that was parsed (after the size cut); the extractor's BTE and
    slope methods read it. ``parser`` says which parser built the tree (``lite``, or
    ``lexbor:<why the lite builder gave up>``); ``cutoff`` why the page was cut or flattened
    first (``size``, ``depth``, ``attributes``), or None.
    """

    url: str
    markup: str = ""
    title: str = ""
    text: str = ""
    links: list[Link] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    about: PageMetadata = field(default_factory=PageMetadata)
    blocks: PageBlocks = field(default_factory=PageBlocks)
    counts: dict[str, int] = field(default_factory=dict)
    parser: str = ""
    cutoff: str | None = None
    seconds: float = 0.0

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


# --------------------------------------------------------------------------- links


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


def _anchors(tree: PageTree) -> list[tuple[str, str | None, str, str | None, bool]]:
    """``(href, rel, text, alt, is_area)`` of every ``<a href>`` and ``<area href>``, in document
    order: one C pass over either kind of tree, or selectolax's selectors without the module."""
    root = tree.root
    if root is None:
        return []
    walk = compiled_walk()
    if walk is not None:
        found: list[tuple[str, str | None, str, str | None, bool]] = walk.anchors(root.mem_id)
        return found
    assert isinstance(tree, LexborHTMLParser)
    out: list[tuple[str, str | None, str, str | None, bool]] = []
    for node in tree.css("a[href], area[href]"):
        attrs = node.attributes
        href = attrs.get("href")
        if href is None:
            continue
        if node.tag == "area":
            out.append((href, attrs.get("rel"), "", attrs.get("alt"), True))
            continue
        img = node.css_first("img[alt]")
        out.append(
            (href, attrs.get("rel"), node.text(deep=True), img.attributes.get("alt") if img else None, False)
        )
    return out


def _read_links(tree: PageTree, base: str, page: HtmlPage, max_links: int) -> None:
    links = page.links
    for href, rel, text, alt, is_area in _anchors(tree):
        url, why = resolve_link(href, base)
        if url is None:
            page.count(f"html/links/skipped-{why}")
            continue
        if len(links) >= max_links:
            page.count("html/links/capped")
            break
        anchor = _collapse(alt or "") if is_area else (_collapse(text) or _collapse(alt or ""))
        links.append(Link(url, anchor, (rel or "").strip()))


# --------------------------------------------------------------------------- the head


def _robots(content: str, metadata: dict[str, Any]) -> None:
    metadata["robots"] = content
    directives = {d.strip() for d in content.lower().split(",")}
    if directives & {"noindex", "none"}:
        metadata["noindex"] = True
    if directives & {"nofollow", "none"}:
        metadata["nofollow"] = True


def _root_lang(tree: PageTree) -> str:
    root = tree.root
    if root is None:
        return ""
    walk = compiled_walk()
    if walk is not None:
        lang = walk.node_attr(root.mem_id, b"lang")
    else:
        assert isinstance(tree, LexborHTMLParser) and tree.root is not None
        attrs = tree.root.attributes
        lang = attrs.get("lang") or attrs.get("xml:lang")
    return (lang or "").strip()


def _read_head(tree: PageTree, url: str, about: PageMetadata, page: HtmlPage) -> str:
    """The head's declarations into ``page.metadata``; returns the base URL for links."""
    base = url
    if about.base is not None:
        base = _join(url, about.base.strip(_STRIP)) or url
    meta = {key: _collapse(value) for key, value in about.meta.items()}
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
    if about.canonical:
        resolved, _ = resolve_link(about.canonical, base)
        if resolved:
            data["canonical"] = resolved
    lang = _root_lang(tree)
    if lang:
        data["lang"] = lang
    return base


def _headings(blocks: PageBlocks) -> list[dict[str, Any]]:
    """h1-h3 in document order, from the blocks their elements hold (one heading's blocks
    joined)."""
    out: list[dict[str, Any]] = []
    if not len(blocks):
        return out
    tags = blocks.tag_index.tolist()
    last = -1
    for text, element in zip(blocks.texts, blocks.element.tolist(), strict=True):
        level = _HEADING_TAGS.get(tags[element])
        if level is None:
            continue
        if element == last:
            out[-1]["text"] = f"{out[-1]['text']} {text}"[:MAX_TITLE_CHARS]
            continue
        if len(out) >= MAX_HEADINGS:
            break
        out.append({"level": level, "text": text[:MAX_TITLE_CHARS]})
        last = element
    return out


# --------------------------------------------------------------------------- the read


def read_page(
    markup: str,
    url: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_links: int = DEFAULT_MAX_LINKS,
    metadata: bool = True,
    links: bool = True,
) -> HtmlPage:
    """Title, metadata, links and text blocks of one decoded page, from one parse (see the module
    docstring). ``url`` is the page's own URL, against which relative links are resolved.
    ``metadata=False`` and ``links=False`` skip those reads (the extraction benchmark's
    ``--no-meta``)."""
    t0 = time.perf_counter()
    page = HtmlPage(url)
    if len(markup) > max_chars:
        markup = markup[:max_chars]
        page.cutoff = "size"
    page.markup = markup
    tree, flattened, page.parser = parse_page(markup)
    if flattened:
        page.cutoff = page.cutoff or flattened
        page.count(f"html/flattened/{flattened}")
    # The metadata and the links are read before the blocks: without the compiled module the
    # Python walk marks up the tree as it goes.
    if metadata:
        about = read_metadata(tree, url, text_date=False)
        page.about = about
        base = _read_head(tree, url, about, page)
    else:
        base = url
    if links:
        _read_links(tree, base, page, max_links)
    blocks = parse_blocks(tree)
    page.blocks = blocks
    page.text = "\n".join(blocks.texts)
    headings = _headings(blocks)
    if headings:
        page.metadata["headings"] = headings
    if metadata:
        about = page.about
        if (about.sources or {}).get("date", "meta:modified") == "meta:modified":
            # The written-date fallback ranks above the modified time (see read_metadata).
            written = date_in_text(page.text)
            if written:
                about.date = written
                about.sources = {**(about.sources or {}), "date": "text"}
        if not about.author:  # no markup names an author: a "By …" line in the opening text
            byline = author_in_text(blocks.texts)
            if byline:
                about.author = byline
                about.sources = {**(about.sources or {}), "author": "text:byline"}
        page.title = (
            about.title or about.page_title or next((str(h["text"]) for h in headings if h["level"] == 1), "")
        )
    if len(page.title) > MAX_TITLE_CHARS:
        page.title = page.title[:MAX_TITLE_CHARS]
        page.count("html/title-capped")
    page.seconds = time.perf_counter() - t0
    return page
