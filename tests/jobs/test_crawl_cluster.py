"""``trawl crawl --workers N``: a crawl in shards (processes, or Ray actors), hosts owned by a
consistent-hash ring, URLs routed through the coordinator, pages leased under --max-pages."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.urlnorm import HashRing
from trawl.jobs.crawl import crawl
from trawl.jobs.crawl_cluster import crawl_cluster, partition_name
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.testweb.server import LogEntry

HAVE_RAY = importlib.util.find_spec("ray") is not None
PLAIN = ["extract.enabled=false", "langid.enabled=false"]


def settings_for(server: ServerThread, **changes: object) -> CrawlSettings:
    base: dict[str, object] = {
        "min_delay": 0.0,
        "delay_factor": 0.0,
        "resolve": tuple(server.resolve_rules()),
    }
    base.update(changes)
    return CrawlSettings(**base)  # type: ignore[arg-type]


def fetched_pages(log: list[LogEntry], since: int = 0) -> Counter[str]:
    """host + target of every page request the test web answered (robots.txt left out)."""
    return Counter(f"{e.host}{e.target}" for e in log[since:] if not e.target.startswith("/robots.txt"))


def urls_in(path: Path, name: str) -> set[str]:
    with Collection.open(path / "partitions" / name) as part:
        return {r.url for r in part.records()}


@pytest.fixture
def web() -> TestWeb:
    return TestWeb(5, hosts=6, pages=12, special=False, change_rates=(0.0,))


def test_two_shards_fetch_what_one_crawl_does_each_page_once_each_host_by_its_owner(
    web: TestWeb, tmp_path: Path
) -> None:
    with ServerThread(web) as server:
        with Collection.create(tmp_path / "one", overrides=PLAIN) as coll:
            single = crawl(web.seeds(), coll, settings_for(server), fresh=True)
        one = fetched_pages(server.log)
        mark = len(server.log)
        with Collection.create(tmp_path / "c", overrides=PLAIN) as coll:
            result = crawl_cluster(web.seeds(), coll, settings_for(server), 2)
        two = fetched_pages(server.log, mark)
    assert not result.failure, result.shards
    assert result.stopped == "done" and len(result.shards) == 2
    assert two == one and max(two.values()) == 1, "every page once, as one crawl fetches them"
    assert result.pages == single.pages
    ring = HashRing(2)
    for i in range(2):
        hosts = {u.split("/")[2] for u in urls_in(tmp_path / "c", partition_name(i, 2))}
        assert hosts and all(ring.owner(h) == i for h in hosts), (i, hosts)
    assert result.stats.get("cluster/routed") > 0  # links across hosts went through the coordinator
    # the collection reads its partitions as itself: the same records as the one crawl's
    with Collection.open(tmp_path / "one") as a, Collection.open(tmp_path / "c") as b:
        assert sorted(r.url for r in a.records()) == sorted(r.url for r in b.records())
        record = next(iter(b.records()))
        assert b.read(b.find(record.url)).raw  # its WARC record, in a partition's warc/


def test_max_pages_is_never_passed_and_is_reached(web: TestWeb, tmp_path: Path) -> None:
    with ServerThread(web) as server, Collection.create(tmp_path / "c", overrides=PLAIN) as coll:
        result = crawl_cluster(web.seeds(), coll, settings_for(server, max_pages=25), 2)
        pages = fetched_pages(server.log)
    assert result.stopped == "max-pages", result.shards
    assert sum(pages.values()) == 25 and result.pages == 25  # never passed, and reached: leases
    assert result.stats.get("cluster/pages-returned") >= 0


def test_the_cli_runs_shards_and_resumes(
    web: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "c"
    with ServerThread(web) as server:
        base = ["crawl", *web.seeds(), "-o", str(out), "--workers", "2", "--delay", "0", "--json"]
        for rule in server.resolve_rules():
            base += ["--resolve", rule]
        for option in PLAIN:
            base += ["--set", option]
        assert main([*base, "--max-pages", "10"]) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["pages"] == 10 and first["workers"] == 2 and len(first["shards"]) == 2
        assert main([*base, "--resume", "--max-pages", "30"]) == 0
        second = json.loads(capsys.readouterr().out)
        assert second["pages"] == 20, second  # 30 in all: what the first run fetched counts
        pages = fetched_pages(server.log)
    assert max(pages.values()) == 1 and sum(pages.values()) == 30


@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'trawl[scale]')")
def test_shards_as_ray_actors(web: TestWeb, tmp_path: Path) -> None:
    with ServerThread(web) as server:
        with Collection.create(tmp_path / "one", overrides=PLAIN) as coll:
            crawl(web.seeds(), coll, settings_for(server), fresh=True)
        one = fetched_pages(server.log)
        mark = len(server.log)
        with Collection.create(tmp_path / "c", overrides=PLAIN) as coll:
            result = crawl_cluster(web.seeds(), coll, settings_for(server), 2, executor="ray")
        two = fetched_pages(server.log, mark)
    assert not result.failure and result.stopped == "done"
    assert two == one and max(two.values()) == 1


def test_a_shard_killed_stops_the_crawl_and_resume_finishes_it(tmp_path: Path) -> None:
    web = TestWeb(9, hosts=4, pages=30, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    with ServerThread(web) as server:
        with Collection.create(out, overrides=PLAIN) as coll:
            killed: list[int] = []

            def kill_one() -> None:
                log = out / "partitions" / partition_name(1, 2) / "frontier" / "shard.pid"
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not log.exists():
                    time.sleep(0.02)
                time.sleep(0.3)
                pid = int(log.read_text())
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

            killer = threading.Thread(target=kill_one)
            killer.start()
            result = crawl_cluster(web.seeds(), coll, settings_for(server, min_delay=0.02), 2)
            killer.join()
        assert killed and result.failure and result.stopped.startswith("shard-failed")
        with Collection.open(out) as coll:
            again = crawl_cluster(web.seeds(), coll, settings_for(server, min_delay=0.02), 2, resume=True)
        assert not again.failure and again.stopped == "done", again.shards
        with Collection.create(tmp_path / "one", overrides=PLAIN) as coll:  # the same web, in one go
            crawl(web.seeds(), coll, settings_for(server), fresh=True)
    with Collection.open(tmp_path / "one") as a, Collection.open(out) as b:
        one = sorted(r.url for r in a.records())
        assert sorted(r.url for r in b.records()) == one  # every page stored, once


def test_serve_and_dedup_see_the_shards(
    web: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The monitor follows the shards in their partitions; dedup reads the union, in one process
    or as sharded tasks, with the same pairs."""
    from starlette.testclient import TestClient

    from trawl.web.app import create_app

    out = tmp_path / "c"
    with ServerThread(web) as server, Collection.create(out, overrides=PLAIN) as coll:
        result = crawl_cluster(web.seeds(), coll, settings_for(server), 2)
    with TestClient(create_app({"c": out})) as client:
        state = client.get("/api/c/c/crawl").json()
        assert state["state"] == "finished" and len(state["shards"]) == 2
        assert state["pages"] == result.pages
        assert client.get("/api/c/c").json()["documents"] >= result.pages
    # dedup reads the partitions, one process or sharded tasks: the same pairs
    capsys.readouterr()
    assert main(["dedup", str(out), "--json", "--no-store"]) == 0
    plain = sorted(capsys.readouterr().out.splitlines())
    assert main(["dedup", str(out), "--json", "--no-store", "--workers", "2"]) == 0
    assert sorted(capsys.readouterr().out.splitlines()) == plain and plain  # the print twins
