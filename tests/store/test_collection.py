from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trawl.document import Document, Link
from trawl.errors import CollectionNotFound, RecordNotFound, StoreError
from trawl.pipeline import Pipeline, RunContext, Source
from trawl.store.collection import Collection

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class Docs(Source):
    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
        for d in self.docs:
            ctx.stats.inc("read/records")
            yield d


def make(i: int, when: datetime = T0) -> Document:
    return Document(
        url=f"http://host{i % 7}.example.com/page/{i}?b=2&a=1",
        fetched_at=when,
        status=200,
        http_headers=[("Content-Type", "text/html; charset=utf-8")],
        raw=f"<html><title>T{i}</title><p>page {i} \u00e9\u4e2d</p></html>".encode() + bytes([i % 256]),
        title=f"T{i}",
        text=f"page {i}",
        links=[Link(f"http://host{(i + 1) % 7}.example.com/page/{i + 1}", f"next {i}")],
        docno=f"DOC-{i:05d}",
    )


def test_write_then_random_access_by_url_hash_and_docno(tmp_path: Path) -> None:
    coll = Collection.create(tmp_path / "c", overrides=["warc.max_file_bytes=2000000"])
    docs = [make(i) for i in range(300)]
    with coll:
        p = Pipeline([Docs(docs)], [coll.writer()])
        stats = p.run()
        assert stats["store/records"] == 300
        for d in docs[::17]:
            rec = coll.find(d.url)
            assert rec.title == d.title and rec.text == d.text
            back = coll.read(rec)
            assert back.raw == d.raw
            assert back.url == d.url
            assert coll.find(d.docno or "").row == rec.row
            from trawl.urls import url_hash

            assert coll.find(url_hash(d.url)).row == rec.row
        # another spelling of the same URL finds the same row (SURT key)
        rec = coll.find("http://www.host3.example.com:80/page/3?a=1&b=2")
        assert rec.url == docs[3].url
        assert rec.as_dict()["links"] == [{"url": "http://host4.example.com/page/4", "text": "next 3"}]
        with pytest.raises(RecordNotFound):
            coll.find("http://nowhere.example/")


def test_reingest_is_idempotent_and_new_captures_are_versions(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c") as coll:
        Pipeline([Docs([make(1)])], [coll.writer()]).run()
        stats = Pipeline([Docs([make(1)])], [coll.writer()]).run()
        assert stats["store/skipped/already-stored"] == 1
        later = make(1, T0 + timedelta(days=1))
        later.title = "newer"
        Pipeline([Docs([later])], [coll.writer()]).run()
        rec = coll.find(later.url)
        assert rec.title == "newer"
        assert len(coll.table.versions_of(rec.row, "fetch", "capture")) == 2


def test_open_errors(tmp_path: Path) -> None:
    with pytest.raises(CollectionNotFound, match="not a trawl collection"):
        Collection.open(tmp_path)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "file").write_text("x")
    with pytest.raises(StoreError, match="not a trawl collection"):
        Collection.create(tmp_path / "junk")


def test_reopen_keeps_config_and_info(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c", overrides=["warc.prefix=mine"]) as coll:
        run, ctx = coll.new_run()
        stats = Pipeline([Docs([make(i) for i in range(10)])], [coll.writer()], ctx).run()
        coll.save_run(run, stats)
    with Collection.open(tmp_path / "c") as coll:
        assert coll.config.warc.prefix == "mine"
        assert all(p.name.startswith("mine-") for p in coll.warc_files())
        info = coll.info()
        assert info["documents"] == 10
        assert info["hosts"] == 7
        assert info["counters"]["store/records"] == 10


def test_a_killed_ingest_leaves_a_consistent_collection_and_resumes(tmp_path: Path) -> None:
    """SIGKILL mid-ingest: every stored row still reads back; re-running completes the job."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from trawl.store.warcfile import WarcFileWriter

    src = tmp_path / "in"
    docs = [make(i) for i in range(4000)]
    with WarcFileWriter(src, prefix="in") as w:
        for d in docs:
            w.write(d)
    coll_path = tmp_path / "c"
    cmd = [sys.executable, "-m", "trawl.cli.main", "ingest", str(src), "-o", str(coll_path), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    stored_some = False
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        warcs = list((coll_path / "warc").glob("*.warc.gz")) if (coll_path / "warc").is_dir() else []
        if warcs and sum(p.stat().st_size for p in warcs) > 200_000:
            stored_some = True
            break
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed = stored_some and proc.returncode == -signal.SIGKILL
    with Collection.open(coll_path) as coll:
        rows = list(coll.records())
        assert rows, "nothing was stored before the kill"
        if killed:
            assert len(rows) < len(docs)
        for rec in rows:  # every committed row points at bytes that are really there
            assert coll.read(rec).raw == docs[int(rec.url.rsplit("/", 1)[1].split("?")[0])].raw
    assert subprocess.run(cmd, check=False, capture_output=True).returncode == 0
    with Collection.open(coll_path) as coll:
        assert sum(1 for _ in coll.records()) == len(docs)
        skipped = sum(s.get("store/skipped/already-stored") for _, s in coll.runs())
        assert skipped == len(rows)  # the resumed run stored only what the killed one had not
    assert killed, "the ingest finished before it could be killed: make the input larger"
