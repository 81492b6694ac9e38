"""The whole default ingest path: each page decoded once, parsed once, every stage counted once."""

# ruff: noqa: RUF001 -- Russian text is meant

from __future__ import annotations

import gzip
import pickle
import zlib
from pathlib import Path

import pytest

from trawl.document import TRANSIENT, Document
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection

ARTICLE = "<p>" + "A long paragraph of ordinary English prose about rivers and their banks. " * 12 + "</p>"
PAGES = {
    "utf8.html": f"<html><head><title>Plain</title></head><body>{ARTICLE}<a href='/x'>x</a></body>".encode(),
    "cp1251.html": (
        '<html><head><meta charset="windows-1251"><title>Русский</title></head><body><p>'
        + "Это обычный русский текст о реках и их берегах. " * 12
        + "</p></body></html>"
    ).encode("cp1251"),
    "notes.txt": b"Some notes\nwritten in plain text, about nothing in particular at all.\n",
    "feed.xml": (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title>'
        b"<item><title>One</title><link>http://example.org/1</link><description>First item of the feed"
        b"</description></item></channel></rss>"
    ),
}


def _record(url: str, http: bytes) -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{abs(hash(url))}>\r\n"
        f"WARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: {url}\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    )
    member = head.encode() + http + b"\r\n\r\n"
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(member) + packer.flush()


def _inputs(tmp_path: Path) -> tuple[list[Path], int, int]:
    """A folder of files (one of them a gzipped page) and a WARC with a gzip-coded response."""
    folder = tmp_path / "files"
    folder.mkdir()
    for name, data in PAGES.items():
        (folder / name).write_bytes(data)
    (folder / "packed.html.gz").write_bytes(gzip.compress(PAGES["utf8.html"].replace(b"Plain", b"Packed")))
    body = gzip.compress(ARTICLE.encode())
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body
    warc = tmp_path / "crawl.warc.gz"
    warc.write_bytes(_record("http://example.org/coded", http))
    html_docs = 4  # utf8.html, cp1251.html, packed.html.gz, the WARC's page
    return [folder, warc], html_docs, len(PAGES) + 2


def test_every_stage_counts_each_document_once(tmp_path: Path) -> None:
    inputs, html_docs, all_docs = _inputs(tmp_path)
    seen: list[Document] = []
    with Collection.create(tmp_path / "c") as coll:
        result = ingest(inputs, coll, on_document=lambda doc, _: seen.append(doc))
    stats = result.stats
    assert stats["store/records"] == all_docs, stats.counters
    assert stats.prefix("error/") == {}
    # decoding: every textual document once (all of them here), by one source and one encoding
    assert sum(stats.prefix("decode/source/").values()) == all_docs
    assert sum(stats.prefix("decode/encoding/").values()) == all_docs
    assert stats["decode/encoding/windows-1251"] == 1
    # conversion: one converter per document
    converted = {k: v for k, v in stats.prefix("convert/").items() if k.count("/") == 1}
    assert converted == {"convert/html": html_docs, "convert/text": 1, "convert/rss": 1}, converted
    assert sum(stats.prefix("extract/method/").values()) == html_docs
    assert sum(stats.prefix("langid/lang/").values()) + stats["langid/und/empty"] == all_docs
    by_url = {d.url.rsplit("/", 1)[-1]: d for d in seen}
    assert by_url["cp1251.html"].encoding == "windows-1251"
    assert "реках" in by_url["cp1251.html"].text
    assert by_url["coded"].encoding == "utf-8" and "rivers" in by_url["coded"].text
    assert by_url["packed.html.gz"].title == "Packed"
    # once written, nothing transient is held any longer
    assert all(getattr(d, name) is None for d in seen for name in TRANSIENT)


def test_transient_fields_are_not_pickled_or_compared() -> None:
    doc = Document(url="http://example.org/", raw=b"<p>x</p>", text="x")
    doc.body, doc.markup, doc.page = b"<p>x</p>", "<p>x</p>", object()
    back = pickle.loads(pickle.dumps(doc))
    assert (back.body, back.markup, back.page) == (None, None, None)
    assert back.url == doc.url and back.raw == doc.raw and back.text == "x"
    assert back == doc
    assert "markup" not in repr(doc)


def _stored(coll: Collection) -> dict[str, tuple[str, str, str | None]]:
    out = {}
    for rec in coll.records():
        text = rec.cells.get("text", {})
        lang = rec.cells.get("lang", {}).get("doc", {})
        out[rec.capture["url"]] = (str(text.get("title", "")), str(text.get("text", "")), lang.get("lang"))
    return out


def test_worker_processes_store_what_one_process_stores(tmp_path: Path) -> None:
    inputs, _, all_docs = _inputs(tmp_path)
    results = {}
    for workers in (0, 2):
        with Collection.create(tmp_path / f"c{workers}", overrides=[f"ingest.workers={workers}"]) as coll:
            result = ingest(inputs, coll)
            results[workers] = (result.stats, _stored(coll))
    (one, stored_one), (two, stored_two) = results[0], results[2]
    assert stored_one == stored_two and len(stored_one) == all_docs
    assert two["workers/started"] == 2
    assert two.prefix("error/") == {}
    for key, value in one.counters.items():  # every stage counted as often, wherever it ran
        if key.startswith(("decode/", "convert/", "extract/", "langid/", "store/records")):
            assert two[key] == value, key


def test_a_worker_that_dies_loses_only_the_document_that_killed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs, _, all_docs = _inputs(tmp_path)
    monkeypatch.setenv("TRAWL_FAULT_WORKER_EXIT_ON", "cp1251.html")
    with Collection.create(tmp_path / "c", overrides=["ingest.workers=1"]) as coll:
        result = ingest(inputs, coll)
        stored = _stored(coll)
    assert result.stats["drop/workers/died"] == 1
    assert result.stats["workers/restarted"] >= 1
    assert len(stored) == all_docs - 1 and not any(url.endswith("cp1251.html") for url in stored)
    drops = result.drops_file.read_text("utf-8")
    assert "workers/died" in drops and "cp1251.html" in drops
