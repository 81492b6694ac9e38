"""Focused crawling: the topic model, and a live crawl of a topical test web against breadth-first."""

from __future__ import annotations

from pathlib import Path

import pytest

from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.focus import RELEVANT, TopicModel, read_examples, words
from trawl.errors import ConfigError
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb
from trawl.testweb.site import TOPICS

COOKING = "Simmer the garlic and onion in butter, then whisk in the flour and bake the dough in the oven."
FOOTBALL = "The striker scored a penalty after the referee saw the tackle; the goalkeeper had no chance."
PLAIN = "People often think about the world, their family and friends, and the work they do every day."


def test_words_are_lower_cased_and_three_letters_or_more() -> None:
    assert words("The OVEN, a pot and 2 eggs") == ["the", "oven", "pot", "and", "eggs"]


def test_terms_make_a_topic_and_pages_are_judged_by_it() -> None:
    model = TopicModel(["recipe", "oven flour", "garlic"])
    assert model.terms == ("recipe", "oven", "flour", "garlic")
    assert model.relevance(COOKING) > RELEVANT > model.relevance(FOOTBALL)
    assert model.relevance("") == 0.0
    # a link's own words count, and so does the page it was found on
    assert model.link_score("Garlic bread recipe", "http://x/recipes/garlic", 0.5) > model.link_score(
        "League table", "http://x/sport/league", 0.5
    )
    assert model.link_score("Contact", "http://x/c", 1.0) > model.link_score("Contact", "http://x/c", 0.0)


def test_the_model_learns_the_topic_and_the_web_from_what_it_fetches() -> None:
    model = TopicModel(["oven", "garlic"])
    before = model.llr("whisk")
    for _ in range(5):
        assert model.learn(COOKING) >= RELEVANT  # on topic: its words teach the topic
        assert model.learn(FOOTBALL) < RELEVANT  # off topic: only the background
    assert model.llr("whisk") > before  # a word of on-topic pages now says "topic"
    assert model.llr("striker") < 0  # a word of the off-topic ones says the opposite
    assert abs(model.llr("the")) < model.llr("whisk")  # words of every page say little
    assert model.pages == 10 and model.relevant == 5 and model.harvest_rate == 0.5


def test_example_pages_alone_make_a_topic(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        f"<html><body><article><p>{COOKING}</p><p>{COOKING}</p></article></body></html>"
    )
    (tmp_path / "b.txt").write_text(COOKING.upper(), encoding="utf-16")
    texts = read_examples(tmp_path)
    assert len(texts) == 2
    model = TopicModel(examples=texts)
    assert model.examples == 2
    # the examples' common words ("the", "and") look topical until the crawl has seen the web
    for _ in range(3):
        model.learn(PLAIN)
    assert model.relevance(COOKING) > RELEVANT > model.relevance(FOOTBALL)
    with pytest.raises(ValueError, match="at least one term"):
        TopicModel(examples=["", "12 34"])
    with pytest.raises(FileNotFoundError):
        read_examples(tmp_path / "missing")


def test_settings_refuse_a_bad_threshold_or_examples_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="focus_threshold"):
        CrawlSettings(focus=("x",), focus_threshold=1.5).check()
    with pytest.raises(ConfigError, match="focus_examples"):
        CrawlSettings(focus_examples=str(tmp_path / "nope")).check()


def _harvest(web: TestWeb, coll: Collection, topic: str) -> tuple[int, int]:
    pages = on = 0
    for record in coll.records():
        if record.capture and "/p/" in record.url:
            pages += 1
            on += web.topic(record.url.split("/")[2]) == topic
    return pages, on


def _crawl(web: TestWeb, rules: list[str], path: Path, **focus: object) -> tuple[int, int, dict[str, int]]:
    settings = CrawlSettings(
        min_delay=0.0, delay_factor=0.0, concurrency=8, max_pages=80, resolve=tuple(rules),
        sitemaps=False, feeds=False, store_workers=0, **focus,  # type: ignore[arg-type]
    )  # fmt: skip
    with Collection.create(path) as coll:
        result = crawl(web.seeds(), coll, settings)
        pages, on = _harvest(web, coll, "cooking")
    return pages, on, result.stats.counters


def test_a_focused_crawl_finds_its_topic_and_prunes_what_is_far_from_it(tmp_path: Path) -> None:
    # four subjects, each host linking mostly to its own; the seed h0.test writes about astronomy
    web = TestWeb(3, hosts=40, pages=10, special=False, topics=4, change_rates=(0.0,))
    with ServerThread(web) as server:
        rules = server.resolve_rules()
        bfs_pages, bfs_on, _ = _crawl(web, rules, tmp_path / "bfs")
        pages, on, counters = _crawl(web, rules, tmp_path / "focus", focus=tuple(TOPICS["cooking"][:4]))
        _, pruned_on, pruned = _crawl(
            web, rules, tmp_path / "prune", focus=tuple(TOPICS["cooking"][:4]), focus_threshold=0.3
        )
    assert bfs_pages > 40 and pages > 40
    # the harvest rate well above breadth-first's (bench/focus.py: 3.7x on a web of 400 hosts)
    assert on / pages >= 1.5 * bfs_on / bfs_pages
    assert counters["focus/pages"] > 40 and counters["focus/relevant"] > 0
    assert pruned.get("focus/pruned", 0) > 0  # counted, with their score
    assert any(k.startswith("focus/pruned-score/") for k in pruned)
    assert pruned_on > 0
