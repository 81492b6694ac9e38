"""The crawl monitor in real headless Chromium while a crawl runs: signed in with the token, a crawl
started from the monitor's own form, its counters rising on the page (server-sent events, no
reload), then paused, resumed and stopped with the page's buttons, and its job listed as ended.

The screenshots of the monitor and the jobs page (``docs/screenshots/``) are taken by::

    python -m tests.web.test_browser_live --screenshots docs/screenshots
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_browser import BROWSER, HAVE_PLAYWRIGHT, Server, Watch, watched_page
from tests.web.test_monitor import PLAIN, _crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

pytestmark = pytest.mark.skipif(
    BROWSER is None or not HAVE_PLAYWRIGHT,
    reason="the browser tests need Chromium (Debian's chromium package) and Playwright (trawl[render])",
)

TOKEN = "s3cret-live-token"


def pages_shown(page: Any) -> int:
    return int(page.locator("#m-pages").inner_text().replace(",", "") or 0)


def state_shown(page: Any) -> str:
    return str(page.locator("#m-state").inner_text())


def wait_state(page: Any, pattern: str, seconds: float = 30.0) -> None:
    page.wait_for_function(
        "p => new RegExp(p).test(document.getElementById('m-state').textContent)",
        arg=pattern,
        timeout=seconds * 1000,
    )


def run_live(page: Any, watch: Watch, base: str, shots: Path | None = None) -> dict[str, Any]:
    """Sign in, start a crawl from the monitor, watch it, pause, resume and stop it; what was seen."""
    seen: dict[str, Any] = {}
    page.goto(base + "/c/c/crawl", wait_until="networkidle")
    page.get_by_role("link", name=re.compile("Sign in")).click()
    page.locator("#token").fill(TOKEN)
    page.locator("#token").press("Enter")
    page.wait_for_url(base + "/c/c/crawl")
    page.locator("input[name=resume]").check()
    page.locator("#max_pages").fill("400")
    page.get_by_role("button", name="Start trawl crawl").click()
    page.wait_for_url(base + "/c/c/crawl")
    wait_state(page, "^running")
    url = page.url
    page.evaluate("window.trawlMark = 42")  # gone if the page were reloaded
    first = pages_shown(page)
    # the counters rise on this page, without a reload
    page.wait_for_function(
        "n => Number(document.getElementById('m-pages').textContent.replace(/,/g, '')) >= n",
        arg=first + 5,
        timeout=30_000,
    )
    seen["rose"] = (first, pages_shown(page))
    seen["same_page"] = page.url == url and page.evaluate("window.trawlMark") == 42
    seen["hosts_rows"] = page.locator("#m-host-rows tr").count()
    seen["recent_rows"] = page.locator("#m-recent tr").count()
    if shots is not None:
        page.wait_for_timeout(1500)  # a few samples on the sparkline
        page.screenshot(path=str(shots / "monitor.png"), full_page=False)
    page.get_by_role("button", name="Pause").click()
    wait_state(page, "^paused")
    paused = pages_shown(page)
    page.wait_for_timeout(1000)
    seen["paused"] = (paused, pages_shown(page))
    page.get_by_role("button", name="Resume").click()
    wait_state(page, "^running")
    page.get_by_role("button", name="Stop").click()
    wait_state(page, "finished.*stopped-by-user")
    seen["final"] = pages_shown(page)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the job writes its end a moment after the crawl's state
        page.goto(base + "/c/c/jobs", wait_until="networkidle")
        if "exit status" in page.locator("main section.job").first.inner_text():
            break
        page.wait_for_timeout(300)
    seen["job"] = page.locator("main section.job").first.inner_text()
    if shots is not None:
        page.screenshot(path=str(shots / "jobs.png"), full_page=False)
    seen["problems"] = watch.problems()
    return seen


def live_setup(root: Path) -> tuple[TestWeb, Path]:
    web = TestWeb(11, hosts=3, pages=150, special=False, change_rates=(0.0,))
    out = root / "c"
    Collection.create(out, overrides=PLAIN).close()
    return web, out


def first_crawl(out: Path, server: ServerThread, web: TestWeb) -> None:
    """A first small crawl, so the collection has a frontier and saved settings (the test web's
    --resolve rules, a 0.15 s delay) that the monitor's "continue" starts from."""
    proc = _crawl(out, server, [*web.seeds(), "--max-pages", "3"])
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()


def test_the_monitor_follows_and_steers_a_live_crawl(tmp_path: Path) -> None:
    web, out = live_setup(tmp_path)
    with ServerThread(web) as server:
        first_crawl(out, server, web)
        serve = Server(out, token=TOKEN)
        try:
            with watched_page() as (page, watch):
                seen = run_live(page, watch, serve.base)
        finally:
            serve.close()
    first, later = seen["rose"]
    assert later >= first + 5 and seen["same_page"], seen
    assert seen["hosts_rows"] >= 1 and seen["recent_rows"] >= 1, seen
    paused, after = seen["paused"]
    assert after <= paused + 3, f"paused at {paused} pages, then {after}"
    assert seen["final"] >= later
    assert "crawl" in seen["job"] and "exit status 0" in seen["job"], seen["job"]
    assert seen["problems"] == [], seen["problems"]
    with Collection.open(out) as coll:
        stored = sum(1 for _ in coll.records())
    assert stored >= seen["final"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of the crawl monitor during a live crawl.")
    parser.add_argument("--screenshots", type=Path, required=True, help="folder for the PNG files")
    args = parser.parse_args(argv)
    if BROWSER is None or not HAVE_PLAYWRIGHT:
        parser.error("needs Chromium (Debian's chromium package) and Playwright (trawl[render])")
    args.screenshots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        web, out = live_setup(Path(tmp))
        with ServerThread(web) as server:
            first_crawl(out, server, web)
            serve = Server(out, token=TOKEN)
            try:
                with watched_page() as (page, watch):
                    seen = run_live(page, watch, serve.base, args.screenshots)
            finally:
                serve.close()
    print(seen)
    for name in ("monitor.png", "jobs.png"):
        file = args.screenshots / name
        print(f"{file} {file.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
