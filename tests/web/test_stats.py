"""The statistics pages of ``trawl serve``: what ``trawl stats`` and ``trawl freshness`` compute,
with inline SVG plots (``trawl.web.stats``, ``trawl.web.svg``)."""

from __future__ import annotations

import math
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import build
from trawl.crawl.crawler import CrawlSettings
from trawl.jobs.crawl import crawl
from trawl.jobs.freshness import freshness
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.textstats import collection_documents, text_stats
from trawl.web.app import create_app
from trawl.web.index import DocIndex
from trawl.web.stats import StatsCache, text_statistics
from trawl.web.svg import Series, plot

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def client(collection: Path) -> Iterator[TestClient]:
    with TestClient(create_app([collection])) as c:
        yield c


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)]


def no_external_url(html: str) -> bool:
    """No resource or link leaves the server (URLs shown as text, a crawl's, are data)."""
    return not re.search(r"""(?:src|href|action|xlink:href)\s*=\s*["']?(?:[a-z]+:)?//""", html, flags=re.I)


def test_the_plot_helper_draws_escaped_svg_with_log_axes() -> None:
    out = plot(
        [Series("<script>alert(1)</script>", [(1, 0.1), (10, 0.01), (100, 0.001)], "points"),
         Series("fit & line", [(1, 0.1), (100, 0.001)])],
        title='a "title" <b>', x_label="rank", y_label="P", log_x=True, log_y=True,
    )  # fmt: skip
    root = ET.fromstring(out)  # well-formed XML
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 640 360"
    assert "<script" not in out and "&lt;script&gt;" in out
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"1", "10", "100"} <= set(texts)  # decade ticks on the log x axis
    assert len(list(root.iter(f"{SVG}circle"))) == 3 and len(list(root.iter(f"{SVG}polyline"))) == 1
    # a non-positive value has no place on a log axis: left out, not a crash
    skipped = plot([Series("s", [(0, 1), (1, 1), (2, 4)])], title="t", x_label="x", y_label="y", log_x=True)
    points = ET.fromstring(skipped).find(f"{SVG}polyline")
    assert points is not None and len(points.get("points", "").split()) == 2
    empty = ET.fromstring(plot([Series("s", [])], title="t", x_label="x", y_label="y"))
    assert [t.text for t in empty.iter(f"{SVG}text")] == ["no data"]


def test_linear_ticks_span_the_data() -> None:
    root = ET.fromstring(plot([Series("s", [(0, 0.0), (30, 1.0)])], title="t", x_label="x", y_label="y"))
    labels = [t.text or "" for t in root.iter(f"{SVG}text") if "tick-x" in (t.get("class") or "")]
    ticks = [float(label.replace(",", "")) for label in labels]
    assert ticks[0] == 0 and ticks[-1] == 30 and len(ticks) >= 4


def test_the_statistics_are_trawl_stats(client: TestClient, collection: Path) -> None:
    data = client.get("/api/c/coll/stats").json()
    with Collection.open(collection) as coll:
        expected = text_stats(collection_documents(coll), top=50, auto_queries=False).as_dict()
        local = [r for r in coll.records() if r.url.startswith("file:")]
        local_text = sum(len(d.text.encode()) for d in collection_documents(coll) if d.host == "file:")
    for key in ("documents", "tokens", "vocabulary", "hapax", "hapax_share", "zipf", "heaps", "top"):
        assert data[key] == expected[key], key
    assert data["zipf"]["exponent"] > 0 and data["heaps"]["beta"] > 0
    assert [t["term"] for t in data["top"][:3]] == [t["term"] for t in expected["top"][:3]]
    assert not data["sample"]["sampled"] and "plots" not in data
    hosts = {h["host"]: h for h in data["hosts"]}
    assert set(hosts) == {"example.com", "file:"}
    assert sum(h["documents"] for h in hosts.values()) == data["documents"]
    assert all(0 <= h["removed_share"] <= 1 for h in hosts.values())
    payload = sum(int(r.capture.get("length") or 0) for r in local)
    assert (hosts["file:"]["payload_bytes"], hosts["file:"]["text_bytes"]) == (payload, local_text)
    assert hosts["file:"]["removed_share"] == round(1 - round(local_text / payload, 4), 4)
    flagged = {b["term"] for b in expected["anomalies"]["boilerplate"] if b["host"] == "com,example"}
    assert set(hosts["example.com"]["boilerplate_terms"]) == flagged


def test_the_statistics_page_plots_and_tables(client: TestClient) -> None:
    data = client.get("/api/c/coll/stats").json()
    page = client.get("/c/coll/stats")
    assert (
        page.status_code == 200
        and no_external_url(page.text)
        and "<script>" not in page.text.split("</head>")[1]
    )
    plots = svgs(page.text)
    assert len(plots) == 2 and all(p.get("viewBox") for p in plots)
    assert f"{data['zipf']['exponent']:.3f}" in page.text and f"{data['heaps']['beta']:.3f}" in page.text
    assert "<caption>" in page.text and f">{data['top'][0]['term']}</a>" in page.text
    assert 'href="/c/coll/stats"' in client.get("/c/coll/").text  # linked from the overview


def test_a_sample_counts_every_kth_document(collection: Path) -> None:
    index = DocIndex(collection)
    with Collection.open(collection) as coll:
        whole = text_statistics(coll, index)
        half = text_statistics(coll, index, sample=5)
        # the sampled rows are read one by one: the same documents as every 2nd of a full scan
        every_2nd = text_stats(islice(collection_documents(coll), 0, None, 2)).as_dict()
    assert half["sample"] == {
        "documents_in_collection": whole["documents"],
        "every": 2,
        "bound": 5,
        "sampled": True,
    }
    assert half["documents"] == math.ceil(whole["documents"] / 2) and half["tokens"] < whole["tokens"]
    assert (half["documents"], half["tokens"], half["vocabulary"]) == (
        every_2nd["documents"],
        every_2nd["tokens"],
        every_2nd["vocabulary"],
    )


def test_freshness_without_revisits_says_so(client: TestClient) -> None:
    data = client.get("/api/c/coll/freshness").json()
    assert data["revisits"] is False and "no revisits in this collection" in data["reason"]
    page = client.get("/c/coll/freshness")
    assert page.status_code == 200 and "no revisits in this collection" in page.text and not svgs(page.text)


def test_freshness_over_time_of_a_revisiting_crawl(tmp_path: Path) -> None:
    web = TestWeb(5, hosts=2, pages=3, special=False, change_rates=(0.0, 2.0))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.2, revisit_max=1.0,
            max_seconds=2.0, sitemaps=False, include=(r"/p/\d+\.html$", r"/$"),
            resolve=tuple(server.resolve_rules()),
        )  # fmt: skip
        with Collection.create(
            tmp_path / "c", overrides=["extract.enabled=false", "langid.enabled=false"]
        ) as coll:
            crawl(["http://h0.test/p/0.html", "http://h1.test/p/0.html"], coll, settings)
    with TestClient(create_app([tmp_path / "c"])) as client:
        data = client.get("/api/c/c/freshness").json()
        page = client.get("/c/c/freshness")
    with Collection.open(tmp_path / "c") as coll:
        report = freshness(coll)
        times = [report.now, report.now + 0.5, report.now + 600.0]
        again = [freshness(coll, now=t).as_dict(top=0)["overall"] for t in times]
    # the curve evaluates the pages read once: what reading the frontier again at each time gives
    assert report.decay(times) == [
        (pytest.approx(o["fresh_now"], abs=2e-6), pytest.approx(o["age_now_seconds"], abs=2e-3))
        for o in again
    ]
    assert data["revisits"] is True and data["overall"]["pages"] == len(report.pages) > 0
    assert set(data["hosts"]) == {p.host for p in report.pages}
    series = data["series"]
    assert len(series) == 25 and series[0]["seconds"] == 0
    fresh = [p["fresh"] for p in series]
    ages = [p["age_seconds"] for p in series]
    assert fresh == sorted(fresh, reverse=True) and fresh[0] > fresh[-1]  # copies decay...
    assert ages == sorted(ages) and ages[-1] > ages[0]  # ...and grow stale
    assert page.status_code == 200 and no_external_url(page.text)
    plots = svgs(page.text)
    assert len(plots) == 2 and all("<script" not in ET.tostring(p, encoding="unicode") for p in plots)
    assert "Freshness over time" in page.text and "Next revisits" in page.text


def test_statistics_of_a_collection_another_run_holds(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    DocIndex(path).refresh()
    with Collection.open(path) as holder, TestClient(create_app([path])) as client:
        holder.table  # noqa: B018 - opens RocksDB: this "run" holds the store now
        busy = client.get("/api/c/c/stats")
        assert busy.status_code == 503 and "cannot be read now" in busy.json()["detail"]
    with TestClient(create_app([path])) as client:
        assert client.get("/api/c/c/stats").json()["documents"] == 4


def test_a_slow_computation_never_holds_a_page(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    cache, release, calls = StatsCache(), threading.Event(), []

    def slow() -> dict[str, int]:
        calls.append(1)
        release.wait(10)
        return {"n": len(calls)}

    t0 = time.monotonic()
    assert cache.get(path, "k", slow, wait=0.05) is None  # not ready: the page says so
    assert cache.get(path, "k", slow, wait=0.05) is None  # the same computation, not a second
    assert time.monotonic() - t0 < 2
    release.set()
    assert cache.get(path, "k", slow) == {"n": 1} and calls == [1]
    assert cache.get(path, "k", slow, wait=0) == {"n": 1}  # cached for this generation

    def broken() -> dict[str, int]:
        raise RuntimeError("the store is busy")

    with pytest.raises(RuntimeError, match="busy"):
        cache.get(path, "b", broken)
    with pytest.raises(RuntimeError):  # asked again: computed again, not a stale error
        cache.get(path, "b", broken)
