from __future__ import annotations

from pathlib import Path

from trawl.pipeline.stats import Stats


def test_counters_merge_by_addition(tmp_path: Path) -> None:
    a, b = Stats(), Stats()
    a.inc("read/records", 3)
    a.inc("drop/warc/bad-header")
    b.inc("read/records", 2)
    b.add_time("html", 0.5)
    a.add_time("html", 0.25)
    merged = Stats.merged([a, b])
    assert merged["read/records"] == 5
    assert merged["drop/warc/bad-header"] == 1
    assert merged.timings["html"] == 0.75
    assert merged.prefix("drop/") == {"drop/warc/bad-header": 1}


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    s = Stats()
    s.inc("fetch/status/404", 7)
    s.add_time("decode", 1.5)
    s.finished = s.started + 2
    s.save(tmp_path / "run.json")
    loaded = Stats.load(tmp_path / "run.json")
    assert loaded.to_dict() == s.to_dict()
