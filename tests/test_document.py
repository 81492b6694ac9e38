from __future__ import annotations

from datetime import UTC, datetime

from trawl.document import Document, Link


def test_id_is_stable_and_depends_on_url_and_time() -> None:
    t = datetime(2020, 1, 1, tzinfo=UTC)
    a = Document(url="http://e.com/", fetched_at=t)
    assert a.id == Document(url="http://e.com/", fetched_at=t).id
    assert a.id != Document(url="http://e.com/", fetched_at=datetime(2021, 1, 1, tzinfo=UTC)).id
    assert a.id != Document(url="http://e.com/x", fetched_at=t).id


def test_headers_and_content_type() -> None:
    d = Document(url="http://e.com/", http_headers=[("Content-Type", "Text/HTML; charset=utf-8")])
    assert d.header("content-type") == "Text/HTML; charset=utf-8"
    assert d.content_type == "text/html"
    assert Document(url="x").content_type is None


def test_summary_is_json_friendly() -> None:
    import json

    d = Document(url="http://e.com/", links=[Link("http://e.com/a", "A")])
    d.error("html", ValueError("bad"))
    s = d.summary()
    json.dumps(s)
    assert s["errors"] == ["html: ValueError: bad"]
    assert s["links"] == [{"url": "http://e.com/a", "text": "A"}]
