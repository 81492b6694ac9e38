"""Entity bodies: chunked transfer coding and content codings undone, damage kept bounded."""

from __future__ import annotations

import gzip
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.decode.http import dechunk, decode_payload, entity_body
from trawl.document import Document

BODY = b"<html><body>" + b"<p>hello world</p>" * 200 + b"</body></html>"


def chunked(data: bytes, size: int = 100, *, last: bool = True) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        piece = data[i : i + size]
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + (b"0\r\n\r\n" if last else b"")


def kinds(payload_problems: object) -> list[str]:
    return [p.kind for p in payload_problems]  # type: ignore[attr-defined]


def test_identity_body_is_raw_itself() -> None:
    doc = Document(url="http://x/", raw=BODY, http_headers=[("Content-Type", "text/html")])
    body = entity_body(doc)
    assert body.data is BODY
    assert body.codings == () and body.problems == ()


def test_chunked_round_trip_with_extensions_and_trailers() -> None:
    raw = chunked(BODY, 77).replace(b"\r\n", b";name=value\r\n", 1) + b"Trailer: x\r\n\r\n"
    data, problem = dechunk(raw)
    assert data == BODY and problem is None


def test_chunked_without_last_chunk_keeps_everything_and_says_so() -> None:
    data, problem = dechunk(chunked(BODY, last=False))
    assert data == BODY
    assert problem is not None and problem.kind == "chunked-error"


def test_chunked_cut_inside_a_chunk_keeps_the_prefix() -> None:
    raw = chunked(BODY, 100)[:250]
    data, problem = dechunk(raw)
    assert BODY.startswith(data) and len(data) > 100
    assert problem is not None and problem.kind == "chunked-error"


def test_chunked_with_a_lying_size_stops_at_the_damage() -> None:
    raw = b"5\r\nhello\r\nzz\r\nworld\r\n0\r\n\r\n"
    data, problem = dechunk(raw)
    assert data == b"hello"
    assert problem is not None and problem.kind == "chunked-error" and "zz" in problem.message


def test_body_that_was_never_chunked_passes_through() -> None:
    payload = decode_payload(BODY, "chunked")
    assert payload.data == BODY
    assert kinds(payload.problems) == ["chunked-absent"]
    assert payload.codings == ()


def test_gzip_deflate_and_raw_deflate() -> None:
    assert decode_payload(gzip.compress(BODY), None, "gzip").data == BODY
    assert decode_payload(gzip.compress(BODY), None, "x-gzip").data == BODY
    assert decode_payload(zlib.compress(BODY), None, "deflate").data == BODY
    raw_deflate = zlib.compressobj(wbits=-15)
    assert decode_payload(raw_deflate.compress(BODY) + raw_deflate.flush(), None, "Deflate").data == BODY


def test_multi_member_gzip_is_read_to_the_end() -> None:
    assert decode_payload(gzip.compress(b"abc") + gzip.compress(b"def"), None, "gzip").data == b"abcdef"


def test_truncated_gzip_keeps_what_inflated() -> None:
    data = gzip.compress(BODY * 50)
    payload = decode_payload(data[: len(data) // 2], None, "gzip")
    assert len(payload.data) > 0 and (BODY * 50).startswith(payload.data)
    assert kinds(payload.problems) == ["content-encoding-error"]


def test_header_says_gzip_but_body_is_plain() -> None:
    payload = decode_payload(BODY, None, "gzip")
    assert payload.data == BODY
    assert kinds(payload.problems) == ["content-encoding-absent"]


def test_gzip_bomb_is_cut_at_the_cap_without_inflating_the_rest() -> None:
    # 100 members of 10 MiB of zeros each: a 1 GiB body from about 1 MB of input.
    member = gzip.compress(b"\0" * (10 << 20), compresslevel=9)
    bomb = member * 100
    payload = decode_payload(bomb, None, "gzip", max_bytes=3 << 20)
    assert len(payload.data) == 3 << 20
    assert kinds(payload.problems) == ["size-cap"]


def test_chunked_then_gzip_and_a_head_only_read() -> None:
    raw = chunked(gzip.compress(BODY * 100), 500)
    full = decode_payload(raw, "chunked", "gzip")
    assert full.data == BODY * 100 and full.codings == ("chunked", "gzip") and full.problems == ()
    head = decode_payload(raw, "chunked", "gzip", limit=1000)
    assert head.data == (BODY * 100)[:1000] and head.problems == ()


def test_head_of_a_plain_chunked_body() -> None:
    head = decode_payload(chunked(BODY, 10), "chunked", None, limit=25)
    assert head.data == BODY[:25]


def test_content_codings_undone_in_reverse_order() -> None:
    raw = gzip.compress(zlib.compress(BODY))
    assert decode_payload(raw, None, "deflate, gzip").data == BODY


def test_unsupported_coding_leaves_bytes_alone() -> None:
    payload = decode_payload(b"\x1f\x9d\x90junk", None, "exi")
    assert payload.data == b"\x1f\x9d\x90junk"
    assert kinds(payload.problems) == ["content-encoding-unsupported"]


def test_identity_coding_is_no_coding() -> None:
    payload = decode_payload(BODY, None, "identity")
    assert payload.data is BODY and payload.problems == ()


def test_brotli_and_its_bomb() -> None:
    brotli = pytest.importorskip("brotli")
    assert decode_payload(brotli.compress(BODY), None, "br").data == BODY
    bomb = brotli.compress(b"\0" * (64 << 20), quality=1)
    payload = decode_payload(bomb, None, "br", max_bytes=1 << 20)
    assert len(payload.data) == 1 << 20
    assert kinds(payload.problems) == ["size-cap"]


def test_zstd() -> None:
    zstandard = pytest.importorskip("zstandard")
    assert decode_payload(zstandard.ZstdCompressor().compress(BODY), None, "zstd").data == BODY


def test_entity_body_reads_headers_case_insensitively_and_joins_repeats() -> None:
    raw = gzip.compress(zlib.compress(BODY))
    doc = Document(
        url="http://x/",
        raw=raw,
        http_headers=[("content-encoding", "deflate"), ("CONTENT-ENCODING", "gzip")],
    )
    assert entity_body(doc).data == BODY
    assert entity_body(doc, limit=10).data == BODY[:10]


@settings(max_examples=300, deadline=None)
@given(
    raw=st.binary(max_size=2048),
    transfer=st.sampled_from([None, "chunked"]),
    coding=st.sampled_from([None, "gzip", "deflate", "br", "gzip, deflate", "compress"]),
)
def test_decoding_a_payload_never_raises(raw: bytes, transfer: str | None, coding: str | None) -> None:
    payload = decode_payload(raw, transfer, coding, max_bytes=1 << 16)
    assert len(payload.data) <= max(len(raw), 1 << 16)
