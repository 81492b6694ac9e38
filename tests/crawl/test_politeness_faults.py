"""Politeness under faults, checked from the test web server's own request log: a host that slows
down, errors, resets, hangs or answers 429/503 is asked less often, never more; one that keeps
failing is given up for the run with its URLs left queued; healthy hosts beside them are not
slowed.

One crawl (a module fixture, ~6 s) meets every fault host of :data:`trawl.testweb.FAULT_KINDS`
at once, beside a healthy host; each test reads what the server saw of one fault. The rules the
log is held to are the crawler's documented ones (docs/design.md, "Politeness under faults"),
replayed over the log: after the n-th fault in a row the gap is at least
``max(min_delay, backoff_base) x 2^n`` (capped), each good answer halves it again.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from trawl.crawl.crawler import Crawler, CrawlResult, CrawlSettings
from trawl.crawl.frontier import QUEUED, Frontier
from trawl.testweb import FAULT_KINDS, LogEntry, TestWeb, TestWebServer

FAULT_AFTER = 4  # healthy page requests of each fault host before its fault begins
SEEDS = 16  # pages seeded on each host
SLACK = 0.01  # clock granularity and the loop's own turns, in seconds
SLOW = 0.1  # slow.fault.test's answers, once slow: gaps of delay_factor x this follow
HEALTHY = "h0.test"
# hosts that never recover: given up after max_host_faults faults in a row
FOREVER = ("500", "502", "504", "503", "503-retry", "429", "429-retry", "hang", "reset")


def _settings(hosts: tuple[str, ...], resolve: list[str]) -> CrawlSettings:
    return CrawlSettings(
        min_delay=0.02,
        delay_factor=2.0,
        backoff_base=0.05,  # gaps 0.1, 0.2, 0.4 after 1, 2, 3 faults in a row
        max_backoff=0.4,
        max_host_faults=5,
        max_retries=2,
        read_timeout=0.3,
        total_timeout=1.0,
        connect_timeout=0.5,
        concurrency=32,
        store=False,
        hosts=hosts,
        resolve=tuple(resolve),
    )


@dataclass
class Crawl:
    result: CrawlResult
    log: dict[str, list[LogEntry]]  # host -> its page requests (robots.txt left out), by start
    robots: dict[str, int]  # host -> its robots.txt requests
    frontier: Frontier
    settings: CrawlSettings
    seeds: dict[str, list[str]]


def _fault_host(kind: str) -> str:
    return f"{kind}.fault.test"


def _by_host(log: list[LogEntry]) -> dict[str, list[LogEntry]]:
    out: dict[str, list[LogEntry]] = defaultdict(list)
    for e in log:
        if e.target != "/robots.txt":
            out[e.host.split(":")[0]].append(e)
    for entries in out.values():
        entries.sort(key=lambda e: e.start)
    return out


def _gaps(entries: list[LogEntry]) -> list[float]:
    return [b.start - a.end for a, b in itertools.pairwise(entries)]


def _is_fault(e: LogEntry) -> bool:
    return e.status in {0, 429} or e.status >= 500  # 0: reset, or no answer in time


def _backoff(s: CrawlSettings, level: int) -> float:
    return min(s.max_backoff, max(s.min_delay, s.backoff_base) * 2.0**level)


def _required_gaps(s: CrawlSettings, entries: list[LogEntry], retry_after: float) -> list[float]:
    """The least gap after each request but the last, by the politeness rules replayed over the
    server's log (the response time as the server saw it: no longer than the crawler's)."""
    top = next(n for n in range(1, 65) if _backoff(s, n) >= s.max_backoff)
    level, out = 0, []
    for e in entries[:-1]:
        least = max(s.min_delay, s.delay_factor * (e.end - e.start))
        if _is_fault(e):
            level = min(level + 1, top)
            if e.status in (429, 503):
                least = max(least, retry_after)
        else:
            level = max(0, level - 1)
        out.append(max(least, _backoff(s, level)) if level else least)
    return out


async def _crawl(web: TestWeb, frontier: Frontier, seeds: list[str], hosts: tuple[str, ...]) -> Crawl:
    # server and crawler in one event loop: the server's clock cannot lag behind the crawler's
    async with TestWebServer(web) as server:
        settings = _settings(hosts, server.resolve_rules())
        result = await Crawler(settings, frontier).run(seeds)
        log = list(server.log)
    grouped: dict[str, list[str]] = defaultdict(list)
    for url in seeds:
        grouped[url.split("/")[2]].append(url)
    robots: dict[str, int] = defaultdict(int)
    for e in log:
        if e.target == "/robots.txt":
            robots[e.host.split(":")[0]] += 1
    return Crawl(result, _by_host(log), dict(robots), frontier, settings, dict(grouped))


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    web = TestWeb(5, hosts=1, pages=SEEDS, change_rates=(0.0,), slow_seconds=SLOW, fault_after=FAULT_AFTER)
    hosts = (HEALTHY, "robots5xx.test", *(_fault_host(k) for k in FAULT_KINDS))
    seeds = [f"http://{h}/p/{i}.html" for h in hosts for i in range(SEEDS)]
    frontier = Frontier(tmp_path_factory.mktemp("faults") / "frontier.sqlite")
    return asyncio.run(_crawl(web, frontier, seeds, hosts))


def _queued(frontier: Frontier, host: str) -> set[str]:
    frontier.flush()
    rows = frontier.db.execute("SELECT url FROM urls WHERE host = ? AND state = ?", (host, QUEUED))
    return {str(r[0]) for r in rows}


def test_fault_hosts_are_tested_here() -> None:
    assert set(FAULT_KINDS) == {*FOREVER, "slow", "flaky", "blip"}


@pytest.mark.parametrize("kind", FOREVER)
def test_a_failing_host_is_asked_less_often_then_given_up(crawled: Crawl, kind: str) -> None:
    s, host = crawled.settings, _fault_host(kind)
    entries = crawled.log[host]
    healthy, faulty = entries[:FAULT_AFTER], entries[FAULT_AFTER:]
    assert all(not _is_fault(e) for e in healthy) and all(_is_fault(e) for e in faulty), [
        e.status for e in entries
    ]
    # bounded: given up at the max_host_faults-th fault in a row, not one request more
    assert len(faulty) == s.max_host_faults, [e.status for e in entries]
    gaps = _gaps(entries)
    retry_after = 1.0 if kind.endswith("-retry") else 0.0
    for i, (gap, least) in enumerate(zip(gaps, _required_gaps(s, entries, retry_after), strict=True)):
        assert gap >= least - SLACK, (i, gap, least, [e.status for e in entries])
    # after each fault, at least the back-off of that many faults in a row (and the Retry-After)
    after_fault = gaps[FAULT_AFTER:]
    for n, gap in enumerate(after_fault, 1):
        assert gap >= max(_backoff(s, n), retry_after) - SLACK, (n, gap)
    # the rate falls once the fault begins, below the healthy host's in the same crawl
    before = statistics.mean(gaps[: FAULT_AFTER - 1])
    assert statistics.mean(after_fault) > 2 * before
    assert statistics.mean(after_fault) > 2 * statistics.mean(_gaps(crawled.log[HEALTHY]))
    # the URLs not asked for stay queued for the next run: none lost, none marked done
    asked = {f"http://{host}{e.target}" for e in entries}
    queued = _queued(crawled.frontier, host)
    assert len(queued) >= SEEDS - len(entries)
    assert set(crawled.seeds[host]) - queued <= asked  # finished: only those asked for


def test_the_given_up_hosts_are_counted(crawled: Crawl) -> None:
    c = crawled.result.stats
    assert c.get("fetch/host-given-up") == len(FOREVER)
    assert {h for h, counts in crawled.result.per_host.items() if counts.get("given-up")} == {
        _fault_host(k) for k in FOREVER
    }
    queued = sum(len(_queued(crawled.frontier, _fault_host(k))) for k in FOREVER)
    assert c.get("crawl/deferred-urls") == queued > 0
    assert crawled.result.stopped == "done"
    # one counter for each reaction
    for kind in ("5xx", "429", "503", "timeout", "protocol"):
        assert c.get(f"politeness/backoff/{kind}") >= crawled.settings.max_host_faults, kind
    assert c.get("politeness/retry-after") >= 2 * crawled.settings.max_host_faults
    assert c.get("fetch/backoff/429") >= 2 * crawled.settings.max_host_faults  # the older counter
    assert c.get("politeness/slowed") >= SEEDS - FAULT_AFTER
    assert c.get("politeness/recovering") >= 1


def test_the_healthy_host_is_not_slowed(crawled: Crawl) -> None:
    s = crawled.settings
    entries = crawled.log[HEALTHY]
    assert len(entries) >= SEEDS and all(e.status == 200 for e in entries)
    gaps = _gaps(entries)
    assert min(gaps) >= s.min_delay - SLACK
    # not held back by the faults around it: its gaps are the minimum's, not a back-off's
    assert statistics.median(gaps) < _backoff(s, 1)
    assert not _queued(crawled.frontier, HEALTHY)


def test_a_host_slowing_down_is_asked_less_often_from_its_first_slow_answer(crawled: Crawl) -> None:
    s = crawled.settings
    entries = crawled.log[_fault_host("slow")]
    assert len(entries) == SEEDS  # slow is no fault: every page is fetched
    gaps = _gaps(entries)
    slow = [e.end - e.start >= SLOW - SLACK for e in entries]
    assert slow.index(True) == FAULT_AFTER
    # the gap after every slow answer (the first one included) is delay_factor x its time
    for i, gap in enumerate(gaps[FAULT_AFTER:], FAULT_AFTER):
        assert gap >= s.delay_factor * SLOW - SLACK, (i, gap)
    assert statistics.mean(gaps[FAULT_AFTER:]) > 2 * statistics.mean(gaps[: FAULT_AFTER - 1])


def test_a_host_whose_errors_come_and_go_is_slowed_not_given_up(crawled: Crawl) -> None:
    s = crawled.settings
    entries = crawled.log[_fault_host("flaky")]
    assert len(entries) == SEEDS  # no two faults in a row: never given up
    assert [_is_fault(e) for e in entries[FAULT_AFTER:]] == [i % 2 == 0 for i in range(SEEDS - FAULT_AFTER)]
    gaps = _gaps(entries)
    for i, (gap, least) in enumerate(zip(gaps, _required_gaps(s, entries, 0.0), strict=True)):
        assert gap >= least - SLACK, (i, gap, least)
    # asked less often (half the gaps are back-offs: the other half at full speed)
    assert statistics.mean(gaps[FAULT_AFTER:]) > statistics.mean(gaps[: FAULT_AFTER - 1])
    assert not _queued(crawled.frontier, _fault_host("flaky"))


def test_a_recovered_host_comes_back_to_speed_gradually(crawled: Crawl) -> None:
    s = crawled.settings
    entries = crawled.log[_fault_host("blip")]
    assert len(entries) == SEEDS
    blip = 3  # TestWeb's fault_blip
    assert [_is_fault(e) for e in entries] == [FAULT_AFTER <= i < FAULT_AFTER + blip for i in range(SEEDS)]
    gaps = _gaps(entries)
    for i, (gap, least) in enumerate(zip(gaps, _required_gaps(s, entries, 0.0), strict=True)):
        assert gap >= least - SLACK, (i, gap, least)
    recovered = FAULT_AFTER + blip  # the first good answer after the faults
    # not at full speed at the first good answer: the back-off halves with each one...
    assert gaps[recovered] >= _backoff(s, blip - 1) - SLACK
    assert gaps[recovered + 1] >= _backoff(s, blip - 2) - SLACK
    # ...and is gone after as many good answers as there were faults
    assert statistics.median(gaps[recovered + blip :]) < _backoff(s, 1)


def test_a_host_whose_robots_txt_answers_503_is_not_crawled(crawled: Crawl) -> None:
    assert crawled.robots["robots5xx.test"] == 1 and "robots5xx.test" not in crawled.log
    assert crawled.result.stats.get("drop/robots/5xx") >= SEEDS  # its seeds, and h0.test's link


def test_a_given_up_host_is_crawled_by_the_next_run(crawled: Crawl, tmp_path: Path) -> None:
    """The frontier of the crawl above, resumed against the same web with no faults left."""
    path = tmp_path / "frontier.sqlite"  # a copy: the other tests read the first run's
    crawled.frontier.flush()
    with sqlite3.connect(path) as copy:
        crawled.frontier.db.backup(copy)
    deferred = {k: _queued(crawled.frontier, _fault_host(k)) for k in ("500", "reset")}
    web = TestWeb(5, hosts=1, pages=SEEDS, change_rates=(0.0,), fault_after=10**6)  # no faults left
    hosts = tuple(_fault_host(k) for k in FOREVER)
    again = asyncio.run(_crawl(web, Frontier(path), [], hosts))
    for kind, urls in deferred.items():
        host = _fault_host(kind)
        assert urls and {f"http://{host}{e.target}" for e in again.log[host]} == urls
        assert all(e.status == 200 for e in again.log[host])
        assert not _queued(again.frontier, host)
    assert again.result.stats.get("fetch/host-given-up") == 0
    again.frontier.close()


@pytest.mark.slow
def test_the_defaults_back_off_in_seconds() -> None:
    """With the shipped defaults (min_delay 1 s, backoff_base 1 s): gaps of 2, 4, 8 s after 1, 2,
    3 faults in a row, while a healthy host goes on at 1 s (~17 s: deselected by default)."""
    web = TestWeb(5, hosts=1, pages=SEEDS, change_rates=(0.0,), fault_after=1)
    kinds = ("500", "hang", "429-retry")
    hosts = (HEALTHY, *(_fault_host(k) for k in kinds))

    async def main() -> list[LogEntry]:
        async with TestWebServer(web) as server:
            settings = CrawlSettings(
                hosts=hosts,
                resolve=tuple(server.resolve_rules()),
                store=False,
                read_timeout=0.5,
                max_seconds=17.0,  # 1 + 2 + 4 + 8 s, and the timeouts
            )
            seeds = [f"http://{h}/p/{i}.html" for h in hosts for i in range(6)]
            result = await Crawler(settings, Frontier()).run(seeds)
            assert result.stopped == "max-seconds"
            return list(server.log)

    log = _by_host(asyncio.run(main()))
    for kind in kinds:
        entries = log[_fault_host(kind)]
        gaps = _gaps(entries)
        assert len(entries) >= 4, (kind, [e.status for e in entries])
        for n, gap in enumerate(gaps[1:4], 1):
            assert gap >= max(2.0**n, 1.0 if kind.endswith("-retry") else 0.0) - SLACK, (kind, n, gaps)
    healthy = _gaps(log[HEALTHY])
    assert len(healthy) >= 10 and min(healthy) >= 1.0 - SLACK and statistics.median(healthy) < 2.0
