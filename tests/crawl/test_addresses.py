"""Not an open door: a crawl refuses the machine's own network (loopback, private, link-local,
multicast...) after every DNS lookup and on every redirect, unless its user lets it in."""

from __future__ import annotations

import asyncio

import pytest

from trawl.crawl.addresses import address_class
from trawl.crawl.crawler import Crawler, CrawlResult, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.testweb import ServerThread, TestWeb


@pytest.mark.parametrize(
    ("ip", "kind"),
    [
        ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
        ("10.1.2.3", "private"), ("172.16.5.4", "private"), ("192.168.1.1", "private"),
        ("fc00::1", "private"), ("::ffff:10.0.0.1", "private"), ("2002:7f00:1::", "loopback"),
        ("169.254.169.254", "link-local"), ("fe80::1", "link-local"), ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"), ("100.64.0.1", "shared"), ("0.0.0.0", "unspecified"),
        ("::", "unspecified"), ("not an address", "reserved"),
        ("8.8.8.8", None), ("93.184.216.34", None), ("2001:4860:4860::8888", None),
    ],
)  # fmt: skip
def test_address_classes(ip: str, kind: str | None) -> None:
    assert address_class(ip) == kind


def _crawl(server: ServerThread, seeds: list[str], **kw: object) -> CrawlResult:
    settings = CrawlSettings(
        min_delay=0.0, delay_factor=0.0, store=False, max_seconds=20, connect_timeout=2.0,
        resolve=tuple(server.resolve_rules()), **kw,  # type: ignore[arg-type]
    )  # fmt: skip
    return asyncio.run(Crawler(settings, Frontier()).run(seeds))


@pytest.mark.parametrize("transport", ["http", "aiohttp"])
def test_the_machine_s_own_network_is_refused_unless_allowed(transport: str) -> None:
    """127.0.0.1 by its address, ``localhost`` by the system's resolver, and 169.254.169.254
    (a cloud's metadata service) are refused before any connection, each counted as
    drop/address/<class>; a redirect from a public host into them too. With --allow-private the
    same loopback URL is fetched (the test web answers it)."""
    pytest.importorskip("aiohttp") if transport == "aiohttp" else None
    web = TestWeb(1, hosts=1, pages=3)
    with ServerThread(web) as server:
        port = server.port
        direct = [f"http://127.0.0.1:{port}/", f"http://localhost:{port}/p/1.html", "http://169.254.169.254/"]
        before = len(server.log)
        result = _crawl(server, direct, transport=transport)
        assert len(server.log) == before  # not one request reached the server
        counters = result.stats.counters
        assert result.pages == 0
        assert counters.get("drop/address/loopback", 0) >= 2, counters
        assert counters.get("drop/address/link-local", 0) >= 1, counters
        # a public host (here: a --resolve rule, which the user allows) redirecting inside
        result = _crawl(
            server, ["http://redirects.test/inside", "http://redirects.test/metadata"], transport=transport
        )
        counters = result.stats.counters
        # each: its robots.txt request and the page itself
        assert counters.get("drop/address/loopback") == 2 and counters.get("drop/address/link-local") == 2
        assert counters.get("fetch/status/302") == 2  # the public host was asked; the targets not
        allowed = _crawl(server, [f"http://127.0.0.1:{port}/"], transport=transport, allow_private=True)
        assert allowed.pages >= 1 and any(e.host.startswith("127.0.0.1") for e in server.log)


def test_the_flag_and_the_setting() -> None:
    from trawl.cli.crawl import settings_from
    from trawl.cli.main import build_parser

    parser = build_parser("crawl")
    assert settings_from(parser.parse_args(["crawl", "http://x.test/", "-o", "c"])).allow_private is False
    args = parser.parse_args(["crawl", "http://x.test/", "-o", "c", "--allow-private"])
    assert settings_from(args).allow_private is True
