"""The network seam: one method, ``fetch(request) -> response``, aiohttp behind it by default.

The crawler never touches sockets: it hands a :class:`FetchRequest` to a :class:`Transport` and
gets a :class:`FetchResponse` back, or a :class:`FetchError` whose ``kind`` names what went wrong
(``dns``, ``connect``, ``timeout``, ``protocol``, ``payload``; ``headers-too-large`` from trawl's
own client). Policies that need the body as it streams live here, because only the transport
sees it arrive:

* the content-type filter reads the headers and closes the connection before any body byte is
  read when the type is not wanted (``skipped="content-type"``);
* the size cap stops reading at ``max_bytes`` and marks the response truncated, so a 10 GB body
  (or an endless one) costs ``max_bytes``; the body stays as it came over the wire
  (``Content-Encoding`` is not undone here: decompression is bounded later, in
  :mod:`trawl.decode.http`, and the WARC keeps what the server sent);
* connect, read (between two bytes) and total timeouts bound slow and dripping servers.

Name resolution goes through :class:`RuleResolver`: ``--resolve`` rules such as
``*.test=127.0.0.1:8080`` (curl's ``--resolve``, with wildcards and a port that may differ from
the URL's) or ``name=fail``, behind aiohttp's DNS cache. That is how the crawler reaches the
thousands of virtual hosts of :mod:`trawl.testweb` on one loopback port.
"""

from __future__ import annotations

import asyncio
import fnmatch
import ipaddress
import socket
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from trawl.crawl.addresses import refusal
from trawl.errors import ConfigError, InputError, MissingDependency

__all__ = [
    "AiohttpTransport",
    "FetchError",
    "FetchRequest",
    "FetchResponse",
    "ResolveRule",
    "RuleResolver",
    "Transport",
    "match_rule",
    "parse_resolve_rules",
]


class FetchError(InputError):
    """A request got no usable answer; ``kind`` is the counter suffix (``fetch/error/<kind>``)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


@dataclass(slots=True)
class FetchRequest:
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    max_bytes: int = 10 << 20
    accept_types: tuple[str, ...] = ()  # media-type prefixes; empty accepts everything
    method: str = "GET"  # or "HEAD": the headers only (a cheap check of a page's validators)
    #: a request body (``POST``: a WebSub hub's form, crawl.websub), sent with its
    #: ``Content-Length``; the headers must give its ``Content-Type``
    body: bytes = b""


@dataclass(slots=True)
class FetchResponse:
    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    seconds: float  # from sending the request to the last body byte
    ip: str | None = None
    truncated: bool = False
    skipped: str | None = None  # why the body was not read ("content-type")
    request_headers: list[tuple[str, str]] = field(default_factory=list)  # as sent
    #: bytes came after the body its Content-Length framed (a lying length or a smuggled answer):
    #: the connection was closed, never reused (seen by the default transport only)
    overrun: bool = False

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for key, value in self.headers:
            if key.lower() == lname:
                return value
        return None


class Transport(Protocol):
    """Anything that can fetch one URL (no redirects followed: the crawler decides)."""

    async def fetch(self, request: FetchRequest) -> FetchResponse: ...

    async def close(self) -> None: ...


@dataclass(slots=True, frozen=True)
class ResolveRule:
    pattern: str  # an fnmatch pattern over host names: "*.test", "h1.test"
    address: str | None  # None: the name does not resolve
    port: int | None  # None: the URL's port


def parse_resolve_rules(rules: Sequence[str]) -> list[ResolveRule]:
    """``NAME=ADDRESS[:PORT]`` or ``NAME=fail``; the first matching rule wins."""
    out = []
    for rule in rules:
        name, sep, target = rule.partition("=")
        if not sep or not name or not target:
            raise ConfigError(
                f"--resolve {rule!r}: expected NAME=ADDRESS[:PORT] or NAME=fail, e.g. '*.test=127.0.0.1:8080'"
            )
        if target == "fail":
            out.append(ResolveRule(name.lower(), None, None))
            continue
        address, _, port = target.rpartition(":") if target.count(":") == 1 else (target, "", "")
        if not address:
            address, port = target, ""
        if port and not port.isdigit():
            raise ConfigError(f"--resolve {rule!r}: port {port!r} is not a number")
        out.append(ResolveRule(name.lower(), address, int(port) if port else None))
    return out


def _aiohttp() -> Any:
    try:
        import aiohttp  # noqa: PLC0415 - optional extra, imported where needed
    except ImportError as exc:
        raise MissingDependency("aiohttp", "crawl", "the crawler's transport") from exc
    return aiohttp


def match_rule(rules: Sequence[ResolveRule], host: str) -> ResolveRule | None:
    """The first ``--resolve`` rule whose pattern matches ``host`` (case-insensitive), or ``None``."""
    lhost = host.lower()
    for rule in rules:
        if fnmatch.fnmatchcase(lhost, rule.pattern):
            return rule
    return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class RuleResolver:
    """An aiohttp resolver that applies :class:`ResolveRule` s before asking the system."""

    def __init__(self, rules: Sequence[ResolveRule], *, allow_private: bool = True) -> None:
        aiohttp = _aiohttp()
        self.rules = list(rules)
        self.allow_private = allow_private
        #: host -> (kind, message) of the last refusal (:mod:`trawl.crawl.addresses`), which the
        #: transport reports instead of aiohttp's "does not resolve"
        self.refused: dict[str, tuple[str, str]] = {}
        self._fallback = aiohttp.ThreadedResolver()

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[dict[str, Any]]:
        rule = match_rule(self.rules, host)
        if rule is not None:
            if rule.address is None:
                raise OSError(socket.EAI_NONAME, f"{host!r} does not resolve (rule {rule.pattern}=fail)")
            return [
                {
                    "hostname": host,
                    "host": rule.address,
                    "port": rule.port if rule.port is not None else port,
                    "family": socket.AF_INET6 if ":" in rule.address else socket.AF_INET,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            ]
        result: list[dict[str, Any]] = await self._fallback.resolve(host, port, family)
        if not self.allow_private:
            public = [r for r in result if refusal(host, str(r["host"])) is None]
            if not public:  # the connection goes only to an address checked here (rebinding too)
                why = refusal(host, str(result[0]["host"])) if result else None
                if why is not None:
                    if len(self.refused) > 10_000:
                        self.refused.clear()
                    self.refused[host] = why
                raise OSError(socket.EAI_NONAME, why[1] if why else f"{host!r}: no address")
            result = public
        return result

    async def close(self) -> None:
        await self._fallback.close()


class AiohttpTransport:
    """The aiohttp transport (`--transport aiohttp`): one session, keep-alive pools per host, a DNS cache."""

    def __init__(
        self,
        *,
        resolve: Sequence[str] = (),
        user_agent: str = "trawl/0.1",
        connect_timeout: float = 10.0,
        read_timeout: float = 20.0,
        total_timeout: float = 60.0,
        connections: int = 256,
        dns_ttl: int = 300,
        ssl_context: ssl.SSLContext | None = None,
        allow_private: bool = False,
    ) -> None:
        """``ssl_context``: how HTTPS servers are verified (default: the system's CAs);
        ``allow_private``: see :class:`~trawl.crawl.http11.HttpTransport`."""
        self.ssl_context = ssl_context
        self.rules = parse_resolve_rules(resolve)
        self.allow_private = allow_private
        self._resolver: RuleResolver | None = None
        self.user_agent = user_agent
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.total_timeout = total_timeout
        self.connections = connections
        self.dns_ttl = dns_ttl
        self._session: Any = None
        self._aiohttp = _aiohttp()

    def _open(self) -> Any:
        aiohttp = self._aiohttp
        self._resolver = RuleResolver(self.rules, allow_private=self.allow_private)
        connector = aiohttp.TCPConnector(
            resolver=self._resolver,
            use_dns_cache=True,
            ttl_dns_cache=self.dns_ttl,
            limit=self.connections,
            limit_per_host=0,
            force_close=False,
            ssl=self.ssl_context if self.ssl_context is not None else True,
        )
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self.connect_timeout, sock_read=self.read_timeout
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=timeout,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"},
            skip_auto_headers=("Accept-Encoding",),
            max_line_size=16384,
            max_field_size=16384,
        )
        return self._session

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        aiohttp = self._aiohttp
        session = self._session or self._open()
        host = urlsplit(request.url).hostname or ""
        if not self.allow_private and match_rule(self.rules, host) is None:
            literal = refusal(host, host) if _is_ip(host) else None  # aiohttp asks no resolver for it
            if literal is not None:
                raise FetchError(*literal)
        t0 = time.monotonic()
        try:
            async with asyncio.timeout(self.total_timeout):
                async with session.request(
                    request.method,
                    request.url,
                    headers=request.headers,
                    data=request.body or None,
                    allow_redirects=False,
                ) as resp:
                    headers = [
                        (k.decode("latin-1"), v.decode("latin-1"))
                        for k, v in resp.raw_headers
                        if k.lower() != b"transfer-encoding"  # the body arrives de-chunked
                    ]
                    sent = [(str(k), str(v)) for k, v in resp.request_info.headers.items()]
                    ip = None
                    if resp.connection is not None and resp.connection.transport is not None:
                        peer = resp.connection.transport.get_extra_info("peername")
                        ip = peer[0] if peer else None
                    if request.accept_types and 200 <= resp.status < 300:
                        ctype = (resp.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
                        if ctype and not ctype.startswith(request.accept_types):
                            resp.close()  # drop the connection rather than read a body we will not keep
                            return FetchResponse(
                                str(resp.url),
                                resp.status,
                                headers,
                                b"",
                                time.monotonic() - t0,
                                ip,
                                skipped="content-type",
                                request_headers=sent,
                            )
                    chunks: list[bytes] = []
                    size = 0
                    truncated = False
                    cap = request.max_bytes
                    declared = resp.content_length
                    if declared is not None and declared > cap:
                        truncated = True
                    while True:
                        chunk = await resp.content.readany()
                        if not chunk:
                            break
                        if size + len(chunk) > cap:
                            chunks.append(chunk[: cap - size])
                            size = cap
                            truncated = True
                            resp.close()
                            break
                        chunks.append(chunk)
                        size += len(chunk)
                    return FetchResponse(
                        str(resp.url),
                        resp.status,
                        headers,
                        b"".join(chunks),
                        time.monotonic() - t0,
                        ip,
                        truncated,
                        request_headers=sent,
                    )
        except TimeoutError as exc:
            raise FetchError(
                "timeout", f"{request.url}: no complete answer within {self.total_timeout:g} s"
            ) from exc
        except aiohttp.ClientConnectorDNSError as exc:
            refused = self._resolver.refused.pop(host, None) if self._resolver is not None else None
            if refused is not None:
                raise FetchError(*refused) from exc
            raise FetchError("dns", f"{request.url}: the host name does not resolve ({exc})") from exc
        except aiohttp.ClientConnectorError as exc:
            raise FetchError("connect", f"{request.url}: cannot connect ({exc})") from exc
        except aiohttp.ServerTimeoutError as exc:
            raise FetchError("timeout", f"{request.url}: read timeout ({exc})") from exc
        except aiohttp.ClientPayloadError as exc:
            raise FetchError("payload", f"{request.url}: broken body ({exc})") from exc
        except (aiohttp.ClientError, ValueError, OSError) as exc:
            raise FetchError("protocol", f"{request.url}: {type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
