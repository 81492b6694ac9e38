"""Revisit scheduling and focused crawling, judged against the test web's ground truth."""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict

from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.testweb import ServerThread, TestWeb


def test_revisits_follow_the_change_rate_and_use_conditional_get() -> None:
    web = TestWeb(5, hosts=2, pages=4, special=False, change_rates=(0.0, 3.0))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0,
            delay_factor=0.0,
            revisit=True,
            revisit_min=0.15,
            revisit_max=1.5,
            max_seconds=5.0,
            sitemaps=False,
            store=False,
            include=(r"/p/\d+\.html$",),
            resolve=tuple(server.resolve_rules()),
        )
        frontier = Frontier()
        result = asyncio.run(
            Crawler(settings, frontier).run(["http://h0.test/p/0.html", "http://h1.test/p/1.html"])
        )
    visits: dict[float, list[int]] = defaultdict(list)
    for url, fetches in frontier.db.execute("SELECT url, fetches FROM urls WHERE fetches > 0"):
        page = int(url.rsplit("/", 1)[1].split(".")[0])
        visits[web.change_rate("", page)].append(fetches)
    fast = sum(visits[3.0]) / len(visits[3.0])
    still = sum(visits[0.0]) / len(visits[0.0])
    assert fast > 1.8 * still, (fast, still)
    assert result.stats.get("fetch/not-modified") >= 1  # unchanged pages answer 304 to If-None-Match
    assert result.stats.get("revisit/changed") >= 1


def test_focus_fetches_on_topic_pages_first() -> None:
    web = TestWeb(8, hosts=40, pages=18, special=False, change_rates=(0.0,))
    # the topic is "German": function words that German titles (the anchor texts) and texts share
    topic = ("der", "die", "und", "des", "das", "den", "ist", "mit", "von", "zum")

    def on_topic_share(focus: tuple[str, ...]) -> float:
        with ServerThread(web) as server:
            settings = CrawlSettings(
                min_delay=0.0,
                delay_factor=0.0,
                concurrency=4,
                max_pages=120,
                sitemaps=False,
                robots=False,
                store=False,
                focus=focus,
                resolve=tuple(server.resolve_rules()),
            )
            asyncio.run(Crawler(settings, Frontier()).run(web.seeds()))
        fetched = [e for e in server.log if e.target.startswith("/p/")]
        return sum(web.language(e.host) == "de" for e in fetched) / max(1, len(fetched))

    focused, unfocused = on_topic_share(topic), on_topic_share(())
    assert focused > 0.5 and focused > 2 * unfocused, (focused, unfocused)


def test_feeds_are_polled_at_their_ttl() -> None:
    web = TestWeb(6, hosts=1, pages=2, special=True, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0,
            delay_factor=0.0,
            revisit=True,
            revisit_min=0.3,
            revisit_max=0.8,  # the feed's ttl (1 minute) is capped here
            max_seconds=3.0,
            store=False,
            hosts=("news.test",),
            resolve=tuple(server.resolve_rules()),
        )
        result = asyncio.run(Crawler(settings, Frontier()).run(["http://news.test/rss.xml"]))
    polls = [e for e in server.log if e.target == "/rss.xml"]
    assert len(polls) >= 3
    assert all(b.start - a.start >= 0.8 - 0.05 for a, b in itertools.pairwise(polls))
    assert result.stats.get("discover/feed-links") >= len(polls) - 1  # each poll read the items
