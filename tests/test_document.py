from __future__ import annotations

from datetime import UTC, datetime

from trawl.document import Document, LazyHeaders, Link


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


def test_lazy_headers_load_once_and_stand_in_for_a_list() -> None:
    import pickle

    calls: list[int] = []
    pairs = [("Content-Type", "text/html"), ("Set-Cookie", "a=1")]

    def load() -> list[tuple[str, str]]:
        calls.append(1)
        return pairs

    h = LazyHeaders(load)
    assert calls == []
    d = Document(url="http://e.com/", http_headers=h)
    assert d.header("CONTENT-TYPE") == "text/html" and d.content_type == "text/html"
    assert h == pairs and pairs == h and h == tuple(pairs) and h == LazyHeaders(lambda: pairs)
    assert h != pairs[:1] and h != "text"
    assert len(h) == 2 and h[1] == ("Set-Cookie", "a=1") and list(h[:1]) == pairs[:1]
    assert ("Set-Cookie", "a=1") in h and dict(h)["Set-Cookie"] == "a=1"
    assert calls == [1]
    assert pickle.loads(pickle.dumps(d)).http_headers == pairs


def test_summary_is_json_friendly() -> None:
    import json

    d = Document(url="http://e.com/", links=[Link("http://e.com/a", "A")])
    d.error("html", ValueError("bad"))
    s = d.summary()
    json.dumps(s)
    assert s["errors"] == ["html: ValueError: bad"]
    assert s["links"] == [{"url": "http://e.com/a", "text": "A"}]
