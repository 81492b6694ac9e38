"""URL helpers: SURT keys and URL hashes.

SURT (Sort-friendly URI Reordering Transform, as used by Heritrix, the Wayback Machine and Common
Crawl's index): ``http://www.Example.com:80/a?b=2&a=1`` → ``com,example)/a?a=1&b=2``. The host is
reversed so that a host's pages, and a domain's hosts, sort next to each other.

A fragment is not part of the key (``page#top`` is ``page``), with one exception: a *document
unit*'s fragment ``#unit=…`` (a message of an mbox, an attachment of a message: see
:mod:`trawl.units`) names a document of its own, so ``…/inbox.mbox#unit=msg-3`` keeps it and its
row follows its parent's (``#`` sorts before the letters, digits and ``/``, and a parent's units
share its key as a prefix).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = ["UNIT_FRAGMENT", "surt", "unit_name", "unit_parent", "unit_root", "unit_url", "url_hash"]

#: What starts the fragment of a document unit's URL (``file:///m/inbox.mbox#unit=msg-3/att-1``).
UNIT_FRAGMENT = "#unit="

_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}


def _host_key(host: str) -> str:
    host = host.strip(".").lower()
    if host.startswith("www.") and host.count(".") >= 2:
        host = host[4:]
    if host.replace(".", "").isdigit():  # IPv4: kept in order, as Heritrix does
        return host
    return ",".join(reversed(host.split(".")))


def surt(url: str) -> str:
    """The SURT key of ``url``, lower-cased host reversed, default port and fragment dropped
    (all but a unit's ``#unit=…``, which stays at the end of the key: see the module docstring).

    Query arguments are sorted; the path keeps its case. Non-network URLs (``file:``,
    ``urn:``...) are returned as ``scheme:`` + the rest, so they still make stable keys.
    """
    fast = _surt_http(url)
    if fast is not None:
        return fast
    key = _surt_split(url)
    # a NUL ends a key part in the table: one in a URL (a WARC's target as recorded) is escaped
    return key.replace("\x00", "%00") if "\x00" in key else key


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
    fragment = ""
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest, fragment = rest[:hash_at], rest[hash_at + 1 :]
    path, question, query = rest.partition("?")
    out = f"{key}){path or '/'}"
    if question and query:
        out += "?" + "&".join(sorted(query.split("&")))
    return out + _unit_key(fragment)


def _unit_key(fragment: str) -> str:
    """The part of a fragment a SURT key keeps: a unit's, nothing else."""
    return "#" + fragment if fragment.startswith("unit=") else ""


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
        # a path's own "#unit=" (a file so named: %23unit%3D) stays escaped, or its key would
        # be a unit's of the file beside it
        path = unquote(parts.path).replace(UNIT_FRAGMENT, "%23unit=")
        return f"{scheme}:{path}{_unit_key(parts.fragment)}" if scheme else url
    key = _host_key(parts.hostname)
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        key += f":{port}"
    path = parts.path or "/"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    out = f"{key}){path}"
    if query:
        out += f"?{query}"
    return out + _unit_key(parts.fragment)


def unit_url(parent: str, name: str) -> str:
    """The URL of unit ``name`` (``msg-3``, ``att-1``) of the document at ``parent``: the parent's
    URL with ``#unit=msg-3``, or a unit's URL with ``/att-1`` added to its unit path."""
    if UNIT_FRAGMENT in parent:
        return f"{parent}/{name}"
    return parent.split("#", 1)[0] + UNIT_FRAGMENT + name


def unit_parent(url: str) -> str | None:
    """The URL of the document ``url`` is a unit of, or ``None`` for a document that is no unit."""
    root, sep, path = url.partition(UNIT_FRAGMENT)
    if not sep:
        return None
    head, slash, _ = path.rpartition("/")
    return f"{root}{UNIT_FRAGMENT}{head}" if slash else root


def unit_root(url: str) -> str:
    """The URL of the file or capture a unit was cut from (``url`` itself for a document that is
    no unit)."""
    return url.partition(UNIT_FRAGMENT)[0]


def unit_name(url: str) -> str | None:
    """The last step of a unit's path (``msg-3/att-1`` → ``att-1``), ``None`` for no unit."""
    _, sep, path = url.partition(UNIT_FRAGMENT)
    return path.rpartition("/")[2] if sep else None


def url_hash(url: str) -> str:
    """A 64-bit hex hash of the SURT key: same page, same hash, whatever the URL's spelling."""
    return hashlib.blake2b(surt(url).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
