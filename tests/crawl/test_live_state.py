"""The crawl's published state (``frontier/crawl.live.json``) and its control file, read and
written while a real crawl of the test web runs; pauses judged from the server's request log."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from trawl.crawl.crawler import CrawlResult, CrawlSettings
from trawl.crawl.live import live_path, read_live, send_command
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

PLAIN = ["extract.enabled=false", "langid.enabled=false"]


def _crawl_in_thread(
    web: TestWeb, server: ServerThread, out: Path, *, resume: bool = False, delay: float = 0.15
) -> tuple[threading.Thread, dict[str, CrawlResult]]:
    settings = CrawlSettings(min_delay=delay, delay_factor=0.0, resolve=tuple(server.resolve_rules()))
    results: dict[str, CrawlResult] = {}

    def run() -> None:
        with Collection.open(out) if resume else Collection.create(out, overrides=PLAIN) as coll:
            results["result"] = crawl([] if resume else web.seeds(), coll, settings, resume=resume)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, results


def _wait_for(out: Path, check: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = read_live(out / "frontier")
        if data is not None and check(data):
            return data
        time.sleep(0.05)
    raise AssertionError(f"the live state never matched; last: {read_live(out / 'frontier')}")


def test_live_state_is_valid_json_at_every_read_and_its_counters_rise(tmp_path: Path) -> None:
    web = TestWeb(3, hosts=3, pages=6, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    path = live_path(out / "frontier")
    reads: list[dict[str, Any]] = []
    with ServerThread(web) as server:
        thread, results = _crawl_in_thread(web, server, out)
        while thread.is_alive():
            if path.exists():
                reads.append(json.loads(path.read_bytes()))  # never half a file: os.replace
            time.sleep(0.03)
        thread.join()
    final = json.loads(path.read_bytes())
    result = results["result"]
    running = [r for r in reads if r["state"] == "running"]
    assert len(running) >= 2, "the state was published while the crawl ran"
    pages = [r["pages"] for r in reads]
    assert pages == sorted(pages), "pages never go down"
    assert any(0 < p < result.pages for p in pages), "the counters were seen rising"
    assert final["state"] == "finished" and final["stopped"] == result.stopped == "done"
    assert final["pages"] == result.pages and final["requests"] >= result.pages
    assert final["status_classes"]["2xx"] == result.stats.get("fetch/status-class/2xx")
    assert final["robots"]["fetched"] == 3
    assert final["frontier"] == {"queued": 0, "in_flight": 0}
    assert {h["host"] for h in final["hosts"]["top"]} <= {f"h{i}.test" for i in range(3)}
    assert final["hosts"]["known"] == 3
    assert all(h["delay"] >= 0.15 for h in final["hosts"]["top"])
    recent = final["recent"]
    assert 0 < len(recent) <= 50 and recent[0]["time"] >= recent[-1]["time"]
    assert all(r["url"].startswith("http://h") and r["status"] == 200 for r in recent)
    assert any(r["pages_per_s"] > 0 for r in running)
    assert all(len(r["series"]) <= 120 for r in reads)


def test_pause_resume_and_stop_from_the_control_file(tmp_path: Path) -> None:
    web = TestWeb(5, hosts=2, pages=25, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    with ServerThread(web) as server:
        thread, results = _crawl_in_thread(web, server, out)
        _wait_for(out, lambda d: d["pages"] >= 3)
        send_command(out / "frontier", "pause")
        paused = _wait_for(out, lambda d: d["state"] == "paused")
        since = time.monotonic() + 0.3  # a fetch already in flight may still be answered
        time.sleep(1.2)
        during = [e for e in server.log if e.start > since]
        still = read_live(out / "frontier")
        send_command(out / "frontier", "resume")
        resumed_at = time.monotonic()
        _wait_for(out, lambda d: d["state"] == "running" and d["pages"] > paused["pages"] + 2)
        after = [e for e in server.log if e.start > resumed_at]
        send_command(out / "frontier", "stop")
        thread.join(timeout=15)
        assert not thread.is_alive()
        result = results["result"]
        final = read_live(out / "frontier")
        # the stopped crawl goes on with --resume, to the end
        thread2, results2 = _crawl_in_thread(web, server, out, resume=True, delay=0.0)
        thread2.join(timeout=30)
    assert during == [], "no request while paused"
    assert still is not None and still["state"] == "paused" and still["pages"] <= paused["pages"] + 2
    assert after, "requests again after resume"
    assert result.stopped == "stopped-by-user"
    assert result.stats.get("crawl/control/pause") == 1 and result.stats.get("crawl/control/stop") == 1
    assert final is not None and final["state"] == "finished" and final["stopped"] == "stopped-by-user"
    assert result.frontier.get("queued", 0) > 0, "stopped before the end: URLs left for --resume"
    assert not (out / "frontier" / "crawl.control").exists()
    resumed = results2["result"]
    assert resumed.stopped == "done" and resumed.pages > 0
    assert result.pages + resumed.pages >= 2 * 25
