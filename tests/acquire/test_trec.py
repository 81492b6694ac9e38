"""TrecSource: TREC Web and plain TREC files, every compression, and every kind of bad input."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tracemalloc
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trawl.acquire.trec import TrecSource
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import RunContext


def read(inputs: Sequence[Any], **options: Any) -> tuple[list[Document], RunContext]:
    ctx = RunContext()
    return list(TrecSource(inputs, **options).read(ctx)), ctx


def reasons(ctx: RunContext) -> list[str]:
    return [e.reason for e in ctx.audit.entries]


def web(
    docno: str, url: str, body: bytes, *, http: bytes = b"HTTP/1.0 200 OK\nContent-Type: text/html\n\n"
) -> bytes:
    return (
        b"<DOC>\n<DOCNO>"
        + docno.encode()
        + b"</DOCNO>\n<DOCHDR>\n"
        + url.encode()
        + b"\n"
        + http
        + b"</DOCHDR>\n"
        + body
        + b"\n</DOC>\n"
    )


def many(n: int, size: int = 40) -> bytes:
    return b"".join(web(f"D-{i:05d}", f"http://h{i % 7}.example/{i}", b"x%d " % i * size) for i in range(n))


class Trickle(io.BytesIO):
    """A stream that hands out its bytes a few at a time, so tags straddle every chunk boundary."""

    def __init__(self, data: bytes, sizes: Sequence[int]) -> None:
        super().__init__(data)
        self.name = "mem"
        self._sizes = list(sizes) or [1]
        self._i = 0

    def read1(self, n: int | None = -1) -> bytes:
        size = self._sizes[self._i % len(self._sizes)]
        self._i += 1
        return super().read1(size if n is None or n < 0 else min(n, size))


class FailingStream(io.BytesIO):
    """Gives ``good`` bytes, then fails like a disk with a bad sector."""

    def __init__(self, data: bytes, good: int) -> None:
        super().__init__(data)
        self._good = good

    def read1(self, n: int | None = -1) -> bytes:
        if self.tell() >= self._good:
            raise OSError(5, "Input/output error")
        left = self._good - self.tell()
        return super().read1(left if n is None or n < 0 else min(n, left))


# -- well-formed input -----------------------------------------------------------------------------


def test_wt10g_documents(test_data: Path) -> None:
    path = test_data / "trec" / "wt10g-sample.trec"
    data = path.read_bytes()
    docs, ctx = read([path])
    assert [d.docno for d in docs] == ["WTX001-B01-1", "WTX001-B01-2", "WTX001-B01-3"]
    first, second, third = docs

    assert first.url == "http://www.example.com/index.html"
    assert first.fetched_at == datetime(1997, 2, 16, 6, 48, 37, tzinfo=UTC)
    assert first.status == 200
    assert first.http_headers == [
        ("Date", "Sun, 16 Feb 1997 06:48:47 GMT"),
        ("Server", "NCSA/1.5"),
        ("Content-Type", "text/html"),
    ]
    assert first.raw == (
        b"<html><head><title>Example home</title></head>\n"
        b"<body><p>Welcome to the example site.</p>\n"
        b'<a href="/about.html">About us</a></body></html>'
    )
    assert first.declared_type == "text/html"
    assert first.record_type == "response"
    assert first.metadata == {
        "docoldno": "IA001-000000-B001-1",
        "ip": "192.168.1.1",
        "archive_type": "text/html",
        "archive_length": 213,
    }
    assert first.errors == []

    assert second.status == 404
    assert second.url == "http://www.example.fr/caf%E9.html"
    assert second.raw == b"<html><body><p>Caf\xe9 introuvable \xe0 cette adresse.</p></body></html>"
    assert second.declared_type == "text/html; charset=iso-8859-1"
    assert ("X-Folded", "first second") in second.http_headers

    assert third.url == "ftp://ftp.example.org/pub/README"
    assert third.record_type == "resource"
    assert third.status is None and third.http_headers == []
    assert third.raw == b"Plain README fetched over FTP, no HTTP header block."
    assert third.fetched_at is None

    for doc in docs:  # source is file@offset of the document's <DOC>
        name, _, offset = doc.source.rpartition("@")
        assert name == str(path)
        assert data[int(offset) : int(offset) + 5] == b"<DOC>"
        assert doc.fetched_at is None or doc.fetched_at.tzinfo is not None
    assert ctx.stats["read/files"] == 1
    assert ctx.stats["read/records"] == 3
    assert ctx.stats["read/bytes"] == len(data)
    assert ctx.audit.entries == []


def test_gov2_gzip_and_http_date(test_data: Path) -> None:
    path = test_data / "trec" / "gov2-sample.trec.gz"
    plain = gzip.decompress(path.read_bytes())
    docs, ctx = read([path])
    assert [d.docno for d in docs] == ["GX000-00-0000000", "GX000-00-0000001"]
    assert docs[0].url == "http://sgra.jpl.nasa.gov"
    # GOV2 has no date on the capture line: the server's Date header stands in.
    assert docs[0].fetched_at == datetime(2003, 12, 9, 21, 21, 33, tzinfo=UTC)
    assert docs[0].raw.endswith("Caf\u00e9 \u2014 UTF-8 page</body></html>".encode())
    # "</DOC>" mid-line inside a binary page does not end the document.
    assert docs[1].raw == b"%PDF-1.4\n\x00\x01\x02\xff binary </DOC> inside a line is not an end tag\n%%EOF"
    assert docs[1].declared_type == "application/pdf"
    for doc in docs:  # offsets are in the decompressed stream
        offset = int(doc.source.rpartition("@")[2])
        assert plain[offset : offset + 5] == b"<DOC>"
    assert ctx.stats["read/bytes"] == len(plain)
    assert ctx.audit.entries == []


def test_plain_trec_text(test_data: Path) -> None:
    docs, ctx = read([test_data / "trec" / "ap-plain.trec"])
    assert [d.docno for d in docs] == ["AP880212-0001", "AP880212-0002"]
    assert [d.url for d in docs] == ["trec:AP880212-0001", "trec:AP880212-0002"]
    assert docs[1].raw == b"<TEXT>\n   The second story.\n</TEXT>"
    assert docs[0].raw.startswith(b"<FILEID>AP-NR-02-12-88 2344EST</FILEID>\n<HEAD>")
    assert all(d.declared_type == "text/plain" and d.record_type == "resource" for d in docs)
    assert all(d.fetched_at is None and d.status is None for d in docs)
    assert ctx.audit.entries == []


@pytest.mark.parametrize(
    "pack",
    [
        lambda b: b,
        gzip.compress,
        lambda b: gzip.compress(b[:1000]) + gzip.compress(b[1000:]),  # multi-member
        bz2.compress,
        lzma.compress,
    ],
    ids=["plain", "gzip", "gzip-members", "bzip2", "xz"],
)
def test_every_compression_gives_the_same_documents(tmp_path: Path, pack: Any) -> None:
    data = many(30)
    path = tmp_path / "input.bin"  # no telling extension: compression comes from the bytes
    path.write_bytes(pack(data))
    docs, ctx = read([path])
    expected, _ = read([io.BytesIO(data)])
    assert [(d.docno, d.url, d.raw, d.source.rpartition("@")[2]) for d in docs] == [
        (d.docno, d.url, d.raw, d.source.rpartition("@")[2]) for d in expected
    ]
    assert len(docs) == 30 and ctx.audit.entries == []
    assert ctx.stats["read/bytes"] == len(data)


def test_streams_are_read_and_left_open() -> None:
    stream = io.BytesIO(gzip.compress(many(3)))
    docs, ctx = read([stream, io.BytesIO(many(2))])
    assert len(docs) == 5 and ctx.stats["read/files"] == 2
    assert not stream.closed


def test_crlf_bom_and_leading_whitespace() -> None:
    data = b"\xef\xbb\xbf\r\n  \r\n" + web("C-1", "http://c.example/", b"line one\nline two").replace(
        b"\n", b"\r\n"
    )
    docs, ctx = read([io.BytesIO(data)])
    assert len(docs) == 1 and ctx.audit.entries == []
    assert docs[0].raw == b"line one\r\nline two"
    assert docs[0].status == 200 and docs[0].declared_type == "text/html"
    assert docs[0].source.endswith(f"@{data.index(b'<DOC>')}")


def test_dochdr_oddities_are_recorded_on_the_document() -> None:
    data = web(
        "O-1",
        "http://o.example/ 19971399000000 what?",
        b"body",
        http=b"HTTP/1.0 2xx OK\nnot a header line\nContent-Type: text/plain\n\n",
    )
    docs, ctx = read([io.BytesIO(data)])
    (doc,) = docs
    assert doc.fetched_at is None  # month 13: not a date, and no Date header to fall back on
    assert doc.status is None and doc.record_type == "response"
    assert doc.declared_type == "text/plain"
    assert len(doc.errors) == 4 and all(e.startswith("trec: ") for e in doc.errors)
    assert ctx.audit.entries == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(min_value=1, max_value=23), min_size=1, max_size=12))
def test_chunk_boundaries_do_not_matter(test_data: Path, sizes: list[int]) -> None:
    data = (
        (test_data / "trec" / "wt10g-sample.trec").read_bytes()
        + (test_data / "trec" / "broken.trec").read_bytes()
        + b"\n\n"
        + (test_data / "trec" / "ap-plain.trec").read_bytes()
    )
    stream = io.BytesIO(data)
    stream.name = "mem"
    whole, whole_ctx = read([stream])
    bits, bits_ctx = read([Trickle(data, sizes)])
    assert [(d.docno, d.raw, d.source) for d in bits] == [(d.docno, d.raw, d.source) for d in whole]
    assert [e.as_dict() for e in bits_ctx.audit.entries] == [e.as_dict() for e in whole_ctx.audit.entries]
    assert len(whole) == 8


def test_memory_is_constant_in_file_size() -> None:
    data = many(2000, size=200)  # about 2.5 MB
    stream = io.BytesIO(data)
    tracemalloc.start()
    try:
        count = sum(1 for _ in TrecSource([stream]).read(RunContext()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 2000
    assert peak < 4 << 20, peak


# -- bad input ----------------------------------------------------------------------------------------


def test_broken_fixture_keeps_every_good_neighbour(test_data: Path) -> None:
    path = test_data / "trec" / "broken.trec"
    docs, ctx = read([path])
    assert [d.docno for d in docs] == ["OK-1", "OK-2", "OK-3"]
    assert [d.raw for d in docs] == [b"first good", b"second good", b"third good"]
    assert reasons(ctx) == [
        "trec/garbage",
        "trec/missing-docno",
        "trec/bad-docno",
        "trec/bad-dochdr",
        "trec/unterminated-doc",
    ]
    by_reason = {e.reason: e for e in ctx.audit.entries}
    assert all(e.stage == "trec" and e.kind == "drop" for e in ctx.audit.entries)
    assert "\\x00\\x00\\x1f\\xee\\xff garbage between documents" in by_reason["trec/garbage"].message
    assert "NO-DOCNO" in by_reason["trec/missing-docno"].message
    assert "\\x00\\xff\\xfe" in by_reason["trec/bad-docno"].message
    assert "\\x89PNG" in by_reason["trec/bad-dochdr"].message
    assert "UNTERMINATED" in by_reason["trec/unterminated-doc"].message
    data = path.read_bytes()
    garbage_at = int(by_reason["trec/garbage"].source.rpartition("@")[2])  # type: ignore[union-attr]
    assert data[garbage_at : garbage_at + 2] == b"\x00\x00"
    for reason in reasons(ctx):
        assert ctx.stats[f"drop/{reason}"] == 1
    assert ctx.stats["read/records"] == 3


def test_unterminated_at_end_of_file() -> None:
    data = many(2) + b"<DOC>\n<DOCNO>LAST</DOCNO>\n<DOCHDR>\nhttp://l.example/\n</DOCHDR>\nno end"
    docs, ctx = read([io.BytesIO(data)])
    assert len(docs) == 2
    assert reasons(ctx) == ["trec/unterminated-doc"]
    assert "LAST" in ctx.audit.entries[0].message and "end of the file" in ctx.audit.entries[0].message


def test_too_large_is_skipped_without_holding_it() -> None:
    big = web("BIG", "http://big.example/", b"y" * (16 << 20))
    data = many(3) + big + many(2)
    stream = io.BytesIO(data)
    tracemalloc.start()
    try:
        ctx = RunContext()
        docnos = [d.docno for d in TrecSource([stream], max_doc_bytes=256 << 10).read(ctx)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert docnos == ["D-00000", "D-00001", "D-00002", "D-00000", "D-00001"]
    assert reasons(ctx) == ["trec/too-large"]
    assert "BIG" in ctx.audit.entries[0].message and str(len(big) - 1) in ctx.audit.entries[0].message
    assert peak < 3 << 20, peak  # a 16 MiB document, never more than the limit and a chunk in memory


def test_too_large_found_whole_in_the_window() -> None:
    data = many(1) + web("BIG", "http://big.example/", b"z" * 5000) + many(1)
    docs, ctx = read([io.BytesIO(data)], max_doc_bytes=1000)
    assert len(docs) == 2 and reasons(ctx) == ["trec/too-large"]


def test_oversized_and_unterminated() -> None:
    data = b"<DOC>\n<DOCNO>HUGE</DOCNO>\n" + b"w" * 300_000 + b"\n" + many(1)
    docs, ctx = read([io.BytesIO(data)], max_doc_bytes=1000)
    assert [d.docno for d in docs] == ["D-00000"]
    assert reasons(ctx) == ["trec/unterminated-doc"] and "HUGE" in ctx.audit.entries[0].message


def test_truncated_gzip_keeps_documents_before_the_damage(test_data: Path) -> None:
    docs, ctx = read([test_data / "trec" / "truncated.trec.gz", io.BytesIO(many(2))])
    assert len(docs) > 200
    assert [d.docno for d in docs[:-2]] == [f"T-{i:05d}" for i in range(len(docs) - 2)]
    assert [d.docno for d in docs[-2:]] == ["D-00000", "D-00001"]  # the next input is still read
    assert reasons(ctx) == ["trec/truncated"]
    entry = ctx.audit.entries[0]
    assert "EOFError" in entry.message and f"T-{len(docs) - 2:05d}" in entry.message
    assert ctx.stats["drop/trec/truncated"] == 1 and ctx.stats["read/files"] == 2


def test_truncated_between_documents() -> None:
    data = many(5)
    packed = gzip.compress(data)
    # Cut the stream inside the deflate data but after all the documents' bytes came out: drop the
    # 8-byte trailer only.
    docs, ctx = read([io.BytesIO(packed[:-8])])
    assert len(docs) == 5
    assert reasons(ctx) == ["trec/truncated"] and "between documents" in ctx.audit.entries[0].message


def test_corrupt_gzip() -> None:
    packed = bytearray(gzip.compress(many(3000)))
    middle = len(packed) // 2
    packed[middle : middle + 40] = b"\xff" * 40
    docs, ctx = read([io.BytesIO(bytes(packed))])
    assert len(docs) > 1000  # at most one read chunk before the damage is lost
    assert [d.docno for d in docs[:1000]] == [f"D-{i:05d}" for i in range(1000)]
    assert "trec/corrupt" in reasons(ctx)


def test_io_error_mid_file() -> None:
    data = many(10)
    docs, ctx = read([FailingStream(data, good=len(data) // 2)])
    assert 0 < len(docs) < 10
    assert reasons(ctx) == ["trec/unreadable"] and "Input/output error" in ctx.audit.entries[0].message


def test_unreadable_paths(tmp_path: Path) -> None:
    good = tmp_path / "good.trec"
    good.write_bytes(many(1))
    docs, ctx = read([tmp_path / "missing.trec", tmp_path, good])
    assert [d.docno for d in docs] == ["D-00000"]
    assert reasons(ctx) == ["trec/unreadable", "trec/unreadable"]
    assert "missing.trec" in ctx.audit.entries[0].message
    assert ctx.audit.entries[0].source == str(tmp_path / "missing.trec")
    assert ctx.stats["read/files"] == 1


@pytest.mark.parametrize("content", [b"", b"  \n\r\n\t", gzip.compress(b""), gzip.compress(b"\n\n")])
def test_empty_file(content: bytes) -> None:
    docs, ctx = read([io.BytesIO(content), io.BytesIO(many(1))])
    assert len(docs) == 1
    assert reasons(ctx) == ["trec/empty-file"]


def test_not_trec() -> None:
    docs, ctx = read([io.BytesIO(b'{"json": "lines"}\n' * 3), io.BytesIO(many(1))])
    assert len(docs) == 1
    assert reasons(ctx) == ["trec/not-trec"] and '{"json"' in ctx.audit.entries[0].message


def test_not_trec_large_file_is_not_read_to_the_end() -> None:
    blob = bytes(range(256)) * (8 << 12) + b"\n" + many(1)  # 8 MiB of binary, then a stray <DOC>
    docs, ctx = read([io.BytesIO(blob)])
    assert docs == [] and reasons(ctx) == ["trec/not-trec"]
    assert ctx.stats["read/bytes"] < 1 << 20


def test_garbage_before_the_first_document() -> None:
    data = b"stray header line\x00\n" + many(2) + b"trailing junk"
    docs, ctx = read([io.BytesIO(data)])
    assert len(docs) == 2
    assert reasons(ctx) == ["trec/garbage", "trec/garbage"]
    assert ctx.audit.entries[0].source == "<BytesIO>@0"
    assert "trailing junk" in ctx.audit.entries[1].message


def test_unclosed_dochdr_and_docno() -> None:
    data = (
        b"<DOC>\n<DOCNO>H-1</DOCNO>\n<DOCHDR>\nhttp://h.example/\nHTTP/1.0 200 OK\n\npage\n</DOC>\n"
        + b"<DOC>\n<DOCNO>N-1\n<TEXT>x</TEXT>\n</DOC>\n"
        + many(1)
    )
    docs, ctx = read([io.BytesIO(data)])
    assert [d.docno for d in docs] == ["D-00000"]
    assert reasons(ctx) == ["trec/bad-dochdr", "trec/bad-docno"]
    assert "H-1" in ctx.audit.entries[0].message


def test_read_never_raises_on_a_broken_stream() -> None:
    class Broken(io.BytesIO):
        def read1(self, n: int | None = -1) -> bytes:
            raise ValueError("I/O operation on closed file")

    docs, ctx = read([Broken(b"<DOC>"), io.BytesIO(many(1))])
    assert len(docs) == 1
    assert reasons(ctx) == ["trec/unreadable"]


def test_max_doc_bytes_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="max_doc_bytes"):
        TrecSource([], max_doc_bytes=0)


def test_documents_stream_lazily() -> None:
    """The first document is available before the rest of the input has been read."""

    def endless() -> Iterator[bytes]:
        i = 0
        while True:
            yield web(f"E-{i}", f"http://e.example/{i}", b"page")
            i += 1

    class Endless(io.RawIOBase):
        def __init__(self) -> None:
            self._gen = endless()
            self._pending = b""

        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            if not self._pending:
                self._pending = next(self._gen)
            n = min(len(b), len(self._pending))
            b[:n] = self._pending[:n]
            self._pending = self._pending[n:]
            return n

    source = TrecSource([io.BufferedReader(Endless())])
    it = source.read(RunContext())
    assert [next(it).docno for _ in range(3)] == ["E-0", "E-1", "E-2"]
