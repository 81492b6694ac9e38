"""The crawl monitor against a real ``trawl crawl`` subprocess of the test web: its JSON, its
server-sent events, its page, and pause/resume/stop behind the token."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from trawl.crawl.crawler import CrawlResult, CrawlSettings
from trawl.crawl.live import control_path, read_live, send_command
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.web.app import create_app

PLAIN = ["extract.enabled=false", "langid.enabled=false"]
TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _crawl(out: Path, server: ServerThread, seeds: list[str]) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-c", "import sys; from trawl.cli.main import main; sys.exit(main())", "crawl"]
    cmd += ["-o", str(out), "--no-progress", "--json", "--delay", "0.15", "--delay-factor", "0", *seeds]
    for option in PLAIN:
        cmd += ["--set", option]
    for rule in server.resolve_rules():
        cmd += ["--resolve", rule]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _until(
    client: TestClient, check: Callable[[dict[str, Any]], bool], timeout: float = 20.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    data: dict[str, Any] = {}
    while time.monotonic() < deadline:
        data = client.get("/api/c/c/crawl").json()
        if check(data):
            return data
        time.sleep(0.05)
    raise AssertionError(f"the crawl state never matched; last: {data}")


def _events(body: str) -> list[dict[str, Any]]:
    out = []
    for block in body.split("\n\n"):
        lines = block.splitlines()
        if "event: state" in lines:
            out.append(json.loads(next(ln[6:] for ln in lines if ln.startswith("data: "))))
    return out


def test_no_crawl_yet_and_writes_without_a_token(tmp_path: Path) -> None:
    out = tmp_path / "c"
    Collection.create(out).close()
    with TestClient(create_app({"c": out}, token=TOKEN)) as client:
        assert client.get("/api/c/c/crawl").json() == {"collection": "c", "state": "none"}
        page = client.get("/c/c/crawl")
        assert page.status_code == 200 and "No crawl has run" in page.text
        assert "/static/monitor.js" in page.text and "<script>" not in page.text
        assert client.post("/api/c/c/crawl/pause").status_code == 401
        assert client.post("/api/c/c/crawl/pause", headers=AUTH).status_code == 409
        assert client.post("/api/c/c/crawl/reboot", headers=AUTH).status_code == 404
        assert _events(client.get("/api/c/c/crawl/events").text) == [{"collection": "c", "state": "none"}]
        assert client.get("/api/c/nope/crawl").status_code == 404
        assert "Crawl monitor" in client.get("/c/c/").text
        assert client.get("/static/monitor.js").status_code == 200
    with TestClient(create_app({"c": out})) as client:  # no token configured: no write answers
        assert client.post("/api/c/c/crawl/stop", headers=AUTH).status_code == 401


def test_monitor_follows_a_live_crawl_and_controls_it(tmp_path: Path) -> None:
    web = TestWeb(7, hosts=2, pages=25, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    Collection.create(out, overrides=PLAIN).close()
    with ServerThread(web) as server, TestClient(create_app({"c": out}, token=TOKEN)) as client:
        proc = _crawl(out, server, web.seeds())
        try:
            _until(client, lambda d: d["state"] == "running" and d["pages"] >= 2)
            assert client.post("/api/c/c/crawl/pause").status_code == 401
            assert client.get("/api/c/c/crawl").json()["state"] == "running"
            assert client.post("/api/c/c/crawl/pause", headers=AUTH).status_code == 202
            paused = _until(client, lambda d: d["state"] == "paused")
            page = client.get("/c/c/crawl")
            assert page.status_code == 200 and "paused" in page.text and "h0.test" in page.text
            time.sleep(0.8)
            assert client.get("/api/c/c/crawl").json()["pages"] <= paused["pages"] + 2
            assert client.post("/api/c/c/crawl/resume", headers=AUTH).status_code == 202
            _until(client, lambda d: d["state"] == "running")
            body: list[str] = []
            reader = threading.Thread(target=lambda: body.append(client.get("/api/c/c/crawl/events").text))
            reader.start()
            time.sleep(1.5)
            assert client.post("/api/c/c/crawl/stop", headers=AUTH).status_code == 202
            reader.join(timeout=30)
            assert not reader.is_alive(), "the event stream ends when the crawl does"
            stdout, stderr = proc.communicate(timeout=30)
            assert client.post("/api/c/c/crawl/stop", headers=AUTH).status_code == 409
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, stderr.decode()
    result = json.loads(stdout)
    assert result["stopped"] == "stopped-by-user"
    events = _events(body[0])
    pages = [e["pages"] for e in events]
    assert len(events) >= 2 and pages == sorted(pages) and pages[-1] > pages[0]
    assert events[-1]["state"] == "finished" and events[-1]["stopped"] == "stopped-by-user"
    assert events[-1]["pages"] == result["pages"]


def _shard_in_thread(
    out: Path, server: ServerThread, shard: int, delay: float, results: list[CrawlResult]
) -> threading.Thread:
    """``trawl crawl --shard SHARD/2`` of every host of the test web, in a thread."""
    settings = CrawlSettings(
        min_delay=delay,
        delay_factor=0.0,
        resolve=tuple(server.resolve_rules()),
        shard=shard,
        shards=2,
        store_workers=0,
    )
    seeds = [f"http://h{i}.test/" for i in range(4)]  # hosts of both shards

    def run() -> None:
        with Collection.create(out, overrides=PLAIN) as coll:
            results.append(crawl(seeds, coll, settings))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_monitor_sums_the_shards_of_a_sharded_crawl(tmp_path: Path) -> None:
    web = TestWeb(3, hosts=4, pages=5, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    results: list[CrawlResult] = []
    with ServerThread(web) as server:
        for shard in range(2):  # one after the other: one writer at a time
            _shard_in_thread(out, server, shard, 0.0, results).join()
    with Collection.open(out) as coll:
        stored = sum(1 for r in coll.records() if r.capture and not r.url.endswith("/robots.txt"))
    with TestClient(create_app({"c": out}, token=TOKEN)) as client:
        data = client.get("/api/c/c/crawl").json()
        page = client.get("/c/c/crawl")
        assert client.post("/api/c/c/crawl/pause", headers=AUTH).status_code == 409
    assert [s["name"] for s in data["shards"]] == ["shard-0-of-2", "shard-1-of-2"]
    assert data["state"] == "finished" and [s["state"] for s in data["shards"]] == ["finished"] * 2
    assert [s["pages"] for s in data["shards"]] == [r.pages for r in results]
    assert all(r.pages > 0 for r in results)  # each shard has hosts of its own
    assert data["pages"] == sum(r.pages for r in results) == stored
    assert page.status_code == 200 and 'id="m-shards"' in page.text and "shard-1-of-2" in page.text
    assert 'id="m-shards-section" aria-labelledby="m-h-shards">' in page.text  # shown, not hidden


def test_pause_and_stop_reach_the_running_shard(tmp_path: Path) -> None:
    web = TestWeb(7, hosts=4, pages=25, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    frontier = out / "frontier"
    results: list[CrawlResult] = []
    Collection.create(out, overrides=PLAIN).close()
    with ServerThread(web) as server, TestClient(create_app({"c": out}, token=TOKEN)) as client:
        _shard_in_thread(out, server, 0, 0.0, results).join()
        assert client.get("/api/c/c/crawl").json()["state"] == "finished"
        thread = _shard_in_thread(out, server, 1, 0.15, results)
        try:
            _until(client, lambda d: d["state"] == "running" and d["shards"][1]["pages"] >= 2)
            answer = client.post("/api/c/c/crawl/pause", headers=AUTH)
            assert answer.status_code == 202 and answer.json()["shards"] == ["shard-1-of-2"]
            paused = _until(client, lambda d: d["state"] == "paused")
            assert paused["shards"][0]["state"] == "finished"
            assert (read_live(frontier, "shard-1-of-2") or {})["state"] == "paused"
            assert not control_path(frontier, "shard-0-of-2").exists()  # a finished shard is not told
            assert client.post("/api/c/c/crawl/stop", headers=AUTH).status_code == 202
            thread.join(timeout=30)
            assert not thread.is_alive()
        finally:
            if thread.is_alive():
                send_command(frontier, "stop", "shard-1-of-2")
                thread.join()
        data = client.get("/api/c/c/crawl").json()
        assert client.post("/api/c/c/crawl/resume", headers=AUTH).status_code == 409
    assert results[1].stopped == "stopped-by-user"
    assert data["state"] == "finished" and data["shards"][1]["stopped"] == "stopped-by-user"
    assert data["pages"] == results[0].pages + results[1].pages
