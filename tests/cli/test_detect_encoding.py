"""``trawl detect-encoding``: one line per file, the JSON-lines contract, unreadable files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from trawl.cli.main import main

RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 3


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_json_lines_plain_and_gzipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "ru.html"
    plain.write_bytes(f"<p>{RUSSIAN}".encode("windows-1251"))
    packed = tmp_path / "utf8.html.gz"
    packed.write_bytes(gzip.compress("<p>résumé".encode()))
    bom = tmp_path / "u16.txt"
    bom.write_bytes("\ufeffhello".encode("utf-16-le"))
    assert main(["detect-encoding", "--json", str(plain), str(packed), str(bom)]) == 0
    rows = _lines(capsys)
    assert [r["path"] for r in rows] == [str(plain), str(packed), str(bom)]
    for r in rows:
        assert {"path", "encoding", "source", "confidence", "errors"} <= r.keys()
    assert (rows[0]["encoding"], rows[0]["source"], rows[0]["errors"]) == ("windows-1251", "detector", 0)
    assert (rows[1]["encoding"], rows[1]["source"]) == ("utf-8", "utf8-valid")
    assert (rows[2]["encoding"], rows[2]["source"], rows[2]["confidence"]) == ("utf-16-le", "bom", 1.0)


def test_content_type_is_evidence_and_can_be_overruled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "p.html"
    page.write_bytes("<p>résumé".encode())
    assert main(["detect-encoding", "--json", "--content-type", "text/html; charset=koi8-r", str(page)]) == 0
    (row,) = _lines(capsys)
    assert (row["encoding"], row["declared"], row["declared_source"]) == ("utf-8", "koi8-r", "http")
    assert row["overruled"] == "declared-single-byte-is-utf8"
    ascii_page = tmp_path / "a.html"
    ascii_page.write_bytes(b"<p>plain")
    assert (
        main(["detect-encoding", "--json", "--content-type", "text/html; charset=koi8-r", str(ascii_page)])
        == 0
    )
    (row,) = _lines(capsys)
    assert (row["encoding"], row["source"]) == ("koi8-r", "http")


def test_unreadable_file_is_a_line_with_error_and_a_failing_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "ok.html"
    good.write_bytes(b"<p>ok")
    missing = tmp_path / "missing.html"
    assert main(["detect-encoding", "--json", str(missing), str(good)]) == 1
    rows = _lines(capsys)
    assert rows[0]["path"] == str(missing) and "error" in rows[0]
    assert rows[0]["encoding"] is None and rows[0]["confidence"] is None and rows[0]["errors"] is None
    assert rows[1]["encoding"] == "utf-8"


def test_plain_output_one_line_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    assert main(["detect-encoding", str(empty)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith(f"{empty}\tutf-8\tutf8-valid\t1.00")
