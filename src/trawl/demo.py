"""A deterministic, offline sample of everything trawl reads, for ``trawl demo`` and for tests.

:func:`generate_sample` writes, under one directory::

    web/crawl-00000.warc.gz     news.example.org, www.beispiel.de, blog.exemple.fr
    web/crawl-00001.warc.gz     ru.example.net, jp.example.jp, shop.example.com (en, es, zh, el, ar)
    trec/sample.trec.gz         12 TREC Web documents from a 1999 university server (en, fr)
    files/                      a desktop folder: html, txt, md, xml (RSS), csv, pdf, docx, png
    broken/                     good records around deliberately bad ones

and returns a :class:`DemoSample`: the inputs in ingest order, a manifest of every document it holds
(URL, language, the encoding its bytes are really in and where that is declared), the deliberate bad
records with the drop-reason prefix a correct reader reports, and the counts derived from them.

The web is full of traps a reader must survive: a charset only in the HTTP header (windows-1251),
only in ``<meta>`` (Shift_JIS), nowhere (windows-1252), or wrong (``utf-8`` over windows-1252 bytes);
``Content-Encoding: gzip``; ``Transfer-Encoding: chunked`` stored as captured; an exact duplicate
at another URL; a near-duplicate on another host; a 404; a 301; ``warcinfo`` and ``request`` records
to skip; a ``resource`` record holding a PDF.

Output is byte-for-byte the same on every call: fixed dates, record ids from :func:`uuid.uuid5`,
gzip headers with mtime 0 and a fixed OS byte, zip entries with fixed timestamps, fixed file mtimes.
(Deflate output can differ between zlib builds, so identical bytes are promised per machine.)
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import struct
import uuid
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from html import escape
from http import HTTPStatus
from pathlib import Path

from trawl.demo_content import (
    BROKEN_PAGES,
    BROKEN_TREC,
    CROSS_LINKS,
    CSV_ROWS,
    DOCX_PARAGRAPHS,
    DOCX_TITLE,
    FILE_TEXTS,
    NEAR_DUPLICATES,
    NOT_FOUND,
    PDF_LINES,
    PDF_TITLE,
    SITES,
    TREC_PAGES,
    Article,
    Site,
)

__all__ = ["BadRecord", "DemoDocument", "DemoExpected", "DemoSample", "describe", "generate_sample"]

_CRAWL_START = datetime(2024, 3, 4, 9, 0, 0, tzinfo=UTC)
_TREC_START = datetime(1999, 3, 1, 10, 0, 0, tzinfo=UTC)
_FILE_MTIME = int(datetime(2024, 3, 1, 12, 0, 0, tzinfo=UTC).timestamp())
_ZIP_TIME = (2024, 3, 4, 18, 30, 0)
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trawl.invalid/demo")
_USER_AGENT = "trawl-demo/0.1 (+https://trawl.invalid/demo)"

_WEB_FILES = ("web/crawl-00000.warc.gz", "web/crawl-00001.warc.gz")
_TREC_FILE = "trec/sample.trec.gz"
_FILES_DIR = "files"
_TRUNCATED = "broken/truncated.warc.gz"
_LYING = "broken/lying-length.warc.gz"
_GARBAGE = "broken/garbage.trec"
_EMPTY = "broken/empty.warc"

# The traps, by URL.
_GZIPPED = "http://news.example.org/culture/chess.html"
_CHUNKED = "https://blog.exemple.fr/sciences/volcans.html"
_DUPLICATE_OF = {
    "http://news.example.org/science/tides.html?utm_source=rss": "http://news.example.org/science/tides.html"
}
_NOT_FOUND_URL = "http://news.example.org/2019/lighthouse-special.html"
_REDIRECT = ("http://blog.exemple.fr/2019/phares", "https://blog.exemple.fr/sciences/phares.html")
_ROBOTS_URL = "http://news.example.org/robots.txt"
_PDF_URL = "http://news.example.org/reports/tides-2023.pdf"
_REQUESTED = {_ROBOTS_URL, "http://news.example.org/", "http://ru.example.net/", "http://jp.example.jp/"}

_SERVERS = {
    "http://news.example.org": "nginx/1.24.0",
    "http://www.beispiel.de": "Apache/2.4.58 (Debian)",
    "https://blog.exemple.fr": "nginx/1.22.1",
    "http://blog.exemple.fr": "nginx/1.22.1",
    "http://ru.example.net": "nginx/1.18.0",
    "http://jp.example.jp": "Apache/2.4.57 (Unix)",
    "http://shop.example.com": "cloudfront",
    "http://weather.example.org": "lighttpd/1.4.73",
}


# --- what the sample promises -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DemoDocument:
    """One document in the sample and what a correct pipeline should find out about it.

    ``input`` is the input it is read from, relative to the sample directory (``files`` for the
    whole desktop folder). ``encoding`` is the charset its bytes really are in (lower-case WHATWG
    name; ``None`` for binary formats); ``declared_charset`` and ``declared_in`` (``http``, ``meta``,
    ``http+meta``, ``bom``, ``xml``) say what the document claims, which may be wrong (see ``note``).
    ``offset`` is where its record (gzip member) starts in a WARC input.
    """

    input: str
    url: str
    kind: str  # what the bytes really are: html, text, markdown, rss, csv, robots, redirect, pdf, docx, png
    lang: str | None = None
    encoding: str | None = None
    declared_charset: str | None = None
    declared_in: str | None = None
    status: int | None = None
    offset: int | None = None
    docno: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A deliberately bad record: a reader must count it as a drop and go on with the next one."""

    input: str
    offset: int  # byte offset in the file where the bad record starts
    reason: str  # the prefix of the drop reason a correct reader reports: "warc/" or "trec/"
    what: str


@dataclass(frozen=True, slots=True)
class DemoExpected:
    """Counts a correct ``trawl ingest`` of the sample reproduces, all derived from the manifest.

    ``documents`` counts every record a reader yields: HTTP responses whatever their status (the
    404, the 301 and robots.txt included), resource records, TREC documents and local files. With
    the default record types (response, resource) and no status filter, that is what gets stored.
    """

    documents: int  # documents the readers yield from all inputs: responses, resources, TREC docs, files
    dropped: int  # deliberate bad records, each one counted drop
    drop_reasons: dict[str, int]  # drop-reason prefix -> number of bad records
    skipped: dict[str, int]  # WARC record types that are read but are not documents -> number
    by_input: dict[str, int]  # input (relative path) -> documents in it
    languages: dict[str, int]  # language -> documents (those with prose)
    encodings: dict[str, int]  # real encoding -> documents (text formats)
    statuses: dict[int, int]  # HTTP status -> documents
    exact_duplicates: tuple[tuple[str, str], ...]  # (URL, URL of the identical earlier page)
    near_duplicates: tuple[tuple[str, str], ...]  # (URL, URL of the same article, one sentence changed)


@dataclass(frozen=True, slots=True)
class DemoSample:
    """What :func:`generate_sample` wrote: pass ``inputs`` to ingest, check against ``expected``."""

    directory: Path
    inputs: list[Path]
    documents: tuple[DemoDocument, ...]
    bad_records: tuple[BadRecord, ...]
    expected: DemoExpected


# --- bytes: gzip, digests, WARC records ---------------------------------------------------------------


def _gzip(data: bytes) -> bytes:
    """One gzip member, mtime 0. zlib writes its build's OS code into byte 9; 255 ("unknown") is
    what Python's gzip module writes, and keeps the header the same on every OS."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    member = compressor.compress(data) + compressor.flush()
    return member[:9] + b"\xff" + member[10:]


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def _warc_date(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


class _Clock:
    """Capture times: a fixed start, a few seconds per fetch, like a polite crawler."""

    def __init__(self, start: datetime, step_s: int = 7) -> None:
        self._now = start
        self._step = timedelta(seconds=step_s)

    def tick(self) -> datetime:
        self._now += self._step
        return self._now


class _WarcFile:
    """One WARC/1.1 file built in memory: one gzip member per record, and the offset of each."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.data = bytearray()
        self.warcinfo_id: str | None = None
        self._serial = 0

    def add(
        self,
        warc_type: str,
        block: bytes,
        *,
        when: datetime,
        content_type: str,
        uri: str | None = None,
        payload: bytes | None = None,
        extra: Sequence[tuple[str, str]] = (),
        content_length: int | None = None,
    ) -> tuple[str, int]:
        """Append a record; returns its WARC-Record-ID and the offset of its gzip member.

        ``payload`` (the bytes after the HTTP headers, or the whole block of a resource) gets a
        WARC-Payload-Digest. ``content_length`` overrides the true length, to make a lying record.
        """
        self._serial += 1
        record_id = f"<urn:uuid:{uuid.uuid5(_NAMESPACE, f'{self.name}#{self._serial}')}>"
        headers = [("WARC-Type", warc_type), ("WARC-Record-ID", record_id), ("WARC-Date", _warc_date(when))]
        if uri is not None:
            headers.append(("WARC-Target-URI", uri))
        if self.warcinfo_id is not None:
            headers.append(("WARC-Warcinfo-ID", self.warcinfo_id))
        headers.extend(extra)
        headers.append(("WARC-Block-Digest", _sha1(block)))
        if payload is not None:
            headers.append(("WARC-Payload-Digest", _sha1(payload)))
        headers.append(("Content-Type", content_type))
        headers.append(("Content-Length", str(len(block) if content_length is None else content_length)))
        head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        offset = len(self.data)
        self.data += _gzip(head.encode("utf-8") + block + b"\r\n\r\n")
        return record_id, offset

    def add_warcinfo(self, when: datetime, description: str) -> None:
        fields = (
            ("software", "trawl demo generator"),
            ("format", "WARC File Format 1.1"),
            ("conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"),
            ("robots", "obey"),
            ("http-header-user-agent", _USER_AGENT),
            ("description", description),
        )
        block = "".join(f"{k}: {v}\r\n" for k, v in fields).encode("utf-8")
        self.warcinfo_id, _ = self.add(
            "warcinfo",
            block,
            when=when,
            content_type="application/warc-fields",
            extra=[("WARC-Filename", Path(self.name).name)],
        )


# --- the web: pages as HTTP captures ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Charset:
    """The encoding a page is written in, and where (if anywhere) it says so."""

    codec: str  # Python codec of the bytes
    name: str  # lower-case WHATWG name, for the manifest
    http: str | None = None  # charset parameter of the HTTP Content-Type
    meta: str | None = None  # <meta charset> value

    @property
    def declared(self) -> str | None:
        return self.http or self.meta

    @property
    def declared_in(self) -> str | None:
        places = [where for where, value in (("http", self.http), ("meta", self.meta)) if value]
        return "+".join(places) or None


_UTF8_HTTP_META = _Charset("utf-8", "utf-8", http="utf-8", meta="utf-8")
_UTF8_HTTP = _Charset("utf-8", "utf-8", http="utf-8")
_UTF8_META = _Charset("utf-8", "utf-8", meta="utf-8")
_SITE_CHARSETS = {
    "http://news.example.org": _UTF8_HTTP_META,
    "http://www.beispiel.de": _UTF8_HTTP,
    "https://blog.exemple.fr": _UTF8_META,
    "http://ru.example.net": _Charset("cp1251", "windows-1251", http="windows-1251"),
    "http://jp.example.jp": _Charset("shift_jis", "shift_jis", meta="Shift_JIS"),
    "http://shop.example.com": _UTF8_HTTP_META,
}
_PAGE_CHARSETS = {
    "http://www.beispiel.de/wissen/brot.html": _Charset("cp1252", "windows-1252"),
    "http://www.beispiel.de/reise/alpen.html": _Charset("cp1252", "windows-1252", http="utf-8"),
}
_PAGE_NOTES = {
    "http://www.beispiel.de/wissen/brot.html": "windows-1252 with no charset declared anywhere",
    "http://www.beispiel.de/reise/alpen.html": "HTTP header declares utf-8, but the bytes are windows-1252",
    _GZIPPED: "Content-Encoding: gzip",
    _CHUNKED: "Transfer-Encoding: chunked, stored as captured",
}


@dataclass(frozen=True, slots=True)
class _Capture:
    """One HTTP response to archive, and what the manifest says about it."""

    url: str
    status: int
    headers: tuple[tuple[str, str], ...]  # response headers but Date, which is set at capture time
    body: bytes  # the entity body exactly as sent: content- and transfer-encoded
    kind: str
    lang: str | None
    charset: _Charset
    note: str = ""


def _chunked(body: bytes, size: int = 1024) -> bytes:
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


def _text_capture(
    url: str, text: str, *, media_type: str, charset: _Charset, kind: str, lang: str | None, status: int = 200
) -> _Capture:
    """Encode ``text`` as the page declares (or fails to) and send it the way the traps say.

    Characters the charset cannot hold become numeric character references, as a browser would
    send them, so that a windows-1251 page can still link to a Japanese partner site.
    """
    body = text.encode(charset.codec, "xmlcharrefreplace")
    content_type = f"{media_type}; charset={charset.http}" if charset.http else media_type
    headers: list[tuple[str, str]] = [("Server", _SERVERS[_origin(url)]), ("Content-Type", content_type)]
    if url == _GZIPPED:
        body = _gzip(body)
        headers += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
    if url == _CHUNKED:
        body = _chunked(body)
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        headers.append(("Content-Length", str(len(body))))
    headers.append(("Connection", "close"))
    note = _PAGE_NOTES.get(url, "")
    return _Capture(url, status, tuple(headers), body, kind, lang, charset, note)


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _text(text: str) -> str:
    """Escape element content: apostrophes and quotes stay as they are, as in hand-written HTML."""
    return escape(text, quote=False)


def _attr(value: str) -> str:
    return escape(value, quote=True)


def _href(site: Site, url: str) -> str:
    """Root-relative for a link within the host, absolute across hosts, as sites usually write them."""
    return url[len(site.base) :] if url.startswith(site.base + "/") else url


def _html_page(site: Site, charset: _Charset, *, url: str, title: str, description: str, main: str) -> str:
    """A full page with the boilerplate every page of ``site`` shares: navigation and footer."""
    meta_charset = f'<meta charset="{charset.meta}">\n' if charset.meta else ""
    direction = ' dir="rtl"' if site.lang == "ar" else ""
    nav = "\n".join(
        f'<li><a href="{site.home}#{sid}">{_text(label)}</a></li>' for sid, label in site.sections
    )
    partners = "\n".join(
        f'<li><a href="{_href(site, other.home_url)}">{_text(other.name)}</a></li>'
        for other in SITES
        if other is not site
    )
    return (
        f'<!DOCTYPE html>\n<html lang="{site.lang}"{direction}>\n<head>\n{meta_charset}'
        f"<title>{_text(title)}</title>\n"
        f'<meta name="description" content="{_attr(description)}">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="canonical" href="{url}">\n'
        f'<link rel="stylesheet" href="/static/site.css">\n</head>\n<body>\n'
        f'<header class="site-header">\n<a class="logo" href="{site.home}">{_text(site.name)}</a>\n'
        f'<p class="tagline">{_text(site.tagline)}</p>\n<nav>\n<ul>\n{nav}\n</ul>\n</nav>\n</header>\n'
        f"<main>\n{main}\n</main>\n"
        f'<footer class="site-footer">\n<p>{_text(site.partners_label)}</p>\n'
        f'<ul class="partners">\n{partners}\n</ul>\n<p class="legal">{_text(site.footer)}</p>\n'
        f"</footer>\n</body>\n</html>\n"
    )


def _link_list(site: Site, links: Iterable[tuple[str, str]]) -> str:
    return "\n".join(f'<li><a href="{_href(site, url)}">{_text(text)}</a></li>' for url, text in links)


def _article_main(site: Site, article: Article, related: list[tuple[str, str]]) -> str:
    paragraphs = "\n".join(f"<p>{_text(p)}</p>" for p in article.paragraphs)
    return (
        f"<article>\n<h1>{_text(article.title)}</h1>\n"
        f'<p class="byline"><time datetime="{article.published}">{article.published}</time></p>\n'
        f"{paragraphs}\n</article>\n"
        f'<aside class="related">\n<h2>{_text(site.related_label)}</h2>\n<ul>\n'
        f"{_link_list(site, related)}\n</ul>\n</aside>"
    )


def _home_main(site: Site) -> str:
    parts = [f"<h1>{_text(site.name)}</h1>", f'<p class="intro">{_text(site.intro)}</p>']
    for sid, label in site.sections:
        items = "\n".join(
            f'<li><a href="{a.path}">{_text(a.title)}</a> {_text(a.description)}</li>'
            for a in site.articles
            if a.section == sid
        )
        parts.append(f'<section id="{sid}">\n<h2>{_text(label)}</h2>\n<ul>\n{items}\n</ul>\n</section>')
    if site.archive:
        parts.append(
            f'<section id="archive">\n<h2>{_text(site.archive_label)}</h2>\n<ul>\n'
            f"{_link_list(site, site.archive)}\n</ul>\n</section>"
        )
    return "\n".join(parts)


def _related(site: Site, index: int, titles: dict[str, str]) -> list[tuple[str, str]]:
    """The previous and next article of the same site, then any cross-host links of this article."""
    articles = site.articles
    neighbours = sorted({(index - 1) % len(articles), (index + 1) % len(articles)} - {index})
    links = [(site.base + articles[j].path, articles[j].title) for j in neighbours]
    url = site.base + articles[index].path
    links += [(target, titles[target]) for source, target in CROSS_LINKS if source == url]
    return links


def _site_captures(site: Site, titles: dict[str, str]) -> list[_Capture]:
    """The home page and every article of one site."""
    site_charset = _SITE_CHARSETS[site.base]

    def page(url: str, title: str, description: str, main: str, charset: _Charset) -> _Capture:
        text = _html_page(site, charset, url=url, title=title, description=description, main=main)
        return _text_capture(url, text, media_type="text/html", charset=charset, kind="html", lang=site.lang)

    captures = [
        page(site.home_url, f"{site.name} | {site.tagline}", site.tagline, _home_main(site), site_charset)
    ]
    for i, article in enumerate(site.articles):
        url = site.base + article.path
        main = _article_main(site, article, _related(site, i, titles))
        charset = _PAGE_CHARSETS.get(url, site_charset)
        captures.append(page(url, f"{article.title} | {site.name}", article.description, main, charset))
    return captures


def _robots_capture() -> _Capture:
    text = (
        "User-agent: *\nDisallow: /private/\nDisallow: /search\nCrawl-delay: 1\n\n"
        "Sitemap: http://news.example.org/sitemap.xml\n"
    )
    return _text_capture(
        _ROBOTS_URL, text, media_type="text/plain", charset=_UTF8_HTTP, kind="robots", lang=None
    )


def _not_found_capture(site: Site) -> _Capture:
    title, message = NOT_FOUND
    home = _link_list(site, [(site.home_url, site.name)])
    main = f"<h1>{_text(title)}</h1>\n<p>{_text(message)}</p>\n<ul>\n{home}\n</ul>"
    charset = _SITE_CHARSETS[site.base]
    text = _html_page(
        site, charset, url=_NOT_FOUND_URL, title=f"{title} | {site.name}", description=title, main=main
    )
    capture = _text_capture(
        _NOT_FOUND_URL, text, media_type="text/html", charset=charset, kind="html", lang=site.lang, status=404
    )
    return replace(capture, note="404 Not Found: a link on the home page points to it")


def _redirect_capture() -> _Capture:
    source, target = _REDIRECT
    # Apache's stock 301 body, declared iso-8859-1 as Apache does.
    text = (
        '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n'
        "<html><head>\n<title>301 Moved Permanently</title>\n</head><body>\n<h1>Moved Permanently</h1>\n"
        f'<p>The document has moved <a href="{target}">here</a>.</p>\n</body></html>\n'
    )
    charset = _Charset("latin-1", "windows-1252", http="iso-8859-1")
    capture = _text_capture(
        source, text, media_type="text/html", charset=charset, kind="redirect", lang=None, status=301
    )
    headers = (capture.headers[0], ("Location", target), *capture.headers[1:])
    return replace(capture, headers=headers, note=f"301 to {target}")


def _web_captures() -> tuple[list[_Capture], list[_Capture]]:
    """Every HTTP response of the two crawl files, in capture order."""
    titles = {site.base + a.path: a.title for site in SITES for a in site.articles}
    near = {copy: original for original, copy in NEAR_DUPLICATES}
    by_host: dict[str, list[_Capture]] = {}
    for site in SITES:
        by_host.setdefault(site.base, []).extend(_site_captures(site, titles))
    for captures in by_host.values():
        for i, capture in enumerate(captures):
            if capture.url in near:
                note = f"near-duplicate of {near[capture.url]}: one sentence changed, other boilerplate"
                captures[i] = replace(capture, note=note)
    news = by_host["http://news.example.org"]
    originals = {c.url: c for c in news}
    news += [
        replace(originals[original], url=copy, note=f"exact duplicate of {original}")
        for copy, original in _DUPLICATE_OF.items()
    ]
    news.append(_not_found_capture(SITES[0]))
    first = [
        _robots_capture(),
        *news,
        *by_host["http://www.beispiel.de"],
        *by_host["https://blog.exemple.fr"],
    ]
    first.append(_redirect_capture())
    second = [
        *by_host["http://ru.example.net"],
        *by_host["http://jp.example.jp"],
        *by_host["http://shop.example.com"],
    ]
    return first, second


def _http_response(capture: _Capture, when: datetime) -> bytes:
    status = f"HTTP/1.1 {capture.status} {HTTPStatus(capture.status).phrase}\r\n"
    headers = [("Date", format_datetime(when, usegmt=True)), *capture.headers]
    head = status + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode("latin-1") + capture.body


def _http_request(url: str) -> bytes:
    origin = _origin(url)
    path = url[len(origin) :] or "/"
    host = origin.partition("://")[2]
    head = (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {_USER_AGENT}\r\n"
        "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\nAccept-Encoding: gzip\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1")


def _archive_response(
    warc: _WarcFile, capture: _Capture, when: datetime, *, content_length: int | None = None
) -> tuple[str, int]:
    http = _http_response(capture, when)
    return warc.add(
        "response",
        http,
        when=when,
        uri=capture.url,
        content_type="application/http; msgtype=response",
        payload=capture.body,
        extra=[("WARC-IP-Address", "127.0.0.1")],
        content_length=content_length,
    )


def _capture_document(input_name: str, capture: _Capture, offset: int) -> DemoDocument:
    return DemoDocument(
        input=input_name,
        url=capture.url,
        kind=capture.kind,
        lang=capture.lang,
        encoding=capture.charset.name,
        declared_charset=capture.charset.declared,
        declared_in=capture.charset.declared_in,
        status=capture.status,
        offset=offset,
        note=capture.note,
    )


# --- formats written by hand: PDF, DOCX, PNG ------------------------------------------------------------


def _pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def _pdf(title: str, lines: Sequence[str], *, author: str, created: str) -> bytes:
    """A one-page PDF 1.4 with real text objects (Helvetica), an Info dictionary and a correct xref."""
    ops = [b"BT", b"/F1 16 Tf", b"72 720 Td", _pdf_string(title) + b" Tj", b"/F1 11 Tf", b"16 TL", b"T*"]
    ops += [b"T* " + _pdf_string(line) + b" Tj" for line in lines]
    ops.append(b"ET")
    stream = b"\n".join(ops)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Title %s /Author %s /Producer (trawl demo) /CreationDate (D:%s) >>"
        % (_pdf_string(title), _pdf_string(author), created.encode("ascii")),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")  # the binary comment marks the file as binary
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


_DOCX_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '<Override PartName="/docProps/core.xml" '
    'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
    "</Types>"
)
_DOCX_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/>'
    '<Relationship Id="rId2" '
    'Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" '
    'Target="docProps/core.xml"/>'
    "</Relationships>"
)


def _docx(title: str, paragraphs: Sequence[str], *, author: str, created: str) -> bytes:
    """A minimal valid OOXML word-processing document: content types, relationships, core
    properties and a body of paragraphs, the title in bold."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = (
        '<w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:b/><w:sz w:val="32"/></w:rPr>'
        f"<w:t>{_text(title)}</w:t></w:r></w:p>"
    )
    body += "".join(f'<w:p><w:r><w:t xml:space="preserve">{_text(p)}</w:t></w:r></w:p>' for p in paragraphs)
    document = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{w}"><w:body>'
        f'{body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>'
    )
    core = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        "<cp:coreProperties "
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<dc:title>{_text(title)}</dc:title>"
        f"<dc:creator>{_text(author)}</dc:creator><dc:language>en-GB</dc:language>"
        f'<dcterms:created xsi:type="dcterms:W3CDTF">{created}</dcterms:created></cp:coreProperties>'
    )
    parts = {
        "[Content_Types].xml": _DOCX_CONTENT_TYPES,
        "_rels/.rels": _DOCX_RELS,
        "docProps/core.xml": core,
        "word/document.xml": document,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, xml in parts.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # the default depends on the OS the zip is made on
            info.external_attr = 0o644 << 16
            archive.writestr(info, xml.encode("utf-8"))
    return buffer.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png() -> bytes:
    """A valid 1x1 RGB PNG (one sea-green pixel)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # width, height, depth 8, RGB, no interlace
    pixels = zlib.compress(b"\x00\x2e\x8b\x57")  # filter byte 0, then R, G, B
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", pixels)
        + _png_chunk(b"IEND", b"")
    )


def _report_pdf() -> bytes:
    return _pdf(PDF_TITLE, PDF_LINES, author="Northbridge Harbour Board", created="20240105120000Z")


# --- writing the sample ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Writer:
    """Writes files under the sample directory with a fixed mtime, and collects the manifest."""

    root: Path
    documents: list[DemoDocument] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)

    def write(self, relative: str, data: bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (_FILE_MTIME, _FILE_MTIME))
        return path

    def fix_directory_mtimes(self, top: str) -> None:
        """Directories get the fixed mtime too, deepest first (writing a file changes its parent's)."""
        base = self.root / top
        for directory in sorted((p for p in base.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            os.utime(directory, (_FILE_MTIME, _FILE_MTIME))
        os.utime(base, (_FILE_MTIME, _FILE_MTIME))


def _write_web(out: _Writer, clock: _Clock) -> list[Path]:
    paths = []
    descriptions = (
        "trawl demo crawl, part 1: news.example.org, www.beispiel.de, blog.exemple.fr",
        "trawl demo crawl, part 2: ru.example.net, jp.example.jp, shop.example.com",
    )
    for name, captures, description in zip(_WEB_FILES, _web_captures(), descriptions, strict=True):
        warc = _WarcFile(name)
        warc.add_warcinfo(clock.tick(), description)
        out.skipped["warcinfo"] += 1
        for capture in captures:
            when = clock.tick()
            record_id, offset = _archive_response(warc, capture, when)
            out.documents.append(_capture_document(name, capture, offset))
            if capture.url in _REQUESTED:
                request = _http_request(capture.url)
                warc.add(
                    "request",
                    request,
                    when=when,
                    uri=capture.url,
                    content_type="application/http; msgtype=request",
                    extra=[("WARC-Concurrent-To", record_id)],
                )
                out.skipped["request"] += 1
        if name == _WEB_FILES[0]:
            _add_pdf_resource(out, warc, clock.tick())
        paths.append(out.write(name, bytes(warc.data)))
    return paths


def _add_pdf_resource(out: _Writer, warc: _WarcFile, when: datetime) -> None:
    """The news site's tide report, archived as a resource record (no HTTP exchange around it)."""
    pdf = _report_pdf()
    _, offset = warc.add(
        "resource", pdf, when=when, uri=_PDF_URL, content_type="application/pdf", payload=pdf
    )
    out.documents.append(
        DemoDocument(
            warc.name, _PDF_URL, "pdf", lang="en", offset=offset, note="resource record holding a PDF"
        )
    )


def _trec_html(
    page_title: str, paragraphs: Sequence[str], links: Sequence[tuple[str, str]], meta: str
) -> str:
    """A page in the style of 1999: upper-case tags, unclosed paragraphs, no language attribute."""
    body = "\n".join(f"<P>{_text(p)}" for p in paragraphs)
    nav = " |\n".join(f'<A HREF="{href}">{_text(text)}</A>' for href, text in links)
    return (
        f"<HTML>\n<HEAD>\n<TITLE>{_text(page_title)}</TITLE>\n{meta}</HEAD>\n"
        f'<BODY BGCOLOR="#FFFFFF">\n<H1>{_text(page_title)}</H1>\n{body}\n<HR>\n{nav}\n'
        "<ADDRESS>webmaster@archive.example.edu</ADDRESS>\n</BODY>\n</HTML>"
    )


def _trec_doc(docno: str, url: str, when: datetime, html: bytes, *, with_docno: bool = True) -> bytes:
    """One TREC Web ``<DOC>``: DOCNO, DOCHDR (URL line and HTTP headers), then the page."""
    stamp = when.strftime("%Y%m%d%H%M%S")
    header = (
        f"{url} 127.0.0.1 {stamp} text/html {len(html)}\nHTTP/1.0 200 OK\n"
        f"Date: {format_datetime(when, usegmt=True)}\nServer: Apache/1.3.6 (Unix)\n"
        f"Content-Type: text/html\nContent-Length: {len(html)}\n\n"
    ).encode("ascii")
    docno_line = f"<DOCNO>{docno}</DOCNO>\n".encode("ascii") if with_docno else b""
    return b"<DOC>\n" + docno_line + b"<DOCHDR>\n" + header + b"</DOCHDR>\n" + html + b"\n</DOC>\n"


def _write_trec(out: _Writer) -> Path:
    base = "http://archive.example.edu"
    home_links = [(p.path, p.title) for p in TREC_PAGES[1:]]
    docs = []
    for i, page in enumerate(TREC_PAGES, start=1):
        links = home_links if page.path == "/index.html" else [("/index.html", "Example State University")]
        if page.lang == "en":
            html = _trec_html(page.title, page.paragraphs, links, "").encode("ascii", "xmlcharrefreplace")
            encoding, declared, declared_in = "utf-8", None, None
        else:
            meta = '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">\n'
            html = _trec_html(page.title, page.paragraphs, links, meta).encode("latin-1")
            encoding, declared, declared_in = "windows-1252", "iso-8859-1", "meta"
        docno = f"TRAWL-DEMO-{i:04d}"
        docs.append(_trec_doc(docno, base + page.path, _TREC_START + timedelta(minutes=7 * i), html))
        out.documents.append(
            DemoDocument(
                _TREC_FILE,
                base + page.path,
                "html",
                lang=page.lang,
                encoding=encoding,
                declared_charset=declared,
                declared_in=declared_in,
                status=200,
                docno=docno,
            )
        )
    return out.write(_TREC_FILE, _gzip(b"".join(docs)))


def _rss_feed() -> bytes:
    news = SITES[0]
    items = []
    for article in news.articles[:3]:
        url = news.base + article.path
        published = datetime.fromisoformat(article.published).replace(hour=8, tzinfo=UTC)
        items.append(
            f"<item>\n<title>{_text(article.title)}</title>\n<link>{url}</link>\n"
            f"<description>{_text(article.description)}</description>\n"
            f"<pubDate>{format_datetime(published, usegmt=True)}</pubDate>\n<guid>{url}</guid>\n</item>"
        )
    channel = (
        f"<title>{_text(news.name)}</title>\n<link>{news.home_url}</link>\n"
        f"<description>{_text(news.tagline)}</description>\n<language>en</language>\n"
    )
    body = '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n' + channel
    return (body + "\n".join(items) + "\n</channel>\n</rss>\n").encode("utf-8")


def _csv() -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(CSV_ROWS)
    return buffer.getvalue().encode("utf-8")


def _standalone_html(lang: str, text: str) -> bytes:
    title, *paragraphs = text.split("\n\n")
    body = "\n".join(f"<p>{_text(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_text(title)}</title>\n"
        f'<meta name="description" content="{_attr(paragraphs[0][:120])}">\n</head>\n<body>\n'
        f"<h1>{_text(title)}</h1>\n{body}\n</body>\n</html>\n"
    ).encode()


# The prose files of the desktop folder: name -> (kind, codec, declared (charset, where), note).
_PROSE_FILES: dict[str, tuple[str, str, tuple[str, str] | None, str]] = {
    "garden-club.html": ("html", "utf-8", ("utf-8", "meta"), ""),
    "reading-group.txt": ("text", "utf-8", None, ""),
    "brief.txt": ("text", "utf-8-sig", ("utf-8", "bom"), "UTF-8 with a byte order mark"),
    "lettre.txt": ("text", "cp1252", None, "windows-1252, undeclared"),
    "coast-path.md": ("markdown", "utf-8", None, ""),
    "todo.html": ("text", "utf-8", None, "named .html, but it is plain text"),
    "archive/2023/receta.txt": ("text", "utf-8", None, "in a nested folder"),
}
_WHATWG_NAMES = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "cp1252": "windows-1252"}


def _write_files(out: _Writer) -> Path:
    """The desktop folder: one file per format, a lying extension, a legacy encoding, a subfolder."""

    def add(name: str, data: bytes, document: DemoDocument) -> None:
        path = out.write(f"{_FILES_DIR}/{name}", data)
        out.documents.append(replace(document, url=path.resolve().as_uri()))

    for name, (kind, codec, declared, note) in _PROSE_FILES.items():
        lang, text = FILE_TEXTS[name]
        data = _standalone_html(lang, text) if kind == "html" else text.encode(codec)
        charset, where = declared or (None, None)
        encoding = _WHATWG_NAMES[codec]
        add(name, data, DemoDocument(_FILES_DIR, "", kind, lang, encoding, charset, where, note=note))
    rss = DemoDocument(_FILES_DIR, "", "rss", "en", "utf-8", "utf-8", "xml")
    add("feed.xml", _rss_feed(), rss)
    add("rivers.csv", _csv(), DemoDocument(_FILES_DIR, "", "csv", "en", "utf-8"))
    add("tides-2023.pdf", _report_pdf(), DemoDocument(_FILES_DIR, "", "pdf", "en"))
    minutes = _docx(
        DOCX_TITLE, DOCX_PARAGRAPHS, author="Garden club secretary", created="2024-03-04T18:30:00Z"
    )
    add("minutes.docx", minutes, DemoDocument(_FILES_DIR, "", "docx", "en"))
    add("pixel.png", _png(), DemoDocument(_FILES_DIR, "", "png"))
    return out.root / _FILES_DIR


def _garbage(size: int) -> bytes:
    """Deterministic binary junk with no ``<`` in it, so that no tag can start inside it."""
    block, junk = b"trawl demo garbage", b""
    while len(junk) < size:
        block = hashlib.sha256(block).digest()
        junk += block
    return b"\x00\x00" + junk[: size - 2].replace(b"<", b"\xfe")


def _weather_capture(path: str, title: str, text: str) -> _Capture:
    url = "http://weather.example.org" + path
    html = (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{_text(title)}</title>\n'
        f"</head>\n<body>\n<h1>{_text(title)}</h1>\n<p>{_text(text)}</p>\n</body>\n</html>\n"
    )
    return _text_capture(url, html, media_type="text/html", charset=_UTF8_HTTP_META, kind="html", lang="en")


def _write_broken(out: _Writer, clock: _Clock) -> list[Path]:
    pages = [_weather_capture(*page) for page in BROKEN_PAGES]

    truncated = _WarcFile(_TRUNCATED)
    for capture in pages[:3]:
        _, offset = _archive_response(truncated, capture, clock.tick())
        out.documents.append(_capture_document(_TRUNCATED, capture, offset))
    _, offset = _archive_response(truncated, pages[3], clock.tick())
    del truncated.data[offset + (len(truncated.data) - offset) // 2 :]
    out.bad.append(BadRecord(_TRUNCATED, offset, "warc/", "the last record's gzip member is cut in half"))

    lying = _WarcFile(_LYING)
    for i, capture in enumerate(pages[4:]):
        when = clock.tick()
        if i == 1:
            # 16 bytes short: the record's end is not followed by CRLF CRLF, and the block digest
            # fails (warcio loses its place in the stream); trawl reads on to the next record and
            # keeps the page, noting the repair
            block_length = len(_http_response(capture, when))
            _, offset = _archive_response(lying, capture, when, content_length=block_length - 16)
            what = f"Content-Length says {block_length - 16}, the block is {block_length} bytes: repaired"
            out.documents.append(replace(_capture_document(_LYING, capture, offset), note=what))
        else:
            _, offset = _archive_response(lying, capture, when)
            out.documents.append(_capture_document(_LYING, capture, offset))

    trec = bytearray()
    for i, (path, title, text) in enumerate(BROKEN_TREC, start=1):
        url = "http://archive.example.edu" + path
        html = _trec_html(title, [text], [("/index.html", "Example State University")], "").encode("ascii")
        when = _TREC_START + timedelta(days=1, minutes=i)
        if i == 2:
            trec += b"\n"
            out.bad.append(
                BadRecord(_GARBAGE, len(trec), "trec/", "300 bytes of binary garbage between documents")
            )
            trec += _garbage(300) + b"\n"
            out.bad.append(BadRecord(_GARBAGE, len(trec), "trec/", "a <DOC> without a <DOCNO>"))
            trec += _trec_doc("", url, when, html, with_docno=False)
            continue
        docno = f"TRAWL-BROKEN-{i:04d}"
        trec += _trec_doc(docno, url, when, html)
        out.documents.append(
            DemoDocument(_GARBAGE, url, "html", lang="en", encoding="utf-8", status=200, docno=docno)
        )

    out.bad.append(BadRecord(_EMPTY, 0, "warc/", "an empty file: no records at all"))
    paths = [
        out.write(_TRUNCATED, bytes(truncated.data)),
        out.write(_LYING, bytes(lying.data)),
        out.write(_GARBAGE, bytes(trec)),
        out.write(_EMPTY, b""),
    ]
    return paths


def _sorted_counts(values: Iterable[str | None]) -> dict[str, int]:
    return dict(sorted(Counter(v for v in values if v is not None).items()))


def generate_sample(directory: Path) -> DemoSample:
    """Write the demo sample under ``directory`` (created if needed; files of the same names are
    overwritten) and return what it holds. Two calls write identical bytes."""
    out = _Writer(Path(directory))
    clock = _Clock(_CRAWL_START)
    inputs = [*_write_web(out, clock), _write_trec(out), _write_files(out), *_write_broken(out, clock)]
    for top in ("web", "trec", _FILES_DIR, "broken"):
        out.fix_directory_mtimes(top)

    documents = tuple(out.documents)
    relative = [p.relative_to(out.root).as_posix() for p in inputs]
    by_input = dict.fromkeys(relative, 0) | Counter(d.input for d in documents)
    statuses = Counter(d.status for d in documents if d.status is not None)
    expected = DemoExpected(
        documents=len(documents),
        dropped=len(out.bad),
        drop_reasons=_sorted_counts(b.reason for b in out.bad),
        skipped=dict(sorted(out.skipped.items())),
        by_input=by_input,
        languages=_sorted_counts(d.lang for d in documents),
        encodings=_sorted_counts(d.encoding for d in documents),
        statuses=dict(sorted(statuses.items())),
        exact_duplicates=tuple(_DUPLICATE_OF.items()),
        near_duplicates=tuple((copy, original) for original, copy in NEAR_DUPLICATES),
    )
    return DemoSample(out.root, inputs, documents, tuple(out.bad), expected)


# --- the summary the CLI prints ---------------------------------------------------------------------------


def _counts(counts: dict[str, int] | Counter[str]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(counts.items()))


def describe(sample: DemoSample) -> str:
    """A short human summary of the sample: counts per format, languages, encodings and traps."""
    exp = sample.expected
    docs = sample.documents
    web = [d for d in docs if d.input.startswith("web/")]
    trec = [d for d in docs if d.input.startswith("trec/")]
    files = [d for d in docs if d.input == _FILES_DIR]
    broken = [d for d in docs if d.input.startswith("broken/")]
    hosts = sorted({_origin(d.url).partition("://")[2] for d in web})
    responses = [d for d in web if d.status is not None]
    status_counts = Counter(str(d.status) for d in responses)
    web_files = sum(1 for name in exp.by_input if name.startswith("web/"))
    broken_files = sum(1 for name in exp.by_input if name.startswith("broken/"))
    declared = Counter(d.declared_in or "nowhere" for d in docs if d.encoding)
    traps = [f"{Path(d.url).name if d.input == _FILES_DIR else d.url}: {d.note}" for d in docs if d.note]
    lines = [
        f"Demo sample in {sample.directory}: {exp.documents} documents in {len(sample.inputs)} inputs, "
        f"{exp.dropped} deliberately bad records",
        f"  web     {web_files} WARC files, {len(hosts)} hosts: {len(responses)} responses "
        f"(status {_counts(status_counts)}), {len(web) - len(responses)} resource (PDF); "
        f"to skip: {_counts(exp.skipped)}",
        f"  trec    {len(trec)} TREC Web documents ({_counts(Counter(d.lang or '' for d in trec))})",
        f"  files   {len(files)} files: {_counts(Counter(d.kind for d in files))}",
        f"  broken  {broken_files} files: {len(broken)} good records around {exp.dropped} bad ones "
        f"(drops {_counts(exp.drop_reasons)})",
        f"  languages  {_counts(exp.languages)}",
        f"  encodings  {_counts(exp.encodings)}; charset declared in {_counts(declared)}",
        f"  duplicates {len(exp.exact_duplicates)} exact, {len(exp.near_duplicates)} near",
        "  traps",
        *(f"    {trap}" for trap in traps),
    ]
    return "\n".join(lines)
