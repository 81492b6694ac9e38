"""The one tokenizer of trawl: how text becomes index terms, the same everywhere.

Term statistics (``trawl stats``), shingles for near-duplicate detection and anything else that
counts words call this module, so that "a word" means the same thing in every report.

Rules, applied in this order (:class:`Tokenizer` documents the options):

1. **Normalise** the text to Unicode NFKC, so that compatibility forms (ligatures ``ﬁ``,
   full-width ``Ａ``, superscripts) are spelled like their plain forms. Pure-ASCII text skips this
   step, which is what keeps the common case fast.
2. **Lowercase** with :meth:`str.lower` (not :meth:`str.casefold`, which would turn German ``ß``
   into ``ss`` and so merge words that differ).
3. **A token is a maximal run of letters, combining marks and digits** of any script (Unicode
   categories L*, M*, N*) that starts with a letter or digit (a mark standing alone is no word).
   Everything else separates tokens: spaces, punctuation, symbols, the underscore, hyphens
   (``well-known`` → ``well``, ``known``) and full stops (``U.S.`` → ``u``, ``s``; ``3.14`` →
   ``3``, ``14``). Combining marks are part of the word, so Devanagari, Bengali or Tamil words
   (vowel signs, virama) stay whole, which Python's ``\\w`` alone would not do.
4. **Apostrophes** (``'``, ``’``, ``＇``) *between* two letters or digits join them into one
   token, written with ``'`` (``don’t`` → ``don't``, ``O'Neill`` → ``o'neill``, ``nation's`` →
   ``nation's``). Leading and trailing apostrophes are quotation marks and are dropped. The
   ``apostrophes`` option may instead ``"strip"`` them (``dont``) or ``"split"`` at them
   (``don``, ``t``). U+02BC ``ʼ`` is a letter (Lm) in Unicode, used as one in Ukrainian
   (``пʼять``), and so stays in the word wherever it stands.
5. **Ideographs and kana** (Han, Hiragana, Katakana) are written without spaces between words;
   each such character is a token of its own (what Lucene's StandardTokenizer and UAX #29 do), so
   Chinese and Japanese text yields unigram terms rather than whole clauses. Other scripts
   written without spaces (Thai, Lao, Khmer, Myanmar) yield one token per space-separated run —
   segmenting them needs a dictionary, which is outside this module.

The rules are regular, so a test can re-derive them independently (character categories, one at
a time); see ``tests/test_tokenize.py``. Speed: ~2 M tokens/s on ASCII text, about half that on
other text of the Basic Multilingual Plane, on one core (``bench/stats.py`` measures it).
"""

# ruff: noqa: RUF002, RUF003 -- the subject is the characters of many scripts; they are meant

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

__all__ = ["APOSTROPHES", "Tokenizer", "default_tokenizer", "iter_tokens", "tokens"]

#: The characters treated as an apostrophe inside a word (all written as ``'`` in tokens).
APOSTROPHES = "'\u2019\uff07"

ApostropheRule = Literal["keep", "strip", "split"]

# Scripts written without spaces whose characters each make one token (rule 5).
_IDEOGRAPHS = (
    "\u3005\u3007"  # 々 (iteration mark), 〇
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana (NFKC maps most of these, kept for normalize=None)
    "\U00020000-\U0003134f"  # CJK extensions B-G
)


def _ranges(codepoints: list[int]) -> str:
    """A character-class body for a sorted list of code points, as ranges."""
    out: list[str] = []
    start = prev = -2
    for cp in [*codepoints, -10]:
        if cp == prev + 1:
            prev = cp
            continue
        if start >= 0:
            out.append(
                re.escape(chr(start)) if start == prev else f"{re.escape(chr(start))}-{re.escape(chr(prev))}"
            )
        start = prev = cp
    return "".join(out)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

Kind = Literal["ascii", "bmp", "astral"]


@lru_cache(maxsize=2)
def _word_chars(split_ideographs: bool) -> tuple[str, str, str, str, str]:
    """Character-class bodies: BMP starters, BMP word characters, the same beyond the BMP, and
    the ideographs and kana that are tokens on their own (when ``split_ideographs``).

    Word characters are letters, marks and digits (L*, M*, N*); starters leave out the marks, so
    that a mark standing alone (NFKC turns a spacing diaeresis ``¨`` into a space and U+0308) is
    not a word. Spelled out as ranges rather than ``[^\\W_]`` because Python's ``\\w`` leaves out
    combining marks altogether. BMP and beyond-BMP classes are kept apart because ``re`` matches a
    class of BMP characters with one table look-up but walks a list of ranges once the class
    reaches beyond U+FFFF (12x slower), so text without such characters (nearly all of it) gets
    the fast one. Letters beyond plane 1 are CJK ideographs (planes 2-3) and marks beyond it are
    plane 14's variation selectors, so scanning those is enough: ~50 ms, once, on first use.
    Only letters and digits of the ideograph blocks are tokens: the Katakana middle dot and the
    kana voicing marks in those blocks are punctuation or marks, not words.
    """
    ideographs = re.compile(f"[{_IDEOGRAPHS}]")

    def wanted(cp: int, kinds: str) -> bool:
        c = chr(cp)
        return unicodedata.category(c)[0] in kinds and not (split_ideographs and ideographs.match(c))

    bmp = range(0x10000)
    beyond = [*range(0x10000, 0x20000), *range(0xE0000, 0xE01F0)]
    out = [
        _ranges([cp for cp in bmp if wanted(cp, "LN")]),
        _ranges([cp for cp in bmp if wanted(cp, "LMN")]),
        _ranges([cp for cp in beyond if wanted(cp, "LN")]),
        _ranges([cp for cp in beyond if wanted(cp, "LMN")]),
        "",
    ]
    if split_ideographs:
        out[4] = _ranges(
            [cp for cp in bmp if ideographs.match(chr(cp)) and unicodedata.category(chr(cp))[0] in "LN"]
        )
    else:
        out[2] += "\U00020000-\U0003134f"
        out[3] += "\U00020000-\U0003134f"
    return out[0], out[1], out[2], out[3], out[4]


@lru_cache(maxsize=12)
def _pattern(apostrophes: ApostropheRule, split_ideographs: bool, kind: Kind) -> re.Pattern[str]:
    if kind == "ascii":
        run = "[a-zA-Z0-9]+"
        apos = "'"
    else:
        bmp_start, bmp, astral_start, astral, ideographs = _word_chars(split_ideographs)
        if kind == "bmp":
            run = f"[{bmp_start}][{bmp}]*"
        else:
            # Possessive quantifiers: the two classes are disjoint, so there is nothing to backtrack.
            run = f"(?:[{bmp_start}]|[{astral_start}])(?:[{bmp}]++|[{astral}]++)*+"
            ideographs += "\U00020000-\U0003134f"
        apos = f"[{APOSTROPHES}]"
    word = run if apostrophes == "split" else f"{run}(?:{apos}{run})*"
    if kind != "ascii" and split_ideographs:
        word = f"{word}|[{ideographs}]"
    return re.compile(word)


_APOS_TABLE: dict[int, str | None] = {ord(c): "'" for c in APOSTROPHES[1:]}
_STRIP_TABLE: dict[int, str | None] = {ord(c): None for c in APOSTROPHES}


class Tokenizer:
    """Text → terms, by the rules in this module's docstring.

    ``lowercase``: rule 2 (on by default). ``normalize``: the Unicode normal form of rule 1, or
    ``None`` to take the text as it is. ``apostrophes``: ``"keep"`` (default, rule 4), ``"strip"``
    or ``"split"``. ``split_ideographs``: rule 5 (on by default). A tokenizer is immutable and
    cheap to make; its compiled patterns are shared.
    """

    __slots__ = ("apostrophes", "lowercase", "normalize", "split_ideographs")

    def __init__(
        self,
        *,
        lowercase: bool = True,
        normalize: Literal["NFC", "NFKC"] | None = "NFKC",
        apostrophes: ApostropheRule = "keep",
        split_ideographs: bool = True,
    ) -> None:
        if apostrophes not in ("keep", "strip", "split"):
            raise ValueError(f"apostrophes={apostrophes!r}: use 'keep', 'strip' or 'split'")
        if normalize not in ("NFC", "NFKC", None):
            raise ValueError(f"normalize={normalize!r}: use 'NFC', 'NFKC' or None")
        self.lowercase = lowercase
        self.normalize = normalize
        self.apostrophes: ApostropheRule = apostrophes
        self.split_ideographs = split_ideographs

    def __repr__(self) -> str:
        return (
            f"Tokenizer(lowercase={self.lowercase}, normalize={self.normalize!r}, "
            f"apostrophes={self.apostrophes!r}, split_ideographs={self.split_ideographs})"
        )

    def _prepare(self, text: str) -> tuple[str, re.Pattern[str]]:
        """The normalised, lowercased text and the fastest pattern that reads it correctly."""
        kind: Kind = "ascii"
        if not text.isascii():
            if self.normalize is not None:
                text = unicodedata.normalize(self.normalize, text)
            if not text.isascii():
                kind = "astral" if _ASTRAL.search(text) else "bmp"
        if self.lowercase:
            text = text.lower()
        return text, _pattern(self.apostrophes, self.split_ideographs, kind)

    def tokens(self, text: str) -> list[str]:
        """The terms of ``text``, in order (a list: the fastest form for counting)."""
        text, pattern = self._prepare(text)
        found: list[str] = pattern.findall(text)
        if self.apostrophes == "keep" and not text.isascii():
            return [t.translate(_APOS_TABLE) if not t.isalnum() else t for t in found]
        if self.apostrophes == "strip":
            return [t.translate(_STRIP_TABLE) if not t.isalnum() else t for t in found]
        return found

    def iter_tokens(self, text: str) -> Iterator[str]:
        """The terms of ``text``, one at a time (for pipelines that stop early)."""
        text, pattern = self._prepare(text)
        tables: dict[str, dict[int, str | None]] = {"keep": _APOS_TABLE, "strip": _STRIP_TABLE}
        translate = tables.get(self.apostrophes)
        for match in pattern.finditer(text):
            token = match.group()
            if translate is not None and not token.isalnum():
                token = token.translate(translate)
            yield token

    def __call__(self, text: str) -> list[str]:
        return self.tokens(text)


_DEFAULT = Tokenizer()


def default_tokenizer() -> Tokenizer:
    """The tokenizer trawl uses unless told otherwise (every rule at its default)."""
    return _DEFAULT


def tokens(text: str) -> list[str]:
    """The terms of ``text`` under trawl's default rules (see the module docstring)."""
    return _DEFAULT.tokens(text)


def iter_tokens(text: str) -> Iterator[str]:
    """The terms of ``text`` under trawl's default rules, lazily."""
    return _DEFAULT.iter_tokens(text)


if __name__ == "__main__":  # pragma: no cover - a quick look: python -m trawl.tokenize < file
    print("\n".join(tokens(sys.stdin.read())))
