"""``trawl dedup`` end to end on a real collection: discovery, search, stored dup cells, report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
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
    assert {r["method"] for r in rows} == {"minhash", "simhash", "winnow", "modp"}
    assert {r["b"] for r in rows} == {_url(collection, "doc4.txt")}
    assert all(0.9 < r["similarity"] <= 1.0 for r in rows)  # simhash may not see one word


def test_usage_errors(collection: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dedup", "near", str(collection)]) == 2
    assert main(["dedup", str(collection), "extra"]) == 2
    assert main(["dedup", str(collection), "--text", "x"]) == 2
    assert main(["dedup", str(collection), "--threshold", "1.5"]) == 2
    assert main(["dedup", str(collection.parent / "missing")]) == 1
    assert "not a trawl collection" in capsys.readouterr().err


def _near_rows(
    coll: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[list[dict[str, object]], str]:
    capsys.readouterr()
    assert main(["dedup", "near", str(coll), *args, "--json"]) == 0
    got = capsys.readouterr()
    return [json.loads(x) for x in got.out.splitlines()], got.err


def test_search_index_stored_loaded_and_rebuilt_when_stale(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from trawl.dedup.engine import DedupOptions
    from trawl.jobs.dedup import open_index

    coll = tmp_path / "coll"
    shutil.copytree(collection, coll)
    index = coll / "index" / "dedup" / "near"
    shutil.rmtree(coll / "index", ignore_errors=True)
    url0 = _url(collection, "doc0.txt")  # URLs are those of the ingested files
    # no index yet: the search builds one and says why, on stderr only
    rows, err = _near_rows(coll, capsys, url0)
    assert "rebuilt: no stored index" in err and {r["method"] for r in rows} == {"exact", "minhash"}
    # discovery stores the index; the search then loads it and answers the same
    capsys.readouterr()
    assert main(["dedup", str(coll), "--json"]) == 0
    meta = json.loads((index / "meta.json").read_text())
    assert meta["built_by"] == "trawl dedup" and meta["documents"] == 9
    assert meta["lsh"]["bands"] == 17 and "lsh.keys" in meta["arrays"]
    again, err = _near_rows(coll, capsys, url0)
    assert err == "" and again == rows
    with Collection.open(coll) as c:
        finder, _, status = open_index(c, DedupOptions())
        assert status == "loaded" and isinstance(finder.shingle_sets.hashes, np.memmap)
    # other options, then a method the index does not hold: rebuilt, reason recorded, methods kept
    _, err = _near_rows(coll, capsys, url0, "--threshold", "0.7")
    assert "other options: threshold 0.8 -> 0.7" in err
    _, err = _near_rows(coll, capsys, "--text", _text(4), "--method", "simhash")
    assert "the index holds no simhash" in err
    meta = json.loads((index / "meta.json").read_text())
    assert meta["options"]["methods"] == ["exact", "simhash", "minhash"]
    assert meta["reason"].startswith("the index holds no simhash")
    _, err = _near_rows(coll, capsys, "--text", _text(4), "--method", "simhash", "--method", "minhash")
    assert err == ""
    # a new ingest run: stale; the rebuilt index finds the new document
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "doc1-copy.txt").write_text(_text(1).replace(".", " again.", 2), encoding="utf-8")
    assert main(["ingest", str(extra), "-o", str(coll), "--no-progress", "--json"]) == 0
    rows, err = _near_rows(coll, capsys, "--text", _text(1))
    assert "rebuilt: " in err and ("WARC files changed" in err or "runs since" in err)
    assert (extra / "doc1-copy.txt").as_uri() in {r["b"] for r in rows}
    log = [json.loads(x) for x in (coll / "index" / "dedup" / "near.log").read_text().splitlines()]
    assert [e["event"] for e in log] == ["rebuilt", "built", "rebuilt", "rebuilt", "rebuilt"]
    # a damaged index is rebuilt, not fatal
    (index / "lsh.keys.npy").write_bytes(b"junk")
    _, err = _near_rows(coll, capsys, "--text", _text(1))
    assert "index unreadable" in err


def _copy(collection: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the collection, and where its search index lives."""
    import shutil

    coll = tmp_path / "coll"
    shutil.copytree(collection, coll)
    return coll, coll / "index" / "dedup" / "near"


def _stored_search_is_the_in_memory_one(
    coll: Path, collection: Path, options: Any, query: str, names: tuple[str, ...]
) -> None:
    """A search answers from the stored index, as the in-memory finder does."""
    from trawl.dedup.engine import FINGERPRINT_METHODS
    from trawl.dedup.fingerprint import IndexedHashSets
    from trawl.jobs.dedup import load_finder, near_in_collection

    with Collection.open(coll) as c:
        result = near_in_collection(c, options, text=query)
        assert result.index == "loaded"
        for method in set(options.methods) & set(FINGERPRINT_METHODS):
            assert isinstance(result.finder.fingerprint_sets(method), IndexedHashSets)
        memory, _ = load_finder(c, options)  # the in-memory path: every text read and hashed again
        for name in names:
            text = c.find(_url(collection, name)).text
            want = memory.near(text)
            assert want and result.finder.near(text) == want


def test_winnow_search_answers_from_the_stored_inverted_index(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trawl.dedup.engine import DedupOptions

    coll, index = _copy(collection, tmp_path)
    capsys.readouterr()
    assert main(["dedup", str(coll), "--method", "winnow", "--json"]) == 0
    meta = json.loads((index / "meta.json").read_text())
    assert {"winnow.keys", "winnow.postings"} <= set(meta["arrays"])
    edited = _text(2).split()
    edited[100] = "changed"
    query = ["--text", " ".join(edited), "--method", "winnow"]
    rows, err = _near_rows(coll, capsys, *query)
    assert err == "" and [(r["b"], r["method"]) for r in rows] == [(_url(collection, "doc2.txt"), "winnow")]
    options = DedupOptions(methods=("exact", "winnow"))
    _stored_search_is_the_in_memory_one(
        coll, collection, options, " ".join(edited), ("doc0.txt", "copy-near.txt", "doc2.txt")
    )
    # an index of the previous format is rebuilt, with the reason recorded, and then loaded
    meta["format"] = 1
    (index / "meta.json").write_text(json.dumps(meta))
    again, err = _near_rows(coll, capsys, *query)
    assert again == rows and "search index rebuilt: index format 1, this trawl reads format 2" in err
    meta = json.loads((index / "meta.json").read_text())
    assert meta["reason"] == "index format 1, this trawl reads format 2" and "winnow.keys" in meta["arrays"]
    log = json.loads((coll / "index" / "dedup" / "near.log").read_text().splitlines()[-1])
    assert log["event"] == "rebuilt" and log["reason"] == meta["reason"]
    assert _near_rows(coll, capsys, *query) == (rows, "")


def test_modp_discovery_and_search_from_the_stored_index(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trawl.dedup.engine import DedupOptions

    coll, index = _copy(collection, tmp_path)
    capsys.readouterr()
    assert main(["dedup", str(coll), "--method", "modp", "--modp-p", "3", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    near = [{r["a"], r["b"]} for r in rows if r["method"] == "modp"]
    copies = {_url(collection, "doc0.txt"), _url(collection, "copy-exact.txt")}  # one represents both
    assert len(near) == 1 and _url(collection, "copy-near.txt") in near[0] and near[0] & copies
    assert all(0.8 <= r["similarity"] <= 1.0 for r in rows)
    meta = json.loads((index / "meta.json").read_text())
    assert {"modp.keys", "modp.postings"} <= set(meta["arrays"]) and meta["options"]["modp_p"] == 3
    edited = _text(3).split()
    edited[50] = "changed"
    query = ["--text", " ".join(edited), "--method", "modp", "--modp-p", "3"]
    found, err = _near_rows(coll, capsys, *query)
    assert err == "" and [(r["b"], r["method"]) for r in found] == [(_url(collection, "doc3.txt"), "modp")]
    options = DedupOptions(methods=("exact", "modp"), modp_p=3)
    _stored_search_is_the_in_memory_one(
        coll, collection, options, " ".join(edited), ("doc0.txt", "copy-near.txt", "doc3.txt")
    )
    # another p selects other fingerprints: the index is rebuilt, with the reason
    _, err = _near_rows(coll, capsys, "--text", " ".join(edited), "--method", "modp")
    assert "search index rebuilt: other options: modp_p 3 -> 4" in err
    assert main(["dedup", str(coll), "--method", "modp", "--modp-p", "0"]) == 2
    assert "--modp-p: 0 must be at least 1" in capsys.readouterr().err


def test_options_come_from_the_dedup_section_and_flags_override_it() -> None:
    import argparse

    from trawl.cli.dedup import options_from
    from trawl.config import load_config
    from trawl.errors import ConfigError

    none = argparse.Namespace(method=None, threshold=None, shingle=None, simhash_k=None, modp_p=None)
    config = load_config(env={"TRAWL_DEDUP_METHODS": "simhash,winnow"}, overrides=["dedup.threshold=0.7"])
    options = options_from(none, config.dedup)
    assert options.methods == ("exact", "simhash", "winnow") and options.threshold == 0.7
    assert (options.shingle, options.modp_p, options.simhash_k) == (5, 4, 9)
    flags = argparse.Namespace(method=["modp"], threshold=0.9, shingle=3, simhash_k=None, modp_p=8)
    options = options_from(flags, config.dedup)
    assert options.methods == ("exact", "modp") and (options.threshold, options.shingle, options.modp_p) == (
        0.9,
        3,
        8,
    )
    with pytest.raises(ConfigError, match=r"dedup\.methods"):
        options_from(none, load_config(overrides=["dedup.methods=nearest"]).dedup)
