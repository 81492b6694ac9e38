"""Language labels: ISO 639-1 where one exists, else ISO 639-3, and the close relatives.

The training texts are the UDHR translations in ``udhr2``, whose file names are ISO 639-3 codes
with an optional variant (``srp_latn``, ``por_BR``, ``deu_1901``). Variants of one language
(scripts, orthographies, national standards) share one label, so ``srp_cyrl`` and ``srp_latn``
both train ``sr``. Files named by a number (``007``…``011``) have no code and train nothing.
"""

from __future__ import annotations

__all__ = [
    "RELATIVES",
    "UND",
    "label_for_file",
    "relatives_of",
    "to_iso639_1",
    "to_iso639_3",
]

#: The label of "no language could be identified" (ISO 639-2/3 ``und``, undetermined).
UND = "und"

# ISO 639-3 (as used by the udhr2 file names) → ISO 639-1, for the languages that have one.
# Macrolanguage members map to the macrolanguage's 639-1 code where the member is the one the
# web means by it (arb → ar, pes → fa, khk → mn, swh → sw, als → sq, plt → mg, ...).
_ISO1: dict[str, str] = {
    "abk": "ab", "afr": "af", "aka": "ak", "als": "sq", "amh": "am", "arb": "ar", "ayr": "ay",
    "azj": "az", "bam": "bm", "bel": "be", "ben": "bn", "bis": "bi", "bod": "bo", "bos": "bs",
    "bre": "br", "bul": "bg", "cat": "ca", "ces": "cs", "cha": "ch", "cmn": "zh", "cos": "co",
    "cym": "cy", "dan": "da", "deu": "de", "div": "dv", "dzo": "dz", "ell": "el", "eng": "en",
    "epo": "eo", "est": "et", "eus": "eu", "ewe": "ee", "fao": "fo", "fij": "fj", "fin": "fi",
    "fra": "fr", "fri": "fy", "gla": "gd", "gle": "ga", "glg": "gl", "gug": "gn", "guj": "gu",
    "hat": "ht", "hau": "ha", "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu", "hye": "hy",
    "ibo": "ig", "ido": "io", "iii": "ii", "ike": "iu", "ina": "ia", "ind": "id", "isl": "is",
    "ita": "it", "jav": "jv", "jpn": "ja", "kal": "kl", "kan": "kn", "kat": "ka", "kaz": "kk",
    "khk": "mn", "khm": "km", "kin": "rw", "kir": "ky", "kng": "kg", "kor": "ko", "lao": "lo",
    "lat": "la", "lav": "lv", "lin": "ln", "lit": "lt", "ltz": "lb", "lug": "lg", "mah": "mh",
    "mal": "ml", "mar": "mr", "mkd": "mk", "mlt": "mt", "mly": "ms", "mri": "mi", "mya": "my",
    "nav": "nv", "nbl": "nr", "ndo": "ng", "nep": "ne", "nld": "nl", "nno": "nn", "nob": "nb",
    "nya": "ny", "ojb": "oj", "oss": "os", "pan": "pa", "pbu": "ps", "pes": "fa", "plt": "mg",
    "pol": "pl", "por": "pt", "roh": "rm", "ron": "ro", "run": "rn", "rus": "ru", "sag": "sg",
    "san": "sa", "slk": "sk", "slv": "sl", "sme": "se", "smo": "sm", "sna": "sn", "som": "so",
    "sot": "st", "spa": "es", "srp": "sr", "ssw": "ss", "sun": "su", "swe": "sv", "swh": "sw",
    "tah": "ty", "tam": "ta", "tat": "tt", "tgk": "tg", "tgl": "tl", "tha": "th", "tir": "ti",
    "ton": "to", "tsn": "tn", "tso": "ts", "tuk": "tk", "tur": "tr", "uig": "ug", "ukr": "uk",
    "urd": "ur", "uzn": "uz", "ven": "ve", "vie": "vi", "wln": "wa", "wol": "wo", "xho": "xh",
    "ydd": "yi", "yor": "yo", "zul": "zu",
    # macrolanguage codes and other 639-3 codes of languages with a 639-1 code (as other data
    # sets, Tatoeba among them, name them)
    "ara": "ar", "aym": "ay", "aze": "az", "cor": "kw", "fas": "fa", "fry": "fy",
    "grn": "gn", "iku": "iu", "kon": "kg", "kur": "ku", "mlg": "mg", "mon": "mn",
    "msa": "ms", "nor": "nb", "oci": "oc", "oji": "oj", "ori": "or", "orm": "om",
    "pus": "ps", "que": "qu", "sin": "si", "sqi": "sq", "swa": "sw", "tel": "te", "uzb": "uz",
    "yid": "yi", "zho": "zh", "zsm": "ms", "ekk": "et", "lvs": "lv", "npi": "ne", "ory": "or",
    "arg": "an", "bak": "ba", "asm": "as", "vol": "vo", "ckb": "ku", "kmr": "ku",
}  # fmt: skip

#: Groups of languages so close that short texts cannot always tell them apart; a result whose
#: two best candidates fall in one group is reported as an explicit ambiguity.
RELATIVES: tuple[frozenset[str], ...] = (
    frozenset({"ms", "id"}),
    frozenset({"es", "pt", "gl"}),
    frozenset({"bs", "hr", "sr", "mk", "bg"}),  # South Slavic: Cyrillic Serbian/Bosnian vs Macedonian
    frozenset({"nb", "nn", "da"}),
    frozenset({"cs", "sk"}),
)


# The 639-3 code a label is written as where Common Crawl's index writes it (CLD2's languages as
# ISO 639-3: the macrolanguage where there is one, ``ara``, ``zho``, ``fas``, ``msa``...); other
# labels take the first 639-3 code of the table above that maps to them.
_MACRO = {
    "ar": "ara", "ay": "aym", "az": "aze", "et": "est", "fa": "fas", "gn": "grn", "iu": "iku",
    "kg": "kon", "ku": "kur", "lv": "lav", "mg": "mlg", "mn": "mon", "ms": "msa", "nb": "nob",
    "ne": "nep", "oj": "oji", "om": "orm", "or": "ori", "ps": "pus", "qu": "que", "sq": "sqi",
    "sw": "swa", "uz": "uzb", "yi": "yid", "zh": "zho", "fy": "fry", "oc": "oci", "te": "tel",
    "si": "sin", "kw": "cor", "an": "arg", "ba": "bak", "as": "asm", "vo": "vol",
}  # fmt: skip
_ISO3: dict[str, str] = {}
for _three, _one in _ISO1.items():
    _ISO3.setdefault(_one, _three)
_ISO3.update(_MACRO)


def to_iso639_3(label: str) -> str:
    """``en`` → ``eng``, ``zh`` → ``zho``; a 639-3 label (``sco``) is returned unchanged."""
    return _ISO3.get(label, label)


def to_iso639_1(code: str) -> str:
    """``deu`` → ``de``; a code without a 639-1 form (``ast``) is returned unchanged."""
    return _ISO1.get(code, code)


def label_for_file(stem: str) -> str | None:
    """The label a ``udhr2`` file trains: ``srp_latn`` → ``sr``, ``sco`` → ``sco``, ``007`` → None."""
    base = stem.split("_", 1)[0]
    if not base.isalpha() or len(base) != 3:
        return None
    return to_iso639_1(base)


def relatives_of(label: str) -> frozenset[str]:
    """The close-relative group holding ``label`` (empty when it has none)."""
    for group in RELATIVES:
        if label in group:
            return group
    return frozenset()
