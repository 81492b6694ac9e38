"""Statistical charset detection behind one interface: which encoding undeclared bytes are in.

:func:`default_detector` is trawl's own detector (:class:`ModelDetector`); the peers (chardet,
charset-normalizer, cchardet) have adapters with the same protocol for the benchmark in
``bench/encoding_detect.py``. A detector answers a :class:`Detection` (a Python codec name, a
confidence and the runners-up) or ``None`` when it has no opinion (empty input).

How :class:`ModelDetector` decides, cheapest evidence first:

1. byte-order marks (UTF-32 before UTF-16, whose BOM is a prefix of UTF-32LE's);
2. NUL patterns: UTF-32 and UTF-16 without a BOM (ASCII-range text has a zero byte in every
   other / three of four positions);
3. ISO-2022 escape sequences in 7-bit data; pure ASCII is ``ascii``;
4. valid UTF-8 with multi-byte sequences is ``utf-8`` (a character cut at the very end is
   forgiven): other encodings almost never form valid UTF-8 by chance;
5. otherwise every legacy candidate is *trial-decoded* and the text scored by the character
   model of its script group (an interpolated bigram model over characters, trained on UDHR
   translations; see ``_build_detect_models.py``). Since decoding is one-to-one, the model's
   log-likelihood of the decoded text is the likelihood of the bytes under that encoding, so
   multi-byte and single-byte candidates are compared on the same footing. Unseen characters
   back off to the group's native repertoire (its alphabet, or the first-level hanzi/kanji/
   hangul of the national standard); undefined bytes, C1 controls and private-use characters
   cost almost as much as an impossible decoding. Printable ASCII has a floor, so that markup
   and Latin words around a short run of non-ASCII cost every group about the same. Text is
   scored in lower case, then capitals cost for where they stand: one right after a small letter
   (``длЯ``) much, one after a capital (all caps) a little.

HTML tags are removed before scoring (``<`` and ``>`` are never trail bytes of the supported
multi-byte encodings), and at most :data:`SAMPLE_BYTES` bytes around non-ASCII bytes are scored,
so a 50 MB page costs as much as a 64 KB one.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

__all__ = [
    "CChardetDetector",
    "ChardetDetector",
    "CharsetNormalizerDetector",
    "Detection",
    "EncodingDetector",
    "ModelDetector",
    "default_detector",
    "nul_pattern",
]

#: Bytes of (tag-stripped) input scored by the model at most.
SAMPLE_BYTES = 4096
#: Bytes of the sample's head on which all candidates are scored, and how many go on.
PROBE_BYTES = 256
SHORTLIST = 3
#: A lead (natural log) of the best candidate on the head beyond which the rest is not scored.
PROBE_MARGIN = 20.0
#: Bytes of raw input looked at at most (head), so huge pages cost a bounded time.
SCAN_BYTES = 1 << 18


@dataclass(frozen=True, slots=True)
class Detection:
    """An encoding guess: a lower-case Python codec name, how sure, and the runners-up."""

    encoding: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = ()


class EncodingDetector(Protocol):
    """Anything that guesses the encoding of bytes; ``None`` means no opinion."""

    name: str

    def detect(self, data: bytes) -> Detection | None: ...


# -- the model detector ----------------------------------------------------------------------------

# (reported name, codec used for the trial decoding, strict codec for the report or None, group,
# log prior). The report names the narrower standard when the bytes are valid in it
# (shift_jis rather than cp932), as the caller then knows the page's declared family.
_CANDIDATES: tuple[tuple[str, str, str | None, str, float], ...] = (
    ("windows-1252", "cp1252", None, "western", 0.0),
    ("iso-8859-15", "iso8859_15", None, "western", -2.0),
    ("mac-roman", "mac_roman", None, "western", -4.0),
    ("ibm850", "cp850", None, "western", -10.0),
    ("ibm437", "cp437", None, "western", -10.5),
    ("mac-iceland", "mac_iceland", None, "nordic", -7.0),
    ("iso-8859-10", "iso8859_10", None, "nordic", -4.0),
    ("iso-8859-14", "iso8859_14", None, "celtic", -4.0),
    ("windows-1250", "cp1250", None, "central", -0.5),
    ("iso-8859-2", "iso8859_2", None, "central", -1.0),
    ("ibm852", "cp852", None, "central", -10.0),
    ("mac-centeuro", "mac_latin2", None, "central", -7.0),
    ("iso-8859-16", "iso8859_16", None, "central", -3.0),
    ("iso-8859-3", "iso8859_3", None, "south", -3.0),
    ("windows-1257", "cp1257", None, "baltic", -2.0),
    ("iso-8859-13", "iso8859_13", None, "baltic", -2.5),
    ("iso-8859-4", "iso8859_4", None, "baltic", -3.5),
    ("ibm775", "cp775", None, "baltic", -10.0),
    ("windows-1254", "cp1254", None, "turkish", -1.0),
    ("iso-8859-9", "iso8859_9", None, "turkish", -1.5),
    ("ibm857", "cp857", None, "turkish", -10.0),
    ("mac-turkish", "mac_turkish", None, "turkish", -7.0),
    ("windows-1251", "cp1251", None, "cyrillic", 0.0),
    ("koi8-r", "koi8_r", None, "cyrillic", -0.5),
    ("iso-8859-5", "iso8859_5", None, "cyrillic", -1.0),
    ("ibm866", "cp866", None, "cyrillic", -1.0),
    ("mac-cyrillic", "mac_cyrillic", None, "cyrillic", -1.0),
    ("ibm855", "cp855", None, "cyrillic", -1.5),
    ("koi8-u", "koi8_u", None, "cyrillic", -2.5),
    ("iso-8859-7", "iso8859_7", None, "greek", 0.0),
    ("windows-1253", "cp1253", None, "greek", -0.5),
    ("cp737", "cp737", None, "greek", -10.0),
    ("mac-greek", "mac_greek", None, "greek", -7.0),
    ("windows-1255", "cp1255", None, "hebrew", 0.0),
    ("iso-8859-8", "iso8859_8", None, "hebrew", -1.0),
    ("ibm862", "cp862", None, "hebrew", -10.0),
    ("windows-1256", "cp1256", None, "arabic", 0.0),
    ("iso-8859-6", "iso8859_6", None, "arabic", -0.5),
    ("tis-620", "cp874", "tis_620", "thai", 0.0),
    ("windows-1258", "cp1258", None, "vietnamese", -3.0),
    ("shift_jis", "cp932", "shift_jis", "japanese", 0.0),
    ("euc-jp", "euc_jp", None, "japanese", 0.0),
    ("gb18030", "gb18030", None, "zh_hans", 0.0),
    ("big5", "big5hkscs", "big5", "zh_hant", 0.0),
    ("euc-kr", "cp949", "euc_kr", "korean", 0.0),
    ("johab", "johab", None, "korean", -3.0),
)

# The DOS code pages of the Latin, Greek and Hebrew scripts: candidates only for text with DOS's
# CR LF line ends (or none). A Unix file's stray bytes (2005-Bush.txt's Big5 punctuation in
# English) otherwise read as DOS letters ("sabbaticalíXand"), which hides the damage from the
# anomaly report. IBM866 and IBM855, the web's Cyrillic DOS pages, stay candidates always.
_DOS = frozenset({"ibm437", "ibm850", "ibm852", "ibm775", "ibm857", "cp737", "ibm862"})

# Each reported name's log prior (a superset's name has its standard's).
_PRIORS = {name: prior for name, _, _, _, prior in _CANDIDATES}

# The fallback of each strict report name when the bytes are not valid in the narrower codec.
_SUPERSET = {"shift_jis": "cp932", "big5": "big5hkscs", "euc-kr": "cp949", "tis-620": "cp874"}

_PRIORS |= {superset: _PRIORS[name] for name, superset in _SUPERSET.items()}

_TAG = re.compile(rb"<[!/?a-zA-Z][^<>]{0,2000}>")


class _Model:
    """One script group's interpolated character-bigram model, scored on decoded text."""

    __slots__ = ("_alpha", "_bi", "_ctx", "_kana_p", "_native", "_native_p", "_total", "_uni")

    def __init__(self, spec: dict[str, Any]) -> None:
        uni_cnt: dict[str, int] = spec["uni"]
        bi_cnt: dict[str, int] = spec["bi"]
        native: str = spec["native"]
        self._native = frozenset(native)
        kana = sum(1 for c in native if 0x3040 <= ord(c) < 0x3100)
        # Kana are a third of Japanese text but a small part of its repertoire.
        self._kana_p = 0.25 / kana if kana else 0.0
        self._native_p = (0.35 if kana else 0.6) / max(1, len(native) - kana)
        total = sum(uni_cnt.values())
        # Dirichlet mass of the back-off distribution: large where the training text covers the
        # repertoire poorly (thousands of ideographs), small for alphabets.
        self._alpha = float(total) if len(native) > 1000 else max(50.0, total * 0.02)
        self._total = total + self._alpha
        self._uni = {c: self._logp(c, n) for c, n in uni_cnt.items()}
        # Witten-Bell: a context followed by many different characters leaves more mass to
        # the back-off than one always followed by the same few.
        ctx_cnt: dict[str, int] = {}
        ctx_types: dict[str, int] = {}
        for pair, n in bi_cnt.items():
            ctx_cnt[pair[0]] = ctx_cnt.get(pair[0], 0) + n
            ctx_types[pair[0]] = ctx_types.get(pair[0], 0) + 1
        self._ctx = {c: math.log(t / (ctx_cnt[c] + t)) for c, t in ctx_types.items()}
        self._bi = {
            pair: math.log(
                (n + ctx_types[pair[0]] * math.exp(self._uni[pair[1]]))
                / (ctx_cnt[pair[0]] + ctx_types[pair[0]])
            )
            for pair, n in bi_cnt.items()
        }

    def _logp(self, c: str, count: int) -> float:
        lp = math.log((count + self._alpha * self._base(c)) / self._total)
        # The training text (a legal declaration) lacks the typography of the web: curly quotes,
        # dashes, currency signs, fullwidth punctuation get a fixed probability of their own.
        if c in _TYPO:
            return max(lp, _TYPO_LOGP)
        if c in _RARE_SIGNS:
            return max(lp, _RARE_SIGN_LOGP)
        # ASCII is foreign to most groups' training text but common in every web page: no group
        # may find it much less likely than another.
        return max(lp, _ASCII_LOGP) if " " <= c < "\x7f" or c in "\t\n\r" else lp

    def _base(self, c: str) -> float:
        o = ord(c)
        if 0x20 <= o < 0x7F or c in "\t\n\r":
            return 0.3 / 98
        if c in self._native:
            return self._kana_p if 0x3040 <= o < 0x3100 else self._native_p
        if o == 0xFFFD or unicodedata.category(c) in ("Cc", "Co", "Cn", "Cs"):
            return _JUNK_P
        return _OTHER_P

    def pair_cost(self, a: str, b: str) -> float:
        """What character ``b`` adds to :meth:`score` right after character ``a``.

        :meth:`score` is a sum of these over adjacent pairs (``a`` = space before the first), which
        is what lets :class:`_ByteTable` score single-byte decodings from byte-pair counts.
        """
        cost = 0.0
        if b in _CAPITAL_SET:
            if a in _SMALL_SET:
                cost += _INNER_CAPITAL_LOGP
            elif a in _CAPITAL_SET:
                cost += _CAPS_LOGP
        prev = a.lower()[-1:] or " "
        for c in b.lower():
            lp = self._bi.get(prev + c)
            if lp is None:
                u = self._uni.get(c)
                if u is None:
                    u = self._uni[c] = self._logp(c, 0)
                lp = u + self._ctx.get(prev, 0.0)
            cost += lp
            prev = c
        return cost

    def score(self, text: str) -> float:
        """Log-likelihood of ``text`` (natural log), starting after a space."""
        uni = self._uni
        bi = self._bi
        ctx = self._ctx
        total = 0.0
        prev = " "
        low = text.lower()
        if low != text:  # capitals are scored as small letters, but cost for where they stand
            total += _INNER_CAPITAL_LOGP * len(_INNER_CAPITAL.findall(text))
            total += _CAPS_LOGP * len(_CAPS.findall(text))
        for c in low:
            lp = bi.get(prev + c)
            if lp is None:
                u = uni.get(c)
                if u is None:  # first sight of an unseen character: cache its back-off
                    u = uni[c] = self._logp(c, 0)
                lp = u + ctx.get(prev, 0.0)
            total += lp
            prev = c
        return total


class _ByteTable:
    """One single-byte candidate's :meth:`_Model.pair_cost` for every byte pair, filled on demand.

    A single-byte decoding maps each byte to one character, so the score of the decoded text is
    the sum over byte pairs of a fixed cost: one histogram of the sample's byte pairs, shared by
    all twenty single-byte candidates, and a dot product each, instead of a Python loop over the
    characters per candidate. Pairs not seen before are computed once and kept.
    """

    __slots__ = ("_chars", "_model", "_table")

    def __init__(self, codec: str, model: _Model) -> None:
        self._chars = [bytes([b]).decode(codec, "replace") for b in range(256)]
        self._model = model
        self._table = np.full(65536, np.nan)

    def score(self, pairs: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> float:
        values = self._table[pairs]
        missing = np.isnan(values)
        if missing.any():
            chars, cost = self._chars, self._model.pair_cost
            for pair in pairs[missing].tolist():
                self._table[pair] = cost(chars[pair >> 8], chars[pair & 0xFF])
            values = self._table[pairs]
        return float(values @ counts)


def _pair_histogram(sample: bytes) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct byte pairs of ``b" " + sample`` (as ``first * 256 + second``) and their counts."""
    arr = np.frombuffer(b" " + sample, dtype=np.uint8).astype(np.int64)
    counts = np.bincount(arr[:-1] * 256 + arr[1:], minlength=65536)
    pairs = np.flatnonzero(counts)
    return pairs, counts[pairs]


@functools.cache
def _byte_tables() -> dict[str, _ByteTable]:
    models = _models()
    return {
        codec: _ByteTable(codec, models[group])
        for _, codec, _, group, _ in _CANDIDATES
        if codecs.lookup(codec).name not in _MULTIBYTE
    }


# Codecs whose characters take more than one byte: scored character by character.
_MULTIBYTE = frozenset({"cp932", "euc_jp", "gb18030", "big5hkscs", "cp949", "johab"})


@functools.cache
def _models() -> dict[str, _Model]:
    raw = resources.files("trawl.decode").joinpath("detect_models.json.gz").read_bytes()
    spec = json.loads(gzip.decompress(raw))
    return {name: _Model(group) for name, group in spec["groups"].items()}


_ASCII_RUN = re.compile(rb"[\x00-\x7f]{10,}")


def _collapse(m: re.Match[bytes]) -> bytes:
    # The run's first byte may be the trail byte of a double-byte character; its last bytes are
    # the context of the next non-ASCII character. The middle carries no evidence.
    run = m.group()
    return run[:4] + b" " + run[-4:]


def _sample(data: bytes) -> bytes:
    """Tag-stripped, ASCII-thinned bytes to score, ending at a byte that cannot be a trail byte."""
    head = data[:SCAN_BYTES]
    untagged = _TAG.sub(b" ", head)
    # all the non-ASCII bytes inside tags (a title attribute, a <meta> description): score those
    thin = _ASCII_RUN.sub(_collapse, head if untagged.isascii() else untagged)
    if len(thin) <= SAMPLE_BYTES:
        return thin
    cut = thin[:SAMPLE_BYTES]
    end = max(cut.rfind(b" "), cut.rfind(b"\n"))
    return cut[: end + 1] if end > SAMPLE_BYTES // 2 else cut


def _utf8_multibyte(data: bytes) -> int:
    """How many continuation bytes ``data`` has as UTF-8 (a cut last character forgiven); -1: not UTF-8."""
    head = data[:SCAN_BYTES]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data" or exc.end != len(head):
            return -1
        head = head[: exc.start]
        text = head.decode("utf-8")
    return len(head) - len(text)


def nul_pattern(data: bytes) -> str | None:
    """UTF-32/UTF-16 without a BOM, from where the zero (and surrogate) bytes are: a Python codec
    name (``utf-16-le``, ``utf-32-be``…) when the first 4096 bytes show the pattern and decode
    strictly (UTF-32 also to text without control characters), else ``None``. The one NUL-pattern
    test: the detector's first step, and step 5 of :func:`trawl.decode.charset.decode_document`."""
    n = min(len(data), 4096)
    if n < 4:
        return None
    n4, n2 = n // 4, n // 2
    if n4 >= 2 and data[3 : n4 * 4 : 4].count(0) == n4 and max(data[2 : n4 * 4 : 4]) <= 0x10:
        return "utf-32-le" if _plain_text(data[: n4 * 4], "utf-32-le") else None
    if n4 >= 2 and data[0 : n4 * 4 : 4].count(0) == n4 and max(data[1 : n4 * 4 : 4]) <= 0x10:
        return "utf-32-be" if _plain_text(data[: n4 * 4], "utf-32-be") else None
    # A UTF-16 code unit's high byte is 0 for ASCII-range text and D8-DF in a surrogate pair.
    marks = data[: n2 * 2].translate(_UTF16_HIGH)
    even, odd = marks[0::2].count(0), marks[1::2].count(0)
    for codec, high, low in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if (high >= 0.3 * n2 and low <= 0.05 * n2) or (high == n2 and low <= 0.5 * n2):
            try:
                data[: n2 * 2].decode(codec)
            except UnicodeDecodeError as exc:
                if exc.start < n2 * 2 - 2:  # a pair cut at the end is forgiven
                    continue
            return codec
    # Text of one alphabetic script (Cyrillic, Greek, Hebrew, Arabic...) has few zero bytes: its
    # spaces and punctuation. Its code units' high bytes are then the script's block and 0, so
    # one parity holds a few distinct values and the other never a zero.
    for codec, high_bytes, low_bytes in (
        ("utf-16-le", data[1 : n2 * 2 : 2], data[0 : n2 * 2 : 2]),
        ("utf-16-be", data[0 : n2 * 2 : 2], data[1 : n2 * 2 : 2]),
    ):
        if n2 < 16 or low_bytes.count(0) or high_bytes.count(0) < 0.05 * n2:
            continue
        top = sorted((high_bytes.count(b) for b in set(high_bytes)), reverse=True)[:3]
        if sum(top) >= 0.95 * n2 and _plain_text(data[: n2 * 2], codec):
            return codec
    return None


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _plain_text(data: bytes, codec: str) -> bool:
    """``data`` decodes strictly with ``codec`` to text without control characters."""
    try:
        return _CONTROLS.search(data.decode(codec)) is None
    except UnicodeDecodeError:
        return False


_UTF16_HIGH = bytes(0 if b == 0 or 0xD8 <= b <= 0xDF else 1 for b in range(256))
_ISO2022_JP = re.compile(rb"\x1b(?:\$[@B]|\$\(D|\([BJI])")


class ModelDetector:
    """trawl's detector: structure first, then trial decoding scored by character models."""

    name = "trawl"

    def detect(self, data: bytes) -> Detection | None:
        """Guess the encoding of ``data``; ``None`` for empty input."""
        if not data:
            return None
        data = bytes(data)
        for bom, enc in _BOMS:
            if data.startswith(bom):
                return Detection(enc, 1.0)
        wide = nul_pattern(data)
        if wide is not None:
            return Detection(wide, 0.95)
        if data.isascii():
            if b"\x1b" in data:
                if _ISO2022_JP.search(data):
                    return Detection("iso-2022-jp", 0.99)
                if b"\x1b$)C" in data:
                    return Detection("iso-2022-kr", 0.99)
            return Detection("ascii", 1.0, (("utf-8", 1.0), ("windows-1252", 1.0)))
        multibyte = _utf8_multibyte(data)
        if multibyte > 0:
            return Detection("utf-8", 1.0 - 0.5 * 0.1 ** min(multibyte, 6))
        return self._legacy(data)

    def _legacy(self, data: bytes) -> Detection:
        sample = _sample(data)
        models = _models()
        # A first pass on the head of the sample shortlists the candidates; only those are
        # scored on the whole sample. The head ends at a byte below 0x40, never a trail byte.
        cut = max(sample.rfind(b" ", 0, PROBE_BYTES), sample.rfind(b"\n", 0, PROBE_BYTES))
        probe = sample if len(sample) <= PROBE_BYTES or cut < PROBE_BYTES // 2 else sample[: cut + 1]
        tables = _byte_tables()

        def score_of(data: bytes, codec: str, group: str, histogram: _Histogram) -> float:
            table = tables.get(codec)
            if table is None:
                text = data.decode(codec, "replace")
                bad = text.count("\ufffd")
                if bad >= 3 and bad * 20 >= len(text):
                    # Not this multi-byte encoding: each invalid sequence costs more than a whole
                    # page of valid text could win back; skip the character-by-character scoring.
                    return -_IMPOSSIBLE * bad
                return models[group].score(text)
            if histogram.value is None:
                histogram.value = _pair_histogram(data)
            return table.score(*histogram.value)

        candidates = _CANDIDATES
        head = data[:SCAN_BYTES]
        if b"\n" in head and b"\r\n" not in head:  # Unix line ends: not a file DOS wrote
            candidates = tuple(c for c in _CANDIDATES if c[0] not in _DOS)
        if probe is not sample:
            probe_pairs = _Histogram()
            first = sorted(
                ((score_of(probe, c[1], c[3], probe_pairs) + c[4], i) for i, c in enumerate(candidates)),
                reverse=True,
            )
            if first[0][0] - first[1][0] > PROBE_MARGIN:
                # The head alone is decisive: scoring the rest cannot change the winner.
                name, _, strict, _, _ = candidates[first[0][1]]
                if strict is not None:
                    name = self._strict(data, name, strict)
                return _detection([(first[0][0], name)] + [(sc, candidates[i][0]) for sc, i in first[1:5]])
            candidates = tuple(candidates[i] for _, i in first[:SHORTLIST])
        sample_pairs = _Histogram()
        scored: dict[str, tuple[float, str]] = {}  # decoded text → (log-score, encoding)
        priors = _PRIORS
        for name, codec, strict, group, prior in candidates:
            text = sample.decode(codec, "replace")
            score = score_of(sample, codec, group, sample_pairs) + prior
            best = scored.get(text)
            if best is None:
                scored[text] = (score, name if strict is None else self._strict(data, name, strict))
            else:  # same characters: one hypothesis, named after the commoner encoding (the
                # models' scores of one text differ only by which language group read it)
                total = _logaddexp(best[0], score)
                scored[text] = (total, best[1] if priors[best[1]] >= prior else name)
        return _detection(sorted(scored.values(), reverse=True))

    @staticmethod
    def _strict(data: bytes, name: str, strict: str) -> str:
        # Decided on the whole head, not the sample: one NEC or HKSCS character anywhere needs
        # the superset codec. A character cut at the end of the head also picks the superset,
        # which reads everything the narrower codec reads.
        try:
            data[:SCAN_BYTES].decode(strict)
        except UnicodeDecodeError:
            return _SUPERSET[name]
        return name


def _detection(ranked: list[tuple[float, str]]) -> Detection:
    """(log-score, encoding) hypotheses, best first, as a detection with confidences."""
    # Model log-likelihoods are overconfident (the characters are not independent draws);
    # halving them gives confidences that track accuracy on the benchmark.
    top = ranked[0][0]
    weights = [math.exp((s - top) / 2.0) for s, _ in ranked]
    norm = sum(weights)
    probs = [(enc, w / norm) for (_, enc), w in zip(ranked, weights, strict=True)]
    return Detection(probs[0][0], round(probs[0][1], 4), tuple((e, round(p, 4)) for e, p in probs[1:5]))


class _Histogram:
    """A byte-pair histogram computed at most once per sample, when a single-byte candidate needs it."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None


def _logaddexp(a: float, b: float) -> float:
    hi, lo = max(a, b), min(a, b)
    return hi + math.log1p(math.exp(lo - hi))


_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_IMPOSSIBLE = 1e6  # the cost of an invalid multi-byte sequence when a candidate is ruled out
_JUNK_P = 1e-10  # undefined byte, C1 control, private use: nearly impossible in real text
_OTHER_P = 0.05 / 65536
_TYPO = frozenset("\u00a0“”‘’„‚«»‹›–—…•€")  # noqa: RUF001  # on purpose
_COMMON_TYPO_LOGP = math.log(1e-3)
_TYPO = frozenset(
    "\u00a0“”‘’„‚«»‹›–—…•·€£§©®°×¡¿№™"  # noqa: RUF001  # on purpose
    + "".join(map(chr, range(0x3000, 0x3020)))
    + "".join(map(chr, range(0xFF01, 0xFF5F)))
)
_TYPO_LOGP = math.log(1e-3)
# Signs of Latin-1 and Windows code pages that web text seldom uses: a floor, but a lower one
# (they are what CJK double bytes look like when read as single bytes).
_RARE_SIGNS = frozenset("¥±÷¢¤¦¨ª¬¯²³´µ¶¸¹º¼½¾†‡‰")  # noqa: RUF001  # on purpose
_RARE_SIGN_LOGP = math.log(2e-5)
_ASCII_LOGP = math.log(1.5e-3)
#: A capital right after a small letter (rare in any script), and one after a capital (all caps).
_INNER_CAPITAL_LOGP = -3.0
_CAPS_LOGP = -1.0
_SMALL = re.escape("".join(c for c in map(chr, range(0x2000)) if c.islower()))
_CAPITAL = re.escape("".join(c for c in map(chr, range(0x2000)) if c.isupper()))
_INNER_CAPITAL = re.compile(f"[{_SMALL}][{_CAPITAL}]")
_CAPS = re.compile(f"(?<=[{_CAPITAL}])[{_CAPITAL}]")
_SMALL_SET = frozenset(c for c in map(chr, range(0x2000)) if c.islower())
_CAPITAL_SET = frozenset(c for c in map(chr, range(0x2000)) if c.isupper())


@functools.cache
def default_detector() -> EncodingDetector:
    """The best detector available offline: trawl's own :class:`ModelDetector` (cached)."""
    return ModelDetector()


# -- peers, for the benchmark ----------------------------------------------------------------------


def _codec_name(label: str | None) -> str | None:
    if not label:
        return None
    try:
        return codecs.lookup(label).name.replace("_", "-")
    except LookupError:
        return label.lower()


class _DictDetector:
    """A peer whose ``detect(data)`` returns ``{"encoding": ..., "confidence": ...}``."""

    name = ""
    _detect: Any

    def detect(self, data: bytes) -> Detection | None:
        """The peer's guess, its codec name normalised."""
        if not data:
            return None
        res = self._detect(data)
        enc = _codec_name(res.get("encoding"))
        return None if enc is None else Detection(enc, float(res.get("confidence") or 0.0))


class ChardetDetector(_DictDetector):
    """`chardet <https://github.com/chardet/chardet>`_ (``pip install chardet``)."""

    name = "chardet"

    def __init__(self) -> None:
        import chardet  # noqa: PLC0415  # optional peer, imported when used

        self._detect = chardet.detect


class CChardetDetector(_DictDetector):
    """faust-cchardet (uchardet), ``pip install faust-cchardet``."""

    name = "cchardet"

    def __init__(self) -> None:
        import cchardet  # noqa: PLC0415  # optional peer, imported when used

        self._detect = cchardet.detect


class CharsetNormalizerDetector:
    """charset-normalizer, ``pip install charset-normalizer``; confidence is 1 - its chaos."""

    name = "charset-normalizer"

    def __init__(self) -> None:
        from charset_normalizer import from_bytes  # noqa: PLC0415  # optional peer

        self._from_bytes = from_bytes

    def detect(self, data: bytes) -> Detection | None:
        """charset-normalizer's best match, its codec name normalised."""
        if not data:
            return None
        best = self._from_bytes(data).best()
        if best is None:
            return None
        enc = _codec_name(best.encoding)
        return None if enc is None else Detection(enc, max(0.0, 1.0 - float(best.chaos)))
