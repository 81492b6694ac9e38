"""Exact duplicates: a strong hash of the raw payload and of the normalised text.

Two documents are exact duplicates when their bytes (``payload_digest``) or their text after
normalisation (``text_digest``: NFKC, lower case, every run of non-word characters as one space)
are equal. Equality is decided through a 128-bit XXH3 digest: with n documents the chance that
*any* two different ones share a digest is about n²/2¹²⁹ (10⁻¹⁹ for a billion documents), so a
digest match is treated as equality. BLAKE2b-128 (:func:`payload_digest` with
``algorithm="blake2b"``) is there for callers who need a cryptographic hash — an adversary can
construct XXH3 collisions, not BLAKE2 ones — at roughly a tenth of the speed.

Storing an exact duplicate once, as a WARC ``revisit`` record pointing at the original, is the
collection writer's job (:mod:`trawl.store`); it calls :func:`payload_digest`.

Two *weak* checksums are kept, only as tested demonstrations of why they are unsafe:

* :func:`byte_sum` (the sum of the bytes mod 2¹⁶) ignores order: any permutation of a text —
  ``"dog bites man"`` and ``"man bites dog"`` — has the same sum, and with 16 bits, unrelated
  documents collide as soon as there are a few hundred of them;
* :func:`crc32` is a 32-bit error-detecting code: by the birthday bound, two of ~77,000 distinct
  documents share a CRC with probability ½, and because CRC is linear a collision can also be made
  on purpose (``tests/dedup/test_exact.py`` finds birthday collisions among generated strings).
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Literal

import xxhash

from trawl.dedup.hashing import ASCII_WORD_TABLE, normalize_words

__all__ = ["byte_sum", "crc32", "normalize_text", "payload_digest", "text_digest"]

Algorithm = Literal["xxh3", "blake2b"]


def payload_digest(data: bytes, algorithm: Algorithm = "xxh3") -> str:
    """The 128-bit digest of raw bytes, as ``"xxh3:<32 hex>"`` (or ``"blake2b:<32 hex>"``)."""
    if algorithm == "xxh3":
        return "xxh3:" + xxhash.xxh3_128_hexdigest(data)
    if algorithm == "blake2b":
        return "blake2b:" + hashlib.blake2b(data, digest_size=16).hexdigest()
    raise ValueError(f"unknown digest algorithm {algorithm!r}; use 'xxh3' or 'blake2b'")


def normalize_text(text: str) -> str:
    """The text as compared for exact duplicates: NFKC, lower case, words separated by one space.

    Whitespace, punctuation and case differences (a re-wrapped paragraph, a page served with
    different line endings or a trailing space) do not make two copies different.
    """
    return normalize_words(text)


def text_digest(text: str, algorithm: Algorithm = "xxh3") -> str:
    """The 128-bit digest of :func:`normalize_text` of ``text`` (same format as payload_digest)."""
    if text.isascii():  # the same bytes as normalize_text, without the regular expression
        data = b" ".join(text.encode("ascii").translate(ASCII_WORD_TABLE).split())
    else:
        data = normalize_text(text).encode("utf-8", "surrogatepass")
    return payload_digest(data, algorithm)


def byte_sum(data: bytes) -> int:
    """UNSAFE demonstration: the sum of the bytes mod 2**16. Order-insensitive; collides often."""
    return sum(data) & 0xFFFF


def crc32(data: bytes) -> int:
    """UNSAFE demonstration: CRC-32. Only 32 bits (birthday collisions near 77,000 documents)."""
    return zlib.crc32(data) & 0xFFFFFFFF
