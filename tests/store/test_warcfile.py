"""WarcFileWriter and read_record_at: round trips through trawl, warcio and FastWARC."""

from __future__ import annotations

import random
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trawl.acquire.warc import WarcSource
from trawl.document import Document, WarcPointer
from trawl.errors import RecordNotFound, StoreError, WarcFormatError
from trawl.pipeline.base import RunContext
from trawl.store.warcfile import WarcFileWriter, parse_http_head, parse_warc_head, read_record_at

ALL_TYPES = ("response", "resource", "revisit", "request", "metadata", "conversion")


def mixed_docs(n: int, seed: int = 3) -> list[Document]:
    """Responses with headers, resources, binary and empty payloads, non-ASCII URLs, revisits."""
    rng = random.Random(seed)
    t0 = datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC)
    docs: list[Document] = []
    for i in range(n):
        kind = i % 6
        when = t0 + timedelta(seconds=i)
        if kind == 0:
            body = f"<html><p>page {i} - ünïcödé</p></html>".encode()
            docs.append(
                Document(
                    url=f"https://example.org/a/{i}?q=1",
                    fetched_at=when,
                    status=200,
                    http_headers=[
                        ("Content-Type", "text/html; charset=utf-8"),
                        ("X-Seq", str(i)),
                        ("Set-Cookie", "a=1"),
                    ],
                    raw=body,
                    docno=f"TRAWL-{i:05d}",
                )
            )
        elif kind == 1:
            docs.append(
                Document(
                    url=f"file:///data/{i}.bin",
                    fetched_at=when,
                    raw=rng.randbytes(rng.randint(1, 5000)),
                    declared_type="application/octet-stream",
                )
            )
        elif kind == 2:
            docs.append(
                Document(url=f"https://bücher.example/straße/{i}", fetched_at=when, status=404, raw=b"")
            )
        elif kind == 3:
            docs.append(
                Document(
                    url=f"https://example.org/empty/{i}", fetched_at=when, raw=b"", declared_type="text/plain"
                )
            )
        elif kind == 4:
            docs.append(
                Document(url=f"https://例え.jp/{i}", fetched_at=when.replace(microsecond=250000), status=301,
                         http_headers=[("Location", "https://example.org/")], raw=bytes(range(256)) * 3)
            )  # fmt: skip
        else:
            docs.append(
                Document(
                    url=f"https://example.org/a/{i - 5}?q=1",
                    fetched_at=when,
                    status=200,
                    http_headers=[("Content-Type", "text/html")],
                    record_type="revisit",
                    warc_headers=[
                        ("WARC-Refers-To", f"<urn:uuid:00000000-0000-4000-8000-{i:012d}>"),
                        ("WARC-Refers-To-Target-URI", f"https://example.org/a/{i - 5}?q=1"),
                        ("WARC-Refers-To-Date", "2024-03-04T05:06:07Z"),
                    ],
                )
            )
    return docs


def write_all(directory: Path, docs: list[Document], **kw: object) -> tuple[list[WarcPointer], list[str]]:
    with WarcFileWriter(directory, **kw) as writer:  # type: ignore[arg-type]
        pointers = [writer.write(doc) for doc in docs]
    return pointers, writer.files


def test_round_trip_through_trawl_warcio_and_fastwarc(tmp_path: Path) -> None:
    from fastwarc.warc import ArchiveIterator as FastIterator
    from warcio.archiveiterator import ArchiveIterator as WarcioIterator

    docs = mixed_docs(240)
    pointers, files = write_all(tmp_path, docs)
    assert len(files) == 1
    path = tmp_path / files[0]

    # trawl
    ctx = RunContext()
    back = list(WarcSource([path], record_types=ALL_TYPES).read(ctx))
    assert ctx.audit.total == 0
    assert len(back) == len(docs)
    for doc, got in zip(docs, back, strict=True):
        assert got.url == doc.url
        assert got.raw == (b"" if doc.record_type == "revisit" else doc.raw)
        assert got.fetched_at == doc.fetched_at
        assert got.status == doc.status
        assert got.http_headers == doc.http_headers
        assert got.docno == doc.docno
        assert got.record_type == (
            "revisit" if doc.record_type == "revisit" else "response" if doc.status else "resource"
        )
        if doc.status is None:
            assert got.declared_type == doc.declared_type
    revisit = back[5]
    assert dict(revisit.warc_headers)["WARC-Refers-To"] == "<urn:uuid:00000000-0000-4000-8000-000000000005>"
    assert "identical-payload-digest" in dict(revisit.warc_headers)["WARC-Profile"]

    # warcio, digests checked (raises on a mismatch)
    with path.open("rb") as fh:
        seen = []
        for record in WarcioIterator(fh, check_digests="raise"):
            if record.rec_type == "warcinfo":
                continue
            payload = record.raw_stream.read()
            assert record.digest_checker.passed is not False
            seen.append((record.rec_headers.get_header("WARC-Target-URI"), payload))
    assert [u for u, _ in seen] == [d.url for d in docs]
    assert [p for _, p in seen] == [b"" if d.record_type == "revisit" else d.raw for d in docs]

    # FastWARC, digests verified
    with path.open("rb") as fh:
        seen = []
        for record in FastIterator(fh, parse_http=False):
            if str(record.record_type) == "warcinfo":
                continue
            assert record.verify_block_digest()
            seen.append(record.headers.get("WARC-Target-URI"))
        assert seen == [d.url for d in docs]
    with path.open("rb") as fh:
        for record in FastIterator(fh):
            if record.is_http:  # FastWARC defines payload digests for HTTP records only
                assert record.verify_payload_digest()

    # random access: every pointer, with and without its length
    for doc, ptr in zip(docs, pointers, strict=True):
        assert ptr.file == files[0]
        got = read_record_at(tmp_path / ptr.file, ptr.offset, ptr.length)
        assert got.url == doc.url
        assert got.raw == (b"" if doc.record_type == "revisit" else doc.raw)
        assert got.warc == ptr
        assert read_record_at(tmp_path / ptr.file, ptr.offset).raw == got.raw


def test_pointers_are_gzip_members(tmp_path: Path) -> None:
    docs = mixed_docs(12)
    pointers, files = write_all(tmp_path, docs)
    data = (tmp_path / files[0]).read_bytes()
    for ptr in pointers:
        member = data[ptr.offset : ptr.offset + ptr.length]
        inflater = zlib.decompressobj(31)
        record = inflater.decompress(member)
        assert inflater.eof and not inflater.unused_data
        assert record.startswith(b"WARC/1.1\r\n") and record.endswith(b"\r\n\r\n")
    first = zlib.decompressobj(31).decompress(data)
    assert b"WARC-Type: warcinfo" in first and b"software: trawl/0.1.0" in first


def test_record_ids_dates_and_trec_ids(tmp_path: Path) -> None:
    doc = Document(
        url="http://x/", raw=b"x", record_id="<urn:uuid:11111111-2222-4333-8444-555555555555>", docno="D1"
    )
    naive = Document(
        url="http://y/", raw=b"y", fetched_at=datetime(2020, 1, 1, 12, 0, 0), record_id="not-a-urn"
    )
    pointers, files = write_all(tmp_path, [doc, naive])
    one = read_record_at(tmp_path / files[0], pointers[0].offset, pointers[0].length)
    two = read_record_at(tmp_path / files[0], pointers[1].offset, pointers[1].length)
    assert one.record_id == doc.record_id
    assert one.docno == "D1" and ("WARC-TREC-ID", "D1") in one.warc_headers
    assert one.fetched_at is not None and one.fetched_at.tzinfo is not None  # "now" when unknown
    assert (
        two.record_id is not None and two.record_id.startswith("<urn:uuid:") and two.record_id != "not-a-urn"
    )
    assert two.fetched_at == datetime(2020, 1, 1, 12, 0, 0, tzinfo=UTC)
    fields = dict(one.warc_headers)
    for name in ("WARC-Block-Digest", "WARC-Payload-Digest"):
        assert fields[name].startswith("sha1:") and len(fields[name]) == 37


def test_rotation_and_serials(tmp_path: Path) -> None:
    docs = mixed_docs(120)
    pointers, files = write_all(tmp_path, docs, max_bytes=20_000)
    assert len(files) >= 4
    assert len({p.file for p in pointers}) == len(files)
    for name in files:
        assert name.startswith("trawl-") and name.endswith(".warc.gz")
        assert (tmp_path / name).stat().st_size < 20_000 + 10_000
    serials = [int(name.split("-")[-1].split(".")[0]) for name in files]
    assert serials == list(range(len(files)))
    back = list(WarcSource([tmp_path / f for f in files], record_types=ALL_TYPES).read(RunContext()))
    assert [d.url for d in back] == [d.url for d in docs]
    # a second writer continues the serial and never touches the existing files
    before = {f: (tmp_path / f).read_bytes() for f in files}
    _, more = write_all(tmp_path, docs[:3], max_bytes=20_000)
    assert int(more[0].split("-")[-1].split(".")[0]) == serials[-1] + 1
    assert {f: (tmp_path / f).read_bytes() for f in files} == before
    # another prefix starts its own series
    _, other = write_all(tmp_path, docs[:2], prefix="crawl")
    assert other[0].startswith("crawl-") and other[0].endswith("-00000.warc.gz")


def test_uncompressed_files(tmp_path: Path) -> None:
    docs = mixed_docs(18)
    pointers, files = write_all(tmp_path, docs, compress=False)
    assert files[0].endswith(".warc") and not files[0].endswith(".gz")
    for doc, ptr in zip(docs, pointers, strict=True):
        assert read_record_at(tmp_path / ptr.file, ptr.offset, ptr.length).url == doc.url
        assert read_record_at(tmp_path / ptr.file, ptr.offset).url == doc.url


def test_bad_pointers(tmp_path: Path) -> None:
    pointers, files = write_all(tmp_path, mixed_docs(3))
    path = tmp_path / files[0]
    size = path.stat().st_size
    with pytest.raises(RecordNotFound, match="past the end"):
        read_record_at(path, size + 10)
    with pytest.raises(RecordNotFound, match="cannot open"):
        read_record_at(tmp_path / "nope.warc.gz", 0)
    with pytest.raises(RecordNotFound, match="runs past the end"):
        read_record_at(path, pointers[-1].offset, pointers[-1].length + 100)
    with pytest.raises(WarcFormatError, match="offset a record start"):
        read_record_at(path, pointers[1].offset + 3, 50)
    with pytest.raises(WarcFormatError, match="does not match the gzip member"):
        read_record_at(path, pointers[0].offset, pointers[0].length + pointers[1].length)
    with pytest.raises(WarcFormatError, match="truncated"):
        read_record_at(path, pointers[0].offset, pointers[0].length - 5)


def test_writer_after_close_and_bad_directory(tmp_path: Path) -> None:
    writer = WarcFileWriter(tmp_path)
    writer.close()
    with pytest.raises(StoreError, match="closed"):
        writer.write(Document(url="http://x/"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot use"):
        WarcFileWriter(blocker / "sub")


def test_header_values_cannot_break_the_format(tmp_path: Path) -> None:
    doc = Document(
        url="http://x/a b\r\nWARC-Type: evil", status=200, http_headers=[("X-Bad", "a\r\nb")], raw=b"ok"
    )
    pointers, files = write_all(tmp_path, [doc])
    got = read_record_at(tmp_path / files[0], pointers[0].offset, pointers[0].length)
    assert got.record_type == "response"
    assert "\n" not in got.url and got.raw == b"ok"
    assert got.http_headers == [("X-Bad", "a  b")]


def test_parsers_are_lenient_where_the_format_allows() -> None:
    headers, fields = parse_warc_head(
        "WARC/1.0\r\nwarc-type: response\r\nContent-Length:12\r\nX-Folded: a\r\n  b\r\nX-Pad:   v  \r\n\r\n"
    )
    assert fields["WARC-Type"] == "response" and fields["Content-Length"] == "12"
    assert ("X-Folded", "a b") in headers and ("X-Pad", "v") in headers
    status, http, start, problem = parse_http_head(
        b"HTTP/1.1 418 I'm a teapot\r\nA: 1\r\nbroken\r\nB: 2\r\n\r\nbody"
    )
    assert status == 418 and http == [("A", "1"), ("B", "2")] and problem and "broken" in problem
    status, http, start, problem = parse_http_head(b"HTTP/1.0 200 OK\nA: 1\n\nbody")
    assert (status, http, start) == (200, [("A", "1")], 22)


def test_ten_thousand_records_round_trip(tmp_path: Path) -> None:
    docs = mixed_docs(10_000, seed=11)
    t0 = time.perf_counter()
    pointers, files = write_all(tmp_path, docs, max_bytes=4 << 20)
    back = list(WarcSource([tmp_path / f for f in files], record_types=ALL_TYPES).read(RunContext()))
    assert len(back) == 10_000
    assert all(a.url == b.url for a, b in zip(docs, back, strict=True))
    sample = pointers[::97]
    for ptr in sample:
        read_record_at(tmp_path / ptr.file, ptr.offset, ptr.length)
    assert time.perf_counter() - t0 < 20
