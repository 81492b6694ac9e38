"""Every CLI error a user can cause is one line saying what and why, with a non-zero exit (issue 31,
items 10 and 12): bad option values, a regular expression that does not compile, a port in use,
and a conversion over its memory limit, which is a ``<format>-memory`` drop, not a traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.convert.corpus import build
from trawl.cli.main import main


def _one_line_error(capfd: pytest.CaptureFixture[str]) -> str:
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and "error" in lines[-1], err
    return lines[-1]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["dedup", "C", "--simhash-k", "64"], "--simhash-k: 64 must be at most 63"),
        (["dedup", "C", "--threshold", "1.5"], "--threshold: 1.5 must be at most 1"),
        (["crawl", "http://127.0.0.1:9/", "-o", "X", "--include", "(["], "is not a regular expression"),
        (["crawl", "http://127.0.0.1:9/", "-o", "X", "--max-pages", "0"], "--max-pages: 0 must be at least"),
        (["testweb", "--hosts", "0"], "--hosts: 0 must be at least 1"),
        (["testweb", "--port", "99999"], "--port: 99999 must be at most 65535"),
        (["extract", "--max-chars", "-5", "x.html"], "--max-chars: -5 must be at least 1"),
        (["convert", "--timeout", "0", "x.pdf"], "--timeout: 0 must be more than 0"),
    ],
)
def test_bad_option_values_are_one_line(
    argv: list[str], says: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / a) if a in ("C", "X") else a for a in argv]
    assert main(argv) == 2
    assert says in _one_line_error(capfd)
    assert not (tmp_path / "X").exists()  # nothing left behind


def test_a_port_in_use_is_one_line(capfd: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["testweb", "--port", str(port), "--duration", "1"]) == 1
    assert "address already in use" in _one_line_error(capfd)


def test_a_conversion_over_its_memory_limit_is_a_memory_drop(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(build("pdf", seed=3, size=3).data)
    assert main(["convert", "--json", "--max-memory", "1", str(paper)]) == 1
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err, captured.err
    row = json.loads(captured.out)
    assert row["dropped"] == "pdf-memory" and "memory" in row["message"]


def test_extract_refuses_what_is_not_a_page_and_says_what_it_is(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    broken = b"\x1f\x8b\x08\x00" + b"garbage" * 10
    (tmp_path / "bad.html.gz").write_bytes(broken)
    (tmp_path / "bad.gz").write_bytes(broken)
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(build("pdf", seed=3, size=3).data)
    for name, says in [("bad.html.gz", "corrupt"), ("bad.gz", "corrupt"), ("paper.pdf", "application/pdf")]:
        assert main(["extract", str(tmp_path / name)]) == 1
        out, err = capfd.readouterr()
        assert out == "" and says in err and "Traceback" not in err, (name, err)
    # and ingest records why such a file stayed packed
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "bad.html.gz").write_bytes(broken)
    assert main(["ingest", str(folder), "-o", str(tmp_path / "c"), "--json"]) == 0
    counters = json.loads(capfd.readouterr().out)["counters"]
    assert counters["decode/content-encoding-error"] == 1


def test_a_failed_command_leaves_no_collection_behind(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(tmp_path / "missing.warc.gz"), "-o", str(tmp_path / "bad1")]) == 1
    assert "does not exist" in _one_line_error(capfd) and not (tmp_path / "bad1").exists()
    argv = ["crawl", "http://127.0.0.1:9/", "-o", str(tmp_path / "bad2"), "--resolve", "garbage"]
    assert main(argv) == 2
    assert "--resolve" in _one_line_error(capfd) and not (tmp_path / "bad2").exists()
    # a folder that was there before is left as it was
    kept = tmp_path / "kept"
    (kept / "notes").mkdir(parents=True)
    assert main(["ingest", str(tmp_path / "missing.warc.gz"), "-o", str(kept)]) == 1
    assert (kept / "notes").is_dir()


def test_a_run_that_could_do_nothing_says_so(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # refused seeds: each named with its reason, and a crawl with none left is an error
    argv = ["crawl", "ftp://files.example/", "not a url", "-o", str(tmp_path / "c1"), "--no-progress"]
    assert main(argv) == 1
    err = capfd.readouterr().err
    assert "seed 'ftp://files.example/' refused" in err and "seed 'not a url' refused" in err
    assert "every seed was refused" in err and not (tmp_path / "c1").exists()
    # an empty folder
    (tmp_path / "empty").mkdir()
    assert main(["ingest", str(tmp_path / "empty"), "-o", str(tmp_path / "c2"), "--no-progress"]) == 1
    assert "nothing to ingest" in _one_line_error(capfd) and not (tmp_path / "c2").exists()
    # a pattern that matches nothing
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("some words of a note")
    assert main(["stats", "--files", str(tmp_path / "notes"), "--pattern", "*.xyz"]) == 1
    assert "matches --pattern '*.xyz'" in _one_line_error(capfd)
    # a URL given to --prefix is read as its SURT, and a prefix with no record says so
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("the words of one document about rivers and banks")
    assert main(["ingest", str(folder), "-o", str(tmp_path / "c3"), "--no-progress"]) == 0
    capfd.readouterr()
    assert main(["stats", str(tmp_path / "c3"), "--prefix", "http://nowhere.example/", "--json"]) == 1
    err = capfd.readouterr().err
    assert "reading 'http://nowhere.example/' as 'example,nowhere)/'" in err and "no record under" in err
    assert main(["stats", str(tmp_path / "c3"), "--prefix", folder.resolve().as_uri() + "/", "--json"]) == 0
    assert json.loads(capfd.readouterr().out)["documents"] == 1


def test_extract_plots_one_file_per_page(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    page = (
        "<html><body>"
        + "<p>A paragraph of words about rivers, banks and the sea.</p>" * 20
        + "</body></html>"
    )
    for folder in ("c1", "c2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "page.html").write_text(page)
    files = [str(tmp_path / "c1" / "page.html"), str(tmp_path / "c2" / "page.html")]
    assert main(["extract", "--json", "--plot", str(tmp_path / "plots"), *files]) == 0
    rows = [json.loads(line) for line in capfd.readouterr().out.splitlines()]
    assert len({row["plot"] for row in rows}) == 2
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["c2-page.png", "page.png"]


def test_the_smaller_ones(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # help texts keep their capitals
    assert main(["ingest", "--help"]) == 0
    assert "Read WARC/ARC files, TREC Web files" in capfd.readouterr().out
    assert main(["detect-encoding", "--help"]) == 0
    assert "(Python codec name)" in capfd.readouterr().out
    # an unknown option of a command prints that command's usage
    assert main(["ingest", "x", "-o", str(tmp_path / "c"), "--bogus"]) == 2
    err = capfd.readouterr().err
    assert err.startswith("usage: trawl ingest") and "unrecognized arguments: --bogus" in err
    # --langs only goes with --table
    assert main(["langid", "--langs", "en,de", "some text"]) == 2
    assert "give --table too" in capfd.readouterr().err
    # get prints no None for a file's status or a binary's encoding
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("a plain text file with a few words")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    assert main(["ingest", str(folder), "-o", str(tmp_path / "c"), "--no-progress"]) == 0
    capfd.readouterr()
    for name in ("a.txt", "logo.png"):
        assert main(["get", str(tmp_path / "c"), (folder / name).resolve().as_uri()]) == 0
        out = capfd.readouterr().out
        assert "None" not in out, out


def test_dedup_near_help_is_the_search_s(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["dedup", "near", "--help"]) == 0
    near = capfd.readouterr().out
    assert main(["dedup", "--help"]) == 0
    both = capfd.readouterr().out
    assert near.startswith("usage: trawl dedup near COLLECTION") and "Search:" in near
    assert both.startswith("usage: trawl dedup COLLECTION") and "Discovery" in both and near != both
