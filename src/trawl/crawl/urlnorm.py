"""URL normal form, the seen-set key, and the shard that owns a host.

A crawler meets the same page under many spellings (``HTTP://Example.com:80/a/./b/../c#top``);
fetching each spelling wastes the host's time and the crawl's budget. :func:`normalize_url`
brings a URL to one form (lower-case scheme and host, IDNA host, no default port, dot segments
resolved, percent-escapes of unreserved characters decoded and the rest upper-cased, no fragment,
session-id parameters removed) and returns ``None`` for anything a web crawler cannot fetch.
The query keeps its order: ``?a=1&b=2`` and ``?b=2&a=1`` may be different pages to the server
(the SURT key in :mod:`trawl.urls` sorts them, because for *storage* they are one row).

:func:`url_key` is a 64-bit hash of the normal form, the unit of the seen set;
:func:`shard_of` assigns a host to one of N crawler shards, so that each shard owns the
politeness of its hosts (``hash mod N``: adding a shard moves most hosts); :class:`HashRing` does
it by consistent hashing, so that going from N to N+1 shards moves about 1/(N+1) of the hosts,
all to the new shard.
"""

from __future__ import annotations

import bisect
import hashlib
import ipaddress
import re
from urllib.parse import SplitResult, urlsplit, urlunsplit

__all__ = ["SESSION_PARAMS", "HashRing", "host_of", "normalize_url", "shard_of", "url_key"]

#: Query parameters that only carry a session: the same page under a new name for every visitor.
SESSION_PARAMS = frozenset({"sid", "sessionid", "session_id", "phpsessid", "jsessionid", "aspsessionid"})

_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_JSESSION = re.compile(r";jsessionid=[^/?#]*", re.IGNORECASE)
MAX_URL_LENGTH = 2048
# A URL already in normal form, the common case of links on real pages: lower-case http(s) scheme
# and ASCII host, no userinfo, a path and query of characters that need no escaping or decoding.
# Such a URL skips urlsplit/urlunsplit (about half of the crawler's per-link cost).
_SIMPLE = re.compile(
    r"(https?)://([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::([1-9][0-9]{0,4}))?"
    r"(/[A-Za-z0-9\-._~/!$'()*+,=:@]*)?(?:\?([A-Za-z0-9\-._~/!$'()*+,=:@?&]*))?"
)


def _fix_escape(match: re.Match[str]) -> str:
    byte = int(match.group(1), 16)
    if byte in _UNRESERVED:
        return chr(byte)
    return "%" + match.group(1).upper()


def _remove_dot_segments(path: str) -> str:
    if "." not in path:
        return path
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        if seg == ".":
            if i == len(segments) - 1:
                out.append("")
            continue
        if seg == "..":
            if len(out) > 1:
                out.pop()
            if i == len(segments) - 1:
                out.append("")
            continue
        out.append(seg)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def _host(hostname: str) -> str | None:
    host = hostname.strip(".").lower()
    if not host:
        return None
    if ":" in host:  # an IPv6 literal (urlsplit took its brackets off): its compressed form, bracketed
        try:
            return f"[{ipaddress.IPv6Address(host).compressed}]"
        except ValueError:
            return None  # a zone id, or not an address
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    return host


def normalize_url(url: str) -> str | None:
    """The normal form of ``url``, or ``None`` if it is not a fetchable http(s) URL."""
    url = url.strip()
    if not url or len(url) > MAX_URL_LENGTH:
        return None
    simple = _SIMPLE.fullmatch(url)
    if simple is not None:
        fast = _normal_already(url, simple)
        if fast is not None:
            return fast
    try:
        parts: SplitResult = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = _host(parts.hostname)
    if host is None or any(c in host for c in " <>\\^`{|}"):
        return None
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    path = parts.path or "/"
    if ";" in path:
        path = _JSESSION.sub("", path)
    if "%" in path:
        path = _ESCAPE.sub(_fix_escape, path)
    path = _remove_dot_segments(path).replace(" ", "%20")
    query = parts.query
    if query:
        kept = [p for p in query.split("&") if p and p.split("=", 1)[0].lower() not in SESSION_PARAMS]
        query = "&".join(kept)
        if "%" in query:
            query = _ESCAPE.sub(_fix_escape, query)
        query = query.replace(" ", "+")
    return urlunsplit((scheme, netloc, path, query, ""))


def _normal_already(url: str, m: re.Match[str]) -> str | None:
    """``url`` (or ``url`` + ``/``) if it is in normal form as it stands; ``None``: take the long way."""
    scheme, _host_part, port, path, query = m.groups()
    if port is not None and int(port) in (_DEFAULT_PORTS[scheme], 0):
        return None
    if path and "/." in path:
        return None  # dot segments to resolve
    if query is not None:
        if not query or "&&" in query or query[0] == "&" or query[-1] == "&":
            return None
        for param in query.split("&"):
            if param.split("=", 1)[0].lower() in SESSION_PARAMS:
                return None
    if path is None:
        return None  # the normal form adds "/" (and a bare "?" is dropped): the long way
    return url


def host_of(url: str) -> str:
    """The ``host[:port]`` part of a normalised URL: the unit of politeness."""
    start = url.find("//") + 2
    end = url.find("/", start)
    return url[start:] if end < 0 else url[start:end]


def url_key(url: str) -> int:
    """A signed 64-bit hash of a normalised URL (SQLite integers are signed 64-bit)."""
    return int.from_bytes(
        hashlib.blake2b(url.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True
    )


def shard_of(host: str, shards: int) -> int:
    """The shard (0 … shards-1) that owns ``host``: a stable hash, the same in every process."""
    if shards <= 1:
        return 0
    digest = hashlib.blake2b(host.lower().encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


class HashRing:
    """Consistent hashing of hosts onto ``shards`` shards: each shard holds ``vnodes`` points on
    a ring of 64-bit hashes (blake2b, the same in every process, unlike Python's salted
    ``hash``), and a host belongs to the first point at or after its own hash.

    A shard's points depend only on its number, so ``HashRing(n + 1)`` keeps every point of
    ``HashRing(n)`` and adds the new shard's: a host moves only to the new shard, about
    1/(n+1) of them. The load per shard varies as about 1/sqrt(vnodes) (9 % at 128); the points
    being fixed, so are the shares of the ring: at 128 vnodes, every shard's is within 18 % of the
    mean for 2 to 16 shards.
    """

    __slots__ = ("_points", "_shards", "shards", "vnodes")

    def __init__(self, shards: int, vnodes: int = 128) -> None:
        if shards < 1 or vnodes < 1:
            raise ValueError(f"a hash ring needs at least one shard and one vnode, not {shards} and {vnodes}")
        self.shards = shards
        self.vnodes = vnodes
        ring = sorted((_hash64(f"shard-{i}/{v}"), i) for i in range(shards) for v in range(vnodes))
        self._points = [point for point, _ in ring]
        self._shards = [shard for _, shard in ring]

    def owner(self, host: str) -> int:
        """The shard (0 … shards-1) that owns ``host`` (case-insensitive, as :func:`shard_of`)."""
        i = bisect.bisect_left(self._points, _hash64(host.lower()))
        return self._shards[i if i < len(self._points) else 0]

    def shares(self) -> list[float]:
        """Each shard's part of the ring (they sum to 1): its expected share of hosts."""
        out = [0] * self.shards
        previous = self._points[-1] - (1 << 64)  # the arc wrapping around zero
        for point, shard in zip(self._points, self._shards, strict=True):
            out[shard] += point - previous
            previous = point
        return [arc / (1 << 64) for arc in out]

    def __repr__(self) -> str:
        return f"HashRing(shards={self.shards}, vnodes={self.vnodes})"
