# ruff: noqa: RUF001, RUF003 -- the subject is the characters of many scripts; they are meant
"""The tokenizer's documented rules, script by script, and an independent re-derivation."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from trawl.tokenize import Tokenizer, default_tokenizer, iter_tokens, tokens

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "stats" / "inaugural"
UDHR = Path(__file__).resolve().parents[2] / "shared" / "data" / "langid" / "udhr2"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("well-known U.S. 3.14 snake_case", ["well", "known", "u", "s", "3", "14", "snake", "case"]),
        ("Don’t stop O'Neill's 'quoted'", ["don't", "stop", "o'neill's", "quoted"]),
        ("rock ’n’ roll", ["rock", "n", "roll"]),  # leading and trailing ’ are quote marks
        ("пʼять", ["пʼять"]),  # U+02BC is a letter (Lm), as in Ukrainian
        ("ﬁne ＡＢＣ café", ["fine", "abc", "café"]),  # NFKC: ligature, full-width
        ("Straße ΑΘΗΝΑ Москва", ["straße", "αθηνα", "москва"]),  # lower(), not casefold()
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),  # vowel signs and virama stay in the word
        ("தமிழ் மொழி", ["தமிழ்", "மொழி"]),
        ("العربية لغة", ["العربية", "لغة"]),
        ("東京に行きます", ["東", "京", "に", "行", "き", "ま", "す"]),
        ("한국어 문장", ["한국어", "문장"]),  # Hangul is written with spaces: runs
        ("ภาษาไทย", ["ภาษาไทย"]),  # no dictionary segmentation
        ("𐐀𐐁 x", ["𐐨𐐩", "x"]),  # Deseret, beyond the BMP, lowercased
        ("", []),
        ("... --- !!!", []),
        ("a\u0000b\ufffdc", ["a", "b", "c"]),
        ("x \u00a8 y \u0301z", ["x", "y", "z"]),  # a mark alone is no word (NFKC: ¨ → space + U+0308)
    ],
)
def test_rules(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected
    assert list(iter_tokens(text)) == expected


def test_apostrophe_options() -> None:
    assert Tokenizer(apostrophes="strip").tokens("don’t rock'n'roll") == ["dont", "rocknroll"]
    assert Tokenizer(apostrophes="split").tokens("don’t") == ["don", "t"]
    assert list(Tokenizer(apostrophes="strip").iter_tokens("it's")) == ["its"]
    with pytest.raises(ValueError, match="apostrophes"):
        Tokenizer(apostrophes="drop")  # type: ignore[arg-type]


def test_options_case_and_ideographs() -> None:
    assert Tokenizer(lowercase=False).tokens("Hello Wörld") == ["Hello", "Wörld"]
    assert Tokenizer(split_ideographs=False).tokens("東京に行きます") == ["東京に行きます"]
    assert Tokenizer(normalize=None).tokens("ﬁne") == ["ﬁne"]
    assert default_tokenizer() is default_tokenizer()


_IDEOGRAPH_NAMES = (
    "CJK UNIFIED IDEOGRAPH",
    "CJK COMPATIBILITY IDEOGRAPH",
    "HIRAGANA",
    "KATAKANA",
    "HALFWIDTH KATAKANA",
)


def _is_ideograph(ch: str) -> bool:
    if unicodedata.category(ch)[0] not in "LN":
        return False
    return ch in "々〇" or unicodedata.name(ch, "").startswith(_IDEOGRAPH_NAMES)


def _reference(text: str) -> list[str]:
    """The rules again, written independently: character by character, categories and names."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    word = ""
    for i, ch in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if _is_ideograph(ch):
            if word:
                out.append(word)
            out.append(ch)
            word = ""
        elif unicodedata.category(ch)[0] in ("LMN" if word else "LN"):
            word += ch
        elif ch in "'’" and word and nxt and unicodedata.category(nxt)[0] in "LN" and not _is_ideograph(nxt):
            word += "'"
        else:
            if word:
                out.append(word)
            word = ""
    if word:
        out.append(word)
    return out


@pytest.mark.skipif(not DATA.is_dir(), reason="shared data folder absent")
def test_matches_reference_on_inaugural() -> None:
    for path in sorted(DATA.glob("*.txt"))[:20]:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert tokens(text) == _reference(text), path.name


def test_matches_reference_on_mixed_scripts() -> None:
    text = "Ünïcödé — naïve façade, ĳssel; Ελληνικά ŉ Ǆ x’y ‘quoted’ ½ Ⅻ ٣٤ १२ ١٢٣"
    assert tokens(text) == _reference(text)


def test_binary_garbage_does_not_crash() -> None:
    junk = bytes(range(256)).decode("latin-1") * 50 + "\ud800"  # a lone surrogate too
    assert isinstance(tokens(junk), list)
    assert re.fullmatch(r"[^\s]+", "".join(tokens(junk)))


@pytest.mark.skipif(not UDHR.is_dir(), reason="shared data folder absent")
def test_matches_reference_on_udhr_in_every_script() -> None:
    """The Universal Declaration in ~390 languages: Latin, Cyrillic, Greek, Arabic, Hebrew,
    Devanagari and other Indic scripts, Thai, Ethiopic, Georgian, Armenian, Hangul, Han, kana…"""
    scripts: set[str] = set()
    for path in sorted(UDHR.glob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")[:1500]
        got = tokens(text)
        assert got == _reference(text), path.name
        scripts.update(unicodedata.name(t[0], "?").split()[0] for t in got)
    assert {
        "LATIN",
        "CYRILLIC",
        "GREEK",
        "ARABIC",
        "HEBREW",
        "DEVANAGARI",
        "CJK",
        "HANGUL",
        "THAI",
    } <= scripts
