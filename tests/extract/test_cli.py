"""``trawl extract``: one JSON line per file, path as given, gzip and stdin."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from trawl.cli.main import main

PAGE = (
    "<html><head><title>Notes on tides | Sea Blog</title></head><body>"
    '<nav><a href="/">Home</a> <a href="/about">About</a></nav>'
    "<article><h1>Notes on tides</h1>"
    + "".join(
        f"<p>Tide note {k}: the moon pulls the water and the water follows, twice a day, every day.</p>"
        for k in range(6)
    )
    + "</article><footer>Contact us</footer></body></html>"
)


def _rows(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_json_lines_for_plain_gzipped_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "a.html"
    plain.write_text(PAGE, encoding="utf-8")
    packed = tmp_path / "b.html.gz"
    packed.write_bytes(gzip.compress(PAGE.encode()))
    missing = str(tmp_path / "none.html")
    code = main(["extract", "--json", str(plain), str(packed), missing])
    rows = _rows(capsys.readouterr().out)
    assert code == 1  # one file could not be read
    assert [r["path"] for r in rows] == [str(plain), str(packed), missing]
    for row in rows[:2]:
        assert set(row) >= {"path", "title", "author", "date", "text", "method", "score"}
        assert row["method"] == "dom" and 0 < row["expected_f1"] <= 1
        assert row["title"] == "Notes on tides"
        assert "Tide note 5" in str(row["text"]) and "About" not in str(row["text"])
    assert "error" in rows[2]


def test_stdin_method_and_text_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PAGE.encode())))
    assert main(["extract", "-", "--json", "--method", "bte", "--url", "https://x.org/2020/01/02/t"]) == 0
    (row,) = _rows(capsys.readouterr().out)
    assert row["path"] == "-" and row["method"] == "bte" and row["date"] == "2020-01-02"
    page = tmp_path / "p.html"
    page.write_text(PAGE, encoding="utf-8")
    assert main(["extract", str(page), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Notes on tides") and "Tide note 0" in out


def test_plot_writes_a_curve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    page = tmp_path / "p.html"
    page.write_text(PAGE, encoding="utf-8")
    assert (
        main(["extract", str(page), "--json", "--plot", str(tmp_path / "plots"), "--plot-format", "svg"]) == 0
    )
    (row,) = _rows(capsys.readouterr().out)
    svg = Path(str(row["plot"]))
    assert svg.suffix == ".svg" and svg.read_text().lstrip().startswith("<?xml")


def test_it_prints_what_ingest_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from trawl.jobs.ingest import ingest
    from trawl.store.collection import Collection

    # UTF-8 read as windows-1252 before it was saved: ingest repairs it; extract must too
    moji = (
        PAGE.replace("the moon pulls", "la lune tire, café crème, the moon pulls").encode().decode("cp1252")
    )
    page = tmp_path / "pages" / "tides.html"
    page.parent.mkdir()
    page.write_bytes(moji.encode("utf-8"))
    assert main(["extract", "--json", str(page)]) == 0
    (row,) = _rows(capsys.readouterr().out)
    with Collection.create(tmp_path / "c") as coll:
        ingest([page.parent], coll)
        (record,) = [r for r in coll.records() if r.capture]
        stored = record.cells["text"]
    assert "café crème" in str(row["text"])
    assert (row["title"], row["text"]) == (stored["title"], stored["text"])
