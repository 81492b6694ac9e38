from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.urls import surt, unit_name, unit_parent, unit_root, unit_url, url_hash


def test_surt_reverses_host_and_normalises() -> None:
    assert surt("http://www.Example.com/a/B?z=1&a=2#frag") == "com,example)/a/B?a=2&z=1"
    assert surt("https://news.example.org:443/") == "org,example,news)/"
    assert surt("http://example.org:8080/x") == "org,example:8080)/x"
    assert surt("http://127.0.0.1/x") == "127.0.0.1)/x"
    assert surt("file:///tmp/a%20b.txt") == "file:/tmp/a b.txt"


def test_a_unit_fragment_is_part_of_the_key_and_no_other_fragment_is() -> None:
    mbox = "file:///m/in%20box.mbox"
    assert surt(mbox + "#unit=msg-3") == "file:/m/in box.mbox#unit=msg-3"
    assert surt(mbox + "#unit=msg-3/att-1") == "file:/m/in box.mbox#unit=msg-3/att-1"
    assert surt(mbox + "#top") == surt(mbox) == "file:/m/in box.mbox"
    assert surt("http://www.Example.com/a?z=1&a=2#unit=msg-1") == "com,example)/a?a=2&z=1#unit=msg-1"
    assert surt("http://example.com/a#section-2") == "com,example)/a"
    assert url_hash(mbox + "#unit=msg-1") != url_hash(mbox) == url_hash(mbox + "#x")
    # a parent's units follow it, in its key's prefix
    keys = sorted(
        surt(u) for u in [mbox + "#unit=msg-2", mbox, mbox + "#unit=msg-1/att-1", mbox + "#unit=msg-1"]
    )
    assert keys[0] == surt(mbox) and all(k.startswith(surt(mbox) + "#unit=") for k in keys[1:])


def test_a_file_named_like_a_unit_is_no_unit_of_its_neighbour() -> None:
    """A file whose name holds "#unit=" (its URL says %23unit%3D) has a key of its own: were it
    ``inbox.mbox``'s unit's key, the mbox's tombstone would bury it and --children list it."""
    mbox = "file:///m/inbox.mbox"
    named = Path("/m/inbox.mbox#unit=msg-1").as_uri()
    assert named == "file:///m/inbox.mbox%23unit%3Dmsg-1"
    assert surt(named) != surt(mbox + "#unit=msg-1")
    assert not surt(named).startswith(surt(mbox) + "#unit=")
    assert surt("file:///m/a%23b.txt") == "file:/m/a#b.txt"  # other '#'s in a path: keys as before


def test_unit_urls_name_their_parent_and_root() -> None:
    mbox = "file:///m/inbox.mbox"
    msg = unit_url(mbox, "msg-3")
    att = unit_url(msg, "att-1")
    assert (msg, att) == (mbox + "#unit=msg-3", mbox + "#unit=msg-3/att-1")
    assert unit_parent(att) == msg and unit_parent(msg) == mbox and unit_parent(mbox) is None
    assert unit_root(att) == mbox and unit_name(att) == "att-1" and unit_name(mbox) is None
    assert unit_url("http://e.org/m.eml#frag", "att-2") == "http://e.org/m.eml#unit=att-2"


def test_crawled_links_drop_every_fragment() -> None:
    from trawl.crawl.urlnorm import normalize_url

    assert normalize_url("http://example.com/a#unit=msg-1") == "http://example.com/a"
    assert normalize_url("http://example.com/a?b=1#top") == "http://example.com/a?b=1"


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
