"""Words, word hashes and word n-gram (shingle) hashes for a whole batch of texts at once.

Every near-duplicate method in :mod:`trawl.dedup` starts from the same place: a document's words
as 64-bit hashes, and its overlapping word n-grams ("shingles") as 64-bit hashes. Doing that one
word at a time in Python (a ``str`` per word, a hash call per word) costs far more than all the
fingerprinting that follows, so this module works on a *batch* of texts in a few numpy passes:

1. each text is lower-cased (NFKC-normalised first when it is not ASCII) and every character
   that is not a letter or digit (``[\\W_]``: spaces, punctuation, symbols, the underscore)
   becomes a space — one :meth:`bytes.translate` for ASCII text, a C-level :func:`re.sub`
   otherwise;
2. the texts are joined with spaces into one UTF-8 buffer, so a word is a maximal run of
   non-space bytes, and a document's words are those starting inside its byte range;
3. a word's hash is a polynomial over its bytes (``sum((byte+1) * P**pos) mod 2**64``) passed
   through the splitmix64 finaliser, so every output bit depends on every input bit — computed
   by a numba kernel in one pass when numba is installed (:mod:`trawl.dedup._kernels`), else
   with :func:`numpy.add.reduceat` (identical results);
4. a shingle's hash combines its ``n`` word hashes by rotate-and-xor, then splitmix64 again.
   Shingles never straddle two documents; a document shorter than ``n`` words gets one shingle
   made of all its words, so that short texts still have a fingerprint.

**Why not the shared tokenizer** (:mod:`trawl.tokenize`): it yields a Python string per token,
which is exactly the per-word cost this module exists to avoid. The word rule here is the same
idea (maximal runs of letters and digits, lower-cased, NFKC) with two simplifications that do not
matter for duplicate detection: apostrophes split words (``don't`` → ``don``, ``t``) and
ideographs are not split into one token each (a run of Han characters is one word). Both texts of
a pair go through the same rule, which is all that similarity needs.

Hashes are deterministic across runs, machines and processes (no Python ``hash()``
randomisation), so fingerprints can be stored in the collection and compared later.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trawl.dedup._kernels import hash_words_kernel

__all__ = [
    "ASCII_WORD_TABLE",
    "ShingleBatch",
    "WordBatch",
    "normalize_words",
    "shingle_hashes",
    "splitmix64",
    "word_hashes",
]

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

_NONWORD = re.compile(r"[\W_]+")
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_P = np.uint64(0x100000001B3)  # the FNV prime: odd, so multiplication by it is invertible mod 2**64
_SPACE = 32


def splitmix64(x: U64) -> U64:
    """The splitmix64 finaliser on an array (wrapping uint64 arithmetic): a bijective bit mixer."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    out: U64 = z ^ (z >> np.uint64(31))
    return out


def _rotl(x: U64, k: int) -> U64:
    k %= 64
    if k == 0:
        return x
    out: U64 = (x << np.uint64(k)) | (x >> np.uint64(64 - k))
    return out


def normalize_words(text: str) -> str:
    """``text`` as lower-case words separated by single spaces (NFKC first when not ASCII)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return _NONWORD.sub(" ", text.lower()).strip()


@dataclass(slots=True)
class _HashBatch:
    """Hashes of a batch of texts, concatenated (CSR layout): document ``d`` owns
    ``hashes[offsets[d]:offsets[d + 1]]``."""

    hashes: U64
    offsets: I64

    @property
    def counts(self) -> I64:
        out: I64 = np.diff(self.offsets)
        return out

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def doc_ids(self) -> I64:
        """The document index of every hash."""
        out: I64 = np.repeat(np.arange(len(self), dtype=np.int64), self.counts)
        return out


@dataclass(slots=True)
class WordBatch(_HashBatch):
    """The word hashes of a batch of texts."""


@dataclass(slots=True)
class ShingleBatch(_HashBatch):
    """The ``n``-word shingle hashes of a batch of texts."""

    n: int

    def of(self, d: int) -> U64:
        """The shingle hashes of document ``d``, in text order."""
        return self.hashes[self.offsets[d] : self.offsets[d + 1]]


def _word_bytes(text: str) -> bytes:
    """The text as lower-case UTF-8 bytes in which every non-word character is a space.

    ASCII text (the common case) takes one :meth:`bytes.translate`; anything else goes through
    :func:`normalize_words` (NFKC, :meth:`str.lower`, the ``[\\W_]+`` rule). Both give the same
    words for ASCII input; runs of spaces are left as they are (the word splitter skips them).
    """
    if text.isascii():
        return text.encode("ascii").translate(ASCII_WORD_TABLE)
    return normalize_words(text).encode("utf-8", "surrogatepass")


# Below this, the numpy path is fast enough and a first-ever call would not earn back numba's
# compile time (a small `trawl dedup` never compiles anything).
_KERNEL_MIN_BYTES = 1 << 20

#: bytes.translate table: ASCII letters and digits kept (upper case lowered), all else a space.
ASCII_WORD_TABLE = bytes(
    (c + 32 if 65 <= c <= 90 else c) if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122) else _SPACE
    for c in range(256)
)


def _hash_buffer(buf: npt.NDArray[np.uint8], seed: int) -> tuple[U64, I64]:
    """Hash every word (maximal run of non-space bytes) of ``buf``: (hashes, start offsets)."""
    kernel = hash_words_kernel() if buf.size >= _KERNEL_MIN_BYTES else None
    if kernel is not None:
        hashes, starts = kernel(buf, np.uint64(seed & 0xFFFFFFFFFFFFFFFF))
        return hashes, starts
    return _hash_buffer_numpy(buf, seed)


def _hash_buffer_numpy(buf: npt.NDArray[np.uint8], seed: int) -> tuple[U64, I64]:
    """The numpy path of :func:`_hash_buffer` (no numba): the same hashes, in ~10 vector passes."""
    if buf.size == 0:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    word = buf != _SPACE
    edge = np.empty(buf.size + 1, dtype=bool)  # word[i] != word[i-1], with space outside the buffer
    edge[0] = word[0]
    edge[-1] = word[-1]
    np.not_equal(word[1:], word[:-1], out=edge[1:-1])
    bounds = np.flatnonzero(edge)
    starts, ends = bounds[0::2], bounds[1::2]
    lengths = ends - starts
    idx = np.flatnonzero(word)
    # Position of each word byte inside its word: index in `idx` minus the word's first index.
    first = np.zeros(len(starts), dtype=np.int64)
    np.cumsum(lengths[:-1], out=first[1:])
    pos = np.arange(idx.size, dtype=np.int64) - np.repeat(first, lengths)
    maxlen = int(lengths.max())
    powers = np.empty(maxlen, dtype=np.uint64)
    powers[0] = 1
    if maxlen > 1:
        powers[1:] = _P
        np.cumprod(powers, out=powers)  # wraps mod 2**64, which is what a polynomial hash wants
    vals = (buf[idx].astype(np.uint64) + np.uint64(1)) * powers[pos]
    h = np.add.reduceat(vals, first)
    h ^= lengths.astype(np.uint64) * _GOLDEN
    h ^= np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    return splitmix64(h), starts


def word_hashes(texts: Sequence[str], seed: int = 0) -> WordBatch:
    """The 64-bit hash of every word of every text, as one :class:`WordBatch`."""
    parts = [_word_bytes(t) for t in texts]
    sizes = np.fromiter((len(p) + 1 for p in parts), dtype=np.int64, count=len(parts))
    doc_starts = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(sizes, out=doc_starts[1:])
    joined = b" ".join(parts)  # a space between documents, so no word straddles two
    hashes, starts = _hash_buffer(np.frombuffer(joined, dtype=np.uint8), seed)
    offsets = np.searchsorted(starts, doc_starts).astype(np.int64)
    offsets[-1] = len(hashes)
    return WordBatch(hashes, offsets)


def _combine(words: U64, start: I64, n: int) -> U64:
    g = words[start].copy()
    for j in range(1, n):
        g = _rotl(g, 23) ^ words[start + j]
    return splitmix64(g ^ np.uint64(n))


def shingle_hashes(batch: WordBatch | Sequence[str], n: int = 5, seed: int = 0) -> ShingleBatch:
    """Hashes of the overlapping ``n``-word shingles of each document (in text order).

    A document with fewer than ``n`` (but at least one) words gets a single shingle of all its
    words; an empty document gets none.
    """
    if n < 1:
        raise ValueError(f"shingle size must be at least 1, got {n}")
    words = batch if isinstance(batch, WordBatch) else word_hashes(batch, seed)
    counts = words.counts
    ndocs = len(words)
    per_doc = np.where(counts >= n, counts - n + 1, np.minimum(counts, 1))
    offsets = np.zeros(ndocs + 1, dtype=np.int64)
    np.cumsum(per_doc, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint64)
    full = counts >= n
    if full.any():
        # Shingle starts of full documents: word offset + 0..count-n, laid out document by document.
        lens = per_doc[full]
        base = words.offsets[:-1][full]
        first = np.zeros(len(lens), dtype=np.int64)
        np.cumsum(lens[:-1], out=first[1:])
        starts = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(first - base, lens)
        dest = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(first - offsets[:-1][full], lens)
        out[dest] = _combine(words.hashes, starts, n)
    short = np.flatnonzero((counts > 0) & (counts < n))
    for d in short:  # rare: texts shorter than one shingle
        c = int(counts[d])
        out[offsets[d]] = _combine(words.hashes, np.array([words.offsets[d]], dtype=np.int64), c)[0]
    return ShingleBatch(out, offsets, n)
