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


def test_one_name_per_codec_and_whole_urls_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [
        _record("http://a.example/x", "utf-32be", 40, declared="utf-32-be"),
        _record("http://a.example/y", "utf-32-be", 40, declared="UTF-32BE"),
        _record("http://b.example/z", "windows-1251", 40, declared="cp1251"),
    ]
    data = report(records, min_errors=10)
    assert {(p["declared"], p["chosen"]) for p in data["by_encoding"]} == {
        ("utf-32-be", "utf-32-be"),
        ("windows-1251", "windows-1251"),
    }
    # the flagged URLs are shown whole at 80 columns, file name included
    src = tmp_path / "docs"
    src.mkdir()
    name = "a-rather-long-file-name-of-a-page-that-decodes-badly.html"
    body = "Съешь ещё этих мягких французских булок. ".encode() * 30
    (src / name).write_bytes(b"<meta charset=utf-8><p>" + body + b"\xff\xfe broken \xc3" + body)
    assert main(["ingest", str(src), "-o", str(tmp_path / "c"), "--no-progress"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["decode-report", str(tmp_path / "c"), "--min-errors", "1"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert name.replace("-", "") in "".join(out.split()).replace("│", "").replace("-", "")


def test_langid_lines_reads_the_file_as_ingest_decodes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    text = (
        "Frühjahr und Sommer sind schöne Jahreszeiten in Deutschland.\nLe printemps est une belle saison.\n"
    )
    (tmp_path / "latin1.txt").write_bytes(text.encode("latin-1"))
    (tmp_path / "lines.txt.gz").write_bytes(gzip.compress(text.encode("utf-16")))
    for name in ("latin1.txt", "lines.txt.gz"):
        assert main(["langid", "--json", "--lines", str(tmp_path / name)]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [r["lang"] for r in rows] == ["de", "fr"], (name, rows)
