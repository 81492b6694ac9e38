"""``trawl decode-report``: flagged documents grouped by host and by declared → chosen encoding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.cli.decode_report import report
from trawl.cli.main import main
from trawl.store.collection import StoredRecord


def _record(
    url: str, encoding: str, errors: int, mojibake: bool = False, declared: str | None = None
) -> StoredRecord:
    decode = {
        "encoding": encoding,
        "encoding_source": "http" if declared else "utf8-valid",
        "encoding_declared": {"encoding": declared, "source": "http"} if declared else None,
        "decode_errors": errors,
        "mojibake": mojibake,
        "mojibake_score": 0.9 if mojibake else 0.0,
    }
    return StoredRecord(url, {"fetch": {"capture": {"url": url}}, "meta": {"decode": decode}})


def test_report_groups_by_host_and_by_encoding_pair() -> None:
    records = [
        _record("http://a.example/1", "utf-8", 40, declared="utf-8"),
        _record("http://a.example/2", "utf-8", 25, declared="utf-8"),
        _record("http://a.example/3", "utf-8", 0, declared="utf-8"),
        _record("http://b.example/1", "windows-1252", 0, mojibake=True),
        _record("http://c.example/1", "utf-8", 3),
        StoredRecord("x", {"fetch": {"capture": {"url": "http://d.example/bin"}}}),  # not decoded
    ]
    data = report(records, min_errors=10)
    assert (data["documents"], data["flagged"]) == (5, 3)
    hosts = {row["host"]: row for row in data["by_host"]}
    assert set(hosts) == {"a.example", "b.example"}
    assert (hosts["a.example"]["flagged"], hosts["a.example"]["documents"]) == (2, 3)
    assert data["by_host"][0]["host"] == "a.example"
    pair = data["by_encoding"][0]
    assert (pair["declared"], pair["chosen"], pair["flagged"]) == ("utf-8", "utf-8", 2)
    assert [d["url"] for d in data["flagged_documents"]][:2] == ["http://a.example/1", "http://a.example/2"]
    assert report(records, min_errors=1)["flagged"] == 4


def test_command_on_a_collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "docs"
    src.mkdir()
    (src / "good.html").write_bytes("<title>ok</title><p>résumé".encode())
    (src / "bad.html").write_bytes(b"<meta charset=utf-8><p>" + "Съешь ещё этих булок. ".encode("cp1251") * 5)
    moji = "<p>Le résumé du café était très réussi, à côté de la fenêtre.</p>".encode().decode("cp1252")
    (src / "moji.html").write_bytes(moji.encode())
    coll = tmp_path / "coll"
    assert main(["ingest", str(src), "-o", str(coll), "--json"]) == 0
    capsys.readouterr()
    assert main(["decode-report", str(coll), "--json", "--min-errors", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents"] == 3
    pairs = {(row["declared"], row["chosen"]) for row in data["by_encoding"]}
    assert ("utf-8", "windows-1251") in pairs  # the overruled declaration, recorded
    assert main(["decode-report", str(coll)]) == 0
    out = capsys.readouterr().out
    assert "declared → chosen" in out and "windows-1251" in out
    assert main(["get", str(coll), (src / "bad.html").as_uri(), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["encoding_declared"] == {"encoding": "utf-8", "source": "meta"}
    assert got["encoding_overruled"] == "declared-utf8-invalid"
    assert got["encoding_confidence"] > 0.5
