"""Fuzzing the WARC/ARC reader on damaged copies of the fixtures: bit flips, truncation at
every offset, garbage between records.

Each damaged input must be read without an exception escaping, within a time bound, and every
record that lies wholly before the damage must still be read, payload intact. The fast subset
runs by default; the exhaustive ones are marked ``slow``.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trawl.acquire.warc import WarcSource
from trawl.document import Document
from trawl.pipeline.base import RunContext

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "warc"
SEEDS = ("good.warc", "good.warc.gz", "arc-v1.arc", "arc-v1.arc.gz", "odd-http-headers.warc")
ALL = ("warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion")
TIME_BOUND = 5.0  # seconds for one small damaged file: a hang fails, a slow machine does not


def read(data: bytes, *, fast: bool) -> list[Document]:
    ctx = RunContext()
    began = time.monotonic()
    docs = list(WarcSource([io.BytesIO(data)], record_types=ALL, fast=fast).read(ctx))
    assert time.monotonic() - began < TIME_BOUND
    assert ctx.stats["read/records"] == len(docs)
    return docs


def _offset(doc: Document) -> int:
    return int((doc.source or "@0").rsplit("@", 1)[1])


def layout(name: str) -> tuple[bytes, list[tuple[int, int, Document]]]:
    """The fixture's bytes and its records as (start, end, document); end = the next start."""
    data = (FIXTURES / name).read_bytes()
    docs = read(data, fast=False)
    starts = [_offset(d) for d in docs]
    ends = [*starts[1:], len(data)]
    return data, list(zip(starts, ends, docs, strict=True))


LAYOUTS = {name: layout(name) for name in SEEDS}


def assert_kept_before(damage_at: int, name: str, docs: list[Document]) -> None:
    """Every record that ends before ``damage_at`` is read, with the same payload."""
    got = {(_offset(d), d.url): d.raw for d in docs}
    for start, end, want in LAYOUTS[name][1]:
        if end <= damage_at:
            assert got.get((start, want.url)) == want.raw, (name, damage_at, want.url)


def _truncations(name: str, stride: int) -> None:
    data = LAYOUTS[name][0]
    for cut in range(0, len(data), stride):
        for fast in (True, False):
            docs = read(data[:cut], fast=fast)
            assert_kept_before(cut, name, docs)


@pytest.mark.parametrize("name", SEEDS)
def test_truncation_at_many_offsets(name: str) -> None:
    _truncations(name, 37)


@pytest.mark.slow
@pytest.mark.parametrize("name", SEEDS)
def test_truncation_at_every_offset(name: str) -> None:
    _truncations(name, 1)


def test_truncated_last_record_is_kept_as_far_as_it_goes() -> None:
    data, records = LAYOUTS["good.warc"]
    _, end, last = records[-1]
    cut = end - 10  # inside the last record's payload
    docs = read(data[:cut], fast=True)
    assert docs[-1].url == last.url and docs[-1].metadata["truncated"] is True
    assert (last.raw or b"").startswith(docs[-1].raw or b"")


@st.composite
def flipped(draw: st.DrawFn) -> tuple[str, bytes, int]:
    name = draw(st.sampled_from(SEEDS))
    data = bytearray(LAYOUTS[name][0])
    positions = draw(st.lists(st.integers(0, len(data) * 8 - 1), min_size=1, max_size=8))
    for bit in positions:
        data[bit // 8] ^= 1 << (bit % 8)
    return name, bytes(data), min(positions) // 8


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flipped(), st.booleans())
def test_bit_flips(case: tuple[str, bytes, int], fast: bool) -> None:
    name, data, first = case
    docs = read(data, fast=fast)
    if not name.endswith(".gz"):  # a flip in a gzip member may show only at its end (the CRC)
        assert_kept_before(first, name, docs)
    else:
        member_start = max((s for s, _, _ in LAYOUTS[name][1] if s <= first), default=0)
        assert_kept_before(member_start, name, docs)


@st.composite
def garbage_between(draw: st.DrawFn) -> tuple[str, bytes, int]:
    name = draw(st.sampled_from(SEEDS))
    data, records = LAYOUTS[name]
    at = draw(st.sampled_from([s for s, _, _ in records[1:]] or [len(data)]))
    junk = draw(st.binary(min_size=1, max_size=300))
    return name, data[:at] + junk + data[at:], at


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage_between(), st.booleans())
def test_garbage_between_records(case: tuple[str, bytes, int], fast: bool) -> None:
    name, data, at = case
    assert_kept_before(at, name, read(data, fast=fast))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flipped(), st.booleans())
def test_bit_flips_long(case: tuple[str, bytes, int], fast: bool) -> None:
    test_bit_flips.hypothesis.inner_test(case, fast)  # type: ignore[attr-defined]
