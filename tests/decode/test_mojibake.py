"""Mojibake: detection and safe repair of UTF-8 read through a single-byte code page."""
# ruff: noqa: RUF001 -- the subject is look-alike characters; they are meant

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.decode import mojibake
from trawl.decode.mojibake import MojibakeReport, check_mojibake

CASES = Path(__file__).resolve().parents[3] / "shared" / "data" / "encoding" / "mojibake-cases"
GATE = Path(__file__).with_name("mojibake_gate.json")


def _misread(text: str, codec: str = "cp1252") -> str:
    return text.encode("utf-8").decode(codec)


def test_exported_members() -> None:
    assert set(mojibake.__all__) == {"MOJIBAKE_THRESHOLD", "MojibakeReport", "check_mojibake"}


def test_resume_round_trip() -> None:
    report = check_mojibake(_misread("résumé"))
    assert report.detected
    assert report.repaired == "résumé"
    assert report.how == "utf-8 read as windows-1252"
    assert 0 < report.score <= 1


def test_report_without_repair() -> None:
    report = check_mojibake("rÃ©sumÃ©", repair=False)
    assert report.detected and report.repaired is None and report.how is None


def test_double_mojibake() -> None:
    text = "L’été à Zürich"
    report = check_mojibake(_misread(_misread(text)))
    assert report.repaired == text
    assert report.how == "utf-8 read as windows-1252, then utf-8 read as windows-1252"


def test_curly_quotes_and_emoji() -> None:
    assert check_mojibake("Itâ€™s â€œfineâ€\x9d").repaired == "It’s “fine”"
    assert check_mojibake(_misread("party 🎉 time")).repaired == "party 🎉 time"


def test_undefined_windows_1252_bytes_are_c1_controls() -> None:
    # "Ý" is C3 9D: 0x9D is undefined in windows-1252, so browsers show U+009D.
    damaged = "\u00c3\u009d"
    assert _misread("Ý", "latin-1") == damaged
    assert check_mojibake(f"Ý: {damaged}ou").repaired == "Ý: Ýou"


def test_latin1_reading_with_c1_controls() -> None:
    assert check_mojibake(_misread("“quoted”", "latin-1")).repaired == "“quoted”"


def test_mixed_clean_and_mojibake() -> None:
    text = "Über café – prix: " + _misread("déjà vu")
    report = check_mojibake(text)
    assert report.repaired == "Über café – prix: déjà vu"


@pytest.mark.parametrize(
    ("codec", "text"), [("cp1251", "дороге из-под футбол"), ("cp1250", "Liège, avenue de l’Hôpital")]
)
def test_other_code_pages(codec: str, text: str) -> None:
    assert check_mojibake(_misread(text, codec)).repaired == text


@pytest.mark.parametrize(
    ("damaged", "fixed", "how"),
    [
        ("g√¢teaux et wei√ü", "gâteaux et weiß", "utf-8 read as mac-roman"),
        ("Tip 2 вЂ“ Broadcast", "Tip 2 – Broadcast", "utf-8 read as windows-1251"),
        ("La rГ©gion", "La région", "utf-8 read as windows-1251"),
        ("\x84Handwerk hin\x93: Von", "„Handwerk hin“: Von", "windows-1252 read as iso-8859-1"),
        ("voilÃ le travail", "voilà le travail", "utf-8 read as windows-1252"),
        ("voilÃ  le travail", "voilà le travail", "utf-8 read as windows-1252"),
        ("atenÃ§Ã£o Ã s crianÃ§as", "atenção às crianças", "utf-8 read as windows-1252"),
        ("â€œlossyâ€\ufffd", "“lossy\ufffd", "utf-8 read as windows-1252"),
        ("Å iaip ÄÆdomu, kaip ÄÆsivaizduoji", "Šiaip įdomu, kaip įsivaizduoji", "utf-8 read as windows-1257"),
        # windows-1251 and mac-cyrillic agree on these bytes; the first code page listed names it
        ("signiп¬Ѓcantly lower", "signiﬁcantly lower", "utf-8 read as windows-1251"),
        (
            "a Г‚ВЈ5.8bn issue",
            "a £5.8bn issue",
            "utf-8 read as windows-1252, then utf-8 read as windows-1251",
        ),
    ],
)
def test_harder_mojibake(damaged: str, fixed: str, how: str) -> None:
    report = check_mojibake(damaged)
    assert report.detected
    assert report.repaired == fixed
    assert report.how == how


CLEAN = [
    "»Über« und »Äpfel« — Zitate ohne Leerzeichen",
    "C'est vrai que nous n'en avons pas encore parlé\x85 Tu sais",
    "√π ≈ 1.77, ∆°",
    "Рёрих и Гімн",
    "Å andra sidan är det så",
    "",
    "plain ASCII text, nothing to see",
    "Le cœur a ses raisons que la raison ne connaît point. À bientôt, Hélène ! Ça été",
    "Größenwahn: Die Straße führt über Brücken nach Köln. ÄÖÜ äöü ß",
    "Não há nada mais difícil do que a ação. CONCLUSÃO, AÇÃO, coração, São Paulo",
    "Ελληνικά: η ανατροφή των παιδιών είναι δύσκολη",
    "Русский текст: съешь же ещё этих мягких французских булок. Рівне, Він, Гімн",
    "中文文本，日本語のテキスト、한국어 텍스트",
    "NESTLÉ® requiere personal",
    "Offering 5×£35 pin ups",
    "MARQUÉ… SÓ… VOCÊ…",
    "\u00a0© 2024 — ∞ ± ½",
]


@pytest.mark.parametrize("text", CLEAN)
def test_clean_text_untouched(text: str) -> None:
    report = check_mojibake(text)
    assert report == MojibakeReport(0.0, False, None, None) or (
        not report.detected and report.repaired is None
    )


def test_clean_text_takes_the_cheap_path() -> None:
    """Clean non-ASCII text costs one regex scan per code page and no span analysis.

    (Speed itself is measured in bench/, not by a timed unit test.)
    """
    text = ("Le cœur a ses raisons. Größe, Straße. Não há ação. Ελληνικά. 中文. " * 1000)[:50_000]
    assert mojibake._suspects(text) == []
    assert not check_mojibake(text).detected


def _expected(case: dict[str, str]) -> str:
    return case.get("fixed-encoding", case["fixed"])


def measure() -> dict[str, int]:
    """Scores on the shared mojibake cases (ftfy's test set)."""
    positives = detected = repaired = negatives_changed = 0
    for name in ("synthetic.json", "in-the-wild.json"):
        for case in json.loads((CASES / name).read_text(encoding="utf-8")):
            if case["original"] == _expected(case):
                continue
            report = check_mojibake(case["original"])
            positives += 1
            detected += report.detected
            repaired += report.repaired == _expected(case)
    for case in json.loads((CASES / "negative.json").read_text(encoding="utf-8")):
        report = check_mojibake(case["original"])
        negatives_changed += report.detected or report.repaired is not None
    return {
        "positives": positives,
        "detected": detected,
        "repaired_exact": repaired,
        "negatives_changed": negatives_changed,
    }


@pytest.mark.skipif(not CASES.is_dir(), reason="shared mojibake cases not present")
def test_quality_gate() -> None:
    gate = json.loads(GATE.read_text(encoding="utf-8"))
    scores = measure()
    assert scores["positives"] == gate["positives"], scores
    assert scores["detected"] >= gate["detected_min"], scores
    assert scores["repaired_exact"] >= gate["repaired_exact_min"], scores
    assert scores["negatives_changed"] <= gate["negatives_changed_max"], scores


if __name__ == "__main__":
    print(json.dumps(measure()))


def test_one_odd_sequence_in_otherwise_clean_text_is_left_alone() -> None:
    """ftfy's negative case: a correctly decoded dash beside one lone `Ã¥` is not mojibake."""
    report = check_mojibake("Bremer/Mccoy \u2013 Dr\u00c3\u00a5ber")
    assert not report.detected and report.repaired is None
    # the same sequence with no clean non-ASCII around it is still mended
    assert check_mojibake("Dr\u00c3\u00a5ber").repaired == "Dr\u00e5ber"
