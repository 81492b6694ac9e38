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


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_a_killed_ingest_leaves_a_consistent_collection_and_resumes(tmp_path: Path, codec: str) -> None:
    """SIGKILL mid-ingest: every stored row still reads back (with zstd: its site's references are
    on disk before it); re-running completes the job."""
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
    cmd += ["--set", f"warc.codec={codec}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    stored_some = False
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        warcs = list((coll_path / "warc").glob("*.warc.*")) if (coll_path / "warc").is_dir() else []
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


def _site() -> list[Document]:
    """Three pages of one site that link to each other, one link to a page never crawled."""
    home = Document(
        url="http://shop.example/",
        fetched_at=T0,
        status=200,
        raw=b"<html><a href=/kettles>Electric kettles</a><a href=/about>about us</a></html>",
        title="Shop",
        links=[
            Link("http://shop.example/kettles", "Electric kettles"),
            Link("http://shop.example/about", "about us"),
            Link("http://other.example/deals", "kettle deals"),
        ],
    )
    blog = Document(
        url="http://blog.example/post",
        fetched_at=T0,
        status=200,
        raw=b"<html>I bought <a href=http://shop.example/kettles>a cheap kettle</a></html>",
        title="Post",
        links=[Link("http://shop.example/kettles", "a cheap electric kettle")],
    )
    kettles = Document(
        url="http://shop.example/kettles", fetched_at=T0, status=200, raw=b"<html>kettles</html>"
    )
    return [home, blog, kettles]


def test_anchor_text_reaches_the_target_rows_and_finds_pages(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c") as coll:
        stats = Pipeline([Docs(_site())], [coll.writer()]).run()
        assert stats["store/anchors"] == 4
        rec = coll.find("http://shop.example/kettles")
        assert rec.anchors == {
            "http://shop.example/": "Electric kettles",
            "http://blog.example/post": "a cheap electric kettle",
        }
        assert {"from": "http://blog.example/post", "text": "a cheap electric kettle"} in rec.as_dict()[
            "anchors"
        ]
        # found by the words others use for it, ranked by how many pages use them
        found = coll.find_by_anchor("Electric KETTLE")
        assert [(r.row, votes) for r, votes in found] == [("example,shop)/kettles", 1)]
        found = coll.find_by_anchor("electric")
        assert [(r.row, votes) for r, votes in found] == [("example,shop)/kettles", 2)]
        # a page known only by anchor text is findable but is not a record
        assert [r.row for r, _ in coll.find_by_anchor("deals")] == ["example,other)/deals"]
        assert [r.url for r in coll.records()] == [
            "http://blog.example/post",
            "http://shop.example/",
            "http://shop.example/kettles",
        ]
        with pytest.raises(RecordNotFound):
            coll.find("http://other.example/deals")
        # a newer capture of the linking page replaces its anchor text (one version kept)
        home = _site()[0]
        home.fetched_at = T0 + timedelta(days=1)
        home.raw += b" "
        home.links = [Link("http://shop.example/kettles", "Kettles on sale")]
        Pipeline([Docs([home])], [coll.writer()]).run()
        assert coll.find("http://shop.example/kettles").anchors["http://shop.example/"] == "Kettles on sale"
        assert [r.row for r, _ in coll.find_by_anchor("sale")] == ["example,shop)/kettles"]
        assert coll.find_by_anchor("electric")[0][1] == 1  # the stale posting is checked and ignored


def test_exact_duplicates_are_stored_once_as_revisit_records(tmp_path: Path) -> None:
    from trawl.store.warcfile import payload_digest

    payload = b"<html>" + b"the same page under many URLs " * 200 + b"</html>"
    docs = [
        Document(url=f"http://mirror{i}.example/page", fetched_at=T0, status=200, raw=payload)
        for i in range(5)
    ]
    docs.append(
        Document(
            url="http://mirror0.example/page", fetched_at=T0 + timedelta(days=1), status=200, raw=payload
        )
    )
    with Collection.create(tmp_path / "c") as coll:
        stats = Pipeline([Docs(docs)], [coll.writer()]).run()
        assert stats["store/records"] == 6
        assert stats["store/duplicates/exact"] == 5
        assert stats["store/duplicates/bytes-saved"] == 5 * len(payload)
        first = coll.find("http://mirror0.example/page", as_of=T0)
        assert first.revisit_of is None
        for i in range(1, 5):
            rec = coll.find(f"http://mirror{i}.example/page")
            assert rec.revisit_of is not None and rec.revisit_of["row"] == first.row
            doc = coll.read(rec)  # the revisit record, with the original's payload
            assert doc.record_type == "revisit" and doc.raw == payload
            fields = {k.lower(): v for k, v in doc.warc_headers}
            assert fields["warc-refers-to"] == first.capture["record_id"]
            assert fields["warc-refers-to-target-uri"] == "http://mirror0.example/page"
            assert fields["warc-payload-digest"] == payload_digest(payload)
            assert fields["warc-profile"].endswith("identical-payload-digest")
        # the later capture of the first URL is a revisit too, and the earlier one is still there
        assert coll.find("http://mirror0.example/page").revisit_of is not None
        assert coll.read(coll.find("http://mirror0.example/page", as_of=T0)).record_type == "response"
        warc_bytes = sum(p.stat().st_size for p in coll.warc_files())
        assert warc_bytes < 2.5 * len(payload)  # the payload is in the archive once
        from warcio.archiveiterator import ArchiveIterator

        types = []
        for path in coll.warc_files():  # warcio reads the revisit records as revisits of the original
            with path.open("rb") as fh:
                for r in ArchiveIterator(fh):
                    types.append(r.rec_type)
                    if r.rec_type == "revisit":
                        assert r.rec_headers.get_header("WARC-Refers-To") == first.capture["record_id"]
        assert sorted(types) == ["response"] + ["revisit"] * 5 + ["warcinfo"]


def test_random_access_by_warc_file_and_offset(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c") as coll:
        Pipeline([Docs([make(i) for i in range(20)])], [coll.writer()]).run()
        rec = coll.find(make(7).url)
        p = rec.pointer
        assert coll.find(f"{p.file}@{p.offset}").row == rec.row
        assert coll.read_at(p.file, p.offset).raw == make(7).raw
        assert coll.read_at(p.file, p.offset, p.length).url == make(7).url
        with pytest.raises(RecordNotFound):
            coll.read_at("../trawl.toml", 0)


@pytest.mark.filterwarnings("ignore:warc.max_file_bytes")
def test_a_corrupted_member_or_missing_file_fails_only_those_records(tmp_path: Path) -> None:
    from trawl.errors import WarcFormatError

    with Collection.create(tmp_path / "c", overrides=["warc.max_file_bytes=3000"]) as coll:
        docs = [make(i) for i in range(40)]
        Pipeline([Docs(docs)], [coll.writer()]).run()
        records = list(coll.records())
        files = coll.warc_files()
        assert len(files) > 3
        bad = records[5].pointer
        path = coll.path / "warc" / bad.file
        data = bytearray(path.read_bytes())
        data[bad.offset + bad.length // 2] ^= 0xFF  # flip a byte inside one gzip member
        path.write_bytes(bytes(data))
        gone = records[20].pointer.file
        (coll.path / "warc" / gone).unlink()
        failed: dict[str, str] = {}
        for rec in records:
            try:
                assert coll.read(rec).raw
            except (WarcFormatError, RecordNotFound) as exc:
                failed[rec.row] = str(exc)
        assert records[5].row in failed and bad.file in failed[records[5].row]
        assert "corrupt gzip member" in failed[records[5].row] or "CRC" in failed[records[5].row]
        assert "cannot open WARC file" in failed[records[20].row]
        lost = {r.row for r in records if r.pointer.file == gone} | {records[5].row}
        assert set(failed) == lost  # every other record still reads


def test_a_record_that_cannot_be_written_is_dropped_once_and_the_others_are_stored(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c") as coll:
        writer = coll.writer()
        real_append = writer._warc.append
        docs = [make(i) for i in range(3)]

        def failing_append(record: bytes, member: bytes):  # type: ignore[no-untyped-def]
            if f"WARC-Target-URI: {docs[1].url}".encode() in record:
                raise StoreError("disk full (injected)")
            return real_append(record, member)

        writer._warc.append = failing_append  # type: ignore[method-assign]
        pipe = Pipeline([Docs(docs)], [writer])
        out = list(pipe)
        assert [d.url for d in out] == [docs[0].url, docs[2].url]
        assert docs[1].dropped == "error/store"
        # counted once: its row is not attempted after its record failed
        assert pipe.ctx.stats.prefix("error/") == {"error/store/StoreError": 1}
        assert pipe.ctx.stats["store/records"] == 2
        stored = {r.url for r in coll.records() if r.capture}
        assert stored == {docs[0].url, docs[2].url}
