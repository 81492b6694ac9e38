from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path

import pytest

from trawl.acquire.streams import Compression, detect_compression, open_input
from trawl.errors import InputError

PAYLOAD = b"<DOC>\n<DOCNO>X-1</DOCNO>\nhello\n</DOC>\n" * 50


@pytest.mark.parametrize(
    ("packed", "kind"),
    [
        (gzip.compress(PAYLOAD, mtime=0), Compression.GZIP),
        (gzip.compress(PAYLOAD[:100], mtime=0) + gzip.compress(PAYLOAD[100:], mtime=0), Compression.GZIP),
        (bz2.compress(PAYLOAD), Compression.BZIP2),
        (lzma.compress(PAYLOAD), Compression.XZ),
        (PAYLOAD, Compression.NONE),
    ],
)
def test_detects_compression_from_bytes_not_names(tmp_path: Path, packed: bytes, kind: str) -> None:
    f = tmp_path / "misleading.txt"  # the extension says nothing true
    f.write_bytes(packed)
    stream, found = open_input(f)
    assert found == kind
    assert stream.read() == PAYLOAD
    stream2, found2 = open_input(io.BytesIO(packed))  # streams work too
    assert found2 == kind and stream2.read() == PAYLOAD


def test_zstd(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    data = zstandard.ZstdCompressor().compress(PAYLOAD)
    assert detect_compression(data) == Compression.ZSTD
    stream, _ = open_input(io.BytesIO(data))
    assert stream.read() == PAYLOAD


def test_non_seekable_stream() -> None:
    class Pipe(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def readinto(self, b):  # type: ignore[no-untyped-def]
            chunk = self.inner.read(len(b))
            b[: len(chunk)] = chunk
            return len(chunk)

    stream, kind = open_input(Pipe(gzip.compress(PAYLOAD)))  # type: ignore[arg-type]
    assert kind == Compression.GZIP and stream.read() == PAYLOAD


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.warc"):
        open_input(tmp_path / "nope.warc")
