"""The script-based first cut."""

from __future__ import annotations

import pytest

from trawl.langid.scripts import dominant_script, script_of


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Привет, мир", "Cyrillic"),
        ("Καλημέρα κόσμε", "Greek"),
        ("안녕하세요 세계", "Hangul"),
        ("नमस्ते दुनिया", "Devanagari"),
        ("你好世界", "Han"),
        ("こんにちは世界", "Kana"),
        ("مرحبا بالعالم", "Arabic"),
        ("שלום עולם", "Hebrew"),
        ("สวัสดีชาวโลก", "Thai"),
        ("Hello world", "Latin"),
    ],
)
def test_dominant_script(text: str, script: str) -> None:
    assert dominant_script(text)[0] == script


def test_no_script_for_digits_and_symbols() -> None:
    assert dominant_script("123 + 456 = 579 😀") == (None, 0.0)
    assert script_of("7") is None
