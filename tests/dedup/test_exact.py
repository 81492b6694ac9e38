"""Exact duplicates: strong digests, and why byte sums and CRC-32 are not safe."""

from __future__ import annotations

import random

from trawl.dedup.exact import byte_sum, crc32, normalize_text, payload_digest, text_digest


def test_payload_digest_formats_and_differs() -> None:
    d = payload_digest(b"hello")
    assert d.startswith("xxh3:") and len(d) == 5 + 32
    assert payload_digest(b"hello") == d
    assert payload_digest(b"hellp") != d
    b = payload_digest(b"hello", "blake2b")
    assert b.startswith("blake2b:") and len(b) == 8 + 32


def test_text_digest_ignores_case_spacing_and_punctuation() -> None:
    assert text_digest("Hello,   World!\r\n") == text_digest("hello world")
    assert text_digest("hello world") != text_digest("world hello")
    assert normalize_text("\uff21\uff22\uff23  def") == "abc def"


def test_byte_sum_is_order_insensitive() -> None:
    a, b = b"dog bites man", b"man bites dog"
    assert a != b
    assert byte_sum(a) == byte_sum(b)  # the weakness
    assert payload_digest(a) != payload_digest(b)


def test_byte_sum_collides_among_few_hundred_documents() -> None:
    rng = random.Random(5)
    seen: dict[int, bytes] = {}
    collisions = 0
    for _ in range(2000):
        doc = bytes(rng.randrange(32, 127) for _ in range(200))
        s = byte_sum(doc)
        if s in seen and seen[s] != doc:
            collisions += 1
        seen[s] = doc
    assert collisions > 100  # sums of 200 printable bytes span only a few thousand values


def test_crc32_birthday_collisions_but_not_xxh3() -> None:
    # Random documents: CRC's linearity makes it *better* than random on near-identical inputs (it
    # catches every burst of ≤ 32 changed bits), so the birthday bound shows on unrelated ones.
    rng = random.Random(11)
    docs = list({rng.randbytes(16): None for _ in range(300_000)})
    crcs: dict[int, bytes] = {}
    crc_collisions = []
    for d in docs:
        c = crc32(d)
        if c in crcs:
            crc_collisions.append((crcs[c], d))
        crcs[c] = d
    assert crc_collisions, "300,000 distinct documents should give CRC-32 birthday collisions (expected ~10)"
    a, b = crc_collisions[0]
    assert a != b and crc32(a) == crc32(b)
    assert payload_digest(a) != payload_digest(b)
    assert len({payload_digest(d) for d in docs}) == len(docs)
