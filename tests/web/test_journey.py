"""The document journey (trawl.web.journey) on a collection crawled from the test web on loopback.

The test web knows the truth about each page (its encoding, how it declares it, its language, its
print variant, the anchor text that links to it), so the journey is checked against that, not
against what the store happens to hold.
"""

from __future__ import annotations

import itertools
import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader, select_autoescape

from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.warcreq import RequestRecorder
from trawl.dedup.engine import DedupOptions
from trawl.errors import RecordNotFound
from trawl.jobs.crawl import crawl
from trawl.jobs.dedup import discover_collection
from trawl.store.collection import Collection, StoredRecord
from trawl.store.warcfile import read_record_at
from trawl.testweb import ServerThread, TestWeb
from trawl.urls import url_hash
from trawl.web import journey as journey_module
from trawl.web.journey import CURVE_POINTS, curve_svg, hex_dump, journey

TEMPLATES = Path(journey_module.__file__).parent / "templates"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TestWeb]:
    """Four hosts (English UTF-8, German windows-1252 by <meta>, French UTF-8 undeclared, Russian
    windows-1251 by header), paragraph passages as units, crawled twice (so pages have versions),
    then deduplicated."""
    path = tmp_path_factory.mktemp("journey") / "coll"
    web = TestWeb(0, hosts=4, pages=10, special=False, change_rates=(0.0,))
    with ServerThread(web) as server, Collection.create(path, overrides=["units.passages=paragraph"]) as coll:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, max_pages=60, resolve=tuple(server.resolve_rules())
        )
        crawl(web.seeds(), coll, settings, fresh=True)
        crawl(web.seeds(), coll, settings, fresh=True)
        discover_collection(coll, DedupOptions())
    return path, web


def _open(path: Path) -> Collection:
    return Collection.open(path)


def test_a_legacy_encoding_declared_by_header_is_shown_with_its_evidence(
    crawled: tuple[Path, TestWeb],
) -> None:
    path, web = crawled
    assert web.encoding("h3.test") == "windows-1251" and web.language("h3.test") == "ru"
    with _open(path) as coll:
        url = next(r.url for r in coll.records("test,h3)/p/") if "#" not in r.url and "?" not in r.url)
        j = journey(coll, url)
        page = int(url.rsplit("/", 1)[1].split(".")[0])
        json.dumps(j)  # JSON-ready throughout
    dec = j["decoding"]
    assert dec["available"] and dec["encoding"] == "windows-1251" and dec["source"] == "http"
    assert dec["recomputed"] and dec["matches_stored"] and dec["errors"] == 0
    http = next(e for e in dec["chain"] if e["step"] == "http")
    assert http["found"] == "windows-1251" and http["decided"]
    assert sum(e["decided"] for e in dec["chain"]) == 1
    utf8 = next(e for e in dec["chain"] if e["step"] == "utf8-valid")
    assert utf8["found"] is None  # Cyrillic in windows-1251 is no valid UTF-8
    assert j["language"]["lang"] == "ru"
    assert {p["lang"] for p in j["language"]["passages"]} == {"ru"}
    # the request the crawler sent, and the response as stored
    assert j["request"]["method_line"] == f"GET /p/{page}.html HTTP/1.1"
    assert ["Host", "h3.test"] in j["request"]["headers"]
    assert j["response"]["status"] == 200
    assert ["Content-Type", "text/html; charset=windows-1251"] in j["response"]["headers"]
    # raw bytes: the hex dump's first line is the page's first 16 bytes
    raw = j["raw"]
    assert raw["length"] == raw["shown"] > 0 and raw["text_as"] == "windows-1251"
    first = raw["hex"].splitlines()[0]
    assert first.startswith("00000000  3c") and "<" in first[-16:]
    assert web.title("h3.test", page) in raw["text"]
    assert j["title"] == j["content"]["title"] and web.title("h3.test", page).startswith(j["title"])


def test_an_encoding_declared_in_meta_and_the_content_curve(crawled: tuple[Path, TestWeb]) -> None:
    path, web = crawled
    with _open(path) as coll:
        j = journey(coll, url_hash("http://h1.test/p/2.html"))  # by URL hash
    assert web.encoding("h1.test") == "iso-8859-1"  # windows-1252 on the web (WHATWG labels)
    dec = j["decoding"]
    assert dec["encoding"] == "windows-1252" and dec["source"] == "meta"
    assert next(e for e in dec["chain"] if e["step"] == "meta")["decided"]
    assert j["language"]["lang"] == "de"
    assert j["sniff"]["declared"] == "text/html" and j["sniff"]["identified"]["format"] == "html"
    assert not j["sniff"]["disagree"]
    content = j["content"]
    assert content["available"] and content["tokens"] > 50
    start, end = content["bte_span"]
    assert 0 <= start < end <= content["tokens"]
    s_start, s_end = content["stored_span"]
    assert 0 <= s_start < s_end <= content["tokens"]
    points = content["curve"]
    assert points[0] == [0, 0] and points[-1] == [content["tokens"], content["tags"]]
    assert all(b[1] >= a[1] for a, b in itertools.pairwise(points))  # cumulative
    svg = ET.fromstring(content["svg"])
    assert svg.tag == f"{SVG}svg" and "<script" not in content["svg"].lower()
    assert {r.get("class") for r in svg.iter(f"{SVG}rect")} - {None} == {"span-bte", "span-stored"}
    assert [t.text for t in svg.iter(f"{SVG}text")][-2:] == ["BTE span", "stored text"]  # the legend
    assert len(svg.find(f"{SVG}polyline").get("points", "").split()) == len(points)  # type: ignore[union-attr]


def test_near_duplicates_fingerprints_versions_and_anchors(crawled: tuple[Path, TestWeb]) -> None:
    path, web = crawled
    with _open(path) as coll:
        urls = {r.url for r in coll.records("test,h0)/p/")}
        page = next(u for u in sorted(urls) if f"{u}?print=1" in urls)
        j = journey(coll, page)
    dedup = j["dedup"]
    assert dedup["near_source"].startswith("stored by trawl dedup")
    twin = next(n for n in dedup["near"] if n["url"] == f"{page}?print=1")
    assert twin["similarity"] >= 0.8 and twin["key"] == url_hash(twin["url"])
    assert len(dedup["simhash_bits"]) == 64 and set(dedup["simhash_bits"]) <= {"0", "1"}
    assert int(dedup["simhash_bits"], 2) == int(dedup["simhash_hex"], 16)
    assert dedup["simhash_hex"] == dedup["stored_fingerprint"].get("simhash", dedup["simhash_hex"])
    assert len(dedup["minhash"]) == 16 and dedup["text_digest"] == dedup["stored_fingerprint"]["text_digest"]
    assert dedup["payload_digest"].startswith("sha1:")
    # crawled twice: two captures, the second an unchanged revisit (or the same payload again)
    versions = j["versions"]
    assert versions["count"] == 2 and sum(v["current"] for v in versions["versions"]) == 1
    assert versions["versions"][-1]["current"]
    # the anchor text others use for the page is its title (the test web links by title)
    number = int(page.rsplit("/", 1)[1].split(".")[0])
    texts = [a["text"] for a in j["anchors"]["anchors"]]
    assert j["anchors"]["count"] == len(texts) > 0
    assert any(web.title("h0.test", number) in t for t in texts)


def test_units_show_passages_and_their_parent(crawled: tuple[Path, TestWeb]) -> None:
    path, _web = crawled
    with _open(path) as coll:
        j = journey(coll, "http://h2.test/p/1.html")
        children = j["units"]["children"]
        assert j["units"]["available"] and j["units"]["parent"] is None and children
        assert [c["position"] for c in children] == list(range(1, len(children) + 1))
        assert {c["kind"] for c in children} == {"passage"}
        text = j["content"]["text"]
        a, b = children[0]["span"]
        unit = journey(coll, children[0]["url"])
    assert unit["units"]["parent"]["url"] == "http://h2.test/p/1.html"
    assert unit["content"]["text"] == text[a:b]
    assert unit["language"]["lang"] == "fr"


def test_unknown_keys_are_not_found(crawled: tuple[Path, TestWeb]) -> None:
    path, _web = crawled
    with _open(path) as coll, pytest.raises(RecordNotFound, match="no record for"):
        journey(coll, "http://nowhere.test/")


def _render(data: dict[str, Any]) -> str:
    """``doc.html`` as the app renders it (autoescape on); a stand-in ``base.html`` only where the
    app's is not there."""
    base = (
        "<!doctype html><title>{% block title %}{% endblock %}</title>"
        "<main>{% block main %}{% endblock %}</main>"
    )
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(TEMPLATES), DictLoader({"base.html": base})]),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    return env.get_template("doc.html").render(journey=data, key=data["url_hash"], c={"name": "coll"})


def test_the_page_escapes_what_it_shows(crawled: tuple[Path, TestWeb]) -> None:
    path, _web = crawled
    with _open(path) as coll:
        data = journey(coll, "http://h3.test/robots.txt")  # no HTML: no curve
        page = journey(coll, "http://h1.test/p/2.html")
    evil = "<script>alert(1)</script>"
    page["title"] = page["content"]["title"] = evil
    page["anchors"]["anchors"][0]["text"] = evil
    out = _render(page)
    assert "<script>alert" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    for section in ("request", "response", "raw", "sniff", "decoding", "content", "language", "dedup"):
        assert f'<section id="{section}"' in out
    assert (
        out.index('id="request"')
        < out.index('id="raw"')
        < out.index('id="decoding"')
        < out.index('id="units"')
    )
    assert out.count("<svg") == 1 and "windows-1252" in out
    plain = _render(data)
    assert "<svg" not in plain and 'id="content"' in plain


def test_curve_svg_escapes_and_bounds() -> None:
    curve = [k // 3 for k in range(50_000)]
    sampled = journey_module._sample(curve)
    assert len(sampled) == CURVE_POINTS and sampled[0] == [0, 0] and sampled[-1] == [49_999, 49_999 // 3]
    svg = curve_svg(sampled, [("bte", 100, 40_000)], title='a "<script>" & b')
    root = ET.fromstring(svg)
    assert root.find(f"{SVG}title").text == 'a "<script>" & b'  # type: ignore[union-attr]
    assert "<script" not in svg


def test_hex_dump_columns() -> None:
    lines = hex_dump(b"<html>\x00\xff caf\xc3\xa9 and more bytes").splitlines()
    assert lines[0] == "00000000  3c 68 74 6d 6c 3e 00 ff 20 63 61 66 c3 a9 20 61  <html>.. caf.. a"
    assert lines[1].startswith("00000010  6e 64 20 6d") and lines[1].endswith("nd more bytes")


def test_request_records_are_found_by_date_in_a_long_file(tmp_path: Path) -> None:
    """A capture's request is found by bisecting the request file on WARC-Date, then a short scan;
    a record written out of time order is still found, by scanning the file from its start."""
    recorder = RequestRecorder(tmp_path)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    late = t0 + timedelta(seconds=3900)
    recorder.write("http://a.test/early", "GET", [("Host", "a.test")], late, concurrent_to="<urn:x:early>")
    for i in range(4000):
        when = t0 + timedelta(seconds=i)
        recorder.write(f"http://a.test/{i}", "GET", [("Host", "a.test")], when, concurrent_to=f"<urn:x:{i}>")
    recorder.close()
    (path,) = tmp_path.iterdir()
    start = journey_module._start_near(path, t0 + timedelta(seconds=3500))
    assert 0 < start < path.stat().st_size
    offset, used = journey_module._scan_members(path, b"WARC-Concurrent-To: <urn:x:3500>", 1 << 20, start)
    assert offset is not None and offset >= start and used < path.stat().st_size // 4
    assert read_record_at(path, offset).url == "http://a.test/3500"
    # the record dated late but written first: not after the bisected start, found from the start
    begin = journey_module._start_near(path, late)
    needle = b"WARC-Concurrent-To: <urn:x:early>"
    assert journey_module._scan_members(path, needle, 1 << 20, begin)[0] is None
    assert journey_module._scan_members(path, needle, begin)[0] == 0


def test_a_request_is_looked_for_near_its_capture_first(tmp_path: Path) -> None:
    """The search reads the few seconds before the capture first (a fast crawl writes a minute of
    requests in megabytes), and a request written earlier than that is still found."""
    with Collection.create(tmp_path / "c") as coll:
        recorder = RequestRecorder(coll.path / "warc")
        t0 = datetime(2026, 1, 1, tzinfo=UTC)
        for i in range(4000):
            when = t0 + timedelta(seconds=i / 10)  # ten a second
            if i == 3000:  # written 30 s before its date: within a minute, not within 5 s
                recorder.write(
                    "http://a.test/early", "GET", [], when + timedelta(seconds=30), concurrent_to="<e>"
                )
            recorder.write(f"http://a.test/{i}", "GET", [], when, concurrent_to=f"<urn:x:{i}>")
        recorder.close()
        (path,) = (coll.path / "warc").iterdir()
        at = t0 + timedelta(seconds=350)
        assert journey_module._start_near(path, at) < journey_module._start_near(
            path, at, journey_module.REQUEST_NEAR
        )

        def request_of(capture_id: str, when: datetime) -> dict[str, Any]:
            capture = {"record_id": capture_id, "fetched_at": when.isoformat(), "url": "http://a.test/"}
            return journey_module._request(coll, StoredRecord("test,a)/", {"fetch": {"capture": capture}}))

        assert request_of("<urn:x:3500>", at)["method_line"].startswith("GET ")
        early = request_of("<e>", t0 + timedelta(seconds=330))
        assert read_record_at(path, int(early["warc"].split("@")[1])).url == "http://a.test/early"
        assert request_of("<none>", at)["available"] is False
