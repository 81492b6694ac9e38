"""XML, RSS and Atom to text, parsed safely (:mod:`trawl.convert.xmlsafe`).

A feed is a document too: its text is the feed's title and description, then each item's title
and summary (HTML in summaries goes through the HTML converter, so no markup leaks); its links are
the items' links with the item titles as anchor text; ``metadata["items"]`` lists each item's
``title``, ``url`` and ``published`` date (at most :data:`MAX_ITEMS`); item titles are level-2
headings. RSS 0.9x/2.0, RSS 1.0 (RDF) and Atom 1.0 are read by element *local* names, so
namespace variations do not matter.

Other XML becomes its character data, one line per element that holds text directly, with the
first ``title`` element (any namespace) as the title and ``xml:lang`` of the root as the language.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from trawl.convert.base import ConversionError, Converted, ConvertOptions, collapse, cut_text
from trawl.convert.xmlsafe import XmlError, local_name, parse_xml_partial
from trawl.html.page import read_page, resolve_link

__all__ = ["MAX_ITEMS", "convert_feed", "convert_xml"]

#: At most this many feed items are listed in ``metadata["items"]``.
MAX_ITEMS = 1000
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _parse(data: bytes | str) -> tuple[ET.Element, set[int], XmlError | None]:
    """The root, the elements closed and the error of a feed or XML file cut short or broken
    part way (what parsed before the break is kept); a refusal or no element at all raises."""
    try:
        return parse_xml_partial(data)
    except XmlError as exc:
        raise ConversionError(str(exc), exc.reason) from exc


def _cut_short(out: Converted, error: XmlError | None, what: str) -> Converted:
    """``out``, marked as cut short when parsing broke; a break before any text is a refusal."""
    if error is not None and not out.text.strip():
        raise ConversionError(str(error), error.reason)
    if error is not None:
        out.warnings.append(f"{what} cut short or broken ({error}); kept what parsed before it")
        out.count("convert/xml-partial")
        out.metadata["truncated"] = True
    return out


def _child(el: ET.Element, *names: str) -> ET.Element | None:
    for child in el:
        if local_name(child.tag) in names:
            return child
    return None


def _text_of(el: ET.Element | None) -> str:
    if el is None:
        return ""
    return collapse("".join(el.itertext()))


def _html_text(el: ET.Element | None, url: str) -> str:
    """Text of an element that may hold escaped HTML (RSS description, Atom type="html")."""
    if el is None:
        return ""
    # Atom type="xhtml" holds the markup as child elements; the others hold it escaped, as text.
    raw = "".join(ET.tostring(child, encoding="unicode") for child in el) if len(el) else el.text or ""
    if "<" not in raw and "&" not in raw:
        return collapse(raw)
    return read_page(raw, url or "about:blank", links=False).text


def _link_of(item: ET.Element, base: str) -> str:
    href = ""
    for child in item:
        if local_name(child.tag) != "link":
            continue
        if child.get("href") is not None:  # Atom
            if child.get("rel", "alternate") == "alternate":
                href = child.get("href", "")
                break
            href = href or child.get("href", "")
        elif child.text and child.text.strip():
            href = child.text.strip()
            break
    if not href:
        guid = _child(item, "guid")
        if guid is not None and guid.get("isPermaLink", "true") == "true" and guid.text:
            href = guid.text.strip()
    if not href:
        return ""
    resolved, _ = resolve_link(href, base or href)
    return resolved or ""


def convert_feed(data: bytes | str, options: ConvertOptions) -> Converted:
    """An RSS or Atom feed as one document (see the module docstring); a feed cut short keeps
    the items that were complete."""
    root, closed, error = _parse(data)
    kind = local_name(root.tag).lower()
    if kind == "rss":
        channel = _child(root, "channel")
        if channel is None:
            raise ConversionError("an RSS feed without a <channel>", "feed-malformed")
        items = [child for child in channel if local_name(child.tag) == "item"]
        head = channel
    elif kind == "rdf":
        head = _child(root, "channel") or root
        items = [child for child in root if local_name(child.tag) == "item"]
    elif kind == "feed":
        head = root
        items = [child for child in root if local_name(child.tag) == "entry"]
    else:
        raise ConversionError(f"a <{local_name(root.tag)}> root is not RSS or Atom", "feed-malformed")
    title = _text_of(_child(head, "title"))
    site = _link_of(head, options.url)
    url = options.url if options.url.startswith(("http://", "https://")) else site
    description = _html_text(_child(head, "description", "subtitle"), url)
    meta: dict[str, Any] = {"feed": "atom" if kind == "feed" else "rss"}
    if site:
        meta["site"] = site
    if description:
        meta["description"] = description
    lang = _text_of(_child(head, "language")) or root.get(_XML_LANG, "")
    if lang:
        meta["lang"] = lang
    updated = _text_of(_child(head, "lastBuildDate", "pubDate", "updated", "date"))
    if updated:
        meta["modified"] = updated
    author = _child(head, "author", "managingEditor", "creator")
    if author is not None:
        name = _child(author, "name")
        meta["author"] = _text_of(name if name is not None else author)
    lines = [line for line in (title, description) if line]
    headings: list[dict[str, Any]] = []
    listed: list[dict[str, Any]] = []
    links: list[tuple[str, str]] = []
    if error is not None:
        items = [item for item in items if id(item) in closed]
    for item in items:
        item_title = _text_of(_child(item, "title"))
        link = _link_of(item, url)
        summary = _html_text(_child(item, "encoded", "content", "description", "summary"), link or url)
        published = _text_of(_child(item, "pubDate", "published", "updated", "date"))
        if item_title:
            lines.append(item_title)
            headings.append({"level": 2, "text": item_title[:1000]})
        if summary:
            lines.append(summary)
        if link and len(links) < options.max_links:
            links.append((link, item_title))
        if len(listed) < MAX_ITEMS:
            entry: dict[str, Any] = {"title": item_title, "url": link}
            if published:
                entry["published"] = published
            listed.append(entry)
    meta["items"] = listed
    if headings:
        meta["headings"] = headings[:100]
    out = Converted(text="\n".join(lines), title=title, metadata=meta, links=links)
    return _cut_short(out, error, "the feed")


def convert_xml(data: bytes | str, options: ConvertOptions) -> Converted:
    """Other XML: its character data, one line per element that holds text (module docstring)."""
    root, _, error = _parse(data)
    lines: list[str] = []
    total = 0
    for el in root.iter():
        for part in (el.text, el.tail if el is not root else None):
            if part and not part.isspace():
                line = collapse(part)
                lines.append(line)
                total += len(line)
        if total > options.max_chars:
            break
    meta: dict[str, Any] = {"root": local_name(root.tag)}
    lang = root.get(_XML_LANG)
    if lang:
        meta["lang"] = lang
    title_el = next((el for el in root.iter() if local_name(el.tag).lower() == "title"), None)
    text, capped = cut_text("\n".join(lines), options.max_chars)
    if capped:
        meta["truncated"] = True
    return _cut_short(Converted(text=text, title=_text_of(title_el)[:1000], metadata=meta), error, "the XML")
