"""`trawl demo` end to end: the sample is generated, ingested, and every count is as expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.demo import generate_sample
from trawl.store.collection import Collection


def test_demo_stores_every_good_record_and_drops_every_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "demo"
    assert main(["demo", "--dir", str(base)]) == 0
    out = capsys.readouterr().out
    assert "as expected" in out and "trawl show" in out

    expected = generate_sample(tmp_path / "again").expected
    with Collection.open(base / "collection") as coll:
        info = coll.info()
        assert info["documents"] == expected.documents
        counters = info["counters"]
        drops = {k: v for k, v in counters.items() if k.startswith("drop/")}
        assert sum(drops.values()) == expected.dropped
        for prefix, n in expected.drop_reasons.items():
            assert sum(v for k, v in drops.items() if k.startswith("drop/" + prefix)) == n, drops
        assert not any(k.startswith("error/") for k in counters), counters
        # the drops file quotes each problem
        (drops_file,) = (base / "collection" / "stats").glob("*.drops.jsonl")
        entries = [json.loads(line) for line in drops_file.read_text().splitlines()]
        assert len(entries) == expected.dropped and all(e["message"] for e in entries)

        # decoding evidence as the sample declares it
        ru = coll.find("http://ru.example.net/").as_dict()
        assert (ru["encoding"], ru["encoding_source"]) == ("windows-1251", "http")
        assert any("\u0400" <= ch <= "\u04ff" for ch in ru["text"])
        jp = coll.find("http://jp.example.jp/").as_dict()
        assert (jp["encoding"], jp["encoding_source"]) == ("shift_jis", "meta")
        # the record whose Content-Length lies (warcio loses its place there): kept, the repair said
        (liar,) = [d for d in generate_sample(tmp_path / "third").documents if "repaired" in (d.note or "")]
        kept = coll.find(liar.url).as_dict()
        assert kept["metadata"].get("repaired") and kept["text"]

    # a second demo run replaces the first
    assert main(["demo", "--dir", str(base)]) == 0


def test_demo_refuses_to_overwrite_a_foreign_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "precious.txt").write_text("keep me")
    assert main(["demo", "--dir", str(tmp_path / "mine")]) == 1
    assert (tmp_path / "mine" / "precious.txt").exists()
    assert "not made by trawl demo" in capsys.readouterr().err
