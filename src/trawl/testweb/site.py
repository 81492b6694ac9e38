"""The generated web: which hosts exist, and what each one answers to each request.

:class:`TestWeb` is a pure function of its seed: ``respond(host, target, headers, now)`` gives a
:class:`Reply` (status, headers, body, and how to misbehave while sending it). Nothing is
stored; pages are rendered on demand, so a web of thousands of hosts costs no memory.

Ordinary hosts ``h0.test`` … ``h{N-1}.test`` each have ``pages`` article pages in one of nine
languages (texts from :mod:`trawl.demo_content`), in that language's legacy or UTF-8 encoding,
declared in the header, in ``<meta>`` or nowhere; a shared boilerplate (navigation, footer);
links within the host and across hosts with the target's title as anchor text; exact duplicates
(every page ``i ≡ 9 mod 10`` repeats page ``i-2`` byte for byte), near duplicates (``i ≡ 8``:
page ``i-1`` with one line changed), a print version of every page (``?print=1``); one of five
robots.txt variants; sitemaps and RSS feeds on some hosts; and change over time: page ``i`` is
rewritten at the events of a Poisson process of rate ``change_rates[i % len(change_rates)]`` per
second, seeded, so :meth:`TestWeb.version` and :meth:`TestWeb.change_rate` are the ground truth
a revisit policy is judged against (``ETag`` and ``Last-Modified`` follow the version, and
conditional requests get ``304``; the host's ``/sitemap.xml`` gives each page's ``<lastmod>``,
``/sitemap-lastmod.xml`` that alone). ``validators`` makes the ordinary hosts' servers worse:
``"no-304"`` keeps honest validators but ignores ``If-None-Match`` (every request a full
``200``: where ``HEAD`` pays), ``"frozen"`` never changes them (validators that lie).

With ``special=True`` the web also holds the hosts a crawler must survive (see
:data:`SPECIAL_HOSTS`): slow, failing, rate-limiting, refusing, garbage-speaking, dripping,
lying about lengths (both ways), gzip, br, zstd and stacked-coding bombs, huge headers, endless
bodies, redirect loops and redirects to other schemes, traps, huge/binary/slow/malformed/5xx/
redirected robots.txt, invalid UTF-8 and NUL bytes, a recursive sitemap index, documents (PDF,
DOCX) and feeds (recursive ones, and XML bombs; docs/hostile.md lists every case); and the fault
hosts ``KIND.fault.test`` (:data:`FAULT_KINDS`), healthy for a while, then failing in one way each.
"""

from __future__ import annotations

import base64
import bisect
import dataclasses
import gzip
import hashlib
import json
import random
import urllib.parse
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate
from functools import cache, lru_cache
from html import escape

from trawl.demo_content import SITES, Site
from trawl.testweb.hub import Hub

__all__ = ["FAULT_KINDS", "PUSH_FEEDS", "SPECIAL_HOSTS", "TOPICS", "TOPIC_NAMES", "Reply", "TestWeb"]

#: The hosts that misbehave, and how (all present when ``special=True``).
SPECIAL_HOSTS: dict[str, str] = {
    "slow.test": "answers every request after a delay (TestWeb.slow_seconds)",
    "fail.test": "answers 500 to everything but robots.txt (404)",
    "busy.test": "answers 429 with Retry-After: 1 to a request less than a second after the last one",
    "unavailable.test": "answers 503 with Retry-After: 1 to the first request for each path",
    "refuse.test": "resolves to a port where nothing listens (connection refused)",
    "nxdomain.test": "does not resolve (DNS failure)",
    "garbage.test": "answers with bytes that are not HTTP",
    "slowloris.test": "sends headers, then one byte every 0.2 s",
    "badlength.test": "declares a Content-Length larger than the body, then closes",
    "bomb.test": "serves a gzip bomb (Content-Encoding: gzip, 16 MiB of zeros in ~16 KiB)",
    "endless.test": "streams a chunked body that never ends",
    "redirects.test": "redirect chains, a redirect loop, relative and cross-host redirects, and (from "
    "/inside and /metadata, linked from nowhere) redirects to 127.0.0.1 and 169.254.169.254",
    "trap.test": "an infinite calendar, session ids in every link, ever deeper paths",
    "bigrobots.test": "a 10 MB robots.txt",
    "badrobots.test": "a malformed robots.txt (binary junk, rules outside groups)",
    "robots5xx.test": "robots.txt answers 503 (the host must not be crawled)",
    "robotsredirect.test": "robots.txt redirects to /policy.txt, which disallows /secret/",
    "delay.test": "robots.txt asks for Crawl-delay: 0.2",
    "fault.test": "lists the fault hosts KIND.fault.test (FAULT_KINDS; linked from nowhere: seed them), "
    "each healthy for its first TestWeb.fault_after page requests, then faulty in its own way",
    "sitemaps.test": "robots.txt lists a sitemap index that includes itself, a gzipped and a text sitemap",
    "docs.test": "PDF and DOCX documents, and a PNG image (a type the crawler refuses on its headers)",
    "news.test": "RSS and Atom feeds whose items change often (a story every news_interval s), "
    "with dates, ETag and 304",
    "private.test": "members only: HTTP basic auth alice/secret or the cookie session=letmein, else 401",
    "hub.test": "a WebSub hub (trawl.testweb.hub) for news.test/push/*.xml: verifies subscriptions by "
    "calling back, pushes signed content at once and on TestWeb.hub.publish; /hostile pushes forged, "
    "unsigned and oversized bodies and verifications nobody asked for; /refuse answers 403",
    "codings.test": "decompression bombs in other content codings (64 MiB of zeros each): /br, /zstd, "
    "and stacked codings /gzip-gzip (Content-Encoding: gzip, gzip) and /gzip-br",
    "headers.test": "huge response headers: /line sends one 1 MiB header line, /many 10,000 header lines",
    "smuggle.test": "a Content-Length shorter than the body: the bytes past it are a forged second answer "
    "on the keep-alive connection",
    "slowrobots.test": "robots.txt answers only after 3 s (past a crawler's read timeout)",
    "binrobots.test": "robots.txt is 8 KiB of random bytes (application/octet-stream)",
    "dirty.test": "invalid UTF-8 and NUL bytes in a link's URL, a header, the title, the meta description, "
    "anchor text and the text, under a charset=utf-8 header",
    "script.test": "pages a script builds: a <noscript> shell whose links and text come from /api/page "
    "(JSON, fetched by /app.js); robots.txt disallows /track/, which the script also calls; "
    "/hostile/loop.html never stops running, /hostile/oom.html eats memory (linked from nowhere)",
}

#: The fault hosts ``KIND.fault.test``: what each does once its first ``TestWeb.fault_after``
#: page requests (robots.txt, a 404, not counted) have been answered well.
FAULT_KINDS: dict[str, str] = {
    "500": "answers 500",
    "502": "answers 502",
    "504": "answers 504",
    "503": "answers 503 without Retry-After",
    "503-retry": "answers 503 with Retry-After: 1",
    "429": "answers 429 without Retry-After",
    "429-retry": "answers 429 with Retry-After: 1",
    "slow": "answers after TestWeb.slow_seconds (it slows down mid-crawl)",
    "hang": "never answers (the client's timeout ends each request)",
    "reset": "resets the connection without answering (TCP RST); its healthy answers say Connection: "
    "close, so that every request has a connection of its own",
    "flaky": "answers 500 to every other request (its errors come and go)",
    "blip": "answers 500 to TestWeb.fault_blip requests, then is healthy again",
}

_ENCODINGS: dict[str, tuple[str, ...]] = {
    "en": ("utf-8", "windows-1252"),
    "de": ("iso-8859-1", "utf-8"),
    "fr": ("utf-8", "windows-1252"),
    "ru": ("windows-1251", "koi8-r"),
    "ja": ("shift_jis", "euc-jp"),
    "es": ("utf-8", "iso-8859-1"),
    "zh": ("gb18030", "utf-8"),
    "el": ("iso-8859-7", "utf-8"),
    "ar": ("windows-1256", "utf-8"),
}

#: The subjects of a topical test web (``TestWeb(topics=N)`` uses the first N): each a list of
#: words no other subject uses.
TOPICS: dict[str, tuple[str, ...]] = {
    "astronomy": ("telescope", "galaxy", "nebula", "planet", "orbit", "comet", "asteroid", "stars",
                  "supernova", "astronomer", "eclipse", "meteor", "cosmos", "spectrum", "observatory",
                  "jupiter", "saturn", "lunar", "solar", "gravity", "redshift", "quasar", "constellation",
                  "exoplanet", "satellite", "celestial", "parallax", "pulsar", "interstellar", "equinox"),
    "cooking": ("recipe", "oven", "flour", "butter", "simmer", "garlic", "onion", "sauce", "bake",
                "skillet", "pastry", "dough", "saucepan", "whisk", "roast", "braise", "marinade",
                "seasoning", "pepper", "broth", "caramel", "vinegar", "ginger", "oregano", "stew",
                "chopped", "knead", "yeast", "casserole", "dessert"),
    "football": ("goalkeeper", "striker", "midfield", "penalty", "referee", "offside", "league",
                 "stadium", "tackle", "header", "defender", "corner", "kickoff", "halftime", "dribble",
                 "fixture", "transfer", "captain", "winger", "scored", "championship", "substitute",
                 "crossbar", "freekick", "tournament", "supporters", "coach", "relegation", "derby",
                 "equaliser"),
    "gardening": ("compost", "seedling", "pruning", "mulch", "perennial", "greenhouse", "soil",
                  "fertiliser", "tulip", "hedge", "weeding", "orchard", "shrub", "bulbs", "trowel",
                  "watering", "blossom", "vegetable", "herb", "rosebush", "allotment", "lawn", "trellis",
                  "germinate", "harvest", "sapling", "planter", "irrigation", "aphids", "foliage"),
    "finance": ("dividend", "portfolio", "equity", "bond", "interest", "inflation", "mortgage",
                "investor", "broker", "stocks", "shares", "currency", "budget", "pension", "liquidity",
                "hedge-fund", "valuation", "earnings", "treasury", "yield", "credit", "debt", "banking",
                "exchange", "revenue", "audit", "capital", "assets", "taxation", "recession"),
    "medicine": ("patient", "diagnosis", "surgery", "vaccine", "clinic", "symptom", "therapy",
                 "antibiotic", "physician", "nurse", "dosage", "infection", "cardiology", "fracture",
                 "allergy", "prescription", "hospital", "immune", "virus", "chronic", "anaesthesia",
                 "pharmacy", "oncology", "paediatric", "epidemic", "stethoscope", "ward", "recovery",
                 "pathology", "transplant"),
    "music": ("melody", "rhythm", "orchestra", "violin", "chorus", "guitar", "symphony", "concert",
              "tempo", "harmony", "piano", "composer", "lyrics", "album", "drummer", "soprano",
              "saxophone", "octave", "conductor", "rehearsal", "ballad", "jazz", "quartet", "cello",
              "trumpet", "chord", "sonata", "choir", "encore", "acoustic"),
    "computing": ("software", "compiler", "database", "algorithm", "processor", "keyboard",
                  "network", "server", "encryption", "kernel", "programmer", "bandwidth", "router",
                  "debugging", "python", "memory", "cache", "firmware", "browser", "laptop", "pixel",
                  "malware", "backup", "terminal", "bytes", "cloud", "cluster", "query", "protocol",
                  "source-code"),
}  # fmt: skip
TOPIC_NAMES = tuple(TOPICS)
_TITLE_WORDS = ("Notes on", "A guide to", "Why", "News about", "Understanding", "Questions about",
                "The truth about", "Beginners and", "Ten facts on", "Our view of")  # fmt: skip
_FILLER_WORDS = (
    "the a an and or but of to in on at by for with from about after before between during over "
    "under again many some every other most more less very much often always never still also just "
    "people time year day week world life place thing part way work home family friend city town "
    "country story group number point matter reason idea question answer example result change "
    "is was are were be been have has had do does did can could will would should may might must "
    "make take give find think know see look want come go use keep start show hear play move live "
    "believe hold bring happen write sit stand lose pay meet include continue learn lead understand "
    "good new first last long great little own old right big high different small large next early "
    "young important few public bad same able"
)
_FILLER = tuple(_FILLER_WORDS.split())

_GZIP_BOMB_SIZE = 16 << 20
_EPOCH = 1709294400.0  # 2024-03-01T12:00:00Z: server time 0, for Last-Modified
_BIG_ROBOTS_SIZE = 10 << 20
_CODING_BOMB_SIZE = 64 << 20


@dataclass(slots=True)
class Reply:
    """One answer: status, headers, body, and how to deliver it.

    ``mode``: ``normal``; ``garbage`` (non-HTTP bytes, then close); ``drip`` (headers, then one
    body byte every ``drip_interval`` s); ``stream`` (a chunked body that never ends); ``short``
    (``Content-Length`` says more than is sent, then close); ``hang`` (nothing, until the client
    leaves); ``reset`` (the connection reset at once). The server logs the last two as status 0.
    """

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    delay: float = 0.0
    mode: str = "normal"
    wire: bytes | None = None  # the whole keep-alive answer as sent, kept by the server for reuse


def _source(i: int) -> int:
    """The page whose text page ``i`` shows: ``i - 2`` for the exact duplicates (``i ≡ 9 mod 10``),
    ``i - 1`` for the near ones (``i ≡ 8``), else ``i``."""
    return i - 2 if i % 10 == 9 else i - 1 if i % 10 == 8 else i


def _w3c(when: float) -> str:
    """A W3C datetime to the second, as sitemaps and Atom write them."""
    return datetime.fromtimestamp(int(when), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _date(now: float) -> tuple[str, str]:
    """The ``Date`` header at server time ``now`` (what a hint's dates are read against)."""
    return ("Date", formatdate(_EPOCH + now, usegmt=True))


def _h(text: str) -> str:
    return escape(text, quote=False)


def _a(text: str) -> str:
    return escape(text, quote=True)


@cache
def _gzip_bomb() -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    out = [packer.compress(chunk) for _ in range(_GZIP_BOMB_SIZE >> 20)]
    out.append(packer.flush())
    return b"".join(out)


@cache
def _coding_bomb(codings: str) -> bytes:
    """64 MiB of zeros under ``codings`` (a Content-Encoding value, applied left to right); ``b""``
    when a coding's module (brotli, zstandard: optional extras) is missing."""
    data = bytes(_CODING_BOMB_SIZE)
    for coding in (c.strip() for c in codings.split(",")):
        try:
            if coding == "gzip":
                data = gzip.compress(data, 9, mtime=0)
            elif coding == "br":
                import brotli  # type: ignore[import-untyped]  # noqa: PLC0415 - optional extra

                data = brotli.compress(data, quality=5)
            elif coding == "zstd":
                import zstandard  # noqa: PLC0415 - optional extra

                data = zstandard.ZstdCompressor(level=3).compress(data)
        except ImportError:
            return b""
    return data


@cache
def _big_robots() -> bytes:
    lines = [b"User-agent: *\n"]
    size = 14
    i = 0
    while size < _BIG_ROBOTS_SIZE:
        line = f"Disallow: /private-{i:07d}/\n".encode()
        lines.append(line)
        size += len(line)
        i += 1
    lines.append(b"Disallow: /p/3.html\n")  # past the parse cap: must be ignored
    return b"".join(lines)


_SITEMAP_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
_HINT_BOMB_SIZE = 64 << 20  # past the sitemap protocol's 50 MB


@cache
def _hint_bomb(prefix: bytes) -> bytes:
    """``prefix`` and 64 MiB of spaces, gzipped to ~64 KiB: a sitemap or feed bomb."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [packer.compress(prefix)]
    chunk = b" " * (1 << 20)
    out += [packer.compress(chunk) for _ in range(_HINT_BOMB_SIZE >> 20)]
    out.append(packer.flush())
    return b"".join(out)


#: redirects.test/scheme/NAME: where each redirects (to schemes a crawler must not follow, and https)
_SCHEME_REDIRECTS = {
    "https": "https://redirects.test/final",
    "ftp": "ftp://redirects.test/pub/file.txt",
    "file": "file:///etc/passwd",
    "data": "data:text/html,<a href='http://redirects.test/final'>x</a>",
    "javascript": "javascript:alert(1)",
    "mailto": "mailto:root@redirects.test",
}

#: dirty.test/: invalid UTF-8 (a lone continuation byte, an overlong form, a surrogate) and NUL
#: bytes in the title, the meta description, link URLs, anchor text and text, sent as UTF-8
DIRTY_PAGE = (
    b"<!DOCTYPE html><html><head><title>Dirty \xff\xfe title\x00 here</title>"
    b'<meta name="description" content="desc \x00 with \xc3\x28 bad"></head>'
    b"<body><h1>Dirty\x00 heading</h1><p>Text with a NUL \x00 and bad bytes \xff\xfe\xc0\xaf and a "
    b"surrogate \xed\xa0\x80 in the middle of words enough to keep.</p>"
    b'<p><a href="/p/\xff\x00.html">anchor \x00 text \xfe</a> <a href="/p/%00%ff.html">escaped</a> '
    b'<a href="/p/0.html">fine</a></p></body></html>'
)

#: a DTD that asks for a local file and a URL: an XML parser that resolves external entities leaks
_XXE_DTD = (
    b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">'
    b'<!ENTITY net SYSTEM "http://news.test/limits/leak">]>'
)
#: billion laughs: &lol9; expands to 10^9 "lol"s (the document's root and "]>" follow)
_LAUGHS_DTD = b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' + b"".join(
    f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">'.encode() for i in range(1, 10)
)


def _hostile_sitemap(name: str) -> Reply:
    """sitemaps.test/limits/NAME: sitemaps that break the limits or the rules (listed by
    ``/limits/index.xml``): ``many.xml`` (120 URLs), ``big.xml`` (2,000 URLs, ~130 kB),
    ``bomb.xml.gz`` (64 MiB of spaces after ``<urlset>``, gzipped), ``dates.xml`` (lastmod in each
    W3C form, and bogus ones; a priority that is no number), ``broken.xml`` (cut short),
    ``entities.xml`` (a billion laughs)."""
    xml = "application/xml"
    urls = "".join
    if name == "index.xml":
        children = ("many.xml", "big.xml", "bomb.xml.gz", "dates.xml", "broken.xml", "entities.xml")
        body = (
            f'<?xml version="1.0"?><sitemapindex {_SITEMAP_NS}>'
            + urls(f"<sitemap><loc>http://sitemaps.test/limits/{c}</loc></sitemap>" for c in children)
            + "</sitemapindex>"
        ).encode()
    elif name in ("many.xml", "big.xml"):
        count = 120 if name == "many.xml" else 2000
        body = (
            f'<?xml version="1.0"?><urlset {_SITEMAP_NS}>'
            + urls(f"<url><loc>http://sitemaps.test/{name[:-4]}/{i}.html</loc></url>" for i in range(count))
            + "</urlset>"
        ).encode()
    elif name == "bomb.xml.gz":
        return Reply(
            200, [("Content-Type", "application/x-gzip")], _hint_bomb(f"<urlset {_SITEMAP_NS}>".encode())
        )
    elif name == "dates.xml":
        dates = (
            "2024", "2024-03", "2024-03-05", "2024-03-05T10:20+01:00", "2024-03-05T10:20:30Z",
            "2024-03-05T10:20:30.45-05:00", "yesterday", "2024-13-01", "2024-02-30T10:00Z", "1970-01-01",
        )  # fmt: skip
        body = (
            f'<?xml version="1.0"?><urlset {_SITEMAP_NS}>'
            + urls(
                f"<url><loc>http://sitemaps.test/dated/{i}.html</loc><lastmod>{d}</lastmod></url>"
                for i, d in enumerate(dates)
            )
            + "<url><loc>http://sitemaps.test/dated/x.html</loc><priority>high</priority></url></urlset>"
        ).encode()
    elif name == "broken.xml":
        body = (
            f"<urlset {_SITEMAP_NS}><url><loc>http://sitemaps.test/broken/0.html</loc></url>"
            "<url><loc>http://sitemaps.test/broken/1.html</loc></url><url><loc>http://sitemaps.te"
        ).encode()
    elif name == "xxe.xml":  # not in index.xml: a seed
        body = _XXE_DTD + (
            f"<urlset {_SITEMAP_NS}><url><loc>http://sitemaps.test/xxe/&xxe;.html</loc></url>"
            "<url><loc>http://sitemaps.test/xxe/&net;.html</loc></url></urlset>".encode()
        )
    elif name == "entities.xml":
        body = (
            _LAUGHS_DTD + b"]><urlset><url><loc>http://sitemaps.test/laughs/&lol9;.html</loc></url></urlset>"
        )
    else:
        return Reply(404, [("Content-Type", "text/plain")], b"not found\n")
    return Reply(200, [("Content-Type", xml)], body)


def _hostile_feed(name: str) -> Reply:
    """news.test/limits/NAME: feeds that break the limits or the rules: ``many.xml`` (60 items),
    ``big.xml`` (~200 kB), ``bomb.xml`` (64 MiB of spaces after ``<rss>``, gzipped, as
    ``Content-Encoding: gzip``), ``dates.xml`` (RSS 0.91 with pubDates good and bogus),
    ``broken.xml`` (cut short)."""
    rss = [("Content-Type", "application/rss+xml")]

    def items(count: int, pad: int = 0) -> str:
        return "".join(
            f"<item><title>Item {i}{' ' * pad}</title><link>http://news.test/{name[:-4]}/{i}.html</link></item>"
            for i in range(count)
        )

    if name == "many.xml":
        body = f'<rss version="2.0"><channel><title>Many</title>{items(60)}</channel></rss>'.encode()
    elif name == "big.xml":
        body = f'<rss version="2.0"><channel><title>Big</title>{items(200, 900)}</channel></rss>'.encode()
    elif name == "bomb.xml":
        return Reply(200, [*rss, ("Content-Encoding", "gzip")], _hint_bomb(b'<rss version="2.0"><channel>'))
    elif name == "dates.xml":
        dates = (
            "Tue, 05 Mar 2024 10:20:30 GMT",
            "5 Mar 2024 10:20 +0100",
            "2024-03-05T10:20:30Z",
            "soon",
            "Mon, 99 Foo",
        )
        body = (
            '<?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" '
            '"http://my.netscape.com/publish/formats/rss-0.91.dtd">'
            '<rss version="0.91"><channel><title>Dated</title>'
            + "".join(
                f"<item><title>D{i}</title><link>http://news.test/dated/{i}.html</link><pubDate>{d}</pubDate></item>"
                for i, d in enumerate(dates)
            )
            + "</channel></rss>"
        ).encode()
    elif name in ("self.xml", "loop.xml"):  # feeds whose entries are themselves and each other
        links = ("self.xml", "loop.xml")
        body = (
            f'<rss version="2.0"><channel><title>{name}</title>'
            + "".join(
                f"<item><title>{n}</title><link>http://news.test/limits/{n}</link></item>" for n in links
            )
            + f"<item><title>story</title><link>http://news.test/recursion/{name[:-4]}.html</link></item>"
            "</channel></rss>"
        ).encode()
    elif name == "entities.xml":
        body = (
            _LAUGHS_DTD + b']><rss version="2.0"><channel><item><title>&lol9;</title>'
            b"<link>http://news.test/laughs/&lol9;.html</link></item></channel></rss>"
        )
    elif name == "xxe.xml":
        body = _XXE_DTD + (
            b'<rss version="2.0"><channel><item><title>&xxe;</title><link>http://news.test/xxe/&xxe;.html</link>'
            b"</item><item><title>net</title><link>http://news.test/xxe/&net;.html</link></item></channel></rss>"
        )
    elif name == "broken.xml":
        body = (
            b'<rss version="2.0"><channel><item><title>A</title><link>http://news.test/broken/0.html</link></item>'
            b"<item><title>B</title><link>http://news.te"
        )
    else:
        return Reply(404, [("Content-Type", "text/plain")], b"not found\n")
    return Reply(200, rss, body)


def _docs() -> tuple[bytes, bytes]:
    from trawl.demo import _docx, _pdf  # noqa: PLC0415 - the demo's document builders, used lazily

    pdf = _pdf(
        "Annual report of the test web",
        ["The test web grew to many hosts this year.", "Every host answered politely."],
        author="trawl testweb",
        created="D:20240301120000Z",
    )
    docx = _docx(
        "Notes on crawling",
        ["Crawlers must be polite.", "They must obey robots.txt and survive hostile servers."],
        author="trawl testweb",
        created="2024-03-01T12:00:00Z",
    )
    return pdf, docx


#: news.test/push/NAME.xml: feeds that name a WebSub hub, and where (see :meth:`TestWeb._push_topic`)
PUSH_FEEDS = {
    "atom": "http://hub.test/",  # Atom, <link rel="hub"> and rel="self"
    "rss": "http://hub.test/",  # RSS 2.0, <atom:link rel="hub"> and rel="self", ttl a day
    "linked": "http://hub.test/",  # RSS 2.0, the hub and self only in an HTTP Link header
    "hostile": "http://hub.test/hostile",  # the hub that misbehaves
    "refused": "http://hub.test/refuse",  # the hub that answers 403
}


class TestWeb:
    """A deterministic generated web (see the module docstring)."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        seed: int = 0,
        *,
        hosts: int = 50,
        pages: int = 20,
        special: bool = True,
        cross_links: int = 2,
        change_rates: Sequence[float] = (0.0, 0.001, 0.01, 0.1),
        slow_seconds: float = 0.1,
        start: float = 0.0,
        noisy: bool = False,
        topics: int = 0,
        homophily: float = 0.8,
        validators: str = "honest",
        news_interval: float = 10.0,
        fault_after: int = 4,
        fault_blip: int = 3,
    ) -> None:
        if hosts < 1 or pages < 2:
            raise ValueError(f"a test web needs at least 1 host and 2 pages per host, not {hosts}, {pages}")
        self.seed = seed
        self.n_hosts = hosts
        self.pages = pages
        self.special = special
        self.cross_links = cross_links
        self.change_rates = tuple(change_rates) or (0.0,)
        self.slow_seconds = slow_seconds
        if fault_after < 0 or fault_blip < 0:
            raise ValueError(f"fault_after and fault_blip count requests, not {fault_after}, {fault_blip}")
        self.fault_after = fault_after  # healthy page requests of a fault host (FAULT_KINDS)
        self.fault_blip = fault_blip  # faulty ones of blip.fault.test before it recovers
        self._fault_requests: dict[str, int] = {}  # page requests each fault host has had
        self.start = start  # the time (server clock) at which every page is at version 0
        # every article page says when it was served and shows a rotating ad: bytes that change
        # on every request while the page does not (what a revisit must not take for a change)
        self.noisy = noisy
        # with topics, every ordinary host writes English about one of ``topics`` subjects
        # (TOPICS, host n about topic n mod topics) and a cross-host link leads to a host of its
        # own topic with probability ``homophily`` (topical pages link to topical pages), the
        # ground truth a focused crawl is judged against (:meth:`topic`)
        if not 0 <= topics <= len(TOPICS):
            raise ValueError(f"a test web has 0 to {len(TOPICS)} topics, not {topics}")
        if not 0.0 <= homophily <= 1.0:
            raise ValueError(f"homophily is a probability, not {homophily}")
        self.topics = topics
        self.homophily = homophily
        if validators not in ("honest", "no-304", "frozen"):
            raise ValueError(f"validators are honest, no-304 or frozen, not {validators!r}")
        self.validators = validators
        if news_interval <= 0:
            raise ValueError(f"news_interval is seconds between two stories, not {news_interval}")
        self.news_interval = news_interval  # news.test: a new story this often (server time)
        self._served = 0
        self._events: dict[tuple[str, int], list[float]] = {}
        # rendered article pages by (host index, page, query, version): a crawl benchmark must
        # measure the crawler, not the rendering of the server (bounded by ``cache_bytes``)
        self._pages: dict[tuple[int, int, str, int], tuple[str, Reply]] = {}
        self._pages_bytes = 0
        self.cache_bytes = 256 << 20
        self._last_seen: dict[str, float] = {}
        self._asked: set[tuple[str, str]] = set()
        # push feeds: news.test/push/NAME.xml lists this many entries; hub.test publishes more
        self._published: dict[str, int] = dict.fromkeys(PUSH_FEEDS, 2)
        self.hub = Hub(self._push_topic, self._push_publish)

    # -- the web's shape ---------------------------------------------------------------------------

    def warm(self) -> None:
        """Build the large fixed bodies (gzip bomb, 10 MB robots.txt) now, not on the first request."""
        if self.special:
            _gzip_bomb()
            _big_robots()
            for coding in ("br", "zstd", "gzip, gzip", "gzip, br"):
                _coding_bomb(coding)

    def prerender(self, now: float = 0.0) -> int:
        """Render every article page of the ordinary hosts (and its print version) into the cache
        now, so that serving them later costs a lookup; how many were rendered."""
        n = 0
        for h in range(self.n_hosts):
            host = f"h{h}.test"
            for i in range(self.pages):
                for target in (f"/p/{i}.html", f"/p/{i}.html?print=1"):
                    self.respond(host, target, {}, now)
                    n += 1
                    if self._pages_bytes >= self.cache_bytes:
                        return n
        return n

    def host_names(self) -> list[str]:
        names = [f"h{n}.test" for n in range(self.n_hosts)]
        if self.special:
            names += [h for h in SPECIAL_HOSTS if h not in ("refuse.test", "nxdomain.test")]
        return names

    def exists(self, host: str) -> bool:
        host = host.split(":", 1)[0].lower()
        if host in SPECIAL_HOSTS:
            return self.special and host != "nxdomain.test"
        if host.endswith(".fault.test"):
            return self.special and host[: -len(".fault.test")] in FAULT_KINDS
        return self._index(host) is not None

    def _index(self, host: str) -> int | None:
        if host.startswith("h") and host.endswith(".test") and host[1:-5].isdigit():
            n = int(host[1:-5])
            return n if n < self.n_hosts else None
        return None

    def resolve_rules(self, port: int, address: str = "127.0.0.1") -> list[str]:
        """``--resolve`` rules for ``trawl crawl``: how a crawler finds this web's hosts."""
        rules = []
        if self.special:
            rules += ["nxdomain.test=fail", f"refuse.test={address}:1"]
        return [*rules, f"*.test={address}:{port}"]

    def seeds(self) -> list[str]:
        return ["http://h0.test/"]

    @lru_cache(maxsize=4096)  # noqa: B019 - the web lives as long as its cache should
    def _host_profile(self, n: int) -> tuple[Site, str, str]:
        if self.topics:  # topical hosts: English, UTF-8, the English news site's boilerplate
            return SITES[0], "utf-8", ("header", "meta")[n % 2]
        site = SITES[n % len(SITES)]
        encodings = _ENCODINGS.get(site.lang, ("utf-8",))
        encoding = encodings[(n // len(SITES)) % len(encodings)]
        declared = ("header", "meta", "none")[n % 3]
        if declared == "none" and encoding != "utf-8":
            declared = "meta"
        return site, encoding, declared

    def title(self, host: str, page: int) -> str:
        n = self._index(host)
        if n is None:
            return host
        if self.topics:
            return f"{self._topic_article(n, page)[0]} ({page})"
        site = self._host_profile(n)[0]
        article = site.articles[page % len(site.articles)]
        return f"{article.title} ({page})"

    def topic(self, host: str) -> str | None:
        """The subject an ordinary host writes about (``None`` without topics, or another host)."""
        n = self._index(host)
        if n is None or not self.topics:
            return None
        return TOPIC_NAMES[n % self.topics]

    @lru_cache(maxsize=65536)  # noqa: B019 - the web lives as long as its cache should
    def _topic_article(self, n: int, page: int) -> tuple[str, tuple[str, ...]]:
        """A topical page's title and paragraphs: everyday English with a fifth of its words
        from the host's subject, a few from another one (no page is pure)."""
        topic = TOPICS[TOPIC_NAMES[n % self.topics]]
        rng = self._rng("topic", n, page)
        other = TOPICS[TOPIC_NAMES[rng.randrange(len(TOPIC_NAMES))]]
        title = " ".join(w.capitalize() for w in (rng.choice(_TITLE_WORDS), *rng.sample(topic, 2)))
        paragraphs = []
        for _ in range(rng.randint(3, 5)):
            sentences = []
            for _ in range(rng.randint(3, 5)):
                words = []
                for _ in range(rng.randint(8, 15)):
                    r = rng.random()
                    words.append(
                        rng.choice(topic)
                        if r < 0.2
                        else rng.choice(other)
                        if r < 0.23
                        else rng.choice(_FILLER)
                    )
                sentences.append(" ".join(words).capitalize() + ".")
            paragraphs.append(" ".join(sentences))
        return title, tuple(paragraphs)

    def language(self, host: str) -> str | None:
        """The language of an ordinary host's pages (``None`` for other hosts)."""
        n = self._index(host)
        if n is not None and self.topics:
            return "en"
        return None if n is None else self._host_profile(n)[0].lang

    def encoding(self, host: str) -> str | None:
        """The encoding an ordinary host's pages are served in."""
        n = self._index(host)
        return None if n is None else self._host_profile(n)[1]

    def change_rate(self, host: str, page: int) -> float:
        """The true change rate (events per second) of page ``page`` of ``host``."""
        return self.change_rates[page % len(self.change_rates)]

    def version(self, host: str, page: int, now: float) -> tuple[int, float]:
        """How many times the page changed by ``now``, and when it last did (server clock)."""
        rate = self.change_rate(host, page)
        elapsed = now - self.start
        if rate <= 0 or elapsed <= 0:
            return 0, self.start
        key = (host, page)
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = []
        if not events or events[-1] < elapsed:
            rng = random.Random(f"{self.seed}:{host}:{page}:{len(events)}")
            t = events[-1] if events else 0.0
            while t < elapsed:
                t += rng.expovariate(rate)
                events.append(t)
        count = bisect.bisect_right(events, elapsed)
        last = events[count - 1] if count else 0.0
        return count, self.start + last

    def _rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

    # -- answering ---------------------------------------------------------------------------------

    def respond(
        self,
        host: str,
        target: str,
        headers: dict[str, str],
        now: float,
        method: str = "GET",
        *,
        body: bytes = b"",
    ) -> Reply:
        """The reply of ``host`` to ``GET target`` (or ``method``, with ``body``: hub.test's
        POSTs) at server time ``now``."""
        host = host.split(":", 1)[0].lower()
        if "://" in target:  # absolute-form (proxy requests)
            rest = target.split("://", 1)[1]
            slash = rest.find("/")
            host = (rest if slash < 0 else rest[:slash]).split(":", 1)[0].lower()
            target = "/" if slash < 0 else rest[slash:]
        path, _, query = target.partition("?")
        n = self._index(host)
        if n is not None:
            return self._ordinary(host, n, path, query, headers=headers, now=now)
        if self.special and host == "hub.test":
            status, text = self.hub.respond(method, path, body)
            return Reply(status, [("Content-Type", "text/plain")], text)
        if self.special and host in SPECIAL_HOSTS:
            return self._special(host, path, query, headers, now)
        if self.special and host.endswith(".fault.test") and host[: -len(".fault.test")] in FAULT_KINDS:
            return self._faulty(host, path)
        return Reply(421, [("Content-Type", "text/plain")], b"no such host here\n")

    def _html(self, body: str, encoding: str = "utf-8", declared: str = "header") -> Reply:
        data = body.encode(encoding, "xmlcharrefreplace")
        ctype = f"text/html; charset={encoding}" if declared == "header" else "text/html"
        return Reply(200, [("Content-Type", ctype)], data)

    def _not_found(self) -> Reply:
        return Reply(
            404,
            [("Content-Type", "text/html; charset=utf-8")],
            b"<html><body><h1>Not found</h1></body></html>",
        )

    def _robots(self, n: int, host: str) -> Reply:
        variant = n % 5
        sitemap = f"Sitemap: http://{host}/sitemap.xml\n"
        if variant == 0:
            return self._not_found()
        if variant == 1:
            text = "User-agent: *\nAllow: /\n" + sitemap
        elif variant == 2:
            text = "User-agent: *\nDisallow: /private/\nAllow: /private/open.html\n" + sitemap
        elif variant == 3:
            text = "# wildcards\nUser-agent: *\nDisallow: /*?print=\nDisallow: /private/*.html$\n"
        else:
            text = (
                "User-agent: otherbot\nDisallow: /\n\nUser-agent: trawl\nDisallow: /private/\n\n"
                "User-agent: *\nDisallow: /\n" + sitemap
            )
        return Reply(200, [("Content-Type", "text/plain")], text.encode())

    def _page_links(self, host: str, n: int, i: int) -> list[tuple[str, str]]:
        pages = self.pages
        links = []
        for k in range(4):
            j = (i * 7 + k * 13 + 1) % pages
            links.append((f"/p/{j}.html", self.title(host, j)))
        for k in range(self.cross_links):
            m = (n * 31 + i * 17 + k * 7 + 1) % self.n_hosts
            if self.topics and self.n_hosts > self.topics:
                rng = self._rng("link", n, i, k)
                if rng.random() < self.homophily:  # a host of the same topic
                    m = rng.randrange(self.n_hosts // self.topics) * self.topics + n % self.topics
                    m = m if m < self.n_hosts else n
            j = (i * 3 + k * 5 + n) % pages
            other = f"h{m}.test"
            links.append((f"http://{other}/p/{j}.html", self.title(other, j)))
        if i % 5 == 0:
            links.append((f"/private/{i}.html", "Members only"))
        if i % 5 == 1:
            links.append(("/private/open.html", "Open to all"))
        links.append((f"/p/{i}.html?print=1", "Print this page"))
        return links

    def _page_html(
        self, host: str, n: int, i: int, now: float, *, variant: str = ""
    ) -> tuple[str, int, float]:
        site, encoding, declared = self._host_profile(n)
        version, changed = self.version(host, i, now)
        article = site.articles[i % len(site.articles)]
        if self.topics:
            title, topical = self._topic_article(n, i)
            article = dataclasses.replace(
                article, title=title, description=topical[0][:150], paragraphs=topical
            )
        paragraphs = list(article.paragraphs)
        if version and paragraphs:
            shift = version % len(paragraphs)
            paragraphs = paragraphs[shift:] + paragraphs[:shift]
        body_text = "\n".join(f"<p>{_h(p)}</p>" for p in paragraphs)
        links = self._page_links(host, n, i)
        link_html = "\n".join(f'<li><a href="{_a(u)}">{_h(t)}</a></li>' for u, t in links)
        nav = "\n".join(f'<li><a href="/#{sid}">{_h(label)}</a></li>' for sid, label in site.sections)
        meta = f'<meta charset="{encoding}">\n' if declared == "meta" else ""
        stamp = f"Revision {version}{variant}"
        page = (
            f'<!DOCTYPE html>\n<html lang="{site.lang}">\n<head>\n{meta}'
            f"<title>{_h(self.title(host, i))}</title>\n"
            f'<meta name="description" content="{_a(article.description)}">\n'
            f'<link rel="alternate" type="application/rss+xml" href="/feed.xml">\n</head>\n<body>\n'
            f'<header><a class="logo" href="/">{_h(site.name)}</a>\n<p>{_h(site.tagline)}</p>\n'
            f"<nav><ul>\n{nav}\n</ul></nav></header>\n"
            f"<main><article>\n<h1>{_h(article.title)}</h1>\n{body_text}\n"
            f'<p class="rev">{stamp}</p>\n</article>\n'
            f"<aside><h2>{_h(site.related_label)}</h2><ul>\n{link_html}\n</ul></aside></main>\n"
            f"<footer><p>{_h(site.footer)}</p></footer>\n</body>\n</html>\n"
        )
        return page, version, changed

    def _ordinary(
        self, host: str, n: int, path: str, query: str, *, headers: dict[str, str], now: float
    ) -> Reply:
        site, encoding, declared = self._host_profile(n)
        if path == "/robots.txt":
            return self._robots(n, host)
        if path == "/":
            items = "\n".join(
                f'<li><a href="/p/{i}.html">{_h(self.title(host, i))}</a></li>'
                for i in range(min(self.pages, 10))
            )
            extra = ""
            if n == 0 and self.special:
                extra = "\n".join(f'<li><a href="http://{h}/">{_h(h)}</a></li>' for h in SPECIAL_HOSTS)
            meta = f'<meta charset="{encoding}">\n' if declared == "meta" else ""
            page = (
                f'<!DOCTYPE html>\n<html lang="{site.lang}"><head>{meta}'
                f"<title>{_h(site.name)}</title></head>\n"
                f"<body><h1>{_h(site.name)}</h1><p>{_h(site.intro)}</p>\n<ul>\n{items}\n{extra}\n</ul>\n"
                f'<p><a href="http://h{(n + 1) % self.n_hosts}.test/">Next site</a></p></body></html>\n'
            )
            return self._html(page, encoding, declared)
        if path in ("/sitemap.xml", "/sitemap-lastmod.xml"):
            # each page's <lastmod>: when its text last changed (server clock, as Last-Modified);
            # /sitemap-lastmod.xml says only that (no changefreq, no priority)
            full = path == "/sitemap.xml"
            urls = "\n".join(
                f"<url><loc>http://{host}/p/{i}.html</loc>"
                f"<lastmod>{_w3c(_EPOCH + self.version(host, _source(i), now)[1])}</lastmod>"
                + (
                    f"<changefreq>daily</changefreq><priority>{0.9 if i < 3 else 0.5}</priority>"
                    if full
                    else ""
                )
                + "</url>"
                for i in reversed(range(self.pages))  # listed last, ranked first: priority must order
            )
            xml = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}\n</urlset>\n'
            return Reply(200, [("Content-Type", "application/xml"), _date(now)], xml.encode())
        if path == "/feed.xml":
            return self._rss(
                host, [(f"http://{host}/p/{i}.html", self.title(host, i)) for i in range(min(5, self.pages))]
            )
        if path.startswith("/private/"):
            return self._html(
                "<html><head><title>Private</title></head><body>"
                f"<p>Members of {_h(host)} only.</p></body></html>"
            )
        if path.startswith("/p/") and path.endswith(".html") and path[3:-5].isdigit():
            i = int(path[3:-5])
            if i >= self.pages:
                return self._not_found()
            source, variant = _source(i), ""
            if i % 10 == 8:
                variant = " (mirror)"  # near duplicate: one line differs
            if query == "print=1":
                variant += " (print)"
            version, changed = self.version(host, source, now)
            key = (n, i, query, version)
            cached = self._pages.get(key)
            if cached is None:
                page, version, changed = self._page_html(host, n, source, now, variant=variant)
                frozen = self.validators == "frozen"  # validators that never change: they lie
                tagged = 0 if frozen else version
                tag = hashlib.blake2b(f"{host}{i}{tagged}{variant}".encode(), digest_size=8).hexdigest()
                etag = f'"{tag}"'
                last_modified = formatdate(_EPOCH + (self.start if frozen else changed), usegmt=True)
                reply = self._html(page, encoding, declared)
                reply.headers += [("ETag", etag), ("Last-Modified", last_modified)]
                cached = (etag, reply)
                self._remember(key, cached)
            etag, reply = cached
            if headers.get("if-none-match") == etag and self.validators == "honest":
                return Reply(304, reply.headers[-2:])
            if self.noisy and b"</footer>" in reply.body:
                self._served += 1
                noise = (
                    f'<p class="served">Served at {now:.6f}</p><div class="ad">Offer no. {self._served}</div>'
                )
                return dataclasses.replace(
                    reply, body=reply.body.replace(b"</footer>", noise.encode() + b"</footer>", 1)
                )
            return reply
        return self._not_found()

    def _remember(self, key: tuple[int, int, str, int], value: tuple[str, Reply]) -> None:
        size = len(value[1].body) * 2 + 200  # the body, and the wire copy the server keeps
        while self._pages and self._pages_bytes + size > self.cache_bytes:
            _, (_, old) = self._pages.popitem()  # newest first out: the prerendered pages stay
            self._pages_bytes -= len(old.body) * 2 + 200
        self._pages[key] = value
        self._pages_bytes += size

    def _rss(
        self, host: str, items: list[tuple[str, str]], ttl: int = 5, dates: Sequence[float] = ()
    ) -> Reply:
        stamps = [f"<pubDate>{formatdate(d, usegmt=True)}</pubDate>" for d in dates] or [""] * len(items)
        entries = "\n".join(
            f"<item><title>{_h(t)}</title><link>{_h(u)}</link>{stamp}</item>"
            for (u, t), stamp in zip(items, stamps, strict=True)
        )
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
            f"<title>{_h(host)}</title><link>http://{host}/</link><ttl>{ttl}</ttl>\n{entries}\n</channel></rss>\n"
        )
        return Reply(200, [("Content-Type", "application/rss+xml")], xml.encode())

    def _push_topic(self, topic: str) -> tuple[bytes, str] | None:
        """A push feed (news.test/push/NAME.xml) as it is now: (body, media type), or None."""
        prefix = "http://news.test/push/"
        name = topic[len(prefix) : -4] if topic.startswith(prefix) and topic.endswith(".xml") else ""
        if name not in PUSH_FEEDS:
            return None
        hub = PUSH_FEEDS[name]
        count = self._published[name]
        # newest first, dated an hour before server time 0 and a second apart (never "new" to a capture)
        stories = [(f"http://news.test/push/story/{name}-{k}.html", f"{name} {k}", _EPOCH - 3600 + k)
                   for k in range(count - 1, -1, -1)]  # fmt: skip
        if name in ("rss", "linked"):
            links = "" if name == "linked" else (
                f'<atom:link rel="hub" href="{hub}"/><atom:link rel="self" href="{topic}"/>'
            )  # fmt: skip
            items = "".join(
                f"<item><title>{t}</title><link>{u}</link><pubDate>{formatdate(d, usegmt=True)}</pubDate>"
                "</item>"
                for u, t, d in stories
            )
            xml = (
                '<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>'
                f"<title>Pushed {name}</title><link>http://news.test/</link>{links}<ttl>1440</ttl>{items}"
                "</channel></rss>"
            )
            return xml.encode(), "application/rss+xml"
        entries = "".join(
            f'<entry><title>{t}</title><link href="{u}"/><updated>{_w3c(d)}</updated></entry>'
            for u, t, d in stories
        )
        xml = (
            f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Pushed {name}</title>'
            f'<link rel="hub" href="{hub}"/><link rel="self" href="{topic}"/>{entries}</feed>'
        )
        return xml.encode(), "application/atom+xml"

    def _push_publish(self, topic: str) -> str:
        """One more entry in push feed ``topic``: its URL."""
        name = topic.rsplit("/", 1)[-1][:-4]
        k = self._published[name]
        self._published[name] = k + 1
        return f"http://news.test/push/story/{name}-{k}.html"

    def _simple_page(self, title: str, links: list[tuple[str, str]], text: str = "") -> Reply:
        items = "\n".join(f'<li><a href="{_a(u)}">{_h(t)}</a></li>' for u, t in links)
        return self._html(
            f"<!DOCTYPE html><html><head><title>{_h(title)}</title></head><body><h1>{_h(title)}</h1>"
            f"<p>{_h(text)}</p><ul>\n{items}\n</ul></body></html>\n"
        )

    def _special(self, host: str, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        name = host[:-5]
        if path == "/robots.txt":
            robots = self._special_robots(name)
            if robots is not None:
                return robots
            if name not in ("slow", "busy"):
                return self._not_found()
        handler = getattr(self, f"_host_{name}", None)
        if handler is None:
            return self._not_found()
        reply: Reply = handler(path, query, headers, now)
        return reply

    def _special_robots(self, name: str) -> Reply | None:
        text = {
            "bigrobots": None,
            "badrobots": "\x00\x01garbage line\nDisallow: /orphan/\nUser-agent *\nUser-agent: *\n"
            "Disallow: /p/1.html\nCrawl-delay: soon\nNonsense: yes\n\xff\xfe",
            "delay": "User-agent: *\nCrawl-delay: 0.2\n",
            "sitemaps": "User-agent: *\nAllow: /\nSitemap: http://sitemaps.test/index.xml\n",
            "script": "User-agent: *\nDisallow: /track/\n",
        }
        if name == "bigrobots":
            return Reply(200, [("Content-Type", "text/plain")], _big_robots())
        if name == "robots5xx":
            return Reply(503, [("Content-Type", "text/plain")], b"try later\n")
        if name == "robotsredirect":
            return Reply(301, [("Location", "/policy.txt")])
        if name == "slowrobots":
            return Reply(200, [("Content-Type", "text/plain")], b"User-agent: *\nAllow: /\n", delay=3.0)
        if name == "binrobots":
            junk = self._rng("binrobots").randbytes(8192)
            return Reply(200, [("Content-Type", "application/octet-stream")], junk)
        value = text.get(name)
        if value is None:
            return None
        return Reply(200, [("Content-Type", "text/plain")], value.encode("utf-8", "surrogateescape"))

    def _few_pages(self, host: str, count: int = 3) -> list[tuple[str, str]]:
        return [(f"http://{host}/p/{i}.html", f"{host} page {i}") for i in range(count)]

    def _generic(self, host: str, path: str) -> Reply:
        if path == "/" or (path.startswith("/p/") and path.endswith(".html")):
            return self._simple_page(f"{host} {path}", self._few_pages(host), "A page of a special host.")
        return self._not_found()

    def _host_slow(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        reply = self._generic("slow.test", path)
        reply.delay = self.slow_seconds
        return reply

    #: what private.test lets in (see SPECIAL_HOSTS)
    PRIVATE_USER = ("alice", "secret")
    PRIVATE_COOKIE = ("session", "letmein")

    def _host_private(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        user, password = self.PRIVATE_USER
        basic = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        cookies = {
            c.split("=", 1)[0].strip(): c.split("=", 1)[-1].strip()
            for c in headers.get("cookie", "").split(";")
        }
        if (
            headers.get("authorization") != basic
            and cookies.get(self.PRIVATE_COOKIE[0]) != self.PRIVATE_COOKIE[1]
        ):
            return Reply(
                401,
                [("Content-Type", "text/html"), ("WWW-Authenticate", 'Basic realm="members"')],
                b"<html><head><title>Members only</title></head><body><p>Please sign in.</p></body></html>",
            )
        if path == "/" or (path.startswith("/m/") and path.endswith(".html") and path[3:-5].isdigit()):
            i = int(path[3:-5]) if path != "/" else -1
            items = "\n".join(
                f'<li><a href="/m/{j}.html">Members&#39; letter {j}</a></li>' for j in range(5) if j != i
            )
            text = f"Members' letter {i}: the club meets on Thursday." if i >= 0 else "Welcome, member."
            return self._html(
                f"<!DOCTYPE html><html><head><title>Members' area</title></head><body><h1>Members' area</h1>"
                f"<p>{_h(text)}</p><ul>\n{items}\n</ul>"
                '<form method="post" action="/search"><input name="q"><button>Search</button></form>'
                "</body></html>\n"
            )
        return self._not_found()

    #: script.test's pages (see SPECIAL_HOSTS): / and /s/0.html .. /s/{SCRIPT_PAGES - 1}.html
    SCRIPT_PAGES = 8
    _SCRIPT_JS = (
        "(function () {\n"
        "  var here = location.pathname;\n"
        "  fetch('/api/page?path=' + encodeURIComponent(here)).then(function (r) { return r.json(); })\n"
        "    .then(function (d) {\n"
        "      document.title = d.title;\n"
        "      var main = document.getElementById('main');\n"
        "      main.innerHTML = '<h1></h1><p></p>';\n"
        "      main.querySelector('h1').textContent = d.title;\n"
        "      main.querySelector('p').textContent = d.text;\n"
        "      var nav = document.getElementById('nav');\n"
        "      d.links.forEach(function (l) {\n"
        "        var a = document.createElement('a'); a.href = l[0]; a.textContent = l[1];\n"
        "        nav.appendChild(a); nav.appendChild(document.createTextNode(' '));\n"
        "      });\n"
        "    });\n"
        "  fetch('/track/view?path=' + encodeURIComponent(here)).catch(function () {});\n"
        "  var logo = new Image(); logo.src = '/logo.png';\n"
        "})();\n"
    )

    def script_page_text(self, i: int) -> str:
        """What script.test's page ``i`` (-1: the home page) says once its script has run."""
        if i < 0:
            return "Welcome to the script site: every page here is built by its script."
        return f"Script page {i} tells the story of lighthouse number {i}, lit by its keeper at dusk."

    def _host_script(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        n = self.SCRIPT_PAGES
        if path == "/app.js":
            return Reply(200, [("Content-Type", "application/javascript")], self._SCRIPT_JS.encode())
        if path == "/api/page":
            target = urllib.parse.unquote(dict(urllib.parse.parse_qsl(query)).get("path", "/"))
            i = -1
            if target != "/":
                stem = target[3:-5] if target.startswith("/s/") and target.endswith(".html") else ""
                if not stem.isdigit() or int(stem) >= n:
                    return Reply(404, [("Content-Type", "application/json")], b'{"error": "no such page"}')
                i = int(stem)
            data = {
                "title": "Script site" if i < 0 else f"Script page {i}",
                "text": self.script_page_text(i),
                "links": [["/", "Home"]] + [[f"/s/{j}.html", f"Script page {j}"] for j in range(n) if j != i],
            }
            return Reply(200, [("Content-Type", "application/json")], json.dumps(data).encode())
        if path.startswith("/track/"):
            return Reply(204, [("Content-Type", "text/plain")], b"")
        if path in ("/hostile/loop.html", "/hostile/oom.html"):  # linked from nowhere: seeds
            script = (
                "for (;;) {}"
                if path.endswith("loop.html")
                else ("var heap = []; for (;;) { heap.push(new Array(1 << 20).fill(heap.length)); }")
            )
            return self._html(
                "<!DOCTYPE html><html><head><title>Hostile</title></head><body>"
                f"<noscript>Enable JavaScript.</noscript><script>{script}</script></body></html>\n"
            )
        if path == "/logo.png":
            return Reply(200, [("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
        if path == "/" or (path.startswith("/s/") and path.endswith(".html") and path[3:-5].isdigit()):
            if path != "/" and int(path[3:-5]) >= n:
                return self._not_found()
            return self._html(
                "<!DOCTYPE html><html><head><title>Loading</title></head><body>"
                "<noscript>This site needs JavaScript: please enable it in your browser.</noscript>"
                '<nav id="nav"></nav><main id="main"></main><script src="/app.js"></script>'
                "</body></html>\n"
            )
        return self._not_found()

    def _host_fault(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path != "/":
            return self._not_found()
        text = "; ".join(f"{kind}.fault.test {what}" for kind, what in FAULT_KINDS.items())
        return self._simple_page("Fault hosts", [], f"After {self.fault_after} good answers: {text}.")

    def _faulty(self, host: str, path: str) -> Reply:
        """A fault host's answer (see :data:`FAULT_KINDS`)."""
        kind = host[: -len(".fault.test")]
        healthy = self._generic(host, path)
        if kind == "reset":
            healthy.headers.append(("Connection", "close"))
        if path == "/robots.txt":
            return healthy  # 404: everything allowed
        n = self._fault_requests.get(host, 0)
        self._fault_requests[host] = n + 1
        k = n - self.fault_after  # the how-manieth request of the fault (0: the first)
        if k < 0 or (kind == "flaky" and k % 2) or (kind == "blip" and k >= self.fault_blip):
            return healthy
        if kind == "slow":
            healthy.delay = self.slow_seconds
            return healthy
        if kind in ("hang", "reset"):
            return Reply(0, mode=kind)
        status = 500 if kind in ("flaky", "blip") else int(kind[:3])
        retry = [("Retry-After", "1")] if kind.endswith("-retry") else []
        return Reply(status, [*retry, ("Content-Type", "text/plain")], b"fault\n")

    def _host_fail(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return Reply(500, [("Content-Type", "text/plain")], b"internal error\n")

    def _host_busy(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        last = self._last_seen.get("busy")
        self._last_seen["busy"] = now
        if last is not None and now - last < 1.0:
            return Reply(429, [("Retry-After", "1"), ("Content-Type", "text/plain")], b"slow down\n")
        return self._generic("busy.test", path)

    def _host_unavailable(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        key = ("unavailable", path + "?" + query)
        if key not in self._asked:
            self._asked.add(key)
            return Reply(503, [("Retry-After", "1"), ("Content-Type", "text/plain")], b"maintenance\n")
        return self._generic("unavailable.test", path)

    def _host_garbage(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        junk = self._rng("garbage", path).randbytes(300)
        return Reply(200, body=b"\x00SSH-2.0-nonsense\r\n" + junk, mode="garbage")

    def _host_slowloris(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return Reply(200, [("Content-Type", "text/html"), ("Content-Length", "100000")], b"<", mode="drip")

    def _host_badlength(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        body = b"<html><head><title>Short</title></head><body><p>cut</p>"
        return Reply(200, [("Content-Type", "text/html"), ("Content-Length", "50000")], body, mode="short")

    def _host_bomb(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path != "/":
            return self._not_found()
        return Reply(200, [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], _gzip_bomb())

    def _host_endless(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return Reply(
            200, [("Content-Type", "text/html")], b"<html><body>" + b"<p>more</p>" * 6000, mode="stream"
        )

    def _host_codings(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        codings = {"/br": "br", "/zstd": "zstd", "/gzip-gzip": "gzip, gzip", "/gzip-br": "gzip, br"}
        if path == "/":
            return self._simple_page("Codings", [(p, c) for p, c in codings.items()])
        coding = codings.get(path)
        bomb = _coding_bomb(coding) if coding is not None else b""
        if not bomb:
            return self._not_found()
        return Reply(200, [("Content-Type", "text/html"), ("Content-Encoding", coding or "")], bomb)

    def _host_headers(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path == "/line":
            return Reply(200, [("Content-Type", "text/html"), ("X-Huge", "x" * (1 << 20))], b"<p>line</p>")
        if path == "/many":
            many = [(f"X-{i}", "y") for i in range(10_000)]
            return Reply(200, [("Content-Type", "text/html"), *many], b"<p>many</p>")
        if path == "/":
            links = [("/line", "one huge line"), ("/many", "many lines"), ("/p/0.html", "a page")]
            return self._simple_page("Headers", links)
        return self._generic("headers.test", path)

    def _host_smuggle(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path != "/":
            return self._generic("smuggle.test", path)
        page = b'<html><body><a href="/p/0.html">p0</a> <a href="/p/1.html">p1</a></body></html>'
        forged = b"HTTP/1.1 200 OK\r\nContent-Length: 23\r\n\r\n<p>SMUGGLED ANSWER</p>\n"
        return Reply(200, [("Content-Type", "text/html"), ("Content-Length", str(len(page)))], page + forged)

    def _host_slowrobots(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return self._generic("slowrobots.test", path)

    def _host_binrobots(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return self._generic("binrobots.test", path)

    def _host_dirty(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path != "/":
            return self._generic("dirty.test", path)
        dirty = [("Content-Type", "text/html; charset=utf-8"), ("X-Dirty", "a\x00b\xffc")]
        return Reply(200, dirty, DIRTY_PAGE)

    def _host_redirects(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path == "/":
            links = [
                ("/loop/a", "a loop"),
                ("/chain/0", "a long chain"),
                ("/moved", "moved page"),
                ("/away", "to another host"),
                ("/relative", "relative redirect"),
            ]
            return self._simple_page("Redirects", links)
        if path == "/loop/a":
            return Reply(302, [("Location", "/loop/b")])
        if path == "/loop/b":
            return Reply(302, [("Location", "http://redirects.test/loop/a")])
        if path.startswith("/chain/") and path[7:].isdigit():
            k = int(path[7:])
            if k >= 30:
                return self._simple_page("End of the chain", [])
            return Reply(301, [("Location", f"/chain/{k + 1}")])
        if path == "/moved":
            return Reply(301, [("Location", "/final")])
        if path == "/relative":
            return Reply(302, [("Location", "final")])
        if path == "/away":
            return Reply(302, [("Location", "http://h1.test/")])
        if path == "/inside":  # to the machine's own network (linked from nowhere: a seed)
            return Reply(302, [("Location", "http://127.0.0.1:9/admin")])
        if path == "/metadata":
            return Reply(302, [("Location", "http://169.254.169.254/latest/meta-data/")])
        if path == "/schemes":  # linked from nowhere: a seed
            return self._simple_page("Schemes", [(f"/scheme/{name}", name) for name in _SCHEME_REDIRECTS])
        if path.startswith("/scheme/") and path[8:] in _SCHEME_REDIRECTS:
            return Reply(302, [("Location", _SCHEME_REDIRECTS[path[8:]])])
        if path == "/final":
            return self._simple_page("Final destination", [])
        return self._not_found()

    def _host_trap(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        rng = self._rng("trap", path, query, now)
        sid = f"{rng.getrandbits(64):016x}"
        if path == "/":
            links = [
                ("/cal/2024/01", "calendar"),
                (f"/s/page?sid={sid}", "session page"),
                ("/deep/a/", "deep"),
            ]
            return self._simple_page("Traps", links)
        if path.startswith("/cal/"):
            parts = path.split("/")
            try:
                year, month = int(parts[2]), int(parts[3])
            except (IndexError, ValueError):
                return self._not_found()
            month += 1
            if month > 12:
                year, month = year + 1, 1
            return self._simple_page(
                f"Calendar {parts[2]}/{parts[3]}", [(f"/cal/{year}/{month:02d}", "next month")]
            )
        if path == "/s/page":
            return self._simple_page(
                "Session", [(f"/s/page?sid={sid}", "again"), (f"/s/other?sid={sid}", "other")]
            )
        if path == "/s/other":
            return self._simple_page("Other", [(f"/s/page?sid={sid}", "back")])
        if path.startswith("/deep/"):
            return self._simple_page("Deeper", [(path + "a/", "deeper"), (path + "b/", "deeper still")])
        return self._not_found()

    def _host_bigrobots(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return self._generic("bigrobots.test", path)

    def _host_badrobots(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return self._generic("badrobots.test", path)

    def _host_robots5xx(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        return self._generic("robots5xx.test", path)

    def _host_robotsredirect(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path == "/policy.txt":
            return Reply(200, [("Content-Type", "text/plain")], b"User-agent: *\nDisallow: /secret/\n")
        if path == "/":
            return self._simple_page(
                "Policy", [("/secret/plans.html", "secret plans"), ("/p/0.html", "public")]
            )
        if path.startswith("/secret/"):
            return self._simple_page("Secret", [])
        return self._generic("robotsredirect.test", path)

    def _host_delay(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        if path == "/":
            return self._simple_page("Delay", self._few_pages("delay.test", 5))
        return self._generic("delay.test", path)

    def _host_sitemaps(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        if path == "/index.xml":
            xml = (
                f'<?xml version="1.0"?><sitemapindex {ns}>'
                "<sitemap><loc>http://sitemaps.test/index.xml</loc></sitemap>"
                "<sitemap><loc>http://sitemaps.test/index2.xml</loc></sitemap>"
                "<sitemap><loc>http://sitemaps.test/pages.xml.gz</loc></sitemap>"
                "<sitemap><loc>http://sitemaps.test/list.txt</loc></sitemap></sitemapindex>"
            )
            return Reply(200, [("Content-Type", "application/xml")], xml.encode())
        if path == "/index2.xml":
            xml = f'<?xml version="1.0"?><sitemapindex {ns}><sitemap><loc>http://sitemaps.test/index.xml</loc></sitemap></sitemapindex>'
            return Reply(200, [("Content-Type", "application/xml")], xml.encode())
        if path == "/pages.xml.gz":
            urls = "".join(
                f"<url><loc>http://sitemaps.test/p/{i}.html</loc><lastmod>2024-03-0{i + 1}</lastmod>"
                f"<changefreq>hourly</changefreq><priority>0.{9 - i}</priority></url>"
                for i in range(4)
            )
            xml = f'<?xml version="1.0"?><urlset {ns}>{urls}</urlset>'
            return Reply(200, [("Content-Type", "application/x-gzip")], gzip.compress(xml.encode(), mtime=0))
        if path == "/list.txt":
            return Reply(
                200,
                [("Content-Type", "text/plain")],
                b"http://sitemaps.test/p/10.html\nhttp://sitemaps.test/p/11.html\n",
            )
        if path.startswith("/limits/"):
            return _hostile_sitemap(path[8:])
        if path.startswith("/p/") and path.endswith(".html"):
            return self._simple_page(f"Sitemapped {path}", [], "Only a sitemap links here.")
        if path == "/":
            return self._simple_page("Sitemaps", [])
        return self._not_found()

    def _host_docs(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        pdf, docx = _docs()
        if path == "/":
            links = [("/report.pdf", "annual report"), ("/notes.docx", "notes"), ("/logo.png", "our logo")]
            return self._simple_page("Documents", links)
        if path == "/logo.png":  # a type a text crawler does not want: refused on its headers
            return Reply(200, [("Content-Type", "image/png")], b"\x89PNG\r\n\x1a\n" + bytes(200_000))
        if path == "/report.pdf":
            return Reply(200, [("Content-Type", "application/pdf")], pdf)
        if path == "/notes.docx":
            ctype = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            return Reply(200, [("Content-Type", ctype)], docx)
        return self._not_found()

    def _host_news(self, path: str, query: str, headers: dict[str, str], now: float) -> Reply:
        # A new story every news_interval seconds of server time: the feeds list the latest five,
        # dated (RSS pubDate, Atom updated), with an ETag that If-None-Match gets a 304 for.
        every = self.news_interval
        latest = max(0, int((now - self.start) // every))
        stories = [
            (f"http://news.test/story/{k}.html", f"Story {k}", _EPOCH + self.start + k * every)
            for k in range(latest, max(-1, latest - 5), -1)
        ]
        if path == "/":
            return self._simple_page("News", [("/rss.xml", "RSS"), ("/atom.xml", "Atom")])
        if path in ("/rss.xml", "/atom.xml"):
            etag = f'"{path[1:5]}-{latest}"'
            validators = [
                ("ETag", etag),
                ("Last-Modified", formatdate(stories[0][2], usegmt=True)),
                _date(now),
            ]
            if headers.get("if-none-match") == etag:
                return Reply(304, validators)
            if path == "/rss.xml":
                reply = self._rss(
                    "news.test", [(u, t) for u, t, _ in stories], ttl=1, dates=[d for *_, d in stories]
                )
            else:
                entries = "".join(
                    f'<entry><title>{_h(t)}</title><link href="{_a(u)}"/><updated>{_w3c(d)}</updated></entry>'
                    for u, t, d in stories
                )
                xml = f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>News</title>{entries}</feed>'
                reply = Reply(200, [("Content-Type", "application/atom+xml")], xml.encode())
            reply.headers += validators
            return reply
        if path.startswith("/push/") and path.endswith(".xml"):
            pushed = self._push_topic(f"http://news.test{path}")
            if pushed is None:
                return self._not_found()
            reply = Reply(200, [("Content-Type", pushed[1]), _date(now)], pushed[0])
            if path == "/push/linked.xml":  # the hub named only in the HTTP header
                reply.headers.append(
                    ("Link", '<http://hub.test/>; rel="hub", <http://news.test/push/linked.xml>; rel="self"')
                )
            return reply
        if path.startswith("/push/story/"):
            return self._simple_page(f"Pushed story {path[12:-5]}", [], "Something was published.")
        if path.startswith("/limits/"):
            return _hostile_feed(path[8:])
        if path.startswith("/story/"):
            return self._simple_page(f"Story {path[7:-5]}", [], "Something happened.")
        return self._not_found()
