"""Title, author and date from JSON-LD, meta tags, markup and the URL, in that order of trust."""

from __future__ import annotations

from trawl.extract.metadata import extract_metadata, normalize_date


def test_json_ld_wins_and_h1_is_the_title() -> None:
    page = """<html><head><title>How to bake bread | The Kitchen Blog</title>
    <meta property="og:title" content="How to bake bread - The Kitchen Blog">
    <meta name="author" content="Someone Else">
    <script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
      {"@type": "WebSite", "name": "The Kitchen Blog"},
      {"@type": "BlogPosting", "headline": "How to bake bread",
       "author": {"@type": "Person", "name": "Ada Baker"}, "datePublished": "2024-03-09T10:00:00+01:00"}]}
    </script></head><body><h1>How to bake bread</h1><p>Flour.</p></body></html>"""
    meta = extract_metadata(page)
    assert meta.title == "How to bake bread"
    assert meta.author == "Ada Baker"
    assert meta.date == "2024-03-09"
    assert meta.sources == {"title": "h1", "author": "json-ld", "date": "json-ld:datePublished"}


def test_meta_tags_then_markup() -> None:
    page = """<html><head><title>Release notes &ndash; Project</title>
    <meta property="article:published_time" content="2023-11-02">
    </head><body><div class="byline">By Grace Hopper</div><p>Text.</p></body></html>"""
    meta = extract_metadata(page)
    assert meta.title == "Release notes"
    assert meta.author == "Grace Hopper"
    assert meta.date == "2023-11-02"


def test_time_element_and_url_date() -> None:
    assert (
        extract_metadata('<body><time datetime="2021-07-04T12:00">July 4</time></body>').date == "2021-07-04"
    )
    assert extract_metadata("<body><p>x</p></body>", "https://e.org/2019/05/17/post/").date == "2019-05-17"
    assert extract_metadata("<body><p>x</p></body>", "https://e.org/post/").date == ""


def test_author_urls_are_not_names() -> None:
    page = '<head><meta property="article:author" content="https://facebook.com/x"></head><body></body>'
    assert extract_metadata(page).author == ""


def test_normalize_date() -> None:
    assert normalize_date("March 5, 2020") == "2020-03-05"
    assert normalize_date("5th Sept 2019") == "2019-09-05"
    assert normalize_date("2020/1/2") == "2020-01-02"
    assert normalize_date("2020-13-40") == ""
    assert normalize_date("no date here") == ""
    assert normalize_date(None) == ""


def test_broken_json_ld_is_ignored() -> None:
    page = '<head><script type="application/ld+json">{"headline": </script><title>Fine</title></head>'
    assert extract_metadata(page).title == "Fine"
