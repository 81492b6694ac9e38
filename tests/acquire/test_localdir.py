"""LocalDirSource: a deterministic, defensive walk of a directory tree, one document per file."""

from __future__ import annotations

import gzip
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trawl.acquire.localdir import LocalDirSource, guess_type
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import RunContext


def read(roots: list[Path], **options: Any) -> tuple[list[Document], RunContext]:
    ctx = RunContext()
    return list(LocalDirSource(roots, **options).read(ctx)), ctx


def reasons(ctx: RunContext) -> list[str]:
    return [e.reason for e in ctx.audit.entries]


def names(docs: list[Document], root: Path) -> list[str]:
    return [Path(d.source).relative_to(root).as_posix() for d in docs]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    files = {
        "b.txt": b"bee\n",
        "a.html": b"<html><title>A</title></html>",
        "notes/2024/jan.md": b"# January\n",
        "notes/z.jsonl": b'{"a": 1}\n',
        "notes/archive.warc": b"WARC/1.1\r\n",
        "notes/page.html.gz": gzip.compress(b"<p>hi</p>"),
        "c/unknown.zzqq": b"\x00\x01",
        ".hidden/secret.txt": b"no",
        ".dotfile": b"no",
        "drafts/draft.txt": b"draft",
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    os.utime(root / "b.txt", (1_700_000_000, 1_700_000_000.75))
    return root


def test_walk_is_sorted_and_documents_are_complete(tree: Path) -> None:
    docs, ctx = read([tree])
    assert names(docs, tree) == [
        "a.html",
        "b.txt",
        "c/unknown.zzqq",
        "drafts/draft.txt",
        "notes/2024/jan.md",
        "notes/archive.warc",
        "notes/page.html.gz",
        "notes/z.jsonl",
    ]
    b = docs[1]
    assert b.url == (tree / "b.txt").resolve().as_uri() and b.url.startswith("file:///")
    assert b.raw == b"bee\n"
    assert b.fetched_at == datetime.fromtimestamp(1_700_000_000, UTC)
    assert b.fetched_at is not None and b.fetched_at.tzinfo is not None
    assert b.record_type == "resource"
    assert b.declared_type == "text/plain"
    assert b.source == str(tree / "b.txt")
    st = (tree / "b.txt").stat()
    access = {"uid": st.st_uid, "gid": st.st_gid, "mode": f"{st.st_mode & 0o7777:04o}", "acl": None}
    assert b.metadata["access"].items() >= access.items()  # who may read it (test_desktop.py)
    assert {k: v for k, v in b.metadata.items() if k != "access"} == {"size": 4, "path": str(tree / "b.txt")}
    types = {Path(d.source).name: d.declared_type for d in docs}
    assert types["a.html"] == "text/html"
    assert types["jan.md"] == "text/markdown"
    assert types["z.jsonl"] == "application/jsonl"
    assert types["archive.warc"] == "application/warc"
    assert types["page.html.gz"] == "application/gzip"  # raw is the compressed file
    assert types["unknown.zzqq"] is None
    assert docs[6].metadata["compressed_type"] == "text/html"
    assert ctx.stats["read/files"] == ctx.stats["read/records"] == 8
    assert ctx.stats["read/bytes"] == sum(len(d.raw) for d in docs)
    assert ctx.stats["read/skipped/hidden"] == 2  # .hidden (not entered) and .dotfile
    assert ctx.audit.entries == []


def test_two_runs_give_the_same_order(tree: Path) -> None:
    first, _ = read([tree])
    second, _ = read([tree])
    assert [d.url for d in first] == [d.url for d in second]


def test_hidden_files_can_be_included(tree: Path) -> None:
    docs, ctx = read([tree], skip_hidden=False)
    assert {".dotfile", ".hidden/secret.txt"} <= set(names(docs, tree))
    assert ctx.stats["read/skipped/hidden"] == 0


def test_include_and_exclude(tree: Path) -> None:
    docs, ctx = read([tree], include=["*.txt", "*.md"], exclude=["drafts"])
    assert names(docs, tree) == ["b.txt", "notes/2024/jan.md"]
    # drafts/ is pruned (1); a.html, unknown.zzqq, archive.warc, page.html.gz, z.jsonl are not included (5)
    assert ctx.stats["read/skipped/excluded"] == 6
    docs, _ = read([tree], exclude=["notes/*"])
    assert names(docs, tree) == ["a.html", "b.txt", "c/unknown.zzqq", "drafts/draft.txt"]


def test_a_root_may_be_a_single_file(tree: Path) -> None:
    docs, ctx = read([tree / "b.txt", tree / ".dotfile"], include=["*.html"])
    assert [Path(d.source).name for d in docs] == ["b.txt", ".dotfile"]  # named roots are never filtered
    assert ctx.stats["read/records"] == 2


def test_missing_root_is_a_drop(tmp_path: Path, tree: Path) -> None:
    docs, ctx = read([tmp_path / "nope", tree / "b.txt"])
    assert len(docs) == 1
    assert reasons(ctx) == ["local/unreadable"] and "nope" in ctx.audit.entries[0].message


def test_unreadable_file(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open
    denied = str(tree / "b.txt")

    def fake_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == denied:
            raise PermissionError(13, "Permission denied", denied)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    docs, ctx = read([tree])
    assert "b.txt" not in names(docs, tree) and len(docs) == 7
    assert reasons(ctx) == ["local/unreadable"]
    entry = ctx.audit.entries[0]
    assert entry.stage == "local" and entry.source == denied and "Permission denied" in entry.message
    assert ctx.stats["drop/local/unreadable"] == 1


def test_unreadable_directory(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_scandir = os.scandir
    denied = str(tree / "notes")

    def fake_scandir(path: Any) -> Any:
        if os.fspath(path) == denied:
            raise PermissionError(13, "Permission denied", denied)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", fake_scandir)
    docs, ctx = read([tree])
    assert names(docs, tree) == ["a.html", "b.txt", "c/unknown.zzqq", "drafts/draft.txt"]
    assert reasons(ctx) == ["local/unreadable"] and "cannot list directory" in ctx.audit.entries[0].message


def test_file_removed_between_listing_and_reading(tree: Path) -> None:
    ctx = RunContext()
    it: Iterator[Document] = LocalDirSource([tree]).read(ctx)
    assert Path(next(it).source).name == "a.html"  # the root is listed now
    (tree / "b.txt").unlink()
    rest = list(it)
    assert "b.txt" not in [Path(d.source).name for d in rest] and len(rest) == 6
    assert reasons(ctx) == ["local/unreadable"] and "b.txt" in ctx.audit.entries[0].message


def test_broken_symlink(tree: Path) -> None:
    (tree / "dangling").symlink_to(tree / "does-not-exist")
    docs, ctx = read([tree])
    assert len(docs) == 8
    assert reasons(ctx) == ["local/broken-symlink"]
    assert "does-not-exist" in ctx.audit.entries[0].message
    assert ctx.audit.entries[0].source == str(tree / "dangling")


def test_symlink_loop(tree: Path) -> None:
    (tree / "loop-a").symlink_to(tree / "loop-b")
    (tree / "loop-b").symlink_to(tree / "loop-a")
    docs, ctx = read([tree])
    assert len(docs) == 8
    assert reasons(ctx) == ["local/symlink-loop", "local/symlink-loop"]


def test_symlinked_files_are_read_and_directories_followed_only_on_request(tree: Path) -> None:
    (tree / "link.txt").symlink_to(tree / "b.txt")
    (tree / "c" / "up").symlink_to(tree)  # a directory cycle
    (tree / "elsewhere").symlink_to(tree / "notes" / "2024")
    docs, ctx = read([tree])
    link = next(d for d in docs if d.source.endswith("link.txt"))
    assert link.raw == b"bee\n" and link.url == (tree / "b.txt").resolve().as_uri()
    assert ctx.stats["read/skipped/symlink-dir"] == 2
    assert ctx.audit.entries == []

    docs, ctx = read([tree], follow_symlinks=True)
    assert "elsewhere/jan.md" in names(docs, tree)
    assert reasons(ctx) == ["local/symlink-loop"]  # c/up leads back to the root: reported, not walked
    assert ctx.audit.entries[0].source == str(tree / "c" / "up")
    assert len(docs) == 10  # 8 files, link.txt, elsewhere/jan.md


def test_too_large_is_never_opened(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tree / "big.bin"
    big.write_bytes(b"x" * 5000)
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    docs, ctx = read([tree], max_file_bytes=1000)
    assert str(big) not in opened
    assert len(docs) == 8
    assert reasons(ctx) == ["local/too-large"] and "5000 bytes" in ctx.audit.entries[0].message


@pytest.mark.timeout(10)
def test_fifo_and_socket_are_not_regular_and_never_block(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cwd = os.getcwd()
    os.chdir(tree)  # AF_UNIX paths are short; bind relative to the tree
    try:
        sock.bind("sock")
        docs, ctx = read([tree, tree / "pipe"])
    finally:
        os.chdir(cwd)
        sock.close()
    assert len(docs) == 8
    assert reasons(ctx) == ["local/not-regular", "local/not-regular", "local/not-regular"]
    messages = [e.message for e in ctx.audit.entries]
    assert "FIFO" in messages[0] and "socket" in messages[1] and "FIFO" in messages[2]


def test_fifo_swapped_in_after_stat_does_not_block(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regular file replaced by a FIFO between stat and open: the open must not wait."""
    target = tree / "b.txt"
    real_stat = os.stat

    def stat_then_swap(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        result = real_stat(path, *args, **kwargs)
        if os.fspath(path) == str(target):
            target.unlink()
            os.mkfifo(target)
        return result

    monkeypatch.setattr(os, "stat", stat_then_swap)
    docs, ctx = read([tree])
    assert len(docs) == 7
    assert reasons(ctx) == ["local/not-regular"]


def test_guess_type() -> None:
    assert guess_type("a.html") == ("text/html", None)
    assert guess_type("x.warc.gz") == ("application/gzip", "application/warc")
    assert guess_type("x.jsonl.zst") == ("application/zstd", "application/jsonl")
    assert guess_type("README.md") == ("text/markdown", None)
    assert guess_type("no-extension") == (None, None)


def test_bad_options() -> None:
    with pytest.raises(ConfigError, match="max_file_bytes"):
        LocalDirSource([], max_file_bytes=0)
    with pytest.raises(ConfigError, match="lists of patterns"):
        LocalDirSource([], include="*.txt")


def test_empty_file_is_a_recorded_drop(tree: Path) -> None:
    (tree / "zero.txt").write_bytes(b"")
    docs, ctx = read([tree / "zero.txt", tree / "b.txt"])
    assert [Path(d.source).name for d in docs] == ["b.txt"]
    assert reasons(ctx) == ["local/empty-file"] and "zero.txt" in ctx.audit.entries[0].message
