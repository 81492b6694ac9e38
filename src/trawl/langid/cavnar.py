"""Cavnar & Trenkle (1994), "N-Gram-Based Text Categorization", exactly as the method is defined.

1. Tokens are runs of letters and apostrophes, lower-cased and padded with blanks
   (:mod:`trawl.langid.ngrams`); every n-gram of length 1–5 is counted.
2. A *profile* is the list of n-grams sorted by decreasing frequency (ties by the n-gram itself,
   so that a profile is reproducible), cut to the top :data:`PROFILE_SIZE` (300) for a language.
   The text's profile is cut the same way.
3. The *out-of-place* measure: for each n-gram of the text's profile, the absolute difference
   between its rank in the text and its rank in the language profile; an n-gram the language
   profile lacks adds the fixed maximum penalty, :data:`PROFILE_SIZE`.
4. The language with the smallest total distance wins.

:func:`distance_table` lays the computation out row by row, the way the method is taught.
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trawl.langid.ngrams import ngram_counts

__all__ = ["PROFILE_SIZE", "CavnarTrenkleModel", "TableRow", "distance_table", "profile"]

#: Profile length for languages and texts, and the penalty for an n-gram out of the profile.
PROFILE_SIZE = 300


def profile(counts: Counter[str], size: int = PROFILE_SIZE) -> list[str]:
    """N-grams by decreasing count, ties broken by the n-gram, the first ``size`` of them."""
    return [g for g, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:size]]


@dataclass(frozen=True, slots=True)
class TableRow:
    """One n-gram of the text: its rank there and, per language, its rank and what it adds."""

    ngram: str
    count: int
    text_rank: int
    ranks: dict[str, int | None]
    adds: dict[str, int]


class CavnarTrenkleModel:
    """Language profiles, indexed so that all distances for one text take one pass.

    ``profiles[label]`` is the ranked n-gram list of that language. Internally, every n-gram of
    any profile maps to the (language, rank) pairs that hold it, so a text's distances are
    ``penalty × size(text profile) − Σ (penalty − |rank difference|)`` over the pairs it hits.
    """

    def __init__(self, profiles: Mapping[str, Sequence[str]], size: int = PROFILE_SIZE) -> None:
        self.size = size
        self.labels = sorted(profiles)
        self.profiles = {label: list(profiles[label])[:size] for label in self.labels}
        pairs: dict[str, list[tuple[int, int]]] = {}
        for li, label in enumerate(self.labels):
            for rank, gram in enumerate(self.profiles[label]):
                pairs.setdefault(gram, []).append((li, rank))
        self._pairs = {
            g: (np.array([p[0] for p in v]), np.array([p[1] for p in v])) for g, v in pairs.items()
        }

    @classmethod
    def train(cls, texts: Mapping[str, Sequence[str]], size: int = PROFILE_SIZE) -> CavnarTrenkleModel:
        """Profiles of each language from its training texts."""
        out = {}
        for label, docs in texts.items():
            counts: Counter[str] = Counter()
            for doc in docs:
                counts.update(ngram_counts(doc))
            out[label] = profile(counts, size)
        return cls(out, size)

    def text_profile(self, text: str) -> tuple[list[str], Counter[str]]:
        counts = ngram_counts(text)
        return profile(counts, self.size), counts

    def distances(self, text: str) -> tuple[npt.NDArray[np.int64], int]:
        """Out-of-place distance of ``text`` to every language (``labels`` order), and the
        number of n-grams in the text's profile."""
        ranked, _ = self.text_profile(text)
        total = np.full(len(self.labels), self.size * len(ranked), dtype=np.int64)
        langs, gains = [], []
        for i, gram in enumerate(ranked):
            hit = self._pairs.get(gram)
            if hit is not None:  # present: it adds |rank difference| instead of the penalty
                langs.append(hit[0])
                gains.append(self.size - np.abs(hit[1] - i))
        if langs:
            total -= np.bincount(
                np.concatenate(langs), weights=np.concatenate(gains), minlength=len(total)
            ).astype(np.int64)
        return total, len(ranked)

    def rank_in(self, label: str, gram: str) -> int | None:
        try:
            return self.profiles[label].index(gram)
        except ValueError:
            return None


def distance_table(
    model: CavnarTrenkleModel, text: str, labels: Sequence[str]
) -> tuple[list[TableRow], dict[str, int], int]:
    """The out-of-place computation for ``text`` against ``labels``: one row per n-gram of the
    text's profile, the totals, and the number of distinct n-grams in the text."""
    ranked, counts = model.text_profile(text)
    index = {label: {g: r for r, g in enumerate(model.profiles[label])} for label in labels}
    rows = []
    totals = dict.fromkeys(labels, 0)
    for i, gram in enumerate(ranked):
        ranks: dict[str, int | None] = {}
        adds: dict[str, int] = {}
        for label in labels:
            r = index[label].get(gram)
            ranks[label] = r
            adds[label] = model.size if r is None else abs(r - i)
            totals[label] += adds[label]
        rows.append(TableRow(gram, counts[gram], i, ranks, adds))
    return rows, totals, len(counts)
