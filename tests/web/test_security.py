"""``trawl serve``'s security: escaping, headers, path traversal, the token."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.web.conftest import EVIL_TITLE
from trawl.web.app import create_app, csrf_value

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def client(collection: Path) -> Iterator[TestClient]:
    with TestClient(create_app([collection], TOKEN)) as c:
        yield c


def evil_key(client: TestClient) -> str:
    rows = client.get("/api/c/coll/docs", params={"per_page": 500}).json()["documents"]
    key: str = next(r["key"] for r in rows if r["title"] == EVIL_TITLE)
    return key


def test_a_script_title_is_shown_as_text(client: TestClient) -> None:
    key = evil_key(client)
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for url in ("/c/coll/docs", f"/c/coll/doc/{key}", "/c/coll/docs?q=script"):
        page = client.get(url)
        assert page.status_code == 200
        assert EVIL_TITLE not in page.text and escaped in page.text, url
    # the JSON carries it as data, with a JSON content type (never sniffed as HTML)
    api = client.get(f"/api/c/coll/doc/{key}")
    assert api.json()["title"] == EVIL_TITLE and api.headers["content-type"] == "application/json"


def test_a_raw_capture_is_never_html_from_this_origin(client: TestClient) -> None:
    raw = client.get(f"/c/coll/raw/{evil_key(client)}")
    assert raw.status_code == 200 and EVIL_TITLE.encode() in raw.content
    assert raw.headers["content-type"].startswith("text/plain")
    assert "sandbox" in raw.headers["content-security-policy"]
    assert raw.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/api/collections",
        "/c/coll/",
        "/c/coll/docs",
        "/api/openapi.json",
        "/static/trawl.css",
        "/c/nope/",
        "/no/such/page",
        "/c/coll/raw/0000000000000000",
    ],
)
def test_every_response_carries_the_security_headers(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert (
        "default-src 'self'" in r.headers["content-security-policy"]
        or "sandbox" in r.headers["content-security-policy"]
    )
    assert r.headers["x-content-type-options"] == "nosniff"


def test_every_page_csp_allows_only_this_origin(client: TestClient) -> None:
    for url in ("/", "/c/coll/", "/c/coll/docs", "/api/collections", "/c/nope/"):
        assert client.get(url).headers["content-security-policy"].startswith("default-src 'self'")


@pytest.mark.parametrize(
    "url",
    [
        "/c/../trawl.toml",
        "/c/%2e%2e/docs",
        "/c/coll/%2e%2e/%2e%2e/etc/passwd",
        "/c/coll/raw/..%2f..%2ftrawl.toml",
        "/c/coll/raw/%2Fetc%2Fpasswd",
        "/c/coll/raw//etc/passwd",
        "/c/coll/doc/../../trawl.toml",
        "/c/coll/doc/%2e%2e%2ftrawl.toml",
        "/api/c/coll/doc/%2Fetc%2Fpasswd",
        "/c/coll/raw/warc%2F..%2F..%2Ftrawl.toml",
        "/c/coll/raw/collection.warc.gz@0",
        "/c/coll/raw/../../../../etc/passwd@0",
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/%2e%2e%2fapp.py",
        "/c/coll/trawl.toml",
        "/c/coll/linked/passwd",
    ],
)
def test_no_path_reaches_the_file_system(client: TestClient, collection: Path, url: str) -> None:
    link = collection / "linked"
    if not link.exists():
        os.symlink("/etc", link)  # a symlink inside the collection is not reachable either
    r = client.get(url)
    assert r.status_code in (400, 404), (url, r.status_code)
    assert b"root:" not in r.content and b"[collection]" not in r.content and b"def " not in r.content


def test_an_unknown_collection_is_refused(client: TestClient, collection: Path) -> None:
    # only the names given at start are served: not a path, not the directory's parent
    for name in (str(collection), collection.parent.name, "coll-2", "%2Ftmp"):
        assert client.get(f"/api/c/{name}/docs").status_code == 404


def test_writes_need_the_token(client: TestClient) -> None:
    url = "/api/c/coll/reindex"
    assert client.post(url).status_code == 401
    assert client.post(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.post(url, headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
    with TestClient(client.app, cookies={"trawl_token": TOKEN}) as with_cookie:
        assert with_cookie.post(url).status_code == 401  # the login cookie alone never writes
        assert with_cookie.post(url, params={"csrf": "0" * 32}).status_code == 401
        # with the CSRF value only this origin's pages hold, it does (a signed-in page's form)
        assert with_cookie.post(url, params={"csrf": csrf_value(TOKEN)}).status_code == 200
    assert client.post(url, params={"csrf": csrf_value(TOKEN)}).status_code == 401  # no cookie
    assert csrf_value(TOKEN) != csrf_value(TOKEN + "x") and TOKEN not in csrf_value(TOKEN)
    ok = client.post(url, headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["scanned"] > 0
    # reads stay open on loopback
    assert client.get("/api/collections").status_code == 200


def test_without_a_token_nothing_writes(collection: Path) -> None:
    with TestClient(create_app([collection], refresh=False)) as c:
        assert c.post("/api/c/coll/reindex").status_code == 401
        assert c.post("/api/c/coll/reindex", headers={"Authorization": "Bearer "}).status_code == 401


def test_off_loopback_every_route_needs_the_token(collection: Path) -> None:
    app = create_app([collection], TOKEN, token_for_reads=True, refresh=False)
    with TestClient(app) as c:
        for url in ("/api/collections", "/api/c/coll/docs", "/api/openapi.json"):
            assert c.get(url).status_code == 401, url
            assert c.get(url, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        page = c.get("/c/coll/docs", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login"
        assert c.get("/login").status_code == 200
        assert c.get("/static/trawl.css").status_code == 200
        bad = c.post(
            "/login", content="token=nope", headers={"content-type": "application/x-www-form-urlencoded"}
        )
        assert bad.status_code == 401 and "trawl_token" not in bad.cookies
        good = c.post(
            "/login",
            content=f"token={TOKEN}",
            headers={"content-type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        assert good.status_code == 303
        assert "httponly" in good.headers["set-cookie"].lower()
        assert "samesite=strict" in good.headers["set-cookie"].lower()
        assert c.get("/c/coll/docs").status_code == 200  # the cookie now opens pages
        assert c.post("/api/c/coll/reindex").status_code == 401  # but writes only with the CSRF value
