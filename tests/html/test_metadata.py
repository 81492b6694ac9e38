"""Title, author and date from JSON-LD, meta tags, markup and the URL, in that order of trust."""

from __future__ import annotations

from trawl.html.metadata import date_in_text, extract_metadata, normalize_date


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


def test_date_in_text_finds_the_first_written_date() -> None:
    assert date_in_text("Posted on March 5, 2024 by Ada. Updated May 1, 2025") == "2024-03-05"
    assert date_in_text("on 5th May 2024.") == "2024-05-05"
    assert date_in_text("Sept. 12, 2019 | MAY 7 1999") == "2019-09-12"
    # Numbers that are not dates are passed over, not taken as the answer.
    assert date_in_text("Chapter 5, 2024 then 12019 and Jan 3 2021") == "2021-01-03"
    assert date_in_text("Marches 5, 2024; 31 February 2024; 30 April 1850") == ""
    assert date_in_text("x" * 20_000 + " March 5, 2024") == ""  # only the opening is read
    assert date_in_text("") == ""


def test_one_traversal_keeps_the_order_of_trust() -> None:
    # The author markup kinds are ranked (itemprop, then rel, then classes), not taken in page
    # order; the first <time datetime> beats a bare <time> that comes first; rel is matched
    # ignoring case, as lexbor's selector does.
    page = """<html><head><title>T</title><script type="APPLICATION/LD+JSON">{"headline": "Hi"}</script>
    </head><body><div class="author-box">Someone Long Named</div><time>yesterday</time>
    <a rel="Author" href="/u">Rel Person</a><span itemprop="author">Item Prop</span>
    <time datetime="2022-02-03">Feb 3</time></body></html>"""
    meta = extract_metadata(page)
    assert meta.author == "Item Prop"
    assert meta.date == "2022-02-03"
    assert meta.title == "Hi"
    assert meta.sources == {"title": "json-ld", "author": "markup:itemprop", "date": "markup:time[datetime]"}
    no_itemprop = page.replace('itemprop="author"', 'class="x"')
    assert extract_metadata(no_itemprop).author == "Rel Person"


def test_a_logo_h1_is_not_the_title() -> None:
    # The site's name in an <h1> around a link home is the template's logo, not the page's title
    # (it is also contained in the <title>, which would otherwise make it win).
    page = """<html><head><title>SMF vs MyBB? The differences | MyBB</title></head><body>
    <h1 class="logo"><a href="https://mybb.com/">MyBB</a></h1>
    <h1>SMF vs MyBB? The differences</h1><p>Text.</p></body></html>"""
    assert extract_metadata(page).title == "SMF vs MyBB? The differences"
    # A heading that links elsewhere, or says more than its link, is still a title.
    linked = page.replace('href="https://mybb.com/"', 'href="/threads/smf-vs-mybb"')
    assert extract_metadata(linked).title == "MyBB"
    longer = '<title>MyBB forums - Home</title><body><h1><a href="/">MyBB</a> forums</h1></body>'
    assert extract_metadata(longer).title == "MyBB forums"


def test_date_in_text_reads_iso_and_cued_numeric_dates() -> None:
    assert date_in_text("#1 2025-11-01 15:14:37 by ada") == "2025-11-01"
    assert date_in_text("build 2024-13-01, release 2024-02-30; then 2023-05-06") == "2023-05-06"
    assert date_in_text("part 2024-01-02-03 and x12024-01-02") == ""  # longer numbers are not dates
    assert date_in_text("Updated: 10/31/2024") == "2024-10-31"  # month first where that is a date
    assert date_in_text("Posted on 04/08/2024") == "2024-04-08"
    assert date_in_text("posted 13/04/2024") == "2024-04-13"  # else day first
    assert date_in_text("Published 23.07.2025") == "2025-07-23"  # dots: day first
    assert date_in_text("Published 07.08.2025") == "2025-08-07"
    # A bare numeric date is too ambiguous to read; an impossible one is passed over.
    assert date_in_text("Call 10/11/2024 or Updated: 31.02.2024") == ""
    # The first date in the text wins, whatever its form.
    assert date_in_text("Updated: 1/2/2021 and March 5, 2020") == "2021-01-02"


def test_url_date_from_the_pages_own_address_and_more_meta_names() -> None:
    own = (
        '<head><meta property="og:url" content="https://e.org%2Fa%2F2025-12-15%2Bpost"></head><body>x</body>'
    )
    meta = extract_metadata(own)
    assert (meta.date, meta.sources.get("date")) == ("2025-12-15", "og:url")
    # The address the page was fetched from comes first.
    meta = extract_metadata(own, "https://e.org/2020/01/02/post/")
    assert (meta.date, meta.sources.get("date")) == ("2020-01-02", "url")
    page = '<head><meta name="published" content="July 17, 2025"></head><body>x</body>'
    assert extract_metadata(page).date == "2025-07-17"


def test_the_extractor_reads_the_same_text_dates() -> None:
    from trawl.extract import extract

    page = "<body><h1>Release</h1><p>Last updated: 10/31/2024. The notes of the release follow.</p></body>"
    result = extract(page)
    assert (result.date, result.sources.get("date")) == ("2024-10-31", "text")


def test_author_boxes_that_hold_a_date() -> None:
    from trawl.html.metadata import _author_text

    # A date beside the name is cut out, with its time, weekday or reading time.
    assert _author_text("Andrew Gerrand 4 August 2010") == "Andrew Gerrand"
    assert _author_text("Dec. 19, 2025 · Niko Matsakis") == "Niko Matsakis"
    assert _author_text("Oleg Parashchak Jul 18, 2025 7 min") == "Oleg Parashchak"
    assert _author_text("Reyan PerumalPublished on July 18, 2025") == "Reyan Perumal"
    assert _author_text("03/10/2023 by WSET Global") == "WSET Global"
    # A box with a date and no name gives none (the next kind of author markup is asked).
    assert _author_text("August 28, 2025 • 5 min read") == ""
    assert _author_text("Sun Dec 17, 2023 11:23 am") == ""
    # Where cutting leaves digits, the text stays as it was rather than losing the name.
    assert _author_text("Post by ada » 11. Sep 2024, 18:36") == "Post by ada » 11. Sep 2024, 18:36"
    # Labels alone are not names; a "By" with a colon and no space is dropped.
    assert _author_text("Posted by:") == ""
    assert _author_text("Topic Author") == ""
    assert _author_text("Posted by:Idle Cartulary") == "Idle Cartulary"
    assert _author_text("Byron Smith") == "Byron Smith"  # "By" only as a word
    assert _author_text("Grace Hopper") == "Grace Hopper"
    # A long container is not cut, but its leading "By …" is read.
    assert _author_text("By Ada Lovelace | " + "March 5, 2024 notes " * 50) == "Ada Lovelace"
    assert _author_text("March 5, 2024 " * 50) == ""


def test_author_markup_falls_through_a_date_only_box() -> None:
    page = """<body><div class="byline">August 28, 2025 &bull; 5 min read</div>
    <span class="author">By Ada Lovelace</span><p>Text.</p></body>"""
    meta = extract_metadata(page)
    assert (meta.author, meta.sources.get("author")) == ("Ada Lovelace", "markup:author")


def test_json_ld_names_and_headlines_are_unescaped() -> None:
    page = """<head><script type="application/ld+json">{"@type": "Article",
    "author": {"@type": "Person", "name": "Maria &amp; Katerina"}}</script></head><body>x</body>"""
    assert extract_metadata(page).author == "Maria & Katerina"
    page = """<head><script type="application/ld+json">{"@type": "Article",
    "headline": "Full &#038; Part Time: What&#8217;s New"}</script></head><body><h1>Full &amp; Part Time:
    What\u2019s New</h1></body>"""
    meta = extract_metadata(page)
    assert (meta.title, meta.sources["title"]) == ("Full & Part Time: What\u2019s New", "h1")


def test_a_site_name_in_the_h1_is_cut() -> None:
    page = """<head><title>Catering Tips | Cookshack</title><meta property="og:site_name" content="Cookshack">
    </head><body><h1>Catering Tips | Cookshack</h1></body>"""
    meta = extract_metadata(page)
    assert (meta.title, meta.sources["title"]) == ("Catering Tips", "h1")
    first = page.replace("Catering Tips | Cookshack", "Cookshack - Catering Tips")
    assert extract_metadata(first).title == "Catering Tips"
    # Only the site's own name is cut; another part stays.
    other = page.replace("Cookshack</h1>", "Smokers</h1>").replace("| Cookshack</title>", "| Smokers</title>")
    assert extract_metadata(other).title == "Catering Tips | Smokers"


def test_a_person_in_the_byline_beats_an_organization_in_json_ld() -> None:
    ld = """<script type="application/ld+json">{"@type": "Article", "author":
    {"@type": "Organization", "name": "GlossGenius"}}</script>"""
    page = f'<head>{ld}</head><body><span class="author">By Shauna Mitchell</span><p>x</p></body>'
    meta = extract_metadata(page)
    assert (meta.author, meta.sources["author"]) == ("Shauna Mitchell", "markup:author")
    # With no person anywhere, the organization is the answer.
    meta = extract_metadata(f"<head>{ld}</head><body><p>x</p></body>")
    assert (meta.author, meta.sources["author"]) == ("GlossGenius", "json-ld")
    # A numeric account id in a meta tag is no name.
    page = f'<head>{ld}<meta property="article:author" content="262588213843476"></head><body>x</body>'
    assert extract_metadata(page).author == "GlossGenius"


def test_a_twitter_handle_is_not_an_author() -> None:
    page = '<head><meta name="twitter:creator" content="MozDevNet"></head><body><p>x</p></body>'
    assert extract_metadata(page).author == ""


def test_labels_placeholders_and_default_accounts_are_not_authors() -> None:
    form = '<body><p class="comment-form-author"><label>Name *</label></p><p>x</p></body>'
    assert extract_metadata(form).author == ""
    ld = '<head><script type="application/ld+json">{"@type": "Article", "author": "undefined"}</script>'
    assert extract_metadata(ld + '<meta name="author" content="admin"></head><body>x</body>').author == ""
    # The next source is asked.
    page = ld + '<meta name="author" content="Ada Lovelace"></head><body>x</body>'
    assert extract_metadata(page).author == "Ada Lovelace"


def test_a_byline_written_as_text_names_the_author() -> None:
    from trawl.html.metadata import author_in_text
    from trawl.html.page import read_page

    body = "<p>" + "The story itself, told in plain sentences about the river. " * 20 + "</p>"
    page = read_page(
        f"<html><body><h1>A Story</h1><p>By Jane Doe | March 3, 2024</p>{body}</body></html>", "http://x/a"
    )
    assert page.about.author == "Jane Doe" and page.about.sources["author"] == "text:byline"
    cases = {
        "Written by Ludwig van Beethoven on 3 May": "Ludwig van Beethoven",
        "by J. R. R. Tolkien, staff writer": "J. R. R. Tolkien",
        "BY JOHN SMITH": "JOHN SMITH",
        "By the way, this is the text": "",
        "By 2030 the city will have grown": "",
        "By clicking here you agree": "",
        "By USE CASE": "",
        "By Staff": "",
    }
    for text, name in cases.items():
        assert author_in_text([text]) == name, text
    marked = read_page(
        f'<html><body><span class="author">Ann Lee</span><p>By Jane Doe</p>{body}</body></html>', "http://x/b"
    )
    assert marked.about.author == "Ann Lee"  # markup that names an author comes first
