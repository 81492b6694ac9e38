"""A lean HTTP/1.1 client on :class:`asyncio.Protocol`: the crawler's default transport.

Why not aiohttp: a crawler asks for one URL at a time per host and reads the whole (capped)
body; it needs no cookies, sessions, middlewares, multidicts, tracing or decompression. aiohttp
spends ~0.5 ms of CPU on each request for those (measured against this module's ~0.1 ms on the
same server, ``bench/crawl.py``), which on a small machine is the difference between the
crawler and the network being the bottleneck. This module does exactly what
:class:`~trawl.crawl.transport.Transport` promises and no more:

* ``GET`` (or ``HEAD``, whose answer has no body whatever its ``Content-Length`` says; or a
  ``POST`` with a small body sent whole, with its ``Content-Length``: a WebSub hub's form) with
  ``Host``, ``User-Agent``, ``Accept``, ``Accept-Encoding: gzip, deflate`` and the request's own
  headers (conditional GET); the headers sent are returned for the WARC request record;
* responses framed by ``Content-Length``, ``Transfer-Encoding: chunked`` (de-chunked; the header
  is dropped from the stored headers, as the body no longer is chunked) or the end of the
  connection; ``1xx`` answers skipped; bodies kept as sent (``Content-Encoding`` is not undone:
  :mod:`trawl.decode.http` does that, bounded);
* the content-type filter on the headers, before any body byte is read (the connection is
  closed), and the size cap while the body arrives (``truncated``);
* connect, read (between two arrivals of bytes) and total timeouts, checked by one timer per
  request;
* keep-alive connections pooled per ``(scheme, host, port)``, at most ``connections`` idle ones
  (the least recently used is closed first), none older than ``keepalive`` seconds; a pooled
  connection the server closed meanwhile is replaced once, transparently;
* name resolution through ``--resolve`` rules (:class:`~trawl.crawl.transport.ResolveRule`), then
  the system resolver, cached for ``dns_ttl`` seconds;
* ``https`` with the default (verifying) TLS context.

Errors are :class:`~trawl.crawl.transport.FetchError` with the same kinds as the aiohttp
transport: ``dns``, ``connect``, ``timeout``, ``protocol`` (not HTTP, bad framing), ``payload``
(the connection ended inside the body), ``headers-too-large`` (a head over 64 KiB or 1,000 lines).
Bytes past the body a ``Content-Length`` framed are never read as the next answer: the connection
is closed and the response marked ``overrun``.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import quote

from trawl.crawl.addresses import refusal
from trawl.crawl.transport import (
    FetchError,
    FetchRequest,
    FetchResponse,
    ResolveRule,
    match_rule,
    parse_resolve_rules,
)

__all__ = ["HttpTransport"]

_MAX_HEAD = 65536
_MAX_HEADER_LINES = 1000  # real answers carry dozens; thousands are an attack on the parser
_HEAD, _LENGTH, _CHUNKED, _UNTIL_CLOSE, _DONE = 0, 1, 2, 3, 4
_SAFE = "/?&=%:@!$'()*+,;~-._[]"


class _Stale(Exception):
    """A pooled connection closed by the server before any byte of the answer: retry once."""


class _Conn(asyncio.Protocol):
    """One connection; answers one request at a time (no pipelining)."""

    __slots__ = (
        "accept",
        "body",
        "buf",
        "cap",
        "closed",
        "deadline",
        "got",
        "head_only",
        "headers",
        "idle_since",
        "ip",
        "keep_alive",
        "key",
        "last",
        "loop",
        "overrun",
        "read_timeout",
        "remaining",
        "size",
        "skipped",
        "state",
        "status",
        "timer",
        "transport",
        "truncated",
        "waiter",
    )

    def __init__(self, loop: asyncio.AbstractEventLoop, key: tuple[str, str, int]) -> None:
        self.loop = loop
        self.key = key
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.state = _DONE
        self.waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.ip: str | None = None
        self.idle_since = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self._reset()

    def _reset(self) -> None:
        self.status = 0
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []
        self.size = 0
        self.remaining = 0
        self.truncated = False
        self.overrun = False
        self.skipped: str | None = None
        self.keep_alive = False
        self.got = False
        self.cap = 0
        self.accept: tuple[str, ...] = ()
        self.head_only = False  # a HEAD request: the answer ends with its headers
        self.last = 0.0
        self.deadline = 0.0
        self.read_timeout = 0.0

    # -- asyncio callbacks -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        peer = transport.get_extra_info("peername")
        self.ip = peer[0] if peer else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is None or self.waiter.done():
            return
        if self.state == _UNTIL_CLOSE:
            self._complete(keep=False)
        elif not self.got:
            self._fail(_Stale())
        elif self.state == _HEAD:
            self._fail(FetchError("protocol", "the connection closed inside the response headers"))
        else:
            self._fail(FetchError("payload", "the connection closed before the end of the body"))

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():
            self.keep_alive = False  # bytes nobody asked for: this connection is not reusable
            self._close()
            return
        self.got = True
        self.last = self.loop.time()
        self.buf += data
        try:
            self._parse()
        except FetchError as exc:
            self._fail(exc)
        except (ValueError, UnicodeError) as exc:
            self._fail(FetchError("protocol", f"malformed response: {exc}"))

    # -- parsing ---------------------------------------------------------------------------------

    def _parse(self) -> None:
        buf = self.buf
        while True:
            state = self.state
            if state == _HEAD:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    if len(buf) >= 5 and not buf.startswith(b"HTTP/"):
                        raise FetchError("protocol", f"not an HTTP response: {bytes(buf[:40])!r}")
                    if len(buf) > _MAX_HEAD:
                        raise FetchError(
                            "headers-too-large", f"response headers longer than {_MAX_HEAD} bytes"
                        )
                    return
                if end > _MAX_HEAD:  # all of it came in one read: the bound holds all the same
                    raise FetchError(
                        "headers-too-large", f"response headers of {end} bytes (limit {_MAX_HEAD})"
                    )
                head = bytes(buf[:end])
                del buf[: end + 4]
                if self._head(head):
                    return
                continue
            if state == _LENGTH:
                take = min(len(buf), self.remaining)
                if take:
                    self._add(bytes(buf[:take]) if take < len(buf) else bytes(buf))
                    del buf[:take]
                    self.remaining -= take
                if self.state != _LENGTH:
                    return
                if self.remaining == 0:
                    self.overrun = bool(buf)  # bytes past the body: never read as the next answer
                    self._complete(keep=self.keep_alive and not buf)
                return
            if state == _CHUNKED:
                if not self._chunks():
                    return
                continue
            if state == _UNTIL_CLOSE:
                if buf:
                    self._add(bytes(buf))
                    buf.clear()
                return
            return

    def _head(self, head: bytes) -> bool:
        """Parse the status line and headers; True if the caller should stop parsing."""
        lines = head.split(b"\r\n")
        if len(lines) > _MAX_HEADER_LINES:
            raise FetchError(
                "headers-too-large", f"{len(lines) - 1} header lines (limit {_MAX_HEADER_LINES})"
            )
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise FetchError("protocol", f"bad status line: {lines[0][:80]!r}")
        status = int(parts[1])
        if not 100 <= status <= 999:
            raise FetchError("protocol", f"bad status {status}")
        if 100 <= status < 200:
            return False  # an interim answer (100 Continue, 103 Early Hints): the real one follows
        headers: list[tuple[str, str]] = []
        length: int | None = None
        chunked = False
        connection = ""
        ctype = ""
        for raw in lines[1:]:
            if raw[:1] in (b" ", b"\t") and headers:  # obsolete line folding
                name, value = headers[-1]
                headers[-1] = (name, value + " " + raw.strip().decode("latin-1"))
                continue
            name_b, sep, value_b = raw.partition(b":")
            if not sep:
                continue
            name = name_b.strip().decode("latin-1")
            value = value_b.strip().decode("latin-1")
            lname = name.lower()
            if lname == "transfer-encoding":
                chunked = chunked or "chunked" in value.lower()
                continue  # the body is stored de-chunked
            if lname == "content-length":
                if not value.isdigit():
                    raise FetchError("protocol", f"bad Content-Length {value[:40]!r}")
                if length is not None and int(value) != length:
                    raise FetchError("protocol", "two different Content-Length headers")
                length = int(value)
            elif lname == "connection":
                connection = value.lower()
            elif lname == "content-type":
                ctype = value
            headers.append((name, value))
        self.status = status
        self.headers = headers
        http10 = parts[0] == b"HTTP/1.0"
        self.keep_alive = ("keep-alive" in connection) if http10 else ("close" not in connection)
        if self.accept and 200 <= status < 300:
            media = ctype.split(";", 1)[0].strip().lower()
            if media and not media.startswith(self.accept):
                self.skipped = "content-type"
                self.keep_alive = False
                self._complete(keep=False)
                return True
        if status in (204, 304) or self.head_only:
            self._complete(keep=self.keep_alive and not self.buf)
            return True
        if chunked:
            self.state = _CHUNKED
        elif length is not None:
            if length > self.cap:
                self.truncated = True
            self.state = _LENGTH
            self.remaining = length
            if length == 0:
                self._complete(keep=self.keep_alive and not self.buf)
                return True
        else:
            self.state = _UNTIL_CLOSE
            self.keep_alive = False
        return False

    def _chunks(self) -> bool:
        """Consume whole chunks from the buffer; True if the state changed (parse on)."""
        buf = self.buf
        while self.state == _CHUNKED:
            if self.remaining > 0:  # inside a chunk: remaining counts its bytes plus the CRLF
                if len(buf) < self.remaining:
                    return False
                data = bytes(buf[: self.remaining - 2])
                if buf[self.remaining - 2 : self.remaining] != b"\r\n":
                    raise FetchError("protocol", "a chunk does not end with CRLF")
                del buf[: self.remaining]
                self.remaining = 0
                self._add(data)
                continue
            end = buf.find(b"\r\n")
            if end < 0:
                if len(buf) > 4096:
                    raise FetchError("protocol", "chunk size line too long")
                return False
            line = bytes(buf[:end]).split(b";", 1)[0].strip()
            try:
                size = int(line, 16)
            except ValueError:
                raise FetchError("protocol", f"bad chunk size {line[:20]!r}") from None
            if size == 0:  # the last chunk: optional trailers, then an empty line
                stop = buf.find(b"\r\n\r\n", end)
                if stop < 0:
                    if len(buf) > _MAX_HEAD:
                        raise FetchError("protocol", "chunked trailers too long")
                    return False
                del buf[: stop + 4]
                self._complete(keep=self.keep_alive and not buf)
                return True
            del buf[: end + 2]
            self.remaining = size + 2
        return True

    def _add(self, data: bytes) -> None:
        room = self.cap - self.size
        if len(data) > room:
            self.body.append(data[:room])
            self.size = self.cap
            self.truncated = True
            self._complete(keep=False)
            return
        self.body.append(data)
        self.size += len(data)

    # -- completion ------------------------------------------------------------------------------

    def _complete(self, *, keep: bool) -> None:
        self.keep_alive = keep
        self.state = _DONE
        self._stop_timer()
        if not keep:
            self._close()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _fail(self, exc: BaseException) -> None:
        self.keep_alive = False
        self.state = _DONE
        self._stop_timer()
        self._close()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)

    def _close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()
        self.closed = True

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _tick(self) -> None:
        self.timer = None
        if self.waiter is None or self.waiter.done():
            return
        now = self.loop.time()
        if now >= self.deadline:
            self._fail(FetchError("timeout", "no complete answer within the total timeout"))
            return
        idle = now - self.last
        if idle >= self.read_timeout:
            self._fail(FetchError("timeout", f"read timeout: nothing for {idle:.1f} s"))
            return
        wait = min(self.read_timeout - idle, self.deadline - now)
        self.timer = self.loop.call_later(wait, self._tick)

    # -- one exchange ----------------------------------------------------------------------------

    def send(
        self,
        data: bytes,
        *,
        cap: int,
        accept: tuple[str, ...],
        read_timeout: float,
        deadline: float,
        head_only: bool = False,
    ) -> asyncio.Future[None]:
        self._reset()
        self.buf.clear()
        self.head_only = head_only
        self.cap = cap
        self.accept = accept
        self.read_timeout = read_timeout
        self.deadline = deadline
        self.state = _HEAD
        self.last = self.loop.time()
        self.waiter = self.loop.create_future()
        self.timer = self.loop.call_later(min(read_timeout, max(0.0, deadline - self.last)), self._tick)
        assert self.transport is not None
        self.transport.write(data)
        return self.waiter


class HttpTransport:
    """The default :class:`~trawl.crawl.transport.Transport` (see the module docstring)."""

    def __init__(
        self,
        *,
        resolve: Sequence[str] = (),
        user_agent: str = "trawl/0.1",
        connect_timeout: float = 10.0,
        read_timeout: float = 20.0,
        total_timeout: float = 60.0,
        connections: int = 256,
        dns_ttl: float = 300.0,
        keepalive: float = 15.0,
        ssl_context: ssl.SSLContext | None = None,
        allow_private: bool = False,
    ) -> None:
        """``ssl_context``: how HTTPS servers are verified (default: the system's CAs);
        ``allow_private``: connect to loopback, private, link-local... addresses a name resolves
        to (:mod:`trawl.crawl.addresses`; a ``--resolve`` rule's address is always allowed)."""
        self.rules: list[ResolveRule] = parse_resolve_rules(resolve)
        self.allow_private = allow_private
        self.user_agent = user_agent
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.total_timeout = total_timeout
        self.connections = max(1, connections)
        self.dns_ttl = dns_ttl
        self.keepalive = keepalive
        self._idle: OrderedDict[_Conn, None] = OrderedDict()  # least recently used first
        self._by_key: dict[tuple[str, str, int], list[_Conn]] = {}
        self._busy: set[_Conn] = set()
        self._dns: dict[tuple[str, int], tuple[float, str | None, int]] = {}
        self._ssl: ssl.SSLContext | None = ssl_context
        self._fixed = f"User-Agent: {user_agent}\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n".encode(
            "latin-1"
        )

    # -- names and connections -------------------------------------------------------------------

    async def _resolve(self, host: str, port: int) -> tuple[str, int]:
        now = time.monotonic()
        cached = self._dns.get((host, port))
        if cached is not None and cached[0] > now:
            if cached[1] is None:
                raise FetchError("dns", f"{host!r} does not resolve")
            return cached[1], cached[2]
        address: str | None = None
        target_port = port
        rule = match_rule(self.rules, host)
        if rule is not None:
            address = rule.address
            target_port = rule.port if rule.port is not None else port
            if address is None:
                self._dns[(host, port)] = (now + self.dns_ttl, None, port)
                raise FetchError("dns", f"{host!r} does not resolve (rule {rule.pattern}=fail)")
        if address is None:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
                )
            except (socket.gaierror, UnicodeError) as exc:
                raise FetchError("dns", f"{host!r}: the host name does not resolve ({exc})") from exc
            if not infos:
                raise FetchError("dns", f"{host!r}: no address")
            address = str(infos[0][4][0])
            if not self.allow_private:
                refused = refusal(host, address)  # checked on every lookup: a rebinding name too
                if refused is not None:
                    raise FetchError(*refused)
        if len(self._dns) > 100_000:
            self._dns.clear()
        self._dns[(host, port)] = (now + self.dns_ttl, address, target_port)
        return address, target_port

    def _take_idle(self, key: tuple[str, str, int]) -> _Conn | None:
        conns = self._by_key.get(key)
        now = time.monotonic()
        while conns:
            conn = conns.pop()
            self._idle.pop(conn, None)
            if conn.closed or now - conn.idle_since > self.keepalive:
                conn._close()
                continue
            if not conns:
                del self._by_key[key]
            return conn
        self._by_key.pop(key, None)
        return None

    def _put_idle(self, conn: _Conn) -> None:
        conn.idle_since = time.monotonic()
        conn.waiter = None
        self._idle[conn] = None
        self._by_key.setdefault(conn.key, []).append(conn)
        while len(self._idle) > self.connections:
            old, _ = self._idle.popitem(last=False)
            old._close()
            peers = self._by_key.get(old.key)
            if peers is not None:
                peers.remove(old)
                if not peers:
                    del self._by_key[old.key]

    async def _connect(self, key: tuple[str, str, int], deadline: float) -> _Conn:
        scheme, host, port = key
        address, target_port = await self._resolve(host, port)
        loop = asyncio.get_running_loop()
        context: ssl.SSLContext | None = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            context = self._ssl
        timeout = max(0.001, min(self.connect_timeout, deadline - time.monotonic()))
        try:
            async with asyncio.timeout(timeout):
                _, conn = await loop.create_connection(
                    lambda: _Conn(loop, key),
                    address,
                    target_port,
                    ssl=context,
                    server_hostname=host if context is not None else None,
                )
        except TimeoutError as exc:
            raise FetchError("timeout", f"{host}: no connection within {timeout:g} s") from exc
        except ssl.SSLError as exc:
            raise FetchError("connect", f"{host}: TLS failed ({exc})") from exc
        except OSError as exc:
            raise FetchError("connect", f"{host}: cannot connect ({exc})") from exc
        return conn

    # -- requests --------------------------------------------------------------------------------

    @staticmethod
    def _split(url: str) -> tuple[tuple[str, str, int], str, str]:
        scheme, sep, rest = url.partition("://")
        scheme = scheme.lower()
        if not sep or scheme not in ("http", "https"):
            raise FetchError("protocol", f"{url[:200]}: not an http(s) URL")
        end = len(rest)
        for c in "/?#":
            i = rest.find(c)
            if 0 <= i < end:
                end = i
        authority = rest[:end].rpartition("@")[2]
        target = rest[end:].split("#", 1)[0] or "/"
        if target[0] == "?":
            target = "/" + target
        default = 443 if scheme == "https" else 80
        if authority.startswith("["):
            close = authority.find("]")
            host = authority[1:close]
            port_s = authority[close + 2 :] if authority[close + 1 : close + 2] == ":" else ""
        else:
            host, _, port_s = authority.partition(":")
        if not host:
            raise FetchError("protocol", f"{url[:200]}: no host")
        try:
            port = int(port_s) if port_s else default
        except ValueError:
            raise FetchError("protocol", f"{url[:200]}: bad port {port_s!r}") from None
        if not 0 < port < 65536:
            raise FetchError("protocol", f"{url[:200]}: bad port {port}")
        if not (target.isascii() and target.isprintable()) or " " in target:
            target = quote(target, safe=_SAFE)
        host_header = authority if port_s and port != default else host
        if ":" in host and not host_header.startswith("["):
            host_header = f"[{host}]"
        return (scheme, host.lower(), port), target, host_header

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        t0 = time.monotonic()
        deadline = t0 + self.total_timeout
        key, target, host_header = self._split(request.url)
        extra = "".join(f"{k}: {v}\r\n" for k, v in request.headers)
        if request.body or request.method == "POST":
            extra += f"Content-Length: {len(request.body)}\r\n"
        head = f"{request.method} {target} HTTP/1.1\r\nHost: {host_header}\r\n".encode("latin-1", "replace")
        data = head + self._fixed + extra.encode("latin-1", "replace") + b"\r\n" + request.body
        for attempt in range(2):
            conn = self._take_idle(key) if attempt == 0 else None
            reused = conn is not None
            if conn is None:
                conn = await self._connect(key, deadline)
            loop = conn.loop
            self._busy.add(conn)
            try:
                await conn.send(
                    data,
                    cap=request.max_bytes,
                    accept=request.accept_types,
                    read_timeout=self.read_timeout,
                    deadline=loop.time() + max(0.0, deadline - time.monotonic()),
                    head_only=request.method == "HEAD",
                )
            except _Stale:
                if reused:
                    continue  # the server closed the idle connection: once more, on a new one
                raise FetchError("protocol", f"{request.url}: the server closed without answering") from None
            except FetchError as exc:
                raise FetchError(exc.kind, f"{request.url}: {exc}") from None
            except asyncio.CancelledError:
                conn._close()
                raise
            finally:
                self._busy.discard(conn)
            if conn.keep_alive and not conn.closed:
                self._put_idle(conn)
            sent = [("Host", host_header), ("User-Agent", self.user_agent), ("Accept", "*/*")]
            sent += [("Accept-Encoding", "gzip, deflate"), *request.headers]
            return FetchResponse(
                request.url,
                conn.status,
                conn.headers,
                b"".join(conn.body),
                time.monotonic() - t0,
                conn.ip,
                conn.truncated,
                skipped=conn.skipped,
                request_headers=sent,
                overrun=conn.overrun,
            )
        raise FetchError("protocol", f"{request.url}: the server closed twice without answering")

    async def close(self) -> None:
        for conn in list(self._idle) + list(self._busy):
            conn._close()
        self._idle.clear()
        self._by_key.clear()
        self._busy.clear()
        await asyncio.sleep(0)

    def stats(self) -> dict[str, Any]:
        return {"idle": len(self._idle), "busy": len(self._busy), "dns": len(self._dns)}
