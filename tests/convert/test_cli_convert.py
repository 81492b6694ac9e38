"""``trawl convert``: the JSON-lines contract, the readable summary, drops and unreadable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.convert.corpus import build
from trawl.cli.main import main

KEYS = {
    "path", "bytes", "format", "mime", "sniffed", "declared", "by_extension", "disagree", "declared_disagrees",  # noqa: E501
    "extension_disagrees", "truncated", "title", "text", "metadata", "links", "needs_ocr", "metadata_flags",
    "dropped", "message", "skipped", "seconds",
}  # fmt: skip


def _rows(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("docx")
    docx = build("docx", seed=4, size=3)
    (tmp_path / "report.docx").write_bytes(docx.data)
    (tmp_path / "feed.xml").write_bytes(build("rss", seed=4, size=2).data)
    (tmp_path / "logo.html").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
    files = [str(tmp_path / n) for n in ("report.docx", "feed.xml", "logo.html")]
    assert main(["convert", "--json", "--no-isolate", *files]) == 0
    report, feed, logo = _rows(capsys)
    assert set(report) == KEYS
    assert report["format"] == "docx" and report["title"] == docx.title and not report["disagree"]
    assert report["links"] == [{"url": "https://harbour.example.org/annual", "text": "published accounts"}]
    assert "Sidebar lighthouse keeper" in str(report["text"])
    assert feed["format"] == "rss" and not feed["disagree"]  # .xml for a feed is no contradiction
    assert logo["format"] == "image" and logo["disagree"] and logo["skipped"] and logo["text"] == ""


def test_drops_and_errors_exit_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 100)
    missing = tmp_path / "missing.txt"
    assert main(["convert", "--json", "--timeout", "20", str(bad), str(missing)]) == 1
    dropped, error = _rows(capsys)
    assert dropped["dropped"] == "pdf-malformed" and dropped["message"]
    assert "cannot read" in str(error["error"])


def test_readable_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "review.rtf").write_bytes(build("rtf", seed=4, size=2).data)
    (tmp_path / "page.txt").write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 10)
    assert main(["convert", "--no-isolate", str(tmp_path / "review.rtf"), str(tmp_path / "page.txt")]) == 1
    out = capsys.readouterr().out
    assert "rtf (application/rtf)" in out and "title: Harbour Board Annual Review" in out
    assert "DISAGREES with text/plain" in out and "dropped: pdf-malformed" in out


def test_legacy_and_compressed_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("olefile")
    import bz2
    import lzma

    from tests.convert.legacy_corpus import fixture

    sample, doc = fixture("doc")
    (tmp_path / "report.doc.xz").write_bytes(lzma.compress(doc))
    (tmp_path / "notes.txt.bz2").write_bytes(bz2.compress(b"Harbour notes\nthe tide turned"))
    paths = [str(tmp_path / n) for n in ("report.doc.xz", "notes.txt.bz2")]
    assert main(["convert", "--json", "--set", "convert.libreoffice=never", *paths]) == 0
    report, notes = _rows(capsys)
    assert report["format"] == "ole" and report["title"] == sample.title and not report["disagree"]
    assert report["metadata"]["converter"] == "word97" and report["bytes"] < len(doc)  # packed on disk
    assert notes["format"] == "text" and notes["text"].startswith("Harbour notes")
    assert main(["convert", "--no-isolate", str(tmp_path / "report.doc.xz")]) == 0
    assert "converter: word97" in capsys.readouterr().out
