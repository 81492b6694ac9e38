"""``trawl dedup`` end to end on a real collection: discovery, search, stored dup cells, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.store.collection import Collection

SPEECH = Path(__file__).resolve().parents[3] / "shared" / "data" / "stats" / "inaugural"


def _text(seed: int, words: int = 400) -> str:
    import random

    rng = random.Random(seed)
    vocab = [f"{a}{b}{c}" for a in "bcdfgklmnprst" for b in "aeiou" for c in "nrstl"]
    out = []
    for i in range(words):
        out.append(rng.choice(vocab))
        if i % 12 == 11:
            out[-1] += "."
    return " ".join(out)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("dedup")
    src = tmp / "docs"
    src.mkdir()
    for i in range(6):
        (src / f"doc{i}.txt").write_text(_text(i), encoding="utf-8")
    base = _text(0)
    (src / "copy-near.txt").write_text(base.replace(".", " indeed.", 1), encoding="utf-8")
    (src / "copy-exact.txt").write_text(base.upper() + "\n", encoding="utf-8")  # same normalised text
    (src / "punctuation.txt").write_text("... --- ...\n", encoding="utf-8")  # no words at all
    coll = tmp / "coll"
    assert main(["ingest", str(src), "-o", str(coll), "--no-progress", "--json"]) == 0
    return coll


def _url(coll: Path, name: str) -> str:
    return (coll.parent / "docs" / name).as_uri()


def test_json_pairs_only(collection: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["dedup", str(collection), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines]
    assert all(set(r) == {"a", "b", "similarity", "method"} for r in rows)
    got = {(frozenset((r["a"], r["b"])), r["method"]) for r in rows}
    doc0, near, exact = (_url(collection, n) for n in ("doc0.txt", "copy-near.txt", "copy-exact.txt"))
    assert (frozenset((doc0, exact)), "exact") in got
    near_rows = [r for r in rows if r["method"] == "minhash"]
    # only the first stored copy of an exact group takes part (rows come in SURT order)
    assert {frozenset((r["a"], r["b"])) for r in near_rows} == {frozenset((exact, near))}
    assert 0.9 < near_rows[0]["similarity"] < 1.0
    assert [r["similarity"] for r in rows if r["method"] == "exact"] == [1.0]


def test_results_stored_in_dup_family_and_report(collection: Path) -> None:
    assert main(["dedup", str(collection), "--method", "all"]) == 0
    with Collection.open(collection) as coll:
        cells = coll.table.get_row(coll.find(_url(collection, "copy-near.txt")).row)["dup"]
        lone = coll.table.get_row(coll.find(_url(collection, "doc3.txt")).row)["dup"]
    assert cells["cluster"]["size"] == 3
    assert cells["cluster"]["is_representative"]  # "indeed" makes it the longest copy
    assert {link["method"] for link in cells["cluster"]["links"]} >= {"minhash"}
    assert cells["fingerprint"]["text_digest"].startswith("xxh3:")
    assert len(cells["fingerprint"]["simhash"]) == 16
    assert lone["cluster"] == {"representative": None, "is_representative": False, "size": 1, "links": []}
    report = json.loads((collection / "index" / "dedup" / "report.json").read_text())
    assert report["clusters"][0]["size"] == 3
    assert report["counters"]["dedup/skipped/empty-text"] == 1
    assert (collection / "index" / "dedup" / "pairs.jsonl").read_text().count("\n") >= 2


def test_near_by_url_and_by_text(collection: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["dedup", "near", str(collection), _url(collection, "doc0.txt"), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {r["b"] for r in rows} == {_url(collection, "copy-near.txt"), _url(collection, "copy-exact.txt")}
    assert {r["method"] for r in rows} == {"exact", "minhash"}
    assert all(r["a"] == _url(collection, "doc0.txt") for r in rows)
    assert main(["dedup", "near", str(collection), "--text", _text(4), "--json", "--method", "all"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["a"], r["b"], r["method"]) for r in rows] == [
        ("<text>", _url(collection, "doc4.txt"), "exact")
    ]
    edited = _text(4).split()
    edited[200] = "changed"
    assert (
        main(["dedup", "near", str(collection), "--text", " ".join(edited), "--json", "--method", "all"]) == 0
    )
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert {r["method"] for r in rows} == {"minhash", "simhash", "winnow"}
    assert {r["b"] for r in rows} == {_url(collection, "doc4.txt")}
    assert all(0.9 < r["similarity"] <= 1.0 for r in rows)  # simhash may not see one word


def test_usage_errors(collection: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dedup", "near", str(collection)]) == 2
    assert main(["dedup", str(collection), "extra"]) == 2
    assert main(["dedup", str(collection), "--text", "x"]) == 2
    assert main(["dedup", str(collection), "--threshold", "1.5"]) == 2
    assert main(["dedup", str(collection.parent / "missing")]) == 1
    assert "not a trawl collection" in capsys.readouterr().err
