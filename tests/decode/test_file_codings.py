"""Compressed single files (``.Z``, ``.bz2``, ``.xz``, ``.zst``, ``.lz4``, ``.gz``) unpacked as a
content coding: by their magic number, under the same size cap, with truncation reported."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import importlib
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest

from trawl.acquire.localdir import LocalDirSource, file_document
from trawl.decode.http import FILE_CODINGS, decode_payload, entity_body, file_coding
from trawl.jobs.steps import default_steps
from trawl.pipeline import Pipeline
from trawl.pipeline.base import RunContext
from trawl.sniff.magic import sniff_type

TEXT = b"Harbour pilot report\nThe tide turned at noon; the dredger waited at the quay.\n" * 20


def _module(name: str) -> object:
    return pytest.importorskip(name)


def _compressors() -> dict[str, tuple[str, Callable[[bytes], bytes]]]:
    """coding → (file suffix, compress function), for the modules installed here."""
    found: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
        "gzip": (".gz", gzip.compress),
        "bzip2": (".bz2", bz2.compress),
        "xz": (".xz", lzma.compress),
    }
    for coding, suffix, module, attr in (
        ("zstd", ".zst", "zstandard", "compress"),
        ("lz4", ".lz4", "lz4.frame", "compress"),
        ("compress", ".Z", "ncompress", "compress"),
    ):
        with contextlib.suppress(ImportError):
            found[coding] = (suffix, getattr(importlib.import_module(module), attr))
    return found


COMPRESSORS = _compressors()
CODINGS = ["gzip", "bzip2", "xz", "zstd", "lz4", "compress"]


def _pack(coding: str) -> tuple[str, Callable[[bytes], bytes]]:
    if coding not in COMPRESSORS:
        pytest.skip(f"the module that writes {coding} is not installed")
    return COMPRESSORS[coding]


@pytest.mark.parametrize("coding", CODINGS)
def test_a_compressed_file_is_unpacked_by_its_magic(coding: str) -> None:
    suffix, pack = _pack(coding)
    data = pack(TEXT)
    assert data.startswith(FILE_CODINGS[coding])
    doc = file_document(f"notes.txt{suffix}", data)
    assert file_coding(doc) == coding and doc.metadata["compressed_type"] == "text/plain"
    payload = entity_body(doc)
    assert payload.data == TEXT and payload.codings == (coding,) and not payload.problems
    assert entity_body(doc, limit=10).data == TEXT[:10]  # a head for sniffing
    plain = file_document(f"notes.txt{suffix}", TEXT)  # named so, but not compressed
    assert file_coding(plain) is None and entity_body(plain).data == TEXT
    if coding != "gzip":
        assert sniff_type(data) != "application/octet-stream"  # its own magic number


@pytest.mark.parametrize("coding", CODINGS)
def test_a_bomb_is_cut_at_the_cap(coding: str) -> None:
    _suffix, pack = _pack(coding)
    bomb = pack(b"\0" * (8 << 20))
    payload = decode_payload(bomb, None, coding, max_bytes=1 << 20)
    assert len(payload.data) == 1 << 20
    assert [p.kind for p in payload.problems] == ["size-cap"]


@pytest.mark.parametrize("coding", CODINGS)
def test_a_truncated_file_keeps_what_unpacked(coding: str) -> None:
    _suffix, pack = _pack(coding)
    big = b"".join(b"line %d of the harbour log\n" % i for i in range(20000))
    data = pack(big)
    cut = data[: len(data) // 2]
    payload = decode_payload(cut, None, coding)
    # bzip2's 900 kB blocks: half a block gives nothing, and then the bytes are kept as they are
    assert big.startswith(payload.data) or (coding == "bzip2" and payload.data == cut)
    assert len(payload.data) > 0
    # LZW has no end marker (a cut stream is only shorter); the zstd reader does not say either
    if coding not in ("compress", "zstd"):
        assert [p.kind for p in payload.problems] == ["content-encoding-error"]


def test_concatenated_streams_are_all_unpacked() -> None:
    for coding in ("bzip2", "xz", "lz4"):
        _suffix, pack = _pack(coding)
        payload = decode_payload(pack(b"first ") + pack(b"second"), None, coding)
        assert payload.data == b"first second" and not payload.problems


def test_ingest_reads_compressed_files(tmp_path: Path) -> None:
    for coding, (suffix, pack) in COMPRESSORS.items():
        (tmp_path / f"{coding}.txt{suffix}").write_bytes(pack(TEXT))
    (tmp_path / "bomb.txt.bz2").write_bytes(bz2.compress(b"a" * (60 << 20)))
    ctx = RunContext()
    docs = {Path(d.source).name: d for d in Pipeline([LocalDirSource([tmp_path])], default_steps(), ctx)}
    for coding, (suffix, _pack_it) in COMPRESSORS.items():
        assert docs[f"{coding}.txt{suffix}"].text.startswith("Harbour pilot report"), coding
    assert ctx.stats["decode/size-cap"] == 1
    assert len(docs["bomb.txt.bz2"].text) <= 50 << 20
