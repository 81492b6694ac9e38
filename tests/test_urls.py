from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.urls import surt, url_hash


def test_surt_reverses_host_and_normalises() -> None:
    assert surt("http://www.Example.com/a/B?z=1&a=2#frag") == "com,example)/a/B?a=2&z=1"
    assert surt("https://news.example.org:443/") == "org,example,news)/"
    assert surt("http://example.org:8080/x") == "org,example:8080)/x"
    assert surt("http://127.0.0.1/x") == "127.0.0.1)/x"
    assert surt("file:///tmp/a%20b.txt") == "file:/tmp/a b.txt"


def test_a_hosts_pages_sort_together() -> None:
    urls = ["http://b.example.com/", "http://a.example.org/", "http://example.com/z", "http://a.example.com/"]
    keys = sorted(surt(u) for u in urls)
    assert keys[:3] == ["com,example)/z", "com,example,a)/", "com,example,b)/"]


def test_url_hash_is_spelling_insensitive() -> None:
    assert url_hash("http://www.example.com/a?x=1&y=2") == url_hash("http://example.com:80/a?y=2&x=1")
    assert len(url_hash("http://e.com/")) == 16


_PIECES = st.sampled_from(
    [*"aZ09.-_/:?#&=%~!$'()*+,;@[]\\ \t", "www.", "http://", ":80", ":443", ":8080", ":99999", "?", "#", "é"]
)


@settings(max_examples=3000, deadline=None)
@given(
    st.sampled_from(["http://", "https://", "HTTP://", "ftp://", ""]),
    st.lists(_PIECES, max_size=30).map("".join),
)
def test_the_fast_path_gives_the_urlsplit_answer(scheme: str, rest: str) -> None:
    from trawl.urls import _surt_http, _surt_split

    url = scheme + rest
    fast = _surt_http(url)
    assert fast is None or fast == _surt_split(url), url
    assert surt(url) == _surt_split(url)
