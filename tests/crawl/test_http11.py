"""trawl's own HTTP/1.1 client against a scripted server on loopback: framing, caps, reuse, errors.

Each case is a raw byte answer written by a real asyncio server, so what the client parses is
exactly what a misbehaving server would send.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from trawl.crawl.http11 import HttpTransport
from trawl.crawl.transport import FetchError, FetchRequest, FetchResponse

# (request head, n-th request on the connection) -> the answer; None: close without one. An
# answer that starts with CLOSE is sent (without the marker), then the connection is closed.
Script = Callable[[bytes, int], bytes | None]
CLOSE = b"<close>"


async def _serve(script: Script, requests: list[bytes]) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        n = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                requests.append(head)
                answer = script(head, n)
                n += 1
                if answer is None:
                    break
                writer.write(answer.removeprefix(CLOSE))
                await writer.drain()
                if answer.startswith(CLOSE):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def _fetch(
    script: Script,
    *urls: str,
    accept: tuple[str, ...] = (),
    max_bytes: int = 1 << 20,
    read_timeout: float = 20.0,
) -> tuple[list[FetchResponse | FetchError], list[bytes]]:
    requests: list[bytes] = []

    async def main() -> list[FetchResponse | FetchError]:
        server, port = await _serve(script, requests)
        transport = HttpTransport(resolve=[f"*.test=127.0.0.1:{port}"], read_timeout=read_timeout)
        out: list[FetchResponse | FetchError] = []
        try:
            for url in urls:
                try:
                    out.append(
                        await transport.fetch(
                            FetchRequest(url, [("If-None-Match", '"x"')], max_bytes, accept)
                        )
                    )
                except FetchError as exc:
                    out.append(exc)
        finally:
            await transport.close()
            server.close()
        return out

    return asyncio.run(main()), requests


def _ok(r: FetchResponse | FetchError) -> FetchResponse:
    assert isinstance(r, FetchResponse), r
    return r


def test_content_length_keep_alive_and_request_headers() -> None:
    def script(head: bytes, n: int) -> bytes:
        body = f"page {n}".encode()
        return b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body),
            body,
        )

    (a, b), requests = _fetch(script, "http://a.test/x?q=1#frag", "http://a.test/y")
    assert _ok(a).body == b"page 0" and _ok(b).body == b"page 1"  # n=1: the same connection again
    assert requests[0].startswith(b"GET /x?q=1 HTTP/1.1\r\nHost: a.test\r\n")
    assert b'If-None-Match: "x"' in requests[0] and b"Accept-Encoding: gzip, deflate" in requests[0]
    assert ("Host", "a.test") in _ok(a).request_headers and _ok(a).ip == "127.0.0.1"


def test_chunked_with_trailers_interim_answer_and_folded_header() -> None:
    answer = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Long: one\r\n two\r\n\r\n"
        b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
    )
    (r, again), _ = _fetch(lambda h, n: answer, "http://a.test/", "http://a.test/")
    r = _ok(r)
    assert r.status == 200 and r.body == b"hello world" and _ok(again).body == b"hello world"
    assert r.header("X-Long") == "one two" and r.header("Transfer-Encoding") is None


def test_http10_body_until_close_and_304_without_body() -> None:
    (r,), _ = _fetch(lambda h, n: CLOSE + b"HTTP/1.0 200 OK\r\n\r\nto the end", "http://a.test/")
    assert _ok(r).body == b"to the end"
    (r,), _ = _fetch(lambda h, n: b'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n', "http://a.test/")
    assert _ok(r).status == 304 and _ok(r).body == b""


def test_size_cap_and_content_type_filter() -> None:
    big = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000
    (r,), _ = _fetch(lambda h, n: big, "http://a.test/", max_bytes=1000)
    assert _ok(r).truncated and len(_ok(r).body) == 1000
    png = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\n\x89PNG!"
    (r,), _ = _fetch(lambda h, n: png, "http://a.test/", accept=("text/html",))
    assert _ok(r).skipped == "content-type" and _ok(r).body == b""


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (b"SSH-2.0-OpenSSH_9.6\r\n", "protocol"),  # not HTTP
        (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", "payload"),  # closes inside the body
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "protocol"),  # bad chunk size
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "protocol"),
        (b"HTTP/1.1 200 OK\r\nContent-Le", "protocol"),  # closes inside the headers
    ],
)
def test_broken_answers_are_named_errors(answer: bytes, kind: str) -> None:
    (r,), _ = _fetch(lambda h, n: CLOSE + answer, "http://a.test/")
    assert isinstance(r, FetchError) and r.kind == kind, r


def test_read_timeout_dns_failure_and_refused_connection() -> None:
    (r,), _ = _fetch(
        lambda h, n: b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nslow", "http://a.test/", read_timeout=0.3
    )
    assert isinstance(r, FetchError) and r.kind == "timeout"

    async def other() -> list[FetchError]:
        transport = HttpTransport(resolve=["gone.test=fail", "closed.test=127.0.0.1:1"])
        out = []
        for url in ("http://gone.test/", "http://closed.test/"):
            with pytest.raises(FetchError) as info:
                await transport.fetch(FetchRequest(url))
            out.append(info.value)
        await transport.close()
        return out

    dns, refused = asyncio.run(other())
    assert dns.kind == "dns" and refused.kind == "connect"


def test_a_pooled_connection_closed_by_the_server_is_replaced() -> None:
    def once(head: bytes, n: int) -> bytes | None:
        # the answer promises keep-alive, but the server closes when the next request comes
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" if n == 0 else None

    (a, b), requests = _fetch(once, "http://a.test/1", "http://a.test/2")
    assert _ok(a).body == b"ok" and _ok(b).body == b"ok"
    assert len(requests) == 3  # the second request was sent twice: on the dead connection, then anew


@pytest.mark.parametrize(
    "head",
    [
        b"X-Huge: " + b"x" * (1 << 20) + b"\r\n",  # one 1 MiB line (more than one read's worth)
        b"X-Big: " + b"x" * 70_000 + b"\r\n",  # just past the limit
        b"".join(b"X-%d: y\r\n" % i for i in range(5000)),  # many short lines, under 64 KiB
    ],
)
def test_huge_response_heads_are_refused(head: bytes) -> None:
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + head + b"\r\nok"
    fine = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
    (r, after), _ = _fetch(
        lambda h, n: fine if b"/next" in h else answer, "http://a.test/", "http://a.test/next"
    )
    assert isinstance(r, FetchError) and r.kind == "headers-too-large", r
    assert _ok(after).body == b"hi"  # on a new connection


def test_bytes_past_the_content_length_never_answer_the_next_request() -> None:
    forged = b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nSMUGGLED"
    answers = {
        0: b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + forged,
        1: b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nreal",
    }
    (first, second), requests = _fetch(
        lambda h, n: answers[int(b"/2 " in h)], "http://a.test/", "http://a.test/2"
    )
    assert _ok(first).body == b"hello" and first.overrun  # type: ignore[union-attr]
    assert _ok(second).body == b"real" and not second.overrun  # type: ignore[union-attr]
    assert len(requests) == 2
