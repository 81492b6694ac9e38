"""Push feeds (WebSub): the parsing of hub and self links, the callback server's bounds, and the
crawler subscribing at the test web's hub (``hub.test``) on loopback: verification, pushes
fetched at once (the feed's poll is an hour away), renewal, unsubscription, a hub that refuses,
and a hostile hub (forged, unsigned and oversized pushes, verifications nobody asked for).
No mocks: real sockets, the real hub calling back from its own threads."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import socket
import threading
import time

import pytest

from trawl.crawl.crawler import FEED_ENTRY_PRIORITY, Crawler, CrawlSettings
from trawl.crawl.discovery import FeedInfo, parse_feed, parse_link_header
from trawl.crawl.frontier import Frontier
from trawl.crawl.websub import CallbackRequest, CallbackServer, parse_listen, signature_ok, websub_links
from trawl.errors import ConfigError
from trawl.pipeline.stats import Stats
from trawl.testweb import LogEntry, ServerThread, TestWeb

ATOM = "http://news.test/push/atom.xml"
RSS = "http://news.test/push/rss.xml"
LINKED = "http://news.test/push/linked.xml"
REFUSED = "http://news.test/push/refused.xml"
HOSTILE = "http://news.test/push/hostile.xml"

# -- parsing ----------------------------------------------------------------------------------


def test_hub_and_self_links_of_atom_rss_and_the_link_header() -> None:
    atom = parse_feed(
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>'
        b'<link rel="alternate" href="http://a.test/"/><link rel="hub" href="http://hub.a/"/>'
        b'<link rel="hub" href="/second-hub"/><link rel="self" href="http://a.test/feed.xml"/>'
        b'<entry><link href="http://a.test/1"/><link rel="hub" href="http://evil.test/"/></entry></feed>'
    )
    assert atom.hubs == ["http://hub.a/", "/second-hub"] and atom.self_url == "http://a.test/feed.xml"
    assert atom.links == [("http://a.test/1", "")]  # an entry's own rel="hub" is no feed's hub
    rss = parse_feed(
        b'<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>R</title>'
        b'<atom:link rel="self" href="http://r.test/rss"/><atom:link href="http://hub.r/" rel="hub"/>'
        b"<item><link>http://r.test/1</link></item></channel></rss>"
    )
    assert rss.hubs == ["http://hub.r/"] and rss.self_url == "http://r.test/rss"
    plain = parse_feed(
        b'<rss version="2.0"><channel><item><link>http://r.test/1</link></item></channel></rss>'
    )
    assert plain.hubs == [] and plain.self_url is None

    assert parse_link_header('<http://hub.test/>; rel="hub", <http://x.test/f>; rel=self; type="a,b"') == [
        ("http://hub.test/", frozenset({"hub"})),
        ("http://x.test/f", frozenset({"self"})),
    ]
    assert parse_link_header('<http://h/>;rel="hub self";title="a\\"b"') == [
        ("http://h/", frozenset({"hub", "self"}))
    ]
    assert parse_link_header("no link at all") == []
    assert parse_link_header("<http://ok/>; rel=hub, junk <http://lost/>; rel=hub") == [
        ("http://ok/", frozenset({"hub"}))
    ]  # what came before the junk stands

    # the header comes first, relative URLs are made absolute, only http(s) is kept
    headers = [("Link", '<//hub.h/>; rel="hub", </topic.xml>; rel="self"'), ("Content-Type", "x")]
    hubs, topic = websub_links("http://site.test/feed.xml", headers, rss)
    assert hubs == ["http://hub.h/", "http://hub.r/"] and topic == "http://site.test/topic.xml"
    hubs, topic = websub_links("http://a.test/f", [], atom)
    assert hubs == ["http://hub.a/", "http://a.test/second-hub"] and topic == "http://a.test/feed.xml"
    odd = FeedInfo(hubs=["mailto:x@y", "javascript:alert(1)"], self_url="ftp://x/")
    assert websub_links("http://a.test/f", [], odd) == ([], "http://a.test/f")


def test_signatures_listen_addresses_and_settings() -> None:
    body = b"<feed/>"
    for method in ("sha1", "sha256", "sha512"):
        good = hmac.new(b"s3cret", body, method).hexdigest()
        assert signature_ok(f"{method}={good}", "s3cret", body)
        assert signature_ok(f"{method.upper()}={good.upper()}", "s3cret", body)
        assert not signature_ok(f"{method}={good}", "other", body)
        assert not signature_ok(f"{method}={good}", "s3cret", body + b" ")
    for bad in (None, "", "sha256", "md5=" + hashlib.md5(body).hexdigest(), "sha256=zz\u00e9"):
        assert not signature_ok(bad, "s3cret", body)
    assert parse_listen("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:8099") == ("::1", 8099)
    for bad in ("localhost", ":80", "host:port", "h:99999"):
        with pytest.raises(ConfigError, match="websub_listen"):
            parse_listen(bad)
    with pytest.raises(ConfigError, match="websub_listen"):
        CrawlSettings(websub=True, websub_listen="nowhere").check()
    with pytest.raises(ConfigError, match="websub_public_url"):
        CrawlSettings(websub=True, websub_public_url="ftp://x/").check()
    with pytest.raises(ConfigError, match="websub_lease"):
        CrawlSettings(websub=True, websub_max_bytes=0).check()
    CrawlSettings(websub=False, websub_listen="nowhere").check()  # not used, not checked


# -- the callback server's bounds ---------------------------------------------------------------


def test_the_callback_server_bounds_what_reaches_it() -> None:
    """Raw sockets against the server: oversized, malformed, slow and chunked requests each get
    their 4xx (or their answer) and a counter; nothing reaches the handler that should not."""
    stats = Stats()
    seen: list[CallbackRequest] = []

    def handler(request: CallbackRequest) -> tuple[int, bytes]:
        seen.append(request)
        return 200, request.body[::-1] or request.query.encode()

    async def main() -> dict[str, bytes]:
        server = CallbackServer(handler, stats=stats, max_bytes=1000, timeout=0.5)
        host, port = await server.start("127.0.0.1", 0)

        async def ask(data: bytes, *, wait: float = 0.0) -> bytes:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(data)
            if wait:
                await asyncio.sleep(wait)
            try:
                return await asyncio.wait_for(reader.read(), 3.0)
            finally:
                writer.close()

        post = b"POST /websub/x HTTP/1.1\r\nHost: h\r\n"
        answers = {
            "get": await ask(b"GET /websub/x?hub.challenge=abc HTTP/1.1\r\nHost: h\r\n\r\n"),
            "post": await ask(post + b"Content-Length: 5\r\n\r\nhello"),
            "chunked": await ask(
                post + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"
            ),
            "too-large": await ask(post + b"Content-Length: 5000\r\n\r\n" + b"x" * 100),
            "chunked-too-large": await ask(
                post + b"Transfer-Encoding: chunked\r\n\r\n" + (b"200\r\n" + b"x" * 512 + b"\r\n") * 3
            ),
            "head-too-long": await ask(b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"),
            "bad-line": await ask(b"HELLO\r\n\r\n"),
            "put": await ask(b"PUT /websub/x HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
            "two-lengths": await ask(post + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
            "folded": await ask(b"GET / HTTP/1.1\r\nX: a\r\n  b\r\n\r\n"),
            "gzip-coding": await ask(post + b"Transfer-Encoding: gzip\r\n\r\n"),
            "silent": await ask(b"POST /websub/x HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc", wait=0.8),
        }
        await server.close()
        return answers

    answers = asyncio.run(main())
    status = {k: v.split(b" ", 2)[1].decode() if v else "" for k, v in answers.items()}
    assert status["get"] == "200" and answers["get"].endswith(b"hub.challenge=abc")
    assert status["post"] == "200" and answers["post"].endswith(b"olleh")
    assert status["chunked"] == "200" and answers["chunked"].endswith(b"edcba")
    assert status["too-large"] == status["chunked-too-large"] == "413"
    assert status["head-too-long"] == "431"
    assert status["bad-line"] == status["two-lengths"] == status["folded"] == "400"
    assert status["put"] == "405" and status["gzip-coding"] == "501" and status["silent"] == "408"
    assert [r.method for r in seen] == ["GET", "POST", "POST"]  # only the three good ones
    assert stats["websub/too-large"] == 2 and stats["websub/timeout"] == 1
    assert stats["websub/bad-request"] == 6, stats.prefix("websub/")


# -- the crawler and the test web's hub ---------------------------------------------------------


def _settings(server: ServerThread, **changes: object) -> CrawlSettings:
    # the feeds' polls are an hour away: whatever the crawl learns later came by push
    return CrawlSettings(
        min_delay=0.0, delay_factor=0.0, max_retries=0, read_timeout=2.0, total_timeout=4.0, store=False,
        hosts=("news.test",), revisit_min=3600.0, revisit_max=3600.0, websub=True,
        resolve=tuple(server.resolve_rules()), **changes,  # type: ignore[arg-type]
    )  # fmt: skip


def _gets(log: list[LogEntry], prefix: str) -> list[LogEntry]:
    return [
        e for e in sorted(log, key=lambda e: e.start) if e.method == "GET" and e.target.startswith(prefix)
    ]


def test_subscribe_verify_push_renew_and_unsubscribe() -> None:
    """The crawl subscribes to the three push feeds whose hub accepts (Atom rel="hub", RSS
    atom:link, an HTTP Link header) and not to the one whose hub refuses; the hub verifies, pushes
    at once, grants 2 s leases (renewed); an entry published a second into the crawl is fetched
    within a second or two, while each feed was fetched once (its next poll is an hour away); at the end
    every subscription is unsubscribed and the hub verified that too."""
    web = TestWeb(1, hosts=1, pages=2, special=True, change_rates=(0.0,))
    web.hub.max_lease = 2.0
    published: list[tuple[str, float]] = []

    def publisher() -> None:
        deadline = time.monotonic() + 3.0
        while not web.hub.verified(ATOM) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)
        published.append((web.hub.publish(ATOM), time.monotonic()))

    with ServerThread(web) as server:
        thread = threading.Thread(target=publisher)
        thread.start()
        frontier = Frontier()
        result = asyncio.run(
            Crawler(_settings(server, max_seconds=3.5), frontier).run([ATOM, RSS, LINKED, REFUSED])
        )
        thread.join()
        log = server.log
    stats = result.stats
    assert result.stopped == "max-seconds"
    # one subscription per accepting hub's topic (the RSS feeds' topics from rel="self"), each
    # with its own callback; the refusing hub counted
    subscribed = [e for e in web.hub.of("subscribe") if e.detail == "/"]  # not hub.test/refuse
    topics = {e.topic for e in subscribed}
    assert topics == {ATOM, RSS, LINKED}, topics
    callbacks = {e.topic: e.callback for e in subscribed}
    assert len(set(callbacks.values())) == 3 and all("/websub/" in c for c in callbacks.values())
    assert stats["websub/subscribe-refused/403"] == 1 and stats["drop/websub/subscribe-refused"] == 1
    assert [e.topic for e in web.hub.events if e.detail == "/refuse"] == [REFUSED]
    verified = [e for e in web.hub.of("verify") if e.detail == "subscribe confirmed"]
    assert {e.topic for e in verified} == {ATOM, RSS, LINKED}
    assert all(e.status == 200 for e in verified)
    # leases of 2 s are renewed at 1.6 s: a second subscribe, verified again, same callback
    assert stats["websub/renew"] >= 3 and stats["websub/verified"] >= 6, stats.prefix("websub/")
    assert {(e.topic, e.callback) for e in subscribed} == set(callbacks.items())
    # pushes: each verified subscription's content at once, then the published entry
    pushes = web.hub.of("push")
    assert pushes and all(e.status == 202 for e in pushes), pushes
    assert stats["websub/notifications"] == len(pushes) and stats["websub/bad-signature"] == 0
    ((entry, when),) = published
    fetched = [e for e in _gets(log, "/push/story/") if entry.endswith(e.target)]
    assert len(fetched) == 1 and fetched[0].start - when < 2.0, (fetched, when)
    # ... without a poll: each feed was fetched once
    for feed in (ATOM, RSS, LINKED, REFUSED):
        assert len(_gets(log, feed[len("http://news.test") :])) == 1
    # the first pushes' entries were known from the feed itself; the published one was new
    assert stats["websub/new-entries"] == 1 and stats["websub/entries"] >= 7
    (row,) = frontier.db.execute("SELECT priority, depth FROM urls WHERE url = ?", (entry,)).fetchall()
    assert row[0] >= FEED_ENTRY_PRIORITY and row[1] == 1  # a feed entry's priority and depth
    # unsubscribed at the end, and the hub verified each unsubscription
    assert {e.topic for e in web.hub.of("unsubscribe")} == {ATOM, RSS, LINKED}
    gone = [e for e in web.hub.of("verify") if e.detail == "unsubscribe confirmed"]
    assert {e.topic for e in gone} == {ATOM, RSS, LINKED} and stats["websub/unsubscribed"] == 3
    assert not any(web.hub.verified(t) for t in (ATOM, RSS, LINKED))
    # the hub is an API endpoint: POSTed to, never crawled (not even its robots.txt)
    hub_requests = [e for e in log if e.host == "hub.test"]
    assert hub_requests and all(e.method == "POST" for e in hub_requests)
    frontier.close()


def test_a_hostile_hub_is_refused_and_counted() -> None:
    """hub.test/hostile verifies properly, then pushes with a wrong signature, with none, over
    the size cap, verifies a topic never asked for, an unsubscription never asked for, pushes to
    a made-up callback, and finally once properly: only the last one's entries are admitted, and
    the crawl goes on to its time limit."""
    web = TestWeb(1, hosts=1, pages=2, special=True, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = _settings(server, max_seconds=2.5, websub_max_bytes=64 << 10)
        result = asyncio.run(Crawler(settings, Frontier()).run([HOSTILE]))
        log = server.log
    stats = result.stats
    assert result.stopped == "max-seconds"
    events = {e.kind: e for e in web.hub.events}
    # forged and unsigned pushes: 2xx (as the spec asks), ignored, counted
    assert events["hostile/bad-signature"].status == events["hostile/no-signature"].status == 202
    assert stats["websub/bad-signature"] == 2 and stats["drop/websub/bad-signature"] == 2
    # oversized: refused before it was read (the hub may see the refusal or a reset)
    assert events["hostile/oversized"].status in (0, 413) and stats["websub/too-large"] == 1
    # verifications nobody asked for: 404, counted; the subscription still stands
    assert events["hostile/unsolicited-verify"].status == 404
    assert events["hostile/unsolicited-unsubscribe"].status == 404
    assert stats["websub/verify-refused"] == 2
    assert events["hostile/forged-callback"].status == 410 and stats["websub/unknown-callback"] == 1
    # the one proper push got through; nothing of the others was fetched
    assert events["push"].status == 202 and stats["websub/notifications"] == 1
    assert not _gets(log, "/push/evil/")
    assert stats["websub/verified"] == 1 and stats["websub/unsubscribed"] == 1
    assert stats["error/websub/Exception"] == 0 and not stats.prefix("error/")


@pytest.mark.parametrize("transport", ["http", "aiohttp"])
def test_without_max_time_the_crawl_does_not_wait_for_pushes(transport: str) -> None:
    """As a feed's next poll: a crawl without --max-time (and without --revisit) ends when the
    rest is done, and still unsubscribes what it subscribed to (both transports POST)."""
    web = TestWeb(1, hosts=1, pages=2, special=True, change_rates=(0.0,))
    with ServerThread(web) as server:
        t0 = time.monotonic()
        result = asyncio.run(Crawler(_settings(server, transport=transport), Frontier()).run([ATOM]))
    assert result.stopped == "done" and time.monotonic() - t0 < 4.0
    assert result.stats["websub/subscribe"] == 1
    assert [e.topic for e in web.hub.of("unsubscribe")] == [ATOM]


def test_a_busy_callback_port_is_a_config_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = CrawlSettings(websub=True, websub_listen=f"127.0.0.1:{port}", store=False)
        with pytest.raises(ConfigError, match="websub_listen"):
            asyncio.run(Crawler(settings, Frontier()).run([]))
