"""Tokens and n-grams exactly as Cavnar & Trenkle draw them."""

# ruff: noqa: RUF001 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

from trawl.langid.ngrams import ngram_counts, ngrams, normalise, words


def test_paper_example_text() -> None:
    grams = list(ngrams("text"))
    assert grams[:5] == ["_", "t", "e", "x", "t"]
    assert grams[5:10] == ["_t", "te", "ex", "xt", "t_"]
    assert grams[10:15] == ["_te", "tex", "ext", "xt_", "t__"]
    assert grams[15:20] == ["_tex", "text", "ext_", "xt__", "t___"]
    assert grams[20:] == ["_text", "text_", "ext__", "xt___", "t____"]


def test_tokens_are_letters_and_apostrophes() -> None:
    text = normalise("Don’t PANIC: 42 times, l'homme -- naïve!")
    assert words(text) == ["don't", "panic", "times", "l'homme", "naïve"]


def test_combining_marks_stay_in_the_word() -> None:
    assert words(normalise("हिन्दी भाषा")) == ["हिन्दी", "भाषा"]
    assert words(normalise("ภาษาไทย")) == ["ภาษาไทย"]


def test_nfc_makes_decomposed_text_count_the_same() -> None:
    assert ngram_counts("cafe\u0301") == ngram_counts("café")


def test_no_letters_no_ngrams() -> None:
    assert not ngram_counts("123 456 !!! 😀")
