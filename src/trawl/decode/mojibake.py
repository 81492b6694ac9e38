"""Mojibake: UTF-8 text that was decoded with a single-byte code page, detected and undone.

``résumé`` stored as UTF-8 and read as windows-1252 becomes ``rÃ©sumÃ©``; read that way twice it
becomes ``rÃƒÂ©sumÃƒÂ©``. The damage is reversible: encoding the text back with the code page that
misread it gives the original UTF-8 bytes. :func:`check_mojibake` scores how much a text looks
double-decoded and repairs it when the repair is safe.

How it works (the idea is ftfy's; the code and the heuristics are trawl's own):

* **Candidates.** For each code page (windows-1252 decoded as browsers do, so its five undefined
  bytes are the C1 controls U+0081, U+008D...; windows-1250; windows-1251; Mac Roman; cp437) a
  regular expression finds runs of characters whose bytes in that code page form well-formed
  UTF-8 multi-byte sequences (a lead byte 0xC2-0xF4 and its continuation bytes 0x80-0xBF).
* **Evidence.** A run counts only when it is credible as mojibake, because many clean texts
  contain such pairs (``NESTLÉ®``, ``5×£35``, ``QUEM É¿``, Ukrainian ``Рівне``). A three- or
  four-byte sequence (``â€™``), a C1 control, or a windows-1252 ``Ã``/``Â`` lead is strong
  evidence; a two-byte sequence with another lead counts only when it decodes to a letter of a
  script that is commonly misread this way and sits next to lowercase letters or among other
  such sequences. The result must never be a control, unassigned or private-use character, nor an
  IPA or modifier letter (``ZZAJÉ’s`` is not ``ZZAJɒs``).
* **Repair.** The whole text is re-encoded with the code page with the most evidence and decoded
  as UTF-8 (CESU-8 surrogate pairs joined). When that fails (mixed clean and damaged text), only
  the credible runs are replaced, for the Latin code pages. A repair is kept only when every
  replaced span round-trips exactly and the repaired text scores strictly lower; it is repeated
  for text damaged twice or three times. Leftover C1 controls in a repaired text are read as
  windows-1252, which is what the damaged page meant by them.

Clean text is cheap: ASCII text returns at once, and other text pays one regular-expression scan
for a lead character followed by a continuation character.
"""

# ruff: noqa: RUF001, RUF002, RUF003 -- the subject is look-alike characters; they are meant
from __future__ import annotations

import bisect
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MOJIBAKE_THRESHOLD", "MojibakeReport", "check_mojibake"]

#: A text is reported as mojibake when its score is at least this.
MOJIBAKE_THRESHOLD = 0.5

_MAX_ROUNDS = 3  # text misread three times in a row is seen in the wild; more is noise


@dataclass(frozen=True, slots=True)
class MojibakeReport:
    """How much a text looks double-decoded, and the repair when one is safe."""

    score: float  # 0..1: how much the text looks double-decoded (0 = clean)
    detected: bool  # score above the threshold
    repaired: str | None  # the repaired text when a repair is safe, else None
    how: str | None  # e.g. "utf-8 read as windows-1252" (the decoding chain undone)


@dataclass(frozen=True, slots=True)
class _CodePage:
    name: str
    decode_table: str  # 256 characters, byte value → character
    encode_map: dict[int, int]  # code point → byte value (high half only)
    run: re.Pattern[str]  # runs of characters that are well-formed UTF-8 in this code page
    strong_leads: frozenset[str]  # lead characters that are strong evidence on their own
    latin: bool  # its mojibake is repaired span by span in mixed text
    scripts: tuple[tuple[int, int], ...]  # code point ranges a two-byte sequence may decode to
    weak_singles: bool  # a lone two-byte letter beside lowercase counts without a strong lead
    latin_beside_ascii: bool  # a lone sequence decoding to a Latin letter beside an ASCII letter


def _table(codec: str) -> str:
    chars = []
    for b in range(256):
        try:
            chars.append(bytes([b]).decode(codec))
        except UnicodeDecodeError:
            chars.append(chr(b))  # as browsers: an undefined byte is the C1 control of that value
    return "".join(chars)


def _cls(table: str, lo: int, hi: int) -> str:
    return "[" + "".join(re.escape(table[b]) for b in range(lo, hi + 1)) + "]"


_LATIN = ((0x00C0, 0x024F),)  # Latin-1 letters, Latin Extended-A and -B
_GREEK_CYRILLIC = ((0x0370, 0x03FF), (0x0400, 0x04FF))
_HEBREW_ARABIC = ((0x05D0, 0x05EA), (0x0620, 0x064A))


def _code_page(
    name: str,
    codec: str,
    strong: str,
    *,
    latin: bool,
    scripts: tuple[tuple[int, int], ...],
    weak_singles: bool = True,
    latin_beside_ascii: bool = False,
) -> _CodePage:
    table = _table(codec)
    encode_map = {ord(ch): b for b, ch in enumerate(table) if b >= 0x80}
    if name == "windows-1252":
        # Text read as ISO-8859-1 has C1 controls where windows-1252 has punctuation; both
        # readings come from the same bytes, so both are undone.
        for b in range(0x80, 0xA0):
            encode_map.setdefault(b, b)
    cont = _cls(table, 0x80, 0xBF)
    if name == "windows-1252":
        cont = cont[:-1] + "".join(chr(b) for b in range(0x80, 0xA0)) + "]"
    lead2, lead3, lead4 = _cls(table, 0xC2, 0xDF), _cls(table, 0xE0, 0xEF), _cls(table, 0xF0, 0xF4)
    run = re.compile(f"(?:{lead2}{cont}|{lead3}{cont}{{2}}|{lead4}{cont}{{3}})+")
    return _CodePage(
        name,
        table,
        encode_map,
        run,
        frozenset(strong),
        latin,
        scripts,
        weak_singles,
        latin_beside_ascii,
    )


_CODE_PAGES: tuple[_CodePage, ...] = (
    _code_page("windows-1252", "cp1252", "ÃÂ", latin=True, scripts=_LATIN + _GREEK_CYRILLIC + _HEBREW_ARABIC),
    _code_page("windows-1250", "cp1250", "ĂÂ", latin=True, scripts=_LATIN + _GREEK_CYRILLIC + _HEBREW_ARABIC),
    _code_page("iso-8859-2", "iso8859_2", "ĂÂ", latin=True, scripts=_LATIN),
    # Russian text has Р/С before continuation letters (``Рёрих``): only runs of two or more
    # Cyrillic letters, punctuation, or a Latin letter glued to ASCII letters (``rГ©gion``).
    _code_page(
        "windows-1251",
        "cp1251",
        "",
        latin=True,
        scripts=((0x0400, 0x04FF),),
        weak_singles=False,
        latin_beside_ascii=True,
    ),
    # Mac Roman leads include guillemets and dashes that clean text puts before capitals
    # (German ``»Über«``): a lone sequence counts only after a symbol lead no word contains.
    _code_page(
        "mac-roman",
        "mac_roman",
        "√ƒ≈∆◊ÿŸ",
        latin=True,
        scripts=_LATIN + _GREEK_CYRILLIC + _HEBREW_ARABIC,
        weak_singles=False,
    ),
    _code_page("cp437", "cp437", "", latin=False, scripts=_LATIN + _GREEK_CYRILLIC),
    # Baltic text (``ÄÆdomu`` is ``įdomu``): its leads Ä and Å are ordinary capitals elsewhere,
    # so only lone letters beside lowercase, or runs, count.
    _code_page("windows-1257", "cp1257", "", latin=True, scripts=_LATIN),
    # Lowercase Cyrillic leads: only multi-byte symbols (``п¬Ѓ`` is the ligature fi) count.
    _code_page("mac-cyrillic", "mac_cyrillic", "", latin=False, scripts=(), weak_singles=False),
)


def _lead_then_continuation(cp: _CodePage) -> str:
    cont = _cls(cp.decode_table, 0x80, 0xBF)
    if cp.name == "windows-1252":
        cont = cont[:-1] + "".join(chr(b) for b in range(0x80, 0xA0)) + "]"
    return _cls(cp.decode_table, 0xC2, 0xF4) + cont


# The cheap pre-check: some code page's lead character followed by its continuation character.
# One pattern per code page: a pattern that starts with one character class is scanned for fast
# by the regex engine, an alternation of six is tried position by position (3x slower).
_PRECHECKS = tuple((cp, re.compile(_lead_then_continuation(cp))) for cp in _CODE_PAGES)
# Strings that start a lost-no-break-space span (see _LOST_NBSP) in a code page's mojibake.
_LITERAL_TRIGGERS = {"windows-1252": ("Ã ", "Â "), "windows-1251": ("Г ",), "windows-1257": ("Å ",)}


def _suspects(text: str) -> list[_CodePage]:
    """The code pages whose mojibake could be in ``text``: the cheap pre-check."""
    replacement = "\ufffd" in text
    return [
        cp
        for cp, pattern in _PRECHECKS
        if replacement
        or pattern.search(text) is not None
        or any(t in text for t in _LITERAL_TRIGGERS.get(cp.name, ()))
    ]


_BAD_CATEGORIES = frozenset({"Cc", "Cn", "Co", "Cs"})


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    fixed: str
    weight: float
    certain: bool  # a C1 control or a multi-byte symbol: no clean text looks like this


def _utf8(data: bytes) -> str | None:
    """UTF-8 (or CESU-8, surrogate pairs encoded separately) to text; ``None`` if neither."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("utf-8", "surrogatepass")
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeError:
        return None


_TRANSLATIONS: dict[str, dict[int, int | None]] = {}


def _translation(cp: _CodePage) -> dict[int, int | None]:
    # Characters the code page encodes become the Latin-1 character of their byte; the Latin-1
    # characters it does not encode are deleted, which the length check in _encode catches.
    table = _TRANSLATIONS.get(cp.name)
    if table is None:
        table = _TRANSLATIONS[cp.name] = dict.fromkeys(range(0x80, 0x100))
        table.update(cp.encode_map)
    return table


def _encode(text: str, cp: _CodePage) -> bytes | None:
    """``text`` in code page ``cp``'s bytes, or ``None`` when a character is not in it."""
    out = text.translate(_translation(cp))
    if len(out) != len(text):
        return None
    try:
        return out.encode("latin-1")
    except UnicodeEncodeError:
        return None


@lru_cache(maxsize=4096)
def _plausible(fixed: str) -> bool:
    for ch in fixed:
        if ch in "\t\n\r":
            continue
        cat = unicodedata.category(ch)
        if cat in _BAD_CATEGORIES:
            return False
        if 0x0250 <= ord(ch) <= 0x02FF or cat == "Lm":  # what false positives decode to
            return False
    return True


# Punctuation that follows a capital letter in clean text (``NICIODATĂ™``, ``TĂ\xa0``).
_NATURAL_FOLLOWERS = frozenset("\xa0™’®©…´¨¿")


def _natural(text: str, start: int, end: int) -> bool:
    """A lone lead + follower pair that clean text produces: capital, then common punctuation."""
    # Not after Ã: a capital Ã before them is much rarer than the mojibake of À, Ù, Ò.
    return (
        end - start == 2
        and text[start] != "Ã"
        and text[start + 1] in _NATURAL_FOLLOWERS
        and not _lower_at(text, start - 1)
    )


def _wide_ok(ch: str) -> bool:
    """A character that a lone 3- or 4-byte sequence credibly decodes to (punctuation, emoji...).

    A lone sequence decoding to a CJK or Hangul syllable is more often clean text: ``Brontë…”``.
    """
    o = ord(ch)
    return 0x1E00 <= o <= 0x2BFF or 0xFB00 <= o <= 0xFB06 or 0xFE00 <= o <= 0xFFFF or o >= 0x10000


def _in_scripts(fixed: str, cp: _CodePage) -> bool:
    return all(
        unicodedata.category(ch).startswith("L") and any(lo <= ord(ch) <= hi for lo, hi in cp.scripts)
        for ch in fixed
    )


def _lower_at(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].islower()


def _ascii_letter_at(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isascii() and text[i].isalpha()


# ``à`` is C3 A0 in UTF-8: read as windows-1252 it is ``Ã`` + no-break space, and the no-break
# space is often lost or made a plain space on the way (``voilÃ le travail``); in windows-1251
# the lead reads ``Г``. Only an ``Ã`` ending a lowercase ASCII word, or a lone ``Г`` between
# ASCII words, is taken for it.
_LOST_NBSP = {
    "windows-1252": re.compile(
        r"(?<=[a-z])Ã(?: (?= )|(?= ))"  # voilÃ le, voilÃ  le
        r"|(?<![^\s'’])Ã(?: (?=s(?:[\s.,;:!?]|$))|(?= [a-zà-ÿ]))"  # Ã perturber, Ã nos, Ã s (às)
        r"|(?<=[a-z])Â (?=[^\sa-z])"  # namedÂ â€ž: Â + no-break space, the space made plain
    ),
    "windows-1251": re.compile(r"(?<=[a-z] )Г(?: (?= )|(?= [a-z]))"),
    # Š is C5 A0: ``Å iaip`` for ``Šiaip``. Swedish starts sentences with ``Å``, so this one
    # counts only beside other windows-1257 evidence (see _spans).
    "windows-1257": re.compile(r"(?<![^\s])Å (?=[a-zą-ž])"),
}

_NBSP_FIX = {"Ã": "à", "Г": "à", "Â": "\xa0", "Å": "Š"}
# Code pages whose lost-no-break-space spans need other evidence in the same text.
_NBSP_NEEDS_COMPANY = frozenset({"windows-1257"})


def _lost_nbsp_spans(text: str, cp: _CodePage) -> list[_Span]:
    pattern = _LOST_NBSP.get(cp.name)
    spans = (
        []
        if pattern is None
        else [_Span(m.start(), m.end(), _NBSP_FIX[m.group()[0]], 1.0, False) for m in pattern.finditer(text)]
    )
    if "\ufffd" in text:
        # A multi-byte sequence whose last byte was lost and replaced (``â€\ufffd``): the
        # character is gone; what is left of its sequence becomes one replacement character.
        spans.extend(
            _Span(m.start(), m.end(), "\ufffd", 1.0, True) for m in _truncated(cp.decode_table).finditer(text)
        )
    return spans


@lru_cache(maxsize=16)
def _truncated(t: str) -> re.Pattern[str]:
    cont = _cls(t, 0x80, 0xBF)
    return re.compile(f"(?:{_cls(t, 0xE0, 0xEF)}{cont}|{_cls(t, 0xF0, 0xF4)}{cont}{{1,2}})\ufffd")


#: Credible evidence from one code page beyond which its weaker sequences are mended too.
_CONTEXT_EVIDENCE = 3.0


_Facts = tuple[str, bool, bool, bool, bool, bool]
_FACTS: dict[tuple[str, str], _Facts | None] = {}


def _run_facts(raw: str, cp: _CodePage) -> _Facts | None:
    """What a run says without its context: (repair, certain, strong lead, letters of the code
    page's scripts, Latin letters, damaged twice); ``None`` when it is not credible at all.

    Cached: damaged text repeats the same few runs (its words' accented letters) thousands of times.
    """
    key = (raw, cp.name)
    if key in _FACTS:
        return _FACTS[key]
    data = _encode(raw, cp)
    fixed = _utf8(data) if data is not None else None
    facts: _Facts | None = None
    if fixed is not None and _plausible(fixed):
        certain = (
            any(_wide_ok(ch) for ch in fixed)
            or (len(fixed) >= 2 and any(ord(ch) >= 0x800 for ch in fixed))
            or any(0x80 <= ord(ch) < 0xA0 for ch in raw)
        )
        facts = (
            fixed,
            certain,
            any(ch in cp.strong_leads for ch in raw[::2]),
            _in_scripts(fixed, cp),
            all(0xC0 <= ord(ch) <= 0x24F and ch.isalpha() for ch in fixed),
            _misread_again(fixed, cp),
        )
    if len(_FACTS) >= _FACTS_MAX:
        _FACTS.clear()
    _FACTS[key] = facts
    return facts


_FACTS_MAX = 1 << 16


def _spans(text: str, cp: _CodePage) -> list[_Span]:
    spans: list[_Span] = []
    weak: list[_Span] = []
    lost = _lost_nbsp_spans(text, cp)
    for m in cp.run.finditer(text):
        facts = _run_facts(m.group(), cp)
        if facts is None:
            continue
        fixed, certain, strong_lead, in_scripts, latin_letters, again = facts
        start, end = m.start(), m.end()
        strong = certain or (
            strong_lead
            and not _natural(text, start, end)
            # a symbol lead (Mac Roman's √ ƒ ≈) is evidence only inside a word: ``g√¢teaux``
            and (cp.weak_singles or (start > 0 and text[start - 1].isalpha()))
        )
        credible_letters = in_scripts and (
            len(fixed) >= 2
            or (cp.latin and cp.weak_singles and (_lower_at(text, start - 1) or _lower_at(text, end)))
        )
        latin_glued = (
            cp.latin_beside_ascii
            and latin_letters
            and (_ascii_letter_at(text, start - 1) or _ascii_letter_at(text, end))
        )
        if certain or (strong and (cp.latin or len(fixed) >= 2)) or credible_letters or latin_glued or again:
            spans.append(_Span(start, end, fixed, float(len(fixed)), certain))
        elif in_scripts:
            weak.append(_Span(start, end, fixed, 0.0, False))
    if weak and sum(s.weight for s in spans) >= _CONTEXT_EVIDENCE:
        # Text with this much damage from this code page: a lone sequence between spaces
        # (Greek ``Î·`` for ``η``) is damage too, though it would not count on its own.
        spans = sorted(spans + weak, key=lambda s: s.start)
    if lost and (spans or cp.name not in _NBSP_NEEDS_COMPANY):
        # spans are in text order and do not overlap: a lost span overlaps one of them only if
        # it overlaps the last span starting before its end
        starts = [s.start for s in spans]
        for extra in lost:
            i = bisect.bisect_left(starts, extra.end) - 1
            if i < 0 or spans[i].end <= extra.start:
                spans.append(extra)
        spans.sort(key=lambda s: s.start)
    return spans


def _misread_again(fixed: str, cp: _CodePage) -> bool:
    """``fixed`` is itself UTF-8 read as windows-1252 (``Г‚ВЈ`` → ``Â£`` → ``£``): damaged twice."""
    if len(fixed) < 2 or cp is _CODE_PAGES[0] or fixed[0] not in "ÂÃ":
        return False
    data = _encode(fixed, _CODE_PAGES[0])
    return data is not None and _utf8(data) is not None


def _evidence(text: str) -> tuple[float, _CodePage | None, list[_Span]]:
    best: tuple[float, _CodePage | None, list[_Span]] = (0.0, None, [])
    if text.isascii():
        return best
    # The code page is chosen on the head of a long text; only the winner is read in full.
    head = text[:_EVIDENCE_HEAD]
    for cp in _suspects(head):
        spans = _spans(head, cp)
        weight = sum(s.weight for s in spans)
        if weight > best[0]:
            best = (weight, cp, spans)
    if len(text) > _EVIDENCE_HEAD and best[1] is not None:
        spans = _spans(text, best[1])
        best = (sum(s.weight for s in spans), best[1], spans)
    return best


_EVIDENCE_HEAD = 1 << 15


def _score(evidence: float) -> float:
    # One credible sequence reaches the threshold; more push the score towards 1.
    return 1.0 - math.exp(-evidence * math.log(2)) if evidence > 0 else 0.0


def _fix_c1(text: str) -> str:
    """C1 controls left in repaired text are windows-1252 punctuation read as ISO-8859-1."""
    table = _CODE_PAGES[0].decode_table
    return re.sub("[\x80-\x9f]", lambda m: table[ord(m.group())], text)


def _repair_once(text: str, cp: _CodePage, spans: list[_Span]) -> str | None:
    data = _encode(text, cp)
    if data is not None:
        whole = _utf8(data)
        if whole is not None and whole != text:
            return whole
    if not cp.latin or not spans:
        return None
    # The whole text did not round-trip: mend spans only when the evidence is not doubtful.
    if _doubtful(text, spans):
        return None
    parts: list[str] = []
    pos = 0
    for s in spans:
        parts.append(text[pos : s.start])
        parts.append(s.fixed)
        pos = s.end
    parts.append(text[pos:])
    return "".join(parts)


def _doubtful(text: str, spans: list[_Span]) -> bool:
    """One lone, uncertain sequence in text that also holds correctly decoded non-ASCII.

    Such text is more likely clean with an odd name in it than mojibake: it is neither
    reported nor mended ("Bremer/Mccoy \u2013 Dr\u00c3\u00a5ber" stays as it is, as ftfy leaves
    it).
    """
    if sum(s.weight for s in spans) >= 2 or any(s.certain for s in spans):
        return False
    pos = 0
    for s in spans:
        if not text[pos : s.start].isascii():
            return True
        pos = s.end
    return not text[pos:].isascii()


# C1 controls that windows-1252 defines as punctuation: text read as ISO-8859-1 (``\x84Handwerk
# bringt dich überall hin\x93``). The five bytes windows-1252 leaves undefined are not evidence,
# nor is U+0085 (NEL), which Unicode text uses as a line break.
_DEFINED_C1 = re.compile("[\x80\x82-\x84\x86-\x8c\x8e\x91-\x9c\x9e\x9f]")
# The same characters one by one: 26 substring tests (memchr-like) are ~5x faster on a long page
# than the regex's character class, and only say whether one is there.
_DEFINED_C1_CHARS = tuple(
    chr(c) for c in (0x80, *range(0x82, 0x85), *range(0x86, 0x8D), 0x8E, *range(0x91, 0x9D), 0x9E, 0x9F)
)


def _has_defined_c1(text: str) -> bool:
    return any(map(text.__contains__, _DEFINED_C1_CHARS))


def _latin1_reading(text: str, repair: bool) -> MojibakeReport:
    count = len(_DEFINED_C1.findall(text))
    score = _score(float(count))
    detected = score >= MOJIBAKE_THRESHOLD
    if not (detected and repair):
        return MojibakeReport(score, detected, None, None)
    return MojibakeReport(score, detected, _fix_c1(text), "windows-1252 read as iso-8859-1")


def check_mojibake(text: str, *, repair: bool = True) -> MojibakeReport:
    """Score *text* for UTF-8 read through a single-byte code page; repair it when safe.

    ``check_mojibake("rÃ©sumÃ©").repaired == "résumé"``. Clean text gives score 0 and no repair.
    Windows-1252 punctuation read as ISO-8859-1 (C1 controls) is reported and mended too.
    """
    evidence, cp, spans = _evidence(text)
    if not evidence and not text.isascii() and _has_defined_c1(text):
        return _latin1_reading(text, repair)
    if evidence and _doubtful(text, spans):
        evidence /= 2
    score = _score(evidence)
    detected = score >= MOJIBAKE_THRESHOLD
    if not (detected and repair) or cp is None:
        return MojibakeReport(score, detected, None, None)
    current, current_evidence, chain = text, evidence, []
    for _ in range(_MAX_ROUNDS):
        if cp is None:
            break
        candidate = _repair_once(current, cp, spans)
        if candidate is None:
            break
        new_evidence, new_cp, new_spans = _evidence(candidate)
        if new_evidence >= current_evidence:
            break
        chain.append(f"utf-8 read as {cp.name}")
        current, current_evidence, cp, spans = candidate, new_evidence, new_cp, new_spans
        if current_evidence == 0:
            break
    if not chain:
        return MojibakeReport(score, detected, None, None)
    return MojibakeReport(score, detected, _fix_c1(current), ", then ".join(reversed(chain)))
