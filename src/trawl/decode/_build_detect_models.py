"""Regenerate ``detect_models.json.gz``, the character models behind :mod:`trawl.decode.detect`.

Run ``python -m trawl.decode._build_detect_models [UDHR_DIR]`` (default:
``../shared/data/langid/udhr2`` from the repository root). Each *group* is a script family whose
texts share legacy code pages; its model is the pooled character unigram and bigram counts of
the first halves of the group's UDHR translations (NFC, lower-cased: headings in capitals must
not look foreign; the second halves are the test text of ``bench/encoding_detect.py --set
udhr-legacy``), plus the group's *native* characters: the letters its code pages can encode (alphabets) or the
frequent ideographs and syllables of the national standard's first level (CJK), which is where an
unseen character of a right decoding most likely falls. Each language of a group also has its own
counts (``langs``): the detector weighs the group's languages against each other on short text,
where the pooled counts cannot tell an English word's curly apostrophe from a Spanish ``í``.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from trawl.langid.corpus import split_half

__all__ = ["ALPHABETS", "GROUPS", "build", "main", "native_chars"]

GROUPS: dict[str, list[str]] = {
    "western": [
        "eng",
        "fra",
        "deu",
        "spa",
        "por_PT",
        "ita",
        "nld",
        "cat",
        "dan",
        "swe",
        "nob",
        "fin",
        "isl",
        "glg",
        "eus",
        "afr",
        "ltz",
        "gle",
        "cym",
    ],
    "central": ["ces", "pol", "hun", "slk", "slv", "hrv", "ron", "bos_latn", "srp_latn"],
    "nordic": ["isl", "fao", "sme", "nob", "dan", "swe", "fin"],
    "celtic": ["cym", "gle", "gla"],
    "south": ["mlt", "epo"],
    "baltic": ["lit", "lav", "est"],
    "turkish": ["tur"],
    "cyrillic": ["rus", "ukr", "bel", "bul", "mkd", "srp_cyrl"],
    "greek": ["ell_monotonic"],
    "hebrew": ["heb"],
    "arabic": ["arb", "pes_1", "urd"],
    "thai": ["tha"],
    "vietnamese": ["vie"],
    "japanese": ["jpn"],
    "zh_hans": ["cmn_hans"],
    "zh_hant": ["cmn_hant"],
    "korean": ["kor"],
}

# The letters beyond ASCII of each Latin-script language's alphabet (lower case; its standard
# orthography, with the accents its own words take): a letter of the alphabet that its half of
# the UDHR happens not to show (Welsh ŵ) is still far likelier in it than another language's
# (Icelandic ð). Languages of the other scripts show their whole alphabet in that half.
ALPHABETS: dict[str, str] = {
    "eng": "",
    "fra": "àâæçéèêëîïôœùûüÿ",
    "deu": "äöüß",
    "spa": "áéíñóúü",
    "por_PT": "áâãàçéêíóôõú",
    "ita": "àèéìíòóù",
    "nld": "áéèëïóöü",
    "cat": "àçéèíïóòúü",
    "dan": "æøåé",
    "swe": "åäöé",
    "nob": "æøåéèêóòô",
    "fin": "äöåšž",
    "isl": "áðéíóúýþæö",
    "fao": "áðíóúýæø",
    "glg": "áéíñóúü",
    "eus": "ñü",
    "afr": "áäéèêëíîïóôöúûü",
    "ltz": "äëé",
    "gle": "áéíóú",
    "gla": "àèìòù",
    "cym": "âêîôûŵŷäëïöüáéíóúàèìòùẁẃẅỳý",
    "ces": "áčďéěíňóřšťúůýž",
    "pol": "ąćęłńóśźż",
    "hun": "áéíóöőúüű",
    "slk": "áäčďéíĺľňóôŕšťúýž",
    "slv": "čšž",
    "hrv": "čćđšž",
    "bos_latn": "čćđšž",
    "srp_latn": "čćđšž",
    "ron": "ăâîşţ",
    "sme": "áčđŋšŧž",
    "mlt": "àċèġħìòùż",
    "epo": "ĉĝĥĵŝŭ",
    "lit": "ąčęėįšųūž",
    "lav": "āčēģīķļņšūž",
    "est": "äõöüšž",
    "tur": "âçğıîöşûü",
    "vie": "àáâãèéêìíòóôõùúýăđĩũơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
}

# Code pages whose letters are a group's native alphabet.
ALPHABET_CODECS: dict[str, list[str]] = {
    "western": ["cp1252", "mac_roman"],
    "central": ["cp1250", "iso8859_2", "iso8859_16"],
    "nordic": ["iso8859_10"],
    "celtic": ["iso8859_14"],
    "south": ["iso8859_3"],
    "baltic": ["cp1257"],
    "turkish": ["cp1254"],
    "cyrillic": ["cp1251", "koi8_u"],
    "greek": ["cp1253", "iso8859_7"],
    "hebrew": ["cp1255"],
    "arabic": ["cp1256", "iso8859_6"],
    "thai": ["cp874"],
    "vietnamese": ["cp1258"],
}

# Romanian has comma-below letters that its code pages (windows-1250, iso-8859-2) spell with a cedilla.
_FOLD = str.maketrans("șțȘȚ", "şţŞŢ")


def _dbcs(codec: str, leads: range, trails: range) -> str:
    out = []
    for lead in leads:
        for trail in trails:
            with contextlib.suppress(UnicodeDecodeError):
                out.append(bytes((lead, trail)).decode(codec))
    return "".join(out)


def native_chars(group: str) -> str:
    if group in ALPHABET_CODECS:
        chars = set()
        for codec in ALPHABET_CODECS[group]:
            for byte in range(0x80, 0x100):
                try:
                    c = bytes((byte,)).decode(codec)
                except UnicodeDecodeError:
                    continue
                if unicodedata.category(c)[0] in "LM":
                    chars.add(c)
        return "".join(sorted(chars))
    row = range(0xA1, 0xFF)
    kana = "".join(chr(c) for c in range(0x3041, 0x3097)) + "".join(chr(c) for c in range(0x30A1, 0x30FB))
    if group == "japanese":  # JIS X 0208 level 1 kanji (EUC-JP rows 16-47) and the kana
        return kana + _dbcs("euc_jp", range(0xB0, 0xD0), row)
    if group == "zh_hans":  # GB 2312 level 1 hanzi
        return _dbcs("gb2312", range(0xB0, 0xD8), row)
    if group == "zh_hant":  # Big5 frequently used hanzi
        return _dbcs("big5", range(0xA4, 0xC7), range(0x40, 0x7F)) + _dbcs("big5", range(0xA4, 0xC6), row)
    if group == "korean":  # KS X 1001 hangul syllables
        return _dbcs("euc_kr", range(0xB0, 0xC9), row)
    raise ValueError(f"no native set for group {group!r}")


def _counts(text: str) -> tuple[Counter[str], Counter[str]]:
    return Counter(text), Counter(text[i : i + 2] for i in range(len(text) - 1))


def _training_text(udhr: Path, lang: str) -> str:
    text = unicodedata.normalize("NFC", (udhr / f"{lang}.txt").read_text("utf-8"))
    text = split_half(text)[0]  # the second halves stay unseen (bench --set udhr-legacy)
    text = text.translate(_FOLD)
    return " ".join(text.split()).lower()


def build(udhr: Path) -> dict[str, object]:
    groups: dict[str, object] = {}
    langs: dict[str, object] = {}
    for group, members in GROUPS.items():
        uni: Counter[str] = Counter()
        bi: Counter[str] = Counter()
        for lang in members:
            lang_uni, lang_bi = _counts(_training_text(udhr, lang))
            uni.update(lang_uni)
            bi.update(lang_bi)
            seen = "".join(sorted(c for c in lang_uni if not c.isascii() and c.isalpha()))
            langs[lang] = {
                "uni": dict(sorted(lang_uni.items())),
                "bi": dict(sorted(lang_bi.items())),
                "alphabet": "".join(sorted(set(ALPHABETS.get(lang, "")) | set(seen))),
            }
        groups[group] = {
            "uni": dict(sorted(uni.items())),
            "bi": dict(sorted(bi.items())),
            "native": native_chars(group),
            "langs": members,
        }
    return {"version": 2, "source": "UDHR (langid/udhr2)", "groups": groups, "langs": langs}


def main() -> None:
    udhr = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/langid/udhr2")
    out = Path(__file__).with_name("detect_models.json.gz")
    data = json.dumps(build(udhr), ensure_ascii=False, separators=(",", ":")).encode()
    out.write_bytes(gzip.compress(data, 9, mtime=0))
    print(f"{out}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
