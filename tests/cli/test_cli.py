"""The CLI end to end, in-process (``main(argv)``) and once through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.document import Document
from trawl.store.collection import Collection
from trawl.store.warcfile import WarcFileWriter

T0 = datetime(2023, 3, 4, 5, 6, 7, tzinfo=UTC)


def page(i: int) -> Document:
    body = (
        f"<html lang=en><head><title>Page {i}</title></head><body><nav>menu</nav>"
        f"<p>Paragraph {i} with caf\u00e9.</p><a href='/p/{i + 1}'>next page</a></body></html>"
    ).encode()
    return Document(
        url=f"http://site{i % 5}.example/p/{i}",
        fetched_at=T0,
        status=200,
        http_headers=[("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
        raw=body,
    )


@pytest.fixture()
def warc_input(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    with WarcFileWriter(src, prefix="input") as w:
        for i in range(40):
            w.write(page(i))
    return src


def test_ingest_get_show(tmp_path: Path, warc_input: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("Hello from a text file.\nSecond line.\n", encoding="utf-8")
    coll = tmp_path / "coll"
    assert main(["ingest", str(warc_input), str(docs), "-o", str(coll), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "captures stored" in out and "41" in out

    assert main(["get", str(coll), "http://site2.example/p/7", "--text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Page 7\n\n")
    assert "Paragraph 7 with caf\u00e9." in text

    assert main(["get", str(coll), "http://site2.example/p/7", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["title"] == "Page 7"
    assert data["encoding"] == "utf-8"
    assert data["links"][0]["url"] == "http://site2.example/p/8"
    assert data["links"][0]["text"] == "next page"
    assert data["warc"]["file"].endswith(".warc.gz")

    assert main(["get", str(coll), (docs / "note.txt").resolve().as_uri(), "--text"]) == 0
    assert "Hello from a text file." in capsys.readouterr().out

    assert main(["show", str(coll), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["documents"] == 41
    assert info["counters"]["store/records"] == 41


def test_get_raw_returns_the_ingested_bytes(
    tmp_path: Path, warc_input: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    coll = tmp_path / "coll"
    assert main(["ingest", str(warc_input), "-o", str(coll), "--no-progress"]) == 0
    capsysbinary.readouterr()
    for i in (0, 13, 39):
        assert main(["get", str(coll), f"http://site{i % 5}.example/p/{i}", "--raw"]) == 0
        assert capsysbinary.readouterr().out == page(i).raw


def test_errors_are_one_line_with_nonzero_exit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", str(tmp_path), "http://x/"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("trawl: error:") and "not a trawl collection" in err and "\n" not in err

    assert main(["ingest", str(tmp_path / "missing.warc"), "-o", str(tmp_path / "c"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert "missing.warc" in err and "\n" not in err

    assert main(["ingest", str(tmp_path), "-o", str(tmp_path / "c2"), "--set", "warc.nope=1"]) == 2
    assert "unknown option 'warc.nope'" in capsys.readouterr().err


def test_get_unknown_url_fails(tmp_path: Path, warc_input: Path, capsys: pytest.CaptureFixture[str]) -> None:
    coll = tmp_path / "coll"
    main(["ingest", str(warc_input), "-o", str(coll), "--no-progress"])
    capsys.readouterr()
    assert main(["get", str(coll), "http://site1.example/nothing"]) == 1
    assert "no record for" in capsys.readouterr().err


def test_random_access_round_trip_10000_records(tmp_path: Path) -> None:
    """`trawl get --raw` returns exactly the ingested bytes, for every one of 10,000 records."""
    src = tmp_path / "big"
    docs = []
    with WarcFileWriter(src, prefix="big", max_bytes=2_000_000) as w:
        for i in range(10_000):
            d = page(i)
            d.url = f"http://h{i % 97}.example/{i}"
            d.raw = d.raw + i.to_bytes(4, "big") * (i % 13)
            docs.append(d)
            w.write(d)
    coll_path = tmp_path / "coll"
    args = ["ingest", str(src), "-o", str(coll_path), "--no-progress", "--json"]
    args += ["--set", "warc.max_file_bytes=2e6"]
    # random access is the subject: main-content extraction and language tagging are not
    args += ["--set", "extract.enabled=false", "--set", "langid.enabled=false"]
    assert main(args) == 0
    with Collection.open(coll_path) as coll:
        assert len(coll.warc_files()) > 1  # rotated
        for d in docs:
            rec = coll.find(d.url)
            assert coll.read(rec).raw == d.raw, d.url


@pytest.mark.skipif(shutil.which("trawl") is None, reason="console script not installed")
def test_console_script(tmp_path: Path) -> None:
    r = subprocess.run(["trawl", "--help"], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "ingest" in r.stdout
    r = subprocess.run(["trawl", "show", str(tmp_path)], capture_output=True, text=True, check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
