"""XML parsing that a hostile file cannot turn against the parser.

Office packages, feeds and sitemaps are XML, and XML carries two classic attacks: *entity
expansion* (the "billion laughs": ten nested entities, each ten copies of the one before, expand a
kilobyte to gigabytes) and *external entities* (``<!ENTITY x SYSTEM "file:///etc/passwd">`` or an
``http://`` URL: a local file read, or a request to the network). :func:`parse_xml` behaves as
defusedxml does by default, with the standard library's C parser (expat) underneath:

* any entity *declaration* in the DTD is refused (:class:`UnsafeXml`, reason ``xml-entities``):
  real documents do not declare entities, attacks need to;
* external entities are never fetched (``xml-external-entity``);
* a DTD is tolerated (RSS 0.91 files carry a DOCTYPE), unless ``forbid_dtd`` (OOXML and ODF never
  have one, so a DTD there is itself a sign of tampering);
* input is bounded by ``max_bytes`` before parsing (``xml-too-large``).

Predefined and numeric character references (``&amp;``, ``&#233;``) need no declaration and work.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import NoReturn

from trawl.errors import FormatError

__all__ = ["DEFAULT_MAX_XML_BYTES", "UnsafeXml", "XmlError", "local_name", "parse_xml"]

#: XML parts larger than this are refused before parsing.
DEFAULT_MAX_XML_BYTES = 200 * 1024 * 1024


class XmlError(FormatError):
    """The bytes are not well-formed XML. ``reason`` is a short, countable name."""

    def __init__(self, message: str, reason: str = "xml-malformed") -> None:
        super().__init__(message)
        self.reason = reason


class UnsafeXml(XmlError):
    """The XML tries something a document never needs: declaring or fetching entities."""


def _refuse(reason: str, message: str) -> NoReturn:
    raise UnsafeXml(message, reason)


def local_name(tag: str) -> str:
    """``{namespace}name`` → ``name``."""
    return tag.rsplit("}", 1)[-1] if tag[:1] == "{" else tag


def parse_xml(
    data: bytes | str,
    *,
    forbid_dtd: bool = False,
    max_bytes: int = DEFAULT_MAX_XML_BYTES,
) -> ET.Element:
    """The root element of ``data``, parsed safely (see the module docstring).

    Raises :class:`UnsafeXml` for entity declarations, external entities and (with ``forbid_dtd``)
    any DTD, and :class:`XmlError` for malformed or oversized input.
    """
    if len(data) > max_bytes:
        raise XmlError(f"XML of {len(data)} bytes is over the limit of {max_bytes}", "xml-too-large")
    _check_prolog(data, forbid_dtd=forbid_dtd)
    parser = ET.XMLParser()
    try:
        parser.feed(data)
        root: ET.Element = parser.close()
    except ET.ParseError as exc:
        message = str(exc)
        if "amplification" in message:  # expat's own billion-laughs guard, a second line of defence
            raise UnsafeXml(f"entity expansion refused by the parser: {message}", "xml-entities") from exc
        if "undefined entity" in message:
            raise XmlError(f"malformed XML: {message}", "xml-undefined-entity") from exc
        raise XmlError(f"malformed XML: {message}") from exc
    except RecursionError as exc:
        raise XmlError("XML nested too deeply", "xml-too-deep") from exc
    return root


def _check_prolog(data: bytes | str, *, forbid_dtd: bool) -> None:
    """Refuse entity declarations (and, if asked, any DTD) before the parser sees them.

    A DTD can only stand in the prolog, before the root element, so the head of the input is
    enough; UTF-16 input is looked at as characters so that its NUL bytes hide nothing.
    """
    head = data[:65536]
    if isinstance(head, bytes):
        if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:1] == b"\x00" or head[1:2] == b"\x00":
            codec = "utf-16-be" if head[:1] == b"\x00" or head[:2] == b"\xfe\xff" else "utf-16-le"
            head = head[: len(head) & ~1].decode(codec, "replace")
        else:
            head = head.decode("latin-1")
    at = head.find("<!DOCTYPE")
    if at < 0:
        return
    if forbid_dtd:
        _refuse("xml-dtd", f"a DOCTYPE where none belongs: {head[at : at + 60]!r}")
    if "<!ENTITY" in head[at:] or (len(data) > len(head) and _has_entity_decl(data)):
        _refuse("xml-entities", "the XML declares entities: refused (entity expansion attack)")


def _has_entity_decl(data: bytes | str) -> bool:
    return (b"<!ENTITY" in data) if isinstance(data, bytes) else ("<!ENTITY" in data)
