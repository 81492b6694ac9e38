"""The first cut: which writing system a text is in, from Unicode code-point ranges.

Many scripts belong to one language (Hangul → Korean, Thai, Greek, Armenian, Georgian, Kana →
Japanese), and every other script narrows the candidates to the languages written in it. The
language models then only have to choose within the script, which is both faster and safer: a
Cyrillic text can never come out as Finnish because of an odd n-gram.
"""

from __future__ import annotations

import bisect
from collections import Counter
from typing import Any

__all__ = ["SCRIPT_RANGES", "dominant_script", "script_counts", "script_of"]

#: (first code point, last code point, script name), sorted, non-overlapping.
SCRIPT_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x005A, "Latin"), (0x0061, 0x007A, "Latin"), (0x00AA, 0x00AA, "Latin"),
    (0x00BA, 0x00BA, "Latin"), (0x00C0, 0x00D6, "Latin"), (0x00D8, 0x00F6, "Latin"),
    (0x00F8, 0x024F, "Latin"), (0x0250, 0x02AF, "Latin"), (0x0370, 0x03FF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"), (0x0530, 0x058F, "Armenian"), (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"), (0x0700, 0x074F, "Syriac"), (0x0750, 0x077F, "Arabic"),
    (0x0780, 0x07BF, "Thaana"), (0x07C0, 0x07FF, "Nko"), (0x08A0, 0x08FF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"), (0x0980, 0x09FF, "Bengali"), (0x0A00, 0x0A7F, "Gurmukhi"),
    (0x0A80, 0x0AFF, "Gujarati"), (0x0B00, 0x0B7F, "Oriya"), (0x0B80, 0x0BFF, "Tamil"),
    (0x0C00, 0x0C7F, "Telugu"), (0x0C80, 0x0CFF, "Kannada"), (0x0D00, 0x0D7F, "Malayalam"),
    (0x0D80, 0x0DFF, "Sinhala"), (0x0E00, 0x0E7F, "Thai"), (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"), (0x1000, 0x109F, "Myanmar"), (0x10A0, 0x10FF, "Georgian"),
    (0x1100, 0x11FF, "Hangul"), (0x1200, 0x139F, "Ethiopic"), (0x13A0, 0x13FF, "Cherokee"),
    (0x1400, 0x167F, "Canadian_Aboriginal"), (0x1700, 0x171F, "Tagalog"), (0x1780, 0x17FF, "Khmer"),
    (0x1800, 0x18AF, "Mongolian"), (0x1C80, 0x1C8F, "Cyrillic"), (0x1C90, 0x1CBF, "Georgian"),
    (0x1D00, 0x1D7F, "Latin"), (0x1E00, 0x1EFF, "Latin"), (0x1F00, 0x1FFF, "Greek"),
    (0x2C60, 0x2C7F, "Latin"), (0x2D00, 0x2D2F, "Georgian"), (0x2D30, 0x2D7F, "Tifinagh"),
    (0x2DE0, 0x2DFF, "Cyrillic"), (0x2E80, 0x2FDF, "Han"), (0x3005, 0x3007, "Han"),
    (0x3040, 0x309F, "Hiragana"), (0x30A0, 0x30FF, "Katakana"), (0x3100, 0x312F, "Bopomofo"),
    (0x3130, 0x318F, "Hangul"), (0x31F0, 0x31FF, "Katakana"), (0x3400, 0x4DBF, "Han"),
    (0x4E00, 0x9FFF, "Han"), (0xA000, 0xA4CF, "Yi"), (0xA500, 0xA63F, "Vai"),
    (0xA640, 0xA69F, "Cyrillic"), (0xA720, 0xA7FF, "Latin"), (0xAC00, 0xD7AF, "Hangul"),
    (0xF900, 0xFAFF, "Han"), (0xFB00, 0xFB06, "Latin"), (0xFB1D, 0xFB4F, "Hebrew"),
    (0xFB50, 0xFDFF, "Arabic"), (0xFE70, 0xFEFF, "Arabic"), (0xFF21, 0xFF3A, "Latin"),
    (0xFF41, 0xFF5A, "Latin"), (0xFF66, 0xFF9F, "Katakana"), (0x20000, 0x2FA1F, "Han"),
)  # fmt: skip

_STARTS = [r[0] for r in SCRIPT_RANGES]


def script_of(ch: str) -> str | None:
    """The script of one character, or None (digits, punctuation, symbols, marks outside a block)."""
    cp = ord(ch)
    i = bisect.bisect_right(_STARTS, cp) - 1
    if i >= 0:
        start, end, name = SCRIPT_RANGES[i]
        if start <= cp <= end:
            return name
    return None


def script_counts(text: str) -> Counter[str]:
    """How many characters of each script ``text`` holds (Hiragana and Katakana count as Kana)."""
    counts: Counter[str] = Counter()
    if text.isascii():  # the common case: Latin letters and nothing else
        n = sum(map(str.isalpha, text))
        if n:
            counts["Latin"] = n
        return counts
    # Each distinct character once (counted by Counter in C), in the order of its first
    # occurrence, so the scripts come in the order they first occur, as they would char by char;
    # each character's script is looked up once per process (_SCRIPT_OF)
    get = _SCRIPT_OF.get
    for ch, n in Counter(text).items():
        name = get(ch, _UNSEEN)
        if name is _UNSEEN:
            name = _script_of_char(ch)
            if len(_SCRIPT_OF) < _SCRIPT_OF_MAX:
                _SCRIPT_OF[ch] = name
        if name is not None:
            counts[name] += n
    return counts


def _script_of_char(ch: str) -> str | None:
    """The script :func:`script_counts` counts ``ch`` in (Kana for both syllabaries; ASCII
    letters Latin, other ASCII nothing)."""
    if ch.isascii():
        return "Latin" if ch.isalpha() else None
    name = script_of(ch)
    return "Kana" if name in ("Hiragana", "Katakana") else name


_UNSEEN = object()
#: character -> script, filled as characters are met (at most _SCRIPT_OF_MAX: a text of every
#: Han character would otherwise grow it without end)
_SCRIPT_OF: dict[str, Any] = {}
_SCRIPT_OF_MAX = 65536


def dominant_script(text: str) -> tuple[str | None, float]:
    """The script most characters are in, and its share of the scripted characters.

    Japanese is written in Kana and Han together: a text with any Kana counts as ``Kana``
    (Japanese), since Chinese never uses it, as long as Han and Kana together dominate.
    """
    counts = script_counts(text)
    total = sum(counts.values())
    if not total:
        return None, 0.0
    if counts.get("Kana") and counts["Kana"] + counts.get("Han", 0) >= max(counts.values()):
        return "Kana", (counts["Kana"] + counts.get("Han", 0)) / total
    name, n = counts.most_common(1)[0]
    return name, n / total
