"""URL helpers: SURT keys and URL hashes.

SURT (Sort-friendly URI Reordering Transform, as used by Heritrix, the Wayback Machine and Common
Crawl's index): ``http://www.Example.com:80/a?b=2&a=1`` → ``com,example)/a?a=1&b=2``. The host is
reversed so that a host's pages, and a domain's hosts, sort next to each other.
"""

from __future__ import annotations

import hashlib
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
