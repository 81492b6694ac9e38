"""Title, author and publication date of a page, from the evidence a page gives about itself.

Evidence is taken in order of how deliberate it is: JSON-LD (``headline``, ``author``,
``datePublished``), then Open Graph / article meta tags, then plain ``<meta>`` names, then markup
in the body (``itemprop``, ``<time datetime>``, ``rel=author``, byline classes, "By …" lines),
then the URL (``/2024/05/17/``: the address fetched, else the page's own ``og:url``), then dates
in the opening of the text: written out ("March 5, 2024"), ISO ("2024-03-05"), or numeric after a
word that says what they are ("Updated: 10/31/2024", "Published 23.07.2025"), and last the
modified time. The title prefers the page's ``<h1>`` when the ``<title>`` or
``og:title`` contains it (the site name is then not part of it), else ``og:title``, else the
``<title>`` with a trailing " | Site" cut off. Dates are returned as ``YYYY-MM-DD``.
"""

from __future__ import annotations

import html
import json
import re
from calendar import monthrange
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from trawl.html.blocks import PageTree, compiled_walk, parse_page

__all__ = ["PageMetadata", "author_in_text", "date_in_text", "extract_metadata", "read_metadata"]


@dataclass(slots=True)
class PageMetadata:
    """What a page says about itself; empty strings where it says nothing.

    Besides the title, author and date that the rules below decide, the scan hands over what the
    page's head declares, for :func:`~trawl.html.page.read_page`: ``meta`` (every ``<meta>`` with
    a ``content``, by its ``property``, ``name`` or ``itemprop`` lower-cased, the first of a name
    winning, values as written), the first ``<base href>``, the first ``<link rel="canonical">``
    and the ``<title>``'s text (collapsed); and ``ld``, the page's JSON-LD objects as parsed (each
    ``@graph`` and ``mainEntity`` flattened in, at most 200), for readers such as the FAQ units
    (:mod:`trawl.units.faq`) that should not parse the page again.
    """

    title: str = ""
    author: str = ""
    date: str = ""
    sources: dict[str, str] | None = None  # field -> where it was found
    meta: dict[str, str] = field(default_factory=dict)
    base: str | None = None
    canonical: str | None = None
    page_title: str = ""
    ld: list[dict[str, Any]] = field(default_factory=list)


_SPACE = re.compile(r"\s+")
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_SLASHED = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})")
_URL_DATE = re.compile(r"/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?:/|[^\d])")
_MONTH_NAMES = (
    "jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
    "aug august", "sep sept september", "oct october", "nov november", "dec december",
)  # fmt: skip
_MONTHS = {m: i + 1 for i, names in enumerate(_MONTH_NAMES) for m in names.split()}
_TEXT_DATE = re.compile(
    r"\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})"
    r"|([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}))\b"
)
_TEXT_DATE_SPAN = 20_000
# date_in_text looks for years first (a fast scan for "19", "20", "21") and then for a day and a
# month name just before each: ~8x faster than searching the whole opening with _TEXT_DATE.
_MONTH = "(?i:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"  # the names normalize_date reads
_YEAR = re.compile(r"(?:19|20|21)\d\d(?!\d)")
_BEFORE_YEAR = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+)\Z"
)
#: An ISO date in running text ("2025-11-01 15:14"), matched at a year.
_ISO_AT = re.compile(r"((?:19|20|21)\d\d)-(\d\d)-(\d\d)(?![\d-])")
#: A numeric date after a word that says what it is ("Updated: 10/31/2024", "Published 23.07.2025"),
#: up to its year: a bare "10/11/2024" is too ambiguous to read without one.
_CUED_BEFORE_YEAR = re.compile(
    r"\b(?i:published|posted|updated|last updated|date|created|written)\b:?\s*(?i:on\s+)?"
    r"(\d{1,2})([./-])(\d{1,2})\2\Z"
)
_BY = re.compile(r"^\s*(?:by|written by|posted by|authored by|author)(?::\s*|\s+)([^|•·,\n]{3,60})", re.I)
#: Dates inside an author element's text, to cut out (written out, ISO, slashed; with a time or
#: a weekday next to them).
_DATES_IN = re.compile(
    r"(?i:\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?:\b\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}|\b[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\b\d{4}-\d{1,2}-\d{1,2}|\b\d{1,2}[./]\d{1,2}[./]\d{2,4})"
    r"(?:,?\s+(?:at\s+)?\d{1,2}:\d\d(?::\d\d)?\s*(?i:am|pm)?)?"
    r"|\b\d{1,3}\s*(?i:min(?:ute)?s?)(?:\s+(?i:read))?\b"  # "7 min read" beside the date
    r"|@?\b\d{1,2}:\d\d(?::\d\d)?\s*(?i:am|pm)?"  # a time
)
#: What a byline puts between the name and the date it held ("BeauHD on", "Reyan PerumalPublished on").
_TRAILING_LINK = re.compile(r"(?:\s+(?i:on|at|from)|(?i:updated|published|posted)(?:\s+(?i:on))?)\s*\Z")
_NAME_SEPARATORS = " \t|•·,;:-\u2013\u2014/"
_SEPARATORS = re.compile(r"\s+(?:[|\u2013\u2014•·»:]|-|::)\s+")  # bars, dashes, bullets, colons
_DATE_META = (
    "article:published_time", "og:published_time", "datepublished", "date", "pubdate", "publishdate",
    "publish-date", "publish_date", "dc.date", "dc.date.issued", "dcterms.created", "dcterms.date",
    "sailthru.date", "parsely-pub-date", "citation_publication_date", "citation_date",
    "article.published", "published_time", "release_date", "created", "published", "date_published",
    "publication_date", "publication-date", "pub_date", "article:published",
)  # fmt: skip
#: (Not ``twitter:creator``: it holds the account's handle — "MozDevNet", "djangoproject" — which
#: named no article's author on 19 WCXB pages.)
_AUTHOR_META = (
    "author", "article:author", "parsely-author", "sailthru.author", "dc.creator", "citation_author",
    "byl",
)  # fmt: skip


def _clean(text: str | None) -> str:
    return _SPACE.sub(" ", text or "").strip()


def _valid(y: int, m: int, d: int) -> bool:
    return 1990 <= y <= 2100 and 1 <= m <= 12 and 1 <= d <= monthrange(y, m)[1]


def _ymd(y: int, m: int, d: int) -> str:
    """``YYYY-MM-DD``, or ``""`` when it is not a date (see :func:`_valid`)."""
    return f"{y:04d}-{m:02d}-{d:02d}" if _valid(y, m, d) else ""


def normalize_date(value: str | None) -> str:
    """``YYYY-MM-DD`` from an ISO, slashed or written-out date, or ``""``."""
    if not value:
        return ""
    for rx in (_ISO, _SLASHED):
        m = rx.search(value)
        date = _ymd(*(int(g) for g in m.groups())) if m else ""
        if date:
            return date
    m = _TEXT_DATE.search(value)
    if m:
        if m.group(1):
            d, mon, y = int(m.group(1)), m.group(2), int(m.group(3))
        else:
            mon, d, y = m.group(4), int(m.group(5)), int(m.group(6))
        month = _MONTHS.get(mon.lower())
        if month:
            return _ymd(y, month, d)
    return ""


def _ld_items(texts: list[str]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for text in texts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        stack = [data]
        while stack and len(items) < 200:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(reversed(x))
            elif isinstance(x, dict):
                items.append(x)
                if "@graph" in x:
                    stack.append(x["@graph"])
                main = x.get("mainEntity")
                if isinstance(main, (dict, list)):
                    stack.append(main)
    return items


def _name(value: Any) -> str:
    if isinstance(value, str):
        # JSON-LD is JSON, but many sites write HTML-escaped text in it ("Maria &amp; Katerina").
        return "" if value.startswith("http") else _clean(html.unescape(value))
    if isinstance(value, dict):
        return _name(value.get("name"))
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value) if n]
        return ", ".join(names[:3])
    return ""


_WANTED = (
    'meta[content], script[type="application/ld+json"], h1, title, time, [itemprop="author"], '
    '[itemprop="datePublished"], a[rel~="author"], [class*="byline"], [class*="author"], base[href], '
    'link[rel~="canonical" i][href]'
)


class _Candidate:
    """An element of the compiled scan (``_walk.meta_candidates``), read like a selectolax node:
    ``tag`` (the name of the elements wanted by tag, else ``""``), ``attrs`` (the attributes
    read here) and the text of its subtree. Valid while its tree lives."""

    __slots__ = ("attrs", "node", "tag", "walk")

    def __init__(self, tag: str, attrs: dict[str, str | None], node: int, walk: Any) -> None:
        self.tag, self.attrs, self.node, self.walk = tag, attrs, node, walk

    def text(self, deep: bool = True) -> str:  # selectolax's signature; always deep
        text: str = self.walk.meta_text(self.node)
        return text


_Node = LexborNode | _Candidate


def _candidates(tree: PageTree) -> list[_Node]:
    """The elements :data:`_WANTED` matches, in document order; with the compiled walk, a
    superset of them (one C pass instead of lexbor's selector engine, which tries all ten
    selectors on every element), which read_metadata sorts out by the same tests."""
    walk = compiled_walk()
    root = tree.root
    if walk is None or root is None:
        return list(tree.css(_WANTED)) if isinstance(tree, LexborHTMLParser) else []
    return [_Candidate(tag, attrs, node, walk) for tag, attrs, node in walk.meta_candidates(root.mem_id)]


def _first_link(node: _Node) -> _Node | None:
    """The first ``<a href>`` inside ``node``."""
    if isinstance(node, _Candidate):
        found = node.walk.meta_first_link(node.node)
        return None if found is None else _Candidate("a", {"href": found[0]}, found[1], node.walk)
    return node.css_first("a[href]")


_AUTHOR_KINDS: tuple[tuple[str, Callable[[_Node], bool]], ...] = (
    ("itemprop", lambda x: x.attrs.get("itemprop") == "author"),
    ("rel", lambda x: "author" in (x.attrs.get("rel") or "").lower().split()),
    ("author-name", lambda x: "author-name" in (x.attrs.get("class") or "")),
    ("byline", lambda x: "byline" in (x.attrs.get("class") or "")),
    ("author", lambda x: "author" in (x.attrs.get("class") or "")),
)
_HOME = re.compile(r"^(?:(?:https?:)?//[^/]+)?/?(?:index\.\w+)?$")


#: Author elements longer than this are not searched for dates to cut (a class holding "author"
#: can be a whole article's container); a leading "By …" is still read.
_AUTHOR_BOX_CHARS = 200
#: What a byline says before the name, alone in an element ("Posted by:", "Written By"); a
#: comment form's field label ("Name *"); placeholders and default accounts, from any source.
_AUTHOR_LABELS = frozenset(
    ("by", "posted by", "written by", "authored by", "author", "authors", "topic author", "article by",
     "name", "your name", "undefined", "null", "none", "n/a", "admin", "administrator", "webmaster")
)  # fmt: skip


def _no_name(text: str) -> bool:
    """Whether an author candidate is a label, a placeholder or a default account (see
    :data:`_AUTHOR_LABELS`; a required-field star and a colon ignored)."""
    return text.rstrip("*: ").strip().lower() in _AUTHOR_LABELS


def _author_text(text: str) -> str:
    """The name in an author element's text, or ``""``.

    Bylines often hold the date too: a box that holds only a date (and a time, a weekday, a
    reading time: "August 28, 2025 · 5 min read") gives no name, so the next kind of author
    markup is asked; a date beside a name is cut out when what remains has no digits
    ("Andrew Gerrand 4 August 2010" → "Andrew Gerrand"). A leading "By" / "Posted by:" is
    dropped, and a label alone ("Posted by:", "Topic Author") is no name either.
    """
    cut = _DATES_IN.sub(" ", text) if len(text) <= _AUTHOR_BOX_CHARS else text
    if cut != text:
        rest = _clean(cut).strip(_NAME_SEPARATORS)
        while (m := _TRAILING_LINK.search(rest)) and m.start():
            rest = rest[: m.start()].strip(_NAME_SEPARATORS)
        if not any(c.isalpha() for c in rest):
            return ""
        if not any(c.isdigit() for c in rest):
            text = rest
    m = _BY.match(text)
    if m:
        text = _clean(m.group(1))
    if not 2 < len(text) <= 60 or _no_name(text):
        return ""
    return text


def _without_site(title: str, site: str) -> str:
    """``title`` without a first or last part that names the site ("Tips for Japan - Japan
    Forum" with ``og:site_name`` "Japan Forum")."""
    seps = list(_SEPARATORS.finditer(title)) if site else []
    if seps:
        key = site.lower()
        if title[seps[-1].end() :].strip().lower() == key:
            return title[: seps[-1].start()].strip()
        if title[: seps[0].start()].strip().lower() == key:
            return title[seps[0].end() :].strip()
    return title


def _is_organization(value: Any) -> bool:
    """Whether a JSON-LD author is an organization (every one of them, when a list)."""
    if isinstance(value, list):
        return bool(value) and all(_is_organization(v) for v in value)
    return isinstance(value, dict) and "Organization" in str(value.get("@type", ""))


def _is_logo(h1: _Node) -> bool:
    """An ``<h1>`` that only wraps a link to the site's home page: the site's logo or name, which
    many templates mark up as the first heading, not the page's title."""
    link = _first_link(h1)
    if link is None or not _HOME.match((link.attrs.get("href") or "").strip()):
        return False
    return _clean(link.text(deep=True)) == _clean(h1.text(deep=True))


_ARTICLE_TYPES = re.compile(
    r"Article|Posting|Blog|Report|Review|WebPage|Question|Discussion|Recipe|HowTo|Product"
)


def read_metadata(tree: PageTree, url: str | None = None, *, text_date: bool = True) -> PageMetadata:
    """The metadata of a parsed page (the tree is not modified).

    ``text_date=False`` skips the written-date fallback, which reads the body's whole text: the
    extractor applies :func:`date_in_text` to the page text it has anyway (a page without a
    markup date then gets ``sources["date"]`` absent or ``"meta:modified"``).
    """
    # One traversal for every element the rules below read (each ``css`` call walks the whole
    # tree: eight of them cost more than the rest of the metadata), sorted out in document order.
    meta: dict[str, str] = {}
    ld_texts: list[str] = []
    h1_node: _Node | None = None
    title_node: _Node | None = None
    published: _Node | None = None
    timed: _Node | None = None
    any_time: _Node | None = None
    author_nodes: list[_Node] = []
    base: str | None = None
    canonical: str | None = None
    for node in _candidates(tree):
        tag = node.tag
        attrs = node.attrs
        if tag == "base":
            if base is None and attrs.get("href") is not None:
                base = attrs.get("href")
            continue
        if tag == "link":
            if canonical is None and "canonical" in (attrs.get("rel") or "").lower().split():
                canonical = attrs.get("href")
            continue
        if tag == "meta" and "content" in attrs:
            name = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or ""
            key = name.lower().strip()
            if key and key not in meta:
                meta[key] = attrs.get("content") or ""  # cleaned where read
        elif tag == "script":
            # lexbor, like the HTML standard, compares ``type`` and ``rel`` values ignoring case.
            if (attrs.get("type") or "").lower() == "application/ld+json":
                ld_texts.append(node.text(deep=True) or "null")
        elif tag == "h1" and h1_node is None and not _is_logo(node):
            h1_node = node
        elif tag == "title" and title_node is None:
            title_node = node
        elif tag == "time":
            if any_time is None:
                any_time = node
            if timed is None and "datetime" in attrs:
                timed = node
        itemprop = attrs.get("itemprop")
        if itemprop == "datePublished" and published is None:
            published = node
        classes = attrs.get("class") or ""
        if (
            itemprop == "author"
            or (tag == "a" and "author" in (attrs.get("rel") or "").lower().split())
            or "byline" in classes
            or "author" in classes
        ):
            author_nodes.append(node)
    sources: dict[str, str] = {}
    ld = _ld_items(ld_texts)
    ld.sort(key=lambda x: 0 if _ARTICLE_TYPES.search(str(x.get("@type", ""))) else 1)

    # --- title
    h1 = _clean(h1_node.text(deep=True)) if h1_node is not None else ""
    page_title = _clean(title_node.text(deep=True)) if title_node is not None else ""
    og = _clean(meta.get("og:title")) or _clean(meta.get("twitter:title"))
    # JSON-LD is JSON, but many sites write HTML-escaped text in it ("Full &#038; Part Time").
    headline = next(
        (_clean(html.unescape(x["headline"])) for x in ld if isinstance(x.get("headline"), str)), ""
    )
    site = _clean(meta.get("og:site_name")) or _clean(meta.get("application-name"))
    title = ""
    for candidate in (og, page_title, headline):
        if h1 and candidate and h1.lower() in candidate.lower() and len(h1) >= 4:
            title, sources["title"] = _without_site(h1, site), "h1"
            break
    if not title:
        for candidate, where in ((headline, "json-ld"), (og, "og:title"), (page_title, "title"), (h1, "h1")):
            if candidate:
                parts = _SEPARATORS.split(candidate)
                title = max(parts, key=len) if len(parts) > 1 else candidate
                sources["title"] = where
                break

    # --- author
    author = ""
    organization = ""  # a JSON-LD author that is an organization: the answer only if no person is
    for x in ld:
        if "author" in x or "creator" in x:
            value = x.get("author") or x.get("creator")
            author = _name(value)
            if _no_name(author):
                author = ""
            if author and _is_organization(value):
                organization, author = organization or author, ""
                continue
            if author:
                sources["author"] = "json-ld"
                break
    if not author:
        for key in _AUTHOR_META:
            value = _clean(meta.get(key))
            # Not an address, a handle or a numeric account id ("223509017").
            usable = value and not value.startswith(("http", "@")) and any(c.isalpha() for c in value)
            if usable and not _no_name(value):
                author, sources["author"] = value, f"meta:{key}"
                break
    if not author:
        # The most deliberate kind of author markup first.
        for kind, test in _AUTHOR_KINDS:
            hit = next((x for x in author_nodes if test(x)), None)
            if hit is None:
                continue
            text = _author_text(_clean(hit.attrs.get("content") or hit.text(deep=True)))
            if text:
                author, sources["author"] = text, f"markup:{kind}"
                break
    if not author and organization:
        author, sources["author"] = organization, "json-ld"

    # --- date
    date = ""
    for x in ld:
        for key in ("datePublished", "dateCreated", "uploadDate", "dateModified"):
            if isinstance(x.get(key), str):
                date = normalize_date(x[key])
                if date:
                    sources["date"] = f"json-ld:{key}"
                    break
        if date:
            break
    if not date:
        for key in _DATE_META:
            date = normalize_date(meta.get(key))
            if date:
                sources["date"] = f"meta:{key}"
                break
    if not date:
        marked = (('[itemprop="datePublished"]', published), ("time[datetime]", timed), ("time", any_time))
        for sel, when in marked:
            if when is not None:
                attrs = when.attrs
                date = normalize_date(attrs.get("datetime") or attrs.get("content") or when.text(deep=True))
                if date:
                    sources["date"] = f"markup:{sel}"
                    break
    if not date:
        # The address the page was fetched from, else the one it gives itself (percent-encoded
        # slashes and all: "%2Farticles%2F2025-12-15%2B...").
        for where, address in (("url", url), ("og:url", meta.get("og:url"))):
            m = _URL_DATE.search(unquote(address)) if address else None
            date = _ymd(*(int(g) for g in m.groups())) if m else ""
            if date:
                sources["date"] = where
                break
    if not date and text_date and tree.body is not None:
        if isinstance(tree, LexborHTMLParser):
            date = date_in_text(tree.body.text(deep=True, separator=" "))
        elif (walk := compiled_walk()) is not None:  # a lite tree (blocks.parse_page)
            date = date_in_text(walk.meta_text(tree.body.mem_id, b" "))
        if date:
            sources["date"] = "text"
    if not date:
        m_date = _clean(meta.get("article:modified_time")) or _clean(meta.get("og:updated_time"))
        date = normalize_date(m_date)
        if date:
            sources["date"] = "meta:modified"
    return PageMetadata(title[:1000], author[:200], date, sources, meta, base, canonical, page_title, ld)


#: A byline alone in the page's opening text: "By Jane Doe | March 3", "Written by J. R. Smith".
_NAME_WORD = r"(?:[A-ZÀ-ÖØ-Þ][\w'\u2019-]*\.?|(?:van|von|de|der|den|da|di|du|del|la|le|bin|al)(?=\s))"
_TEXT_BYLINE = re.compile(
    rf"^(?i:by|written by|posted by|words by|text by)\s+({_NAME_WORD}(?:\s+{_NAME_WORD}){{1,4}})"
    r"\s*(?:$|[|•·,;\u2014\u2013]|-\s|\s(?i:on|at|in|for|and|updated|published)\b|\s\d)"
)
#: How many of a page's first text blocks are looked at for a byline.
_BYLINE_BLOCKS = 40


def author_in_text(blocks: Sequence[str]) -> str:
    """The name of a byline written as text in the page's opening blocks (``<p>By Jane Doe |
    …</p>``, no markup saying it is one), or ``""``: "By" (any case) and two to five capitalised
    words (initials, and particles such as "van" or "de", included), then the end of the block,
    a separator, or a date."""
    for text in blocks[:_BYLINE_BLOCKS]:
        if len(text) > 120:
            continue
        line = text.strip()
        m = _TEXT_BYLINE.match(line)
        if m:
            name = _clean(m.group(1))
            # a name in capitals only where the whole byline is ("BY JOHN SMITH"); "By USE CASE"
            # and "By COMPANY SIZE" are a menu's filters
            shouting = name.isupper() and not line[: m.start(1)].isupper()
            if not shouting and not _no_name(name):
                return name
    return ""


def date_in_text(text: str) -> str:
    """The first date in the opening of a page's text, or ``""``: written out ("March 5, 2024",
    "5th May 2024"), ISO ("2024-03-05"), or numeric after a word that names it ("Updated:
    10/31/2024", "Published 23.07.2025")."""
    text = text[:_TEXT_DATE_SPAN]
    for year in _YEAR.finditer(text):
        at = year.start()
        if at and text[at - 1].isdigit():
            continue
        m = _BEFORE_YEAR.search(text, max(0, at - 40), at)
        if m:
            date = normalize_date(text[m.start() : year.end()])
            if date:
                return date
        m = _ISO_AT.match(text, at)
        date = _ymd(*(int(g) for g in m.groups())) if m else ""
        if date:
            return date
        m = _CUED_BEFORE_YEAR.search(text, max(0, at - 40), at)
        if m:
            y, a, b = int(year.group()), int(m.group(1)), int(m.group(3))
            # Dots are day first; slashes and dashes month first where that is a date.
            date = (m.group(2) != "." and _ymd(y, a, b)) or _ymd(y, b, a)
            if date:
                return date
    return ""


def extract_metadata(markup: str | bytes, url: str | None = None) -> PageMetadata:
    """Parse a page and read its title, author and date (see the module docstring).

    The tree is the extractor's (:func:`~trawl.html.blocks.parse_page`: scripts, styles and SVG
    cut, JSON-LD kept, hostile nesting flattened), so the written-date fallback reads the page's
    text and not dates inside its scripts.
    """
    return read_metadata(parse_page(markup, lite=False)[0], url)
