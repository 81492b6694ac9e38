"""``trawl convert`` and ``trawl detect-encoding`` show what ``trawl ingest`` stores, file by file."""

# ruff: noqa: RUF001 -- Russian text is meant

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.convert.corpus import build
from trawl.acquire.localdir import file_document
from trawl.cli.main import main
from trawl.convert.registry import FormatConverter
from trawl.document import Document
from trawl.jobs.ingest import ingest
from trawl.jobs.single import OneByOne
from trawl.jobs.steps import default_steps
from trawl.store.collection import Collection

PROSE = "A long paragraph of ordinary English prose about rivers and their banks. " * 6
# UTF-8 read as windows-1252 and written back as UTF-8: ingest repairs it.
MOJIBAKE = "Café crème brûlée, naïve résumé, déjà vu. ".encode().decode("cp1252").encode()


def _files(tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "mojibake.html").write_bytes(
        b"<html><head><title>Repaired</title></head><body><p>" + MOJIBAKE * 4 + b"</p>"
        b"<p>" + PROSE.encode() + b"</p><a href='http://example.org/a'>a link</a></body></html>"
    )
    (folder / "cp1251.html").write_bytes(
        (
            "<html><head><title>Русский</title></head><body><p>"
            + "Это обычный русский текст о реках и их берегах. " * 12
            + "</p></body></html>"
        ).encode("cp1251")
    )
    # NFD input: ingest stores it NFC
    (folder / "nfd.txt").write_bytes(("Cafe\u0301 and more plain text. " * 5).encode())
    (folder / "packed.html.gz").write_bytes(gzip.compress(b"<title>Packed</title><p>" + PROSE.encode()))
    (folder / "review.rtf").write_bytes(build("rtf", seed=4, size=2).data)
    return folder


def _stored(tmp_path: Path, folder: Path) -> dict[str, Document]:
    seen: dict[str, Document] = {}
    overrides = ["extract.enabled=false", "langid.enabled=false", "ingest.workers=0"]
    with Collection.create(tmp_path / "c", overrides=overrides) as coll:
        ingest([folder], coll, on_document=lambda doc, _: seen.setdefault(Path(doc.source or "").name, doc))
    return seen


def test_convert_prints_what_ingest_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _files(tmp_path)
    stored = _stored(tmp_path, folder)
    names = sorted(stored)
    assert names == sorted(p.name for p in folder.iterdir())
    assert main(["convert", "--json", "--no-isolate", *(str(folder / n) for n in names)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for name, row in zip(names, rows, strict=True):
        doc = stored[name]
        assert (row["title"], row["text"]) == (doc.title, doc.text), name
        assert row["links"] == [{"url": link.url, "text": link.text} for link in doc.links], name
    by_name = dict(zip(names, rows, strict=True))
    assert "Café crème brûlée" in by_name["mojibake.html"]["text"]  # repaired, as ingest does
    assert by_name["mojibake.html"]["metadata"]["mojibake_repaired"]
    assert "Café" in by_name["nfd.txt"]["text"] and "e\u0301" not in by_name["nfd.txt"]["text"]
    assert by_name["packed.html.gz"]["format"] == "html" and by_name["packed.html.gz"]["title"] == "Packed"
    assert not by_name["packed.html.gz"]["disagree"]
    assert by_name["cp1251.html"]["title"] == "Русский"


def test_detect_encoding_prints_what_ingest_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _files(tmp_path)
    stored = _stored(tmp_path, folder)
    names = sorted(n for n in stored if n != "review.rtf")
    assert main(["detect-encoding", "--json", *(str(folder / n) for n in names)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for name, row in zip(names, rows, strict=True):
        doc = stored[name]
        assert (row["whatwg"], row["source"], row["errors"]) == (
            doc.encoding, doc.encoding_source, doc.decode_errors
        ), name  # fmt: skip
        assert row["ingest_decodes"] and row["mojibake"] == doc.mojibake, name
    by_name = dict(zip(names, rows, strict=True))
    assert by_name["mojibake.html"]["repaired"] == stored["mojibake.html"].metadata["mojibake_repaired"]
    assert by_name["nfd.txt"]["normalized"] and not by_name["cp1251.html"]["normalized"]
    assert by_name["cp1251.html"]["encoding"] == "windows-1251"


def test_detect_encoding_of_a_binary_file_says_ingest_leaves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "logo.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert main(["detect-encoding", "--json", str(png)]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["type"] == "image/png" and row["ingest_decodes"] is False
    assert row["encoding"] and row["source"]  # decoded all the same: its encoding was asked for


def test_one_by_one_reports_drops_and_counters(tmp_path: Path) -> None:
    bad = file_document(str(tmp_path / "broken.pdf"), b"%PDF-1.4\n" + b"\x00garbage" * 100)
    page = file_document(str(tmp_path / "page.html"), b"<title>T</title><p>text")
    with OneByOne(default_steps(formats=FormatConverter(isolate=False))) as runner:
        dropped = runner.run(bad)
        kept = runner.run(page)
    assert not dropped.kept and dropped.doc.dropped == "convert/pdf-malformed"
    assert [e.kind for e in dropped.audit] == ["drop"] and dropped.audit[0].message
    assert kept.kept and kept.counters["convert/html"] == 1 and kept.doc.title == "T"
    assert len(kept.counted("decode/source/")) == 1 and sum(kept.counters.values()) > 2


def test_the_configuration_is_ingest_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "ru.html"
    page.write_bytes(("<p>" + "Это обычный русский текст о реках. " * 8).encode("koi8-r"))
    assert main(["detect-encoding", "--json", str(page)]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "detector"
    options = ["--set", "decode.detector=false", "--set", "decode.default_encoding=koi8-r"]
    assert main(["detect-encoding", "--json", *options, str(page)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["encoding"], row["source"]) == ("koi8-r", "default")
    assert main(["convert", "--json", "--no-isolate", "--set", "html.max_chars=40", str(page)]) == 0
    assert len(json.loads(capsys.readouterr().out)["text"]) <= 40
