"""Not an open door: the addresses a crawler must not be sent to unless its user says so.

A crawler fetches whatever URLs it finds, so a page (or a redirect, or a DNS answer that changes
between two lookups) can point it at the machine's own network: ``http://127.0.0.1:6379/``, the
router's admin page at ``192.168.1.1``, a cloud's metadata service at ``169.254.169.254`` with
its credentials. Heritrix and browsers' "private network access" rules refuse these; so does
trawl by default. :func:`address_class` names what kind of non-public address an IP is (``None``
for a public one); the transports call it on the address they are about to connect to — after
DNS resolution, on every connection (a redirect is a new request; a DNS answer is checked every
time it is looked up, and the connection goes to the checked address, so a name that rebinds to
``127.0.0.1`` after a first public answer is caught) — and refuse with
:class:`~trawl.crawl.transport.FetchError` kind ``address/<class>`` (the crawler's
``drop/address/<class>``). Addresses a user gave by hand (``--resolve`` rules: the test web)
and every address with ``--allow-private`` are allowed.
"""

from __future__ import annotations

import ipaddress

__all__ = ["ADDRESS_CLASSES", "address_class", "refusal"]

#: The classes :func:`address_class` returns, most specific first.
ADDRESS_CLASSES = (
    "unspecified",
    "loopback",
    "link-local",
    "multicast",
    "private",
    "shared",
    "reserved",
)

_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598): not the internet


def address_class(ip: str) -> str | None:
    """What kind of non-public address ``ip`` is (one of :data:`ADDRESS_CLASSES`), or ``None``
    for a public one. IPv4 inside IPv6 (``::ffff:127.0.0.1``, 6to4, NAT64's well-known prefix
    aside) is judged as the IPv4 address it carries; a string that is no IP address is
    ``"reserved"`` (never connected to)."""
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0].strip("[]"))
    except ValueError:
        return "reserved"
    if isinstance(addr, ipaddress.IPv6Address):
        mapped = addr.ipv4_mapped or addr.sixtofour
        if mapped is not None:
            addr = mapped
    if addr.is_unspecified:
        return "unspecified"
    if addr.is_loopback:
        return "loopback"
    if addr.is_link_local:
        return "link-local"
    if addr.is_multicast:
        return "multicast"
    if isinstance(addr, ipaddress.IPv4Address) and addr in _SHARED:
        return "shared"
    if addr.is_private:
        return "private"
    if addr.is_reserved or not addr.is_global:
        return "reserved"
    return None


def refusal(host: str, ip: str) -> tuple[str, str] | None:
    """``(kind, message)`` for connecting to ``ip`` (the address ``host`` resolved to) when it is
    not public, or ``None``: the transports' check."""
    kind = address_class(ip)
    if kind is None:
        return None
    return (
        f"address/{kind}",
        f"{host!r} is {ip}, a {kind} address: refused (a crawl goes to public addresses only; "
        "--allow-private, or a --resolve rule for the host, lets it in)",
    )
