"""The fuzz targets: every parser of untrusted bytes, what it may raise, and the inputs it starts from.

A target is one function of one input (at most :data:`MAX_LEN` bytes). It calls the parser the way
trawl's own callers do and catches exactly the errors those callers handle (the parser's documented
ones); anything else escapes, and that is a *crash*: an exception of another type, a broken
invariant (``AssertionError``: a record count that disagrees, a body past its cap), or a signal
(the compiled HTML walk and PDFium are C). What each parser may raise: the sources, the robots,
sitemap and feed parsers, the charset code, the page read and :func:`convert_bytes` nothing (they
count and record); the HTTP/1.1 parser only ``FetchError`` (and its own ``_Stale``), handed to the
waiter; a converter only ``ConversionError`` (``MissingDependency``), so a library error it lets
through (``zlib.error`` from a damaged ZIP member) counts, though :func:`convert_bytes` would turn it
into ``<format>-failed``: that reason is meant for the unforeseen. The drivers are ``bench/fuzz.py`` (Atheris,
coverage-guided, when installed; else the Hypothesis mutations below), the ``slow`` property tests
and the regression replay in ``tests/fuzz/test_fuzz_regressions.py``, which runs every input once
found to break a target (``tests/data/fuzz/<target>/<sha1>``) through it again.

Seeds come from the committed fixtures: ``tests/data/warc`` and ``tests/data/trec``, the convert
corpus (``tests/convert/corpus.py``), the test web's robots.txt files, sitemaps, feeds and pages
(``trawl.testweb``), hand-written HTTP answers, and warcio's test archives where
``../shared/data`` has them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import io
import os
import random
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FUZZ_FIXTURES = DATA / "fuzz"
SHARED = ROOT.parent / "shared" / "data"
MAX_LEN = 64 * 1024  # the largest input a target is given (the hang bound is per input this size)
URL = "http://fuzz.test/dir/page.html"


@dataclass(frozen=True, slots=True)
class Target:
    """One parser under fuzzing."""

    name: str
    run: Callable[[bytes], None]
    seeds: Callable[[], list[bytes]]
    about: str
    zip_members: bool = False  # inputs are ZIP packages: mutate the members, not only the bytes
    compiled: bool = False  # runs C code of trawl's or a library's: replay it in a child process


# --- the parsers ------------------------------------------------------------------------------


def _warc(data: bytes) -> None:
    from trawl.acquire.warc import WarcSource
    from trawl.pipeline.base import RunContext

    types = ("warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion")
    for fast in (True, False):
        ctx = RunContext()
        docs = list(WarcSource([io.BytesIO(data)], record_types=types, fast=fast).read(ctx))
        assert ctx.stats["read/records"] == len(docs), (fast, ctx.stats["read/records"], len(docs))
        _no_isolated_errors(ctx)


def _no_isolated_errors(ctx: Any) -> None:
    """A reader isolates an unforeseen exception (``error/<stage>/<type>``) so that the run goes
    on; for the fuzzer it is still a bug: the drops have reasons, an error has none."""
    errors = ctx.stats.prefix("error/")
    assert not errors, f"{errors}: {[e.message for e in ctx.audit.entries if e.kind == 'error'][:3]}"


def _trec(data: bytes) -> None:
    from trawl.acquire.trec import TrecSource
    from trawl.pipeline.base import RunContext

    ctx = RunContext()
    docs = list(TrecSource([io.BytesIO(data)]).read(ctx))
    assert ctx.stats["read/records"] == len(docs), (ctx.stats["read/records"], len(docs))
    assert all(doc.docno for doc in docs)
    _no_isolated_errors(ctx)


def _robots(data: bytes) -> None:
    from trawl.crawl.robots import RobotsRules, parse_robots

    rules = parse_robots(data, "trawl")
    text = data.decode("utf-8", "replace")
    paths = ["/", "/a/b.html?x=1", "/%E2%82%AC", *(w for w in text.split() if w.startswith("/"))][:16]
    for path in paths:
        rules.allowed(path)
    for status in (200, 404, 503):
        RobotsRules.for_status(status, data, "*").allowed("/x")


def _sitemap(data: bytes) -> None:
    from trawl.crawl.discovery import parse_sitemap

    info = parse_sitemap(data)
    assert len(info.urls) + len(info.sitemaps) <= 50_000 * 2
    small = parse_sitemap(data, max_bytes=4096, max_urls=3)
    assert len(small.urls) <= 3


def _feed(data: bytes) -> None:
    from trawl.convert.base import ConversionError, ConvertOptions
    from trawl.convert.feeds import convert_feed, convert_xml
    from trawl.convert.registry import convert_bytes
    from trawl.crawl.discovery import (
        is_feed,
        parse_feed,
        parse_feed_date,
        parse_link_header,
        parse_w3c_datetime,
    )

    info = parse_feed(data)
    assert len(info.entries) <= 10_000
    assert len(parse_feed(data, max_bytes=2048, max_entries=2).entries) <= 2
    is_feed(None, data[:512])
    is_feed("application/rss+xml", data[:512])
    text = data.decode("latin-1")
    parse_link_header(text[:4096])
    for line in text.splitlines()[:8]:
        parse_w3c_datetime(line[:80])
        parse_feed_date(line[:80])
    conversion = convert_bytes(data, declared="application/rss+xml", options=ConvertOptions(url=URL))
    assert conversion.converted is not None or conversion.dropped or conversion.skipped
    decoded = data.decode("utf-8", "replace")
    for convert in (convert_feed, convert_xml):
        with contextlib.suppress(ConversionError):
            convert(decoded, ConvertOptions(url=URL))


class _Wire(asyncio.Transport):
    """The socket side of a :class:`_Conn` under test: writes go nowhere, close is noted."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 80) if name == "peername" else default


@cache
def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.new_event_loop()


def _http11(data: bytes) -> None:
    """The HTTP/1.1 client's response parser, on a byte stream cut into pieces.

    The first two bytes steer the exchange: the piece size (byte 0), and (byte 1) a HEAD request,
    a content-type filter, a small body cap, whether the server closes at the end.
    """
    from trawl.crawl.http11 import _Conn, _Stale
    from trawl.crawl.transport import FetchError

    if len(data) < 2:
        return
    piece = 1 + data[0] % 97 if data[0] < 200 else len(data)
    flags, wire = data[1], data[2:]
    cap = 64 if flags & 4 else 1 << 20
    loop = _loop()
    conn = _Conn(loop, ("http", "fuzz.test", 80))
    conn.connection_made(_Wire())
    waiter = conn.send(
        b"GET / HTTP/1.1\r\n\r\n",
        cap=cap,
        accept=("text/",) if flags & 2 else (),
        read_timeout=30.0,
        deadline=loop.time() + 60.0,
        head_only=bool(flags & 1),
    )
    for i in range(0, len(wire), piece):
        conn.data_received(wire[i : i + piece])
    if flags & 8:
        conn.connection_lost(None)
    try:
        if waiter.done():
            exc = waiter.exception()
            assert exc is None or isinstance(exc, FetchError | _Stale), repr(exc)
            if exc is None:
                assert 100 <= conn.status <= 999
                assert conn.size <= cap and sum(map(len, conn.body)) == conn.size
        else:
            assert not flags & 8, "the connection closed and the answer is neither done nor failed"
    finally:
        conn._stop_timer()
        waiter.cancel()
        loop.call_soon(loop.stop)
        loop.run_forever()  # drops the cancelled timers


_CODINGS: tuple[tuple[str | None, str | None], ...] = (
    ("chunked", None),
    (None, "gzip"),
    (None, "deflate"),
    ("chunked", "gzip"),
    (None, "gzip, deflate"),
    (None, "br"),
    (None, "zstd"),
    (None, "x-unknown"),
    ("gzip, chunked", "identity"),
)


def _payload(data: bytes) -> None:
    """Entity bodies as stored: de-chunking and content decoding, bounded."""
    from trawl.decode.http import dechunk, decode_payload

    if not data:
        return
    te, ce = _CODINGS[data[0] % len(_CODINGS)]
    body = data[1:]
    dechunk(body)
    dechunk(body, limit=16)
    for max_bytes, limit in ((1 << 20, None), (256, None), (1 << 20, 8)):
        payload = decode_payload(body, te, ce, max_bytes=max_bytes, limit=limit)
        assert len(payload.data) <= max(max_bytes, len(body)), (len(payload.data), max_bytes)


_CONTENT_TYPES = (None, "text/html", "text/html; charset=utf-8", "text/html; charset=x-bogus", "text/xml")


def _charset(data: bytes) -> None:
    """The charset prescan, the XML declaration, the Content-Type label and the whole decoder."""
    from trawl.decode.charset import (
        decode_html,
        http_charset,
        lookup_label,
        prescan_meta,
        xml_declared_encoding,
    )

    prescan_meta(data[:1024])
    prescan_meta(data)
    xml_declared_encoding(data)
    first = data[:200].decode("latin-1")
    http_charset(first)
    lookup_label(data[:40])
    ctype = _CONTENT_TYPES[len(data) % len(_CONTENT_TYPES)]
    for html in (True, False):
        decoded = decode_html(data, ctype, html=html)
        assert isinstance(decoded.text, str) and decoded.encoding


def _html(data: bytes) -> None:
    """The compiled tree builder, cut and walk (and lexbor where it gives up), the page read, the
    metadata and links, and the main-content extraction on top."""
    from trawl.extract.extractor import extract_page
    from trawl.html.blocks import parse_page
    from trawl.html.page import read_page

    text = data.decode("utf-8", "replace")
    page = read_page(text, URL)
    assert all(link.url for link in page.links)
    extract_page(page)
    parse_page(data)  # bytes: the scanner over bytes, then lexbor
    parse_page(text, lite=False)


def _converter(fmt: str, filename: str) -> Callable[[bytes], None]:
    """A converter on its own (only its ConversionError may escape) and through
    :func:`convert_bytes` with a file name (nothing may escape)."""

    def run(data: bytes) -> None:
        from trawl.convert.base import ConversionError, ConvertOptions
        from trawl.convert.registry import REGISTRY, convert_bytes
        from trawl.errors import MissingDependency

        # trawl's own readers only: LibreOffice (a program, seconds a file) is not what is fuzzed
        options = ConvertOptions(url=URL, max_pages=50, libreoffice="never")
        with contextlib.suppress(ConversionError, MissingDependency):
            REGISTRY[fmt].func(data, options)
        conversion = convert_bytes(data, filename=filename, options=options)
        assert conversion.converted is not None or conversion.dropped or conversion.skipped

    return run


def _mbox(data: bytes) -> None:
    from trawl.convert.mail import split_mbox

    spans = split_mbox(data)
    assert all(0 <= s.start <= s.end <= len(data) for s in spans)
    _converter("mbox", "box.mbox")(data)


# --- seeds ------------------------------------------------------------------------------------


def _files(*folders: Path, suffixes: tuple[str, ...] = ()) -> list[bytes]:
    out = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.suffix != ".py" and (not suffixes or path.name.endswith(suffixes)):
                out.append(path.read_bytes()[:MAX_LEN])
    return out


@cache
def _corpus() -> dict[str, bytes]:
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.convert import corpus

    out = {}
    for seed, size in ((1, 2), (2, 6)):
        for sample in corpus.build_all(seed, size):
            out[f"{sample.format}/{seed}"] = sample.data
    return out


def _corpus_of(*formats: str) -> Callable[[], list[bytes]]:
    def seeds() -> list[bytes]:
        return [data[:MAX_LEN] for key, data in _corpus().items() if key.split("/")[0] in formats]

    return seeds


@cache
def _web() -> Any:
    from trawl.testweb.site import TestWeb

    return TestWeb(hosts=3, pages=4, news_interval=1.0)


def _replies(*targets: tuple[str, str]) -> list[bytes]:
    web = _web()
    return [web.respond(host, path, {}, 100.0).body[:MAX_LEN] for host, path in targets]


def _robots_seeds() -> list[bytes]:
    hosts = ["h0.test", "badrobots.test", "delay.test", "sitemaps.test", "robotsredirect.test", "trap.test"]
    return [
        *_replies(*((h, "/robots.txt") for h in hosts)),
        b"User-agent: trawl\nDisallow: /*.pdf$\nAllow: /a/*b\n\nUser-agent: *\nDisallow: /\n",
        b"\xef\xbb\xbfuser-agent: *\r\ndisallow: /p%2Fq\r\ncrawl-delay: 1.5\r\nsitemap: http://x.test/s.xml\r\n",
    ]


def _sitemap_seeds() -> list[bytes]:
    paths = ["/sitemap.xml", "/sitemap-lastmod.xml"]
    found = _replies(*(("h0.test", p) for p in paths), ("sitemaps.test", "/index.xml"))
    found += _replies(("sitemaps.test", "/text.txt"), ("sitemaps.test", "/gz.xml.gz"))
    return [*found, b"http://a.test/1\nhttps://a.test/2\n", gzip.compress(found[0])]


def _feed_seeds() -> list[bytes]:
    return [*_replies(("news.test", "/rss.xml"), ("news.test", "/atom.xml")), *_corpus_of("rss", "atom")()]


def _response(status: str, headers: list[tuple[str, str]], body: bytes, *, chunked: bool = False) -> bytes:
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    if chunked:
        pieces = [body[i : i + 40] for i in range(0, len(body), 40)]
        framed = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\nX-Trailer: 1\r\n\r\n"
        return (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + framed
    return (head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def _http11_seeds() -> list[bytes]:
    page = _replies(("h0.test", "/"))[0]
    html = [("Content-Type", "text/html; charset=utf-8")]
    answers = [
        _response("200 OK", html, page),
        _response("200 OK", html, page, chunked=True),
        b"HTTP/1.1 100 Continue\r\n\r\n" + _response("404 Not Found", html, b"gone"),
        b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\n\r\nuntil close",
        _response("304 Not Modified", [("ETag", '"x"')], b""),
        _response("301 Moved", [("Location", "/b"), ("X-Folded", "a\r\n b")], b"moved"),
        _response("200 OK", [("Content-Type", "image/png")], b"\x89PNG" * 20),
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde",
    ]
    return [bytes([flags * 37 % 256, flags]) + a for flags in (0, 5, 8, 202, 14) for a in answers]


def _payload_seeds() -> list[bytes]:
    page = _replies(("h0.test", "/"))[0]
    chunked = _response("200 OK", [], page, chunked=True).split(b"\r\n\r\n", 1)[1]
    deflate = zlib.compressobj(6, zlib.DEFLATED, 15)
    return [
        b"\x00" + chunked,
        b"\x01" + gzip.compress(page),
        b"\x02" + deflate.compress(page) + deflate.flush(),
        b"\x03" + _response("200 OK", [], gzip.compress(page), chunked=True).split(b"\r\n\r\n", 1)[1],
        b"\x01" + gzip.compress(page[:100]) + gzip.compress(page[100:]),
        b"\x07" + page,
    ]


def _charset_seeds() -> list[bytes]:
    heads = [
        b'<html><head><meta charset="shift_jis"><title>\x83e\x83X\x83g</title></head></html>',
        b'<!-- <meta charset=koi8-r> --><meta http-equiv="Content-Type" '
        b"content=\"text/html; charset='euc-kr'\">",
        b"<?xml version='1.0' encoding='iso-8859-7'?><a>\xe1\xe2</a>",
        "<?xml version='1.0'?><a>\u00e9</a>".encode("utf-16"),
        b"\xef\xbb\xbf<p>caf\xc3\xa9</p>",
        b"<meta content='charset=x' http-equiv=content-type charset=gbk><p>\xc4\xe3\xba\xc3</p>",
        "<p>Привет, мир</p>".encode("cp1251"),
    ]
    web = _web()
    pages = [web.respond(h, "/", {}, 100.0).body[:4096] for h in web.host_names()[:3]]
    return heads + pages + _files(SHARED / "encoding" / "html5lib-encoding", suffixes=(".dat",))[:2]


def _html_seeds() -> list[bytes]:
    web = _web()
    pages = [web.respond(h, p, {}, 100.0).body for h in web.host_names()[:4] for p in ("/", "/p/1.html")]
    wcxb = SHARED / "extraction" / "wcxb-dev" / "html"
    if wcxb.is_dir():
        small = sorted(p for p in wcxb.iterdir() if p.is_file() and p.stat().st_size < MAX_LEN)
        pages += [p.read_bytes() for p in small[:12]]
    soup = b"<table><tr><td><p>a<b>b<i>c</b>d</i><svg><p>e</svg><math><mi>x</mi></math><frameset>"
    return [p[:MAX_LEN] for p in pages] + [soup, *_corpus_of("html")()]


def _warc_seeds() -> list[bytes]:
    return _files(DATA / "warc") + _files(SHARED / "warc" / "warcio-tests", suffixes=(".warc", ".arc", ".gz"))


# --- the table ----------------------------------------------------------------------------------

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("warc", _warc, _warc_seeds, "WARC/ARC reader, fast (FastWARC) and own paths", compiled=True),
        Target("trec", _trec, lambda: _files(DATA / "trec"), "TREC text/web reader"),
        Target("robots", _robots, _robots_seeds, "robots.txt parser and matcher"),
        Target("sitemap", _sitemap, _sitemap_seeds, "sitemaps: XML, index, text, gzip"),
        Target("feed", _feed, _feed_seeds, "RSS/Atom discovery and conversion, Link headers, dates"),
        Target("http11", _http11, _http11_seeds, "HTTP/1.1 client response parser (crawl/http11.py)"),
        Target("payload", _payload, _payload_seeds, "stored bodies: de-chunking, gzip/deflate/br/zstd"),
        Target("charset", _charset, _charset_seeds, "charset prescan, XML declaration, decoder"),
        Target(
            "html",
            _html,
            _html_seeds,
            "compiled tree builder, cut and walk; page read; extraction",
            compiled=True,
        ),
        Target("rtf", _converter("rtf", "doc.rtf"), _corpus_of("rtf"), "RTF converter"),
        Target("docx", _converter("docx", "doc.docx"), _corpus_of("docx"), "DOCX converter", True),
        Target("xlsx", _converter("xlsx", "book.xlsx"), _corpus_of("xlsx"), "XLSX converter", True),
        Target("pptx", _converter("pptx", "deck.pptx"), _corpus_of("pptx"), "PPTX converter", True),
        Target("odf", _converter("odt", "doc.odt"), _corpus_of("odt", "ods", "odp"), "ODT/ODS/ODP", True),
        Target("epub", _converter("epub", "book.epub"), _corpus_of("epub"), "EPUB converter", True),
        Target("email", _converter("email", "msg.eml"), _corpus_of("email"), "MIME message converter"),
        Target("mbox", _mbox, _corpus_of("mbox"), "mbox splitter and converter"),
        Target("pdf", _converter("pdf", "doc.pdf"), _corpus_of("pdf"), "PDF through PDFium", compiled=True),
        Target(
            "ole",
            _converter("ole", "doc.doc"),
            lambda: _corpus_of("ole")() + _files(DATA / "convert" / "legacy"),
            "legacy .doc/.xls/.ppt/.msg (olefile, xlrd, trawl's own readers)",
        ),
        Target(
            "iwork",
            _converter("pages", "doc.pages"),
            _corpus_of("pages", "numbers", "key"),
            "iWork '09 packages",
            True,
        ),
    )
}


def _selftest(data: bytes) -> None:
    """A target that breaks on purpose, to test the drivers: an exception, a hang or a segfault by
    the input's length (``TRAWL_FUZZ_SELFTEST=1`` adds it to :data:`TARGETS`)."""
    kind = len(data) % 11
    if kind == 1:
        raise ValueError(f"selftest: {len(data)} bytes")
    if kind == 2:
        while True:  # a hang in Python, interruptible
            pass
    if kind == 3:
        import ctypes

        ctypes.string_at(0)  # a segfault


if os.environ.get("TRAWL_FUZZ_SELFTEST") == "1":
    TARGETS["selftest"] = Target("selftest", _selftest, lambda: [b"0123456789"], "breaks on purpose")


def fixtures(target: str) -> list[Path]:
    """The inputs once found to break ``target``, kept as regression fixtures."""
    folder = FUZZ_FIXTURES / target
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


# --- mutations (the Hypothesis engine, and Atheris' mutator for ZIP packages) --------------------

_TOKENS = (
    b"\r\n",
    b"\r\n\r\n",
    b"\x00",
    b"\xff\xfe",
    b"<",
    b">",
    b"</",
    b"<![CDATA[",
    b"<!--",
    b"-->",
    b"&#x",
    b'"',
    b"{\\",
    b"}",
    b"\\u-",
    b"\\bin99999 ",
    b"Content-Length: ",
    b"Transfer-Encoding: chunked\r\n",
    b"WARC/1.0\r\n",
    b"<DOC>",
    b"</DOC>",
    b"Disallow: /*",
    b"$",
    b"%",
    b"9999999999",
    b"-1",
    b"0\r\n\r\n",
)


def mutate(data: bytes, rng: random.Random, steps: int = 4) -> bytes:
    """A few random edits of ``data``: bit flips, cuts, duplicated or dropped spans, inserted
    bytes and tokens, a swapped-in span of itself. Bounded by :data:`MAX_LEN`."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, steps)):
        n = len(buf)
        op = rng.randrange(7)
        at = rng.randint(0, n)
        if op == 0 and n:
            i = rng.randrange(n)
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del buf[at:]
        elif op == 2:
            del buf[at : at + rng.randint(1, 64)]
        elif op == 3:
            buf[at:at] = buf[at : at + rng.randint(1, 256)]
        elif op == 4:
            buf[at:at] = rng.randbytes(rng.randint(1, 16))
        elif op == 5:
            buf[at:at] = rng.choice(_TOKENS)
        elif n:
            i = rng.randrange(n)
            buf[at:at] = buf[i : i + rng.randint(1, 32)]
    return bytes(buf[:MAX_LEN])


def mutate_zip(data: bytes, rng: random.Random, edit: Callable[[bytes], bytes]) -> bytes:
    """``data`` rewritten with one member edited by ``edit`` (the XML, not its deflated bytes; each
    member keeps its compression, so the package stays about its size), or ``data`` edited whole
    when it is no longer a readable ZIP."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [(info, zf.read(info)) for info in zf.infolist()]
    except Exception:  # any damage: the mutation goes to the bytes
        return edit(data)
    if not members:
        return edit(data)
    pick = rng.randrange(len(members))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zw:
        for i, (info, body) in enumerate(members):
            method = (
                zipfile.ZIP_DEFLATED if info.compress_type == zipfile.ZIP_DEFLATED else zipfile.ZIP_STORED
            )
            zw.writestr(info.filename, edit(body) if i == pick else body, method)
    return out.getvalue()[:MAX_LEN]


def mutations(target: Target) -> st.SearchStrategy[bytes]:
    """Hypothesis inputs for ``target``: a seed, mutated (members of a ZIP package too)."""
    seeds = target.seeds() or [b""]

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        data = draw(st.sampled_from(seeds))
        rng = random.Random(draw(st.integers(0, 2**32 - 1)))
        if target.zip_members and rng.random() < 0.7:
            return mutate_zip(data, rng, lambda body: mutate(body, rng))
        return mutate(data, rng)

    return build()


def all_fixture_cases() -> Iterator[tuple[str, Path]]:
    for name in TARGETS:
        for path in fixtures(name):
            yield name, path
