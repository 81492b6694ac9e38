"""Revisit scheduling and focused crawling, judged against the test web's ground truth."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from trawl.crawl.crawler import Crawler, CrawlSettings
from trawl.crawl.frontier import Frontier
from trawl.testweb import ServerThread, TestWeb


def test_revisits_follow_the_change_rate_and_use_conditional_get() -> None:
    web = TestWeb(5, hosts=2, pages=4, special=False, change_rates=(0.0, 3.0))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0,
            delay_factor=0.0,
            revisit=True,
            revisit_min=0.15,
            revisit_max=1.5,
            max_seconds=5.0,
            sitemaps=False,
            store=False,
            include=(r"/p/\d+\.html$",),
            resolve=tuple(server.resolve_rules()),
        )
        frontier = Frontier()
        result = asyncio.run(
            Crawler(settings, frontier).run(["http://h0.test/p/0.html", "http://h1.test/p/1.html"])
        )
    visits: dict[float, list[int]] = defaultdict(list)
    for url, fetches in frontier.db.execute("SELECT url, fetches FROM urls WHERE fetches > 0"):
        page = int(url.rsplit("/", 1)[1].split(".")[0])
        visits[web.change_rate("", page)].append(fetches)
    fast = sum(visits[3.0]) / len(visits[3.0])
    still = sum(visits[0.0]) / len(visits[0.0])
    assert fast > 1.8 * still, (fast, still)
    assert result.stats.get("fetch/not-modified") >= 1  # unchanged pages answer 304 to If-None-Match
    assert result.stats.get("revisit/changed") >= 1


def test_focus_fetches_on_topic_pages_first() -> None:
    web = TestWeb(8, hosts=40, pages=18, special=False, change_rates=(0.0,))
    # the topic is "German": function words that German titles (the anchor texts) and texts share
    topic = ("der", "die", "und", "des", "das", "den", "ist", "mit", "von", "zum")

    def on_topic_share(focus: tuple[str, ...]) -> float:
        with ServerThread(web) as server:
            settings = CrawlSettings(
                min_delay=0.0,
                delay_factor=0.0,
                concurrency=4,
                max_pages=120,
                sitemaps=False,
                robots=False,
                store=False,
                focus=focus,
                resolve=tuple(server.resolve_rules()),
            )
            asyncio.run(Crawler(settings, Frontier()).run(web.seeds()))
        fetched = [e for e in server.log if e.target.startswith("/p/")]
        return sum(web.language(e.host) == "de" for e in fetched) / max(1, len(fetched))

    focused, unfocused = on_topic_share(topic), on_topic_share(())
    assert focused > 0.5 and focused > 2 * unfocused, (focused, unfocused)


def test_feeds_are_polled_at_their_ttl() -> None:
    web = TestWeb(6, hosts=1, pages=2, special=True, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0,
            delay_factor=0.0,
            revisit=True,
            revisit_min=0.3,
            revisit_max=0.8,  # the feed's ttl (1 minute) is capped here
            max_seconds=3.0,
            store=False,
            hosts=("news.test",),
            resolve=tuple(server.resolve_rules()),
        )
        result = asyncio.run(Crawler(settings, Frontier()).run(["http://news.test/rss.xml"]))
    polls = [e for e in server.log if e.target == "/rss.xml"]
    assert len(polls) >= 3
    assert all(b.start - a.start >= 0.8 - 0.05 for a, b in itertools.pairwise(polls))
    # each poll read the items, or was told nothing changed (the feed's ETag: conditional GET)
    assert polls[0].status == 200 and {e.status for e in polls} <= {200, 304}
    assert result.stats.get("fetch/not-modified") == sum(e.status == 304 for e in polls) >= 1


def test_a_sitemap_s_changefreq_is_the_revisit_prior(tmp_path: Path) -> None:
    """h0.test's sitemap says its pages change daily: that is their prior change rate (kept in
    the frontier, also across a reopen), so before any visit has shown a change they are due at
    the rate it implies (capped at revisit_max), while a page nothing is known of gets the
    default prior (half of revisit_max)."""
    from trawl.crawl.discovery import CHANGEFREQ_RATE

    web = TestWeb(4, hosts=1, pages=6, special=False, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.1, revisit_max=20.0,
            max_seconds=2.0, store=False, hosts=("h0.test",), resolve=tuple(server.resolve_rules()),
        )  # fmt: skip
        frontier = Frontier(tmp_path / "frontier.sqlite")
        asyncio.run(Crawler(settings, frontier).run(["http://h0.test/sitemap.xml", "http://h0.test/"]))
        frontier.close()
    again = Frontier(tmp_path / "frontier.sqlite")
    rows = {
        url: (prior, due - last)
        for url, prior, due, last in again.db.execute(
            "SELECT url, prior, due, last_fetch FROM urls WHERE state = 3"
        )
    }
    again.close()
    hinted = {u: r for u, r in rows.items() if "/p/" in u and "?" not in u}  # the sitemap's URLs
    assert hinted and all(prior == CHANGEFREQ_RATE["daily"] for prior, _ in hinted.values()), rows
    assert all(abs(wait - 20.0) < 0.5 for _, wait in hinted.values()), hinted  # 12 h, capped at 20 s
    home = rows["http://h0.test/"]
    assert home[0] == 0.0 and abs(home[1] - 10.0) < 0.5, home  # no hint: half of revisit_max


def test_a_frontier_written_before_priors_opens_and_gains_the_column(tmp_path: Path) -> None:
    import sqlite3

    from trawl.crawl.frontier import _SCHEMA

    old = _SCHEMA.replace(",\n    prior REAL NOT NULL DEFAULT 0", "")
    assert "prior REAL" not in old
    db = sqlite3.connect(tmp_path / "old.sqlite")
    db.executescript(old)
    db.execute("INSERT INTO urls (key, url, host) VALUES (1, 'http://a.test/', 'a.test')")
    db.execute("INSERT INTO meta VALUES ('crawl_id', 'abc')")
    db.commit()
    db.close()
    frontier = Frontier(tmp_path / "old.sqlite")
    host = frontier.host("a.test")
    entry = frontier.pop(host)
    assert entry is not None and entry.url == "http://a.test/" and entry.prior == 0.0
    frontier.close()


def test_the_freshness_report_of_a_revisiting_crawl(tmp_path: Path, capsys: object) -> None:
    """Pages that change at a known rate (one host's every 0.5 s, the other's never), revisited
    for a few seconds: the fast host's estimated rate is far above the still one's, its pages
    are less likely unchanged now, and the next revisits are listed soonest first."""
    import json

    from trawl.cli.main import main
    from trawl.jobs.crawl import crawl
    from trawl.store.collection import Collection

    web = TestWeb(5, hosts=2, pages=4, special=False, change_rates=(0.0, 2.0))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.2, revisit_max=1.0,
            max_seconds=5.0, sitemaps=False, include=(r"/p/\d+\.html$", r"/$"),
            resolve=tuple(server.resolve_rules()),
        )  # fmt: skip
        with Collection.create(
            tmp_path / "c", overrides=["extract.enabled=false", "langid.enabled=false"]
        ) as coll:
            crawl(["http://h0.test/p/0.html", "http://h1.test/p/0.html"], coll, settings)
    from trawl.jobs.freshness import freshness

    with Collection.open(tmp_path / "c") as coll:
        report = freshness(coll)
    by_truth: dict[float, list[float]] = defaultdict(list)
    fresh: dict[float, list[float]] = defaultdict(list)
    for page in report.pages:
        if "/p/" in page.url:
            truth = web.change_rate(page.host, int(page.url.rsplit("/", 1)[1].split(".")[0]))
            by_truth[truth].append(page.rate)
            fresh[truth].append(page.fresh_now)
    mean = {k: sum(v) / len(v) for k, v in by_truth.items()}
    assert set(mean) == {0.0, 2.0} and mean[2.0] > 5 * mean[0.0], mean  # the changing pages found out
    assert sum(fresh[2.0]) / len(fresh[2.0]) < sum(fresh[0.0]) / len(fresh[0.0])
    assert main(["freshness", str(tmp_path / "c"), "--json", "--top", "3"]) == 0
    data = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert {"now", "overall", "hosts", "next"} <= set(data)
    assert data["overall"]["pages"] == sum(s["pages"] for s in data["hosts"].values()) > 0
    assert len(data["next"]) <= 3 and [n["due"] for n in data["next"]] == sorted(
        n["due"] for n in data["next"]
    )
    assert main(["freshness", str(tmp_path / "c")]) == 0
    assert "fresh now" in capsys.readouterr().out  # type: ignore[attr-defined]
    if importlib.util.find_spec("matplotlib") is not None:
        assert main(["freshness", str(tmp_path / "c"), "--plot", str(tmp_path / "plots")]) == 0
        assert (tmp_path / "plots" / "freshness.png").stat().st_size > 1000
        assert json.loads((tmp_path / "plots" / "freshness.json").read_text())["overall"]["pages"]


def test_revisit_policies_under_a_budget_live() -> None:
    """Pages that change (once a second) and pages that never do, revisited under a budget of
    12 revisits a second: uniform gives both kinds about as many visits, proportional gives the
    changing ones most of them, and neither spends much more than the budget."""
    web = TestWeb(6, hosts=2, pages=6, special=False, change_rates=(0.0, 1.0))

    def visits(policy: str) -> tuple[dict[float, float], float]:
        with ServerThread(web) as server:
            settings = CrawlSettings(
                min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.05, revisit_max=4.0,
                policy=policy, budget=12.0, max_seconds=6.0, sitemaps=False, store=False,
                include=(r"/p/\d+\.html$",), resolve=tuple(server.resolve_rules()),
            )  # fmt: skip
            asyncio.run(
                Crawler(settings, Frontier()).run(
                    [f"http://h{i}.test/p/{k}.html" for i in range(2) for k in range(6)]
                )
            )
        per: dict[float, list[int]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        fetches = [e for e in server.log if e.target.startswith("/p/")]
        for e in fetches:
            counts[f"{e.host}{e.target}"] += 1
        for page, n in counts.items():
            host, target = page.split("/", 1)
            per[web.change_rate(host, int(target.split("/")[1].split(".")[0]))].append(n - 1)  # revisits
        span = max(e.start for e in fetches) - min(e.start for e in fetches)
        revisits = sum(n - 1 for n in counts.values())
        return {rate: sum(v) / len(v) for rate, v in per.items()}, revisits / max(span, 1e-9)

    uniform, uniform_rate = visits("uniform")
    proportional, proportional_rate = visits("proportional")
    # (here: 7.8 against 3.0 revisits a page; uniform 5.8 against 6.0)
    assert proportional[1.0] > 1.5 * max(proportional[0.0], 0.5), proportional
    assert uniform[1.0] < 2 * uniform[0.0] + 1, uniform  # about as often
    assert uniform_rate < 12.0 * 1.6 and proportional_rate < 12.0 * 1.6, (uniform_rate, proportional_rate)


def test_the_budget_takes_a_unit_and_a_policy_needs_one() -> None:
    from trawl.cli.crawl import settings_from
    from trawl.cli.main import build_parser, main
    from trawl.errors import ConfigError

    parser = build_parser("crawl")
    args = parser.parse_args(["crawl", "http://x.test/", "-o", "c", "--revisit", "--policy", "optimal",
                              "--budget", "8640/day"])  # fmt: skip
    settings = settings_from(args)
    assert (settings.policy, settings.budget) == ("optimal", 0.1)
    settings.check()
    bad = parser.parse_args(["crawl", "http://x.test/", "-o", "c", "--revisit", "--policy", "uniform"])
    try:
        settings_from(bad).check()
    except ConfigError as exc:
        assert "needs a positive budget" in str(exc)
    else:
        raise AssertionError("a policy without a budget was accepted")
    assert main(["crawl", "http://x.test/", "-o", "c", "--budget", "5/week"]) == 2


def test_a_changed_ad_or_timestamp_is_no_change(tmp_path: Path) -> None:
    """Pages that never change, served with a timestamp and a rotating ad (every response's
    bytes differ), revisited without conditional GET: the revisits compare the main content,
    so they find the pages unchanged and their estimated rates stay at the prior."""
    from trawl.jobs.crawl import crawl
    from trawl.store.collection import Collection

    web = TestWeb(3, hosts=1, pages=4, special=False, change_rates=(0.0,), noisy=True)
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.2, revisit_max=0.4,
            conditional=False, max_seconds=3.0, sitemaps=False, include=(r"/p/\d+\.html$",),
            resolve=tuple(server.resolve_rules()), store_workers=0,
        )  # fmt: skip
        with Collection.create(tmp_path / "c", overrides=["langid.enabled=false"]) as coll:
            result = crawl([f"http://h0.test/p/{k}.html" for k in range(4)], coll, settings)
        bodies = [e for e in server.log if e.target.startswith("/p/")]
    assert len(bodies) > 8  # revisited, and every answer a full body (no 304)
    assert result.stats.get("revisit/unchanged") >= 4, result.stats.prefix("revisit/")
    assert result.stats.get("revisit/changed") == 0, result.stats.prefix("revisit/")


def test_policy_metric_and_weights_from_the_command_line() -> None:
    from trawl.cli.crawl import settings_from
    from trawl.cli.main import build_parser
    from trawl.errors import ConfigError

    parser = build_parser("crawl")
    args = parser.parse_args(
        ["crawl", "http://x.test/", "-o", "c", "--revisit", "--policy", "optimal", "--budget", "2/s",
         "--policy-metric", "age", "--policy-weights", "inlinks"]
    )  # fmt: skip
    settings = settings_from(args)
    settings.check()
    assert (settings.policy_metric, settings.policy_weights) == ("age", "inlinks")
    assert (CrawlSettings().policy_metric, CrawlSettings().policy_weights) == ("freshness", "none")
    for bad in ({"policy_metric": "staleness"}, {"policy_weights": "pagerank"}):
        try:
            CrawlSettings(**bad).check()  # type: ignore[arg-type]
        except ConfigError as exc:
            assert next(iter(bad.values())) in str(exc)
        else:
            raise AssertionError(f"{bad} was accepted")


def test_in_links_weigh_the_optimal_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``policy_weights="inlinks"`` the optimal policy is solved with each page's weight
    1 + log(1 + in-links seen), the page every other links to weighing most; unweighted, with
    none (what the weights do to the solution is tested in test_revisit_policies)."""
    import math

    from trawl.crawl import crawler as crawler_module

    web = TestWeb(6, hosts=1, pages=8, special=False, change_rates=(1.0,))
    calls: list[tuple[list[float], list[float] | None, str]] = []
    solve = crawler_module.policy_frequencies

    def spy(rates: list[float], budget: float, policy: str, **kw: Any) -> list[float]:
        calls.append((rates, kw.get("weights"), kw.get("metric", "")))
        return solve(rates, budget, policy, **kw)

    monkeypatch.setattr(crawler_module, "policy_frequencies", spy)

    def crawl(weights: str) -> Crawler:
        calls.clear()
        with ServerThread(web) as server:
            settings = CrawlSettings(
                min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.05, revisit_max=4.0,
                policy="optimal", budget=4.0, max_seconds=2.5, sitemaps=False, store=False,
                policy_weights=weights, policy_metric="age", include=(r"/p/\d+\.html$",),
                resolve=tuple(server.resolve_rules()),
            )  # fmt: skip
            crawler = Crawler(settings, Frontier())
            asyncio.run(crawler.run(["http://h0.test/p/0.html"]))
        return crawler

    weighted = crawl("inlinks")
    assert calls and all(metric == "age" for _, _, metric in calls)
    links = weighted._inlinks
    assert links and max(links.values()) >= 2, links
    rates, weights, _ = calls[-1]
    assert weights is not None and len(weights) == len(rates)
    expected = sorted(1.0 + math.log1p(links.get(k, 0)) for k in weighted._rates)
    assert sorted(weights) == pytest.approx(expected)
    assert max(weights) > min(weights)
    crawl("none")
    assert calls and all(w is None for _, w, _ in calls)


def test_a_user_function_weighs_the_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``policy_weights = "MODULE:FUNCTION"``: the function of each page's URL is its weight in
    the optimal policy; a function that fails or answers nonsense costs that page weight 1,
    counted; one that cannot be loaded is a clear error before the crawl."""
    from trawl.crawl import crawler as crawler_module
    from trawl.errors import ConfigError

    (tmp_path / "myweights.py").write_text(
        "def weigh(url):\n"
        "    if url.endswith('/p/0.html'):\n"
        "        return 8.0\n"
        "    if url.endswith('/p/1.html'):\n"
        "        raise ValueError('no weight for this one')\n"
        "    if url.endswith('/p/2.html'):\n"
        "        return float('nan')\n"
        "    return 1.0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    web = TestWeb(6, hosts=1, pages=5, special=False, change_rates=(1.0,))
    calls: list[list[float] | None] = []
    solve = crawler_module.policy_frequencies

    def spy(rates: list[float], budget: float, policy: str, **kw: Any) -> list[float]:
        calls.append(kw.get("weights"))
        return solve(rates, budget, policy, **kw)

    monkeypatch.setattr(crawler_module, "policy_frequencies", spy)
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.05, revisit_max=4.0,
            policy="optimal", budget=4.0, max_seconds=2.5, sitemaps=False, store=False,
            policy_weights="myweights:weigh", include=(r"/p/[0-4]\.html$",),
            resolve=tuple(server.resolve_rules()),
        )  # fmt: skip
        settings.check()
        crawler = Crawler(settings, Frontier())
        result = asyncio.run(crawler.run([f"http://h0.test/p/{i}.html" for i in range(5)]))
    weights = calls[-1]
    assert weights is not None and sorted(weights) == [1.0, 1.0, 1.0, 1.0, 8.0]
    assert result.stats.get("revisit/weight-error") == 1 and result.stats.get("revisit/bad-weight") == 1
    for bad in ("myweights:nothing", "no_such_module_here:weigh"):
        with pytest.raises(ConfigError, match="cannot be loaded"):
            Crawler(CrawlSettings(policy_weights=bad), Frontier())
    with pytest.raises(ConfigError, match="MODULE:FUNCTION"):
        CrawlSettings(policy_weights="weigh it").check()
