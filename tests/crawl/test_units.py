"""URL normal form, the seen set, robots.txt (RFC 9309), sitemaps/feeds, revisit estimates, focus."""

from __future__ import annotations

import gzip
import math
import random

import numpy as np

from trawl.crawl.discovery import parse_feed, parse_sitemap
from trawl.crawl.focus import TopicModel
from trawl.crawl.revisit import (
    ChangeHistory,
    estimate_rate,
    expected_age,
    expected_freshness,
    revisit_interval,
)
from trawl.crawl.robots import MAX_ROBOTS_BYTES, RobotsRules, parse_robots
from trawl.crawl.seen import SeenSet
from trawl.crawl.urlnorm import host_of, normalize_url, shard_of, url_key


def test_normalize_url() -> None:
    assert normalize_url("HTTP://Example.COM:80/a/./b/../c#top") == "http://example.com/a/c"
    assert normalize_url("http://example.com") == "http://example.com/"
    assert normalize_url("http://example.com:8080/%7euser/%2f") == "http://example.com:8080/~user/%2F"
    assert normalize_url("http://example.com/p?sid=abc&x=1&PHPSESSID=2") == "http://example.com/p?x=1"
    assert normalize_url("http://example.com/p;jsessionid=XYZ?a=1") == "http://example.com/p?a=1"
    assert normalize_url("http://bücher.de/") == "http://xn--bcher-kva.de/"
    for bad in ("mailto:a@b.c", "javascript:void(0)", "ftp://x/", "http://", "", "http://[::1/"):
        assert normalize_url(bad) is None
    assert host_of("http://a.test:81/x") == "a.test:81"
    assert url_key("http://a/") == url_key("http://a/") != url_key("http://b/")


def test_shards_are_stable_and_balanced() -> None:
    counts = [0, 0, 0, 0]
    for i in range(4000):
        counts[shard_of(f"h{i}.test", 4)] += 1
    assert min(counts) > 850
    assert shard_of("H1.test", 4) == shard_of("h1.test", 4)


def test_seen_set_is_exact_and_small() -> None:
    seen = SeenSet(buffer=1000)
    rng = random.Random(7)
    keys = [rng.getrandbits(64) - (1 << 63) for _ in range(20000)]
    assert all(seen.add(k) for k in keys)
    assert not any(seen.add(k) for k in keys[:5000])
    assert seen.add_many([*keys[:10], 12345]) == [False] * 10 + [True]
    assert len(seen) == 20001
    assert seen.nbytes < 20001 * 8 + 70 * 1000
    rebuilt = SeenSet(np.array(keys, dtype=np.int64))
    assert keys[123] in rebuilt and 999 not in rebuilt


def test_robots_longest_match_and_wildcards() -> None:
    body = b"""# comment
User-agent: otherbot
Disallow: /

User-agent: TRAWL
User-agent: somebot
Disallow: /private/
Allow: /private/open.html
Disallow: /*.pdf$
Disallow: /search*q=
Allow: /page
Disallow: /page
Crawl-delay: 2.5
Sitemap: http://x.test/sitemap.xml
"""
    rules = parse_robots(body, "trawl")
    assert not rules.allowed("/private/secret.html")
    assert rules.allowed("/private/open.html")
    assert not rules.allowed("/docs/report.pdf")
    assert rules.allowed("/docs/report.pdf?download=1")  # $ anchors the end
    assert not rules.allowed("/search?lang=en&q=x")
    assert rules.allowed("/page")  # equal length: allow wins
    assert rules.allowed("/robots.txt")
    assert rules.crawl_delay == 2.5
    assert rules.sitemaps == ["http://x.test/sitemap.xml"]
    star = parse_robots(body, "unknownbot")
    assert star.allowed("/private/secret.html")  # no * group: nothing restricts


def test_robots_percent_encoding_and_failures() -> None:
    rules = parse_robots(b"User-agent: *\nDisallow: /a%7eb\nDisallow: /%E4\n", "trawl")
    assert not rules.allowed("/a~b/c")
    assert not rules.allowed("/%e4x")
    assert RobotsRules.for_status(404, b"", "trawl").allowed("/anything")
    assert not RobotsRules.for_status(503, b"", "trawl").allowed("/anything")
    assert not RobotsRules.forbid_all("unreachable").allowed("/x")


def test_robots_malformed_and_huge() -> None:
    bad = parse_robots(
        b"\x00\x01junk\nDisallow: /orphan/\nUser-agent *\nUser-agent: *\nDisallow: /p/1\nCrawl-delay: x\n",
        "t",
    )
    assert bad.bad_lines >= 3
    assert bad.allowed("/orphan/") and not bad.allowed("/p/1")
    huge = b"User-agent: *\n" + b"Disallow: /x/\n" * (MAX_ROBOTS_BYTES // 14 + 10) + b"Disallow: /late\n"
    rules = parse_robots(huge, "trawl")
    assert rules.truncated and rules.allowed("/late") and not rules.allowed("/x/1")


def test_sitemaps_and_feeds() -> None:
    xml = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>http://a.test/1</loc><priority>0.8</priority><changefreq>daily</changefreq></url>"
        b"<url><loc>http://a.test/2</loc></url></urlset>"
    )
    info = parse_sitemap(gzip.compress(xml))
    assert [u.url for u in info.urls] == ["http://a.test/1", "http://a.test/2"]
    assert info.urls[0].priority == 0.8 and info.urls[0].changefreq == "daily"
    index = parse_sitemap(
        b'<sitemapindex xmlns="x"><sitemap><loc>http://a.test/s.xml</loc></sitemap></sitemapindex>'
    )
    assert index.sitemaps == ["http://a.test/s.xml"]
    assert [u.url for u in parse_sitemap(b"http://a.test/x\njunk\n").urls] == ["http://a.test/x"]
    broken = parse_sitemap(b"<urlset><url><loc>http://a.test/y</loc></url><url><loc>")
    assert broken.problem and [u.url for u in broken.urls] == ["http://a.test/y"]
    assert parse_sitemap(b"\x1f\x8b garbage").problem
    rss = parse_feed(
        b"<rss><channel><ttl>5</ttl><item><title>T</title><link>http://a.test/s</link></item></channel></rss>"
    )
    assert rss.links == [("http://a.test/s", "T")] and rss.ttl_seconds == 300
    atom = parse_feed(
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="http://a.test/e"/></entry></feed>'
    )
    assert atom.links == [("http://a.test/e", "")]


def test_revisit_estimator_recovers_poisson_rates() -> None:
    rng = random.Random(3)
    for rate in (0.01, 0.1, 0.5):
        interval = 2.0
        history = ChangeHistory()
        for _ in range(400):
            # P(at least one change in the interval) for a Poisson process
            history.observe(interval, rng.random() < 1 - math.exp(-rate * interval))
        estimate = estimate_rate(history, prior=0.05, prior_weight=1)
        assert abs(estimate - rate) / rate < 0.25, (rate, estimate)
    assert revisit_interval(0.0, minimum=1, maximum=100) == 100
    assert revisit_interval(1.0, minimum=1, maximum=100) == 1
    assert expected_freshness(0.1, 1.0) > expected_freshness(0.1, 10.0)
    assert expected_age(0.1, 10.0) > expected_age(0.1, 1.0) > 0


def test_focus_prefers_on_topic_links() -> None:
    scorer = TopicModel(["honeybee", "swarm", "hive"])
    for _ in range(20):
        scorer.learn("The honeybee swarm left the hive. " * 5)
        scorer.learn("Trains run at night across Europe. " * 5)
    on = scorer.link_score("How a honeybee swarm chooses a hive", "http://a.test/bees", 0.8)
    off = scorer.link_score("Night trains return", "http://a.test/trains", 0.1)
    assert on > off


def test_normal_form_fast_path_agrees_with_the_long_way() -> None:
    import re

    from trawl.crawl import urlnorm

    urls = [
        "http://h0.test/p/1.html",
        "http://h0.test/p/1.html?print=1",
        "http://h0.test:80/x",
        "https://h0.test:443/x",
        "http://h0.test:8080/x",
        "http://h0.test/a/./b/../c",
        "http://h0.test",
        "http://h0.test?x",
        "http://h0.test/?",
        "http://h0.test/p?sid=1&a=2",
        "http://h0.test/p?a=1&&b=2",
        "http://h0.test/p?a=1&",
        "https://a.b.c/~u/x.html?q=a:b@c",
        "http://a.test/p?x=1#frag",
        "http://a.test/p/..",
        "http://a.test/p/.hidden",
        "http://a.test/x?a=b?c",
        "http://a.test/p;jsessionid=1",
        "http://a.test/%7Eu",
        "http://A.test/x",
        "http://a.test./x",
        "http://user@a.test/x",
    ]
    fast = [normalize_url(u) for u in urls]
    simple = urlnorm._SIMPLE
    try:
        urlnorm._SIMPLE = re.compile("(?!)")  # never matches: every URL takes the long way
        slow = [normalize_url(u) for u in urls]
    finally:
        urlnorm._SIMPLE = simple
    assert fast == slow


def test_fetch_only_link_extraction_matches_an_html_parser() -> None:
    from urllib.parse import urljoin

    from selectolax.lexbor import LexborHTMLParser

    from trawl.crawl.crawler import extract_links
    from trawl.testweb import TestWeb

    web = TestWeb(7, hosts=30, pages=12, special=False)
    for host in ("h0.test", "h4.test", "h13.test"):  # UTF-8 and legacy encodings, meta and header
        for target in ("/", "/p/3.html", "/p/8.html?print=1"):
            body = web.respond(host, target, {}, 0.0).body
            base = f"http://{host}{target}"
            got = [(link.url, link.text) for link in extract_links(body, base)]
            tree = LexborHTMLParser(body.decode("utf-8", "replace"))
            want = [
                (urljoin(base, str(a.attributes.get("href"))), a.text(deep=True, strip=True))
                for a in tree.css("a[href]")
            ]
            assert got == want
    html = b"<a href=\"/x\">one <b>bold</b> &amp; more</a><A HREF='y.html'>y<a href=z>zz</a><a name=n>"
    got = [(link.url, link.text) for link in extract_links(html, "http://a.test/d/p")]
    assert got == [
        ("http://a.test/x", "one bold & more"),
        ("http://a.test/d/y.html", "y"),
        ("http://a.test/d/z", "zz"),
    ]


def test_feeds_say_when_to_poll_them() -> None:
    from datetime import UTC, datetime

    from trawl.crawl.discovery import next_poll

    rss1 = parse_feed(
        b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        b'xmlns:sy="http://purl.org/rss/1.0/modules/syndication/" xmlns="http://purl.org/rss/1.0/">'
        b"<channel><title>T</title><sy:updatePeriod>hourly</sy:updatePeriod>"
        b"<sy:updateFrequency>4</sy:updateFrequency></channel>"
        b"<item><title>A</title><link>http://x/a</link></item></rdf:RDF>"
    )
    assert rss1.ttl_seconds == 900.0 and rss1.links == [("http://x/a", "A")]
    rss = parse_feed(
        b"<rss><channel><ttl>30</ttl><skipHours><hour>0</hour><hour>1</hour><hour>2</hour></skipHours>"
        b"<skipDays><day>Sunday</day></skipDays><item><link>http://x/b</link></item></channel></rss>"
    )
    assert rss.ttl_seconds == 1800.0 and rss.skip_hours == {0, 1, 2} and rss.skip_days == {6}
    saturday_late = datetime(2024, 6, 1, 23, 30, tzinfo=UTC).timestamp()  # a Saturday
    after = datetime.fromtimestamp(next_poll(saturday_late + 1800, rss), UTC)
    assert (after.weekday(), after.hour, after.minute) == (0, 3, 0)  # past Sunday, past 0-2 h
    assert next_poll(saturday_late, rss) == saturday_late  # 23:30 on Saturday is allowed
    # entity declarations in a feed are refused as for every XML
    bomb = parse_feed(b'<!DOCTYPE rss [<!ENTITY a "x"><!ENTITY b "&a;&a;">]><rss>&b;</rss>')
    assert bomb.problem and not bomb.links
