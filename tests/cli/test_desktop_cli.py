"""``trawl ingest DIR`` as a desktop crawl, ``trawl get`` of a deleted file, ``trawl crawl file:``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trawl.cli.main import main

FAST = ["--set", "ingest.workers=0", "--set", "langid.enabled=false", "--set", "extract.enabled=false"]


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    for rel, text in {
        "a.txt": "alpha",
        "b.md": "# bee",
        "drafts/c.txt": "draft",
        ".cache/d.txt": "hidden",
        "node_modules/e.txt": "system",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def counters(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(argv) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)["counters"]
    return out


def local(c: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in c.items() if k.startswith("local/")}


def test_ingest_twice_reads_only_what_changed(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coll = str(tmp_path / "c")
    base = ["ingest", str(home), "-o", coll, "--json", *FAST]
    first = counters(capsys, base)
    assert local(first) == {"local/new": 3}
    assert first["read/skipped/hidden"] == 1 and first["read/skipped/system"] == 1
    # a run with nothing to do is not "nothing to ingest"
    assert local(counters(capsys, base)) == {"local/unchanged": 3}
    (home / "b.md").unlink()
    assert local(counters(capsys, base)) == {"local/unchanged": 2, "local/deleted": 1}
    full = counters(capsys, [*base, "--full"])  # everything read again; the writer skips what it has
    assert local(full) == {} and full["read/files"] == 2 and full["store/skipped/already-stored"] == 2

    assert main(["get", coll, (home / "b.md").as_uri()]) == 0
    out = capsys.readouterr().out
    assert "deleted" in out and "--as-of" in out
    assert main(["get", coll, (home / "b.md").as_uri(), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deleted"]["reason"] == "deleted" and data["record_type"] == "deleted"
    assert main(["get", coll, (home / "b.md").as_uri(), "--raw"]) != 0
    assert "was deleted at" in capsys.readouterr().err
    assert main(["get", coll, (home / "b.md").as_uri(), "--versions"]) == 0
    assert "deleted (the file is gone)" in capsys.readouterr().out
    assert main(["get", coll, (home / "a.txt").as_uri(), "--json"]) == 0
    access = json.loads(capsys.readouterr().out)["metadata"]["access"]
    assert set(access) >= {"uid", "gid", "owner", "group", "mode", "acl"}


def test_ingest_folder_flags(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = counters(
        capsys,
        [
            "ingest", str(home), "-o", str(tmp_path / "c"), "--json", *FAST,
            "--include-hidden", "--include-system", "--exclude", "drafts", "--max-files-per-second", "1000",
        ],
    )  # fmt: skip
    assert local(c) == {"local/new": 4}  # a, b, .cache/d, node_modules/e; not drafts/
    assert c["read/skipped/excluded"] == 1
    assert main(["ingest", str(home), "-o", str(tmp_path / "x"), "--max-files-per-second", "-1"]) == 2
    assert "must be at least 0" in capsys.readouterr().err


def test_crawl_of_a_file_url_is_a_desktop_ingest(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coll = str(tmp_path / "c")
    c = counters(capsys, ["crawl", home.as_uri() + "/", "-o", coll, "--json", *FAST])
    assert local(c) == {"local/new": 3}
    assert local(counters(capsys, ["crawl", home.as_uri(), "-o", coll, "--json", *FAST])) == {
        "local/unchanged": 3
    }
    assert main(["crawl", home.as_uri(), "http://example.test/", "-o", str(tmp_path / "d")]) != 0
    assert "two commands" in capsys.readouterr().err
    assert main(["crawl", "file://fileserver/share/", "-o", str(tmp_path / "e")]) != 0
    assert "mount the share" in capsys.readouterr().err
    assert not (tmp_path / "d").exists() and not (tmp_path / "e").exists()


def test_a_file_excluded_later_leaves_as_excluded_not_deleted(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file still on disk that a later ingest's filters leave out gets a tombstone that says
    "excluded" (counted local/excluded), not "deleted (the file is gone)"."""
    coll = str(tmp_path / "c")
    first = counters(capsys, ["ingest", str(home), "-o", coll, "--json", *FAST])
    assert first["local/new"] >= 2
    c = counters(capsys, ["ingest", str(home), "-o", coll, "--json", *FAST, "--exclude", "a.txt"])
    assert c.get("local/excluded") == 1 and not c.get("local/deleted"), local(c)
    url = (home / "a.txt").resolve().as_uri()
    capsys.readouterr()
    assert main(["get", coll, url]) == 0
    out = capsys.readouterr().out
    assert "excluded" in out and "is gone" not in out


def test_freshness_of_a_desktop_collection_is_a_clear_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder ingest keeps its state in ``frontier/desktop.sqlite``, which is no crawl frontier:
    ``trawl freshness`` says the collection holds none (it crashed on a missing ``urls`` table)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Some words in a file.", encoding="utf-8")
    out = tmp_path / "coll"
    assert main(["ingest", str(folder), "-o", str(out), "--no-progress"]) == 0
    assert list((out / "frontier").glob("*.sqlite"))  # the desktop state is there
    capsys.readouterr()
    code = main(["freshness", str(out)])
    err = capsys.readouterr().err
    assert code != 0 and "no crawl frontier" in err, (code, err)
