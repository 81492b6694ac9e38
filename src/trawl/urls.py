"""URL helpers: SURT keys and URL hashes.

SURT (Sort-friendly URI Reordering Transform, as used by Heritrix, the Wayback Machine and Common
Crawl's index): ``http://www.Example.com:80/a?b=2&a=1`` → ``com,example)/a?a=1&b=2``. The host is
reversed so that a host's pages, and a domain's hosts, sort next to each other.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = ["surt", "url_hash"]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}


def _host_key(host: str) -> str:
    host = host.strip(".").lower()
    if host.startswith("www.") and host.count(".") >= 2:
        host = host[4:]
    if host.replace(".", "").isdigit():  # IPv4: kept in order, as Heritrix does
        return host
    return ",".join(reversed(host.split(".")))


def surt(url: str) -> str:
    """The SURT key of ``url``, lower-cased host reversed, default port and fragment dropped.

    Query arguments are sorted; the path keeps its case. Non-network URLs (``file:``,
    ``urn:``...) are returned as ``scheme:`` + the rest, so they still make stable keys.
    """
    fast = _surt_http(url)
    if fast is not None:
        return fast
    return _surt_split(url)


def _surt_http(url: str) -> str | None:
    """:func:`surt` of a plain ``http(s)`` URL without ``urlsplit`` (the links of a page, the
    rows of a crawl: a third of the collection writer's time went to it), or None for anything
    that is not plainly one (userinfo, IPv6, backslashes, spaces or controls, odd ports), which
    :func:`_surt_split` reads as before; tested to agree with it."""
    if url.startswith("http://"):
        scheme, at = "http", 7
    elif url.startswith("https://"):
        scheme, at = "https", 8
    else:
        return None
    if not url.isascii() or not url.isprintable() or any(c in url for c in " @[]\\"):
        return None
    end = len(url)
    for sep in "/?#":
        i = url.find(sep, at)
        if 0 <= i < end:
            end = i
    netloc = url[at:end]
    rest = url[end:]
    host, colon, port = netloc.partition(":")
    if not host:
        return None
    key = _host_key_cached(host)
    if colon and port:
        if not port.isdigit() or len(port) > 5 or int(port) > 65535:
            return None
        if int(port) != _DEFAULT_PORTS[scheme]:
            key += f":{int(port)}"
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest = rest[:hash_at]
    path, question, query = rest.partition("?")
    out = f"{key}){path or '/'}"
    if question and query:
        out += "?" + "&".join(sorted(query.split("&")))
    return out


@lru_cache(maxsize=4096)
def _host_key_cached(host: str) -> str:
    return _host_key(host)


def _surt_split(url: str) -> str:
    try:
        parts: SplitResult = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    if not parts.hostname:
        return f"{scheme}:{unquote(parts.path)}" if scheme else url
    key = _host_key(parts.hostname)
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        key += f":{port}"
    path = parts.path or "/"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    out = f"{key}){path}"
    if query:
        out += f"?{query}"
    return out


def url_hash(url: str) -> str:
    """A 64-bit hex hash of the SURT key: same page, same hash, whatever the URL's spelling."""
    return hashlib.blake2b(surt(url).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
