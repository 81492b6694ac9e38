"""URLs from sitemaps and feeds: what a site says about itself, with priorities and change hints.

:func:`parse_sitemap` reads an XML ``urlset`` or ``sitemapindex`` (gzipped or not) or a text
sitemap (one URL a line), bounded in size and count; :func:`parse_feed` reads RSS 2.0 and Atom
item links and the RSS ``ttl``. Both are lenient, regex-free XML parsing through ``ElementTree``
with a fallback to a line scan when the XML is broken, and never raise on bad input: they return
what they could read and a problem string.

A sitemap's ``priority`` (0..1) becomes a frontier priority and its ``changefreq`` a prior change
rate for revisit scheduling (:data:`CHANGEFREQ_RATE`).
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from xml.etree import ElementTree

from trawl.convert.xmlsafe import XmlError, parse_xml

__all__ = [
    "CHANGEFREQ_RATE",
    "FeedInfo",
    "SitemapEntry",
    "SitemapInfo",
    "is_feed",
    "next_poll",
    "parse_feed",
    "parse_sitemap",
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
MAX_SITEMAP_URLS = 50000
_LOC = re.compile(rb"<loc>\s*([^<\s]+)\s*</loc>", re.IGNORECASE)


@dataclass(slots=True)
class SitemapEntry:
    url: str
    priority: float | None = None
    changefreq: str | None = None
    lastmod: str | None = None


@dataclass(slots=True)
class SitemapInfo:
    urls: list[SitemapEntry] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)  # from a sitemap index
    problem: str | None = None


@dataclass(slots=True)
class FeedInfo:
    links: list[tuple[str, str]] = field(default_factory=list)  # (url, title)
    ttl_seconds: float | None = None
    problem: str | None = None
    skip_hours: frozenset[int] = frozenset()  # RSS <skipHours>: UTC hours not to poll in
    skip_days: frozenset[int] = frozenset()  # RSS <skipDays>: weekdays (0 Monday) not to poll on


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


def _gunzip(data: bytes) -> tuple[bytes, str | None]:
    if data[:2] != b"\x1f\x8b":
        return data, None
    inflater = zlib.decompressobj(31)
    try:
        out = inflater.decompress(data, MAX_SITEMAP_BYTES)
    except zlib.error as exc:
        return b"", f"bad gzip: {exc}"
    if inflater.unconsumed_tail:
        return out, f"larger than {MAX_SITEMAP_BYTES} bytes uncompressed; cut there"
    return out, None


def parse_sitemap(data: bytes) -> SitemapInfo:
    """The URLs (or child sitemaps) listed in a sitemap body."""
    data, problem = _gunzip(data)
    info = SitemapInfo(problem=problem)
    head = data[:512].lstrip()
    if not head.startswith(b"<"):
        for raw_line in data.decode("utf-8", "replace").splitlines()[:MAX_SITEMAP_URLS]:
            line = raw_line.strip()
            if line.startswith(("http://", "https://")):
                info.urls.append(SitemapEntry(line))
        return info
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        info.problem = f"malformed XML ({exc}); <loc> values scanned"
        for m in _LOC.finditer(data):
            info.urls.append(SitemapEntry(m.group(1).decode("utf-8", "replace")))
            if len(info.urls) >= MAX_SITEMAP_URLS:
                break
        return info
    index = _local(root.tag) == "sitemapindex"
    for item in root:
        fields = {_local(child.tag): (child.text or "").strip() for child in item}
        loc = fields.get("loc")
        if not loc:
            continue
        if index:
            info.sitemaps.append(loc)
        else:
            try:
                priority = float(fields["priority"]) if "priority" in fields else None
            except ValueError:
                priority = None
            info.urls.append(
                SitemapEntry(
                    loc, priority, fields.get("changefreq", "").lower() or None, fields.get("lastmod")
                )
            )
        if len(info.urls) + len(info.sitemaps) >= MAX_SITEMAP_URLS:
            info.problem = f"more than {MAX_SITEMAP_URLS} entries; the rest ignored"
            break
    return info


def is_feed(content_type: str | None, head: bytes) -> bool:
    """Is this body an RSS or Atom feed (by its media type, or by its root element)?"""
    if content_type and ("rss" in content_type or "atom" in content_type):
        return True
    start = head[:1024].lower()
    return b"<rss" in start or (b"<feed" in start and b"2005/atom" in start)


def parse_feed(data: bytes) -> FeedInfo:
    """Item links of an RSS 2.0 or Atom feed, the RSS ``ttl`` (minutes) in seconds (or RSS 1.0's
    ``sy:updatePeriod``/``sy:updateFrequency``), and the ``skipHours``/``skipDays`` to honour."""
    info = FeedInfo()
    try:
        root = parse_xml(data[:MAX_SITEMAP_BYTES])  # entity declarations refused, as for every XML
    except XmlError as exc:
        info.problem = f"malformed feed XML: {exc}"
        return info
    period: float | None = None
    frequency = 1
    hours: set[int] = set()
    days: set[int] = set()
    for element in root.iter():
        name = _local(element.tag)
        text = (element.text or "").strip()
        if name == "ttl" and text.isdigit():
            info.ttl_seconds = 60.0 * int(text)
        elif name == "updateperiod" and text.lower() in _UPDATE_PERIODS:
            period = _UPDATE_PERIODS[text.lower()]
        elif name == "updatefrequency" and text.isdigit() and int(text) > 0:
            frequency = int(text)
        elif name == "hour" and text.isdigit() and int(text) < 24:
            hours.add(int(text))
        elif name == "day" and text.lower() in _DAYS:
            days.add(_DAYS.index(text.lower()))
        elif name in ("item", "entry"):
            title = ""
            link = ""
            for child in element:
                cname = _local(child.tag)
                if cname == "title":
                    title = (child.text or "").strip()
                elif cname == "link":
                    link = (child.get("href") or child.text or "").strip() or link
            if link:
                info.links.append((link, title))
    if info.ttl_seconds is None and period is not None:  # RSS 1.0: updatePeriod / updateFrequency
        info.ttl_seconds = period / frequency
    info.skip_hours, info.skip_days = frozenset(hours), frozenset(days)
    return info
