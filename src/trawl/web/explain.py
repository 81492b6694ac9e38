"""The explain pages of ``trawl serve``: the course's algorithms stepped through on any text.

Each function takes the request's parameters (strings, as a form sends them), checks and bounds
them, and returns a JSON-able dict computed by trawl's own code: UTF-8 bytes bit by bit,
Cavnar & Trenkle's out-of-place distance (:mod:`trawl.langid.cavnar`), word n-gram fingerprints
selected by 0 mod p and by winnowing (:mod:`trawl.dedup.fingerprint`), simhash word by word
(:mod:`trawl.dedup.simhash`) and the tag/token curve with the span BTE picks
(:mod:`trawl.extract.bte`). Bad parameters raise :class:`ExplainError` (a 400 with the message).

Simhash can reproduce Croft, Metzler & Strohman's worked example exactly: the word hashes are
given (``hashes=tropical:01100001,fish:10101011,...``), ``bits=8``; then only the words with a
given hash are features (the book drops the stop words "in", "the", "and") and V = 1 -5 9 -9 3
1 3 3, fingerprint 10101111.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from trawl.dedup.fingerprint import winnow
from trawl.dedup.hashing import normalize_words, shingle_hashes, word_hashes
from trawl.dedup.simhash import fingerprint_from_vector, simhash_vector
from trawl.extract.bte import body_text_extraction
from trawl.langid.cavnar import CavnarTrenkleModel, distance_table
from trawl.web.journey import curve_svg

__all__ = ["EXAMPLES", "EXPLAINERS", "MAX_TEXT", "ExplainError", "explain"]

#: characters of text an explanation reads at most
MAX_TEXT = 20_000
#: rows of any listed table at most (characters, n-grams, shingles, words, tokens)
MAX_ROWS = 500
#: points of the BTE curve plotted at most
CURVE_POINTS = 1000

_BOOK_HASHES = (
    "tropical:01100001,fish:10101011,include:11100110,found:00011110,environments:00101101,"
    "around:10001011,world:00101010,including:11000000,both:10101110,freshwater:00111111,"
    "salt:10110101,water:00100101,species:11101110"
)
#: each page's example input (the simhash one is the textbook's worked example)
EXAMPLES: dict[str, dict[str, str]] = {
    "utf8": {"text": "Aé€😀"},
    "cavnar": {
        "text": "This is a clear English sentence about the weather, which has been unusually warm this "
        "week, and the people who live here would like it to rain soon."
    },
    "fingerprint": {"text": "a rose is a rose is a rose by any other name would smell as sweet"},
    "simhash": {
        "text": "Tropical fish include fish found in tropical environments around the world, "
        "including both freshwater and salt water species",
        "bits": "8",
        "hashes": _BOOK_HASHES,
    },
    "bte": {
        "text": '<html><body><div class="nav"><a href="/">Home</a> <a href="/a">About</a> '
        '<a href="/n">News</a></div><div><p>The main article text is long and carries the '
        "words a reader came for, with very little markup between them.</p><p>A second "
        'paragraph adds more of the same plain prose.</p></div><div class="foot"><a href="/c">'
        'Contact</a> <a href="/t">Terms</a></div></body></html>'
    },
}


class ExplainError(ValueError):
    """A parameter of an explain page is missing, malformed or out of bounds."""


def _text(params: Mapping[str, str]) -> str:
    text = params.get("text", "")
    if len(text) > MAX_TEXT:
        raise ExplainError(f"text is {len(text):,} characters; the explain pages read at most {MAX_TEXT:,}")
    if not text.strip():
        raise ExplainError("text is empty: type or paste some text")
    return text


def _int(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = params.get(name, "").strip() or str(default)
    try:
        value = int(raw)
    except ValueError as exc:
        raise ExplainError(f"{name}={raw!r} is not a whole number") from exc
    if not low <= value <= high:
        raise ExplainError(f"{name}={value} is out of range: give {low} to {high}")
    return value


# -- UTF-8 --------------------------------------------------------------------------------------


def _prefix_len(byte: int) -> int:
    """Length of the marker bits of one UTF-8 byte: 0xxxxxxx 1, 10xxxxxx 2, 110xxxxx 3, ..."""
    n = 0
    while n < 8 and byte & (0x80 >> n):
        n += 1
    return n + 1 if n < 8 else 8


def utf8(params: Mapping[str, str]) -> dict[str, Any]:
    """Each character: code point, UTF-8 bytes in hex and bit by bit, prefix bits apart."""
    text = _text(params)
    rows = []
    for ch in text[:MAX_ROWS]:
        data = ch.encode("utf-8", "surrogatepass")
        bits = [format(b, "08b") for b in data]
        rows.append(
            {
                "char": ch,
                "codepoint": f"U+{ord(ch):04X}",
                "name": unicodedata.name(ch, ""),
                "hex": " ".join(f"{b:02X}" for b in data),
                "bits": " ".join(bits),
                "bytes": [
                    {"prefix": s[: _prefix_len(b)], "payload": s[_prefix_len(b) :]}
                    for b, s in zip(data, bits, strict=True)
                ],
                "payload": "".join(s[_prefix_len(b) :] for b, s in zip(data, bits, strict=True)),
            }
        )
    return {
        "characters": len(text),
        "bytes": len(text.encode("utf-8", "surrogatepass")),
        "rows": rows,
        "truncated": len(text) > MAX_ROWS,
    }


# -- Cavnar & Trenkle ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _cavnar_model() -> CavnarTrenkleModel:
    from trawl.langid.identify import load_cavnar_trenkle  # noqa: PLC0415 - only this page reads it

    return load_cavnar_trenkle()


def cavnar(params: Mapping[str, str]) -> dict[str, Any]:
    """The text's n-gram profile, its out-of-place distance to each shipped language profile
    (smallest first) and the per-n-gram contributions for the best language."""
    text = _text(params)
    top = _int(params, "top", 50, 1, MAX_ROWS)
    langs = _int(params, "langs", 10, 1, 100)
    model = _cavnar_model()
    distances, size = model.distances(text)
    if size == 0:
        raise ExplainError("the text has no words (runs of letters) to profile")
    order = sorted(range(len(model.labels)), key=lambda i: (int(distances[i]), model.labels[i]))
    ranking = [
        {"lang": model.labels[i], "distance": int(distances[i]), "max": model.size * size}
        for i in order[:langs]
    ]
    best = model.labels[order[0]]
    rows, totals, distinct = distance_table(model, text, [best])
    return {
        "profile_size": model.size,
        "text_profile": size,
        "distinct_ngrams": distinct,
        "languages": len(model.labels),
        "ranking": ranking,
        "best": best,
        "best_total": totals[best],
        "rows": [
            {
                "ngram": r.ngram,
                "count": r.count,
                "text_rank": r.text_rank,
                "lang_rank": r.ranks[best],
                "adds": r.adds[best],
            }
            for r in rows[:top]
        ],
        "truncated": len(rows) > top,
    }


# -- n-gram fingerprints ------------------------------------------------------------------------


def fingerprint(params: Mapping[str, str]) -> dict[str, Any]:
    """The word n-grams, their 64-bit hashes, those kept by 0 mod p and by winnowing (window w)."""
    text = _text(params)
    n = _int(params, "n", 3, 1, 20)
    p = _int(params, "p", 4, 1, 1 << 20)
    w = _int(params, "w", 4, 1, 100)
    words = normalize_words(text).split()
    if not words:
        raise ExplainError("the text has no words")
    hashes = shingle_hashes([text], n=n).of(0)
    positions, _ = winnow(hashes, w)
    winnowed = {int(k) for k in positions}
    rows = []
    for k, h in enumerate(hashes.tolist()):
        rows.append(
            {
                "position": k,
                "ngram": " ".join(words[k : k + n]),
                "hash": h,
                "hex": f"{h:016x}",
                "mod_p": h % p,
                "kept_mod_p": h % p == 0,
                "kept_winnow": k in winnowed,
            }
        )
    mod_p = sorted({r["hash"] for r in rows if r["kept_mod_p"]})
    win = sorted({r["hash"] for r in rows if r["kept_winnow"]})
    return {
        "n": n,
        "p": p,
        "w": w,
        "words": len(words),
        "ngrams": len(rows),
        "rows": rows[:MAX_ROWS],
        "truncated": len(rows) > MAX_ROWS,
        "mod_p": [f"{h:016x}" for h in mod_p],
        "winnow": [f"{h:016x}" for h in win],
        "guarantee": w + n - 1,
    }


# -- simhash ------------------------------------------------------------------------------------


def _pairs(raw: str, name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in raw.replace("\n", ",").split(","):
        if not part.strip():
            continue
        word, sep, value = part.partition(":")
        if not sep or not word.strip() or not value.strip():
            raise ExplainError(f"{name}: {part.strip()!r} is not word:value")
        out[normalize_words(word)] = value.strip()
    if len(out) > MAX_ROWS:
        raise ExplainError(f"{name}: {len(out)} words; at most {MAX_ROWS}")
    return out


def simhash(params: Mapping[str, str]) -> dict[str, Any]:
    """Charikar's simhash word by word: each word's weight (its frequency, or as given) and
    b-bit hash (the top b bits of trawl's word hash, or as given), V after each word, the bits."""
    text = _text(params)
    bits = _int(params, "bits", 64, 1, 64)
    given = _pairs(params.get("hashes", ""), "hashes")
    hashes: dict[str, int] = {}
    for word, value in given.items():
        if len(value) != bits or set(value) - {"0", "1"}:
            raise ExplainError(f"hashes: {word}:{value} is not {bits} binary digits")
        hashes[word] = int(value, 2)
    weights_given = {}
    for word, value in _pairs(params.get("weights", ""), "weights").items():
        try:
            weights_given[word] = float(value)
        except ValueError as exc:
            raise ExplainError(f"weights: {word}:{value} is not a number") from exc
    tf = Counter(normalize_words(text).split())
    if not tf:
        raise ExplainError("the text has no words")
    features = [w for w in tf if not given or w in hashes]  # first-occurrence order
    skipped = [w for w in tf if given and w not in hashes]
    if not features:
        raise ExplainError("no word of the text has a given hash")
    missing = [w for w in features if w not in hashes]
    if missing:  # trawl's own 64-bit word hash, cut to its top `bits` bits
        computed = word_hashes([" ".join(missing)]).hashes.tolist()
        hashes.update({w: h >> (64 - bits) for w, h in zip(missing, computed, strict=True)})
    weights = [weights_given.get(w, float(tf[w])) for w in features]
    hs = [hashes[w] for w in features]
    v = simhash_vector(hs, weights, bits)
    running = np.zeros(bits, dtype=np.float64)
    steps = []
    for word, h, weight in zip(features[:MAX_ROWS], hs, weights, strict=False):
        running += simhash_vector([h], [weight], bits)
        steps.append(
            {
                "word": word,
                "count": tf[word],
                "weight": _num(weight),
                "hash": format(h, f"0{bits}b"),
                "given": word in given,
                "v": [_num(x) for x in running],
            }
        )
    fp = fingerprint_from_vector(v)
    return {
        "bits": bits,
        "words": len(features),
        "skipped": skipped[:MAX_ROWS],
        "steps": steps,
        "truncated": len(features) > MAX_ROWS,
        "v": [_num(x) for x in v],
        "fingerprint": format(fp, f"0{bits}b"),
        "fingerprint_hex": f"{fp:0{(bits + 3) // 4}x}",
    }


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(float(x), 4)


# -- BTE ----------------------------------------------------------------------------------------


def bte(params: Mapping[str, str]) -> dict[str, Any]:
    """The page's tokens (tag 1, word 0), the cumulative tag curve with the span BTE chooses,
    and the text it extracts."""
    markup = _text(params)
    curve = body_text_extraction(markup)
    if not curve.tokens:
        raise ExplainError("the page has no tokens (tags or words) outside script, style and head")
    start, end = curve.spans[0]
    n = len(curve.tokens)
    if n + 1 <= CURVE_POINTS:
        points = [[k, v] for k, v in enumerate(curve.curve)]
    else:
        step = n / (CURVE_POINTS - 1)
        points = [[k, curve.curve[k]] for k in sorted({round(i * step) for i in range(CURVE_POINTS)})]
    tags = curve.curve[-1]
    before, inside = curve.curve[start], end - start - (curve.curve[end] - curve.curve[start])
    after = tags - curve.curve[end]
    return {
        "tokens": n,
        "tags": tags,
        "words": n - tags,
        "span": [start, end],
        "objective": {"tags_before": before, "words_inside": inside, "tags_after": after},
        "score": round(curve.score, 4),
        "sequence": "".join("1" if t[0] == "<" else "0" for t in curve.tokens[: MAX_ROWS * 8]),
        "token_rows": [
            {"k": k, "token": t[:80], "tag": t[0] == "<", "in_span": start <= k < end}
            for k, t in enumerate(curve.tokens[:MAX_ROWS])
        ],
        "truncated": n > MAX_ROWS,
        "curve": points,
        "svg": curve_svg(points, [("bte", start, end)], title="cumulative tag curve, BTE span shaded"),
        "text": curve.text,
    }


#: name → (title, function); the order of the index page
EXPLAINERS: dict[str, tuple[str, Callable[[Mapping[str, str]], dict[str, Any]]]] = {
    "utf8": ("UTF-8, bit by bit", utf8),
    "cavnar": ("Cavnar & Trenkle's n-gram profile distance", cavnar),
    "fingerprint": ("N-gram fingerprints: 0 mod p and winnowing", fingerprint),
    "simhash": ("Simhash, word by word", simhash),
    "bte": ("Body Text Extraction: the tag/token curve", bte),
}


def explain(name: str, params: Mapping[str, str]) -> dict[str, Any]:
    """The explanation ``name`` of ``params``; :class:`ExplainError` for an unknown name."""
    found = EXPLAINERS.get(name)
    if found is None:
        raise ExplainError(f"no explain page {name!r}: choose one of {', '.join(EXPLAINERS)}")
    out = found[1](params)
    return {"method": name, "title": found[0], **out}
