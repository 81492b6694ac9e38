"""A deterministic generator of near-duplicate families with known edit rates and known Jaccard.

Used by the benchmark (``bench/dedup.py``) and the quality gate (``tests/dedup``). Words come
from a synthetic vocabulary (pronounceable syllable strings) drawn with a Zipf law, so frequent
words repeat as in real text. Each *family* is a base document and a few variants; a variant
applies ``round(rate x length)`` random word edits (substitution, insertion or deletion, equally
likely) at a rate drawn from :data:`EDIT_RATES`. The truth — the Jaccard similarity of the word
n-gram sets of every pair in a family — is computed from tuples of the words themselves, not
from any hash, so it checks the hashing as well as the methods. Documents of different families
share no n-gram except by chance (their Jaccard is taken as 0).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

__all__ = ["EDIT_RATES", "Corpus", "TruePair", "generate", "ngram_jaccard", "short_documents", "vocabulary"]

#: Edit rates of the variants: 0 makes exact copies; 0.02-0.04 straddles Jaccard 0.8 for n = 5.
EDIT_RATES: tuple[float, ...] = (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.06, 0.1, 0.2)

_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["qu", "th", "sh", "ch"]


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """``size`` distinct pronounceable words, the same for the same seed."""
    rng = np.random.default_rng(seed)
    words: dict[str, None] = {}
    while len(words) < size:
        k = int(rng.integers(1, 5))
        words["".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), k))] = None
    return list(words)


def ngram_jaccard(a: list[str], b: list[str], n: int) -> float:
    """Jaccard of the word n-gram sets (a text shorter than n is one n-gram of all its words)."""

    def grams(w: list[str]) -> set[tuple[str, ...]]:
        if len(w) < n:
            return {tuple(w)} if w else set()
        return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}

    ga, gb = grams(a), grams(b)
    union = len(ga | gb)
    return len(ga & gb) / union if union else 0.0


@dataclass(slots=True, frozen=True)
class TruePair:
    a: int
    b: int
    jaccard: float
    rate: float  # the larger edit rate of the two documents


@dataclass
class Corpus:
    """Generated documents (as texts) with their family, edit rate and the true pairs."""

    texts: list[str] = field(default_factory=list)
    family: list[int] = field(default_factory=list)
    rate: list[float] = field(default_factory=list)
    pairs: list[TruePair] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [f"doc{i:07d}" for i in range(len(self.texts))]

    def positives(self, threshold: float) -> set[tuple[int, int]]:
        return {(p.a, p.b) for p in self.pairs if p.jaccard >= threshold}


class _Draws:
    """Random words and small integers drawn in bulk (one numpy call per 65,536 values)."""

    def __init__(self, rng: np.random.Generator, vocab: list[str], p: np.ndarray) -> None:
        self.rng, self.vocab, self.p = rng, vocab, p
        self._words: Iterator[int] = iter(())
        self._units: Iterator[float] = iter(())

    def word(self) -> str:
        try:
            return self.vocab[next(self._words)]
        except StopIteration:
            self._words = iter(self.rng.choice(len(self.vocab), size=1 << 16, p=self.p).tolist())
            return self.vocab[next(self._words)]

    def words(self, k: int) -> list[str]:
        return [self.word() for _ in range(k)]

    def below(self, k: int) -> int:
        """A uniform integer in [0, k)."""
        try:
            u = next(self._units)
        except StopIteration:
            self._units = iter(self.rng.random(1 << 16).tolist())
            u = next(self._units)
        return min(int(u * k), k - 1)


def _edit(words: list[str], rate: float, draws: _Draws) -> list[str]:
    out = list(words)
    for _ in range(round(rate * len(words))):
        op = draws.below(3)
        pos = draws.below(max(len(out), 1))
        if op == 0 and out:
            out[pos] = draws.word()
        elif op == 1:
            out.insert(pos, draws.word())
        elif out:
            del out[pos]
    return out


def generate(
    families: int,
    *,
    length: tuple[int, int] = (100, 400),
    variants: tuple[int, int] = (1, 3),
    singletons: int = 0,
    n: int = 5,
    seed: int = 42,
    vocab_size: int = 20_000,
    rates: tuple[float, ...] = EDIT_RATES,
    truth: bool = True,
) -> Corpus:
    """``families`` base documents with 1-3 variants each, plus ``singletons`` unrelated documents.

    Sentences are not modelled (words only, with a full stop every 8-20 words, so texts look
    like text to the normaliser). ``truth=False`` skips the Jaccard computation (large corpora).
    """
    rng = np.random.default_rng(seed)
    vocab = vocabulary(vocab_size)
    ranks = np.arange(1, vocab_size + 1, dtype=np.float64)
    p = ranks**-1.07
    p /= p.sum()
    corpus = Corpus()
    draws = _Draws(rng, vocab, p)

    def text(words: list[str]) -> str:
        parts = []
        i = 0
        while i < len(words):
            k = 8 + draws.below(13)
            parts.append(" ".join(words[i : i + k]) + ".")
            i += k
        return " ".join(parts)

    for fam in range(families):
        base = draws.words(length[0] + draws.below(length[1] - length[0] + 1))
        docs = [(base, 0.0)]
        for _ in range(variants[0] + draws.below(variants[1] - variants[0] + 1)):
            r = float(rates[draws.below(len(rates))])
            docs.append((_edit(base, r, draws), r))
        start = len(corpus.texts)
        for words, r in docs:
            corpus.texts.append(text(words))
            corpus.family.append(fam)
            corpus.rate.append(r)
        if truth:
            for (i, (wa, ra)), (j, (wb, rb)) in combinations(enumerate(docs), 2):
                corpus.pairs.append(TruePair(start + i, start + j, ngram_jaccard(wa, wb, n), max(ra, rb)))
    for k in range(singletons):
        corpus.texts.append(text(draws.words(length[0] + draws.below(length[1] - length[0] + 1))))
        corpus.family.append(families + k)
        corpus.rate.append(0.0)
    return corpus


def short_documents(count: int, seed: int = 3, truth: bool = False) -> Corpus:
    """``count`` short texts (20-60 words): half in pairs (a text and one edited copy), half unrelated."""
    fams = count // 4
    return generate(
        fams, length=(20, 60), variants=(1, 1), singletons=count - 2 * fams, seed=seed, truth=truth
    )
