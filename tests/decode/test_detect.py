"""Unit tests of the charset detector (trawl.decode.detect)."""

from __future__ import annotations

import os
import random
import re
import time

import pytest

from trawl.decode import detect
from trawl.decode.detect import Detection, EncodingDetector, ModelDetector, default_detector

RUSSIAN = "Все люди рождаются свободными и равными в своем достоинстве и правах."  # noqa: RUF001  # Cyrillic on purpose
JAPANESE = "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。"


def _same_text(data: bytes, found: Detection | None, truth: str) -> bool:
    assert found is not None
    return data.decode(found.encoding) == data.decode(truth)


def test_default_detector_is_cached_and_a_detector() -> None:
    det = default_detector()
    assert det is default_detector()
    assert isinstance(det, ModelDetector)
    assert det.name == "trawl"
    _: EncodingDetector = det


def test_empty_input_has_no_opinion() -> None:
    assert default_detector().detect(b"") is None


def test_pure_ascii_is_ascii_compatible() -> None:
    found = default_detector().detect(b"<html><body>Hello, world</body></html>")
    assert found is not None
    assert found.encoding == "ascii"
    assert found.confidence == 1.0


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_encodings_without_bom(codec: str) -> None:
    data = "<p>Hello, wide world: ça va?</p>".encode(codec)
    found = default_detector().detect(data)
    assert found is not None
    assert found.encoding == codec


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-32"])
def test_bom(codec: str) -> None:
    found = default_detector().detect("żółw".encode(codec))
    assert found is not None
    assert found.encoding == codec
    assert found.confidence == 1.0


def test_utf8() -> None:
    found = default_detector().detect(RUSSIAN.encode())
    assert found is not None
    assert found.encoding == "utf-8"


def test_utf8_cut_in_a_character_is_still_utf8() -> None:
    found = default_detector().detect(RUSSIAN.encode()[:-1])
    assert found is not None
    assert found.encoding == "utf-8"


@pytest.mark.parametrize("codec", ["windows-1251", "koi8-r", "ibm866", "iso-8859-5", "mac-cyrillic"])
def test_cyrillic_snippets(codec: str) -> None:
    data = RUSSIAN[:40].encode(codec)
    found = default_detector().detect(data)
    assert _same_text(data, found, codec)


@pytest.mark.parametrize("codec", ["shift_jis", "euc-jp", "iso-2022-jp"])
def test_japanese(codec: str) -> None:
    data = JAPANESE.encode(codec)
    found = default_detector().detect(data)
    assert _same_text(data, found, codec)


def test_html_markup_does_not_drown_the_text() -> None:
    markup = '<div class="article-body" style="margin:0"><a href="/news/2024/item">' * 40
    data = (markup + "<p>" + RUSSIAN + "</p>" + markup).encode("windows-1251")
    found = default_detector().detect(data)
    assert _same_text(data, found, "windows-1251")


@pytest.mark.parametrize("codec", ["koi8_r", "cp1251", "iso8859_5", "cp866"])
def test_short_cyrillic_beside_markup_is_not_read_as_cjk(codec: str) -> None:
    # ASCII costs every script group about the same, so three hanzi cannot outbid six letters.
    data = "подьем\n\n]]></descrip".encode(codec)
    assert _same_text(data, default_detector().detect(data), codec)


@pytest.mark.parametrize("text", ["редактор для Windows", "к непритязательной м"])
def test_capital_inside_a_word_counts_against_a_reading(text: str) -> None:
    # windows-1251 reads these mac-cyrillic bytes as "длЯ": the same letters, wrongly cased.
    data = text.encode("mac_cyrillic")
    assert _same_text(data, default_detector().detect(data), "mac_cyrillic")


def test_confidence_and_alternatives_are_probabilities() -> None:
    found = default_detector().detect("Grüße aus Köln, schöne Straße".encode("windows-1252"))
    assert found is not None
    assert found.encoding == "windows-1252"
    assert 0.0 <= found.confidence <= 1.0
    assert all(0.0 <= p <= found.confidence for _, p in found.alternatives)


def test_binary_garbage_does_not_crash() -> None:
    rng = random.Random(7)
    for size in (1, 2, 3, 20, 1000, 70_000):
        found = default_detector().detect(rng.randbytes(size))
        assert found is None or 0.0 <= found.confidence <= 1.0
    found = default_detector().detect(os.urandom(4096))
    assert found is None or found.encoding


def test_huge_input_is_sampled() -> None:
    data = ("<p>" + RUSSIAN + "</p>\n").encode("windows-1251") * (5_000_000 // 150)
    start = time.perf_counter()
    found = default_detector().detect(data)
    assert time.perf_counter() - start < 1.0
    assert _same_text(data[:1000], found, "windows-1251")


def test_peer_adapters_follow_the_protocol() -> None:
    pytest.importorskip("chardet")
    pytest.importorskip("charset_normalizer")
    pytest.importorskip("cchardet")
    pytest.importorskip("chardetng_py")
    data = RUSSIAN.encode("windows-1251")
    for det in (
        detect.ChardetDetector(),
        detect.CharsetNormalizerDetector(),
        detect.CChardetDetector(),
        detect.ChardetngDetector(),
    ):
        assert det.detect(b"") is None
        found = det.detect(data)
        assert found is not None
        assert found.encoding == found.encoding.lower()


# Legacy encodings of every ISO-8859 part, DOS and Mac code pages (issue 32), each with text of a
# language written in it; the detector must read each back as the same text.
LEGACY_TEXTS = {
    "iso8859_15": "L'œuvre coûte 15 € ; the façade était très âgée, où était-il ?",
    "cp850": "Über die Straße ging der Bürgermeister, während die Kinder spielten und lachten.",
    "cp852": "Příliš žluťoučký kůň úpěl ďábelské ódy. Zażółć gęślą jaźń, ale to już wiesz.",
    "mac_latin2": "Příliš žluťoučký kůň úpěl ďábelské ódy a pak se vrátil domů ke své rodině.",
    "iso8859_3": "Il-bniedem kollu jitwieldu ħielsa u ugwali fid-dinjità u d-drittijiet. Għandhom ġieħ.",
    "iso8859_13": "Visi žmonės gimsta laisvi ir lygūs savo orumu ir teisėmis. Jiems suteikta sąžinė.",
    "iso8859_14": "Genir pawb yn rhydd ac yn gydradd â'i gilydd mewn urddas a hawliau. Mae ŵyr yn y dŵr.",
    "cp862": "כל בני האדם נולדו בני חורין ושווים בערכם ובזכויותיהם. כולם חוננו בתבונה ובמצפון.",
}  # fmt: skip


@pytest.mark.parametrize("codec", sorted(LEGACY_TEXTS))
def test_legacy_code_pages(codec: str) -> None:
    text = LEGACY_TEXTS[codec]
    data = (text + " " + text).encode(codec)
    found = default_detector().detect(data)
    assert found is not None
    assert data.decode(found.encoding) == data.decode(codec), found


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_of_one_script_without_bom_or_many_zeros(codec: str) -> None:
    text = "Все люди рождаются свободными и равными в своем достоинстве и правах. " * 3  # noqa: RUF001
    found = default_detector().detect(text.encode(codec))
    assert found is not None and found.encoding == codec


# -- issue 32: the web's typography, the languages of a group, UTF-16 CJK without NULs ----------

ENGLISH_TYPOGRAPHY = (
    "The committee’s report, published on Monday, said the “new rules” had worked – "  # noqa: RUF001
    "but only where the city’s own inspectors (and the region’s) had the means to check them… "  # noqa: RUF001
    "It cost €40,000 a year, and nobody’s budget was cut."  # noqa: RUF001
)


def test_windows_typography_is_not_read_as_mac_letters() -> None:
    # Mac Roman reads windows-1252's curly quotes and dashes as letters ("committeeís") that no
    # English word has there.
    data = ENGLISH_TYPOGRAPHY.encode("cp1252")
    found = default_detector().detect(data)
    assert found is not None
    assert found.encoding == "windows-1252"


def test_mac_letters_are_not_read_as_windows_punctuation() -> None:
    # IBM850 "é" is windows-1252's low quote: "d\u201aclar\u201a" puts punctuation inside words.
    text = "Le comité a été créé pour étudier les problèmes déclarés par les élèves."
    data = text.encode("cp850").replace(b"\n", b"\r\n") + b"\r\n"
    found = default_detector().detect(data)
    assert found is not None
    assert data.decode(found.encoding) == text + "\r\n", found


def test_misplaced_sign_costs_a_reading() -> None:
    model = detect._models()["western"]
    assert detect._context_cost("d", "\u201a") < 0  # a low quote never follows a letter
    assert detect._context_cost(" ", "\u201a") == 0  # it opens a quote
    assert detect._context_cost("\u00a7", "i") < 0  # "§igen"
    assert detect._context_cost("s", "\u2019") == 0  # an apostrophe
    assert model.score("déclaré") > model.score("d\u201aclar\u201a")


def test_vectorised_score_is_the_sum_of_pair_costs() -> None:
    models = detect._models()
    rng = random.Random(3)
    texts = [RUSSIAN, JAPANESE, "Grüße aus Köln", "d\u201aclar\u201a §igen", "İstanbul ΑΒΓ abc"]
    texts += [rng.randbytes(300).decode("cp932", "replace") for _ in range(3)]
    for group in ("western", "japanese", "cyrillic", "zh_hans"):
        for text in texts:
            model = models[group]
            pairs = sum(model.pair_cost(a, b) for a, b in zip((" " + text)[:-1], text, strict=True))
            assert model.score(text) == pytest.approx(model.score_loop(text), rel=1e-9, abs=1e-9)
            assert model.score(text) == pytest.approx(pairs, rel=1e-9, abs=1e-9)


def test_the_words_name_the_language_of_a_short_text() -> None:
    # One letter: "ą" in ISO-8859-13 is "à" in windows-1252; the Lithuanian words around it say which.
    text = "Kiekvienas žmogus turi teisę į poilsį ir laisvalaikį, ir periodines apmokamas atostogas."
    data = text.encode("iso8859_13")
    found = default_detector().detect(data)
    assert found is not None
    assert data.decode(found.encoding) == text, found


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_kana_heavy_utf16_without_bom(codec: str) -> None:
    # Kana units (0x30xx) have no byte above 0x7F and read as ASCII and half-width katakana in
    # Shift_JIS: the likelier reading is found by the character models.
    text = "そうだね。\nわたしはへやをさがしています。\nきみのスピードはすごいね。\n" * 4
    found = default_detector().detect(text.encode(codec))
    assert found is not None
    assert found.encoding == codec


@pytest.mark.parametrize("codec", ["koi8_r", "cp1251", "shift_jis", "gb18030", "euc_kr"])
def test_legacy_text_is_not_taken_for_utf16(codec: str) -> None:
    text = {"koi8_r": RUSSIAN, "cp1251": RUSSIAN, "shift_jis": JAPANESE}.get(codec, "")
    chinese = "中文文本，这是一个测试页面。"  # noqa: RUF001
    text = text or (chinese if codec == "gb18030" else "한국어 텍스트입니다 안녕하세요")
    data = (text * 3).encode(codec)
    assert detect.utf16_shape(data) is None
    found = default_detector().detect(data)
    assert _same_text(data, found, codec)


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("Ça coûte très cher, n'est-ce pas ? Oui, c'était prévu.", "cp1252"),
        ("Über die Brücke gehen wir später, während es regnet.", "cp1252"),
        ("Zażółć gęślą jaźń, ale to już wiesz.", "cp1250"),
        ("¿Dónde está el niño? Está aquí, señor.", "cp1252"),
    ],
)
def test_windows_text_with_crlf_is_not_read_as_dos(text: str, codec: str) -> None:
    # DOS pages are candidates for CR LF text, at a low prior; Windows letters read as DOS are
    # capitals inside words and box drawing, so Windows text keeps its reading.
    data = (text + "\r\n" + text + "\r\n").encode(codec)
    found = default_detector().detect(data)
    assert _same_text(data, found, codec)


@pytest.mark.parametrize(
    ("text", "codec"), [("Worüber lachst du denn?\r\n", "cp437"), ("Así es.\r\n", "cp850")]
)
def test_short_dos_text_is_read_as_dos(text: str, codec: str) -> None:
    data = text.encode(codec)
    assert _same_text(data, default_detector().detect(data), codec)


def test_same_text_is_named_after_the_likelier_reading() -> None:
    # Mac Roman's and Mac Cyrillic's 0xD5 are both a right quote: one text, and English words
    # around it are the Western group's reading.
    data = b'"Product"="Daniel Blanchard\xd5s Trackpad #1","Version"=1, "Vendor"="Apple"\n'
    found = default_detector().detect(data)
    assert found is not None
    assert found.encoding == "mac-roman"


def test_utf16_shape_counts_the_cjk_blocks_and_plain_ascii() -> None:
    cjk = re.compile("[\u4e00-\u9fff\uac00-\ud7a3\u3000-\u30ff\uff01-\uff9f]")
    plain = re.compile("[\x20-\x7e\t\n\r]")
    for cp in range(0x10000):
        kind = detect._CJK_UNIT if cjk.match(chr(cp)) else detect._PLAIN_UNIT if plain.match(chr(cp)) else 0
        assert detect._UTF16_KIND[cp] == kind, hex(cp)


def test_utf16_cjk_with_an_astral_character_at_the_sample_s_end() -> None:
    # the sample is cut at a fixed size: an astral character (a surrogate pair) split there must
    # not make the whole sample unreadable as UTF-16
    from trawl.decode.detect import utf16_shape

    for encoding in ("utf-16-le", "utf-16-be"):
        for before in (8189, 8190, 8191):
            data = ("人" * before + "𠀀" + "人" * 100).encode(encoding)
            assert utf16_shape(data) == encoding, (encoding, before)
