"""Routes, pages and JSON of ``trawl serve``'s application (in process, Starlette's TestClient)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import TWIN_TEXT, build
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection
from trawl.urls import url_hash
from trawl.web.app import create_app, short_names
from trawl.web.index import DocIndex, generation_marker


@pytest.fixture(scope="module")
def client(collection: Path) -> Iterator[TestClient]:
    with TestClient(create_app([collection])) as c:
        yield c


def stored(collection: Path) -> list[dict[str, Any]]:
    with Collection.open(collection) as coll:
        return [r.as_dict() | {"dup": r.cells.get("dup", {})} for r in coll.records()]


def docs(client: TestClient, **params: Any) -> dict[str, Any]:
    r = client.get("/api/c/coll/docs", params=params)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_home_lists_the_collections_with_counts(client: TestClient, collection: Path) -> None:
    records = stored(collection)
    data = client.get("/api/collections").json()
    assert [c["name"] for c in data["collections"]] == ["coll"]
    assert data["collections"][0]["documents"] == len(records)
    assert data["collections"][0]["bytes"] == sum(int(r["length"] or 0) for r in records)
    page = client.get("/")
    assert page.status_code == 200 and 'href="/c/coll/"' in page.text


def test_overview_counts_what_the_collection_holds(client: TestClient, collection: Path) -> None:
    records = stored(collection)
    data = client.get("/api/c/coll").json()
    assert data["documents"] == len(records)
    hosts = {r["url"].split("/")[2] if r["url"].startswith("http") else "file:" for r in records}
    assert data["hosts"] == len(hosts)
    assert dict(data["languages"]) == {
        lang: sum(1 for r in records if (r["lang"] or "") == lang)
        for lang in {r["lang"] or "" for r in records}
    }
    assert sum(n for _, n in data["statuses"]) == len(records)
    assert data["duplicate_clusters"] == 1 and data["documents_in_clusters"] == 2
    assert data["first_fetched"] <= data["last_fetched"]
    page = client.get("/c/coll/")
    assert page.status_code == 200 and f">{len(records)}<" in page.text
    assert client.get("/c/coll", follow_redirects=False).status_code in (307, 308)


def test_document_filters(client: TestClient, collection: Path) -> None:
    records = stored(collection)
    every = docs(client, per_page=500)
    assert every["total"] == len(records)
    assert {d["key"] for d in every["documents"]} == {url_hash(r["url"]) for r in records}
    web = docs(client, host="example.com")
    assert web["total"] == sum(1 for r in records if r["url"].startswith("http://example.com/"))
    assert web["total"] > 0 and all(d["url"].startswith("http://example.com/") for d in web["documents"])
    local = docs(client, prefix="file://")
    assert local["total"] == 4 and all(d["url"].startswith("file://") for d in local["documents"])
    ok = docs(client, status="200")
    assert ok["total"] == sum(1 for r in records if r["status"] == 200)
    assert docs(client, status="none")["total"] == sum(1 for r in records if r["status"] is None)
    html = docs(client, format="text/html")
    assert all(d["format"] == "text/html" for d in html["documents"]) and html["total"] > 0
    twins = docs(client, dup="any")
    assert sorted(d["title"] for d in twins["documents"]) == ["Twin 1", "Twin 2"]
    rep = twins["documents"][0]["dup"]
    assert docs(client, dup=rep)["total"] == 2
    assert docs(client, dup="none")["total"] == len(records) - 2
    day = every["documents"][0]["fetched_at"][:10]
    assert docs(client, **{"from": day, "to": day})["total"] == sum(
        1 for r in records if str(r["fetched_at"])[:10] == day
    )
    assert docs(client, **{"from": "2999-01-01"})["total"] == 0


def test_full_text_search(client: TestClient) -> None:
    fox = docs(client, q="quick fox")
    assert sorted(d["title"] for d in fox["documents"]) == ["Twin 1", "Twin 2"]
    assert [d["title"] for d in docs(client, q="zebrafish")["documents"]] == ["About cats"]
    assert [d["title"] for d in docs(client, q="CATS")["documents"]] == ["About cats"]  # title too
    assert docs(client, q="fox zebrafish")["total"] == 0  # every word required
    for hostile in ('"', "AND OR NOT", "title:x", "fox*", "(", "NEAR(a b)"):
        assert client.get("/api/c/coll/docs", params={"q": hostile}).status_code == 200
    page = client.get("/c/coll/docs", params={"q": "fox"})
    assert page.status_code == 200 and "Twin 1" in page.text and "About cats" not in page.text


def test_pages_of_documents(client: TestClient) -> None:
    every = docs(client, per_page=500)
    first, second = docs(client, per_page=3, page=1), docs(client, per_page=3, page=2)
    assert first["pages"] == -(-every["total"] // 3)
    keys = [d["key"] for d in every["documents"]]
    assert [d["key"] for d in first["documents"]] == keys[:3]
    assert [d["key"] for d in second["documents"]] == keys[3:6]
    html = client.get("/c/coll/docs", params={"per_page": 3, "page": 2}).text
    assert 'rel="prev"' in html and 'rel="next"' in html
    assert client.get("/api/c/coll/docs", params={"page": "x"}).status_code == 400


def test_document_journey_and_raw_capture(client: TestClient, collection: Path) -> None:
    row = next(d for d in docs(client, host="example.com")["documents"] if d["status"] == 200)
    journey = client.get(row["doc"].replace("/c/", "/api/c/", 1))
    assert journey.status_code == 200 and journey.json()["url"] == row["url"]
    page = client.get(row["doc"])
    assert page.status_code == 200 and "<html" in page.text
    raw = client.get(row["raw"])
    with Collection.open(collection) as coll:
        expected = coll.read(coll.find(row["url"])).raw
    assert raw.status_code == 200 and raw.content == expected
    assert raw.headers["content-type"].startswith("text/plain")
    download = client.get(row["raw"], params={"download": "1"})
    assert download.headers["content-type"] == "application/octet-stream"
    assert download.headers["content-disposition"].startswith("attachment")
    assert client.get("/c/coll/raw/0123456789abcdef").status_code == 404
    assert client.get("/c/coll/doc/0123456789abcdef").status_code == 404


def test_openapi_describes_every_api_route(client: TestClient) -> None:
    schema = client.get("/api/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    api = {
        (r.path.replace("{key:path}", "{key}"), m.lower())
        for r in client.app.routes  # type: ignore[attr-defined]
        if getattr(r, "path", "").startswith("/api/")
        for m in (r.methods or set()) - {"HEAD"}
    }
    described = {(p, m) for p, ops in schema["paths"].items() for m in ops}
    assert api == described and len(api) >= 6
    assert all(op["summary"] for ops in schema["paths"].values() for op in ops.values())
    assert schema["paths"]["/api/c/{name}/reindex"]["post"]["security"] == [{"bearer": []}]


def test_static_assets_are_served_locally(client: TestClient) -> None:
    page = client.get("/").text
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    for asset in ("/static/trawl.css", "/static/trawl.js"):
        assert client.get(asset).status_code == 200


def test_short_names_are_unique(tmp_path: Path) -> None:
    paths = [tmp_path / "a" / "coll", tmp_path / "b" / "coll", tmp_path / "my coll!"]
    assert short_names(paths) == ["coll", "coll-2", "my-coll"]


def test_index_refreshes_incrementally(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    index = DocIndex(path)
    assert index.refresh()["added"] == 4
    assert index.refresh() == {"scanned": 0, "added": 0, "updated": 0, "removed": 0}  # marker unchanged
    assert index.refresh(force=True) == {"scanned": 4, "added": 0, "updated": 0, "removed": 0}
    more = tmp_path / "more"
    more.mkdir()
    (more / "new.html").write_text(
        f"<html><head><title>New</title></head><body><p>{TWIN_TEXT} new</p></body></html>"
    )
    before = generation_marker(path)
    with Collection.open(path) as coll:
        ingest([more], coll)
    assert generation_marker(path) != before and index.stale()
    assert index.refresh() == {"scanned": 5, "added": 1, "updated": 0, "removed": 0}
    assert not index.stale()


def test_a_stale_index_is_refreshed_on_request(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    with TestClient(create_app([path])) as client:
        assert client.get("/api/c/c").json()["documents"] == 4
        copy = tmp_path / "more"
        shutil.copytree(tmp_path / "pages", copy)
        (copy / "extra.html").write_text(
            "<html><head><title>Extra</title></head><body><p>x y z</p></body></html>"
        )
        with Collection.open(path) as coll:
            ingest([copy / "extra.html"], coll)
        served = client.app.state.served["c"]  # type: ignore[attr-defined]
        served.index._checked = 0.0  # the rate limit on checks is not what this test is about
        client.get("/api/c/c")  # finds it stale: answers as indexed and starts the refresh
        deadline = time.monotonic() + 20
        while client.get("/api/c/c").json()["documents"] != 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.get("/api/c/c").json()["documents"] == 5


def test_a_collection_another_run_holds_is_served_as_indexed(tmp_path: Path) -> None:
    path = build(tmp_path / "c", tmp_path / "pages", None)
    DocIndex(path).refresh()
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "x.html").write_text(
        "<html><head><title>X</title></head><body><p>x</p></body></html>"
    )
    with Collection.open(path) as writer:
        ingest([tmp_path / "more"], writer)  # the index is stale now, and this run holds the store
        with TestClient(create_app([path])) as client:
            data = client.get("/api/c/c").json()
            assert data["documents"] == 4 and "could not be refreshed" in data["note"]
            key = client.get("/api/c/c/docs").json()["documents"][0]["key"]
            busy = client.get(f"/c/c/raw/{key}")
            assert busy.status_code == 503 and "cannot be read now" in busy.text
    with TestClient(create_app([path])) as client:  # the run ended: readable again, refreshed
        assert client.get(f"/c/c/raw/{key}").status_code == 200
        data = client.get("/api/c/c").json()
        assert data["documents"] == 5 and data["note"] == ""
