"""The parts of conversion: identification, safe XML, metadata checks, RTF and PDF text cleaning."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.convert.base import ConvertOptions
from trawl.convert.meta import check_metadata, parse_date
from trawl.convert.pdf import clean_page_text, drop_running_lines
from trawl.convert.rtf import convert_rtf
from trawl.convert.xmlsafe import UnsafeXml, XmlError, parse_xml
from trawl.sniff.identify import extension_type, format_of_type, identify

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def zipped(*members: tuple[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("members", "fmt"),
    [
        # the parts in an order the first local header cannot tell apart
        (
            (("docProps/app.xml", b"<x/>"), ("[Content_Types].xml", b"<T/>"), ("word/document.xml", b"<d/>")),
            "docx",
        ),
        ((("[Content_Types].xml", b"<T/>"), ("xl/workbook.xml", b"<w/>")), "xlsx"),
        ((("[Content_Types].xml", b"<T/>"), ("ppt/presentation.xml", b"<p/>")), "pptx"),
        ((("content.xml", b"<c/>"), ("mimetype", b"application/vnd.oasis.opendocument.spreadsheet")), "ods"),
        ((("mimetype", b"application/epub+zip"), ("META-INF/container.xml", b"<c/>")), "epub"),
        ((("notes.txt", b"hello"),), "zip"),
    ],
)
def test_zip_containers_by_their_members(members: tuple[tuple[str, bytes], ...], fmt: str) -> None:
    assert identify(zipped(*members)).format == fmt


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b"%PDF-1.7\n", "pdf"),
        (b"{\\rtf1\\ansi hello}", "rtf"),
        (b'<?xml version="1.0"?>\n<!-- c --><rss version="2.0"><channel/></rss>', "rss"),
        (b'<rdf:RDF xmlns:rdf="x" xmlns="http://purl.org/rss/1.0/"><channel/></rdf:RDF>', "rss"),
        (b'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>', "atom"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "svg"),
        (b'<?xml version="1.0"?><archive><body>text</body></archive>', "xml"),
        (b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>', "html"),
        (b"<!doctype html><p>x", "html"),
        (b"plain words\n", "text"),
        (b"\x89PNG\r\n\x1a\n\x00", "image"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", "ole"),
        (b"\x00\x01\x02binary", "binary"),
        (b"", "empty"),
    ],
)
def test_identify_by_bytes(data: bytes, fmt: str) -> None:
    assert identify(data).format == fmt


def test_declared_and_extension_are_recorded_and_compared() -> None:
    identity = identify(b"%PDF-1.4\n", "text/html; charset=utf-8", "page.html")
    assert identity.declared == "text/html" and identity.by_extension == "text/html"
    assert identity.declared_disagrees and identity.extension_disagrees
    vague = identify(
        zipped(("[Content_Types].xml", b"<T/>"), ("word/document.xml", b"<d/>")), "application/zip"
    )
    assert not vague.disagree  # a vaguer declaration of the same thing is no contradiction
    assert identify(b"%PDF-1.4\n", "application/octet-stream", "x.bin").disagree is False
    assert extension_type("a.docx") == format_of_type_type("docx")
    assert format_of_type("application/vnd.ms-excel") == "ole" and format_of_type("text/x-rst") == "text"


def format_of_type_type(fmt: str) -> str:
    from trawl.sniff.identify import FORMAT_TYPES

    return FORMAT_TYPES[fmt]


def test_truncated_zip_is_marked() -> None:
    data = zipped(("[Content_Types].xml", b"<T/>" * 500), ("word/document.xml", b"<d/>" * 500))
    identity = identify(data[: len(data) // 2])
    assert identity.truncated and identity.format == "zip"


def test_safe_xml() -> None:
    assert parse_xml(b"<a>caf&#233; &amp; t\xc3\xa9</a>").text == "café & té"
    assert parse_xml('<?xml version="1.0" encoding="iso-8859-1"?><a>é</a>').text == "é"
    # harmless declarations, as real feeds and XHTML files have them: a short internal entity,
    # a parameter entity naming an external module (never loaded)
    assert parse_xml(b'<!DOCTYPE a [<!ENTITY copy "(c) ACME">]><a>&copy; 2024</a>').text == "(c) ACME 2024"
    lat1 = b'<!DOCTYPE a [<!ENTITY % HTMLlat1 PUBLIC "-//W3C//ENTITIES Latin 1//EN" "x.ent"> %HTMLlat1;]>'
    assert parse_xml(lat1 + b"<a>plain</a>").text == "plain"
    # what attacks need: nesting, long values, external general entities, odd shapes
    for decl, reason in [
        (b'<!ENTITY y "yy"><!ENTITY x "&y;&y;">', "xml-entities"),
        (b'<!ENTITY x "' + b"y" * 300 + b'">', "xml-entities"),
        (b"<!ENTITY % p \"<!ENTITY x 'y'>\"> %p;", "xml-entities"),
        (b'<!ENTITY x SYSTEM "file:///etc/passwd">', "xml-external-entity"),
        (b"<!ENTITY x>", "xml-entities"),
    ]:
        with pytest.raises(UnsafeXml) as info:
            parse_xml(b"<!DOCTYPE a [" + decl + b"]><a>&x;</a>")
        assert info.value.reason == reason, decl
    nested = '<!DOCTYPE a [<!ENTITY y "yy"><!ENTITY x "&y;&y;">]><a>&x;</a>'
    with pytest.raises(UnsafeXml):
        parse_xml(('<?xml version="1.0" encoding="utf-16"?>' + nested).encode("utf-16"))  # NULs hide nothing
    with pytest.raises(UnsafeXml) as info:
        parse_xml(b'<!DOCTYPE a SYSTEM "http://x/a.dtd"><a/>', forbid_dtd=True)
    assert info.value.reason == "xml-dtd"
    assert parse_xml(b'<!DOCTYPE rss SYSTEM "http://x/rss.dtd"><rss/>').tag == "rss"  # tolerated, not fetched
    with pytest.raises(XmlError) as error:
        parse_xml(b"<a><b></a>")
    assert error.value.reason == "xml-malformed"
    with pytest.raises(XmlError) as error:
        parse_xml(b"<a/>" * 10, max_bytes=20)
    assert error.value.reason == "xml-too-large"


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("D:20240105120000Z", "2024-01-05T12:00:00+00:00"),
        ("D:20240105120000+02'00'", "2024-01-05T10:00:00+00:00"),
        ("2023-04-02T10:05:00Z", "2023-04-02T10:05:00+00:00"),
        ("2023-04-02", "2023-04-02T00:00:00+00:00"),
        ("Tue, 02 May 2023 10:00:00 GMT", "2023-05-02T10:00:00+00:00"),
    ],
)
def test_parse_date(value: str, iso: str) -> None:
    parsed = parse_date(value)
    assert parsed is not None and parsed.isoformat() == iso


def test_metadata_is_checked_before_it_is_trusted() -> None:
    meta = {
        "author": "Microsoft Office User",
        "title": "Microsoft Word - draft3.docx",
        "created": "2099-01-01T00:00:00Z",
        "modified": "D:19040101000000Z",
        "subject": "unspecified",
    }
    flags = check_metadata(meta, now=NOW)
    assert set(flags) == {"author:template", "title:placeholder", "created:future", "modified:before-1990",
                          "subject:placeholder"}  # fmt: skip
    assert "author" not in meta and meta["untrusted"]["author"] == "Microsoft Office User"
    assert meta["metadata_flags"] == flags
    good = {"author": "  Marta  Lindqvist ", "created": "D:20240105120000Z", "title": "Tide tables 2024"}
    assert check_metadata(good, now=NOW) == []
    assert good == {
        "author": "Marta Lindqvist",
        "created": "2024-01-05T12:00:00+00:00",
        "title": "Tide tables 2024",
    }
    odd = {"created": "2024-05-01", "modified": "2020-01-01"}
    assert check_metadata(odd, now=NOW) == ["modified:before-created"]


def test_rtf() -> None:
    data = (
        b"{\\rtf1\\ansi\\ansicpg1251{\\fonttbl{\\f0 Arial;}}{\\info{\\title \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2}"
        b"{\\author Ivan}{\\creatim\\yr2021\\mo3\\dy4}}{\\*\\unknowndest secret}"
        b"{\\header head}\\f0 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2 \\u1084?\\u1080?\\u1088?\\par second\\tab cell\\line "  # noqa: E501
        b"\\{braces\\}\\~x}"
    )
    out = convert_rtf(data, ConvertOptions())
    assert out.text == "Привет мир\nsecond cell\n{braces} x"  # a no-break space is a space to a search engine
    assert out.metadata == {"title": "Привет", "author": "Ivan", "created": "2021-03-04T00:00:00"}


def test_pdf_page_cleaning() -> None:
    text = "Intro\r\nThe exam\ufffeple of a ﬁnal hyphen-\r\nated word\r\nand a well-known one"
    assert clean_page_text(text) == "Intro\nThe example of a final hyphenated word\nand a well-known one"
    words = ["tide", "quay", "buoy", "hull", "keel"]
    pages = [["Acme Report", f"Body {w} text", f"more {w}", f"Page {i} of 5"] for i, w in enumerate(words, 1)]
    kept, removed = drop_running_lines(pages)
    assert kept[0] == ["Body tide text", "more tide"] and removed == 10
    single, removed = drop_running_lines([["Acme Report", "12"]])
    assert single == [["Acme Report", "12"]] and removed == 0
    # body lines at the edges that differ only in their numbers are kept; a page number that
    # counts with the pages (from any first number) is dropped
    body = [[f"Table {t} lists the tides of week {w}", f"text {w}", f"Report - page {i + 10}"]
            for i, (t, w) in enumerate([(4, 2), (1, 9), (7, 3), (2, 5)])]  # fmt: skip
    kept, removed = drop_running_lines(body)
    assert [page[0] for page in kept] == [page[0] for page in body] and removed == 4


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b'<?xml version="1.0"?><archive><body>text</body></archive>', "application/xml"),
        (
            b'<?xml version="1.0"?><!-- note --><html xmlns="http://www.w3.org/1999/xhtml"><body>',
            "application/xhtml+xml",
        ),
        (b'<?xml version="1.0"?><h:html xmlns:h="http://www.w3.org/1999/xhtml">', "application/xhtml+xml"),
        (
            b'<?xml version="1.0"?><rss version="2.0"><channel><description><![CDATA[<html><body>',
            "application/xml",
        ),
    ],
)
def test_xml_head_sniffed_by_its_root_element(head: bytes, kind: str) -> None:
    from trawl.sniff.magic import sniff_type

    assert sniff_type(head) == kind


def test_html_dates_are_read_and_checked() -> None:
    from trawl.convert.html import HtmlConverter
    from trawl.document import Document

    page = (
        b'<html><head><meta property="article:published_time" content="2023-03-01T08:00:00Z">'
        b'<meta name="dcterms.modified" content="2999-01-01"><meta name="author" content="admin">'
        b"<title>t</title></head><body><p>x</p></body></html>"
    )
    doc = HtmlConverter().process(Document(url="http://x/", raw=page, declared_type="text/html"))
    assert doc.metadata["published"] == "2023-03-01T08:00:00+00:00"
    assert "modified" not in doc.metadata and "author" not in doc.metadata
    assert doc.metadata["metadata_flags"] == ["author:template", "modified:future"]


def test_garbled_text_layers_are_recognised() -> None:
    from trawl.convert.pdf import garbled

    assert garbled("\ue001\ue002\ue003 \ue004\ue005\ue006\ue007 " * 4)
    assert not garbled("An ordinary page of text with one odd \ufffd character in it.")
    assert not garbled("\ue001")  # too short to judge
    assert clean_page_text("a\x03b\x1fc\td") == "abc d"


def test_a_feed_cut_short_keeps_its_complete_items() -> None:
    from trawl.convert.base import ConvertOptions
    from trawl.convert.feeds import convert_feed

    feed = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY % HTMLlat1 PUBLIC "-//W3C//ENTITIES Latin 1//EN"'
        b' "lat1.ent">]><rss version="2.0"><channel><title>News</title>'
        b"<item><title>First story</title><link>http://x/1</link></item>"
        b"<item><title>Second story</title><link>http://x/2</link></item>"
        b"<item><title>Third st"
    )
    out = convert_feed(feed, ConvertOptions(url="http://x/feed"))
    assert [i["title"] for i in out.metadata["items"]] == ["First story", "Second story"]
    assert out.metadata["truncated"] and out.counts["convert/xml-partial"] == 1
    assert "cut short" in out.warnings[0] and "Second story" in out.text


def test_text_is_cut_at_a_line_end_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from trawl.cli.main import main

    page = tmp_path / "long.txt"
    page.write_text("".join(f"line {i} of a long text with several words\n" for i in range(400)))
    assert main(["convert", "--json", "--no-isolate", "--set", "html.max_chars=1000", str(page)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["truncated"] is True and row["metadata"]["truncated"] is True
    assert len(row["text"]) <= 1000 and row["text"].endswith("words")  # a whole line, not mid-word
