"""XML parsing that a hostile file cannot turn against the parser.

Office packages, feeds and sitemaps are XML, and XML carries two classic attacks: *entity
expansion* (the "billion laughs": ten nested entities, each ten copies of the one before, expand a
kilobyte to gigabytes) and *external entities* (``<!ENTITY x SYSTEM "file:///etc/passwd">`` or an
``http://`` URL: a local file read, or a request to the network). :func:`parse_xml` behaves as
defusedxml does by default, with the standard library's C parser (expat) underneath:

* an entity declaration is refused (:class:`UnsafeXml`, reason ``xml-entities``) unless it
  cannot amplify or reach out: an internal entity whose value is short and refers to no other
  entity (``<!ENTITY copy "&#169; ACME">``), or a parameter entity that names an external DTD
  module (``<!ENTITY % HTMLlat1 PUBLIC …>``, which is never loaded), as real feeds and XHTML
  files declare them; nested, long or unparsable declarations are the attacks' shape;
* external general entities are refused and never fetched (``xml-external-entity``);
* a DTD is tolerated (RSS 0.91 files carry a DOCTYPE), unless ``forbid_dtd`` (OOXML and ODF never
  have one, so a DTD there is itself a sign of tampering);
* input is bounded by ``max_bytes`` before parsing (``xml-too-large``).

Predefined and numeric character references (``&amp;``, ``&#233;``) need no declaration and work.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any, NoReturn, cast

from trawl.errors import FormatError

__all__ = ["DEFAULT_MAX_XML_BYTES", "UnsafeXml", "XmlError", "local_name", "parse_xml", "parse_xml_partial"]

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
    except (LookupError, ValueError) as exc:  # expat on encoding="utf-9" or a multi-byte one
        raise XmlError(f"XML in an encoding that cannot be read: {exc}", "xml-encoding") from exc
    return root


def parse_xml_partial(
    data: bytes | str, *, max_bytes: int = DEFAULT_MAX_XML_BYTES
) -> tuple[ET.Element, set[int], XmlError | None]:
    """As :func:`parse_xml`, but a document cut short (or broken part way) gives what parsed
    before the break: the root, the ``id()`` of every element that was closed, and the error.

    HTML's named character references (``&laquo;``, ``&nbsp;``), which feeds use without
    declaring them, are read as the characters they name. The safety checks are
    :func:`parse_xml`'s and still raise; so does input with no element.
    """
    if len(data) > max_bytes:
        raise XmlError(f"XML of {len(data)} bytes is over the limit of {max_bytes}", "xml-too-large")
    _check_prolog(data, forbid_dtd=False)
    root, closed, error = _pull(data)
    if error is not None and "undefined entity" in str(error):
        named = _html_named(data)
        if named is not data:
            root, closed, error = _pull(named)
    if root is None:
        raise error or XmlError("no XML element found")
    return root, closed, error


def _pull(data: bytes | str) -> tuple[ET.Element | None, set[int], XmlError | None]:
    parser: ET.XMLPullParser[Any] = ET.XMLPullParser(events=("start", "end"))
    error: XmlError | None = None
    root: ET.Element | None = None
    closed: set[int] = set()
    failure: BaseException | None = None
    try:
        parser.feed(data)
        parser.close()
    except (ET.ParseError, RecursionError, LookupError, ValueError) as exc:  # Lookup/Value: encoding=
        failure = exc  # raised at once (close), or handed out with the events (feed), below
    try:
        for item in parser.read_events():
            event, element = cast(tuple[str, ET.Element], item)
            if event == "start" and root is None:
                root = element
            elif event == "end":
                closed.add(id(element))
    except (ET.ParseError, RecursionError) as exc:
        failure = exc
    if isinstance(failure, RecursionError):
        error = XmlError("XML nested too deeply", "xml-too-deep")
    elif isinstance(failure, LookupError | ValueError):
        error = XmlError(f"XML in an encoding that cannot be read: {failure}", "xml-encoding")
    elif failure is not None:
        message = str(failure)
        if "amplification" in message:
            raise UnsafeXml(f"entity expansion refused by the parser: {message}", "xml-entities") from failure
        reason = "xml-undefined-entity" if "undefined entity" in message else "xml-malformed"
        error = XmlError(f"malformed XML: {message}", reason)
    return root, closed, error


_NAMED = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31});")
_XML_NAMED = frozenset({"amp", "lt", "gt", "quot", "apos"})


def _html_named(data: bytes | str) -> bytes | str:
    """``data`` with HTML's named references written as numeric ones (``data`` itself if none)."""
    from html.entities import html5  # noqa: PLC0415 - only for feeds that need it

    def numeric(m: re.Match[str]) -> str:
        name = m[1]
        chars = html5.get(name + ";") if name not in _XML_NAMED else None
        return "".join(f"&#{ord(c)};" for c in chars) if chars else m[0]

    if isinstance(data, str):
        out = _NAMED.sub(numeric, data)
        return out if out != data else data
    text = data.decode("latin-1")  # byte for byte: the references are ASCII in any ASCII superset
    out_text = _NAMED.sub(numeric, text)
    return out_text.encode("latin-1") if out_text != text else data


def _check_prolog(data: bytes | str, *, forbid_dtd: bool) -> None:
    """Refuse entity declarations (and, if asked, any DTD) before the parser sees them.

    A DTD can only stand in the prolog, before the root element, so the head of the input is
    enough; UTF-16 input is looked at as characters so that its NUL bytes hide nothing.
    """
    head = _as_text(data[:65536])
    at = head.find("<!DOCTYPE")
    if at < 0:
        return
    if forbid_dtd:
        _refuse("xml-dtd", f"a DOCTYPE where none belongs: {head[at : at + 60]!r}")
    if "<!ENTITY" in head[at:] or (len(data) > len(head) and _has_entity_decl(data)):
        _check_entities(_as_text(data))


def _as_text(data: bytes | str) -> str:
    """Characters to look for declarations in: UTF-16 as UTF-16 (its NUL bytes hide nothing),
    anything else byte for byte."""
    if isinstance(data, str):
        return data
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:1] == b"\x00" or data[1:2] == b"\x00":
        codec = "utf-16-be" if data[:1] == b"\x00" or data[:2] == b"\xfe\xff" else "utf-16-le"
        return data[: len(data) & ~1].decode(codec, "replace")
    return data.decode("latin-1")


def _has_entity_decl(data: bytes | str) -> bool:
    return (b"<!ENTITY" in data) if isinstance(data, bytes) else ("<!ENTITY" in data)


#: The declarations an entity may have and still be harmless (see the module docstring).
_ENTITY_DECL = re.compile(
    r"""<!ENTITY\s+(?P<param>%\s+)?(?P<name>[^\s%&<>"']+)\s+"""
    r"""(?:(?P<q>["'])(?P<value>.*?)(?P=q)|(?P<ext>SYSTEM|PUBLIC)\b[^>]*)\s*>""",
    re.DOTALL,
)
_MAX_ENTITY_VALUE = 256
_MAX_ENTITIES = 256


def _check_entities(text: str) -> None:
    """Refuse unless every entity declaration in ``text`` is one of the harmless kinds."""
    count = 0
    at = text.find("<!ENTITY")
    while at >= 0:
        count += 1
        m = _ENTITY_DECL.match(text, at)
        if m is None or count > _MAX_ENTITIES:
            _refuse("xml-entities", "the XML declares entities in a way no document needs: refused")
        value, external, param = m["value"], m["ext"], m["param"]
        if external is not None and not param:
            _refuse("xml-external-entity", f"the XML declares an external entity {m['name']!r}: refused")
        if value is not None and (
            len(value) > _MAX_ENTITY_VALUE or any(c in value for c in "&%<")
        ):  # fmt: skip
            why = f"entity {m['name']!r} nests or expands: refused (entity expansion attack)"
            _refuse("xml-entities", why)
        at = text.find("<!ENTITY", m.end())
