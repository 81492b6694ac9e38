"""Shards of one crawl: hosts dealt by a consistent-hash ring, URLs routed between shards (files,
in-process queues), judged from the test web's request logs."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from trawl.crawl.crawler import Crawler, CrawlResult, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.crawl.route import FileRouter, QueueRouter, Router
from trawl.crawl.urlnorm import HashRing, shard_of
from trawl.errors import ConfigError
from trawl.testweb import LogEntry, ServerThread, TestWeb

HOSTS = [f"site{i}.example-{i % 97}.org" for i in range(10_000)]


def test_a_ring_moves_a_share_of_hosts_only_to_the_new_shard() -> None:
    before = [HashRing(1).owner(h) for h in HOSTS]
    for n in range(1, 9):
        ring = HashRing(n + 1)
        after = [ring.owner(h) for h in HOSTS]
        moved = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
        assert all(b == n for _a, b in moved), f"{n} -> {n + 1}: a host moved between old shards"
        share = len(moved) / len(HOSTS)
        assert abs(share - 1 / (n + 1)) <= 0.25 / (n + 1), (n, share)
        before = after
    # hash mod N, for contrast, moves most hosts from 8 to 9 shards
    mod_moved = sum(shard_of(h, 8) != shard_of(h, 9) for h in HOSTS) / len(HOSTS)
    assert mod_moved > 0.8


@pytest.mark.parametrize("shards", range(2, 10))
def test_a_ring_of_128_vnodes_spreads_hosts_evenly(shards: int) -> None:
    ring = HashRing(shards)
    shares = ring.shares()
    assert sum(shares) == pytest.approx(1.0)
    # the ring itself: each shard's arc, the load a uniform hash of hosts gives it
    assert all(abs(share * shards - 1) <= 0.2 for share in shares), shares
    # 10,000 hosts: that load, give or take the sampling's noise (three binomial deviations)
    load = Counter(ring.owner(h) for h in HOSTS)
    mean = len(HOSTS) / shards
    noise = 3 * math.sqrt(mean * (1 - 1 / shards)) / mean
    assert sorted(load) == list(range(shards))
    assert all(abs(count - mean) <= (0.2 + noise) * mean for count in load.values()), load
    assert all(abs(load[i] / len(HOSTS) - shares[i]) * shards <= noise for i in range(shards))


def test_a_ring_is_the_same_in_every_process() -> None:
    hosts = HOSTS[:50]
    ring = HashRing(7)
    code = (
        "import sys; from trawl.crawl.urlnorm import HashRing; r = HashRing(7); "
        "print(' '.join(str(r.owner(h)) for h in sys.argv[1:]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # Python's own hash would differ
    out = subprocess.run(
        [sys.executable, "-c", code, *hosts], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split() == [str(ring.owner(h)) for h in hosts]
    assert ring.owner("Site1.Example-1.org") == ring.owner("site1.example-1.org")
    with pytest.raises(ValueError, match="at least one shard"):
        HashRing(0)


def test_partition_is_checked_and_saved() -> None:
    with pytest.raises(ConfigError, match="partition is mod or ring, not 'modulo'"):
        CrawlSettings(partition="modulo").check()
    with pytest.raises(ConfigError, match="route_interval"):
        CrawlSettings(route_interval=0).check()
    settings = CrawlSettings(shard=1, shards=3, partition="ring")
    assert CrawlSettings.from_dict(settings.as_dict()).partition == "ring"
    assert CrawlSettings.from_dict({"shards": 3}).partition == "mod"  # a crawl saved before the ring


def test_the_owner_function_follows_the_partition() -> None:
    hosts = [f"h{i}.test" for i in range(40)]
    ring = HashRing(3)
    for partition, owner in (("mod", lambda h: shard_of(h, 3)), ("ring", ring.owner)):
        routers = QueueRouter.mesh(3)
        crawler = Crawler(CrawlSettings(shards=3, partition=partition), Frontier(), router=routers[0])
        kept = {e.host for h in hosts if (e := crawler.admit(f"http://{h}/", depth=0, priority=1.0))}
        assert kept == {h for h in hosts if owner(h) == 0}
        for j in (1, 2):
            assert {u.split("/")[2] for u, *_ in routers[j].receive()} == {h for h in hosts if owner(h) == j}
        assert crawler.stats.counters["shard/routed"] == len(hosts) - len(kept)
    assert any(shard_of(h, 3) != ring.owner(h) for h in hosts)  # the two partitions differ


def test_file_router_keeps_its_offsets_in_the_frontier(tmp_path: Path) -> None:
    inbox = tmp_path / "frontier"
    sender = FileRouter(inbox, 0, Frontier())
    sender.send(1, "http://a.test/x", 2, 1.5, "an\tanchor\nwith breaks")
    sender.send(1, "http://b.test/", 0, 10.0, "")
    assert not (inbox / "route-0-to-1.tsv").exists() or FileRouter(inbox, 1, Frontier()).receive() == []
    sender.flush()
    with (inbox / "route-0-to-1.tsv").open("a", encoding="utf-8") as fh:
        fh.write(
            "not a routed line\nhttp://c.test/\tx\t1\t\nhttp://d.test/\t1\t1.0\tcut sho"
        )  # bad, bad, torn
    path = tmp_path / "shard-1.sqlite"
    frontier = Frontier(path)
    receiver = FileRouter(inbox, 1, frontier)
    assert receiver.receive() == [
        ("http://a.test/x", 2, 1.5, "an anchor with breaks"),
        ("http://b.test/", 0, 10.0, ""),
    ]
    assert receiver.stats.counters["shard/bad-line"] == 2
    assert receiver.receive() == []  # read once, though its offset is not kept yet
    assert FileRouter(inbox, 1, Frontier(path)).receive()  # ...so a kill now reads them again
    receiver.flush()
    with (inbox / "route-0-to-1.tsv").open("a", encoding="utf-8") as fh:
        fh.write("rt\n")  # the torn line's end
    receiver.close()
    frontier.close()
    again = FileRouter(inbox, 1, Frontier(path))
    assert again.receive() == [("http://d.test/", 1, 1.0, "cut short")]
    assert FileRouter(inbox, 0, Frontier()).receive() == []  # nothing was sent to shard 0


def test_queue_routers_agree_on_the_end() -> None:
    a, b = QueueRouter.mesh(2)
    assert not a.done(True)  # b has not said it is idle
    b.send(0, "http://x.test/", 1, 1.0, "x")
    assert not b.done(True)  # a URL is on its way to a
    assert a.receive() == [("http://x.test/", 1, 1.0, "x")]
    assert not b.done(True)  # a is busy with it now (receive said so in the same breath)
    assert a.done(True) and b.done(True)
    c, d = QueueRouter.mesh(2)
    c.close()  # a shard that stopped (a limit): the other does not wait for it
    d.send(0, "http://y.test/", 1, 1.0, "")
    assert d.done(True) and len(d.pending(0)) == 1
    with pytest.raises(ValueError, match="shard 2"):
        d.send(2, "http://z.test/", 0, 1.0, "")


def test_two_shards_in_one_process_fetch_every_page_once(tmp_path: Path) -> None:
    """Two crawlers in two threads, each with a server of its own serving the same web (so each
    server's log is one shard's requests), cross-wired by QueueRouters, hosts dealt by the ring;
    only shard 0 has the seeds, so shard 1 lives on what shard 0 sends it."""
    web = TestWeb(5, hosts=10, pages=4, special=False, change_rates=(0.0,))
    base = CrawlSettings(min_delay=0.0, delay_factor=0.0, store=False, read_timeout=5.0, total_timeout=10.0)

    def run_alone() -> set[tuple[str, str]]:
        with ServerThread(web) as server:
            settings = dataclasses.replace(base, resolve=tuple(server.resolve_rules()))
            asyncio.run(Crawler(settings, Frontier()).run(web.seeds()))
            return {(e.host, e.target) for e in server.log}

    expected = run_alone()
    routers: list[Router] = list(QueueRouter.mesh(2))
    results: list[CrawlResult | BaseException] = [RuntimeError("not run")] * 2
    with ServerThread(web) as s0, ServerThread(web) as s1:
        servers = [s0, s1]

        def shard(i: int) -> None:
            rules = tuple(servers[i].resolve_rules())
            settings = dataclasses.replace(base, resolve=rules, shard=i, shards=2, partition="ring")
            try:
                crawler = Crawler(settings, Frontier(), router=routers[i])
                results[i] = asyncio.run(crawler.run(web.seeds() if i == 0 else []))
            except BaseException as exc:  # said by the assertion below
                results[i] = exc

        threads = [threading.Thread(target=shard, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads), "a shard never ended"
        logs: list[list[LogEntry]] = [list(s0.log), list(s1.log)]
    assert all(isinstance(r, CrawlResult) for r in results), results
    ring = HashRing(2)
    fetched = Counter((e.host, e.target) for log in logs for e in log)
    assert set(fetched) == expected  # every page the single crawl fetched...
    assert all(n == 1 for n in fetched.values()), [k for k, n in fetched.items() if n > 1]  # ...once
    for i, log in enumerate(logs):
        assert log, f"shard {i} fetched nothing"
        assert {e.host for e in log} <= {h for h in web.host_names() if ring.owner(h) == i}  # only its own
    done = [r for r in results if isinstance(r, CrawlResult)]
    assert done[0].stats.counters["shard/routed"] > 0 and done[1].stats.counters["shard/routed"] > 0
    assert done[1].stats.counters["shard/imported"] > 0
