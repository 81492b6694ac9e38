"""The default and Cavnar & Trenkle identifiers on real sentences and on bad input."""

# ruff: noqa: RUF001 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import pytest

from trawl.langid import CavnarTrenkleIdentifier, DefaultIdentifier, get_identifier, identify
from trawl.langid.codes import UND

SENTENCES = [
    ("Everyone has the right to education.", "en"),
    ("Jeder hat das Recht auf Bildung.", "de"),
    ("Toute personne a droit à l'éducation.", "fr"),
    ("Toda persona tiene derecho a la educación.", "es"),
    ("Ogni individuo ha diritto all'istruzione.", "it"),
    ("Iedereen heeft recht op onderwijs.", "nl"),
    ("Каждый человек имеет право на образование.", "ru"),
    ("Κάθε άνθρωπος έχει δικαίωμα στην εκπαίδευση.", "el"),
    ("모든 사람은 교육을 받을 권리를 가진다.", "ko"),
    ("人人都有受教育的权利。", "zh"),
    ("すべての人は、教育を受ける権利を有する。", "ja"),
    ("हर व्यक्ति को शिक्षा का अधिकार है।", "hi"),
    ("لكل شخص الحق في التعلم.", "ar"),
    ("Jokaisella on oikeus saada opetusta.", "fi"),
    ("Każdy człowiek ma prawo do nauki.", "pl"),
    ("Herkes öğrenim hakkına sahiptir.", "tr"),
]


@pytest.mark.parametrize(("text", "lang"), SENTENCES)
def test_default_identifies_sentences(text: str, lang: str) -> None:
    result = identify(text)
    assert result.lang == lang, result
    assert 0.5 < result.score <= 1.0


@pytest.mark.parametrize(("text", "lang"), SENTENCES[:8])
def test_cavnar_trenkle_identifies_sentences(text: str, lang: str) -> None:
    assert identify(text, method="cavnar-trenkle").lang == lang


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \t ", "empty"),
        ("12345 678 90", "no-letters"),
        ("!!! ... ??? ---", "no-letters"),
        ("😀🎉👍🔥 😂😂", "no-letters"),
        ("https://example.com/path/to/page?id=42", "no-letters"),
        ("def f(x):\n    return {k: v for k, v in x.items() if v != None}", "code"),
        ("for (int i = 0; i < n; i++) { total += a[i]; }", "code"),
    ],
)
@pytest.mark.parametrize("method", ["default", "cavnar-trenkle"])
def test_bad_input_is_und_with_low_score(text: str, reason: str, method: str) -> None:
    result = identify(text, method=method)
    assert result.lang == UND
    assert result.reason == reason
    assert result.score <= 0.1


@pytest.mark.parametrize(
    "text",
    [
        "xqzv bnrtk wplmz grrft qxxj zzvb kkrq",
        "zxq vvkr ptqw jjxz qqwv kzzp vxqk",
    ],
)
def test_unsupported_language_is_und(text: str) -> None:
    # letters at random: no language (py3langid's "no linguistic content"), or one trawl does not
    # model; either way und with a low score
    result = identify(text)
    assert result.lang == UND, result
    assert result.reason in ("unsupported", "no-language")
    assert result.score <= 0.1


def test_url_inside_text_does_not_count() -> None:
    assert identify("Weitere Informationen finden Sie unter https://example.com/de/hilfe").lang == "de"


def test_close_relatives_are_an_explicit_ambiguity() -> None:
    # identical in Bosnian, Croatian and Serbian (Latin)
    result = identify("Svi su pred zakonom jednaki")
    assert result.lang in {"bs", "hr", "sr"}
    assert len(result.ambiguous) == 2
    assert set(result.ambiguous) <= {"bs", "hr", "sr"}
    assert result.ambiguous[0] == result.lang
    assert result.ambiguous[1] in {lab for lab, _ in result.alternatives}


def test_relatives_decision_is_not_overconfident() -> None:
    # identical in all three: the relatives group's calibrator caps the score (0.88 before it)
    ident = get_identifier("default")
    assert isinstance(ident, DefaultIdentifier)
    text = "Svi su pred zakonom jednaki"
    result = ident.identify(text)
    assert result.score < 0.7
    best, feats, *_ = ident.raw(text)
    capped = ident.group_score(best, feats)
    assert capped is not None
    assert result.score <= capped + 1e-9
    # a decision outside any group is left to the overall calibrator
    best, feats, *_ = ident.raw("Everyone has the right to education.")
    assert ident.group_score(best, feats) is None


def test_scores_and_alternatives_are_probabilities() -> None:
    result = identify("Ein kurzer Satz")
    assert 0.0 <= result.score <= 1.0
    assert all(0.0 <= s <= 1.0 for _, s in result.alternatives)
    assert result.score + sum(s for _, s in result.alternatives) <= 1.0 + 1e-9


def test_json_shape() -> None:
    d = identify("Everyone has the right to education.").as_dict()
    assert {"lang", "score", "alternatives"} <= set(d)
    assert all(set(a) == {"lang", "score"} for a in d["alternatives"])


def test_identifiers_share_one_interface() -> None:
    for ident in (get_identifier("default"), get_identifier("cavnar-trenkle")):
        assert isinstance(ident, DefaultIdentifier | CavnarTrenkleIdentifier)
        assert "en" in ident.languages()
        assert len(ident.languages()) > 300
    with pytest.raises(ValueError, match="unknown language identification method"):
        get_identifier("nope")


@pytest.mark.parametrize(
    "text",
    ["page 0 page 1 page 2 page 3 page 4 host 7 host 8", "1 2 3 4 5 next last", "p0 p1 p2 p3 p4 p5",
     "a1b2c3 d4e5f6 g7h8", "Tel. 030 1234 5678"],
)  # fmt: skip
def test_listings_and_identifiers_are_no_language(text: str) -> None:
    r = get_identifier("default").identify(text)
    assert (r.lang, r.reason, r.score) == ("und", "no-language", 0.0)


@pytest.mark.parametrize(
    ("text", "lang"),
    [("In 2019, 45% of 300 people voted.", "en"), ("Der 3. Oktober 1990 war ein Mittwoch.", "de"),
     ("Home | About | Contact | Blog | FAQ", "en")],
)  # fmt: skip
def test_sentences_with_numbers_keep_their_language(text: str, lang: str) -> None:
    assert get_identifier("default").identify(text).lang == lang


def test_remembered_answers_are_the_same_and_fresh_copies() -> None:
    ident = DefaultIdentifier()
    text = "Home | About us | Contact"
    first = ident.identify(text)
    first.alternatives.clear()  # a caller's change must not reach the next answer
    again = ident.identify(text)
    fresh = DefaultIdentifier()._identify(text)
    assert again == fresh and again is not first and again.alternatives


@pytest.mark.parametrize(
    "text",
    [
        # UTF-8 read as windows-1252: Russian, Chinese, Arabic
        "Ð’Ñ�Ðµ Ð»ÑŽÐ´Ð¸ Ñ€Ð¾Ð¶Ð´Ð°ÑŽÑ‚ÑÑ� Ñ�Ð²Ð¾Ð±Ð¾Ð´Ð½Ñ‹Ð¼Ð¸ Ð¸ Ñ€Ð°Ð²Ð½Ñ‹Ð¼Ð¸",
        "äººäººç”Ÿè€Œè‡ªç”±ï¼Œåœ¨å°Šä¸¥å’Œæ�ƒåˆ©ä¸Šä¸€å¾‹å¹³ç­‰",
        "ÙƒÙ„ Ø§Ù„Ù†Ø§Ø³ ÙŠÙˆÙ„Ø¯ÙˆÙ† Ø£Ø­Ø±Ø§Ø±Ù‹Ø§ ÙˆÙ…ØªØ³Ø§ÙˆÙŠÙ†",
        # letters of six scripts at random
        "xé的аβחabت一ñкγ是qр不דzاüж人תlвθ我ßгe这בд",
    ],
)
def test_mojibake_and_random_scripts_are_no_language(text: str) -> None:
    result = identify(text)
    assert result.lang == UND, result
    assert result.score <= 0.1
