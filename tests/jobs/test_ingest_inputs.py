"""What ``trawl ingest DIR`` reads: nothing outside the folder, never its own output, archives as archives.

Each test runs the command a user ran (issue 31, items 4-6) and checks the collection.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.store.collection import Collection


def _urls(collection: Path) -> list[str]:
    with Collection.open(collection) as coll:
        return sorted(r.url for r in coll.records())


def _counters(collection: Path) -> dict[str, int]:
    stats = sorted((collection / "stats").glob("*.json"))[-1]
    counters: dict[str, int] = json.loads(stats.read_text())["counters"]
    return counters


def _response(url: str, body: bytes) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    head = (
        f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{abs(hash(url)):032x}>\r\n"
        f"WARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: {url}\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    )
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(head.encode() + http + b"\r\n\r\n") + packer.flush()


def test_a_symlink_out_of_the_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("a secret that lives outside the folder")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text("a note inside the folder")
    (folder / "inside-link.txt").symlink_to(folder / "note.txt")
    (folder / "passwd").symlink_to(outside)
    assert main(["ingest", str(folder), "-o", str(tmp_path / "c"), "--no-progress"]) == 0
    urls = _urls(tmp_path / "c")
    assert urls == [(folder / "note.txt").resolve().as_uri()]  # the inside link is that same file
    assert _counters(tmp_path / "c")["read/skipped/symlink-outside"] == 1
    # the user says so: links are followed
    args = ["ingest", str(folder), "-o", str(tmp_path / "d"), "--no-progress"]
    assert main([*args, "--set", "local.follow_symlinks=true"]) == 0
    assert outside.resolve().as_uri() in _urls(tmp_path / "d")


def test_the_collection_inside_the_folder_is_never_ingested(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("the only document of the folder, about rivers")
    args = ["ingest", str(folder), "-o", str(folder / "coll"), "--no-progress"]
    assert main(args) == 0
    assert main(args) == 0  # again: the collection's WARC files, table and stats are not inputs
    assert _urls(folder / "coll") == [(folder / "a.txt").resolve().as_uri()]
    assert _counters(folder / "coll")["read/skipped/output"] == 1
    assert _counters(folder / "coll").get("store/records", 0) == 0  # stored already on the first run


def test_archives_beside_other_files_are_read_as_archives(tmp_path: Path) -> None:
    folder = tmp_path / "crawl"
    folder.mkdir()
    (folder / "part-0.warc.gz").write_bytes(
        _response("http://example.org/a", b"<title>A</title><p>page a")
        + _response("http://example.org/b", b"<title>B</title><p>page b")
    )
    (folder / "README").write_text("Two pages crawled from example.org.")
    (folder / "SHA256SUMS").write_text("0" * 64 + "  part-0.warc.gz\n")
    assert main(["ingest", str(folder), "-o", str(tmp_path / "c"), "--no-progress"]) == 0
    urls = _urls(tmp_path / "c")
    assert "http://example.org/a" in urls and "http://example.org/b" in urls
    names = sorted(u.rsplit("/", 1)[-1] for u in urls if u.startswith("file:"))
    assert names == ["README", "SHA256SUMS"]  # the rest of the folder, one document a file
    assert _counters(tmp_path / "c")["read/archives"] == 1


@pytest.mark.parametrize("follow", [False, True])
def test_a_link_to_a_folder_outside_is_entered_only_when_asked(tmp_path: Path, follow: bool) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "far.txt").write_text("far away from the folder")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "near.txt").write_text("near, inside the folder")
    (folder / "away").symlink_to(elsewhere, target_is_directory=True)
    args = ["ingest", str(folder), "-o", str(tmp_path / "c"), "--no-progress"]
    assert main([*args, "--set", f"local.follow_symlinks={str(follow).lower()}"]) == 0
    names = sorted(u.rsplit("/", 1)[-1] for u in _urls(tmp_path / "c"))
    assert names == (["far.txt", "near.txt"] if follow else ["near.txt"])


def test_a_corrupt_gzip_warc_is_a_counted_drop_with_its_reason(tmp_path: Path) -> None:
    good = _response("http://example.org/a", b"<title>A</title><p>page a")
    broken = bytearray(good)
    broken[12] ^= 0xFF  # the deflate stream damaged from its first block: nothing decompresses
    broken[13] ^= 0x55
    (tmp_path / "corrupt.warc.gz").write_bytes(bytes(broken))
    assert (
        main(["ingest", str(tmp_path / "corrupt.warc.gz"), "-o", str(tmp_path / "c"), "--no-progress"]) == 0
    )
    counters = _counters(tmp_path / "c")
    assert counters.get("store/records", 0) == 0  # not stored as one opaque file
    drops = [
        json.loads(line)
        for line in next((tmp_path / "c" / "stats").glob("*.drops.jsonl")).read_text().splitlines()
    ]
    assert [d["reason"] for d in drops] == ["warc/truncated-gzip"] and "broken" in drops[0]["message"]
