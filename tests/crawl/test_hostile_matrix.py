"""The hostile servers and inputs matrix (issue 35): every case, how it is made, what trawl does,
the counter that says so, and the tests that hold it.

:data:`CASES` is the catalogue, machine-readable: ``docs/hostile.md`` is the same table for
readers (``test_the_catalogue_is_documented_and_its_tests_exist`` keeps the two in step), and
``bench/reliability.py`` imports it and runs each case's tests (``pytest NODE…``) to report
"hostile cases passed: N/N". A case passes when all its tests pass.

The cases of the crawler share one crawl of the test web's hostile hosts (a module fixture, a
few seconds); each case then has its own test function over that crawl.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from trawl.cli.main import main as trawl_main
from trawl.crawl.crawler import CrawlResult, CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import LogEntry, ServerThread, TestWeb

ROOT = Path(__file__).resolve().parents[2]
PLAIN = ["extract.enabled=false", "langid.enabled=false"]


@dataclass(frozen=True, slots=True)
class HostileCase:
    """One row of the matrix."""

    name: str  # short and unique: the row's key in docs/hostile.md
    case: str  # what the issue names
    made_by: str  # how the test web or a fixture produces it
    behaviour: str  # what trawl does about it
    counter: str  # the counter (or drop reason) that records it
    tests: tuple[str, ...]  # pytest node ids, relative to the repository root


_CRAWL = "tests/crawl/test_crawl.py::test_hostile_hosts_are_bounded_counted_and_survived"
_HINTS = "tests/crawl/test_hints.py"
_CONVERT = "tests/convert/test_hostile.py::test_hostile_files_are_recorded_drops"
_HERE = "tests/crawl/test_hostile_matrix.py"

#: The matrix. ``docs/hostile.md`` has one row per entry, in this order.
CASES: list[HostileCase] = [
    HostileCase(
        "slowloris", "slowloris bodies", "slowloris.test: headers, then a byte every 0.2 s",
        "read timeout between two arrivals, total timeout over the answer", "fetch/error/timeout", (_CRAWL,),
    ),
    HostileCase(
        "endless-chunked", "endless chunked streams", "endless.test: a chunked body that never ends",
        "cut at max_body_bytes while streaming, connection closed", "fetch/truncated", (_CRAWL,),
    ),
    HostileCase(
        "gzip-bomb", "decompression bomb (gzip)", "bomb.test: 16 MiB of zeros in ~16 KiB of gzip",
        "decoded to decode.max_body_bytes, cut there", "decode/size-cap",
        (_CRAWL, "tests/decode/test_http.py::test_gzip_bomb_is_cut_at_the_cap_without_inflating_the_rest"),
    ),
    HostileCase(
        "br-zstd-stacked-bombs", "decompression bombs (br, zstd, stacked codings)",
        "codings.test/br, /zstd, /gzip-gzip, /gzip-br: 64 MiB of zeros each",
        "every coding decoded with an output bound (brotli's output_buffer_limit, zstd in slices), "
        "stacked codings undone outermost first, the bound on each",
        "decode/size-cap/<coding>",
        (f"{_HERE}::test_hostile_bombs_in_br_zstd_and_stacked_codings",
         "tests/decode/test_http.py::test_brotli_and_its_bomb"),
    ),
    HostileCase(
        "nested-zip", "decompression bombs (nested ZIP)",
        "a ZIP in a ZIP in a ZIP around 16 MiB of zeros; a DOCX carrying it as an embedded object",
        "archives are not opened (kept as they are, counted skipped); an office file's members are "
        "read with a byte budget and embedded objects are not unpacked",
        "convert/skipped/application/zip, drop/convert/zip-bomb",
        (f"{_HERE}::test_hostile_nested_zip_is_never_unpacked", f"{_CONVERT}[zip_bomb-bomb.docx-zip-bomb]"),
    ),
    HostileCase(
        "huge-headers", "huge headers", "headers.test/line: one 1 MiB header line; /many: 10,000 lines",
        "the head is cut at 64 KiB or 1,000 lines, the page dropped, the host crawled on",
        "fetch/error/headers-too-large", (f"{_HERE}::test_hostile_huge_headers",),
    ),
    HostileCase(
        "length-longer", "lying lengths (Content-Length longer than the body)",
        "badlength.test: Content-Length 50000, a few bytes, then close",
        "the answer is a payload error (or a read timeout), dropped", "drop/fetch/payload", (_CRAWL,),
    ),
    HostileCase(
        "length-shorter", "lying lengths (Content-Length shorter than the body)",
        "smuggle.test: the bytes past the length are a forged second answer on a keep-alive connection",
        "the body ends at the length; the connection is closed, so the forged bytes never answer the "
        "next request", "fetch/overrun", (f"{_HERE}::test_hostile_content_length_shorter_than_the_body",),
    ),
    HostileCase(
        "redirect-loop", "redirect loops and long chains",
        "redirects.test/loop/a ⇄ /loop/b; /chain/0 … /chain/30",
        "each target is queued once (seen set), at most max_redirects hops", "drop/redirect-limit",
        (_CRAWL,),
    ),
    HostileCase(
        "redirect-schemes", "redirect chains across schemes",
        "redirects.test/scheme/NAME: to https, ftp:, file:///etc/passwd, data:, javascript:, mailto:",
        "https is followed like http; any other scheme is never followed", "drop/redirect-unfetchable",
        (f"{_HERE}::test_hostile_redirects_across_schemes",),
    ),
    HostileCase(
        "robots-huge", "robots.txt that is huge", "bigrobots.test: a 10 MB robots.txt",
        "read to 500 KiB (RFC 9309's minimum), the rest ignored", "robots/truncated", (_CRAWL,),
    ),
    HostileCase(
        "robots-binary", "robots.txt that is binary",
        "binrobots.test: 8 KiB of random bytes; badrobots.test: junk among rules",
        "lines that are no rules are skipped and counted; no rule means all allowed", "robots/bad-lines",
        (f"{_HERE}::test_hostile_binary_robots_txt", _CRAWL),
    ),
    HostileCase(
        "robots-timeout", "robots.txt that times out", "slowrobots.test: robots.txt after 3 s",
        "unreachable (RFC 9309 §2.3.1.4): asked again max_retries times, then nothing fetched there",
        "robots/error/timeout, drop/robots/unreachable/robots.txt/timeout",
        (f"{_HERE}::test_hostile_robots_txt_that_times_out",),
    ),
    HostileCase(
        "robots-5xx", "robots.txt that fails", "robots5xx.test: robots.txt answers 503",
        "the host is not crawled", "drop/robots/5xx", (_CRAWL,),
    ),
    HostileCase(
        "sitemap-recursion", "sitemap recursion", "sitemaps.test/index.xml includes itself and an index "
        "that includes it", "each sitemap read once; index depth bounded", "drop/sitemap-depth",
        (_CRAWL,),
    ),
    HostileCase(
        "sitemap-bomb", "sitemap bombs", "sitemaps.test/limits/bomb.xml.gz: 64 MiB of spaces, gzipped; "
        "many.xml, big.xml", "read to max_sitemap_bytes / max_sitemap_urls", "drop/sitemap-too-large",
        (f"{_HINTS}::test_hint_limits_and_bad_hints_are_counted_never_fatal",
         f"{_HINTS}::test_sitemap_limits_bytes_urls_and_a_gzip_bomb"),
    ),
    HostileCase(
        "feed-recursion", "feed recursion", "news.test/limits/self.xml lists itself and loop.xml, which "
        "lists self.xml", "each feed fetched once (seen set)", "discover/seen",
        (f"{_HERE}::test_hostile_feed_recursion",),
    ),
    HostileCase(
        "feed-bomb", "feed bombs", "news.test/limits/bomb.xml: 64 MiB of spaces, Content-Encoding: gzip",
        "read to max_feed_bytes / max_feed_entries", "drop/feed-too-large",
        (f"{_HINTS}::test_hint_limits_and_bad_hints_are_counted_never_fatal",),
    ),
    HostileCase(
        "traps", "spider traps (calendars, session ids, ever-deeper paths)",
        "trap.test: an endless calendar, a new session id in every link, /deep/a/a/a/…",
        "per-host budget, session ids removed, path depth and repetition limits",
        "discover/refused/trap/path-repeat, drop/trap/host-budget", (_CRAWL,),
    ),
    HostileCase(
        "dirty-text", "invalid UTF-8 and NUL in every text field (web page, headers, URL)",
        "dirty.test/: bad UTF-8 and NUL in the title, meta description, link URLs, anchor text, "
        "text and a header",
        "stored; trawl show, get --json and export jsonl/trec/warc read it back, JSON valid",
        "decode/overruled/utf-8->windows-1252",
        (f"{_HERE}::test_hostile_invalid_utf8_and_nul_in_every_text_field",),
    ),
    HostileCase(
        "dirty-archives", "invalid UTF-8 and NUL in mail headers, WARC header values and file names",
        "an .eml with raw bytes and NUL in From, Subject, Message-ID; a WARC record with them in its "
        "target URI, a WARC header and an HTTP header; a file named with bytes that are no UTF-8",
        "stored (a NUL in a key escaped as %00, undecodable header bytes as U+FFFD, an odd file name "
        "kept as its bytes in the desktop state); show, get --json and export read it back",
        "mail/charset/lossy, decode/lossy",
        (f"{_HERE}::test_hostile_invalid_utf8_and_nul_in_mail_and_warc_headers",),
    ),
    HostileCase(
        "xml-entities-crawl", "XML external entities and billion laughs in crawled sitemaps and feeds",
        "sitemaps.test/limits/entities.xml, xxe.xml; news.test/limits/entities.xml, xxe.xml",
        "no DTD entity is expanded or fetched: the document is a problem, counted",
        "discover/sitemap-problem, discover/feed-problem",
        (f"{_HERE}::test_hostile_entities_in_crawled_sitemaps_and_feeds",
         f"{_HINTS}::test_hint_limits_and_bad_hints_are_counted_never_fatal"),
    ),
    HostileCase(
        "xml-entities-files", "XML external entities and billion laughs in files",
        "a billion-laughs RSS, an Atom feed with a file:// entity, a DOCX whose document is an XML bomb",
        "refused before parsing", "drop/convert/xml-entities, xml-external-entity, xml-dtd",
        (f"{_CONVERT}[docx_with_xml_bomb-laughs.docx-xml-dtd]",
         f"{_CONVERT}[<lambda>-laughs.rss-xml-entities]",
         f"{_CONVERT}[<lambda>-external.atom-xml-external-entity]"),
    ),
    HostileCase(
        "pdf-spins", "PDF files that hang their parsers",
        "a PDF whose page draws a form that draws a form … nine deep, ten times each (10⁹ glyphs)",
        "the guard's worker is killed at the timeout; the next file converts", "drop/convert/pdf-timeout",
        (f"{_HERE}::test_hostile_pdf_that_spins_is_cut_off_by_the_guard",),
    ),
    HostileCase(
        "office-slow", "Office files that hang their parsers",
        "a DOCX of 60,000 paragraphs (8 MiB of XML, under every byte and ratio budget) converted "
        "under a 0.1 s guard: Office parsing is linear in the budgeted bytes, so a file that runs "
        "long is a large one, and the guard's clock is what bounds it",
        "the guard's worker is killed at the timeout; the next file converts", "drop/convert/docx-timeout",
        (f"{_HERE}::test_hostile_office_file_past_the_guard_s_time_is_cut_off",),
    ),
    HostileCase(
        "office-bombs", "Office files that break their parsers",
        "a DOCX zip bomb, one declaring a 4 GiB member, a cut one, a 2,000-deep RTF",
        "refused by the byte budget and the depth bound, within seconds",
        "drop/convert/zip-bomb, rtf-too-deep",
        (f"{_CONVERT}[declared_huge-huge.docx-zip-bomb]", f"{_CONVERT}[<lambda>-deep.rtf-rtf-too-deep]"),
    ),
]  # fmt: skip


# -- the shared crawl ---------------------------------------------------------------------------

_HOSTS = (
    "codings.test", "headers.test", "smuggle.test", "slowrobots.test", "binrobots.test", "dirty.test",
    "redirects.test", "news.test", "sitemaps.test",
)  # fmt: skip
_SEEDS = [
    "http://codings.test/",
    "http://headers.test/",
    "http://smuggle.test/",
    "http://slowrobots.test/",
    "http://binrobots.test/",
    "http://dirty.test/",
    "http://redirects.test/schemes",
    "http://news.test/limits/self.xml",
    "http://news.test/limits/entities.xml",
    "http://news.test/limits/xxe.xml",
    "http://sitemaps.test/limits/xxe.xml",
    "http://sitemaps.test/limits/entities.xml",
]


@dataclass(slots=True)
class Crawled:
    result: CrawlResult
    log: list[LogEntry]
    path: Path
    drops: list[dict[str, Any]]
    urls: set[str]
    seconds: float

    @property
    def stats(self) -> Any:
        return self.result.stats

    def reasons(self, url: str) -> set[str]:
        return {d["reason"] for d in self.drops if d.get("url") == url}

    def requested(self, host: str) -> list[str]:
        return [e.target for e in self.log if e.host.split(":", 1)[0] == host]


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    path = tmp_path_factory.mktemp("hostile") / "c"
    web = TestWeb(35, hosts=1, pages=2, special=True, change_rates=(0.0,))
    # hostile hosts are faulty hosts: a short back-off keeps the crawl to seconds
    fast = {"backoff_base": 0.05} if "backoff_base" in CrawlSettings.__dataclass_fields__ else {}
    with ServerThread(web) as server:
        settings = CrawlSettings(
            **fast,
            min_delay=0.0,
            delay_factor=0.0,
            concurrency=16,
            read_timeout=0.8,
            total_timeout=2.0,
            connect_timeout=1.0,
            max_body_bytes=1 << 20,
            max_retries=0,
            max_pages_per_host=30,
            hosts=_HOSTS,
            exclude=(r"sitemaps\.test/p/",),
            resolve=tuple(server.resolve_rules()),
        )
        small = ["decode.max_body_bytes=4194304", "ingest.max_record_bytes=4194304", *PLAIN]
        t0 = time.monotonic()
        with Collection.create(path, overrides=small) as coll:
            result = crawl(_SEEDS, coll, settings)
            urls = {r.url for r in coll.records() if r.capture}
        seconds = time.monotonic() - t0
        log = list(server.log)
    drops = [
        json.loads(line)
        for stats in (path / "stats").glob("*.drops.jsonl")
        for line in stats.read_text(encoding="utf-8").splitlines()
    ]
    yield Crawled(result, log, path, drops, urls, seconds)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    code = trawl_main(list(args))
    out = capsys.readouterr().out
    assert code in (0, None), (args, out)
    return out


def _get(capsys: pytest.CaptureFixture[str], path: Path, url: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_cli(capsys, "get", str(path), url, "--json"))
    return data


def test_the_shared_crawl_survives(crawled: Crawled) -> None:
    assert crawled.result.stopped == "done"
    assert crawled.seconds < 40
    assert not crawled.stats.prefix("error/"), crawled.stats.prefix("error/")


def test_hostile_bombs_in_br_zstd_and_stacked_codings(
    crawled: Crawled, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("brotli")
    pytest.importorskip("zstandard")
    c = crawled.stats
    # four bombs of 64 MiB each, every one cut at decode.max_body_bytes (4 MiB)
    assert c.get("decode/size-cap") == 4
    assert c.get("decode/size-cap/br") == 1 and c.get("decode/size-cap/zstd") == 1
    assert c.get("decode/size-cap/gzip") == 2  # gzip, gzip and gzip, br: the inner gzip is the bomb
    for path in ("/br", "/zstd", "/gzip-gzip", "/gzip-br"):
        assert f"http://codings.test{path}" in crawled.urls
    doc = _get(capsys, crawled.path, "http://codings.test/gzip-br")
    assert len(doc.get("text") or "") <= 4 << 20


def test_hostile_huge_headers(crawled: Crawled) -> None:
    c = crawled.stats
    assert c.get("fetch/error/headers-too-large") == 2
    assert crawled.reasons("http://headers.test/line") == {"fetch/headers-too-large"}
    assert crawled.reasons("http://headers.test/many") == {"fetch/headers-too-large"}
    assert "http://headers.test/p/0.html" in crawled.urls  # the host is crawled on


def test_hostile_content_length_shorter_than_the_body(
    crawled: Crawled, capsys: pytest.CaptureFixture[str]
) -> None:
    assert crawled.stats.get("fetch/overrun") >= 1
    root = _get(capsys, crawled.path, "http://smuggle.test/")
    assert "SMUGGLED" not in json.dumps(root)
    for i in (0, 1):  # the next answers on that host are the pages asked for, not the forged one
        doc = _get(capsys, crawled.path, f"http://smuggle.test/p/{i}.html")
        assert "SMUGGLED" not in json.dumps(doc) and f"/p/{i}.html" in doc["title"]


def test_hostile_redirects_across_schemes(crawled: Crawled) -> None:
    c = crawled.stats
    assert c.get("drop/redirect-unfetchable") == 5  # ftp, file, data, javascript, mailto
    refused = {d["message"] for d in crawled.drops if d["reason"] == "redirect-unfetchable"}
    assert any("file:///etc/passwd" in m for m in refused) and any("javascript:" in m for m in refused)
    assert all(u.startswith(("http://", "https://")) for u in crawled.urls)
    # https is followed like http (the test web speaks no TLS: the attempt fails, counted)
    failed = {"fetch/timeout", "fetch/connect", "fetch/protocol"}
    assert crawled.reasons("https://redirects.test/final") & failed


def test_hostile_robots_txt_that_times_out(crawled: Crawled) -> None:
    c = crawled.stats
    assert c.get("robots/error/timeout") >= 1
    assert crawled.reasons("http://slowrobots.test/robots.txt") == {"robots/unreachable/robots.txt/timeout"}
    assert crawled.reasons("http://slowrobots.test/") == {"robots/unreachable"}
    assert crawled.requested("slowrobots.test") in ([], ["/robots.txt"])  # no page was asked for


def test_hostile_binary_robots_txt(crawled: Crawled) -> None:
    assert crawled.stats.get("robots/bad-lines") >= 10
    assert "http://binrobots.test/" in crawled.urls and "http://binrobots.test/p/0.html" in crawled.urls


def test_hostile_feed_recursion(crawled: Crawled) -> None:
    asked = crawled.requested("news.test")
    assert asked.count("/limits/self.xml") == 1 and asked.count("/limits/loop.xml") == 1
    assert crawled.stats.get("discover/seen") >= 2
    assert "http://news.test/limits/loop.xml" in crawled.urls


def test_hostile_entities_in_crawled_sitemaps_and_feeds(crawled: Crawled) -> None:
    c = crawled.stats
    assert c.get("discover/feed-problem") >= 2  # entities.xml, xxe.xml
    assert c.get("discover/sitemap-problem") >= 2  # entities.xml, xxe.xml
    assert "/limits/leak" not in crawled.requested("news.test")  # the external entity was not fetched
    # nothing expanded: an entity reference stays as written (harmless text in a URL, if anything)
    assert not [u for u in crawled.urls if "root:" in u or "lollol" in u or "news.test/xxe/" in u]


def test_hostile_invalid_utf8_and_nul_in_every_text_field(
    crawled: Crawled, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert "http://dirty.test/" in crawled.urls
    doc = _get(capsys, crawled.path, "http://dirty.test/")
    assert "Dirty" in doc["title"] and "NUL" in doc["text"]
    dirty_links = [
        u for u in crawled.urls if u.startswith("http://dirty.test/p/") and u != "http://dirty.test/p/0.html"
    ]
    assert dirty_links, crawled.urls  # the links with bad bytes were followed, their URLs escaped
    for url in dirty_links:
        assert url.isascii() and url.isprintable()
        assert _get(capsys, crawled.path, url)["url"] == url
    json.loads(_cli(capsys, "show", str(crawled.path), "--json"))
    for fmt in ("jsonl", "trec", "warc"):
        out = tmp_path / f"export.{fmt}"
        _cli(capsys, "export", str(crawled.path), "--format", fmt, "-o", str(out))
        data = out.read_bytes()
        assert data
        if fmt == "jsonl":
            records = [json.loads(line) for line in data.decode("utf-8").splitlines()]
            assert any(r.get("url") == "http://dirty.test/" for r in records)
    from warcio.archiveiterator import ArchiveIterator

    with (tmp_path / "export.warc").open("rb") as fh:
        values = [
            rec.http_headers.get_header("X-Dirty")
            for rec in ArchiveIterator(fh)
            if rec.rec_type == "response" and rec.http_headers is not None
        ]
    assert "a\x00b\xffc" in values  # the header as sent, byte for byte (latin-1)


# -- files ----------------------------------------------------------------------------------------

DIRTY_MAIL = (
    b"From: Mall\xffory \x00<m@example.test>\r\nTo: you@example.test\r\n"
    b"Subject: Hello \x00 w\xc3\x28rld \xff\r\n"
    b"Date: Tue, 05 Mar 2024 10:20:30 +0000\r\nMessage-ID: <a\x00b@example.test>\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
    b"Body with a NUL \x00 and bad bytes \xff\xfe, words enough to keep this message around.\r\n"
)


def dirty_warc() -> bytes:
    """A WARC response whose target URI, a WARC header and an HTTP header carry NUL and bad UTF-8."""
    html = b"<html><head><title>W\x00arc \xff title</title></head>"
    html += b"<body><p>Warc body \x00 \xc3\x28.</p></body></html>"
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nX-Dirty: a\x00b\xffc\r\n"
    http += b"Content-Length: %d\r\n\r\n%s" % (len(html), html)
    head = (
        b"WARC/1.1\r\nWARC-Type: response\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
        b"WARC-Date: 2024-03-05T10:20:30Z\r\nWARC-Target-URI: http://warc.test/p\xff\x00th?q=\xc3\x28\r\n"
        b"X-Note: n\x00o\xfete\r\nContent-Type: application/http; msgtype=response\r\n"
    )
    return head + b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(http), http)


def test_hostile_invalid_utf8_and_nul_in_mail_and_warc_headers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = tmp_path / "in", tmp_path / "c"
    src.mkdir()
    (src / "dirty.eml").write_bytes(DIRTY_MAIL)
    (src / "dirty.warc").write_bytes(dirty_warc())
    badname = os.path.join(os.fsencode(src), b"\xffbad\x01name.txt")  # bytes no file system encoding reads
    with open(badname, "wb") as fh:
        fh.write(b"A file whose name is not text, and words enough to keep it.\n")
    _cli(capsys, "ingest", str(src), "-o", str(out))
    _cli(capsys, "ingest", str(src), "-o", str(out))  # again: the desktop state knows the odd name
    shown = json.loads(_cli(capsys, "show", str(out), "--json"))
    counters = shown["counters"]
    assert shown["runs"] == 2 and shown["captures"] == 3, shown  # two runs in one second: both kept
    assert counters["store/records"] == 3 and not [k for k in counters if k.startswith("error/")], counters
    assert counters["local/new"] == 2 and counters["local/unchanged"] == 2  # the mail, the odd name
    assert counters["mail/charset/lossy"] == 1 and counters["decode/lossy"] >= 1
    mail = _get(capsys, out, (src / "dirty.eml").as_uri())
    assert mail["title"].startswith("Hello") and "\ufffd" in mail["title"]  # bad bytes: U+FFFD, no surrogate
    assert mail["metadata"]["from"].startswith("Mall\ufffdory")
    page = _get(capsys, out, "http://warc.test/p\xff\x00th?q=\xc3(")  # the URI as recorded, NUL and all
    assert page["surt"] == "test,warc)/p\xff%00th?q=\xc3(" and page["title"].startswith("W")
    exported = tmp_path / "all.jsonl"
    _cli(capsys, "export", str(out), "--format", "jsonl", "-o", str(exported))
    urls = {json.loads(line)["url"] for line in exported.read_text(encoding="utf-8").splitlines()}
    badurl = (src / "%FFbad%01name.txt").as_uri().replace("%25", "%")
    assert urls == {(src / "dirty.eml").as_uri(), "http://warc.test/p\xff\x00th?q=\xc3(", badurl}


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def nested_zip_bomb(levels: int = 3) -> bytes:
    """16 MiB of zeros in a ZIP, in a ZIP, in a ZIP: ~20 KB."""
    data = _zip({"zeros.bin": bytes(16 << 20)})
    for i in range(levels - 1):
        data = _zip({f"inner{i}.zip": data})
    return data


def test_hostile_nested_zip_is_never_unpacked(tmp_path: Path) -> None:
    pytest.importorskip("docx")
    from tests.convert.corpus import build
    from trawl.acquire.localdir import LocalDirSource
    from trawl.jobs.steps import default_steps
    from trawl.pipeline import Pipeline
    from trawl.pipeline.base import RunContext

    bomb = nested_zip_bomb()
    assert len(bomb) < 100_000
    docx = build("docx", seed=3, size=4).data
    with zipfile.ZipFile(io.BytesIO(docx)) as zf:  # the same document, carrying the bomb as an object
        members = {name: zf.read(name) for name in zf.namelist()}
    members["word/embeddings/oleObject1.zip"] = bomb
    (tmp_path / "bomb.zip").write_bytes(bomb)
    (tmp_path / "carrier.docx").write_bytes(_zip(members))
    ctx = RunContext()
    t0 = time.perf_counter()
    docs = {Path(d.source).name: d for d in Pipeline([LocalDirSource([tmp_path])], default_steps(), ctx)}
    assert time.perf_counter() - t0 < 20
    assert docs["carrier.docx"].text  # converted, the embedded archive left alone
    assert docs["bomb.zip"].text == ""
    assert ctx.stats["convert/skipped/application/zip"] == 1, dict(ctx.stats.counters)


def spinning_pdf(levels: int = 9, fan: int = 10) -> bytes:
    """A one-page PDF whose content draws form X0, which draws form X1 ``fan`` times, … ``levels``
    deep, the last showing a word: ``fan ** (levels - 1)`` words to lay out, from ~2 KB."""
    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> "
        b"/XObject << /X0 5 0 R >> >> /Contents %d 0 R >>" % (5 + levels),
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    for k in range(levels):
        if k == levels - 1:
            stream, res = b"BT /F1 12 Tf 72 700 Td (laugh) Tj ET", b"/Font << /F1 4 0 R >>"
        else:
            stream, res = b"/X0 Do " * fan, b"/Font << /F1 4 0 R >> /XObject << /X0 %d 0 R >>" % (6 + k)
        objs[5 + k] = (
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << %s >> /Length %d >>\n"
            b"stream\n%s\nendstream" % (res, len(stream), stream)
        )
    objs[5 + levels] = b"<< /Length 6 >>\nstream\n/X0 Do\nendstream"
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for oid in sorted(objs):
        offsets[oid] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (oid, objs[oid])
    xref, size = len(out), max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[oid] for oid in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def test_hostile_pdf_that_spins_is_cut_off_by_the_guard() -> None:
    pytest.importorskip("pypdfium2")
    from tests.convert.corpus import build
    from trawl.convert.guard import Guard
    from trawl.convert.registry import convert_bytes

    small = convert_bytes(spinning_pdf(levels=3))  # the same shape, small: it converts
    assert small.dropped is None and "laugh" in (small.converted.text if small.converted else "")
    good = build("pdf", seed=5, size=3)
    with Guard(timeout=2.0) as guard:
        t0 = time.perf_counter()
        spun = convert_bytes(spinning_pdf(), filename="spin.pdf", guard=guard)
        seconds = time.perf_counter() - t0
        assert spun.dropped == "pdf-timeout", (spun.dropped, spun.message)
        assert seconds < 10
        after = convert_bytes(good.data, filename=good.name, guard=guard)  # a fresh worker goes on
        assert after.dropped is None and after.converted is not None and after.converted.text


def big_docx(paragraphs: int = 60_000) -> bytes:
    """A DOCX of ``paragraphs`` paragraphs of twelve varied words: ~8 MiB of XML in ~2 MiB of
    ZIP, inside every byte and compression-ratio budget (no bomb: only large)."""
    import io
    import random
    import zipfile

    rng = random.Random(35)
    words = ["alpha", "river", "stone", "cloud", "ember", "north", "quill", "maple", "orbit", "delta"]
    lines = (
        " ".join(f"{rng.choice(words)}{rng.randint(0, 999)}" for _ in range(12)) for _ in range(paragraphs)
    )
    body = "".join(f"<w:p><w:r><w:t>{line}</w:t></w:r></w:p>" for line in lines)
    ns = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    main = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            f'<Override PartName="/word/document.xml" ContentType="{main}"/></Types>',
        )
        zf.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document xmlns:w="{ns}"><w:body>{body}</w:body></w:document>',
        )
    return buf.getvalue()


def test_hostile_office_file_past_the_guard_s_time_is_cut_off() -> None:
    """An Office file whose conversion runs past the guard's time is cut off and counted as
    ``docx-timeout``, and the guard's fresh worker converts the next file. (No Office input spins
    the parsers: they read a byte budget once, so the slowest is the largest the budget admits;
    this one takes ~0.5 s here, against a 0.1 s guard.)"""
    pytest.importorskip("docx")
    from tests.convert.corpus import build
    from trawl.convert.guard import Guard
    from trawl.convert.registry import convert_bytes

    data = big_docx()
    whole = convert_bytes(data, filename="big.docx")  # unguarded: it converts, it is only large
    assert whole.dropped is None and whole.converted is not None and whole.converted.text
    good = build("docx", seed=5, size=3)
    with Guard(timeout=0.1) as guard:
        t0 = time.perf_counter()
        cut = convert_bytes(data, filename="big.docx", guard=guard)
        assert cut.dropped == "docx-timeout", (cut.dropped, cut.message)
        assert time.perf_counter() - t0 < 10
        guard.timeout = 30.0  # the same guard goes on (its worker was killed: a fresh one starts)
        after = convert_bytes(good.data, filename=good.name, guard=guard)
        assert after.dropped is None and after.converted is not None and after.converted.text


# -- the catalogue --------------------------------------------------------------------------------


def test_the_catalogue_is_documented_and_its_tests_exist() -> None:
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names)
    doc = (ROOT / "docs" / "hostile.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", doc, flags=re.MULTILINE)
    assert rows == names, "docs/hostile.md must list CASES, in order"
    assert all(case.counter and case.tests for case in CASES)
    nodes = sorted({node for case in CASES for node in case.tests})
    collect = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *nodes]
    r = subprocess.run(collect, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]  # every test named is there
