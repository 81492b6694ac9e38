"""Push feeds: WebSub (W3C Recommendation 2018; PubSubHubbub 0.4 is the same protocol).

A feed that names a hub (``<link rel="hub">`` in Atom, ``<atom:link rel="hub">`` in RSS, or an
HTTP ``Link: <…>; rel="hub"`` header on the feed's response) can push its new entries instead of
waiting to be polled. :class:`Subscriber` does the subscriber's part for one crawl:

* **subscribe**: a form ``POST`` to the hub (``hub.mode=subscribe``, ``hub.topic`` the feed's
  ``rel="self"`` URL, else the URL it was read from, ``hub.callback`` a URL of its own on trawl's
  callback server, ``hub.secret`` random for this subscription, ``hub.lease_seconds``); the hub
  answers ``202`` (``websub/subscribe``) or refuses (``websub/subscribe-refused/<status>``, or
  ``websub/subscribe-error/<kind>`` when it cannot be reached: the feed is polled as before).
  The POST goes through the crawl's transport (the ``--resolve`` rules apply) but not through
  robots.txt or the host's politeness queue: a hub is an API endpoint the subscriber is invited
  to call, not a page to crawl, and it is asked once per topic (and once per renewal);
* **verification of intent**: the hub's ``GET`` to the callback is answered with its
  ``hub.challenge`` only when that callback has a request of that mode (``subscribe`` or
  ``unsubscribe``) pending for that topic (``websub/verified``, ``websub/unsubscribed``); any
  other is refused with 404 (``websub/verify-refused``), so nobody can subscribe a crawl to what
  it never asked for; ``hub.mode=denied`` ends the subscription (``websub/denied``);
* **content distribution**: a ``POST`` to the callback is kept only with a valid
  ``X-Hub-Signature`` (HMAC-SHA1/256/384/512 of the body keyed with the subscription's secret,
  compared in constant time); one without, or with a wrong one, is answered 2xx as the spec asks
  and ignored (``websub/bad-signature``). A kept one is parsed as a feed and its entries handed
  to the crawler, which admits them as a polled feed's new entries (``websub/notifications``,
  ``websub/entries``);
* **renewal** at 80 % of the lease the hub granted (``websub/renew``), a lease that ran out
  without one ends the subscription (``websub/expired``); at the end of the crawl every live
  subscription is unsubscribed, best effort, waiting at most a couple of seconds for the hubs'
  verifications (``websub/unsubscribe``).

The callback server (:class:`CallbackServer`) is a small HTTP/1.1 server on
:func:`asyncio.start_server` (aiohttp is an optional extra, and a server for two kinds of
request needs none of it). Whatever reaches it is treated as hostile: one request per
connection, the head at most 16 KiB and 100 fields, a body at most ``max_bytes`` (a larger
``Content-Length`` is refused with 413 before a byte of it is read, a chunked body is cut off at
the cap: ``websub/too-large``), ``timeout`` seconds for the whole exchange (408), at most
``max_connections`` at once; malformed requests get a 4xx and are counted
(``websub/bad-request``), never an exception in the crawl. Secrets and callback tokens come from
:mod:`secrets`, are never logged, and are not kept past the crawl: a resumed crawl subscribes
again with new ones (the old callbacks answer 410, so hubs drop them).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

from trawl.crawl.discovery import FeedInfo, parse_feed, parse_link_header
from trawl.crawl.transport import FetchError, FetchRequest, Transport
from trawl.errors import ConfigError
from trawl.pipeline.base import RunContext

__all__ = [
    "CallbackRequest",
    "CallbackServer",
    "Subscriber",
    "Subscription",
    "parse_listen",
    "signature_ok",
    "websub_links",
]

MAX_HEAD = 16384
MAX_FIELDS = 100
_REASONS = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    410: "Gone",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    501: "Not Implemented",
    503: "Service Unavailable",
}
_DIGESTS = {"sha1": "sha1", "sha256": "sha256", "sha384": "sha384", "sha512": "sha512"}
#: what a renewal leaves of the lease: renewed at 80 % of it
_RENEW_AT = 0.8


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6; port 0: any free one) → ``(host, port)``."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ConfigError(
            f"crawl: websub_listen {value!r} is not HOST:PORT (e.g. '127.0.0.1:0', '0.0.0.0:8099')"
        )
    return host.strip("[]"), int(port)


def websub_links(feed_url: str, headers: list[tuple[str, str]], feed: FeedInfo) -> tuple[list[str], str]:
    """The hubs (``Link`` header ones first, then the feed's own) and the topic URL (the
    ``rel="self"`` link, header first, else ``feed_url``), made absolute against ``feed_url``;
    only http(s) URLs."""
    hubs: list[str] = []
    topic = ""
    for name, value in headers:
        if name.lower() != "link":
            continue
        for target, rels in parse_link_header(value):
            if "hub" in rels:
                hubs.append(target)
            if "self" in rels and not topic:
                topic = target
    hubs += feed.hubs
    topic = topic or feed.self_url or feed_url
    absolute = [urljoin(feed_url, h) for h in hubs]
    kept = list(dict.fromkeys(h for h in absolute if urlsplit(h).scheme in ("http", "https")))
    topic = urljoin(feed_url, topic)
    if urlsplit(topic).scheme not in ("http", "https"):
        topic = feed_url
    return kept, topic


def signature_ok(header: str | None, secret: str, body: bytes) -> bool:
    """Does ``X-Hub-Signature: METHOD=HEX`` hold the HMAC of ``body`` keyed with ``secret``?"""
    if not header:
        return False
    method, sep, given = header.strip().partition("=")
    digest = _DIGESTS.get(method.strip().lower())
    if not sep or digest is None:
        return False
    expected = hmac.new(secret.encode(), body, digest).hexdigest()
    return hmac.compare_digest(given.strip().lower().encode("ascii", "replace"), expected.encode())


@dataclass(slots=True)
class CallbackRequest:
    method: str
    path: str
    query: str
    headers: list[tuple[str, str]]
    body: bytes = b""

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for key, value in self.headers:
            if key.lower() == lname:
                return value
        return None


class _BadRequest(Exception):
    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(f"{status} {reason}")


class CallbackServer:
    """The HTTP/1.1 server hubs call back (see the module docstring for its bounds)."""

    def __init__(
        self,
        handler: Callable[[CallbackRequest], tuple[int, bytes]],
        *,
        stats: Any,
        max_bytes: int = 1 << 20,
        timeout: float = 10.0,
        max_connections: int = 64,
    ) -> None:
        self.handler = handler
        self.stats = stats
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.max_connections = max_connections
        self.address: tuple[str, int] = ("", 0)
        self._server: asyncio.Server | None = None
        self._open = 0

    async def start(self, host: str, port: int) -> tuple[str, int]:
        try:
            self._server = await asyncio.start_server(self._serve, host, port, limit=MAX_HEAD)
        except OSError as exc:
            raise ConfigError(
                f"crawl: cannot listen for WebSub callbacks on {host}:{port} ({exc}); "
                "set [crawl] websub_listen to a free HOST:PORT"
            ) from exc
        sockname = self._server.sockets[0].getsockname()
        self.address = (str(sockname[0]), int(sockname[1]))
        return self.address

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._open >= self.max_connections:
            self.stats.inc("websub/connections-refused")
            writer.close()
            return
        self._open += 1
        status, body = 500, b""
        try:
            async with asyncio.timeout(self.timeout):
                request = await self._read(reader, writer)
                status, body = self.handler(request)
        except _BadRequest as exc:
            self.stats.inc("websub/too-large" if exc.status == 413 else "websub/bad-request")
            status, body = exc.status, exc.reason.encode() + b"\n"
        except TimeoutError:
            self.stats.inc("websub/timeout")
            status, body = 408, b"too slow\n"
        except asyncio.LimitOverrunError:
            self.stats.inc("websub/bad-request")
            status, body = 400, b"a line too long\n"
        except (ConnectionError, asyncio.IncompleteReadError):
            status = 0  # the client went away: nothing to answer
        try:
            if status:
                head = (
                    f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\n"
                    f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                )
                writer.write(head.encode("latin-1") + body)
                async with asyncio.timeout(self.timeout):
                    await writer.drain()
        except (ConnectionError, TimeoutError):
            pass
        finally:
            self._open -= 1
            writer.close()

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> CallbackRequest:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise _BadRequest(431, f"request head over {MAX_HEAD} bytes") from None
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise _BadRequest(400, "the request ends inside its head") from None
            raise
        lines = raw[:-4].decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1.") or not parts[1].startswith("/"):
            raise _BadRequest(400, "not an HTTP/1.x request line")
        method, target = parts[0], parts[1]
        if len(lines) - 1 > MAX_FIELDS:
            raise _BadRequest(431, f"more than {MAX_FIELDS} header fields")
        headers: list[tuple[str, str]] = []
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip() or line[0] in " \t":
                raise _BadRequest(400, "a malformed header field")  # obs-fold and spaces too
            headers.append((name, value.strip()))
        path, _, query = target.partition("?")
        request = CallbackRequest(method, path, query, headers)
        if method not in ("GET", "POST"):
            raise _BadRequest(405, f"{method[:20]} is not GET or POST")
        lengths = {v for k, v in headers if k.lower() == "content-length"}
        coding = ",".join(v for k, v in headers if k.lower() == "transfer-encoding").strip().lower()
        if coding and lengths:
            raise _BadRequest(400, "both Content-Length and Transfer-Encoding")
        if coding and coding != "chunked":
            raise _BadRequest(501, f"transfer coding {coding[:40]!r}")
        if len(lengths) > 1 or (lengths and not next(iter(lengths)).isdecimal()):
            raise _BadRequest(400, "a bad Content-Length")
        length = int(next(iter(lengths))) if lengths else 0
        if length > self.max_bytes:
            raise _BadRequest(413, f"a body over {self.max_bytes} bytes")
        if method == "GET":
            return request
        if (request.header("expect") or "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if coding:
            request.body = await self._chunked(reader)
        elif length:
            request.body = await reader.readexactly(length)
        return request

    async def _chunked(self, reader: asyncio.StreamReader) -> bytes:
        body = bytearray()
        while True:
            try:
                line = await reader.readuntil(b"\r\n")
            except asyncio.LimitOverrunError:
                raise _BadRequest(400, "a chunk size line too long") from None
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise _BadRequest(400, "a bad chunk size") from None
            if size == 0:
                trailers = 0
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers, ignored
                    trailers += 1
                    if trailers > MAX_FIELDS:
                        raise _BadRequest(431, "too many trailer fields")
                return bytes(body)
            if len(body) + size > self.max_bytes:
                raise _BadRequest(413, f"a body over {self.max_bytes} bytes")
            body += await reader.readexactly(size)
            if await reader.readexactly(2) != b"\r\n":
                raise _BadRequest(400, "a chunk without its CRLF")


@dataclass(slots=True)
class Subscription:
    """One topic at one hub, with its own callback token and secret."""

    topic: str
    hub: str
    feed_url: str  # where the crawl read the feed (the entries' parent)
    depth: int  # the feed's depth in the crawl
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    callback: str = ""
    #: the mode whose verification is awaited ("subscribe", "unsubscribe"), or None
    pending: str | None = "subscribe"
    active: bool = False  # verified and not yet ended (unsubscribed, denied, expired)
    ended: str = ""  # why it ended: "refused", "denied", "expired", "unsubscribed"
    lease: float = 0.0  # seconds the hub granted
    verified_at: float = 0.0  # time.monotonic() of the last verification
    requests: int = 0  # POSTs sent to the hub for it


class Subscriber:
    """WebSub subscriptions of one crawl and the server their hubs call back (module docstring).

    ``on_feed(subscription, feed)`` is called with each authentic push; it admits the entries
    and returns how many were new."""

    def __init__(
        self,
        *,
        on_feed: Callable[[Subscription, FeedInfo], int],
        ctx: RunContext,
        listen: str = "127.0.0.1:0",
        public_url: str = "",
        lease: float = 86400.0,
        max_bytes: int = 1 << 20,
        max_entries: int = 1000,
        max_subscriptions: int = 1000,
        timeout: float = 10.0,
    ) -> None:
        self.on_feed = on_feed
        self.ctx = ctx
        self.stats = ctx.stats
        self.listen = parse_listen(listen)
        self.public_url = public_url.rstrip("/")
        self.lease = lease
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.max_subscriptions = max_subscriptions
        self.server = CallbackServer(self._handle, stats=self.stats, max_bytes=max_bytes, timeout=timeout)
        self.by_topic: dict[str, Subscription] = {}
        self._by_token: dict[str, Subscription] = {}
        self._over: set[str] = set()  # topics left out at max_subscriptions
        self._transport: Transport | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._renewer: asyncio.Task[None] | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self, transport: Transport) -> str:
        """Listen for callbacks; the base URL hubs are given (``websub_public_url``, else
        ``http://`` the address listened on)."""
        self._transport = transport
        host, port = await self.server.start(*self.listen)
        if not self.public_url:
            shown = f"[{host}]" if ":" in host else host
            self.public_url = f"http://{shown}:{port}"
        self._renewer = asyncio.get_running_loop().create_task(self._renew())
        return self.public_url

    @property
    def live(self) -> bool:
        """Is a subscription active, or one's verification awaited (a push may still come)?"""
        return any(s.active or s.pending == "subscribe" for s in self.by_topic.values())

    async def close(self, grace: float = 2.0) -> None:
        """Unsubscribe every live subscription (best effort: at most ``grace`` seconds for the
        hubs' answers and verifications), then stop listening."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        leaving = [s for s in self.by_topic.values() if s.active or (s.pending == "subscribe" and s.requests)]
        deadline = time.monotonic() + grace
        if leaving:
            for sub in leaving:
                sub.pending = "unsubscribe"
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await asyncio.gather(*(self._request(s, "unsubscribe") for s in leaving))
            while any(s.pending == "unsubscribe" for s in leaving) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)  # the hubs verify the unsubscription by calling back
        await self.server.close()

    # -- subscribing -----------------------------------------------------------------------------

    def feed_read(
        self, feed_url: str, depth: int, headers: list[tuple[str, str]], feed: FeedInfo
    ) -> Subscription | None:
        """A feed was read: subscribe to it at its hub, once per topic, if it names one."""
        hubs, topic = websub_links(feed_url, headers, feed)
        if not hubs:
            return None
        sub = self.by_topic.get(topic)
        if sub is not None:
            sub.depth = min(sub.depth, depth)
            return sub
        if len(self.by_topic) >= self.max_subscriptions:
            if topic not in self._over:
                self._over.add(topic)
                self.ctx.drop(
                    "websub",
                    "websub/too-many-subscriptions",
                    f"more than {self.max_subscriptions}; polled only",
                    url=topic,
                )
            return None
        sub = Subscription(topic, hubs[0], feed_url, depth)
        sub.callback = f"{self.public_url}/websub/{sub.token}"
        self.by_topic[topic] = sub
        self._by_token[sub.token] = sub
        self._spawn(self._request(sub, "subscribe"))
        return sub

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _request(self, sub: Subscription, mode: str) -> None:
        """POST ``hub.mode=mode`` for ``sub`` to its hub (its verification comes separately)."""
        assert self._transport is not None
        form = {"hub.mode": mode, "hub.topic": sub.topic, "hub.callback": sub.callback}
        if mode == "subscribe":
            form["hub.secret"] = sub.secret
            form["hub.lease_seconds"] = str(int(self.lease))
        headers = [("Content-Type", "application/x-www-form-urlencoded")]
        sub.requests += 1
        self.stats.inc("websub/requests")
        try:
            resp = await self._transport.fetch(
                FetchRequest(sub.hub, headers, 65536, (), "POST", urlencode(form).encode())
            )
        except FetchError as exc:
            self.stats.inc(f"websub/{mode}-error/{exc.kind}")
            self._refused(sub, mode, f"the hub {sub.hub} could not be reached: {exc}")
            return
        if 200 <= resp.status < 300:
            self.stats.inc(f"websub/{mode}")  # accepted; the hub verifies it by calling back
            return
        self.stats.inc(f"websub/{mode}-refused/{resp.status}")
        self._refused(sub, mode, f"the hub {sub.hub} answered {resp.status}")

    def _refused(self, sub: Subscription, mode: str, message: str) -> None:
        self.ctx.drop("websub", f"websub/{mode}-refused", message, url=sub.topic)
        if sub.pending == mode:
            sub.pending = None
        if mode == "subscribe" and not sub.active:
            sub.ended = "refused"  # the feed is polled as before

    async def _renew(self) -> None:
        """Renew each subscription before its lease ends; one that ran out has ended."""
        while True:
            await asyncio.sleep(0.25)
            now = time.monotonic()
            for sub in list(self.by_topic.values()):
                if not sub.active or not sub.lease:
                    continue
                if now >= sub.verified_at + sub.lease:
                    sub.active, sub.ended = False, "expired"
                    self.stats.inc("websub/expired")
                elif sub.pending is None and now >= sub.verified_at + _RENEW_AT * sub.lease:
                    sub.pending = "subscribe"
                    self.stats.inc("websub/renew")
                    self._spawn(self._request(sub, "subscribe"))

    # -- the callback ----------------------------------------------------------------------------

    def _handle(self, request: CallbackRequest) -> tuple[int, bytes]:
        _, sep, token = request.path.rpartition("/websub/")
        sub = self._by_token.get(token) if sep and "/" not in token else None
        if request.method == "GET":
            return self._verify(sub, request.query)
        return self._deliver(sub, request)

    def _verify(self, sub: Subscription | None, query: str) -> tuple[int, bytes]:
        params = parse_qs(query, keep_blank_values=True, max_num_fields=20)
        mode = params.get("hub.mode", [""])[0]
        topic = params.get("hub.topic", [""])[0]
        challenge = params.get("hub.challenge", [""])[0]
        if sub is None or topic != sub.topic:
            return self._verify_refused(sub, topic, mode, "an unknown callback or a topic not asked for")
        now = time.monotonic()
        if mode == "denied":
            sub.active, sub.pending, sub.ended = False, None, "denied"
            self.stats.inc("websub/denied")
            reason = params.get("hub.reason", [""])[0][:200]
            self.ctx.drop("websub", "websub/denied", f"the hub denied the subscription: {reason}", url=topic)
            return 200, b""
        if mode not in ("subscribe", "unsubscribe") or sub.pending != mode or not challenge:
            return self._verify_refused(sub, topic, mode, f"no {mode[:20] or 'mode'} request pending")
        sub.pending = None
        if mode == "subscribe":
            lease = params.get("hub.lease_seconds", [""])[0]
            sub.lease = float(lease) if lease.isdecimal() and int(lease) > 0 else self.lease
            sub.active, sub.verified_at, sub.ended = True, now, ""
            self.stats.inc("websub/verified")
        else:
            sub.active, sub.ended = False, "unsubscribed"
            self.stats.inc("websub/unsubscribed")
        return 200, challenge.encode()

    def _verify_refused(self, sub: Subscription | None, topic: str, mode: str, why: str) -> tuple[int, bytes]:
        self.stats.inc("websub/verify-refused")
        self.ctx.drop("websub", "websub/verify-refused", f"{mode[:20]} of {topic[:200]!r}: {why}")
        return 404, b"no such subscription request\n"

    def _deliver(self, sub: Subscription | None, request: CallbackRequest) -> tuple[int, bytes]:
        if sub is None or not sub.active:
            # gone (or never there): 410 tells the hub to stop sending
            self.stats.inc("websub/unknown-callback")
            return 410, b"no such subscription\n"
        if not signature_ok(request.header("X-Hub-Signature"), sub.secret, request.body):
            # the spec: answer 2xx (the hub learns nothing) and ignore the content
            self.stats.inc("websub/bad-signature")
            self.ctx.drop(
                "websub", "websub/bad-signature", "a push without a valid X-Hub-Signature", url=sub.topic
            )
            return 202, b""
        self.stats.inc("websub/notifications")
        feed = parse_feed(request.body, max_bytes=self.max_bytes, max_entries=self.max_entries)
        if feed.problem:
            self.stats.inc("websub/feed-problem")
        if not feed.entries:
            return 202, b""
        self.stats.inc("websub/entries", len(feed.entries))
        try:
            self.stats.inc("websub/new-entries", self.on_feed(sub, feed))
        except Exception as exc:  # isolation: a push that breaks admission is one error, not the crawl
            self.ctx.error("websub", exc, url=sub.topic)
        return 202, b""
