"""The generated web is deterministic, and its server answers and logs as specified."""

from __future__ import annotations

import http.client

from trawl.testweb import ServerThread, TestWeb


def _get(
    port: int, host: str, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Host": host, **(headers or {})})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def test_same_seed_same_web_and_duplicates() -> None:
    a = TestWeb(5, hosts=20, change_rates=(0.0,))
    b = TestWeb(5, hosts=20, change_rates=(0.0,))
    for host, path in [("h3.test", "/p/4.html"), ("h7.test", "/"), ("h2.test", "/robots.txt")]:
        assert a.respond(host, path, {}, 10.0).body == b.respond(host, path, {}, 10.0).body
    # i = 9 mod 10 repeats page i-2 byte for byte; i = 8 mod 10 is page i-1 with one line changed
    body = {i: a.respond("h4.test", f"/p/{i}.html", {}, 1).body for i in (17, 18, 19)}
    assert body[19] == body[17]
    assert body[18] != body[17] and body[18].replace(b" (mirror)", b"") == body[17]


def test_pages_change_at_their_poisson_rate() -> None:
    web = TestWeb(1, hosts=3, change_rates=(2.0,))
    count, _ = web.version("h1.test", 0, 500.0)
    assert 850 < count < 1150  # 2 events/s over 500 s
    first = web.respond("h1.test", "/p/0.html", {}, 0.0)
    later = web.respond("h1.test", "/p/0.html", {}, 100.0)
    assert first.body != later.body
    etag = dict(later.headers)["ETag"]
    assert web.respond("h1.test", "/p/0.html", {"if-none-match": etag}, 100.0).status == 304


def test_server_serves_hosts_and_logs() -> None:
    web = TestWeb(2, hosts=5)
    with ServerThread(web) as server:
        status, headers, body = _get(server.port, "h0.test", "/")
        assert status == 200 and b"h1.test" in body
        assert _get(server.port, "h3.test", "/robots.txt")[0] in (200, 404)
        assert _get(server.port, "nope.example", "/")[0] == 421
        assert _get(server.port, "redirects.test", "/loop/a")[1]["location"] == "/loop/b"
        status, headers, body = _get(server.port, "bomb.test", "/")
        assert headers["content-encoding"] == "gzip" and len(body) < 200_000
        status, headers, body = _get(server.port, "x", "http://h2.test/p/1.html")  # absolute form
        assert status == 200 and b"<title>" in body
    hosts = [entry.host for entry in server.log]
    assert hosts[:2] == ["h0.test", "h3.test"] and len(server.log) == 6


def test_prerendered_and_cached_pages_are_the_rendered_ones() -> None:
    fresh = TestWeb(6, hosts=4, pages=6, special=False, change_rates=(0.0, 1.0))
    cached = TestWeb(6, hosts=4, pages=6, special=False, change_rates=(0.0, 1.0))
    assert cached.prerender(now=0.0) == 4 * 6 * 2
    for now in (0.0, 30.0):  # at 30 s the pages of rate 1/s have changed: rendered anew, not stale
        for target in ("/p/0.html", "/p/1.html", "/p/2.html?print=1"):
            fresh._pages.clear()
            a = fresh.respond("h2.test", target, {}, now)
            b = cached.respond("h2.test", target, {}, now)
            assert (a.status, a.headers, a.body) == (b.status, b.headers, b.body)
    etag = dict(cached.respond("h1.test", "/p/1.html", {}, 30.0).headers)["ETag"]
    assert cached.respond("h1.test", "/p/1.html", {"if-none-match": etag}, 30.0).status == 304
