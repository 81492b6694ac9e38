"""trawl.demo: the sample is deterministic, well-formed where it should be, broken where it should be.

Independent readers check the bytes: warcio for WARC records and digests, zlib member by member
for gzip, zipfile and ElementTree for the DOCX and the feed, the PDF's own xref table.
"""

from __future__ import annotations

import csv
import gzip
import html
import io
import re
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag, urljoin
from xml.etree import ElementTree

import pytest

import trawl.demo
from trawl.demo import DemoDocument, DemoSample, describe, generate_sample
from trawl.demo_content import NEAR_DUPLICATES, SITES

FIXED_MTIME = 1709294400  # 2024-03-01T12:00:00Z
CYRILLIC = re.compile("[\u0400-\u04ff]")
KANA = re.compile("[\u3040-\u30ff]")


@dataclass
class Record:
    offset: int
    type: str
    uri: str | None
    warc_headers: dict[str, str]
    status: int | None
    http_headers: dict[str, str]
    payload: bytes  # for a response, the bytes after the HTTP headers, exactly as stored
    digests_ok: bool | None
    problems: list[str]


def read_warc(source: Path | bytes) -> list[Record]:
    from warcio.archiveiterator import ArchiveIterator

    records = []
    with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as stream:
        iterator = ArchiveIterator(stream, check_digests=True)
        for rec in iterator:
            payload = rec.raw_stream.read()
            http_headers = dict(rec.http_headers.headers) if rec.http_headers else {}
            status = int(rec.http_headers.get_statuscode()) if rec.rec_type == "response" else None
            records.append(
                Record(
                    offset=iterator.get_record_offset(),
                    type=rec.rec_type,
                    uri=rec.rec_headers.get_header("WARC-Target-URI"),
                    warc_headers=dict(rec.rec_headers.headers),
                    status=status,
                    http_headers=http_headers,
                    payload=payload,
                    digests_ok=rec.digest_checker.passed,
                    problems=list(rec.digest_checker.problems),
                )
            )
    return records


def gzip_members(data: bytes) -> list[tuple[int, bytes, bool]]:
    """(offset, decompressed bytes, complete?) for each gzip member, the way a random-access reader
    sees them."""
    members, offset = [], 0
    while offset < len(data):
        inflater = zlib.decompressobj(31)
        body = inflater.decompress(data[offset:])
        members.append((offset, body, inflater.eof))
        if not inflater.eof:
            break
        offset = len(data) - len(inflater.unused_data)
    return members


def dechunk(body: bytes) -> bytes:
    out, rest = b"", body
    while True:
        size_line, rest = rest.split(b"\r\n", 1)
        size = int(size_line, 16)
        if size == 0:
            assert rest == b"\r\n"
            return out
        out, rest = out + rest[:size], rest[size:]
        assert rest.startswith(b"\r\n")
        rest = rest[2:]


def entity(record: Record) -> bytes:
    """The page bytes once transfer and content encodings are undone."""
    body = record.payload
    if record.http_headers.get("Transfer-Encoding") == "chunked":
        body = dechunk(body)
    if record.http_headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return body


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> DemoSample:
    return generate_sample(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def web(sample: DemoSample) -> dict[str, list[Record]]:
    return {
        name: read_warc(sample.directory / name)
        for name in ("web/crawl-00000.warc.gz", "web/crawl-00001.warc.gz")
    }


@pytest.fixture(scope="module")
def responses(web: dict[str, list[Record]]) -> dict[str, Record]:
    return {
        r.uri: r for records in web.values() for r in records if r.type in ("response", "resource") and r.uri
    }


def doc(sample: DemoSample, url: str) -> DemoDocument:
    (found,) = [d for d in sample.documents if d.url == url]
    return found


def tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


# --- determinism and the promised counts -------------------------------------------------------------


def test_two_runs_write_identical_bytes_and_mtimes(tmp_path: Path) -> None:
    first = generate_sample(tmp_path / "a")
    second = generate_sample(tmp_path / "b")
    again = generate_sample(tmp_path / "a")  # over an existing sample
    files_a, files_b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert files_a.keys() == files_b.keys()
    assert [name for name in files_a if files_a[name] != files_b[name]] == []
    assert first.expected == second.expected == again.expected
    assert {p.stat().st_mtime for p in (tmp_path / "a").rglob("*")} == {FIXED_MTIME}
    assert [p.relative_to(tmp_path / "a") for p in first.inputs] == [
        p.relative_to(tmp_path / "b") for p in second.inputs
    ]


def test_public_api() -> None:
    assert sorted(trawl.demo.__all__) == [
        "BadRecord",
        "DemoDocument",
        "DemoExpected",
        "DemoSample",
        "describe",
        "generate_sample",
    ]


def test_inputs_in_ingest_order_and_expected_counts(sample: DemoSample) -> None:
    exp = sample.expected
    assert [p.relative_to(sample.directory).as_posix() for p in sample.inputs] == [
        "web/crawl-00000.warc.gz",
        "web/crawl-00001.warc.gz",
        "trec/sample.trec.gz",
        "files",
        "broken/truncated.warc.gz",
        "broken/lying-length.warc.gz",
        "broken/garbage.trec",
        "broken/empty.warc",
    ]
    assert all(p.exists() for p in sample.inputs)
    assert exp.documents == len(sample.documents) == sum(exp.by_input.values()) == 90
    assert exp.by_input["trec/sample.trec.gz"] == 12
    assert exp.by_input["files"] == 12
    assert [exp.by_input[f"broken/{name}"] for name in ("truncated.warc.gz", "lying-length.warc.gz")] == [
        3,
        3,
    ]
    assert [exp.by_input[f"broken/{name}"] for name in ("garbage.trec", "empty.warc")] == [2, 0]
    assert exp.dropped == len(sample.bad_records) == 4
    assert exp.drop_reasons == {"trec/": 2, "warc/": 2}
    assert exp.skipped == {"request": 4, "warcinfo": 2}
    assert exp.statuses == {200: 75, 301: 1, 404: 1}
    assert set(exp.languages) == {"ar", "de", "el", "en", "es", "fr", "ja", "ru", "zh"}
    assert set(exp.encodings) == {"shift_jis", "utf-8", "windows-1251", "windows-1252"}
    assert len({d.url for d in sample.documents}) == len(sample.documents)


def test_describe_summarises_the_sample(sample: DemoSample) -> None:
    text = describe(sample)
    assert f"{sample.expected.documents} documents" in text
    assert f"{sample.expected.dropped} deliberately bad records" in text
    for word in ("6 hosts", "57 responses", "12 TREC Web documents", "windows-1251 6", "shift_jis 6", "ja 6"):
        assert word in text
    assert "https://blog.exemple.fr/sciences/volcans.html: Transfer-Encoding: chunked" in text


# --- the web ---------------------------------------------------------------------------------------------


def test_every_web_record_parses_and_its_digests_verify(
    sample: DemoSample, web: dict[str, list[Record]]
) -> None:
    for name, records in web.items():
        assert records[0].type == "warcinfo"
        assert [r for r in records if r.digests_ok is not True or r.problems] == []
        warcinfo_id = records[0].warc_headers["WARC-Record-ID"]
        assert all(r.warc_headers["WARC-Warcinfo-ID"] == warcinfo_id for r in records[1:])
        manifest = {(d.offset, d.url) for d in sample.documents if d.input == name}
        assert {(r.offset, r.uri) for r in records if r.type in ("response", "resource")} == manifest
    all_records = [r for records in web.values() for r in records]
    ids = [r.warc_headers["WARC-Record-ID"] for r in all_records]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"<urn:uuid:[0-9a-f-]{36}>", i) for i in ids)
    types = Counter(r.type for r in all_records)
    assert types == {"warcinfo": 2, "request": 4, "response": 57, "resource": 1}
    hosts = {r.uri.split("/")[2] for r in all_records if r.uri}
    assert len(hosts) == 6


def test_each_record_is_its_own_gzip_member_with_a_fixed_header(sample: DemoSample) -> None:
    data = (sample.directory / "web/crawl-00000.warc.gz").read_bytes()
    members = gzip_members(data)
    assert all(complete for _, _, complete in members)
    assert all(body.startswith(b"WARC/1.1\r\n") for _, body, _ in members)
    assert {data[offset : offset + 10] for offset, _, _ in members} == {
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    }


def test_requests_are_concurrent_to_their_responses(web: dict[str, list[Record]]) -> None:
    records = [r for rs in web.values() for r in rs]
    by_id = {r.warc_headers["WARC-Record-ID"]: r for r in records}
    requests = [r for r in records if r.type == "request"]
    assert {r.uri for r in requests} == {
        "http://news.example.org/robots.txt",
        "http://news.example.org/",
        "http://ru.example.net/",
        "http://jp.example.jp/",
    }
    for request in requests:
        response = by_id[request.warc_headers["WARC-Concurrent-To"]]
        assert (response.type, response.uri) == ("response", request.uri)
        assert request.warc_headers["Content-Type"] == "application/http; msgtype=request"


def test_html_pages_have_lang_title_description_and_links(
    sample: DemoSample, responses: dict[str, Record]
) -> None:
    pages = [d for d in sample.documents if d.input.startswith("web/") and d.kind == "html"]
    assert len(pages) == 55  # 57 responses but robots.txt and the 301
    for page in pages:
        text = entity(responses[page.url]).decode(page.encoding or "")
        assert f'<html lang="{page.lang}"' in text, page.url
        assert re.search(r"<title>[^<]+</title>", text), page.url
        assert '<meta name="description" content="' in text, page.url
        assert text.count("<a href=") >= 5, page.url
    assert 'dir="rtl"' in entity(responses["http://shop.example.com/ar/"]).decode()


def test_article_prose_survives_its_encoding(responses: dict[str, Record], sample: DemoSample) -> None:
    """Every paragraph is in the page as text, not as character references: the prose fits the
    charset each page is written in."""
    for site in SITES:
        for article in site.articles:
            url = site.base + article.path
            page = entity(responses[url]).decode(doc(sample, url).encoding or "", errors="strict")
            for paragraph in article.paragraphs:
                assert html.escape(paragraph, quote=False) in page, url


def test_links_stay_inside_the_captured_web(responses: dict[str, Record], sample: DemoSample) -> None:
    """Every <a href> resolves to a captured URL, so a crawl of the sample closes on itself."""
    pages = [d for d in sample.documents if d.input.startswith("web/") and d.kind in ("html", "redirect")]
    cross_host = 0
    for page in pages:
        text = entity(responses[page.url]).decode(page.encoding or "")
        for href in re.findall(r'<a href="([^"]+)"', text):
            target = urldefrag(urljoin(page.url, html.unescape(href))).url
            assert target in responses, f"{page.url} links to {target}"
            cross_host += target.split("/")[2] != page.url.split("/")[2]
    assert cross_host > 50


def test_russian_pages_declare_windows_1251_in_the_http_header_only(responses: dict[str, Record]) -> None:
    russian = [r for url, r in responses.items() if url.startswith("http://ru.example.net/")]
    assert len(russian) == 6
    for record in russian:
        assert record.http_headers["Content-Type"] == "text/html; charset=windows-1251"
        with pytest.raises(UnicodeDecodeError):
            record.payload.decode("utf-8")
        text = record.payload.decode("cp1251")
        assert "charset" not in text
        assert len(CYRILLIC.findall(text)) > 100


def test_japanese_pages_declare_shift_jis_only_in_meta(responses: dict[str, Record]) -> None:
    japanese = [r for url, r in responses.items() if url.startswith("http://jp.example.jp/")]
    assert len(japanese) == 6
    for record in japanese:
        assert record.http_headers["Content-Type"] == "text/html"
        assert b'<meta charset="Shift_JIS">' in record.payload[:1024]  # inside the prescan window
        with pytest.raises(UnicodeDecodeError):
            record.payload.decode("utf-8")
        assert len(KANA.findall(record.payload.decode("shift_jis"))) > 20


def test_german_page_without_any_declaration(responses: dict[str, Record], sample: DemoSample) -> None:
    url = "http://www.beispiel.de/wissen/brot.html"
    record = responses[url]
    assert record.http_headers["Content-Type"] == "text/html"
    assert b"charset" not in record.payload
    with pytest.raises(UnicodeDecodeError):
        record.payload.decode("utf-8")
    text = record.payload.decode("cp1252")
    assert "Säure" in text
    assert "„Brotland“" in text  # windows-1252 only: 0x84 and 0x93 are C1 controls in ISO-8859-1
    assert doc(sample, url).declared_in is None


def test_page_that_declares_utf8_but_is_windows_1252(
    responses: dict[str, Record], sample: DemoSample
) -> None:
    url = "http://www.beispiel.de/reise/alpen.html"
    record = responses[url]
    assert record.http_headers["Content-Type"] == "text/html; charset=utf-8"
    with pytest.raises(UnicodeDecodeError):
        record.payload.decode("utf-8")
    assert "Hüttenschlafsack" in record.payload.decode("cp1252")
    document = doc(sample, url)
    assert (document.encoding, document.declared_charset) == ("windows-1252", "utf-8")


def test_gzip_content_encoding_and_chunked_transfer(responses: dict[str, Record]) -> None:
    gzipped = responses["http://news.example.org/culture/chess.html"]
    assert gzipped.http_headers["Content-Encoding"] == "gzip"
    assert int(gzipped.http_headers["Content-Length"]) == len(gzipped.payload)
    assert gzip.decompress(gzipped.payload).startswith(b"<!DOCTYPE html>")

    chunked = responses["https://blog.exemple.fr/sciences/volcans.html"]
    assert chunked.http_headers["Transfer-Encoding"] == "chunked"
    assert "Content-Length" not in chunked.http_headers
    page = dechunk(chunked.payload)
    assert page.count(b"\r\n") == 0 and page.endswith(b"</html>\n")
    assert len(chunked.payload) > len(page)


def test_exact_and_near_duplicates(responses: dict[str, Record], sample: DemoSample) -> None:
    ((copy, original),) = sample.expected.exact_duplicates
    assert copy != original
    assert responses[copy].payload == responses[original].payload
    assert (
        responses[copy].warc_headers["WARC-Payload-Digest"]
        == responses[original].warc_headers["WARC-Payload-Digest"]
    )

    def sentences(url: str) -> tuple[set[str], str]:
        text = entity(responses[url]).decode()
        article = text[text.index("<article>") : text.index("</article>")]
        paragraphs = re.findall(r"<p>(.*?)</p>", article)
        footer = text[text.index("<footer") :]
        return {s for p in paragraphs for s in re.split(r"(?<=\.) ", p)}, footer

    ((near_copy, near_original),) = sample.expected.near_duplicates
    assert (near_original, near_copy) == NEAR_DUPLICATES[0]
    copy_sentences, copy_footer = sentences(near_copy)
    original_sentences, original_footer = sentences(near_original)
    assert len(copy_sentences - original_sentences) == len(original_sentences - copy_sentences) == 1
    assert len(copy_sentences & original_sentences) >= 10
    assert copy_footer != original_footer


def test_404_redirect_robots_and_pdf_resource(responses: dict[str, Record], sample: DemoSample) -> None:
    missing = responses["http://news.example.org/2019/lighthouse-special.html"]
    assert missing.status == 404
    redirect = responses["http://blog.exemple.fr/2019/phares"]
    assert redirect.status == 301
    assert redirect.http_headers["Location"] == "https://blog.exemple.fr/sciences/phares.html"
    assert responses[redirect.http_headers["Location"]].status == 200
    home = responses["http://news.example.org/"].payload
    assert b'href="/2019/lighthouse-special.html"' in home
    assert b'href="http://blog.exemple.fr/2019/phares"' in home

    robots = responses["http://news.example.org/robots.txt"]
    assert robots.payload.startswith(b"User-agent: *\n")
    assert robots.http_headers["Content-Type"] == "text/plain; charset=utf-8"

    resource = responses["http://news.example.org/reports/tides-2023.pdf"]
    assert resource.type == "resource"
    assert resource.warc_headers["Content-Type"] == "application/pdf"
    assert resource.payload == (sample.directory / "files/tides-2023.pdf").read_bytes()


# --- TREC, files ----------------------------------------------------------------------------------------


def test_trec_file(sample: DemoSample) -> None:
    data = (sample.directory / "trec/sample.trec.gz").read_bytes()
    assert data[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # mtime 0
    text = gzip.decompress(data)
    docs = re.findall(rb"<DOC>\n<DOCNO>(.*?)</DOCNO>\n<DOCHDR>\n(.*?)</DOCHDR>\n(.*?)\n</DOC>\n", text, re.S)
    assert len(docs) == text.count(b"<DOC>") == 12
    assert [d[0].decode() for d in docs] == [f"TRAWL-DEMO-{i:04d}" for i in range(1, 13)]
    languages: Counter[str | None] = Counter()
    for docno, header, page in docs:
        url, ip, stamp, media_type, length = header.split(b"\n", 1)[0].split(b" ")
        assert url.startswith(b"http://archive.example.edu/") and ip == b"127.0.0.1"
        assert re.fullmatch(rb"1999\d{10}", stamp) and media_type == b"text/html"
        assert int(length) == len(page)
        assert b"HTTP/1.0 200 OK\n" in header
        document = doc(sample, url.decode())
        assert document.docno == docno.decode()
        page.decode(document.encoding or "", errors="strict")
        languages[document.lang] += 1
    assert languages == {"en": 8, "fr": 4}
    french = doc(sample, "http://archive.example.edu/fr/bibliotheque.html")
    assert (french.encoding, french.declared_charset) == ("windows-1252", "iso-8859-1")


def test_files_folder(sample: DemoSample) -> None:
    files = sample.directory / "files"
    assert sorted(p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file()) == [
        "archive/2023/receta.txt",
        "brief.txt",
        "coast-path.md",
        "feed.xml",
        "garden-club.html",
        "lettre.txt",
        "minutes.docx",
        "pixel.png",
        "reading-group.txt",
        "rivers.csv",
        "tides-2023.pdf",
        "todo.html",
    ]
    assert {d.url for d in sample.documents if d.input == "files"} == {
        p.resolve().as_uri() for p in files.rglob("*") if p.is_file()
    }
    assert (files / "brief.txt").read_bytes().startswith(b"\xef\xbb\xbfLiebe Anna")
    lettre = (files / "lettre.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        lettre.decode("utf-8")
    assert "Chère Claire" in lettre.decode("cp1252")
    assert b"<" not in (files / "todo.html").read_bytes()  # an .html name over plain text
    assert b'<html lang="en">' in (files / "garden-club.html").read_bytes()

    feed = ElementTree.fromstring((files / "feed.xml").read_bytes())
    links = [item.findtext("link") for item in feed.iter("item")]
    assert len(links) == 3 and all(link and link.startswith("http://news.example.org/") for link in links)

    rows = list(csv.reader(io.StringIO((files / "rivers.csv").read_text("utf-8"), newline="")))
    assert rows[0] == ["river", "length_km", "source", "mouth", "countries"]
    assert len(rows) == 7 and all(len(row) == 5 for row in rows)


def test_docx_is_a_valid_ooxml_package(sample: DemoSample) -> None:
    with zipfile.ZipFile(sample.directory / "files/minutes.docx") as package:
        assert package.testzip() is None
        assert {"[Content_Types].xml", "_rels/.rels", "word/document.xml"} <= set(package.namelist())
        for name in package.namelist():
            ElementTree.fromstring(package.read(name))
        document = ElementTree.fromstring(package.read("word/document.xml"))
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    paragraphs = ["".join(t.text or "" for t in p.iter(f"{w}t")) for p in document.iter(f"{w}p")]
    assert len(paragraphs) == 6
    assert paragraphs[0].startswith("Minutes of the garden club committee")


def test_pdf_structure_and_xref_offsets(sample: DemoSample) -> None:
    data = (sample.directory / "files/tides-2023.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4\n")
    assert data.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\n(\d+)\n%%EOF", data).group(1))  # type: ignore[union-attr]
    assert data[startxref:].startswith(b"xref\n0 7\n")
    entries = data[startxref:].split(b"\n")[2:9]
    assert entries[0] == b"0000000000 65535 f "
    for number, entry in enumerate(entries[1:], start=1):
        offset, generation, kind = entry.split()
        assert (generation, kind) == (b"00000", b"n")
        assert data[int(offset) :].startswith(b"%d 0 obj\n" % number)
    stream = re.search(rb"<< /Length (\d+) >>\nstream\n", data)
    assert stream is not None
    content = data[stream.end() : stream.end() + int(stream.group(1))]
    assert content.startswith(b"BT") and content.endswith(b"ET")
    assert b"(Northbridge Harbour Tide Observations 2023) Tj" in content


def test_png_is_valid(sample: DemoSample) -> None:
    data = (sample.directory / "files/pixel.png").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    offset, kinds = 8, []
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        kind, body = data[offset + 4 : offset + 8], data[offset + 8 : offset + 8 + length]
        crc = int.from_bytes(data[offset + 8 + length : offset + 12 + length], "big")
        assert zlib.crc32(kind + body) == crc
        if kind == b"IDAT":
            assert len(zlib.decompress(body)) == 4  # filter byte + one RGB pixel
        kinds.append(kind)
        offset += 12 + length
    assert kinds == [b"IHDR", b"IDAT", b"IEND"]


# --- the broken folder ----------------------------------------------------------------------------------


def test_truncated_warc_has_three_good_records_then_half_a_member(sample: DemoSample) -> None:
    path = sample.directory / "broken/truncated.warc.gz"
    members = gzip_members(path.read_bytes())
    assert [complete for _, _, complete in members] == [True, True, True, False]
    (bad,) = [b for b in sample.bad_records if b.input == "broken/truncated.warc.gz"]
    assert (bad.offset, bad.reason) == (members[3][0], "warc/")
    with pytest.raises(EOFError):
        gzip.decompress(path.read_bytes())
    good = [d.offset for d in sample.documents if d.input == "broken/truncated.warc.gz"]
    assert good == [offset for offset, _, _ in members[:3]]


def test_lying_length_record_between_two_good_ones(sample: DemoSample) -> None:
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    path = sample.directory / "broken/lying-length.warc.gz"
    data = path.read_bytes()
    members = gzip_members(data)
    assert [complete for _, _, complete in members] == [True, True, True]
    assert not [b for b in sample.bad_records if b.input == "broken/lying-length.warc.gz"]
    (liar_doc,) = [d for d in sample.documents if d.input == "broken/lying-length.warc.gz" and d.note]
    assert liar_doc.offset == members[1][0] and "repaired" in (liar_doc.note or "")
    head, _, rest = members[1][1].partition(b"\r\n\r\n")
    declared = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
    assert declared < len(rest) - 4  # the block is longer than it says
    assert rest[declared : declared + 4] != b"\r\n\r\n"
    # warcio trusts the length: the block digest fails...
    liar = ArchiveIterator(io.BytesIO(data[members[1][0] : members[2][0]]), check_digests=True)
    record = next(iter(liar))
    record.content_stream().read()
    assert record.digest_checker.passed is False
    # ...and reading on, it loses its place in the stream.
    with pytest.raises(ArchiveLoadFailed):
        read_warc(path)
    # Member by member, the good records around it read cleanly.
    for start, end in ((members[0][0], members[1][0]), (members[2][0], len(data))):
        (good,) = read_warc(data[start:end])
        assert good.digests_ok is True


def test_garbage_trec(sample: DemoSample) -> None:
    data = (sample.directory / "broken/garbage.trec").read_bytes()
    assert data.count(b"<DOC>") == 3 and data.count(b"<DOCNO>") == 2
    garbage, docless = sorted(b.offset for b in sample.bad_records if b.input == "broken/garbage.trec")
    assert data[garbage : garbage + 2] == b"\x00\x00"
    assert b"<" not in data[garbage:docless]
    with pytest.raises(UnicodeDecodeError):
        data[garbage:docless].decode("utf-8")
    assert data[docless:].startswith(b"<DOC>\n<DOCHDR>\n")
    docnos = [d.docno for d in sample.documents if d.input == "broken/garbage.trec"]
    assert docnos == ["TRAWL-BROKEN-0001", "TRAWL-BROKEN-0003"]
    assert [b.reason for b in sample.bad_records if b.input == "broken/garbage.trec"] == ["trec/", "trec/"]


def test_empty_warc(sample: DemoSample) -> None:
    assert (sample.directory / "broken/empty.warc").stat().st_size == 0
    assert sample.expected.by_input["broken/empty.warc"] == 0
