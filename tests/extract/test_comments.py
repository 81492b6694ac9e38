"""Readers' comments: left out of an article's main content by default, kept on request
(``comments=True``, ``trawl extract --comments``, ``[extract] comments``); a forum's posts are its
content either way. Also the hint families the comments and other boxes are found by."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trawl.cli.main import main
from trawl.config import load_config
from trawl.document import Document
from trawl.extract import ContentExtractor, extract
from trawl.extract.features import relative_hints
from trawl.html.blocks import FINE_HINT_NAMES, HINT_NAMES, compiled_walk, hint_bits, parse_blocks
from trawl.jobs.steps import build_steps

_ARTICLE = [
    "The river rose three metres overnight, flooding the lower town for the first time since 1953.",
    "Residents were woken by sirens shortly after two in the morning, and most reached the school gym.",
    "Engineers say the old levee held, but water came through the drains, which had no valves fitted.",
    "The council will meet on Thursday to discuss funding for new pumps and a second flood barrier.",
    "Farmers upstream opened their fields as overflow basins, which saved the bridge and the mill.",
]
_COMMENTS = [
    "My grandmother remembers the flood of 1953, and she says this one came up much faster than that.",
    "Why were there no valves on the drains? The council was warned about this after the last flood.",
    "Thanks to the volunteers at the gym, they kept everyone warm and fed through the whole night.",
]


def _bit(name: str) -> int:
    return 1 << (*HINT_NAMES, *FINE_HINT_NAMES).index(name)


def _article_page() -> str:
    body = "".join(f"<p>{p}</p>" for p in _ARTICLE)
    comments = "".join(
        f'<li class="comment" id="comment-{k}"><div class="comment-author"><a href="/u{k}">Reader {k}</a>'
        f'</div><div class="comment-metadata"><a href="#c{k}">March {k + 1}, 2024 at 10:1{k} am</a></div>'
        f'<div class="comment-content"><p>{text}</p></div><div class="reply"><a href="#r{k}">Reply</a>'
        "</div></li>"
        for k, text in enumerate(_COMMENTS)
    )
    return (
        "<html><head><title>Flood hits lower town</title></head><body>"
        '<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>'
        f'<main><article class="post"><h1>Flood hits lower town</h1><div class="entry-content">{body}</div>'
        "</article>"
        f'<div id="comments" class="comments-area"><h2 class="comments-title">3 thoughts on this</h2>'
        f'<ol class="comment-list">{comments}</ol>'
        '<div id="respond" class="comment-respond"><h3>Leave a Reply</h3><form><p>'
        '<label for="c">Comment *</label><textarea id="c"></textarea></p><p><label for="n">Name *</label>'
        '<input id="n"></p><p><label>Your email address will not be published anywhere</label></p>'
        "</form></div></div></main>"
        '<footer><p>© 2024 Example Media. <a href="/privacy">Privacy</a></p></footer></body></html>'
    )


def test_comments_left_out_by_default_and_kept_on_request() -> None:
    page = _article_page()
    plain = extract(page)
    for para in _ARTICLE:
        assert para in plain.text
    for comment in _COMMENTS:
        assert comment not in plain.text
    kept = extract(page, comments=True)
    for para in [*_ARTICLE, *_COMMENTS]:
        assert para in kept.text
    # the commenter's name, the time, "Reply", the form and its heading are no comment text
    for noise in ("Reader 1", "March 2", "Reply", "Leave a Reply", "Name *", "email address"):
        assert noise not in kept.text
    assert kept.text.index(_ARTICLE[-1]) < kept.text.index(_COMMENTS[0])  # in page order


def _forum_page() -> str:
    posts = [
        "I replaced the thermostat on my boiler last week and now the radiators only get lukewarm at best.",
        "Did you bleed the radiators after the work? Air in the system gives that kind of symptom.",
        "Also check the pump speed setting, a new thermostat often comes with the pump set low.",
        "Thanks both, bleeding them fixed two rooms and turning the pump up did the rest.",
    ]
    items = "".join(
        f'<div class="comment post" id="post-{k}"><div class="comment-author"><a href="/u{k}">user{k}</a>'
        f'</div><div class="comment-body"><p>{text}</p></div></div>'
        for k, text in enumerate(posts)
    )
    return (
        "<html><body><nav><ul><li><a href='/'>Forum</a></li><li><a href='/t'>Topics</a></li></ul></nav>"
        f'<h1>Radiators lukewarm after new thermostat</h1><div id="comments" class="thread">{items}</div>'
        "<footer><p>Powered by a forum engine</p></footer></body></html>"
    ), posts


def test_a_forums_posts_are_its_content_either_way() -> None:
    page, posts = _forum_page()
    for comments in (False, True):
        text = extract(page, comments=comments).text
        for post in posts:
            assert post in text


def test_content_extractor_and_configuration_pass_the_option_on() -> None:
    page = _article_page()
    for step, expect in ((ContentExtractor(), False), (ContentExtractor(comments=True), True)):
        doc = step.process(Document(url="https://x.org/flood", raw=page.encode(), declared_type="text/html"))
        assert (_COMMENTS[0] in doc.text) is expect
        assert _ARTICLE[0] in doc.text
    assert load_config().extract.comments is False
    for overrides, expect in (((), False), (("extract.comments=true",), True)):
        steps = build_steps(load_config(overrides=overrides))
        [extractor] = [s for s in steps if isinstance(s, ContentExtractor)]
        assert extractor.comments is expect


def test_cli_comments_flag_and_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "flood.html"
    path.write_text(_article_page(), encoding="utf-8")
    for args, expect in (
        ([], False),
        (["--comments"], True),
        (["--set", "extract.comments=true"], True),
    ):
        assert main(["extract", str(path), *args]) == 0
        out = capsys.readouterr().out
        assert _ARTICLE[0] in out
        assert (_COMMENTS[1] in out) is expect


def test_fine_hint_families() -> None:
    cases = {
        "post-author-bio": ("author", "meta"),
        "sharedaddy sd-social": ("share", "social"),
        "entry__related": ("related", "side"),
        "post-ratings": ("rating",),
        "comments-area": ("comments", "comment"),
        "comment-respond": ("comments", "comment"),
        "disqus_thread": ("comments",),
        "newsletter-signup": ("newsletter", "social"),
        "wp-caption-text": ("caption", "meta"),
    }
    walk = compiled_walk()
    for names, families in cases.items():
        bits = hint_bits(names)
        for family in families:
            assert bits & _bit(family), (names, family)
        if walk is not None:
            assert walk.hint_bits_ascii(names.encode()) == bits, names
    # the narrow families add bits; the broad ones a page's stage 1 reads are those they were
    assert hint_bits("comment-respond") & ((1 << len(HINT_NAMES)) - 1) == _bit("comment")


def test_relative_hints_leave_out_the_ancestors_of_the_container() -> None:
    page = parse_blocks(
        '<body><div class="related-wrap"><div class="post"><p>'
        + "Words of the article itself, long enough. " * 5
        + '</p><div class="author-box"><p>About the writer of it.</p></div></div></div>'
        '<div class="related"><p>Another story</p></div></body>'
    )
    tags = page.tags
    post = next(i for i, t in enumerate(tags) if t == "div" and i > 1)
    rel = relative_hints(page, post)
    related, author = _bit("related"), _bit("author")
    assert not rel[post] & related  # the wrapper holding the container is no box of it
    box = int(np.flatnonzero(rel & author)[0])
    assert tags[box] == "div"  # the author box inside the container
    assert rel[-1] & related and rel[-2] & related  # the related list beside it: both elements
