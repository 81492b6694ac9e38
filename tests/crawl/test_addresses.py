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


@pytest.mark.parametrize("transport", ["http", "aiohttp"])
def test_a_name_that_rebinds_to_loopback_is_refused_on_the_later_lookup(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: ``rebind.example`` first resolves to a public address, then (its TTL spent)
    to 127.0.0.1 — where the test web listens on the URL's port, so a transport that trusted its
    first check would reach it. The system resolver is the one part stood in for (no DNS server
    can be reached from a test); every later lookup is checked again and refused, and not one
    request reaches the server. With private addresses allowed, the same lookup does reach it:
    the refusal is the guard's doing, not a closed port's."""
    import socket

    from trawl.crawl.http11 import HttpTransport
    from trawl.crawl.transport import AiohttpTransport, FetchError, FetchRequest

    pytest.importorskip("aiohttp") if transport == "aiohttp" else None
    web = TestWeb(1, hosts=1, pages=3)
    answers: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: object, port: object, *args: object, **kw: object) -> list[object]:
        if host != "rebind.example":
            return real(host, port, *args, **kw)  # type: ignore[arg-type]
        address = "93.184.216.34" if not answers else "127.0.0.1"  # public once, then loopback
        answers.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]  # type: ignore[call-overload]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)

    async def fetch_twice(allow_private: bool) -> list[str]:
        kind = HttpTransport if transport == "http" else AiohttpTransport
        client = kind(dns_ttl=0, connect_timeout=0.5, read_timeout=2.0, allow_private=allow_private)
        outcomes = []
        try:
            for _ in range(2):
                try:
                    resp = await client.fetch(FetchRequest(f"http://rebind.example:{server.port}/"))
                    outcomes.append(f"status/{resp.status}")
                except FetchError as exc:
                    outcomes.append(exc.kind)
        finally:
            await client.close()
        return outcomes

    with ServerThread(web) as server:
        before = len(server.log)
        first, second = asyncio.run(fetch_twice(allow_private=False))
        assert answers == ["93.184.216.34", "127.0.0.1"]
        assert not first.startswith("address/")  # public: tried (nothing answers it offline)
        assert second == "address/loopback"  # the later lookup is checked again
        assert len(server.log) == before  # not one request reached the loopback server
        answers.clear()
        _, allowed = asyncio.run(fetch_twice(allow_private=True))
        assert allowed.startswith("status/") and len(server.log) > before


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://[FE80::1]/a", "http://[fe80::1]/a"),
        ("http://[::ffff:127.0.0.1]:80/", "http://[::ffff:7f00:1]/"),
        ("http://[2001:db8:0:0::1]/", "http://[2001:db8::1]/"),
        ("http://[zz::1]/", None),
    ],
)
def test_ipv6_literals_keep_their_brackets(url: str, normal: str | None) -> None:
    from trawl.crawl.urlnorm import normalize_url

    assert normalize_url(url) == normal


def test_ipv6_literals_of_the_machine_s_network_are_refused() -> None:
    """``[::1]``, ``[fe80::1]``, ``[fc00::1]`` and 127.0.0.1 inside IPv6: each refused by its class
    before any connection (they were once mangled into unfetchable URLs instead: refused by
    accident, counted as protocol errors)."""
    web = TestWeb(1, hosts=1, pages=3)
    with ServerThread(web) as server:
        seeds = [f"http://[::1]:{server.port}/", "http://[fe80::1]/", "http://[fc00::1]/"]
        seeds.append(f"http://[::ffff:127.0.0.1]:{server.port}/")
        result = _crawl(server, seeds)
    counters = result.stats.counters
    assert counters.get("drop/address/loopback") == 4, counters  # robots.txt and page, twice
    assert counters.get("drop/address/link-local") == 2 and counters.get("drop/address/private") == 2
    assert not any(k.startswith("robots/error/protocol") for k in counters), counters
