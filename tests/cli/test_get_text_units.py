"""``trawl ingest`` of a folder of HTML and text with passages and FAQ pairs on, then ``trawl get`` of
a unit, ``--children`` and ``--parent``; ``trawl dedup`` leaves the passages out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.units.test_passages import ENGLISH, ENGLISH_MORE
from trawl.cli.main import main

FAQ = """<html><head><title>Ferry help</title>
<script type="application/ld+json">{"@type": "FAQPage", "mainEntity": [
 {"@type": "Question", "name": "Can I take my bicycle?",
  "acceptedAnswer": {"@type": "Answer", "text": "Yes, for a small fee."}},
 {"@type": "Question", "name": "Do dogs travel free?",
  "acceptedAnswer": {"@type": "Answer", "text": "Yes, on a lead."}}]}</script></head>
<body><main><h1>Ferry help</h1><p>%s</p>
<h2>Can I take my bicycle?</h2><p>Yes, for a small fee.</p>
<h2>Do dogs travel free?</h2><p>Yes, on a lead.</p></main></body></html>""".replace("%s", ENGLISH_MORE[0])

SETTINGS = [
    "--set",
    "units.passages=window",
    "--set",
    "units.passage_chars=300",
    "--set",
    "units.passage_overlap=60",
    "--set",
    "units.faq=true",
]


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("textunits")
    folder = root / "docs"
    folder.mkdir()
    (folder / "faq.html").write_text(FAQ, encoding="utf-8")
    article = ENGLISH + ENGLISH_MORE[0] + ENGLISH_MORE[1]
    (folder / "article.txt").write_text(article, encoding="utf-8")
    (folder / "copy.txt").write_text(article.replace("six", "seven"), encoding="utf-8")  # a near duplicate
    coll = root / "coll"
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress", *SETTINGS]) == 0
    return coll, (folder / "faq.html").resolve().as_uri(), (folder / "article.txt").resolve().as_uri()


def get_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["get", *args, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_a_passage_is_fetched_by_its_url_and_slices_its_parent(
    collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, _, article = collection
    [parent] = get_json(capsys, str(coll), article)
    [passage] = get_json(capsys, str(coll), f"{article}#unit=p-2")
    meta = passage["metadata"]
    assert isinstance(meta, dict)
    unit = meta["unit"]
    assert unit["kind"] == "passage" and unit["position"] == 2 and unit["parent"] == article
    start, end = unit["span"]
    assert passage["text"] == str(parent["text"])[start:end] and passage["lang"] == "en"
    assert str(passage["surt"]).endswith("article.txt#unit=p-2")
    capsysbinary_text = passage["text"]
    assert main(["get", str(coll), f"{article}#unit=p-2", "--text"]) == 0
    assert str(capsysbinary_text) in capsys.readouterr().out


def test_children_and_parent(collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    coll, faq, article = collection
    passages = get_json(capsys, str(coll), article, "--children")
    assert [p["url"] for p in passages] == [f"{article}#unit=p-{i}" for i in range(1, len(passages) + 1)]
    assert len(passages) >= 3
    units = get_json(capsys, str(coll), faq, "--children")
    urls = [u["url"] for u in units]
    kinds = [u["metadata"]["unit"]["kind"] for u in units]  # type: ignore[index]
    assert urls[-2:] == [f"{faq}#unit=qa-1", f"{faq}#unit=qa-2"] and kinds[-2:] == ["qa", "qa"]
    assert set(kinds[:-2]) == {"passage"}  # the passages together, then the pairs
    assert units[-1]["title"] == "Do dogs travel free?"
    [page] = get_json(capsys, str(coll), f"{faq}#unit=qa-2", "--parent")
    assert page["url"] == faq and page["title"] == "Ferry help"
    capsys.readouterr()
    assert main(["get", str(coll), faq, "--children"]) == 0
    listing = capsys.readouterr().out
    assert "qa" in listing and "passage" in listing


def test_dedup_leaves_passages_out(
    collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from trawl.dedup.engine import DedupOptions
    from trawl.jobs.dedup import discover_collection
    from trawl.store.collection import Collection

    coll, _, article = collection
    with Collection.open(coll) as opened:
        result = discover_collection(opened, DedupOptions(), store=False)
    counters = result.report["counters"]
    passages = len(get_json(capsys, str(coll), article, "--children"))
    assert counters["dedup/skipped/passage"] >= 2 * passages  # the article's and its copy's
    assert all(".txt#unit=" not in name for name in result.finder.names)
    # the two texts are one cluster; none of their passages makes one of its own
    assert [c.size for c in result.clusters] == [2]
