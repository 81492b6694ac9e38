"""The desktop crawl that follows the disk: incremental ingest, tombstones, renames, watch,
resource budget, who may read a file, ignore files and system folders. Real files in tmp dirs."""

from __future__ import annotations

import os
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from trawl.acquire.access import ACL_XATTR, AclError, access_of, decode_acl
from trawl.acquire.budget import ResourceBudget, on_battery
from trawl.acquire.desktop import STATE_FILE, ChangeTracker, FileState
from trawl.acquire.ignore import is_system_folder
from trawl.acquire.localdir import LocalDirSource
from trawl.jobs.ingest import IngestResult, ingest
from trawl.pipeline.base import RunContext
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

# conversion in this process: no worker start-up in small tests; no language model to load
FAST = ["ingest.workers=0", "langid.enabled=false", "extract.enabled=false"]


def make_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    make_tree(
        root,
        {
            "a.txt": "alpha text about rivers\n",
            "b.html": "<html><title>Bee</title><p>bees and honey</p></html>",
            "notes/c.md": "# Sea\n\nwaves and salt\n",
            "notes/deep/d.txt": "delta document\n",
        },
    )
    return root


def run(root: Path, coll: Path, **kw: Any) -> IngestResult:
    collection = Collection.create(coll, overrides=FAST)
    with collection:
        return ingest([root], collection, **kw)


def local(result: IngestResult) -> dict[str, int]:
    return result.stats.prefix("local/")


@pytest.fixture()
def opens(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], list[str]]:
    """Every ``os.open`` / ``open`` of a path under a folder, recorded."""
    seen: list[str] = []
    real_os_open = os.open
    import builtins

    real_open = builtins.open

    def os_open(path: Any, *args: Any, **kw: Any) -> int:
        seen.append(os.fspath(path) if not isinstance(path, int) else "")
        return real_os_open(path, *args, **kw)

    def open_(file: Any, *args: Any, **kw: Any) -> Any:
        if isinstance(file, str | os.PathLike):
            seen.append(os.fspath(file))
        return real_open(file, *args, **kw)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", open_)

    def under(root: Path) -> list[str]:
        prefix = str(root)
        return [p for p in seen if str(p).startswith(prefix)]

    return under


def test_an_unchanged_tree_is_only_stat_ed(
    tree: Path, tmp_path: Path, opens: Callable[[Path], list[str]]
) -> None:
    coll = tmp_path / "coll"
    first = run(tree, coll)
    assert local(first) == {"local/new": 4}
    assert first.stats.get("store/records") == 4
    assert len(opens(tree)) >= 4  # read (and sniffed) the first time
    before = len(opens(tree))
    second = run(tree, coll)
    assert local(second) == {"local/unchanged": 4}
    assert second.stats.get("store/records") == 0
    assert opens(tree)[before:] == []  # not one file of the tree opened: stat only
    assert (coll / STATE_FILE).is_file()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_an_unreadable_unchanged_file_is_not_touched(tree: Path, tmp_path: Path) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    (tree / "a.txt").chmod(0)
    try:
        again = run(tree, coll)
    finally:
        (tree / "a.txt").chmod(0o644)
    assert again.stats.get("drop/local/unreadable") == 0
    assert again.stats.get("local/unchanged") == 4
    with Collection.open(coll) as c:  # who may read it is updated, from stat alone
        assert c.find((tree / "a.txt").as_uri()).as_dict()["metadata"]["access"]["mode"] == "0000"


def test_touch_changes_nothing_and_a_new_content_is_one_new_version(tree: Path, tmp_path: Path) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    url = (tree / "a.txt").as_uri()
    st = (tree / "a.txt").stat()
    os.utime(tree / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    touched = run(tree, coll)
    assert local(touched) == {"local/unchanged": 3, "local/unchanged-content": 1}
    assert touched.stats.get("store/records") == 0
    # new bytes, same size and (forced) the same mtime second as the stored capture
    (tree / "a.txt").write_text("ALPHA TEXT ABOUT RIVERS\n", encoding="utf-8")
    os.utime(tree / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_001))
    changed = run(tree, coll)
    assert local(changed) == {"local/unchanged": 3, "local/changed": 1}
    assert changed.stats.get("store/records") == 1  # exactly its row
    with Collection.open(coll) as c:
        versions = c.versions(url)
        assert [v.text.strip() for v in versions] == ["alpha text about rivers", "ALPHA TEXT ABOUT RIVERS"]
        # the second version sorts after the first even though the mtime second is the same
        assert versions[1].capture["fetched_at"] > versions[0].capture["fetched_at"]


def test_a_deleted_file_gets_a_tombstone_version(tree: Path, tmp_path: Path) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    url = (tree / "notes" / "c.md").as_uri()
    (tree / "notes" / "c.md").unlink()
    gone = run(tree, coll)
    assert local(gone) == {"local/unchanged": 3, "local/deleted": 1}
    with Collection.open(coll) as c:
        record = c.find(url)
        assert record.deleted is not None and record.deleted["reason"] == "deleted"
        assert record.as_dict()["record_type"] == "deleted" and record.text == ""
        versions = c.versions(url)
        assert [v.capture["record_type"] for v in versions] == ["resource", "deleted"]
        assert "waves" in versions[0].text  # the content before stays readable
        assert url not in {r.url for r in c.records()}
        assert all(r.url != url or not r.deleted for r in c.captures())
    again = run(tree, coll)  # the tombstone is written once
    assert local(again) == {"local/unchanged": 3}
    # the file comes back: a new version after the tombstone, not hidden behind it
    make_tree(tree, {"notes/c.md": "# Sea\n\nwaves and salt\n"})
    os.utime(tree / "notes" / "c.md", (1_000_000_000, 1_000_000_000))  # an old mtime
    back = run(tree, coll)
    assert local(back) == {"local/unchanged": 3, "local/new": 1}
    with Collection.open(coll) as c:
        assert c.find(url).deleted is None and "waves" in c.find(url).text


def test_a_rename_moves_the_row(tree: Path, tmp_path: Path) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    old, new = tree / "notes" / "deep" / "d.txt", tree / "aaa-moved.txt"  # sorts before the old path
    os.rename(old, new)
    moved = run(tree, coll)
    assert local(moved) == {"local/unchanged": 3, "local/renamed": 1}
    with Collection.open(coll) as c:
        tomb = c.find(old.as_uri())
        assert tomb.deleted is not None and tomb.deleted["moved_to"] == new.as_uri()
        row = c.find(new.as_uri())
        assert row.as_dict()["metadata"]["moved_from"] == old.as_uri()
        assert row.revisit_of is not None  # the bytes are stored once
        assert c.read(row).raw == b"delta document\n"
    # a copy elsewhere with new bytes under the old name is new, not a rename back
    assert local(run(tree, coll)) == {"local/unchanged": 4}


def test_a_new_copy_is_no_rename_of_a_link_whose_file_is_still_there(tree: Path, tmp_path: Path) -> None:
    """A symlink inside the folder is read as its target's URL; when the link goes and a copy of
    the target appears, the copy is new: the target's row, whose file is still there, keeps no
    tombstone."""
    coll = tmp_path / "coll"
    os.symlink("a.txt", tree / "link.txt")
    run(tree, coll)
    (tree / "link.txt").unlink()
    (tree / "z-copy.txt").write_bytes((tree / "a.txt").read_bytes())
    result = run(tree, coll)
    assert "local/renamed" not in local(result) and "local/deleted" not in local(result)
    with Collection.open(coll) as c:
        assert c.find((tree / "a.txt").as_uri()).deleted is None
        assert c.find((tree / "z-copy.txt").as_uri()).deleted is None


def test_a_folder_that_cannot_be_listed_deletes_nothing(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    real = os.scandir
    notes = str(tree / "notes")

    def scandir(path: Any = ".") -> Any:
        if os.fspath(path) == notes:
            raise PermissionError(13, "Permission denied", notes)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run(tree, coll)
    assert result.stats.get("drop/local/unreadable") == 1
    assert local(result) == {"local/unchanged": 2}  # and no local/deleted


def test_an_interrupted_walk_decides_no_deletions(tree: Path, tmp_path: Path) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    (tree / "b.html").unlink()
    stop = threading.Event()
    with Collection.open(coll) as c:
        state = FileState(coll / STATE_FILE)
        tracker = ChangeTracker(state, c)
        source = LocalDirSource([tree], changes=tracker, stop=stop)
        ctx = RunContext()
        stop.set()  # as a SIGTERM during the walk does
        assert list(source.read(ctx)) == []
        tracker.finish(ctx)
        state.close()
        assert tracker.interrupted
        assert c.find((tree / "b.html").as_uri()).deleted is None
    assert local(run(tree, coll)) == {"local/unchanged": 3, "local/deleted": 1}


# -- who may read it ---------------------------------------------------------------------------------


def acl_bytes(*entries: tuple[int, int, int]) -> bytes:
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def test_acl_entries_are_decoded() -> None:
    data = acl_bytes((0x01, 6, 0xFFFFFFFF), (0x02, 4, 0), (0x04, 4, 0xFFFFFFFF), (0x10, 4, 0), (0x20, 0, 0))
    entries = decode_acl(data)
    assert [e["tag"] for e in entries] == ["user_obj", "user", "group_obj", "mask", "other"]
    assert entries[0] == {"tag": "user_obj", "perm": "rw-"}
    assert entries[1]["id"] == 0 and entries[1]["perm"] == "r--" and entries[1]["name"] == "root"
    with pytest.raises(AclError, match="version 3"):
        decode_acl(struct.pack("<I", 3))
    with pytest.raises(AclError, match="4 \\+ 8\\*n"):
        decode_acl(b"\x02\x00\x00\x00\x01")
    with pytest.raises(AclError, match="unknown tag"):
        decode_acl(acl_bytes((0x40, 4, 0)))


def test_each_document_says_who_may_read_it(tree: Path, tmp_path: Path) -> None:
    (tree / "a.txt").chmod(0o640)
    docs = list(LocalDirSource([tree]).read(RunContext()))
    access = {Path(d.source).name: d.metadata["access"] for d in docs}
    a = access["a.txt"]
    st = (tree / "a.txt").stat()
    assert (a["uid"], a["gid"], a["mode"]) == (st.st_uid, st.st_gid, "0640")
    assert a["acl"] is None and "acl_error" not in a
    import pwd

    assert a["owner"] == pwd.getpwuid(st.st_uid).pw_name
    assert access_of(st)["owner"] == a["owner"]
    coll = tmp_path / "coll"
    run(tree, coll)
    with Collection.open(coll) as c:
        assert c.find((tree / "a.txt").as_uri()).as_dict()["metadata"]["access"]["mode"] == "0640"
    assert "access" not in next(iter(LocalDirSource([tree], record_access=False).read(RunContext()))).metadata


def test_a_posix_acl_is_recorded_where_the_file_system_has_one(tree: Path) -> None:
    data = acl_bytes(
        (0x01, 6, 0xFFFFFFFF), (0x02, 4, 4242), (0x04, 4, 0xFFFFFFFF), (0x10, 4, 0), (0x20, 4, 0)
    )
    try:
        os.setxattr(tree / "a.txt", ACL_XATTR, data)
    except OSError as exc:
        pytest.skip(f"this file system takes no POSIX ACL: {exc}")
    (doc,) = [d for d in LocalDirSource([tree]).read(RunContext()) if d.source.endswith("a.txt")]
    acl = doc.metadata["access"]["acl"]
    assert {"tag": "user", "perm": "r--", "id": 4242, "name": None} in acl


# -- what is skipped -----------------------------------------------------------------------------------


def test_ignore_files_system_folders_and_hidden_names(tmp_path: Path) -> None:
    root = tmp_path / "t"
    make_tree(
        root,
        {
            ".gitignore": "*.log\nbuild/\n",
            "keep.txt": "k",
            "x.log": "l",
            "build/out.txt": "o",
            "sub/.trawlignore": "!important.log\nsecret*\n",
            "sub/important.log": "i",
            "sub/other.log": "o",
            "sub/secret.txt": "s",
            "sub/fine.txt": "f",
            "lost+found/orphan.txt": "o",
            "__pycache__/m.txt": "p",
            "$RECYCLE.BIN/gone.txt": "g",
            ".config/app.txt": "c",
        },
    )
    options: dict[str, Any] = {"ignore_files": [".gitignore", ".trawlignore"]}
    ctx = RunContext()
    docs = list(LocalDirSource([root], **options).read(ctx))
    assert sorted(Path(d.source).relative_to(root).as_posix() for d in docs) == [
        "keep.txt",
        "sub/fine.txt",
        "sub/important.log",
    ]
    assert ctx.stats.get("read/skipped/ignored") == 4  # x.log, build/, sub/other.log, sub/secret.txt
    assert ctx.stats.get("read/skipped/system") == 3
    docs = list(LocalDirSource([root], skip_hidden=False, skip_system=False).read(RunContext()))
    names = {Path(d.source).relative_to(root).as_posix() for d in docs}
    assert {"lost+found/orphan.txt", "__pycache__/m.txt", "$RECYCLE.BIN/gone.txt", ".config/app.txt"} <= names
    assert is_system_folder("system volume information") and not is_system_folder("Systems")


def test_a_bad_ignore_file_is_a_counted_drop(tmp_path: Path) -> None:
    root = tmp_path / "t"
    make_tree(root, {"a.txt": "a"})
    (root / ".gitignore").mkdir()  # not a file: ignored as an ignore file
    (root / ".trawlignore").write_bytes(b"x" * ((1 << 20) + 1))
    ctx = RunContext()
    docs = list(LocalDirSource([root], ignore_files=[".gitignore", ".trawlignore"]).read(ctx))
    assert [Path(d.source).name for d in docs] == ["a.txt"]
    assert ctx.stats.get("drop/local/bad-ignore-file") == 1


# -- resource budget -------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_budget_paces_files_and_bytes() -> None:
    clock = FakeClock()
    budget = ResourceBudget(files_per_second=10, clock=clock, sleep=clock.sleep)
    stats = Stats()
    for _ in range(21):
        budget.before_read(100, stats)
    assert clock.now == pytest.approx(2.0)  # 21 files at 10/s: the last starts at 2 s
    clock = FakeClock()
    budget = ResourceBudget(mb_per_second=1, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        budget.before_read(500_000, stats)
    assert clock.now == pytest.approx(1.5)
    assert stats.get("budget/waited-ms") == 3500
    with pytest.raises(Exception, match="positive"):
        ResourceBudget(files_per_second=-1)


def test_time_idle_is_no_credit_for_a_burst() -> None:
    """A watch waits an hour for a change, a walk stats unchanged files for minutes: neither
    earns the right to read the next thousand files at once."""
    clock = FakeClock()
    budget = ResourceBudget(files_per_second=10, clock=clock, sleep=clock.sleep)
    stats = Stats()
    budget.before_read(100, stats)
    clock.now += 3600.0  # idle
    before = clock.now
    for _ in range(21):
        budget.before_read(100, stats)
    # 21 files at 10/s after the pause: at most a second's worth goes at once
    assert clock.now - before >= 1.0


def power(root: Path, **supplies: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, files in supplies.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        for key, value in files.items():
            (root / name / key).write_text(value + "\n")
    return root


def test_battery_is_read_from_power_supply(tmp_path: Path) -> None:
    assert on_battery(tmp_path / "none") is None
    mains = power(
        tmp_path / "a", AC={"type": "Mains", "online": "1"}, BAT0={"type": "Battery", "status": "Full"}
    )
    assert on_battery(mains) is False
    off = power(
        tmp_path / "b", AC={"type": "Mains", "online": "0"}, BAT0={"type": "Battery", "status": "Discharging"}
    )
    assert on_battery(off) is True
    only = power(tmp_path / "c", BAT0={"type": "Battery", "status": "Discharging"})
    assert on_battery(only) is True
    assert on_battery(power(tmp_path / "d")) is False  # a server: nothing listed


def test_the_budget_waits_while_on_battery(tmp_path: Path) -> None:
    root = power(tmp_path / "p", AC={"type": "Mains", "online": "0"})
    clock = FakeClock()

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if clock.now >= 12:
            (root / "AC" / "online").write_text("1\n")  # plugged in

    budget = ResourceBudget(pause_on_battery=True, power_supply=root, clock=clock, sleep=sleep)
    stats = Stats()
    budget.before_read(10, stats)
    assert 12 <= clock.now <= 15
    assert stats.get("budget/battery-pauses") == 1 and stats.get("budget/battery-ms") >= 12000
    budget.before_read(10, stats)  # on mains: no new pause
    assert stats.get("budget/battery-pauses") == 1


def test_a_budgeted_ingest_reads_no_faster_than_allowed(tree: Path, tmp_path: Path) -> None:
    collection = Collection.create(tmp_path / "coll", overrides=[*FAST, "local.max_files_per_second=20"])
    t0 = time.perf_counter()
    with collection:
        result = ingest([tree], collection)
    assert time.perf_counter() - t0 >= 3 / 20  # 4 files at 20/s: the last starts after 0.15 s
    assert result.stats.get("local/new") == 4


# -- watch -------------------------------------------------------------------------------------------------


def watch_events(
    root: Path, coll: Path, backend: str, steps: list[Callable[[], object]], key: list[str]
) -> Iterator[float]:
    """Run a watch; apply each of ``steps`` after the pass before, and yield how long each took
    to show up as its counter ``key[i]`` in a pass."""
    stop = threading.Event()
    passes: list[tuple[float, dict[str, int]]] = []
    done = threading.Event()

    def on_pass(_n: int, stats: Stats) -> None:
        passes.append((time.monotonic(), dict(stats.prefix("local/"))))
        done.set()

    collection = Collection.create(
        coll, overrides=[*FAST, f"local.watch_backend={backend}", "local.poll_interval=0.3"]
    )
    thread = threading.Thread(
        target=lambda: ingest([root], collection, watch=True, stop=stop, on_pass=on_pass)
    )
    thread.start()
    try:
        assert done.wait(30)
        time.sleep(0.3)  # the watcher is up
        for step, counter in zip(steps, key, strict=True):
            before = passes[-1][1].get(counter, 0)
            t0 = time.monotonic()
            step()
            while time.monotonic() - t0 < 10:
                if passes[-1][1].get(counter, 0) > before:
                    break
                time.sleep(0.02)
            yield next(t for t, c in passes if c.get(counter, 0) > before) - t0
    finally:
        stop.set()
        thread.join(30)
        collection.close()
    assert not thread.is_alive()


@pytest.mark.parametrize("backend", ["watchfiles", "poll"])
def test_a_watch_picks_up_new_changed_and_deleted_files(tree: Path, tmp_path: Path, backend: str) -> None:
    if backend == "watchfiles":
        pytest.importorskip("watchfiles")
    steps: list[Callable[[], object]] = [
        lambda: (tree / "new.txt").write_text("a brand new file\n"),
        lambda: (tree / "a.txt").write_text("alpha text about rivers, changed\n"),
        (tree / "b.html").unlink,
    ]
    delays = list(
        watch_events(tree, tmp_path / "coll", backend, steps, ["local/new", "local/changed", "local/deleted"])
    )
    assert len(delays) == 3 and all(d < 2.0 for d in delays), delays
    with Collection.open(tmp_path / "coll") as c:  # everything written by the time it stopped
        assert "brand new" in c.find((tree / "new.txt").as_uri()).text
        assert "changed" in c.find((tree / "a.txt").as_uri()).text
        assert c.find((tree / "b.html").as_uri()).deleted is not None


def test_a_chmod_updates_who_may_read_without_opening(
    tree: Path, tmp_path: Path, opens: Callable[[Path], list[str]]
) -> None:
    coll = tmp_path / "coll"
    run(tree, coll)
    before = len(opens(tree))
    (tree / "b.html").chmod(0o600)
    result = run(tree, coll)
    assert local(result) == {"local/unchanged": 4, "local/access-changed": 1}
    assert opens(tree)[before:] == []
    with Collection.open(coll) as c:
        record = c.find((tree / "b.html").as_uri())
        assert record.as_dict()["metadata"]["access"]["mode"] == "0600"
        assert len(c.versions((tree / "b.html").as_uri())) == 1  # no new capture
    assert local(run(tree, coll)) == {"local/unchanged": 4}


def test_an_unreadable_file_is_counted_once_and_read_again_after_a_chmod(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coll = tmp_path / "coll"
    real = os.open
    locked = str(tree / "a.txt")

    def os_open(path: Any, *args: Any, **kw: Any) -> int:
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real(path, *args, **kw)

    with monkeypatch.context() as m:
        m.setattr(os, "open", os_open)
        first = run(tree, coll)
        assert first.stats.get("drop/local/unreadable") == 1 and local(first) == {"local/new": 3}
        assert local(run(tree, coll)) == {"local/unchanged": 4}  # remembered: not retried blindly
    (tree / "a.txt").chmod(0o644)  # ctime changes: the file is tried again
    again = run(tree, coll)
    assert local(again) == {"local/unchanged": 3, "local/new": 1}
    with Collection.open(coll) as c:
        assert "rivers" in c.find((tree / "a.txt").as_uri()).text
