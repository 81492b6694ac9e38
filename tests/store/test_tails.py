"""Torn WARC tails: a writer killed mid-record leaves half a record at the end of its last file;
the next writer cuts it off (counted, recorded), keeps every whole record, and then warcio, trawl's
reader and ``trawl get`` read everything to the end."""

from __future__ import annotations

import json
import os
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.acquire.warc import WarcSource
from trawl.cli.main import main
from trawl.document import Document
from trawl.pipeline import Pipeline, RunContext, Source
from trawl.store.collection import Collection
from trawl.store.tails import check_tail, codec_of, repair_tail
from trawl.store.warcfile import WarcFileWriter

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
CODECS = {"gzip": ["warc.codec=gzip"], "zstd": ["warc.codec=zstd"], "none": ["warc.compress=false"]}


class Docs(Source):
    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
        yield from self.docs


def _doc(i: int, rng: random.Random) -> Document:
    # some pages large and incompressible (gzip stores them verbatim: a gzip payload's own magic
    # bytes then sit inside the member, where no record starts)
    raw = f"<html><title>P{i}</title><p>{' '.join(str(rng.random()) for _ in range(40 + 400 * (i % 3)))}"
    body = raw.encode()
    if i % 4 == 3:
        import gzip

        body = gzip.compress(os.urandom(6000) + body)
    return Document(
        url=f"http://site{i % 3}.example/p/{i}",
        fetched_at=T0,
        status=200,
        http_headers=[("Content-Type", "text/html; charset=utf-8")],
        raw=body,
        title=f"P{i}",
        text=f"page {i}",
    )


def warcio_reads_to_end(path: Path) -> int:
    """Read ``path`` with warcio as strictly as it goes: every record's block to the end (its
    ``Content-Length`` bytes), its digests right; the records read."""
    from warcio.archiveiterator import ArchiveIterator

    n = 0
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh, check_digests=True):
            record.raw_stream.read()
            # warcio checks the digests once it has read Content-Length bytes: a short block is
            # never checked, so "passed" (not merely "not failed") says the block is whole
            # (warcio leaves a revisit's digests unchecked: its block is headers only)
            if record.rec_headers.get_header("WARC-Block-Digest") and record.rec_type != "revisit":
                assert record.digest_checker.passed is True, (path.name, n, record.digest_checker.problems)
            n += 1
        assert fh.tell() == path.stat().st_size
    return n


def _trawl_reads(paths: list[Path]) -> dict[str, int]:
    """What trawl's reader had to repair or drop reading ``paths`` (nothing, for whole files)."""
    ctx = RunContext()
    for _ in WarcSource(paths).read(ctx):
        pass
    return {k: v for k, v in ctx.stats.counters.items() if k.startswith(("read/repaired", "drop/"))}


def _records(path: Path, codec: str) -> int:
    """The records of ``path``, read to its end by warcio. zstd files, which warcio cannot read
    (and whose frames compressed against a site's reference no stream reader can): every frame
    followed from offset 0 to the end, whole; 0 then."""
    if codec == "zstd":
        check = check_tail(path, "zstd")
        assert (check.end, check.damaged) == (path.stat().st_size, False)
        return 0
    return warcio_reads_to_end(path)


@pytest.fixture(scope="module", params=["gzip", "zstd", "none"])
def written(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A collection of 12 pages (``codec``), closed."""
    codec = request.param
    path = tmp_path_factory.mktemp(f"tails-{codec}") / "c"
    rng = random.Random(35)
    with Collection.create(path, overrides=CODECS[codec]) as coll:
        Pipeline([Docs([_doc(i, rng) for i in range(12)])], [coll.writer()]).run()
    return path, codec


def _extra_records(tmp: Path, codec: str) -> tuple[bytes, bytes]:
    """A whole record and the record after it, as a killed writer appended them (the first
    reached the file, its row did not reach the table), each a member of ``codec``."""
    rng = random.Random(7)
    with WarcFileWriter(tmp, prefix="x", codec=codec) as w:
        w.write(_doc(100, rng))
        whole = w.last_record
        first = w.write(_doc(101, rng))
        second = w.write(_doc(102, rng))
    data = next(tmp.iterdir()).read_bytes()
    assert whole
    return data[first.offset : first.offset + first.length], data[
        second.offset : second.offset + second.length
    ]


def _cuts(codec: str, torn: bytes) -> dict[str, int]:
    """Where in the torn record the file ends: inside its gzip header (zstd: frame header), inside
    its WARC header, inside its HTTP block, at its last byte."""
    return {
        "member-header": 5,
        "warc-header": len(torn) // 20,
        "http-block": len(torn) // 2,
        "last-byte": len(torn) - 1,
    }


@pytest.mark.parametrize("cut", ["member-header", "warc-header", "http-block", "last-byte", "between"])
def test_a_torn_last_record_is_cut_off_and_every_reader_reads_to_the_end(
    written: tuple[Path, str], cut: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    source, codec = written
    path = tmp_path / "c"
    shutil.copytree(source, path)
    whole, torn = _extra_records(tmp_path / "x", codec)
    last = sorted((path / "warc").iterdir())[-1]
    good = last.stat().st_size + len(whole)  # the unindexed whole record stays
    tail = torn[: _cuts(codec, torn)[cut]] if cut != "between" else b""
    with last.open("ab") as fh:
        fh.write(whole + tail)
    earlier = sum(_records(p, codec) for p in sorted((path / "warc").iterdir())[:-1])

    with Collection.open(path) as coll:
        writer = coll.writer()
        rng = random.Random(8)
        run, ctx = coll.new_run()
        more = [_doc(i, rng) for i in range(200, 204)]
        for doc in more:
            doc.url = doc.url.replace("/p/", "/q/")
        stored = list(writer.run(more, ctx))  # the repair comes before its first write
        if cut == "between":
            assert writer.repairs == []
        else:
            [repair] = writer.repairs
            assert (repair.file, repair.offset, repair.removed, repair.truncated) == (
                last.name,
                good,
                len(tail),
                True,
            )
        assert last.stat().st_size == good
        writer.close()
        ctx.audit.close()
        assert len(stored) == 4
        stats = ctx.stats
        assert stats["store/torn-tail-repaired"] == (0 if cut == "between" else 1)
        assert stats["store/torn-tail-bytes"] == len(tail)
        drops_file = path / "stats" / f"{run}.drops.jsonl"
        drops = (
            [json.loads(line) for line in drops_file.read_text().splitlines()] if drops_file.exists() else []
        )
        want = [] if cut == "between" else [("torn-tail", f"{last.name}@{good}")]
        assert [(d["reason"], d["source"]) for d in drops] == want
        urls = [r.url for r in coll.records()]
        assert len(urls) == 16
        files = coll.warc_files()
    # the repaired file keeps its whole records, the unindexed one too; the new file appends cleanly
    assert _records(last, codec) >= 2 or codec == "zstd"
    total = sum(_records(p, codec) for p in files)
    assert total == earlier + _records(last, codec) + (5 if codec != "zstd" else 0)  # warcinfo + 4
    if codec != "zstd":
        assert _trawl_reads(files) == {}
    for url in urls:  # trawl get finds every stored record
        assert main(["get", str(path), url, "--raw"]) == 0
        assert capsysbinary.readouterr().out
    # checked once: the next writer finds nothing to do, and reads no file again (a file is never
    # appended to once its writer is gone: bytes changed behind its back at the same size are not
    # looked at)
    with last.open("r+b") as fh:
        fh.seek(-3, os.SEEK_END)
        fh.write(b"\0\0\0")
    with Collection.open(path) as coll:
        assert coll.repair_warc_tails() == []


def test_a_file_of_only_a_torn_warcinfo_is_emptied(tmp_path: Path) -> None:
    with Collection.create(tmp_path / "c") as coll:
        with WarcFileWriter(tmp_path / "x", prefix="x") as w:
            w.write(_doc(1, random.Random(1)))
        member = next((tmp_path / "x").iterdir()).read_bytes()[:40]
        (tmp_path / "c" / "warc" / "trawl-20240101000000-00000.warc.gz").write_bytes(member)
        [repair] = coll.repair_warc_tails()
        assert (repair.offset, repair.removed) == (0, 40)
        assert (tmp_path / "c" / "warc" / "trawl-20240101000000-00000.warc.gz").stat().st_size == 0


def test_damage_before_whole_records_is_left_alone(tmp_path: Path) -> None:
    """Bytes that are no record in the middle of a file are no torn tail: cutting there would lose
    the whole records after them."""
    rng = random.Random(2)
    with WarcFileWriter(tmp_path, prefix="d") as w:
        pointers = [w.write(_doc(i, rng)) for i in range(4)]
    path = next(tmp_path.iterdir())
    data = path.read_bytes()
    at = pointers[2].offset
    path.write_bytes(data[:at] + b"\x00" * 64 + data[at:])
    check = check_tail(path, "gzip")
    assert check.damaged and check.end == at and check.torn == 0
    assert repair_tail(path, "gzip") is None
    assert path.stat().st_size == len(data) + 64


def test_the_walk_starts_at_the_last_record_a_row_names(tmp_path: Path) -> None:
    """With the offset of its last whole record known, the check reads from there, not from 0:
    bytes before it that are no record are never looked at."""
    rng = random.Random(3)
    with WarcFileWriter(tmp_path, prefix="k") as w:
        pointers = [w.write(_doc(i, rng)) for i in range(5)]
    path = next(tmp_path.iterdir())
    data = path.read_bytes()
    at = pointers[1].offset
    path.write_bytes(data[:at] + b"\x00" * 64 + data[at:] + data[pointers[4].offset :][:30])
    known = {p.offset + 64 for p in pointers[2:]}
    check = check_tail(path, "gzip", known=known.__contains__)
    assert not check.damaged and check.torn == 30 and check.end == len(data) + 64


def test_codec_of_names() -> None:
    assert [codec_of(n) for n in ("a.warc.gz", "a.warc.zst", "a.warc", "a.cdx")] == [
        "gzip",
        "zstd",
        "none",
        None,
    ]


def test_a_file_another_writer_of_this_process_writes_is_left_alone(tmp_path: Path) -> None:
    rng = random.Random(4)
    with Collection.create(tmp_path / "c") as coll:
        first = coll.writer()
        assert len(list(first.run([_doc(1, rng)], RunContext()))) == 1
        [name] = first.files
        live = tmp_path / "c" / "warc" / name
        with live.open("ab") as fh:  # half a record: as if the first writer were inside a write
            fh.write(b"\x1f\x8b\x08\x00")
        second = coll.writer()
        second.process(_doc(2, rng))
        assert second.repairs == [] and len(second.files) == 1
        size = live.stat().st_size
        second.close()
        first.close()
        assert live.stat().st_size == size
        [repair] = coll.repair_warc_tails()  # once its writer is gone, the tail is cut
        assert (repair.file, repair.removed) == (name, 4)
