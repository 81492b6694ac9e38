"""Words and character n-grams as Cavnar & Trenkle (1994) define them, shared by every model.

A token is a run of letters and apostrophes (digits and punctuation are not language evidence);
combining marks count as letters, so a Devanagari or Thai word stays whole. Tokens are
lower-cased and padded with blanks, written ``_``, the way the paper draws it: one blank before
the word and enough after it that every n-gram length sees the word's end, so ``text`` gives
the bi-grams ``_t te ex xt t_``, the tri-grams ``_te tex ext xt_ t__`` and so on up to
5-grams; the uni-grams are ``_ t e x t``.
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

__all__ = ["MAX_N", "ngram_counts", "ngrams", "normalise", "text_words", "words"]

#: The longest n-gram; the paper uses lengths 1 to 5.
MAX_N = 5


def _mark_class() -> str:
    """A regex class body of the combining marks (Mn, Mc, Me) in the blocks scripts use."""
    ranges: list[tuple[int, int]] = []
    for lo, hi in ((0x0300, 0x1FFF), (0x20D0, 0x20FF), (0x2DE0, 0x2DFF), (0x302A, 0x309A),
                   (0xA600, 0xABFF), (0xFB1E, 0xFB1E), (0xFE00, 0xFE2F)):  # fmt: skip
        for cp in range(lo, hi + 1):
            if unicodedata.category(chr(cp)).startswith("M"):
                if ranges and ranges[-1][1] == cp - 1:
                    ranges[-1] = (ranges[-1][0], cp)
                else:
                    ranges.append((cp, cp))
    return "".join(f"\\u{a:04x}-\\u{b:04x}" if a != b else f"\\u{a:04x}" for a, b in ranges)


_WORD = re.compile(f"(?:[^\\W\\d_]|['\u2019\u02bc{_mark_class()}])+")


def normalise(text: str) -> str:
    """NFC and lower case: the form both the profiles and the texts are compared in."""
    return unicodedata.normalize("NFC", text).lower()


def words(text: str) -> list[str]:
    """The tokens of ``text`` (already :func:`normalise`-d): runs of letters and apostrophes.

    A token made only of apostrophes (a quotation mark) is dropped; ``’`` is written ``'``.
    """
    # U+2019 and ' are in the same class, so replacing first matches the same tokens (findall: in C)
    if "\u2019" in text:
        text = text.replace("\u2019", "'")
    found: list[str] = _WORD.findall(text)
    if "'" in text:
        found = [w for w in found if w.strip("'")]
    return found


@lru_cache(maxsize=8)
def text_words(text: str) -> list[str]:
    """:func:`words` of :func:`normalise` ``(text)``, remembered for the last few texts: the
    identifier's clean-up and its model read the same words of the same text. Do not modify
    the list."""
    return words(normalise(text))


def ngrams(word: str, max_n: int = MAX_N) -> Iterator[str]:
    """Every n-gram (1 ≤ n ≤ ``max_n``) of one token, padded as in the paper."""
    yield "_"
    yield from word
    for n in range(2, max_n + 1):
        padded = "_" + word + "_" * (n - 1)
        for i in range(len(padded) - n + 1):
            yield padded[i : i + n]


def ngram_counts(text: str, max_n: int = MAX_N) -> Counter[str]:
    """How often each n-gram occurs in ``text`` (normalised here)."""
    counts: Counter[str] = Counter()
    for w in words(normalise(text)):
        counts.update(ngrams(w, max_n))
    return counts
