"""Sitemaps and feeds as hints, and cheap change checks with HEAD.

The parsers on their own (every date form, every feed dialect, every limit, hostile bodies), then
the crawler against the test web on loopback: a sitemap's lastmod orders the frontier, seeds the
pages' change-rate priors and sends a page changed since its capture back to the queue (in a
--revisit crawl and in a later, resumed one); feeds are polled during any crawl, new entries
first; the limits are counted drops; a host that ignores conditional GET but keeps honest
validators is checked with HEAD, the bytes saved read from the server's own log.
"""

from __future__ import annotations

import asyncio
import gzip
import time
import zlib
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.crawl.crawler import FEED_ENTRY_PRIORITY, Crawler, CrawlSettings
from trawl.crawl.discovery import (
    CHANGEFREQ_RATE,
    feed_poll_interval,
    lastmod_rate,
    parse_feed,
    parse_feed_date,
    parse_sitemap,
    parse_w3c_datetime,
)
from trawl.crawl.frontier import Frontier
from trawl.crawl.revisit import ChangeHistory, estimate_rate
from trawl.crawl.validators import ValidatorTrust, same_validators
from trawl.errors import ConfigError
from trawl.testweb import LogEntry, ServerThread, TestWeb


def _utc(*parts: int) -> float:
    return datetime(*parts, tzinfo=UTC).timestamp()  # type: ignore[misc]


# -- the parsers -------------------------------------------------------------------------------


def test_w3c_datetimes_in_every_form_and_bogus_ones() -> None:
    assert parse_w3c_datetime("1997") == _utc(1997, 1, 1)
    assert parse_w3c_datetime("1997-07") == _utc(1997, 7, 1)
    assert parse_w3c_datetime("1997-07-16") == _utc(1997, 7, 16)
    assert parse_w3c_datetime("1997-07-16T19:20+01:00") == _utc(1997, 7, 16, 18, 20)
    assert parse_w3c_datetime("1997-07-16T19:20:30+01:00") == _utc(1997, 7, 16, 18, 20, 30)
    assert parse_w3c_datetime("1997-07-16T19:20:30.45+01:00") == pytest.approx(
        _utc(1997, 7, 16, 18, 20, 30) + 0.45
    )
    assert parse_w3c_datetime("1997-07-16T19:20:30Z") == _utc(1997, 7, 16, 19, 20, 30)
    assert parse_w3c_datetime(" 2024-03-05T10:20:30-05:00 ") == _utc(2024, 3, 5, 15, 20, 30)
    assert parse_w3c_datetime("2024-03-05T10:20:30") == _utc(2024, 3, 5, 10, 20, 30)  # no zone: UTC
    for bogus in ("", "yesterday", "2024-13-01", "2024-02-30", "2024-03-05T25:00Z", "2024-03-05T10:20+24:00",
                  "20240305", "2024-3-5", "1970-01-01", "2024-03-05T10:20:30Zjunk"):  # fmt: skip
        assert parse_w3c_datetime(bogus) is None, bogus
    assert parse_feed_date("Tue, 05 Mar 2024 10:20:30 GMT") == _utc(2024, 3, 5, 10, 20, 30)
    assert parse_feed_date("5 Mar 2024 10:20 +0100") == _utc(2024, 3, 5, 9, 20)
    assert parse_feed_date("2024-03-05T10:20:30Z") == _utc(2024, 3, 5, 10, 20, 30)
    for bogus in ("", "soon", "Mon, 99 Foo", "Tue, 05 Mar 1970 10:20:30 GMT"):
        assert parse_feed_date(bogus) is None, bogus


def test_a_sitemap_s_lastmod_priority_and_bad_values() -> None:
    xml = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>http://a.test/1</loc><lastmod>2024-03-05T10:20:30Z</lastmod><priority>0.8</priority></url>"
        b"<url><loc>http://a.test/2</loc><lastmod>last week</lastmod><priority>high</priority></url>"
        b"<url><loc>http://a.test/3</loc><lastmod>2024-02-30</lastmod><priority>1.5</priority></url>"
        b"<url><loc>http://a.test/4</loc><priority>nan</priority></url></urlset>"
    )
    info = parse_sitemap(b"\xef\xbb\xbf" + xml)  # a byte-order mark first: still XML
    assert [u.url for u in info.urls] == [
        "http://a.test/1",
        "http://a.test/2",
        "http://a.test/3",
        "http://a.test/4",
    ]
    assert info.urls[0].lastmod == _utc(2024, 3, 5, 10, 20, 30) and info.urls[0].priority == 0.8
    assert [u.lastmod for u in info.urls[1:]] == [None, None, None]
    assert [u.priority for u in info.urls[1:]] == [None, None, None]
    assert (info.bad_dates, info.bad_priorities) == (2, 3)
    assert not info.too_large and not info.too_many and info.problem is None


def test_sitemap_limits_bytes_urls_and_a_gzip_bomb() -> None:
    ns = b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    many = (
        b"<urlset " + ns + b">" + b"".join(b"<url><loc>http://a.test/%d</loc></url>" % i for i in range(120))
    )
    many += b"</urlset>"
    info = parse_sitemap(many, max_urls=50)
    assert len(info.urls) == 50 and info.too_many and not info.too_large and info.problem
    cut = parse_sitemap(many, max_bytes=1000)  # cut inside: the entries that closed before it
    assert cut.too_large and 0 < len(cut.urls) < 30
    assert all(u.url.startswith("http://a.test/") and u.url[14:].isdigit() for u in cut.urls)
    zipped = parse_sitemap(gzip.compress(many), max_bytes=1000)
    assert zipped.too_large and [u.url for u in zipped.urls] == [u.url for u in cut.urls]
    text = parse_sitemap(b"".join(b"http://a.test/%d\n" % i for i in range(10)), max_urls=4)
    assert len(text.urls) == 4 and text.too_many
    # 64 MiB of spaces in ~64 kB: decompressed only as far as the limit, in no time
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = packer.compress(b"<urlset " + ns + b"><url><loc>http://a.test/b</loc></url>")
    bomb += b"".join(packer.compress(b" " * (1 << 20)) for _ in range(64)) + packer.flush()
    assert len(bomb) < 100_000
    t0 = time.perf_counter()
    blown = parse_sitemap(bomb, max_bytes=1 << 20)
    assert blown.too_large and [u.url for u in blown.urls] == ["http://a.test/b"]
    assert time.perf_counter() - t0 < 2.0
    assert parse_sitemap(gzip.compress(many)[:-30]).problem  # a gzip stream cut short: said
    index = b"<sitemapindex>" + b"".join(
        b"<sitemap><loc>http://a.test/s%d.xml</loc></sitemap>" % i for i in range(9)
    )
    assert len(parse_sitemap(index + b"</sitemapindex>", max_urls=3).sitemaps) == 3


def test_feeds_of_every_dialect_with_dates() -> None:
    rss091 = parse_feed(
        b'<?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" '
        b'"http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss version="0.91"><channel><title>T</title>'
        b"<item><title>A &amp; B</title><link>http://x.test/a</link></item></channel></rss>"
    )
    assert rss091.links == [("http://x.test/a", "A & B")] and rss091.problem is None
    rss092 = parse_feed(
        b'<rss version="0.92"><channel><item><title>N&eacute;e</title><link>http://x.test/b</link>'
        b"<pubDate>Tue, 05 Mar 2024 10:20:30 GMT</pubDate></item></channel></rss>"
    )  # an HTML entity a feed used without declaring it
    assert rss092.links == [("http://x.test/b", "Née")]
    assert rss092.entries[0].date == _utc(2024, 3, 5, 10, 20, 30)
    rss1 = parse_feed(
        b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
        b'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title></channel>'
        b"<item><title>C</title><link>http://x.test/c</link><dc:date>2024-03-05T10:20:30+01:00</dc:date></item>"
        b"</rdf:RDF>"
    )
    assert rss1.links == [("http://x.test/c", "C")] and rss1.entries[0].date == _utc(2024, 3, 5, 9, 20, 30)
    rss2 = parse_feed(
        b'<rss version="2.0"><channel><ttl>15</ttl>'
        b'<item><title>D</title><guid isPermaLink="true">http://x.test/d</guid></item>'
        b'<item><title>E</title><guid isPermaLink="false">tag:x,1</guid></item>'
        b"<item><title>F</title><link>http://x.test/f</link><pubDate>not a date</pubDate></item>"
        b"</channel></rss>"
    )
    assert rss2.links == [("http://x.test/d", "D"), ("http://x.test/f", "F")]
    assert rss2.ttl_seconds == 900 and rss2.bad_dates == 1 and rss2.entries[1].date is None
    atom = parse_feed(
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>G</title>'
        b'<link rel="self" href="http://x.test/api/g"/><link rel="alternate" href="http://x.test/g"/>'
        b"<published>2024-03-01T00:00:00Z</published><updated>2024-03-05T00:00:00Z</updated></entry></feed>"
    )
    assert atom.links == [("http://x.test/g", "G")] and atom.entries[0].date == _utc(2024, 3, 5)


def test_feed_limits_and_broken_feeds() -> None:
    items = b"".join(
        b"<item><title>I%d</title><link>http://x.test/%d</link></item>" % (i, i) for i in range(60)
    )
    feed = b'<rss version="2.0"><channel>' + items + b"</channel></rss>"
    many = parse_feed(feed, max_entries=20)
    assert len(many.entries) == 20 and many.too_many and many.problem
    big = parse_feed(feed, max_bytes=600)  # cut: the items that closed before the cut
    assert big.too_large and 0 < len(big.entries) < 20
    zipped = parse_feed(gzip.compress(feed), max_bytes=600)  # Content-Encoding: gzip kept as sent
    assert zipped.too_large and zipped.links == big.links
    assert parse_feed(gzip.compress(feed)).links == parse_feed(feed).links
    broken = parse_feed(b"<rss><channel><item><link>http://x.test/0</link></item><item><link>http://x.te")
    assert broken.links == [("http://x.test/0", "")] and broken.problem
    assert parse_feed(b"\x00\x01 not xml").problem and not parse_feed(b"\x00\x01 not xml").entries
    assert parse_feed(b"").problem


def test_lastmod_priors_and_feed_poll_intervals() -> None:
    # one age, one Poisson draw: rate 1/age, clamped
    assert lastmod_rate(3600.0, minimum_age=60.0, maximum_age=1e6) == pytest.approx(1 / 3600)
    assert lastmod_rate(1.0, minimum_age=60.0, maximum_age=1e6) == pytest.approx(1 / 60)
    assert lastmod_rate(-500.0, minimum_age=60.0, maximum_age=1e6) == pytest.approx(1 / 60)
    assert lastmod_rate(1e9, minimum_age=60.0, maximum_age=1e6) == pytest.approx(1e-6)
    # a feed is never polled before its ttl; its history moves it later, not sooner
    assert feed_poll_interval(300.0, 1 / 300, minimum=1.0, maximum=1e5) == 300.0
    assert feed_poll_interval(300.0, 10.0, minimum=1.0, maximum=1e5) == 300.0
    assert feed_poll_interval(300.0, 1 / 36000, minimum=1.0, maximum=1e5) == 18000.0
    assert feed_poll_interval(None, 1.0, minimum=5.0, maximum=100.0) == 5.0
    assert feed_poll_interval(None, 0.0, minimum=5.0, maximum=100.0) == 100.0
    # feed history: polls that keep finding new entries, and polls that find none
    busy = estimate_rate(ChangeHistory(visits=10, changes=10, watched=100.0), prior=1 / 60)
    quiet = estimate_rate(ChangeHistory(visits=10, changes=0, watched=100.0), prior=1 / 60)
    assert feed_poll_interval(None, busy, minimum=1.0, maximum=1e4) < 10.0
    assert feed_poll_interval(None, quiet, minimum=1.0, maximum=1e4) > 200.0


def test_validator_trust_is_earned_and_lost() -> None:
    assert same_validators('"a"', None, 'W/"a"', None) is True
    assert same_validators('"a"', "x", '"b"', "x") is False  # the ETag decides
    assert same_validators(None, "Tue, 05 Mar 2024 10:20:30 GMT", None, "Tue, 05 Mar 2024 10:20:30 GMT")
    assert same_validators('"a"', None, None, "Tue, 05 Mar 2024 10:20:30 GMT") is None
    trust = ValidatorTrust()
    assert not trust.head_worth_it(2, conditional=True)
    assert trust.observe(True, False) == "agree" and trust.observe(False, True) == "agree"
    assert not trust.head_worth_it(2, conditional=True)  # conditional GET may still work
    assert trust.head_worth_it(2, conditional=False)
    trust.ignores_conditional = True
    assert trust.head_worth_it(2, conditional=True)
    assert trust.observe(False, False) == "spurious" and not trust.head_worth_it(2, conditional=True)
    trust.observe(True, False)
    trust.observe(True, False)
    assert trust.head_worth_it(2, conditional=True)
    assert [trust.audit_due(3) for _ in range(6)] == [False, False, True, False, False, True]
    assert trust.observe(True, True) == "lie"
    for _ in range(5):
        trust.observe(True, False)
    assert not trust.head_worth_it(2, conditional=True)  # a lie is not forgotten
    refused = ValidatorTrust(agreements=5, ignores_conditional=True, head_refused=True)
    assert not refused.head_worth_it(2, conditional=True)


def test_the_limits_are_settings_and_checked() -> None:
    settings = CrawlSettings()
    assert (settings.max_sitemap_bytes, settings.max_sitemap_urls) == (50 << 20, 50000)
    assert (settings.max_feed_bytes, settings.max_feed_entries) == (10 << 20, 1000)
    for bad in ({"max_sitemap_urls": 0}, {"max_feed_bytes": 0}, {"head_trust": 0}, {"head_audit": -1},
                {"max_sitemap_depth": -1}):  # fmt: skip
        with pytest.raises(ConfigError, match="crawl:"):
            CrawlSettings(**bad).check()  # type: ignore[arg-type]


# -- the crawler against the test web ----------------------------------------------------------


def _fast(server: ServerThread, **changes: object) -> CrawlSettings:
    return CrawlSettings(
        min_delay=0.0, delay_factor=0.0, max_retries=0, read_timeout=2.0, total_timeout=4.0, store=False,
        resolve=tuple(server.resolve_rules()), **changes,  # type: ignore[arg-type]
    )  # fmt: skip


def _pages(log: list[LogEntry], host: str, method: str = "GET") -> list[str]:
    return [
        e.target
        for e in sorted(log, key=lambda e: e.start)
        if e.host == host and e.method == method and e.target.startswith("/p/")
    ]


def test_lastmod_orders_the_frontier_and_seeds_the_priors(tmp_path: Path) -> None:
    """h0.test's /sitemap-lastmod.xml gives each page's lastmod and nothing else: of those equal
    priorities the most recently changed page is fetched first, and each page's prior change
    rate is one over its age when the sitemap was read."""
    web = TestWeb(3, hosts=1, pages=12, special=False, change_rates=(0.0, 1e-4, 3e-4, 1e-3), start=-30000.0)
    with ServerThread(web) as server:
        settings = _fast(server, concurrency=1, hosts=("h0.test",), include=(r"/p/\d+\.html$", r"sitemap"))
        frontier = Frontier(tmp_path / "f.sqlite")
        result = asyncio.run(Crawler(settings, frontier).run(["http://h0.test/sitemap-lastmod.xml"]))
        now = server.server.clock()
        log = server.log
    sitemap = parse_sitemap(web.respond("h0.test", "/sitemap-lastmod.xml", {}, now).body)
    lastmod = {u.url.split("h0.test", 1)[1]: u.lastmod for u in sitemap.urls}
    assert len(set(lastmod.values())) >= 6  # the pages' ages differ: there is an order to follow
    order = _pages(log, "h0.test")
    assert sorted(order) == sorted(lastmod), order
    seen = [lastmod[p] or 0.0 for p in order]
    assert seen == sorted(seen, reverse=True), list(zip(order, seen, strict=True))
    assert result.stats["discover/lastmod-prior"] == 12
    rows = {
        url: prior for url, prior in frontier.db.execute("SELECT url, prior FROM urls WHERE url LIKE '%/p/%'")
    }
    frontier.close()
    read_at = _utc(2024, 3, 1, 12) + now
    for url, prior in rows.items():
        age = read_at - (lastmod[url.split("h0.test", 1)[1]] or 0.0)
        assert prior == pytest.approx(1.0 / max(settings.revisit_min, age), rel=0.01), (url, age, prior)
    newest, oldest = max(lastmod, key=lambda p: lastmod[p] or 0), min(lastmod, key=lambda p: lastmod[p] or 0)
    assert rows[f"http://h0.test{newest}"] > rows[f"http://h0.test{oldest}"]


def test_a_sitemap_s_changefreq_outranks_its_lastmod_as_prior(tmp_path: Path) -> None:
    web = TestWeb(3, hosts=1, pages=4, special=False, change_rates=(0.0, 1e-3), start=-5000.0)
    with ServerThread(web) as server:
        frontier = Frontier(tmp_path / "f.sqlite")
        settings = _fast(server, hosts=("h0.test",), include=(r"/p/\d+\.html$", r"sitemap"))
        result = asyncio.run(Crawler(settings, frontier).run(["http://h0.test/sitemap.xml"]))
    priors = {p for (p,) in frontier.db.execute("SELECT prior FROM urls WHERE url LIKE '%/p/%'")}
    frontier.close()
    assert priors == {CHANGEFREQ_RATE["daily"]} and result.stats.get("discover/lastmod-prior") == 0


def _refetches(log: list[LogEntry], host: str) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for target in _pages(log, host):
        counts[target] += 1
    return counts


def test_a_newer_lastmod_refetches_on_a_later_crawl(tmp_path: Path) -> None:
    """The first crawl fetches every page; the second, resumed into the same frontier, reads the
    sitemap again and fetches again exactly the pages whose lastmod is newer than the capture
    it holds (their Last-Modified): the fast-changing odd pages, never the still even ones."""
    web = TestWeb(8, hosts=1, pages=6, special=False, change_rates=(0.0, 2.0))
    path = tmp_path / "f.sqlite"
    with ServerThread(web) as server:
        settings = _fast(
            server, hosts=("h0.test",), include=(r"/p/\d+\.html$", r"/sitemap\.xml$"), revisit_min=0.5
        )
        frontier = Frontier(path)
        first = asyncio.run(Crawler(settings, frontier).run(["http://h0.test/sitemap.xml"]))
        frontier.close()
        assert first.stats.get("discover/lastmod-refetch") == 0
        before = len(server.log)
        time.sleep(1.6)  # each odd page changes at 2/s: all three have, but for a ~4 % chance each
        frontier = Frontier(path)
        assert frontier.resumed
        second = asyncio.run(Crawler(settings, frontier).run([]))
        frontier.close()
        log = server.log
    assert sorted(_refetches(log[:before], "h0.test").values()) == [1] * 6
    again = _refetches(log[before:], "h0.test")
    assert second.stats["resume/hints-reread"] == 1
    assert [e.target for e in log[before:] if e.target == "/sitemap.xml"] == ["/sitemap.xml"]
    assert again and all(int(p[3:-5]) % 2 == 1 for p in again), again
    assert second.stats["discover/lastmod-refetch"] == sum(again.values()) >= 1, second.stats.prefix(
        "discover/"
    )


def test_a_newer_lastmod_refetches_in_a_revisit_crawl() -> None:
    """With --revisit the sitemap is read again as it changes (about every revisit_max / 2 here,
    its own prior), and a page it shows changed comes back before its own revisit is due
    (every revisit_max: the sitemap says its pages change daily)."""
    web = TestWeb(9, hosts=1, pages=6, special=False, change_rates=(0.0, 2.0))
    with ServerThread(web) as server:
        settings = _fast(
            server, hosts=("h0.test",), include=(r"/p/\d+\.html$", r"/sitemap\.xml$"), revisit=True,
            revisit_min=0.2, revisit_max=3.0, max_seconds=2.6,
        )  # fmt: skip
        result = asyncio.run(Crawler(settings, Frontier()).run(["http://h0.test/sitemap.xml"]))
        log = server.log
    counts = _refetches(log, "h0.test")
    assert [e.target for e in log].count("/sitemap.xml") >= 2
    assert all(counts[f"/p/{i}.html"] == 1 for i in (0, 2, 4)), counts  # not yet due, never changed
    refetched = sum(counts[f"/p/{i}.html"] - 1 for i in (1, 3, 5))
    assert result.stats["discover/lastmod-refetch"] == refetched >= 1, counts


def test_feeds_are_polled_in_every_crawl_new_entries_first() -> None:
    """No --revisit: news.test's RSS feed (a story every 0.6 s) is polled again while the crawl
    runs (to --max-time), with conditional GET; the first poll's stories are fetched newest
    first (their pubDate), the new ones of each later poll as they appear; the stories' priors
    come from their dates, the feed's history from the polls that found new entries."""
    web = TestWeb(4, hosts=1, pages=2, special=True, change_rates=(0.0,), news_interval=0.6)
    with ServerThread(web) as server:
        settings = _fast(server, hosts=("news.test",), revisit_min=0.25, revisit_max=0.5, max_seconds=3.5)
        frontier = Frontier()
        result = asyncio.run(Crawler(settings, frontier).run(["http://news.test/rss.xml"]))
        log = sorted(server.log, key=lambda e: e.start)
    polls = [e for e in log if e.target == "/rss.xml"]
    assert len(polls) >= 5 and any(p.status == 304 for p in polls)
    assert polls[-1].start - polls[0].start > 2.5  # polled to the end (a poll due after it not waited for)
    stories = [int(e.target[7:-5]) for e in log if e.target.startswith("/story/")]
    first = stories[: min(5, stories[0] + 1)]
    assert first == sorted(first, reverse=True) and first[0] == stories[0], stories
    assert max(stories) >= stories[0] + 3, stories  # stories published after the first poll
    assert len(set(stories)) == len(stories)  # each fetched once
    assert result.stats["discover/feed-new"] == len(stories)
    assert result.stats["discover/lastmod-prior"] == len(stories)
    rows = frontier.db.execute("SELECT url, priority, prior, kind, changes FROM urls").fetchall()
    story_rows = [r for r in rows if "/story/" in r[0]]
    assert story_rows and all(r[1] >= FEED_ENTRY_PRIORITY and r[2] > 0 for r in story_rows)
    (feed,) = [r for r in rows if r[0].endswith("/rss.xml")]
    assert feed[3] == "feed" and feed[4] >= 2  # polls that found new entries: the feed's history
    frontier.close()


def test_a_crawl_without_max_time_does_not_wait_for_a_feed() -> None:
    web = TestWeb(4, hosts=1, pages=2, special=True, change_rates=(0.0,), start=-100.0)  # 10 stories out
    with ServerThread(web) as server:
        settings = _fast(server, hosts=("news.test",), revisit_min=0.5, revisit_max=0.5)
        t0 = time.monotonic()
        result = asyncio.run(Crawler(settings, Frontier()).run(["http://news.test/atom.xml"]))
        log = server.log
    assert result.stopped == "done" and time.monotonic() - t0 < 3.0
    assert [e.target for e in log].count("/atom.xml") == 1 and result.stats["discover/feed-new"] == 5


def test_hint_limits_and_bad_hints_are_counted_never_fatal() -> None:
    web = TestWeb(5, hosts=1, pages=2, special=True, change_rates=(0.0,))
    seeds = ["http://sitemaps.test/limits/index.xml"] + [
        f"http://news.test/limits/{name}.xml" for name in ("many", "big", "bomb", "dates", "broken")
    ]
    with ServerThread(web) as server:
        settings = _fast(
            server, hosts=("sitemaps.test", "news.test"),
            exclude=(r"\.test/(many|big|dated|broken|laughs)/",),
            max_sitemap_urls=50, max_sitemap_bytes=64 << 10, max_feed_entries=20, max_feed_bytes=32 << 10,
        )  # fmt: skip
        result = asyncio.run(Crawler(settings, Frontier()).run(seeds))
        log = server.log
    c = result.stats
    assert result.stopped == "done" and not c.prefix("error/"), c.prefix("error/")
    assert c["drop/sitemap-too-many-urls"] == 2  # many.xml (120), and what big.xml's 64 kB held
    assert c["drop/sitemap-too-large"] == 2  # big.xml (130 kB), bomb.xml.gz (64 MiB unzipped)
    assert c["discover/lastmod-bad"] == 4 and c["discover/sitemap-bad-priority"] == 1
    assert c["discover/sitemap-problem"] >= 3  # cut, broken, the billion laughs
    assert c["drop/feed-too-many-entries"] == 2  # many.xml (60), and what big.xml's 32 kB held
    assert c["drop/feed-too-large"] == 2  # big.xml (200 kB), bomb.xml (64 MiB unzipped)
    assert c["discover/feed-bad-date"] == 2 and c["discover/feed-problem"] >= 3
    # what could be read was: 3 good dates of dates.xml's 10 and both whole entries of broken.xml
    assert c["discover/refused/scope/exclude"] >= 50 + 50 + 10 + 2 + 20 + 5 + 1
    assert {e.target for e in log if e.host == "sitemaps.test"} >= {
        "/limits/many.xml", "/limits/big.xml", "/limits/bomb.xml.gz", "/limits/dates.xml",
        "/limits/broken.xml", "/limits/entities.xml",
    }  # fmt: skip


def _head_crawl(
    validators: str, rates: tuple[float, ...], **changes: object
) -> tuple[dict[str, int], list[LogEntry]]:
    web = TestWeb(7, hosts=1, pages=6, special=False, change_rates=rates, validators=validators)
    with ServerThread(web) as server:
        settings = _fast(
            server, hosts=("h0.test",), include=(r"/p/\d+\.html$",), sitemaps=False, revisit=True,
            head_trust=2, **changes,
        )  # fmt: skip
        result = asyncio.run(
            Crawler(settings, Frontier()).run([f"http://h0.test/p/{i}.html" for i in range(6)])
        )
        return dict(result.stats.counters), server.log


def test_head_where_conditional_get_is_ignored_and_validators_are_honest() -> None:
    """A server that ignores If-None-Match (every revisit a full 200) but whose ETag follows the
    page: once its validators have told the truth twice, revisits start with a HEAD and GET
    only the changed pages. The server's log shows what that saves: an unchanged revisit by
    HEAD costs under a tenth of the bytes of the GET it replaces."""
    stats, log = _head_crawl(
        "no-304",
        (0.0, 0.0, 0.0, 0.0, 0.0, 1.5),
        revisit_min=0.1,
        revisit_max=0.2,
        max_seconds=3.0,
        head_audit=5,
    )
    assert stats["fetch/conditional-ignored"] == 1 and not stats.get("fetch/not-modified")
    assert stats["fetch/head"] >= 10 and stats["fetch/head-unchanged"] >= 8, stats
    assert stats["fetch/head-audit"] >= 1 and not stats.get("fetch/validators-lied")
    heads = [e for e in log if e.method == "HEAD"]
    assert len(heads) == stats["fetch/head"] and all(e.bytes == 0 for e in heads)
    get_wire = {e.target: e.wire for e in log if e.method == "GET" and e.status == 200}
    unchanged = [e for e in heads if e.target != "/p/5.html"]
    saved = 1 - sum(e.wire for e in unchanged) / sum(get_wire[e.target] for e in unchanged)
    assert saved >= 0.9, saved
    # the page that changes: a HEAD that finds new validators is followed by its GET
    by_target = defaultdict(list)
    for e in sorted(log, key=lambda e: e.start):
        by_target[e.target].append(e.method)
    if stats.get("fetch/head-changed"):
        assert "HEAD,GET" in ",".join(by_target["/p/5.html"])


def test_no_head_where_conditional_get_works_or_validators_lie() -> None:
    honest, log = _head_crawl("honest", (0.0,), revisit_min=0.1, revisit_max=0.2, max_seconds=1.5)
    assert honest["fetch/not-modified"] >= 6 and not honest.get("fetch/head")
    assert not [e for e in log if e.method == "HEAD"]
    # ETag and Last-Modified never change while the pages change ten times a second: the first
    # revisit that finds a change under them ends any trust
    frozen, log = _head_crawl("frozen", (10.0,), revisit_min=0.5, revisit_max=0.5, max_seconds=2.2)
    assert frozen["fetch/validators-lied"] >= 1 and frozen["fetch/conditional-ignored"] == 1
    assert not frozen.get("fetch/head") and not [e for e in log if e.method == "HEAD"]


@pytest.mark.parametrize("kind", ["http", "aiohttp"])
def test_both_transports_send_head_and_reuse_the_connection(kind: str) -> None:
    """A HEAD's answer ends with its headers (its Content-Length is the GET's body's, not one to
    read): the GET that follows on the same keep-alive connection gets its own answer whole."""
    from trawl.crawl.http11 import HttpTransport
    from trawl.crawl.transport import AiohttpTransport, FetchRequest

    if kind == "aiohttp":
        pytest.importorskip("aiohttp")
    web = TestWeb(2, hosts=1, pages=2, special=False, change_rates=(0.0,))
    with ServerThread(web) as server:

        async def main() -> list[tuple[int, int, str | None]]:
            transport = (HttpTransport if kind == "http" else AiohttpTransport)(
                resolve=server.resolve_rules()
            )
            out = []
            try:
                for method in ("HEAD", "GET", "HEAD"):
                    resp = await transport.fetch(FetchRequest("http://h0.test/p/1.html", method=method))
                    out.append((resp.status, len(resp.body), resp.header("ETag")))
            finally:
                await transport.close()
            return out

        answers = asyncio.run(main())
        log = server.log
    (s1, b1, e1), (s2, b2, e2), (s3, b3, e3) = answers
    assert (s1, s2, s3) == (200, 200, 200) and b1 == b3 == 0 and b2 > 1000 and e1 == e2 == e3
    assert [e.method for e in log] == ["HEAD", "GET", "HEAD"]
    if kind == "http":
        assert len({e.conn for e in log}) == 1  # one connection for all three
