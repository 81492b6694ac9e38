"""``trawl langid``: the CLI contract (one JSON line per input line, blank lines included)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from trawl.cli.main import main


def _json_lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_lines_from_stdin_one_json_line_each(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = "Everyone has the right to education.\nJeder hat das Recht auf Bildung.\n\n12345\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["langid", "--json", "--lines", "-"]) == 0
    rows = _json_lines(capsys.readouterr().out)
    assert [r["lang"] for r in rows] == ["en", "de", "und", "und"]
    for r in rows:
        assert {"lang", "score", "alternatives"} <= set(r)
        assert isinstance(r["score"], float)
        assert isinstance(r["alternatives"], list)


def test_texts_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "lines.txt"
    f.write_text("Toute personne a droit à l'éducation.\n", encoding="utf-8")
    assert main(["langid", "--method", "cavnar-trenkle", "--json", "Jeder hat das Recht auf Bildung.",
                 "--lines", str(f)]) == 0  # fmt: skip
    rows = _json_lines(capsys.readouterr().out)
    assert [r["lang"] for r in rows] == ["de", "fr"]
    assert {r["method"] for r in rows} == {"cavnar-trenkle"}


def test_plain_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["langid", "Everyone has the right to education."]) == 0
    assert capsys.readouterr().out.startswith("en\t")


def test_distance_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["langid", "--table", "--langs", "en,de,fr", "Everyone has the right to education."]) == 0
    out = capsys.readouterr().out
    assert "distinct n-grams: 153" in out
    assert "smallest: en" in out
    assert (
        main(["langid", "--table", "--json", "--langs", "en,de", "Everyone has the right to education."]) == 0
    )
    table = json.loads(capsys.readouterr().out)
    assert table["distinct_ngrams"] == 153
    assert table["totals"]["en"] == sum(r["adds"]["en"] for r in table["rows"])


def test_passages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "doc.txt"
    f.write_text(
        "This report summarises the results of our survey of readers.\n"
        "Die Ergebnisse der Umfrage werden im folgenden Abschnitt ausführlich beschrieben.\n",
        encoding="utf-8",
    )
    assert main(["langid", "--passages", "--json", "--lines", str(f)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["lang"] for p in doc["passages"]] == ["en", "de"]


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["langid"]) == 2
    assert main(["langid", "--lines", str(tmp_path / "missing.txt")]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert main(["langid", "--table", "--langs", "xx", "text"]) == 1
