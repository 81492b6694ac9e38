"""Every ``trawl serve`` page in real headless Chromium (Debian's ``chromium`` driven by Playwright).

A collection crawled twice from the test web (passages on, deduplicated) is served by ``trawl
serve`` as a real process on a free loopback port. Each page must load with no console error (a
CSP refusal is one), no failed request, no response >= 400 and no request leaving 127.0.0.1; the
journey of a windows-1251 page and the simhash explain page are checked in the rendered DOM.

Screenshots of every page (``docs/screenshots/``, listed in ``docs/web.md``) are taken by::

    python -m tests.web.test_browser --screenshots docs/screenshots
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_cli_serve import free_port, get
from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.render import find_browser
from trawl.dedup.engine import DedupOptions
from trawl.jobs.crawl import crawl
from trawl.jobs.dedup import discover_collection
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.urls import url_hash

BROWSER = find_browser()
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
pytestmark = pytest.mark.skipif(
    BROWSER is None or not HAVE_PLAYWRIGHT,
    reason="the browser tests need Chromium (Debian's chromium package) and Playwright (trawl[render])",
)

#: hosts of the test web: h3 is Russian in windows-1251, declared by the HTTP header
HOSTS = 4


def build_collection(path: Path) -> tuple[Path, TestWeb]:
    """The test web crawled twice (so pages have versions), paragraph passages on, deduplicated."""
    web = TestWeb(0, hosts=HOSTS, pages=10, special=False, change_rates=(0.0,))
    with ServerThread(web) as server, Collection.create(path, overrides=["units.passages=paragraph"]) as coll:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, max_pages=60, resolve=tuple(server.resolve_rules())
        )
        crawl(web.seeds(), coll, settings, fresh=True)
        crawl(web.seeds(), coll, settings, fresh=True)
        discover_collection(coll, DedupOptions())
    return path, web


def known_page(path: Path, host: str = "h3", twin: bool = False) -> tuple[str, int]:
    """A page of ``host`` (h3: windows-1251 by header; with ``twin``, one that has a ``?print=1``
    variant, a near duplicate: the test web prints pages of h0 only): its URL and number."""
    with Collection.open(path) as coll:
        urls = {r.url for r in coll.records(f"test,{host})/p/")}
    plain = sorted(u for u in urls if "?" not in u and "#" not in u)
    url = next(u for u in plain if not twin or f"{u}?print=1" in urls)
    return url, int(url.rsplit("/", 1)[1].split(".")[0])


class Server:
    """``trawl serve`` on ``path`` as a subprocess on a free loopback port."""

    def __init__(self, path: Path, token: str | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "trawl.cli.main", "serve", str(path), "--port", str(self.port)]
        cmd += ["--token", token] if token else []
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            status, _, _ = get(self.base + "/", seconds=60)
        except OSError:
            self.close()
            raise
        assert status == 200, f"trawl serve answered {status} at /"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()


@dataclass
class Watch:
    """What a Playwright page reported since :meth:`reset`: console errors, failed requests,
    responses >= 400 and requests to hosts other than 127.0.0.1."""

    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    bad_status: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        page.on("request", self._request)

    def _console(self, msg: Any) -> None:
        # a CSP refusal is logged as an error ("Refused to …"); count any "Refused" message
        if msg.type == "error" or msg.text.startswith("Refused"):
            self.errors.append(f"console {msg.type}: {msg.text}")

    def _failed(self, request: Any) -> None:
        # Chromium fetches the favicon on its own, after the page's load event, and aborts that
        # fetch when the next navigation starts, as it closes a page's open event stream: the
        # browser's choice, not a failure of the server
        if request.failure == "net::ERR_ABORTED" and request.url.endswith(
            ("/static/favicon.svg", "/crawl/events")
        ):
            return
        self.failed.append(f"{request.url}: {request.failure}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.bad_status.append(f"{response.status} {response.url}")

    def _request(self, request: Any) -> None:
        host = urllib.parse.urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host != "127.0.0.1":
            self.foreign.append(request.url)

    def reset(self) -> None:
        self.errors.clear()
        self.failed.clear()
        self.bad_status.clear()
        self.foreign.clear()

    def problems(self) -> list[str]:
        return self.errors + self.failed + self.bad_status + [f"left loopback: {u}" for u in self.foreign]


@dataclass
class Site:
    base: str
    page: Any
    watch: Watch
    web: TestWeb
    known_url: str
    known_number: int
    twin_url: str
    collection: str = "coll"


@contextmanager
def watched_page(timeout_ms: float = 30_000) -> Iterator[tuple[Any, Watch]]:
    """A page of headless Chromium (Debian's, through Playwright), 1280 x 900, watched by a
    :class:`Watch`; the browser closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=BROWSER, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(timeout_ms)
            watch = Watch()
            watch.attach(page)
            yield page, watch
        finally:
            browser.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    path, web = build_collection(tmp_path_factory.mktemp("browser") / "coll")
    url, number = known_page(path)
    twin, _ = known_page(path, "h0", twin=True)
    server = Server(path)
    try:
        with watched_page(15_000) as (page, watch):
            yield Site(server.base, page, watch, web, url, number, twin)
    finally:
        server.close()


def doc_path(url: str, coll: str = "coll") -> str:
    return f"/c/{coll}/doc/{url_hash(url)}"


def page_paths(site: Site) -> list[str]:
    """Every page of the app (the raw capture is checked on its own: it is a download)."""
    c = f"/c/{site.collection}"
    title_word = site.web.title("h3.test", site.known_number).split()[0]
    return [
        "/",
        f"{c}/",
        f"{c}/docs",
        f"{c}/docs?host=h3.test&lang=ru",
        f"{c}/docs?q={urllib.parse.quote(title_word)}",
        doc_path(site.known_url, site.collection),
        f"{c}/stats",
        f"{c}/freshness",
        f"{c}/crawl",  # the monitor of the fixture's (finished) crawl: its event stream ends at once
        "/explain/",
        "/explain/utf8",
        "/explain/cavnar",
        "/explain/fingerprint",
        "/explain/simhash",
        "/explain/bte",
        "/login",
    ]


def visit(site: Site, path: str) -> Any:
    """Go to ``path`` and wait until the network is quiet, so what the page fetches after its load
    event (scripts' requests, the favicon) is reported with this page, not the next."""
    site.watch.reset()
    response = site.page.goto(site.base + path, wait_until="networkidle")
    assert response is not None and response.status == 200, f"{path}: {response and response.status}"
    return response


def test_every_page_loads_clean(site: Site) -> None:
    for path in page_paths(site):
        visit(site, path)
        assert site.page.locator("main h1").count() >= 1, f"{path} has no <h1> in <main>"
        assert site.watch.problems() == [], f"{path}: {site.watch.problems()}"


def test_the_list_filters_and_finds_by_words(site: Site) -> None:
    visit(site, "/c/coll/docs?host=h3.test&lang=ru")
    links = site.page.locator("main table a").evaluate_all("els => els.map(e => e.textContent)")
    assert links and all("h3.test" in t for t in links if t.startswith("http"))
    title = site.web.title("h3.test", site.known_number)
    visit(site, "/c/coll/docs")
    field = site.page.locator("#f-q")
    field.focus()
    field.type(title.split()[0])
    field.press("Enter")
    site.page.wait_for_url(re.compile(r"[?&]q="))
    assert site.page.locator("main [role=status]").inner_text().split()[0] not in ("0", "")
    assert site.watch.problems() == []


def test_the_raw_capture_link_answers(site: Site) -> None:
    visit(site, doc_path(site.known_url))
    href = site.page.locator('main a[href*="/raw/"]').first.get_attribute("href")
    assert href
    response = site.page.request.get(site.base + href)
    assert response.status == 200 and len(response.body()) > 0


def test_the_journey_of_a_windows_1251_page(site: Site) -> None:
    web, number = site.web, site.known_number
    assert web.encoding("h3.test") == "windows-1251" and web.language("h3.test") == "ru"
    visit(site, doc_path(site.known_url))
    decoding = site.page.locator("#decoding").inner_text()
    assert "Decoded as windows-1251 (from http" in decoding
    language = site.page.locator("#language").inner_text()
    assert "Document language ru" in language
    anchors = site.page.locator("#anchors").inner_text()
    assert web.title("h3.test", number) in anchors  # the test web links to a page by its title
    assert site.watch.problems() == []
    visit(site, doc_path(site.twin_url))
    dedup = site.page.locator("#dedup").inner_text()
    assert f"{site.twin_url}?print=1" in dedup  # its print variant is a near duplicate
    assert site.watch.problems() == []


def shown_v(site: Site) -> list[int]:
    """V as the simhash page shows it (whatever minus sign it uses)."""
    return [int(x.replace("\u2212", "-")) for x in site.page.locator("#simhash-v").inner_text().split()]


def test_simhash_reproduces_the_book_by_default_and_takes_typed_input(site: Site) -> None:
    visit(site, "/explain/simhash")
    assert shown_v(site) == [1, -5, 9, -9, 3, 1, 3, 3]  # Croft, Metzler & Strohman's V
    assert site.page.locator("#simhash-bits").inner_text().strip() == "10101111"
    # typed input, submitted by keyboard: only the given hashes count, so two words of the book
    text = site.page.locator("#x-text")
    text.fill("")
    text.focus()
    site.page.keyboard.type("fish fish tropical")
    bits = site.page.locator("#x-bits")
    bits.focus()
    bits.press("Enter")
    site.page.wait_for_url(re.compile(r"text=fish"))
    # fish (10101011) twice, tropical (01100001) once: V_i = 2*(±1) + (±1)
    assert shown_v(site) == [1, -1, 3, -3, 1, -3, 1, 3]
    assert site.page.locator("#simhash-bits").inner_text().strip() == "10101011"
    assert site.watch.problems() == []


@pytest.mark.parametrize("method", ["utf8", "cavnar", "fingerprint", "bte"])
def test_each_explain_page_takes_typed_input(site: Site, method: str) -> None:
    visit(site, f"/explain/{method}")
    field = site.page.locator("#x-text")
    field.fill("")
    field.focus()
    site.page.keyboard.type("<p>Zebras graze</p>" if method == "bte" else "Zebras graze")
    site.page.keyboard.press("Tab")  # off the textarea (Enter there is a newline), to the next field
    site.page.locator("form.explain button[type=submit]").press("Enter")
    site.page.wait_for_url(re.compile(r"text="))
    assert "Zebras" in site.page.locator("#x-text").input_value()
    assert site.page.locator("main [role=alert]").count() == 0
    assert site.watch.problems() == []


def test_the_keyboard_reaches_links_and_forms_with_a_visible_focus(site: Site) -> None:
    for path, wanted in (("/c/coll/docs", "INPUT"), ("/", "A"), ("/explain/simhash", "TEXTAREA")):
        visit(site, path)
        seen: set[str] = set()
        for _ in range(25):
            site.page.keyboard.press("Tab")
            tag, outline, shadow = site.page.evaluate(
                "() => { const e = document.activeElement, s = getComputedStyle(e);"
                " return [e.tagName, s.outlineStyle + ' ' + s.outlineWidth + ' #' + e.id, s.boxShadow]; }"
            )
            seen.add(tag)
            if tag in ("A", "INPUT", "TEXTAREA", "BUTTON"):
                assert not outline.startswith("none") or shadow != "none", (
                    f"{path}: {tag} focus hidden ({outline})"
                )
        assert wanted in seen, f"{path}: Tab reached only {seen}"


@pytest.mark.parametrize("path", ["/c/coll/docs", "journey"])
def test_no_horizontal_overflow_at_phone_width(site: Site, path: str) -> None:
    site.page.set_viewport_size({"width": 390, "height": 844})
    try:
        visit(site, doc_path(site.known_url) if path == "journey" else path)
        width, inner = site.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= inner, f"{path}: the page is {width} px wide in a {inner} px window"
    finally:
        site.page.set_viewport_size({"width": 1280, "height": 900})


# -- screenshots ---------------------------------------------------------------------------------

#: (file name, path) of the desktop screenshots; "{doc}" is the known page's journey
SHOTS = [
    ("home", "/"),
    ("collection", "/c/coll/"),
    ("docs", "/c/coll/docs?host=h3.test"),
    ("search", "/c/coll/docs?q={word}"),
    ("journey", "{doc}"),
    ("stats", "/c/coll/stats"),
    ("freshness", "/c/coll/freshness"),
    ("explain", "/explain/"),
    ("explain-utf8", "/explain/utf8"),
    ("explain-cavnar", "/explain/cavnar"),
    ("explain-fingerprint", "/explain/fingerprint"),
    ("explain-simhash", "/explain/simhash"),
    ("explain-bte", "/explain/bte"),
    ("login", "/login"),
]
#: the pages also shot at phone width
PHONE = ["docs", "journey"]


def take_screenshots(site: Site, out: Path) -> list[Path]:
    """One viewport PNG per page at 1280 px, and the list and journey at 390 px, into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    word = urllib.parse.quote(site.web.title("h3.test", site.known_number).split()[0])
    doc = doc_path(site.known_url, site.collection)
    saved: list[Path] = []
    for width, height, names in ((1280, 900, [n for n, _ in SHOTS]), (390, 844, PHONE)):
        site.page.set_viewport_size({"width": width, "height": height})
        for name, path in SHOTS:
            if name not in names:
                continue
            visit(site, path.format(doc=doc, word=word))
            file = out / (f"{name}.png" if width > 400 else f"{name}-phone.png")
            site.page.screenshot(path=str(file), full_page=False)
            saved.append(file)
    site.page.set_viewport_size({"width": 1280, "height": 900})
    return saved


def test_screenshots_are_written(site: Site, tmp_path: Path) -> None:
    saved = take_screenshots(site, tmp_path)
    assert len(saved) == len(SHOTS) + len(PHONE)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in saved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of every trawl serve page.")
    parser.add_argument("--screenshots", type=Path, required=True, help="folder for the PNG files")
    args = parser.parse_args(argv)
    if BROWSER is None or not HAVE_PLAYWRIGHT:
        parser.error("needs Chromium (Debian's chromium package) and Playwright (trawl[render])")
    with tempfile.TemporaryDirectory() as tmp:
        path, web = build_collection(Path(tmp) / "coll")
        url, number = known_page(path)
        twin, _ = known_page(path, "h0", twin=True)
        server = Server(path)
        try:
            with watched_page() as (page, watch):
                for file in take_screenshots(
                    Site(server.base, page, watch, web, url, number, twin), args.screenshots
                ):
                    print(f"{file} {file.stat().st_size:,} bytes")
        finally:
            server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
