"""WarcSource: WARC/ARC reading, cheap filters, counters, and recovery from bad input.

Every broken-input case runs through both readers (the FastWARC fast path and the recovering
reader) and must give the same documents and the same single drop, with the records before and
after the problem intact. Fixtures are in tests/data/warc (see make_fixtures.py there).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trawl.acquire.warc import WarcSource
from trawl.document import Document
from trawl.pipeline.base import RunContext
from trawl.pipeline.stats import Stats

WARC_DIR = Path(__file__).resolve().parent.parent / "data" / "warc"
ALL = ("warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion")
# good.warc: warcinfo, 1, request 102, 2, resource 3, request 104, 4, 5, request 106, 6
GOOD_CONTENT = ["1", "2", "3", "4", "5", "6"]
GOOD_WITH_REQUESTS = ["1", "102", "2", "3", "104", "4", "5", "106", "6"]


def read(
    inputs: Sequence[Any], *, fast: bool = True, **kw: Any
) -> tuple[list[Document], Stats, list[tuple[str, str, str]]]:
    ctx = RunContext()
    docs = list(WarcSource(inputs, fast=fast, **kw).read(ctx))
    drops = [(e.reason, e.source or "", e.message) for e in ctx.audit.entries]
    return docs, ctx.stats, drops


def numbers(docs: Sequence[Document]) -> list[str]:
    return [d.url.rsplit("/", 1)[-1] for d in docs]


def rec(n: int, block: bytes | None = None, *, rtype: str = "response", length: int | None = None) -> bytes:
    if block is None:
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>%d</p>" % n
    ctype = "application/http; msgtype=response" if rtype == "response" else "text/plain"
    head = (
        f"WARC/1.0\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{n}>\r\n"
        f"WARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: http://example.org/{n}\r\n"
        f"Content-Type: {ctype}\r\nContent-Length: {len(block) if length is None else length}\r\n\r\n"
    )
    return head.encode() + block + b"\r\n\r\n"


def gz(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


class Unseekable(io.RawIOBase):
    """A pipe-like stream: readable, not seekable (forces the recovering reader)."""

    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer: Any) -> int:
        data = self._inner.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


both = pytest.mark.parametrize("fast", [True, False], ids=["fast", "recovering"])


# ---------------------------------------------------------------------------------------------
# good input


@both
@pytest.mark.parametrize("name", ["good.warc", "good.warc.gz", "whole.warc.gz", "good.warc.bz2"])
def test_good_files(name: str, fast: bool) -> None:
    docs, stats, drops = read([WARC_DIR / name], fast=fast)
    assert numbers(docs) == GOOD_CONTENT
    assert drops == []
    assert stats["read/records"] == 6
    assert stats["read/files"] == 1
    assert stats["read/skipped/type/request"] == 3
    assert stats["read/skipped/type/warcinfo"] == 1
    assert stats["read/bytes"] == (WARC_DIR / name).stat().st_size


@both
def test_document_mapping(fast: bool) -> None:
    docs, _, _ = read([WARC_DIR / "good.warc.gz"], fast=fast)
    first, resource = docs[0], docs[2]
    assert first.url == "http://example.com/1"
    assert first.fetched_at == datetime(2024, 1, 2, 3, 4, 1, tzinfo=UTC)
    assert first.fetched_at.tzinfo is not None
    assert first.record_type == "response"
    assert first.record_id == "<urn:uuid:00000000-0000-4000-8000-000000000001>"
    assert first.docno == "DOC-001"
    assert first.status == 200
    assert first.http_headers[0] == ("Content-Type", "text/html; charset=utf-8")
    assert first.declared_type == "text/html; charset=utf-8"
    assert first.raw == b"<html><title>page 1</title><p>Body of record 1.</p></html>\n"
    assert ("WARC-TREC-ID", "DOC-001") in first.warc_headers
    assert first.warc_headers[0] == ("WARC-Type", "response")
    assert first.source.endswith("good.warc.gz@") is False
    assert first.warc is None
    assert resource.record_type == "resource"
    assert resource.status is None and resource.http_headers == []
    assert resource.raw == b"plain text of record 3\n"
    assert resource.declared_type == "text/plain"


def whole(doc: Document) -> dict[str, Any]:
    """Everything a reader sets on a document, errors included."""
    return doc.summary() | {"raw": doc.raw, "h": doc.http_headers, "w": doc.warc_headers, "e": doc.errors}


def test_fast_and_recovering_paths_agree_document_for_document() -> None:
    for name in (
        "good.warc",
        "good.warc.gz",
        "bad-header.warc.gz",
        "length-long.warc",
        "truncated-mid.warc.gz",
        "odd-http-headers.warc",
        "odd-http-headers.warc.gz",
    ):
        fast, fstats, fdrops = read([WARC_DIR / name], fast=True, record_types=ALL)
        slow, sstats, sdrops = read([WARC_DIR / name], fast=False, record_types=ALL)
        assert [whole(d) for d in fast] == [whole(d) for d in slow], name
        assert fdrops == sdrops, name
        assert fstats.prefix("read/records") == sstats.prefix("read/records")
        assert fstats.prefix("read/skipped") == sstats.prefix("read/skipped")


ODD_HTTP = [  # odd-http-headers.warc, records 1..8: (HTTP headers, error) as RFC 9112 reads them
    ([("Content-Type", "text/html"), ("X-Folded", "a b c"), ("Server", "s")], None),  # obs-fold
    ([("Content-Type", "text/html"), ("Server", "s")], "b'Bad Name: v'"),
    ([("Content-Type", "text/html"), ("Server", "s")], "b'this line has no colon'"),
    ([("Content-Type", "text/html"), ("Server", "s")], None),  # LF-only lines
    ([("Content-Type", "text/html"), ("Server", "s")], None),  # one bare LF among CRLFs
    ([("Content-Type", "text/html"), ("Server", "s")], "b'Bad\\tName: v'"),
    ([("Content-Type", "text/html"), ("Server", "s")], "b': no name'"),
    ([("Content-Type", "text/html"), ("Server", "s")], "b'  folded before any field'"),
]


@both
@pytest.mark.parametrize("name", ["odd-http-headers.warc", "odd-http-headers.warc.gz"])
def test_unusual_http_header_lines(name: str, fast: bool) -> None:
    docs, stats, drops = read([WARC_DIR / name], fast=fast)
    assert drops == [] and numbers(docs) == [str(n) for n in range(1, 10)]
    if fast:
        assert set(stats.prefix("read/fallback")) <= {"read/fallback/end"}  # no hand-over for a head
    for doc, (headers, skipped) in zip(docs, ODD_HTTP, strict=False):
        assert (doc.status, doc.http_headers, doc.declared_type) == (200, headers, "text/html"), doc.url
        assert doc.raw == b"<p>odd headers</p>\n", doc.url
        if skipped is None:
            assert doc.errors == [], doc.url
        else:
            assert doc.errors == [f"warc: skipped HTTP header line {skipped}"], doc.url


@both
def test_offsets_point_at_records(fast: bool) -> None:
    """``source`` offsets: gzip member starts for per-record gzip, byte offsets for plain files."""
    for name in ("good.warc", "good.warc.gz"):
        path = WARC_DIR / name
        data = path.read_bytes()
        docs, _, _ = read([path], fast=fast)
        for doc in docs:
            where, offset = doc.source.rsplit("@", 1)
            assert where == str(path)
            chunk = data[int(offset) :]
            if name.endswith(".gz"):
                chunk = zlib.decompressobj(31).decompress(chunk)
            assert chunk.startswith(b"WARC/1.1\r\nWARC-Type: ")
            assert doc.url.encode() in chunk[:400]


def test_records_inside_one_gzip_member_get_stream_offsets() -> None:
    data = gzip.compress(rec(1) + rec(2))  # whole-file gzip
    docs, _, _ = read([io.BytesIO(data)])
    assert numbers(docs) == ["1", "2"]
    assert docs[0].source.endswith("@0")
    assert docs[1].source.endswith(f"@{len(rec(1))}")  # decompressed offset


@both
def test_arc_v1(fast: bool) -> None:
    for name in ("arc-v1.arc", "arc-v1.arc.gz"):
        docs, stats, drops = read([WARC_DIR / name], fast=fast)
        assert drops == []
        assert numbers(docs) == ["1", "2", "3"]
        one, two = docs[0], docs[1]
        assert one.record_type == "response" and one.status == 200
        assert one.raw == b"<p>arc record 1</p>\n"
        assert one.fetched_at == datetime(2024, 1, 2, 3, 4, 1, tzinfo=UTC)
        assert one.declared_type == "text/html"
        assert ("IP-address", "192.0.2.1") in one.warc_headers
        assert two.record_type == "resource" and two.status is None
        assert two.declared_type == "text/dns"
        assert stats["read/skipped/type/warcinfo"] == 1


def test_compression_is_detected_from_bytes_not_names(tmp_path: Path) -> None:
    disguised = tmp_path / "looks-plain.warc"
    disguised.write_bytes((WARC_DIR / "good.warc.gz").read_bytes())
    plain_gz = tmp_path / "looks-gzipped.warc.gz"
    plain_gz.write_bytes((WARC_DIR / "good.warc").read_bytes())
    xz = tmp_path / "records.bin"
    xz.write_bytes(lzma.compress((WARC_DIR / "good.warc").read_bytes()))
    for path in (disguised, plain_gz, xz):
        docs, _, drops = read([path])
        assert numbers(docs) == GOOD_CONTENT, path.name
        assert drops == []


@both
def test_streams_and_paths(fast: bool) -> None:
    data = (WARC_DIR / "good.warc.gz").read_bytes()
    for src in (io.BytesIO(data), Unseekable(data), str(WARC_DIR / "good.warc.gz")):
        docs, _, drops = read([src], fast=fast)
        assert numbers(docs) == GOOD_CONTENT
        assert drops == []


def test_several_inputs_count_files() -> None:
    docs, stats, _ = read([WARC_DIR / "good.warc", WARC_DIR / "arc-v1.arc"])
    assert len(docs) == 9
    assert stats["read/files"] == 2


# ---------------------------------------------------------------------------------------------
# cheap filters


@both
def test_filters_are_counted(fast: bool) -> None:
    path = WARC_DIR / "good.warc.gz"
    docs, stats, _ = read([path], fast=fast, url_filter=lambda url: not url.endswith("/2"))
    assert numbers(docs) == ["1", "3", "4", "5", "6"]
    assert stats["read/skipped/url"] == 1

    docs, stats, _ = read([path], fast=fast, content_types=["TEXT/PLAIN"])
    assert numbers(docs) == ["3"]
    assert stats["read/skipped/content-type"] == 5

    docs, stats, _ = read([path], fast=fast, record_types=["request"])
    assert numbers(docs) == ["102", "104", "106"]
    assert stats["read/skipped/type/response"] == 5
    assert stats["read/skipped/type/resource"] == 1

    sizes = {d.url: len(d.raw) for d in read([path], fast=fast)[0]}
    docs, stats, _ = read([path], fast=fast, min_length=120)
    assert numbers(docs) == ["1", "2", "4", "5", "6"]  # the resource's block is short
    assert stats["read/skipped/length"] == 1
    docs, stats, _ = read([path], fast=fast, max_length=100)
    assert numbers(docs) == ["3"]
    assert stats["read/skipped/length"] == 5
    assert sizes


# ---------------------------------------------------------------------------------------------
# bad input: one counted, quoted drop each, and the neighbours survive


def only_drop(drops: list[tuple[str, str, str]], reason: str) -> tuple[str, str, str]:
    assert [d[0] for d in drops] == [reason], drops
    return drops[0]


@both
def test_truncated_gzip_member_mid_file(fast: bool) -> None:
    docs, stats, drops = read([WARC_DIR / "truncated-mid.warc.gz"], fast=fast)
    assert numbers(docs) == ["1", "3", "4", "5", "6"]  # record 2 was in the cut member
    _reason, _source, message = only_drop(drops, "warc/truncated-gzip")
    assert "gzip member at" in message and "next member" in message
    assert stats["drop/warc/truncated-gzip"] == 1


@both
def test_truncated_gzip_member_at_end(fast: bool) -> None:
    docs, _, drops = read([WARC_DIR / "truncated-end.warc.gz"], fast=fast)
    assert numbers(docs) == ["1", "2", "3", "4", "5"]
    _, source, message = only_drop(drops, "warc/truncated-gzip")
    assert "the file ends" in message
    assert "b'WARC/1.1" in message  # quotes the record that was lost
    assert source.endswith("@2182")


@both
@pytest.mark.parametrize(
    "name", ["length-short.warc", "length-long.warc", "length-short.warc.gz", "length-long.warc.gz"]
)
def test_lying_content_length(name: str, fast: bool) -> None:
    """Record 4 lies; it is kept, read up to the next record, and says what was repaired."""
    docs, stats, drops = read([WARC_DIR / name], fast=fast)
    assert numbers(docs) == GOOD_CONTENT
    assert drops == []
    four = docs[3]
    assert four.raw == b"<html><title>page 4</title><p>Body of record 4.</p></html>\n"
    (note,) = four.metadata["repaired"]
    if "long" in name:  # the next record starts inside the declared block: cut there
        assert four.metadata["truncated"] is True
        assert "the next record starts inside it" in note
        assert stats["read/repaired/truncated"] == 1
    else:  # the block runs on past the declared length to the record end
        assert "truncated" not in four.metadata
        assert note.startswith("content-length: the block of Content-Length") and "b'" in note
        assert stats["read/repaired/content-length"] == 1
    assert all(not d.metadata for d in docs if d is not four)


@both
@pytest.mark.parametrize("name", ["garbage.warc", "garbage.warc.gz"])
def test_garbage_between_records(name: str, fast: bool) -> None:
    docs, _, drops = read([WARC_DIR / name], fast=fast)
    assert numbers(docs) == GOOD_CONTENT
    _, _, message = only_drop(drops, "warc/garbage")
    assert "<<junk that a broken writer" in message
    assert "104 bytes" in message


@both
@pytest.mark.parametrize("name", ["bad-header.warc", "bad-header.warc.gz"])
def test_header_line_that_is_not_a_header(name: str, fast: bool) -> None:
    """The line is skipped (as warcio does) and noted; the framed record is kept."""
    docs, stats, drops = read([WARC_DIR / name], fast=fast)
    assert numbers(docs) == GOOD_CONTENT
    assert drops == []
    (note,) = docs[4].metadata["repaired"]
    assert note.startswith("header: skipped WARC header line") and "this line is not a header" in note
    assert docs[4].raw == b"<html><title>page 5</title><p>Body of record 5.</p></html>\n"
    assert stats["read/repaired/header"] == 1


def test_header_without_a_type_is_dropped() -> None:
    bad = rec(2).replace(b"WARC-Type: response\r\n", b"not a header\r\n")
    docs, _, drops = read([io.BytesIO(rec(1) + bad + rec(3))], fast=False)
    assert numbers(docs) == ["1", "3"]
    only_drop(drops, "warc/bad-header")


@both
@pytest.mark.parametrize(
    ("name", "reason"),
    [("not-warc.png", "warc/not-warc"), ("not-warc.txt", "warc/not-warc"), ("empty.warc", "warc/empty-file")],
)
def test_not_a_warc(name: str, reason: str, fast: bool) -> None:
    docs, stats, drops = read([WARC_DIR / name, WARC_DIR / "good.warc"], fast=fast)
    assert numbers(docs) == GOOD_CONTENT  # the next input is read as usual
    _, source, message = only_drop(drops, reason)
    assert name in source
    if reason == "warc/not-warc":
        assert "starts with b'" in message
    assert stats["read/files"] == 2


def test_unreadable_inputs(tmp_path: Path) -> None:
    docs, stats, drops = read([tmp_path / "missing.warc.gz", tmp_path, WARC_DIR / "good.warc"])
    assert numbers(docs) == GOOD_CONTENT
    assert [d[0] for d in drops] == ["warc/unreadable", "warc/unreadable"]
    assert "missing.warc.gz" in drops[0][2]
    assert stats["drop/warc/unreadable"] == 2


@both
def test_truncated_plain_file_at_end(fast: bool) -> None:
    """A record cut in its block is kept as far as it goes; one cut in its header is dropped."""
    data = rec(1) + rec(2) + rec(3)
    docs, stats, drops = read([io.BytesIO(data[:-7])], fast=fast)
    assert numbers(docs) == ["1", "2", "3"]
    assert drops == []
    last = docs[2]
    assert last.raw == b"<p>3<" and last.status == 200
    assert last.metadata["truncated"] is True
    assert "the data ends inside it" in last.metadata["repaired"][0]
    assert stats["read/repaired/truncated"] == 1
    docs, _, drops = read([io.BytesIO(data[: len(rec(1) + rec(2)) + 40])], fast=fast)
    assert numbers(docs) == ["1", "2"]
    only_drop(drops, "warc/truncated-record")


@both
def test_several_problems_in_one_file(fast: bool) -> None:
    members = [gz(rec(n)) for n in range(1, 9)]
    data = (
        members[0]
        + members[1][:-15]  # truncated member (2)
        + members[2]
        + b"\x00garbage\x00"  # garbage (between 3 and 4)
        + members[3]
        + gz(rec(5, length=9))  # lying length (5)
        + members[5]
        + gz(rec(7).replace(b"WARC-Date:", b"no colon here\r\nWARC-Date:"))  # bad header (7)
        + members[7]
    )
    docs, stats, drops = read([io.BytesIO(data)], fast=fast)
    assert numbers(docs) == ["1", "2", "3", "4", "5", "6", "7", "8"]  # every record is recovered
    assert [d[0] for d in drops] == ["warc/garbage"]  # only the garbage is not a record
    two, five, seven = docs[1], docs[4], docs[6]
    assert two.metadata["truncated"] is True and two.raw == b"<p>2</p>"[: len(two.raw)]
    assert five.raw == b"<p>5</p>" and "content-length" in five.metadata["repaired"][0]
    assert seven.raw == b"<p>7</p>" and "no colon here" in seven.metadata["repaired"][0]
    assert stats["read/records"] == 8
    assert stats["read/repaired/truncated-gzip"] == 1


def test_corrupt_member_is_skipped_to_the_next() -> None:
    members = [gz(rec(n)) for n in range(1, 4)]
    broken = bytearray(members[1])
    broken[30:60] = b"\xff" * 30  # corrupt deflate data, same length
    docs, _, drops = read([io.BytesIO(members[0] + bytes(broken) + members[2])])
    assert numbers(docs) == ["1", "3"]
    assert [d[0] for d in drops] in (["warc/corrupt-gzip"], ["warc/truncated-gzip"])


def test_lenient_trailer_and_lf_only_records() -> None:
    lf = rec(2).replace(b"\r\n", b"\n")  # HTTP and WARC lines with bare LF
    block = lf.split(b"\n\n", 1)[1][:-2]
    lf = re.sub(rb"Content-Length: \d+", b"Content-Length: %d" % len(block), lf)
    data = rec(1)[:-2] + lf + rec(3)  # record 1 ends with one CRLF only
    docs, stats, drops = read([io.BytesIO(data)], fast=False)
    assert numbers(docs) == ["1", "2", "3"]
    assert drops == []
    assert stats["read/lenient/trailer"] >= 1
    assert docs[1].status == 200 and docs[1].raw == b"<p>2</p>"


def test_too_large_records_are_streamed_past() -> None:
    big = rec(2, b"x" * 5000, rtype="resource")
    docs, _, drops = read([io.BytesIO(rec(1) + big + rec(3))], record_size_cap=1000)
    assert numbers(docs) == ["1", "3"]
    only_drop(drops, "warc/too-large")


def test_bzip2_and_nonseekable_gzip_recover_too() -> None:
    data = (WARC_DIR / "garbage.warc").read_bytes()
    docs, _, drops = read([io.BytesIO(bz2.compress(data))])
    assert numbers(docs) == GOOD_CONTENT
    only_drop(drops, "warc/garbage")
    docs, _, drops = read([Unseekable((WARC_DIR / "truncated-mid.warc.gz").read_bytes())])
    assert numbers(docs) == ["1", "3", "4", "5", "6"]
    only_drop(drops, "warc/truncated-gzip")


def test_never_raises_on_random_damage() -> None:
    """Flip bytes all over a good file: reading must finish, keeping the records it can."""
    import random

    good = (WARC_DIR / "good.warc.gz").read_bytes()
    plain = (WARC_DIR / "good.warc").read_bytes()
    rng = random.Random(7)
    for data in (good, plain):
        for _ in range(40):
            damaged = bytearray(data)
            for _ in range(rng.randint(1, 6)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            for fast in (True, False):
                docs, stats, _ = read([io.BytesIO(bytes(damaged))], fast=fast)
                assert stats["read/records"] == len(docs)
                assert len(docs) <= 6


@both
def test_resync_after_a_broken_member_that_spans_read_chunks(fast: bool) -> None:
    """Members larger than the 1 MiB read size: the next member start must not be forgotten."""
    import random

    rng = random.Random(5)
    blocks = [rng.randbytes(400_000) for _ in range(5)]  # incompressible: members ~400 KB each
    members = [gz(rec(n, blocks[n - 1], rtype="resource")) for n in range(1, 6)]
    cut = members[2][: len(members[2]) - 1000]  # member 3 ends past the first 1 MiB chunk
    data = members[0] + members[1] + cut + members[3] + members[4]
    for src in (io.BytesIO(data), Unseekable(data)):
        docs, stats, drops = read([src], fast=fast)
        assert numbers(docs) == ["1", "2", "3", "4", "5"]
        assert [d.raw for d in docs] == [blocks[0], blocks[1], docs[2].raw, blocks[3], blocks[4]]
        assert docs[2].metadata["truncated"] is True  # what decompresses of member 3 is kept
        assert 0 < len(docs[2].raw) < len(blocks[2]) and blocks[2].startswith(docs[2].raw)
        assert drops == []
        assert stats["read/repaired/truncated-gzip"] == 1


def test_a_zstd_frame_that_needs_a_dictionary_is_a_counted_drop(tmp_path: Path) -> None:
    """A ``.warc.zst`` whose second frame was compressed against a raw-content dictionary (as a
    collection writes records against a site's reference record) cannot be read without that
    dictionary: the first record is kept, the rest is one counted drop, not a ZstdError."""
    zstandard = pytest.importorskip("zstandard")
    reference = zstandard.ZstdCompressionDict(rec(9) * 4, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    first = zstandard.ZstdCompressor().compress(rec(1))
    second = zstandard.ZstdCompressor(dict_data=reference).compress(rec(2))
    path = tmp_path / "referenced.warc.zst"
    path.write_bytes(first + second)
    docs, stats, drops = read([path])
    assert numbers(docs) == ["1"]
    assert [d[0] for d in drops] == ["warc/corrupt-compression"], drops
    assert stats["drop/warc/corrupt-compression"] == 1
