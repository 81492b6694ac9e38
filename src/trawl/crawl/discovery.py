"""URLs from sitemaps and feeds: what a site says about itself, with priorities and change hints.

:func:`parse_sitemap` reads an XML ``urlset`` or ``sitemapindex`` (gzipped or not) or a text
sitemap (one URL a line); :func:`parse_feed` reads the items of RSS 0.9x, 1.0 and 2.0 and the
entries of Atom, with their dates, and when to poll the feed again (RSS ``ttl``,
``sy:updatePeriod``/``sy:updateFrequency``, ``skipHours``/``skipDays``). Both parse through
:func:`~trawl.convert.xmlsafe.parse_xml_partial` (no entity expansion; a document cut short or
broken part way gives the elements that closed before the break, a sitemap with no element left
falls back to a ``<loc>`` scan) and never raise on bad input: they return what they could read,
a problem string and what they met:

* **limits**, counted by the crawler when hit: bytes (a gzipped body's *decompressed* size
  too, decompressed at most that far, so a gzip bomb costs the limit and not the bomb), URLs per
  sitemap (the protocol's 50,000 and 50 MB are the defaults), entries per feed;
* **dates**: a sitemap's ``<lastmod>`` is a W3C datetime (:func:`parse_w3c_datetime`: ``YYYY``,
  ``YYYY-MM``, ``YYYY-MM-DD``, with ``Thh:mm``, ``:ss`` and a fraction, and ``Z`` or ``±hh:mm``);
  a feed's ``pubDate`` is RFC 822 and Atom's ``updated``/``published`` RFC 3339
  (:func:`parse_feed_date` takes either). A value that is no date is counted (``bad_dates``) and
  left out, never guessed.

A feed's own ``rel="hub"`` and ``rel="self"`` links (Atom ``<link>``, RSS ``<atom:link>``) are
kept in :class:`FeedInfo` for WebSub (:mod:`trawl.crawl.websub`), and :func:`parse_link_header`
reads the same from an HTTP ``Link`` header.

A sitemap's ``priority`` (0..1) becomes a frontier priority and its ``changefreq`` a prior change
rate for revisit scheduling (:data:`CHANGEFREQ_RATE`); ``lastmod`` and a feed entry's date give a
prior too (:func:`lastmod_rate`) and tell the crawler when a stored capture is out of date.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from xml.etree import ElementTree

from trawl.convert.xmlsafe import XmlError, parse_xml_partial

__all__ = [
    "CHANGEFREQ_RATE",
    "MAX_FEED_BYTES",
    "MAX_FEED_ENTRIES",
    "MAX_SITEMAP_BYTES",
    "MAX_SITEMAP_URLS",
    "FeedEntry",
    "FeedInfo",
    "SitemapEntry",
    "SitemapInfo",
    "feed_poll_interval",
    "is_feed",
    "lastmod_rate",
    "next_poll",
    "parse_feed",
    "parse_feed_date",
    "parse_link_header",
    "parse_sitemap",
    "parse_w3c_datetime",
]

#: Prior change rates (per second) for sitemap ``changefreq`` values.
CHANGEFREQ_RATE = {
    "always": 1 / 60,
    "hourly": 1 / 3600,
    "daily": 1 / 86400,
    "weekly": 1 / 604800,
    "monthly": 1 / 2592000,
    "yearly": 1 / 31536000,
    "never": 0.0,
}
MAX_SITEMAP_BYTES = 50 << 20  # the sitemaps.org limit, uncompressed
MAX_SITEMAP_URLS = 50000  # the sitemaps.org limit (and of the sitemaps an index lists)
MAX_FEED_BYTES = 10 << 20  # a feed is a window on the latest items: a few hundred kB in practice
MAX_FEED_ENTRIES = 1000
MAX_FEED_HUBS = 4  # WebSub hubs kept from one feed (one is used; the rest are spares)
_LOC = re.compile(rb"<loc>\s*([^<\s]+)\s*</loc>", re.IGNORECASE)
#: the dates a crawler believes: the web's first years to a day past the server's "now"
_EARLIEST = datetime(1991, 1, 1, tzinfo=UTC).timestamp()
_W3C = re.compile(
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?"
    r"\s*(Z|z|[+-]\d{2}:?\d{2})?)?)?)?"
)


def parse_w3c_datetime(text: str) -> float | None:
    """Seconds since the epoch of a W3C datetime (the profile of ISO 8601 sitemaps use), or
    ``None`` when ``text`` is none.

    Every form of the profile: ``1997``, ``1997-07``, ``1997-07-16``, ``1997-07-16T19:20+01:00``,
    ``1997-07-16T19:20:30Z``, ``1997-07-16T19:20:30.45-05:00``. A date alone is its midnight in
    UTC; so is a time without a zone (the profile requires one; sitemaps often leave it out).
    Dates before 1991 (no web page is older) are refused.
    """
    m = _W3C.fullmatch(text.strip())
    if m is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = m.groups()
    try:
        tz: timezone = UTC
        if zone and zone not in ("Z", "z"):
            sign = -1 if zone[0] == "-" else 1
            hh, mm = int(zone[1:3]), int(zone[-2:])
            if hh > 23 or mm > 59:
                return None
            tz = timezone(sign * timedelta(hours=hh, minutes=mm))
        moment = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0")[:6].ljust(6, "0")),
            tzinfo=tz,
        )
    except ValueError:  # month 13, February 30, hour 25
        return None
    when = moment.timestamp()
    return when if when >= _EARLIEST else None


def parse_feed_date(text: str) -> float | None:
    """Seconds since the epoch of a feed date: RSS's RFC 822 (``Tue, 10 Jun 2003 04:00:00 GMT``)
    or Atom's and Dublin Core's RFC 3339 / W3C datetime; ``None`` when it is neither."""
    text = text.strip()
    if not text:
        return None
    if text[:1].isdigit() and "-" in text[:8]:
        return parse_w3c_datetime(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return parse_w3c_datetime(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        when = moment.timestamp()
    except (OverflowError, ValueError):
        return None
    return when if when >= _EARLIEST else None


def lastmod_rate(age: float, *, minimum_age: float, maximum_age: float) -> float:
    """A prior change rate (per second) from one "last modified" date, ``age`` seconds before
    it was read.

    Under the Poisson model a page changing at rate λ was last modified an exponentially
    distributed time ago, of mean 1/λ; one such age ``a`` gives the maximum-likelihood estimate
    λ = 1/a. So a page modified an hour before the crawl looked is taken to change about hourly,
    one untouched for a year yearly. The age is clamped to ``[minimum_age, maximum_age]``: a
    date of a second ago says "recently", not "every second" (and one in the future, a clock
    off, is taken as recent). It is one observation: the estimator weighs it as one visit, so a
    few real visits outweigh it.
    """
    return 1.0 / min(maximum_age, max(minimum_age, age))


def feed_poll_interval(
    declared: float | None,
    rate: float,
    *,
    minimum: float,
    maximum: float,
    changes_per_poll: float = 0.5,
) -> float:
    """Seconds until a feed is polled again.

    ``declared`` is what the feed says (RSS ``ttl``, or ``sy:updatePeriod`` / frequency): how long
    it may be cached, so never polled sooner. ``rate`` is the feed's own history: how often a poll
    has found new entries (the Poisson estimate over its polls, :func:`~trawl.crawl.revisit.estimate_rate`),
    polled so that about ``changes_per_poll`` new batches arrive between two polls; a feed whose
    polls keep finding nothing new drifts to ``maximum``. Clamped to ``[minimum, maximum]``.
    """
    learned = changes_per_poll / rate if rate > 0 else maximum
    interval = max(declared or 0.0, learned)
    return min(maximum, max(minimum, interval))


@dataclass(slots=True)
class SitemapEntry:
    url: str
    priority: float | None = None
    changefreq: str | None = None
    lastmod: float | None = None  # seconds since the epoch (a W3C datetime read)
    #: seconds from ``lastmod`` to when the sitemap was read (set by the crawler, from the
    #: response's ``Date``: the site's own clock)
    age: float | None = None


@dataclass(slots=True)
class SitemapInfo:
    urls: list[SitemapEntry] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)  # from a sitemap index
    problem: str | None = None
    too_large: bool = False  # more bytes (decompressed) than the limit: read up to it
    too_many: bool = False  # more URLs (or child sitemaps) than the limit: the rest ignored
    bad_dates: int = 0  # <lastmod> values that are no W3C datetime
    bad_priorities: int = 0  # <priority> values that are no number from 0 to 1


@dataclass(slots=True)
class FeedEntry:
    url: str
    title: str = ""
    #: the latest of the entry's dates (Atom ``updated``/``published``, RSS ``pubDate``,
    #: ``dc:date``), seconds since the epoch
    date: float | None = None


@dataclass(slots=True)
class FeedInfo:
    entries: list[FeedEntry] = field(default_factory=list)
    ttl_seconds: float | None = None
    problem: str | None = None
    skip_hours: frozenset[int] = frozenset()  # RSS <skipHours>: UTC hours not to poll in
    skip_days: frozenset[int] = frozenset()  # RSS <skipDays>: weekdays (0 Monday) not to poll on
    too_large: bool = False  # more bytes (decompressed) than the limit: read up to it
    too_many: bool = False  # more entries than the limit: the rest ignored
    bad_dates: int = 0  # entry dates that are no RFC 822 or W3C datetime
    #: the feed's own ``<link rel="hub">`` / ``<atom:link rel="hub">`` (WebSub hubs, at most
    #: :data:`MAX_FEED_HUBS`) and ``rel="self"`` (its topic URL), as written (maybe relative)
    hubs: list[str] = field(default_factory=list)
    self_url: str | None = None

    @property
    def links(self) -> list[tuple[str, str]]:
        """``(url, title)`` of each entry."""
        return [(e.url, e.title) for e in self.entries]


#: RSS 1.0's syndication module: how long one ``sy:updatePeriod`` is.
_UPDATE_PERIODS = {"hourly": 3600.0, "daily": 86400.0, "weekly": 604800.0, "monthly": 2592000.0,
                   "yearly": 31536000.0}  # fmt: skip
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def next_poll(when: float, info: FeedInfo) -> float:
    """``when`` (wall time), or the start of the first hour after it that the feed's
    ``skipHours``/``skipDays`` allow (unchanged when they skip every hour)."""
    if not info.skip_hours and not info.skip_days:
        return when
    t = when
    for _ in range(24 * 8):
        moment = datetime.fromtimestamp(t, UTC)
        if moment.hour not in info.skip_hours and moment.weekday() not in info.skip_days:
            return t
        t = (math.floor(t / 3600) + 1) * 3600.0  # the next hour's start
    return when


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def _inflate(data: bytes, max_bytes: int) -> tuple[bytes, bool, str | None]:
    """``data`` un-gzipped if it is gzip (at most ``max_bytes`` of it), or cut to ``max_bytes``:
    the bytes, whether they were more, and what went wrong."""
    if data[:2] != b"\x1f\x8b":
        return data[:max_bytes], len(data) > max_bytes, None
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(data, max_bytes)  # never more than max_bytes in memory
    except zlib.error as exc:
        return b"", False, f"bad gzip: {exc}"
    if len(out) >= max_bytes and (inflater.unconsumed_tail or not inflater.eof):
        return out, True, None
    if not inflater.eof:
        return out, False, "the gzip stream ends early; read up to there"
    return out, False, None


def _parse_partial(data: bytes) -> tuple[ElementTree.Element | None, set[int] | None, str | None]:
    """The root, the elements that closed (None: all of them) and the problem, or no root."""
    try:
        root, closed, error = parse_xml_partial(data, max_bytes=len(data) + 1)
    except XmlError as exc:
        return None, None, f"{exc.reason}: {exc}"
    return root, (closed if error is not None else None), (f"malformed XML: {error}" if error else None)


def parse_sitemap(
    data: bytes, *, max_bytes: int = MAX_SITEMAP_BYTES, max_urls: int = MAX_SITEMAP_URLS
) -> SitemapInfo:
    """The URLs (or child sitemaps) listed in a sitemap body, at most ``max_urls`` of them from
    at most ``max_bytes`` (decompressed) of it."""
    data, too_large, problem = _inflate(data, max_bytes)
    info = SitemapInfo(problem=problem, too_large=too_large)
    if too_large:
        info.problem = f"larger than {max_bytes} bytes (uncompressed); read up to there"
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if data and not head.startswith(b"<"):
        lines = (line.strip() for line in data.decode("utf-8", "replace").splitlines())
        for line in lines:
            if line.startswith(("http://", "https://")):
                if len(info.urls) >= max_urls:
                    info.too_many = True
                    break
                info.urls.append(SitemapEntry(line))
        return info
    root, closed, problem = _parse_partial(data)
    if root is None:
        info.problem = f"{problem}; <loc> values scanned"
        for m in _LOC.finditer(data):
            if len(info.urls) >= max_urls:
                info.too_many = True
                break
            info.urls.append(SitemapEntry(m.group(1).decode("utf-8", "replace")))
        return info
    if problem and not info.problem:
        info.problem = problem
    index = _local(root.tag) == "sitemapindex"
    for item in root:
        if closed is not None and id(item) not in closed:
            continue  # cut short: its fields may be too
        fields = {_local(child.tag): (child.text or "").strip() for child in item}
        loc = fields.get("loc")
        if not loc:
            continue
        if len(info.urls) + len(info.sitemaps) >= max_urls:
            info.too_many = True
            break
        if index:
            info.sitemaps.append(loc)
            continue
        priority: float | None = None
        if "priority" in fields:
            try:
                priority = float(fields["priority"])
            except ValueError:
                priority = None
            if priority is None or not 0.0 <= priority <= 1.0:  # NaN fails both comparisons
                info.bad_priorities += 1
                priority = None
        lastmod: float | None = None
        if fields.get("lastmod"):
            lastmod = parse_w3c_datetime(fields["lastmod"])
            if lastmod is None:
                info.bad_dates += 1
        info.urls.append(SitemapEntry(loc, priority, fields.get("changefreq", "").lower() or None, lastmod))
    if info.too_many and not info.problem:
        info.problem = f"more than {max_urls} entries; the rest ignored"
    return info


def is_feed(content_type: str | None, head: bytes) -> bool:
    """Is this body an RSS or Atom feed (by its media type, or by its root element)?"""
    if content_type and ("rss" in content_type or "atom" in content_type):
        return True
    start = head[:1024].lower()
    return (
        b"<rss" in start
        or (b"<feed" in start and b"2005/atom" in start)
        or (b"<rdf:rdf" in start and (b"purl.org/rss/1.0" in start or b"netscape.com/rdf/simple" in start))
    )


#: an entry's dates, by their local names: RSS pubDate, Atom updated/published (and Atom 0.3's
#: issued/modified), Dublin Core's date (RSS 1.0)
_DATE_NAMES = frozenset({"pubdate", "updated", "published", "issued", "modified", "date"})


def _entry(element: ElementTree.Element, info: FeedInfo) -> FeedEntry | None:
    title = ""
    link = ""
    alternate = ""
    guid = ""
    dates: list[float] = []
    for child in element:
        cname = _local(child.tag)
        text = (child.text or "").strip()
        if cname == "title":
            title = text
        elif cname == "link":
            href = (child.get("href") or text).strip()
            rel = (child.get("rel") or "alternate").lower()
            if href and rel == "alternate" and not alternate:
                alternate = href  # Atom: the entry's page (not self, edit, enclosure)
            link = link or href
        elif cname == "guid" and (child.get("isPermaLink") or "true").lower() != "false":
            guid = text  # RSS 2.0: a permalink guid is the item's address when it has no link
        elif cname in _DATE_NAMES and text:
            when = parse_feed_date(text)
            if when is None:
                info.bad_dates += 1
            else:
                dates.append(when)
    url = alternate or link or (guid if guid.startswith(("http://", "https://")) else "")
    if not url:
        return None
    return FeedEntry(url, title, max(dates) if dates else None)


def _feed_links(root: ElementTree.Element, info: FeedInfo) -> None:
    """The feed-level ``rel="hub"`` and ``rel="self"`` links: children of an Atom ``<feed>`` or
    of an RSS ``<channel>`` (``atom:link``), never an entry's own links."""
    containers = [root, *(child for child in root if _local(child.tag) == "channel")]
    for container in containers:
        for child in container:
            if _local(child.tag) != "link":
                continue
            href = (child.get("href") or "").strip()
            rels = (child.get("rel") or "").lower().split()
            if not href:
                continue
            if "hub" in rels and href not in info.hubs and len(info.hubs) < MAX_FEED_HUBS:
                info.hubs.append(href)
            if "self" in rels and info.self_url is None:
                info.self_url = href


_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_LINK_VALUE = re.compile(r"\s*<([^>]*)>")
_LINK_PARAM = re.compile(rf'\s*;\s*({_TOKEN})(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^;,"\s]*))?')


def parse_link_header(value: str, *, max_links: int = 32) -> list[tuple[str, frozenset[str]]]:
    """The ``(target, rel values)`` of an HTTP ``Link`` header (RFC 8288: ``<url>; rel="hub
    self", <url2>; rel=self``), at most ``max_links``; parsing stops at the first link that is
    malformed, keeping those before it (bad input is never an error)."""
    out: list[tuple[str, frozenset[str]]] = []
    pos = 0
    value = value[:16384]
    while pos < len(value) and len(out) < max_links:
        m = _LINK_VALUE.match(value, pos)
        if m is None:
            break
        target, pos = m.group(1).strip(), m.end()
        rels: frozenset[str] = frozenset()
        while (p := _LINK_PARAM.match(value, pos)) is not None:
            pos = p.end()
            if p.group(1).lower() == "rel" and p.group(2) is not None and not rels:
                raw = p.group(2)
                if raw.startswith('"'):
                    raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
                rels = frozenset(raw.lower().split())
        out.append((target, rels))
        rest = value[pos:].lstrip()
        if not rest:
            break
        if not rest.startswith(","):
            break  # junk after a link: what came before it stands
        pos = len(value) - len(rest) + 1
    return out


def parse_feed(
    data: bytes, *, max_bytes: int = MAX_FEED_BYTES, max_entries: int = MAX_FEED_ENTRIES
) -> FeedInfo:
    """Entries of an RSS 0.9x/1.0/2.0 or Atom feed (at most ``max_entries``, from at most
    ``max_bytes`` of it, decompressed), the RSS ``ttl`` (minutes) in seconds (or RSS 1.0's
    ``sy:updatePeriod``/``sy:updateFrequency``), and the ``skipHours``/``skipDays`` to honour."""
    info = FeedInfo()
    data, info.too_large, problem = _inflate(data, max_bytes)
    root, closed, parse_problem = _parse_partial(data)
    info.problem = problem or parse_problem
    if info.too_large:
        info.problem = f"larger than {max_bytes} bytes (uncompressed); read up to there"
    if root is None:
        info.problem = f"malformed feed XML: {parse_problem}"
        return info
    period: float | None = None
    frequency = 1
    hours: set[int] = set()
    days: set[int] = set()
    for element in root.iter():
        name = _local(element.tag)
        text = (element.text or "").strip()
        if name == "ttl" and text.isascii() and text.isdigit():
            info.ttl_seconds = 60.0 * int(text)
        elif name == "updateperiod" and text.lower() in _UPDATE_PERIODS:
            period = _UPDATE_PERIODS[text.lower()]
        elif name == "updatefrequency" and text.isascii() and text.isdigit() and int(text) > 0:
            frequency = int(text)
        elif name == "hour" and text.isascii() and text.isdigit() and int(text) < 24:
            hours.add(int(text))
        elif name == "day" and text.lower() in _DAYS:
            days.add(_DAYS.index(text.lower()))
        elif name in ("item", "entry") and not info.too_many:
            if closed is not None and id(element) not in closed:
                continue  # cut short
            if len(info.entries) >= max_entries:
                info.too_many = True
                continue
            entry = _entry(element, info)
            if entry is not None:
                info.entries.append(entry)
    _feed_links(root, info)
    if info.ttl_seconds is None and period is not None:  # RSS 1.0: updatePeriod / updateFrequency
        info.ttl_seconds = period / frequency
    info.skip_hours, info.skip_days = frozenset(hours), frozenset(days)
    if info.too_many and not info.problem:
        info.problem = f"more than {max_entries} entries; the rest ignored"
    return info
