"""Reading every published crawl state of a collection (``read_all_live``) and showing a sharded
crawl's shards as one state (``combine``): hand-written files of the published shape, and the
files two real ``--shard I/2`` crawls of the test web leave."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.live import HOSTS_SHOWN, RECENT_FETCHES, combine, live_path, read_all_live, read_live
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

PLAIN = ["extract.enabled=false", "langid.enabled=false"]


def _state(
    state: str, *, pages: int, start: float, tag: str, hosts: int = 3, stopped: str | None = None
) -> dict[str, Any]:
    """A state as ``LiveMonitor`` publishes it: ``pages`` fetched one a second from ``start``."""
    data: dict[str, Any] = {
        "pid": os.getpid(),  # alive: read_live keeps the state
        "started": start,
        "updated": start + pages,
        "state": state,
        "seconds": float(pages),
        "pages": pages,
        "pages_total": pages + 1,
        "bytes": 1000 * pages,
        "requests": pages + 2,
        "pages_per_s": 1.0,
        "bytes_per_s": 1000.0,
        "series": [[start + k, 1.0, 1000.0] for k in range(1, pages + 1)],
        "frontier": {"queued": 10 * hosts, "in_flight": 1},
        "hosts": {
            "known": hosts,
            "active": 1,
            "waiting": hosts - 1,
            "given_up": 0,
            "top": [
                {
                    "host": f"{tag}{k}.test",
                    "queued": 10 + k,
                    "busy": False,
                    "fetched": 1,
                    "errors": 0,
                    "given_up": False,
                    "delay": 0.5,
                    "next_in": 0.1,
                }
                for k in range(hosts)
            ],
        },
        "status_classes": {"2xx": pages, "4xx": 1},
        "errors": {"timeout": 1},
        "robots": {"fetched": hosts, "disallowed": 2, "unreachable": 0},
        "recent": [
            {"time": start + k, "url": f"http://{tag}.test/{k}", "status": 200, "bytes": 1000, "ms": 3}
            for k in range(pages, max(0, pages - RECENT_FETCHES), -1)
        ],
    }
    if stopped is not None:
        data["stopped"] = stopped
    return data


def _publish(frontier: Path, name: str, data: object) -> None:
    frontier.mkdir(parents=True, exist_ok=True)
    live_path(frontier, name).write_text(json.dumps(data), encoding="utf-8")


def test_only_the_names_a_crawl_publishes_under_are_read_in_order(tmp_path: Path) -> None:
    frontier = tmp_path / "frontier"
    for name in ["shard-10-of-12", "shard-1-of-2", "crawl", "shard-0-of-2", "shard-2-of-12"]:
        _publish(frontier, name, _state("finished", pages=2, start=100.0, tag=name, stopped="done"))
    for stale in ["shard-2-of-2", "shard-0-of-1", "shard-01-of-2", "shard-x-of-2", "other", "crawl-old"]:
        _publish(frontier, stale, _state("running", pages=2, start=100.0, tag=stale))
    (frontier / ".crawl.live.json.123.tmp").write_text("{", encoding="utf-8")
    _publish(frontier, "shard-3-of-12", [1, 2])  # not an object: no state
    (frontier / "shard-4-of-12.live.json").write_text('{"state": "runn', encoding="utf-8")  # cut short
    found = read_all_live(frontier)
    names = [name for name, _ in found]
    assert names == ["crawl", "shard-0-of-2", "shard-1-of-2", "shard-2-of-12", "shard-10-of-12"]
    assert all(data == read_live(frontier, name) for name, data in found)
    assert read_all_live(tmp_path / "absent") == []
    assert combine([]) is None


def test_a_plain_crawl_alone_is_returned_as_read_live_gives_it(tmp_path: Path) -> None:
    frontier = tmp_path / "frontier"
    _publish(frontier, "crawl", _state("running", pages=5, start=100.0, tag="h"))
    alone = read_live(frontier)
    assert alone is not None and "shards" not in alone
    assert combine(read_all_live(frontier)) == alone
    # an earlier sharded run left its files: the plain crawl published last is the one shown
    _publish(frontier, "shard-0-of-2", _state("finished", pages=3, start=10.0, tag="a", stopped="done"))
    assert combine(read_all_live(frontier)) == read_live(frontier)


def test_shards_are_summed_and_listed(tmp_path: Path) -> None:
    frontier = tmp_path / "frontier"
    first = _state("finished", pages=40, start=100.0, tag="a", hosts=40, stopped="frontier-empty")
    second = _state("running", pages=30, start=200.0, tag="b", hosts=30)
    second["series"].append([135.0, 9.0, 9.0])  # one sample of the second inside the first's run
    second["series"].sort()
    _publish(frontier, "shard-0-of-2", first)
    _publish(frontier, "shard-1-of-2", second)
    _publish(frontier, "crawl", _state("finished", pages=99, start=1.0, tag="old", stopped="done"))
    out = combine(read_all_live(frontier))
    assert out is not None
    assert out["state"] == "running" and "stopped" not in out and out["pid"] == os.getpid()
    assert (out["pages"], out["bytes"], out["requests"], out["pages_total"]) == (70, 70_000, 74, 72)
    assert (out["started"], out["updated"]) == (100.0, 230.0)
    assert out["pages_per_s"] == 1.0 and out["bytes_per_s"] == 1000.0  # the running shard's
    assert out["frontier"] == {"queued": 700, "in_flight": 2}
    hosts = out["hosts"]
    assert (hosts["known"], hosts["active"], hosts["waiting"], hosts["given_up"]) == (70, 2, 68, 0)
    queued = [h["queued"] for h in hosts["top"]]
    assert len(queued) == HOSTS_SHOWN and queued == sorted(queued, reverse=True)
    assert queued[0] == 10 + 39 and hosts["top"][0]["host"] == "a39.test"
    assert out["status_classes"] == {"2xx": 70, "4xx": 2} and out["errors"] == {"timeout": 2}
    assert out["robots"] == {"fetched": 70, "disallowed": 4, "unreachable": 0}
    times = [r["time"] for r in out["recent"]]
    assert len(times) == RECENT_FETCHES and times == sorted(times, reverse=True)
    assert times[0] == 230.0 and out["recent"][0]["url"] == "http://b.test/30"
    series = {row[0]: row[1] for row in out["series"]}
    assert series[135.0] == 1.0 + 9.0  # both shards were publishing then: their rates summed
    assert series[110.0] == 1.0 and series[230.0] == 1.0  # one shard only
    assert [row[0] for row in out["series"]] == sorted(series) and len(series) <= 120
    assert out["shards"] == [
        {
            "name": "shard-0-of-2",
            "state": "finished",
            "pages": 40,
            "pages_per_s": 1.0,
            "queued": 400,
            "stopped": "frontier-empty",
        },
        {
            "name": "shard-1-of-2",
            "state": "running",
            "pages": 30,
            "pages_per_s": 1.0,
            "queued": 300,
            "stopped": None,
        },
    ]


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        (["running", "finished"], "running"),
        (["running", "paused"], "running"),
        (["paused", "paused"], "paused"),
        (["paused", "finished"], "paused"),
        (["paused", "stopping"], "stopping"),
        (["gone", "running"], "running"),
        (["gone", "finished"], "gone"),
        (["finished", "finished"], "finished"),
    ],
)
def test_the_combined_state(states: list[str], expected: str) -> None:
    published = [
        (f"shard-{i}-of-2", _state(s, pages=3, start=100.0 * i, tag=f"s{i}", stopped="done"))
        for i, s in enumerate(states)
    ]
    out = combine(published)
    assert out is not None and out["state"] == expected
    assert [shard["state"] for shard in out["shards"]] == states
    assert ("stopped" in out) == (expected == "finished")


def test_a_file_written_by_hand_with_odd_values_is_read_without_a_crash(tmp_path: Path) -> None:
    frontier = tmp_path / "frontier"
    _publish(frontier, "shard-0-of-2", {"state": "running", "pages": "many", "hosts": [], "series": [[1]]})
    _publish(frontier, "shard-1-of-2", _state("paused", pages=4, start=100.0, tag="b"))
    out = combine(read_all_live(frontier))
    assert out is not None and out["state"] == "running" and out["pages"] == 4
    assert [s["pages"] for s in out["shards"]] == [0, 4]
    assert out["series"] == _state("paused", pages=4, start=100.0, tag="b")["series"]


def test_two_real_shards_one_after_another(tmp_path: Path) -> None:
    web = TestWeb(5, hosts=6, pages=3, special=False, change_rates=(0.0,))
    out = tmp_path / "c"
    pages = []
    seeds = [f"http://h{i}.test/" for i in range(6)]  # hosts of both shards
    with ServerThread(web) as server:
        for shard in range(2):
            settings = CrawlSettings(
                min_delay=0.0,
                delay_factor=0.0,
                resolve=tuple(server.resolve_rules()),
                shard=shard,
                shards=2,
                store_workers=0,
            )
            with Collection.create(out, overrides=PLAIN) as coll:
                pages.append(crawl(seeds, coll, settings).pages)
    found = read_all_live(out / "frontier")
    assert [name for name, _ in found] == ["shard-0-of-2", "shard-1-of-2"]
    combined = combine(found)
    assert combined is not None and combined["state"] == "finished"
    assert all(p > 0 for p in pages) and combined["pages"] == sum(pages)
    assert [s["pages"] for s in combined["shards"]] == pages
    assert combined["bytes"] == sum(data["bytes"] for _, data in found) > 0
    assert combined["status_classes"]["2xx"] == sum(d["status_classes"]["2xx"] for _, d in found)
