"""Pages only scripts show: the signs, the verdicts, and headless Chromium against the test web's
script.test (links and text built by a script from JSON; a beacon robots.txt forbids; pages
that never stop running or eat memory)."""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.crawl.render import (
    HostVerdicts,
    RenderUnavailable,
    _site,
    browser_memory,
    count_links,
    entity,
    find_browser,
    gained,
    render_signal,
)
from trawl.crawl.transport import FetchResponse
from trawl.errors import ConfigError
from trawl.testweb import ServerThread, TestWeb

BROWSER = find_browser()
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
needs_browser = pytest.mark.skipif(
    BROWSER is None or not HAVE_PLAYWRIGHT,
    reason="rendering needs Chromium (Debian's chromium package) and Playwright (trawl[render])",
)

SHELL = (
    b"<html><body><noscript>Please enable JavaScript to use this site.</noscript>"
    b'<div id="app"></div><script src="/app.js"></script></body></html>'
)
ARTICLE = (
    b"<html><body><script>track()</script><h1>News</h1><p>"
    + b"A long paragraph of real words that needs no script at all to be read. " * 3
    + b"</p>"
    + b"".join(b'<a href="/a%d">link %d</a>' % (i, i) for i in range(6))
    + b"</body></html>"
)


def test_the_signs_of_a_page_scripts_build() -> None:
    assert render_signal(SHELL) == "noscript"
    assert render_signal(SHELL.replace(b"<script", b"<scrip")) is None  # nothing would run
    few = (
        b"<html><body><script src=x.js></script><p>" + b"word " * 40 + b'</p><a href="/a">a</a></body></html>'
    )
    assert render_signal(few) == "few-links"
    assert render_signal(few, min_links=1) is None
    empty = b"<html><body><script src=x.js></script>" + b'<a href="/a">a</a>' * 4 + b"</body></html>"
    assert render_signal(empty) == "empty-body"
    assert render_signal(ARTICLE) is None
    # a <noscript> that is a tracking pixel does not ask for JavaScript
    pixel = ARTICLE.replace(b"<h1>", b'<noscript><img src="/px.gif"></noscript><h1>')
    assert render_signal(pixel) is None
    assert count_links(ARTICLE) == 6


def test_what_counts_as_a_gain_and_the_host_verdicts() -> None:
    rendered = SHELL.decode() + "".join(f'<a href="/p{i}">p{i}</a>' for i in range(5))
    assert gained(SHELL, rendered)
    assert not gained(ARTICLE, ARTICLE.decode())
    wordy = SHELL.decode().replace('<div id="app"></div>', "<p>" + "many words here " * 30 + "</p>")
    assert gained(SHELL, wordy)
    verdicts = HostVerdicts(probes=3)
    assert verdicts.verdict("a.test") == "undecided"
    for _ in range(3):
        verdicts.record("a.test", False)
    assert verdicts.verdict("a.test") == "skip"
    verdicts.record("b.test", True)
    assert verdicts.verdict("b.test") == "render"
    verdicts.record("b.test", False)
    verdicts.record("b.test", False)
    assert verdicts.verdict("b.test") == "undecided"  # one gain in three: each page's signs decide


def test_the_same_site_rule_and_helpers() -> None:
    assert _site("www.example.com") == _site("cdn.example.com") == "example.com"
    assert _site("news.bbc.co.uk") == "bbc.co.uk" != _site("other.co.uk")
    assert _site("127.0.0.1") == "127.0.0.1"
    body = b"<html>hello</html>"
    resp = FetchResponse("http://a.test/", 200, [("Content-Encoding", "gzip")], gzip.compress(body), 0.0)
    assert entity(resp) == body
    assert entity(FetchResponse("http://a.test/", 200, [], body, 0.0)) == body
    assert browser_memory("--no-such-marker-anywhere") == 0
    assert find_browser("/no/such/browser") is None


def test_render_settings_are_checked() -> None:
    from trawl.cli.crawl import settings_from
    from trawl.cli.main import build_parser

    for bad in ({"render": "sometimes"}, {"render_timeout": 0.0}, {"render_concurrency": 0}):
        with pytest.raises(ConfigError):
            CrawlSettings(**bad).check()  # type: ignore[arg-type]
    args = build_parser("crawl").parse_args(["crawl", "http://x.test/", "-o", "c", "--render", "auto"])
    settings = settings_from(args)
    settings.check()
    assert settings.render == "auto" and CrawlSettings().render == "never"


def _crawl(server: ServerThread, seeds: list[str], **kw: object) -> tuple[Crawler, object]:
    options: dict[str, object] = {"hosts": ("script.test",), **kw}
    settings = CrawlSettings(
        min_delay=0.0, delay_factor=0.0, store=False, max_seconds=60,
        resolve=tuple(server.resolve_rules()), **options,  # type: ignore[arg-type]
    )  # fmt: skip
    crawler = Crawler(settings, Frontier())
    return crawler, asyncio.run(crawler.run(seeds))


def test_without_a_browser_auto_goes_on_and_always_says_why() -> None:
    web = TestWeb(1, hosts=1, pages=2)
    with ServerThread(web) as server:
        _, result = _crawl(server, ["http://script.test/"], render="auto", render_browser="/no/such/chromium")
        stats = result.stats  # type: ignore[attr-defined]
        assert result.pages == 1 and stats.get("render/unavailable") == 1  # type: ignore[attr-defined]
        with pytest.raises(RenderUnavailable, match="no browser to render with"):
            _crawl(server, ["http://script.test/"], render="always", render_browser="/no/such/chromium")


@needs_browser
def test_links_only_a_script_shows_are_found_with_render_auto(tmp_path: Path) -> None:
    """Without rendering the crawl stops at the seed (its HTML has no links); with --render auto
    every page is reached, its text is what the script wrote, the page records rendered: true,
    the robots.txt-forbidden beacon is not fetched, and the WARC holds the rendered DOM as a
    conversion record beside the response as fetched."""
    from trawl.cli.main import main

    web = TestWeb(1, hosts=1, pages=2)
    with ServerThread(web) as server:
        _, plain = _crawl(server, ["http://script.test/"])
        assert plain.pages == 1  # type: ignore[attr-defined]
        rules = [f"--resolve={r}" for r in server.resolve_rules()]
        out = tmp_path / "c"
        code = main(
            ["crawl", "http://script.test/", "-o", str(out), "--render", "auto", "--host", "script.test",
             "--delay", "0", *rules]
        )  # fmt: skip
        assert code == 0
        beacons = [e for e in server.log if e.target.startswith("/track/")]
        images = [e for e in server.log if e.target.endswith(".png")]
        api = [e for e in server.log if e.target.startswith("/api/")]
        scripts = [e for e in server.log if e.target == "/app.js"]
    assert not beacons and not images
    assert len(api) == web.SCRIPT_PAGES + 1 and len(scripts) == 1  # the bundle asked for once
    import subprocess
    import sys

    got = subprocess.run(
        [sys.executable, "-m", "trawl.cli.main", "get", str(out), "http://script.test/s/3.html", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    doc = json.loads(got.stdout)
    assert "lighthouse number 3" in doc["text"] and doc["title"] == "Script page 3"
    assert doc["metadata"]["rendered"] is True and doc["metadata"]["render"]["reason"] == "noscript"
    from warcio.archiveiterator import ArchiveIterator

    conversions, responses = {}, {}
    for path in (out / "warc").glob("*.warc.gz"):
        with path.open("rb") as fh:
            for rec in ArchiveIterator(fh, check_digests=True):
                uri = rec.rec_headers.get_header("WARC-Target-URI")
                if rec.rec_type == "conversion":
                    conversions[uri] = (
                        rec.rec_headers.get_header("WARC-Refers-To"),
                        rec.content_stream().read(),
                    )
                elif rec.rec_type in ("response", "revisit"):
                    responses[rec.rec_headers.get_header("WARC-Record-ID")] = uri
    page = "http://script.test/s/3.html"
    assert page in conversions and b"lighthouse number 3" in conversions[page][1]
    assert responses[conversions[page][0]] == page  # it refers to the response as fetched
    assert len(conversions) == web.SCRIPT_PAGES + 1


@needs_browser
def test_auto_renders_nothing_on_plain_pages_and_always_renders_all() -> None:
    web = TestWeb(1, hosts=1, pages=4, special=False)
    with ServerThread(web) as server:
        seeds = ["http://h0.test/"]
        _, result = _crawl(server, seeds, render="auto", hosts=("h0.test",), max_pages=6)
        stats = result.stats  # type: ignore[attr-defined]
        assert result.pages == 6 and stats.get("render/pages") == 0  # type: ignore[attr-defined]
        _, result = _crawl(server, seeds, render="always", hosts=("h0.test",), max_pages=4)
        stats = result.stats  # type: ignore[attr-defined]
        html_pages = stats.get("render/reason/always")
        assert html_pages >= 3 and stats.get("render/pages") == html_pages


@needs_browser
def test_a_page_that_never_stops_or_eats_memory_costs_its_caps_only() -> None:
    """A script that loops forever is cut at render_timeout, one that allocates without end
    crashes its tab (V8's heap cap); both are counted, both pages are kept as fetched, and the
    next page renders."""
    web = TestWeb(1, hosts=1, pages=2)
    with ServerThread(web) as server:
        _, result = _crawl(
            server,
            ["http://script.test/hostile/loop.html", "http://script.test/hostile/oom.html",
             "http://script.test/"],
            render="auto", render_timeout=3.0, render_memory_mb=256, render_concurrency=1,
            max_pages=4,
        )  # fmt: skip
    stats = result.stats  # type: ignore[attr-defined]
    assert result.pages == 4  # type: ignore[attr-defined]
    assert stats.get("render/failed") + stats.get("render/timeout") >= 2, stats.counters
    assert stats.get("render/gained") >= 1, stats.counters  # script.test's own pages still render
