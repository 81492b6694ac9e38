"""Statistical charset detection behind one interface: which encoding undeclared bytes are in.

:func:`default_detector` is trawl's own detector (:class:`ModelDetector`); the peers (chardet,
charset-normalizer, cchardet, chardetng) have adapters with the same protocol for the benchmark in
``bench/encoding_detect.py``. A detector answers a :class:`Detection` (a Python codec name, a
confidence and the runners-up) or ``None`` when it has no opinion (empty input).

How :class:`ModelDetector` decides, cheapest evidence first:

1. byte-order marks (UTF-32 before UTF-16, whose BOM is a prefix of UTF-32LE's);
2. NUL patterns: UTF-32 and UTF-16 without a BOM (ASCII-range text has a zero byte in every
   other / three of four positions);
3. ISO-2022 escape sequences in 7-bit data; pure ASCII is ``ascii``;
4. valid UTF-8 with multi-byte sequences is ``utf-8`` (a character cut at the very end is
   forgiven): other encodings almost never form valid UTF-8 by chance;
5. UTF-16 CJK text without a BOM or NULs, by the share of Han, kana and Hangul it reads as
   (:func:`utf16_shape`), when the character models find that reading likelier than every
   legacy one;
6. otherwise every legacy candidate is *trial-decoded* and the text scored by the character
   model of its script group (an interpolated bigram model over characters, trained on UDHR
   translations; see ``_build_detect_models.py``). Since decoding is one-to-one, the model's
   log-likelihood of the decoded text is the likelihood of the bytes under that encoding, so
   multi-byte and single-byte candidates are compared on the same footing. Unseen characters
   back off to the group's native repertoire (its alphabet, or the first-level hanzi/kanji/
   hangul of the national standard); undefined bytes, C1 controls and private-use characters
   cost almost as much as an impossible decoding. Printable ASCII has a floor, so that markup
   and Latin words around a short run of non-ASCII cost every group about the same. Text is
   scored in lower case, then capitals cost for where they stand: one right after a small letter
   (``длЯ``) much, one after a capital (all caps) a little; so do signs glued to a letter on a
   side where no language puts them (an opening low quote after a letter, ``§`` before one:
   where a Mac or DOS letter read as windows-125x typography lands) and a Greek, Cyrillic,
   Hebrew, Arabic or Thai letter against a Latin one.
7. the candidates close to the best are scored again by each *language* of their group (its
   own bigram counts, its unseen letters backing off to its alphabet and the group's counts),
   a uniform mixture: text is in one language, and the pooled counts of nineteen Western
   languages find a Spanish ``í`` as likely as an English apostrophe. In the Latin-script
   groups each language is also weighed by how well the page's ASCII words fit it, worth at
   most :data:`WORD_EVIDENCE_CAP` nats: the words around a short run of letters say whether
   ``0xE0`` is Lithuanian ``ą`` or French ``à``.

HTML tags are removed before scoring (``<`` and ``>`` are never trail bytes of the supported
multi-byte encodings), and at most :data:`SAMPLE_BYTES` bytes around non-ASCII bytes are scored,
so a 50 MB page costs as much as a 64 KB one.

The sample, the byte-pair sums and the multi-byte lookups run in C when the optional module
``trawl.decode._detect`` was built (:func:`compiled_detector_status`; ``TRAWL_PURE_PYTHON=1``
or ``ModelDetector(compiled=False)`` for the Python path): the same detections, bit for bit.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import json
import math
import os
import re
import threading
import unicodedata
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from trawl.decode._detect import Kernel

__all__ = [
    "CChardetDetector",
    "ChardetDetector",
    "ChardetngDetector",
    "CharsetNormalizerDetector",
    "Detection",
    "EncodingDetector",
    "ModelDetector",
    "compiled_detector_status",
    "default_detector",
    "nul_pattern",
    "utf16_shape",
]

#: Bytes of (tag-stripped) input scored by the model at most.
SAMPLE_BYTES = 4096
#: Bytes of the sample's head on which all candidates are scored, and how many go on.
PROBE_BYTES = 256
SHORTLIST = 3
#: A lead (natural log) of the best candidate on the head beyond which the rest is not scored.
PROBE_MARGIN = 20.0
#: Candidates within this many nats of the best are scored again by their group's languages.
MIX_MARGIN = 30.0
#: Bytes of the tag-stripped head whose ASCII words weigh the Latin-script languages.
WORD_BYTES = 4096
#: What the words can cost a language at most (nats), against the one they fit best: a verdict
#: on short text, never one that outweighs the letters of a whole page.
WORD_EVIDENCE_CAP = 10.0
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
    ("ibm850", "cp850", None, "western", -6.0),
    ("ibm437", "cp437", None, "western", -6.5),
    ("mac-iceland", "mac_iceland", None, "nordic", -7.0),
    ("iso-8859-10", "iso8859_10", None, "nordic", -4.0),
    ("iso-8859-14", "iso8859_14", None, "celtic", -4.0),
    ("windows-1250", "cp1250", None, "central", -0.5),
    ("iso-8859-2", "iso8859_2", None, "central", -1.0),
    ("ibm852", "cp852", None, "central", -6.0),
    ("mac-centeuro", "mac_latin2", None, "central", -7.0),
    ("iso-8859-16", "iso8859_16", None, "central", -3.0),
    ("iso-8859-3", "iso8859_3", None, "south", -3.0),
    ("windows-1257", "cp1257", None, "baltic", -2.0),
    ("iso-8859-13", "iso8859_13", None, "baltic", -2.5),
    ("iso-8859-4", "iso8859_4", None, "baltic", -3.5),
    ("ibm775", "cp775", None, "baltic", -6.0),
    ("windows-1254", "cp1254", None, "turkish", -1.0),
    ("iso-8859-9", "iso8859_9", None, "turkish", -1.5),
    ("ibm857", "cp857", None, "turkish", -6.0),
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
    ("cp737", "cp737", None, "greek", -6.0),
    ("mac-greek", "mac_greek", None, "greek", -7.0),
    ("windows-1255", "cp1255", None, "hebrew", 0.0),
    ("iso-8859-8", "iso8859_8", None, "hebrew", -1.0),
    ("ibm862", "cp862", None, "hebrew", -6.0),
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
# Given CR LF, their prior is -6 nats (one file in 400), not the web's -10: windows-125x letters
# read as DOS are capitals inside words, box drawing and Greek, which cost each far more than
# the four nats, so Windows text with CR LF is read as before (138 UDHR and Tatoeba documents
# in windows-125x and ISO-8859-2/15 with CR LF: the same answers at -6 and at -10), while a
# short DOS text's one letter (German "ü", Spanish "í") no longer loses to the prior.
_DOS = frozenset({"ibm437", "ibm850", "ibm852", "ibm775", "ibm857", "cp737", "ibm862"})
_UNIX_CANDIDATES = tuple(c for c in _CANDIDATES if c[0] not in _DOS)

# Each reported name's log prior (a superset's name has its standard's).
_PRIORS = {name: prior for name, _, _, _, prior in _CANDIDATES}

# The fallback of each strict report name when the bytes are not valid in the narrower codec.
_SUPERSET = {"shift_jis": "cp932", "big5": "big5hkscs", "euc-kr": "cp949", "tis-620": "cp874"}

_PRIORS |= {superset: _PRIORS[name] for name, superset in _SUPERSET.items()}

_TAG = re.compile(rb"<[!/?a-zA-Z][^<>]{0,2000}>")


class _Model:
    """An interpolated character-bigram model, scored on decoded text: a script group's (its
    languages' counts pooled), or one language's, whose unseen characters back off to its group's."""

    __slots__ = (
        "_alpha",
        "_bi",
        "_ctx",
        "_kana_p",
        "_native",
        "_native_p",
        "_parent",
        "_sorted",
        "_total",
        "_uni",
        "_uni_sorted",
    )

    def __init__(self, spec: dict[str, Any], native: str, parent: _Model | None = None) -> None:
        uni_cnt: dict[str, int] = spec["uni"]
        bi_cnt: dict[str, int] = spec["bi"]
        self._parent = parent
        self._sorted: (
            tuple[
                npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]
            ]
            | None
        ) = None
        self._uni_sorted: tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]] | None = None
        # A language's letters (its alphabet beyond ASCII), or a group's (its code pages' letters).
        if parent is not None:
            native = spec["alphabet"]
        self._native = frozenset(native)
        kana = sum(1 for c in native if 0x3040 <= ord(c) < 0x3100)
        # Kana are a third of Japanese text but a small part of its repertoire.
        self._kana_p = 0.25 / kana if kana else 0.0
        self._native_p = (0.35 if kana else 0.6) / max(1, len(native) - kana)
        total = sum(uni_cnt.values())
        # Dirichlet mass of the back-off distribution: large where the training text covers the
        # repertoire poorly (thousands of ideographs), small for alphabets. A language's own text
        # is a few thousand letters: a letter it never showed is rare in it, not impossible.
        if parent is not None:
            self._alpha = _LANG_ALPHA
        else:
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

    def unigram(self, c: str) -> float:
        """Log-probability of character ``c`` out of context (cached)."""
        u = self._uni.get(c)
        if u is None:
            u = self._uni[c] = self._logp(c, 0)
        return u

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
        if self._parent is not None:  # half the group's unigram, half the letters of the alphabet
            return 0.5 * math.exp(self._parent.unigram(c)) + (
                0.5 / len(self._native) if c in self._native else 0.0
            )
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
        cost = _context_cost(a, b)
        prev = a.lower()[-1:] or " "
        for c in b.lower():
            lp = self._bi.get(prev + c)
            if lp is None:
                lp = self.unigram(c) + self._ctx.get(prev, 0.0)
            cost += lp
            prev = c
        return cost

    def score(self, text: str, kernel: Kernel | None = None) -> float:
        """Log-likelihood of ``text`` (natural log), starting after a space: the sum of
        :meth:`pair_cost` over its adjacent pairs, looked up for all pairs at once (by the
        compiled ``kernel`` when given: the same values, summed by numpy in the same order)."""
        low = text.lower()
        bi_keys, bi_vals, ctx_keys, ctx_vals = self._arrays()
        uni = self._uni_sorted
        if kernel is not None and uni is not None:
            lp = np.empty(len(low))
            if kernel.char_costs(low, bi_keys, bi_vals, ctx_keys, ctx_vals, uni[0], uni[1], lp):
                return kernel.context_costs(text) + float(lp.sum()) if len(lp) else 0.0
            # a character without a unigram yet: the lookups below add it
        cps = np.frombuffer(low.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
        if not len(cps):
            return 0.0
        prev = np.empty_like(cps)
        prev[0] = 0x20
        prev[1:] = cps[:-1]
        keys = prev * _PAIR_BASE + cps
        lp = _lookup(bi_keys, bi_vals, keys, np.nan)
        miss = np.isnan(lp)
        if miss.any():
            lp[miss] = self._unigrams(cps[miss]) + _lookup(ctx_keys, ctx_vals, prev[miss], 0.0)
        return _context_costs(text) + float(lp.sum())

    def score_loop(self, text: str) -> float:
        """:meth:`score` one character at a time (the reference its lookups are tested against)."""
        total = _context_costs(text)
        prev = " "
        for c in text.lower():
            lp = self._bi.get(prev + c)
            if lp is None:
                lp = self.unigram(c) + self._ctx.get(prev, 0.0)
            total += lp
            prev = c
        return total

    def _arrays(
        self,
    ) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]
    ]:
        """The bigram and context tables as sorted code-point keys and values (made once)."""
        arrays = self._sorted
        if arrays is None:
            bi = sorted((ord(p[0]) * _PAIR_BASE + ord(p[1]), v) for p, v in self._bi.items())
            ctx = sorted((ord(c), v) for c, v in self._ctx.items())
            arrays = self._sorted = (
                np.array([k for k, _ in bi], dtype=np.int64),
                np.array([v for _, v in bi]),
                np.array([k for k, _ in ctx], dtype=np.int64),
                np.array([v for _, v in ctx]),
            )
        return arrays

    def _unigrams(self, cps: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """:meth:`unigram` of each code point; characters not seen before are added to the table."""
        table = self._uni_sorted
        if table is None:
            wanted = sorted({ord(c) for c in self._uni} | set(np.unique(cps).tolist()))
            keys, values = np.empty(0, dtype=np.int64), np.empty(0)
        else:
            found = _lookup(table[0], table[1], cps, np.nan)
            missing = np.isnan(found)
            if not missing.any():
                return found
            wanted = np.unique(cps[missing]).tolist()
            keys, values = table
        # merged into the sorted table, not sorted again whole: a page of CJK text meets new
        # characters on many calls, and the table of a CJK group has thousands
        keys = np.concatenate([keys, np.array(wanted, dtype=np.int64)])
        values = np.concatenate([values, np.array([self.unigram(chr(cp)) for cp in wanted])])
        order = np.argsort(keys, kind="stable")
        table = self._uni_sorted = (keys[order], values[order])
        return _lookup(table[0], table[1], cps, np.nan)


_PAIR_BASE = 0x110000  # a pair of code points as one integer key: first * base + second


def _lookup(
    keys: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    wanted: npt.NDArray[np.int64],
    default: float,
) -> npt.NDArray[np.float64]:
    """``values`` at the positions of ``wanted`` in the sorted ``keys``; ``default`` where absent."""
    if not len(keys):
        return np.full(len(wanted), default)
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[at] == wanted, values[at], default)


def _context_cost(a: str, b: str) -> float:
    """What the pair ``a b`` costs beyond its characters' model probability: a capital right
    after a small letter (``длЯ``), or after a capital (all caps); a sign or an opening mark
    glued to a letter on a side where it never stands (``d\u201aclar\u201a``, ``Š§igen``); a letter of an
    alphabetic non-Latin script against a Latin one (``โl``)."""
    cost = 0.0
    if b in _CAPITAL_SET:
        if a in _SMALL_SET:
            cost += _INNER_CAPITAL_LOGP
        elif a in _CAPITAL_SET:
            cost += _CAPS_LOGP
    if b in _NOT_AFTER_LETTER and a.isalpha():
        cost += _MISPLACED_LOGP
    if a in _NOT_BEFORE_LETTER and b.isalpha():
        cost += _MISPLACED_LOGP
    if (a in _LATIN_LETTERS and b in _NON_LATIN_LETTERS) or (a in _NON_LATIN_LETTERS and b in _LATIN_LETTERS):
        cost += _SCRIPT_MIX_LOGP
    return cost


def _context_costs(text: str) -> float:
    """The sum of :func:`_context_cost` over the adjacent pairs of ``text`` (after a space)."""
    if text.isascii():
        return _INNER_CAPITAL_LOGP * len(_INNER_CAPITAL.findall(text)) + _CAPS_LOGP * len(_CAPS.findall(text))
    misplaced = 0
    for m in _MISPLACED.finditer(text):
        i = m.start()
        c = text[i]
        if c in _NOT_AFTER_LETTER and i and text[i - 1].isalpha():
            misplaced += 1
        if c in _NOT_BEFORE_LETTER and i + 1 < len(text) and text[i + 1].isalpha():
            misplaced += 1
    return (
        _INNER_CAPITAL_LOGP * len(_INNER_CAPITAL.findall(text))
        + _CAPS_LOGP * len(_CAPS.findall(text))
        + _MISPLACED_LOGP * misplaced
        + (_SCRIPT_MIX_LOGP * len(_SCRIPT_MIX.findall(text)) if _NON_LATIN_BLOCKS.search(text) else 0.0)
    )


class _TableStack:
    """:meth:`_Model.pair_cost` of every byte pair for each single-byte (codec, model), filled
    on demand, one column each of one array.

    A single-byte decoding maps each byte to one character, so the score of the decoded text is
    the sum over byte pairs of a fixed cost: one histogram of the sample's byte pairs, shared by
    every single-byte candidate and language, and one gather and product for all of them,
    instead of a Python loop over the characters per candidate. Pairs not seen before are
    computed once and kept; rows are made when a (codec, model) is first scored. The costs are
    kept as float16 (to 0.01 nats where they matter; the sums are float64): a row is 128 KB, and
    the gather moves half the bytes. A "row" (a codec under a model) is a column of the array,
    which is a row per byte pair: the candidates scored together were made together, so a pair's
    costs under all of them are a cache line or two, not one line per candidate.
    """

    _GROW = 16

    def __init__(self) -> None:
        self._values = np.full((65536, 0), np.nan, dtype=np.float16)
        self._chars: list[list[str]] = []
        self._models: list[_Model] = []
        self._lock = threading.Lock()

    def add(self, codec: str, model: _Model) -> int:
        """A new row for ``codec`` decoded and scored by ``model``; its index."""
        with self._lock:
            row = len(self._models)
            if row == self._values.shape[1]:
                grown = np.full((65536, row + self._GROW), np.nan, dtype=np.float16)
                grown[:, :row] = self._values
                self._values = grown
            self._chars.append([bytes([b]).decode(codec, "replace") for b in range(256)])
            self._models.append(model)
            return row

    def scores(
        self,
        rows: npt.NDArray[np.int64],
        sample: bytes,
        kernel: Kernel | None = None,
        histogram: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The score of ``sample`` (its byte-pair ``histogram``, :func:`_pair_histogram`, when
        already made) under each row of ``rows``.

        The sums are exact, so the same in any order (numpy's product here, the compiled
        ``kernel``'s loop): a float16 cost is a whole multiple of 2^-24 below 2^16 in magnitude, and
        a count below 2^13, so every product and partial sum is a multiple of 2^-24 below 2^29,
        which float64's 53 bits hold. Samples have fewer than ``_EXACT_PAIRS`` pairs."""
        if kernel is not None:
            out = np.empty(len(rows))
            if kernel.pair_scores(self._values.view(np.uint16), rows, sample, out):
                return out
            # a pair not scored yet under some row: filled below, then compiled again
        pairs, counts = _pair_histogram(sample) if histogram is None else histogram
        values = self._values
        block = values[pairs[:, None], rows]
        missing = np.isnan(block)
        if missing.any():
            for j, i in zip(*np.nonzero(missing), strict=True):
                row, pair = int(rows[i]), int(pairs[j])
                chars = self._chars[row]
                cost = self._models[row].pair_cost(chars[pair >> 8], chars[pair & 0xFF])
                block[j, i] = values[pair, row] = max(cost, _FLOAT16_MIN)
        return np.asarray(counts.astype(np.float64) @ block, dtype=np.float64)


#: Byte pairs a sample has at most for :meth:`_TableStack.scores` to be exact (the sample and the
#: space before it: SAMPLE_BYTES + 1 at most).
_EXACT_PAIRS = 1 << 13
_FLOAT16_MIN = -65504.0  # a cost below it would be -inf as float16 (none is near: about -40 at most)


def _pair_histogram(sample: bytes) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct byte pairs of ``b" " + sample`` (as ``first * 256 + second``) and their counts."""
    arr = np.frombuffer(b" " + sample, dtype=np.uint8).astype(np.int64)
    pairs, counts = np.unique(arr[:-1] * 256 + arr[1:], return_counts=True)
    return pairs, counts


@functools.cache
def _stack() -> _TableStack:
    return _TableStack()


@functools.cache
def _pooled_row(codec: str, group: str) -> int:
    """The row of a single-byte ``codec`` under its group's pooled model."""
    return _stack().add(codec, _models()[group])


@functools.cache
def _language_rows(codec: str, group: str) -> npt.NDArray[np.int64]:
    """The rows of a single-byte ``codec`` under each language model of ``group``."""
    stack = _stack()
    return np.array([stack.add(codec, model) for _, model in _language_models(group)], dtype=np.int64)


# Codecs whose characters take more than one byte: scored character by character.
_MULTIBYTE = frozenset({"cp932", "euc_jp", "gb18030", "big5hkscs", "cp949", "johab"})


@functools.cache
def _spec() -> dict[str, Any]:
    raw = resources.files("trawl.decode").joinpath("detect_models.json.gz").read_bytes()
    spec: dict[str, Any] = json.loads(gzip.decompress(raw))
    return spec


@functools.cache
def _models() -> dict[str, _Model]:
    return {name: _Model(group, group["native"]) for name, group in _spec()["groups"].items()}


@functools.cache
def _language_models(group: str) -> tuple[tuple[str, _Model], ...]:
    """Each language of ``group`` and its model (the group's own for a group of one language)."""
    spec = _spec()
    names: list[str] = spec["groups"][group]["langs"]
    parent = _models()[group]
    if len(names) < 2:
        return ((names[0], parent),)
    native = spec["groups"][group]["native"]
    return tuple((name, _Model(spec["langs"][name], native, parent)) for name in names)


# The groups of the Latin script, whose languages the ASCII words tell apart.
_LATIN_GROUPS = ("western", "nordic", "celtic", "central", "south", "baltic", "turkish", "vietnamese")


@functools.cache
def _word_table() -> npt.NDArray[np.float64]:
    """Each Latin-script language's cost of every pair of the words' 27 symbols (a-z, space), one
    row a language, the languages in the order of :data:`_LATIN_GROUPS` and their members."""
    symbols = " abcdefghijklmnopqrstuvwxyz"
    models = [model for group in _LATIN_GROUPS for _, model in _language_models(group)]
    return np.array([[model.pair_cost(a, b) for a in symbols for b in symbols] for model in models])


def _word_evidence(words: bytes) -> dict[str, npt.NDArray[np.float64]]:
    """For each Latin-script group, what its languages' fit to the ASCII ``words`` is worth:
    0 for the language that fits best, down to -:data:`WORD_EVIDENCE_CAP`."""
    if len(words) - words.count(b" ") < 3:
        return {}
    # 27 symbols (a-z and the space): a small histogram, one product with every language's table
    codes = _WORD_CODE[np.frombuffer(b" " + words, dtype=np.uint8)]
    counts = np.bincount(codes[:-1] * 27 + codes[1:], minlength=729)
    counts[0] = 0  # a space after a space: what stood between words, not a word
    scored = _word_table() @ counts.astype(np.float64)
    worth = np.maximum(scored - scored.max(), -WORD_EVIDENCE_CAP)
    out: dict[str, npt.NDArray[np.float64]] = {}
    start = 0
    for group in _LATIN_GROUPS:
        n = len(_language_models(group))
        out[group] = worth[start : start + n]
        start += n
    return out


_ASCII_RUN = re.compile(rb"[\x00-\x7f]{10,}")


def _collapse(m: re.Match[bytes]) -> bytes:
    # The run's first byte may be the trail byte of a double-byte character; its last bytes are
    # the context of the next non-ASCII character. The middle carries no evidence.
    run = m.group()
    return run[:4] + b" " + run[-4:]


def _sample(data: bytes, kernel: Kernel | None = None) -> tuple[bytes, bytes]:
    """Tag-stripped, ASCII-thinned bytes to score, ending at a byte that cannot be a trail byte;
    and the ASCII words of the tag-stripped head (lower case, spaces between), which say
    which Latin-script language the text is in whatever its encoding. The compiled ``kernel``
    strips and thins as the regular expressions do, byte for byte."""
    # The first 8 KB give a full sample for most pages; more of the head only when not, as much
    # as the first 8 KB's yield says it takes.
    size = SCAN_BYTES // 32
    while True:
        head = data[:size]
        if kernel is not None:
            untagged = kernel.untag(head)
        else:
            untagged = _TAG.sub(b" ", head) if b"<" in head else head
        # all the non-ASCII bytes inside tags (a title attribute, a <meta> description): score those
        thick = head if untagged.isascii() else untagged
        thin = kernel.thin(thick) if kernel is not None else _ASCII_RUN.sub(_collapse, thick)
        if len(thin) > SAMPLE_BYTES + 1024 or len(head) < size or size >= SCAN_BYTES:
            break
        size = min(SCAN_BYTES, max(2 * size, size * (SAMPLE_BYTES + 1024) * 5 // (4 * len(thin) + 1)))
    words = untagged[:WORD_BYTES].translate(_WORD_LETTERS)
    if len(thin) <= SAMPLE_BYTES:
        return thin, words
    cut = thin[:SAMPLE_BYTES]
    end = max(cut.rfind(b" "), cut.rfind(b"\n"))
    return (cut[: end + 1] if end > SAMPLE_BYTES // 2 else cut), words


# ASCII letters in lower case, every other byte a space.
_WORD_LETTERS = bytes(b | 0x20 if 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A else 0x20 for b in range(256))
# The words' bytes (space, a-z) as 0-26.
_WORD_CODE = np.zeros(256, dtype=np.int64)
_WORD_CODE[np.frombuffer(b" abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)] = np.arange(27)


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


def utf16_shape(data: bytes) -> str | None:
    """UTF-16 CJK text without a BOM or NULs: ``utf-16-le``/``utf-16-be``, else ``None``.

    Han, kana and Hangul in UTF-16 have no NUL bytes, so :func:`nul_pattern` misses them and a
    multi-byte detector reads them as GB18030 garbage. Read in the right byte order, nearly every
    character is Han, kana, Hangul, CJK or full-width punctuation, or ASCII; legacy CJK bytes read
    as UTF-16 land about half the time in surrogates, private use, Yi or compatibility blocks, and
    ASCII text read as UTF-16 has no bytes above 0x7F (a tenth of them are required). Bytes that
    are also valid in a legacy CJK encoding (Shift_JIS kana read as UTF-16BE are Han; UTF-16BE
    kana, ``0x30 0x6B``, are ASCII and half-width katakana in Shift_JIS) are read both ways by the
    CJK character models, and the likelier reading wins. Used by the detector and by
    :func:`trawl.decode.charset.decode_document`.
    """
    return _utf16_shape(data, _compiled())


def _whole_units(sample: bytes, name: str) -> bytes:
    """``sample`` without a last code unit that is a high surrogate (an astral character the
    cut at :data:`_UTF16_SHAPE_BYTES` split in two), in byte order ``name``."""
    if len(sample) >= 2:
        unit = sample[-2:] if name == "utf-16-be" else sample[-1:-3:-1]
        if 0xD8 <= unit[0] <= 0xDB:
            return sample[:-2]
    return sample


def _utf16_shape(data: bytes, kernel: Kernel | None) -> str | None:
    sample = data[: min(len(data), _UTF16_SHAPE_BYTES) & ~1]
    head = sample[:4096]
    if len(sample) < 16 or len(head.translate(None, _ASCII_BYTES)) < len(head) // 10:
        return None
    # Half the characters CJK: half the high bytes of one parity in the CJK blocks' rows.
    half = len(head) // 4
    if all(len(head[i::2].translate(None, _NOT_CJK_ROWS)) < half for i in (0, 1)):
        return None
    best: tuple[float, str] | None = None
    for name in ("utf-16-le", "utf-16-be"):
        try:
            text = _whole_units(sample, name).decode(name)
        except UnicodeDecodeError:
            continue
        # how many characters are Han, kana, Hangul or full-width, and how many neither that nor
        # printable ASCII: one table lookup a character (astral ones are neither)
        kinds = np.bincount(
            _UTF16_KIND[np.minimum(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32), 0xFFFF)],
            minlength=3,
        )
        cjk, other = int(kinds[_CJK_UNIT]), int(kinds[_OTHER_UNIT])
        share = (cjk / len(text)) if text else 0.0
        if cjk >= 6 and share >= 0.5 and other <= len(text) * 0.02 and (best is None or share > best[0]):
            best = (share, name)
    if best is None:
        return None
    # The bytes may also be a legacy encoding's: KOI8 letters read as UTF-16 are Hangul, and
    # Shift_JIS kana are Han. Each reading is scored by its character model on the same bytes.
    models = _models()
    probe = sample[:_UTF16_PROBE_BYTES]
    wide = probe.decode(best[1], "replace")
    as_wide = max(models[group].score(wide, kernel) for _, group in _CJK_LEGACY) + _UTF16_PRIOR
    plan = _plan(_CANDIDATES)
    rivals = _stack().scores(plan.rows, probe, kernel) + plan.priors[plan.single]
    if rivals.max() >= as_wide:
        return None
    for _, codec, _, group, prior in _CANDIDATES:
        if codec not in _MULTIBYTE:
            continue
        try:
            sample.decode(codec)
        except UnicodeDecodeError:
            continue
        # valid throughout: only a character cut at the probe's end is left out
        if models[group].score(probe.decode(codec, "ignore"), kernel) + prior >= as_wide:
            return None
    return best[1]


_CJK_LEGACY = (
    ("shift_jis", "japanese"),
    ("euc_jp", "japanese"),
    ("gbk", "zh_hans"),
    ("big5", "zh_hant"),
    ("euc_kr", "korean"),
)
_UTF16_PROBE_BYTES = 2048
_UTF16_SHAPE_BYTES = 16384
_UTF16_PRIOR = -3.0  # UTF-16 without a byte-order mark is rare: Windows writes one
_ASCII_BYTES = bytes(range(0x80))
# Bytes that are not the high byte of a Han, kana, Hangul or full-width character in UTF-16.
_NOT_CJK_ROWS = bytes(
    b for b in range(256) if not (b in (0x30, 0xFF) or 0x4E <= b <= 0x9F or 0xAC <= b <= 0xD7)
)
# The kind of each BMP character for utf16_shape: Han, kana, Hangul, CJK or full-width punctuation;
# printable ASCII; anything else (0xFFFF, where astral characters are counted, is that).
_OTHER_UNIT, _CJK_UNIT, _PLAIN_UNIT = 0, 1, 2
_UTF16_KIND = np.zeros(0x10000, dtype=np.uint8)
for _lo, _hi in ((0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x3000, 0x30FF), (0xFF01, 0xFF9F)):
    _UTF16_KIND[_lo : _hi + 1] = _CJK_UNIT
del _lo, _hi
_UTF16_KIND[0x20:0x7F] = _PLAIN_UNIT
_UTF16_KIND[[0x09, 0x0A, 0x0D]] = _PLAIN_UNIT
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _plain_text(data: bytes, codec: str) -> bool:
    """``data`` decodes strictly with ``codec`` to text without control characters."""
    try:
        return _CONTROLS.search(data.decode(codec)) is None
    except UnicodeDecodeError:
        return False


_UTF16_HIGH = bytes(0 if b == 0 or 0xD8 <= b <= 0xDF else 1 for b in range(256))
_ISO2022_JP = re.compile(rb"\x1b(?:\$[@B]|\$\(D|\([BJI])")


class _Evidence:
    """:func:`_word_evidence` of a page's words, worked out when a Latin-script candidate first needs it."""

    __slots__ = ("_value", "_words")

    def __init__(self, words: bytes) -> None:
        self._words = words
        self._value: dict[str, npt.NDArray[np.float64]] | None = None

    def get(self, group: str) -> npt.NDArray[np.float64] | None:
        if group not in _LATIN_GROUPS:
            return None
        if self._value is None:
            self._value = _word_evidence(self._words)
        return self._value.get(group)


_Candidate = tuple[str, str, str | None, str, float]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What :func:`_rank` needs of a tuple of candidates, worked out once per tuple."""

    single: npt.NDArray[np.int64]  # the single-byte candidates' positions
    rows: npt.NDArray[np.int64]  # their rows of the table stack, under their groups' pooled models
    multibyte: tuple[tuple[int, str, str], ...]  # (position, codec, group) of the others
    priors: npt.NDArray[np.float64]
    mixable: frozenset[int]  # single-byte candidates of a group of several languages
    latin: frozenset[int]  # candidates of a Latin-script group


@functools.lru_cache(maxsize=4096)
def _plan(candidates: tuple[_Candidate, ...]) -> _Plan:
    single = [i for i, c in enumerate(candidates) if c[1] not in _MULTIBYTE]
    return _Plan(
        np.array(single, dtype=np.int64),
        np.array([_pooled_row(candidates[i][1], candidates[i][3]) for i in single], dtype=np.int64),
        tuple((i, c[1], c[3]) for i, c in enumerate(candidates) if c[1] in _MULTIBYTE),
        np.array([c[4] for c in candidates]),
        frozenset(i for i in single if len(_language_models(candidates[i][3])) > 1),
        frozenset(i for i, c in enumerate(candidates) if c[3] in _LATIN_GROUPS),
    )


def _rank(
    data: bytes, candidates: tuple[_Candidate, ...], evidence: _Evidence, kernel: Kernel | None = None
) -> npt.NDArray[np.float64]:
    """Each candidate's log-score for ``data``: its group's pooled model, then, for those within
    :data:`MIX_MARGIN` of the best, its group's languages, plus its prior."""
    models = _models()
    stack = _stack()
    plan = _plan(candidates)
    pooled = np.empty(len(candidates))
    histogram = None if kernel is not None else _pair_histogram(data)
    pooled[plan.single] = stack.scores(plan.rows, data, kernel, histogram)
    for i, codec, group in plan.multibyte:
        text = data.decode(codec, "replace")
        bad = text.count("\ufffd")
        # Not this multi-byte encoding: each invalid sequence costs more than a whole page
        # of valid text could win back; skip the character-by-character scoring.
        pooled[i] = (
            -_IMPOSSIBLE * bad if bad >= 3 and bad * 20 >= len(text) else models[group].score(text, kernel)
        )
    priors = plan.priors
    total = pooled + priors
    # The group's languages against each other, each weighed by how well the page's ASCII words
    # fit it (Latin-script groups): text is in one language, and the pooled counts let an
    # English word's curly apostrophe lose to a Spanish "í".
    near = np.flatnonzero(total > total.max() - MIX_MARGIN).tolist()
    mixed = [i for i in near if i in plan.mixable]
    for i in near:
        if i not in plan.mixable and i in plan.latin:
            weights = evidence.get(candidates[i][3])
            if weights is not None:
                total[i] += weights[0]
    if mixed:
        lang_rows = [_language_rows(candidates[i][1], candidates[i][3]) for i in mixed]
        own = stack.scores(np.concatenate(lang_rows), data, kernel, histogram)
        start = 0
        for i, r in zip(mixed, lang_rows, strict=True):
            scores = own[start : start + len(r)]
            start += len(r)
            weights = evidence.get(candidates[i][3])
            if weights is not None:
                scores = scores + weights
            top = scores.max()
            total[i] = top + math.log(float(np.exp(scores - top).mean())) + priors[i]
    return np.asarray(total, dtype=np.float64)


class ModelDetector:
    """trawl's detector: structure first, then trial decoding scored by character models."""

    name = "trawl"

    def __init__(self, *, compiled: bool | None = None) -> None:
        """``compiled`` chooses the scoring: the compiled kernel (:mod:`trawl.decode._detect`)
        when it was built (the default, ``None``), or the Python one (``False``); both give the
        same detections (see :func:`compiled_detector_status`)."""
        self._kernel = None if compiled is False else _compiled()
        if compiled and self._kernel is None:
            raise RuntimeError(f"the compiled detector kernel is not available: {compiled_detector_status()}")

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
        wide = _utf16_shape(data[:SCAN_BYTES], self._kernel)
        if wide is not None:
            return Detection(wide, 0.9)
        return self._legacy(data)

    def _legacy(self, data: bytes) -> Detection:
        kernel = self._kernel
        sample, words = _sample(data, kernel)
        evidence = _Evidence(words)
        # A first pass on the head of the sample shortlists the candidates; only those are
        # scored on the whole sample. The head ends at a byte below 0x40, never a trail byte.
        cut = max(sample.rfind(b" ", 0, PROBE_BYTES), sample.rfind(b"\n", 0, PROBE_BYTES))
        probe = sample if len(sample) <= PROBE_BYTES or cut < PROBE_BYTES // 2 else sample[: cut + 1]
        candidates = _CANDIDATES
        head = data[:SCAN_BYTES]
        if b"\n" in head and b"\r\n" not in head:  # Unix line ends: not a file DOS wrote
            candidates = _UNIX_CANDIDATES
        if probe is not sample:
            first = sorted(
                zip(_rank(probe, candidates, evidence, kernel).tolist(), range(len(candidates)), strict=True),
                reverse=True,
            )
            if first[0][0] - first[1][0] > PROBE_MARGIN:
                # The head alone is decisive: scoring the rest cannot change the winner.
                name, _, strict, _, _ = candidates[first[0][1]]
                if strict is not None:
                    name = self._strict(data, name, strict)
                return _detection([(first[0][0], name)] + [(sc, candidates[i][0]) for sc, i in first[1:5]])
            candidates = tuple(candidates[i] for _, i in first[:SHORTLIST])
        # decoded text → (log-score, encoding, the log-score of the reading it is named after)
        scored: dict[str, tuple[float, str, float]] = {}
        for (name, codec, strict, _, _), score in zip(
            candidates, _rank(sample, candidates, evidence, kernel).tolist(), strict=True
        ):
            text = sample.decode(codec, "replace")
            known = scored.get(text)
            if known is None or score > known[2]:
                named = name if strict is None else self._strict(data, name, strict)
            if known is None:
                scored[text] = (score, named, score)
            else:  # same characters: one hypothesis, named after the likelier reading (the
                # commoner encoding of a group, or the group whose language it is: an English
                # apostrophe in Mac Roman is mac-roman, though Mac Cyrillic has it too)
                total = _logaddexp(known[0], score)
                scored[text] = (total, named, score) if score > known[2] else (total, known[1], known[2])
        return _detection(sorted(((sc, name) for sc, name, _ in scored.values()), reverse=True))

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
#: A language's own counts: how much of its unigram mass backs off to its group's.
_LANG_ALPHA = 200.0
#: A capital right after a small letter (rare in any script), and one after a capital (all caps).
_INNER_CAPITAL_LOGP = -3.0
_CAPS_LOGP = -1.0
_SMALL = re.escape("".join(c for c in map(chr, range(0x2000)) if c.islower()))
_CAPITAL = re.escape("".join(c for c in map(chr, range(0x2000)) if c.isupper()))
_INNER_CAPITAL = re.compile(f"[{_SMALL}][{_CAPITAL}]")
_CAPS = re.compile(f"(?<=[{_CAPITAL}])[{_CAPITAL}]")
_SMALL_SET = frozenset(c for c in map(chr, range(0x2000)) if c.islower())
_CAPITAL_SET = frozenset(c for c in map(chr, range(0x2000)) if c.isupper())
# Where signs and punctuation stand against letters, in every language (chardetng's classes of
# the same name): opening marks and signs that precede a number never follow a letter; signs
# that follow a number, closing superscripts and marks of a list never precede one. The
# typography of windows-125x (0x80-0x9F) is ordinary text; read as one of those signs, a Mac or
# DOS letter lands inside a word ("d\u201aclar\u201a" is "déclaré" in IBM850), which costs it.
_NOT_AFTER_LETTER = frozenset("„‚¿¡•€£¥¢©°§¶±×÷¬¦¨¯¸¤¼½¾†‡‰")  # noqa: RUF001  # on purpose
_NOT_BEFORE_LETTER = frozenset("•€£¥¢§¶±×÷¬¦¨¯¸¤¼½¾¹²³™®©†‡‰")  # noqa: RUF001  # on purpose
_MISPLACED_LOGP = -6.0
_MISPLACED = re.compile(f"[{re.escape(''.join(sorted(_NOT_AFTER_LETTER | _NOT_BEFORE_LETTER)))}]")
# A letter of an alphabetic non-Latin script (Greek to Thai) glued to a Latin one: rare in real
# text, common in a wrong decoding (chardetng's Latin adjacency penalty).
_LATIN_LETTERS = frozenset(
    c for c in map(chr, range(0x250)) if c.isalpha() and (c.isascii() or ord(c) >= 0xC0)
)
_NON_LATIN_LETTERS = frozenset(c for c in map(chr, range(0x370, 0xE80)) if c.isalpha())
_SCRIPT_MIX_LOGP = -3.0
_NON_LATIN_BLOCKS = re.compile("[\u0370-\u0e7f]")
_LATIN_CLASS = re.escape("".join(sorted(_LATIN_LETTERS)))
_NON_LATIN_CLASS = re.escape("".join(sorted(_NON_LATIN_LETTERS)))
_SCRIPT_MIX = re.compile(f"(?=[{_LATIN_CLASS}][{_NON_LATIN_CLASS}]|[{_NON_LATIN_CLASS}][{_LATIN_CLASS}])")


# -- the compiled kernel ---------------------------------------------------------------------------

# The character classes of _context_costs, one byte of flags per code point for the kernel.
_SMALL_BIT, _CAPITAL_BIT, _LATIN_BIT, _NON_LATIN_BIT = 1, 2, 4, 8
_NOT_AFTER_BIT, _NOT_BEFORE_BIT, _NON_LATIN_BLOCK_BIT = 16, 32, 64


def _char_classes() -> bytes:
    sets = (
        (_SMALL_SET, _SMALL_BIT),
        (_CAPITAL_SET, _CAPITAL_BIT),
        (_LATIN_LETTERS, _LATIN_BIT),
        (_NON_LATIN_LETTERS, _NON_LATIN_BIT),
        (_NOT_AFTER_LETTER, _NOT_AFTER_BIT),
        (_NOT_BEFORE_LETTER, _NOT_BEFORE_BIT),
        (frozenset(map(chr, range(0x370, 0xE80))), _NON_LATIN_BLOCK_BIT),  # _NON_LATIN_BLOCKS
    )
    flags = bytearray(1 + max(ord(c) for chars, _ in sets for c in chars))
    for chars, bit in sets:
        for c in chars:
            flags[ord(c)] |= bit
    return bytes(flags)


class _CompiledKernel:
    lock = threading.Lock()
    state = "unloaded"
    kernel: Kernel | None = None


def _compiled() -> Kernel | None:
    """The compiled kernel when it was built, else None; ``TRAWL_PURE_PYTHON=1`` always says None."""
    if _CompiledKernel.state == "unloaded":
        with _CompiledKernel.lock:
            if _CompiledKernel.state == "unloaded":
                _CompiledKernel.state = _load_compiled()
    return _CompiledKernel.kernel


def _load_compiled() -> str:
    if os.environ.get("TRAWL_PURE_PYTHON"):
        return "disabled by TRAWL_PURE_PYTHON"
    try:
        from trawl.decode import _detect  # noqa: PLC0415 - optional: built on install when it can be
    except ImportError as exc:
        return f"not built ({exc})"
    if getattr(_detect, "VERSION", None) != _KERNEL_VERSION:  # built from an older _detect.pyx
        return "stale build, rebuild it with pip install -e ."
    _CompiledKernel.kernel = _detect.Kernel(
        _char_classes(), _INNER_CAPITAL_LOGP, _CAPS_LOGP, _MISPLACED_LOGP, _SCRIPT_MIX_LOGP
    )
    return "ready"


#: The interface of ``_detect.pyx`` this module calls: a build that reports another is not used.
_KERNEL_VERSION = 1


def compiled_detector_status() -> str:
    """``ready`` when :class:`ModelDetector` scores with the compiled kernel
    (:mod:`trawl.decode._detect`: the sample's regular expressions, the byte-pair sums and the
    multi-byte lookups in C, the same results), else why it does not."""
    _compiled()
    return _CompiledKernel.state


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


# WHATWG names Python's codec registry does not know.
_WHATWG_CODECS = {"x-mac-cyrillic": "mac-cyrillic", "windows-874": "cp874", "iso-8859-8-i": "iso8859-8"}


class ChardetngDetector:
    """chardetng, Firefox's detector (``pip install chardetng-py``), UTF-8 allowed; WHATWG names
    mapped to Python's codecs. It leaves UTF-16 to the byte-order mark, as browsers do."""

    name = "chardetng"

    def __init__(self) -> None:
        # optional peer, imported when used; it ships no type information
        from chardetng_py import detect  # type: ignore[import-untyped]  # noqa: PLC0415

        self._detect = detect

    def detect(self, data: bytes) -> Detection | None:
        """chardetng's guess (it gives no confidence: 1.0)."""
        if not data:
            return None
        label = str(self._detect(data, allow_utf8=True)).lower()
        enc = _codec_name(_WHATWG_CODECS.get(label, label))
        return None if enc is None else Detection(enc, 1.0)
