"""robots.txt pattern matching: ``*`` and ``$`` as RFC 9309 defines them, without backtracking.

The matcher replaced a translation to regular expressions, which took exponential time on patterns
of many stars (a fuzzing find, ``tests/data/fuzz/robots/``); it must agree with that definition.
"""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.crawl.robots import parse_robots


def _by_regex(pattern: str, path: str) -> bool:
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = ".*".join(re.escape(part) for part in body.split("*")) + ("$" if anchored else "")
    return re.match(regex, path, re.DOTALL) is not None


@settings(max_examples=500, deadline=None)
@given(st.text("ab*$/", max_size=8), st.text("ab$/", max_size=10))
def test_stars_and_anchors_match_as_the_rfc_defines(pattern: str, path: str) -> None:
    pattern, path = "/" + pattern, "/" + path
    rules = parse_robots(f"User-agent: *\nDisallow: {pattern}\n".encode(), "trawl")
    if path == "/robots.txt":
        return
    assert rules.allowed(path) is not _by_regex(pattern, path), (pattern, path)


def test_many_stars_take_no_time() -> None:
    stars = "User-agent: *\nDisallow: /a" + "*" * 200 + "/*b\nAllow: /" + "a*" * 100 + "c$\n"
    rules = parse_robots(stars.encode(), "trawl")
    began = time.monotonic()
    assert rules.allowed("/" + "a" * 5000)
    assert not rules.allowed("/a" + "x" * 5000 + "/b")
    assert time.monotonic() - began < 0.5
