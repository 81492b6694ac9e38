"""Word-level precision, recall and F1 of an extraction against the true main content.

Words are lower-cased ``\\w+`` runs compared as multisets (bags of words), as in the WCXB and
ScrapingHub article-extraction benchmarks: order is ignored, but repeating a menu word that the
content contains once counts as a false positive.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["Score", "mean_scores", "word_score", "words"]

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``."""
    return _WORD.findall(text.lower())


@dataclass(slots=True, frozen=True)
class Score:
    """Precision, recall and F1 of one extraction."""

    precision: float
    recall: float
    f1: float


def word_score(predicted: str, truth: str) -> Score:
    """Bag-of-words precision/recall/F1; an empty prediction of an empty truth is perfect."""
    p = Counter(words(predicted))
    t = Counter(words(truth))
    np_, nt = sum(p.values()), sum(t.values())
    if not np_ and not nt:
        return Score(1.0, 1.0, 1.0)
    if not np_ or not nt:
        return Score(0.0 if np_ else 1.0, 0.0 if nt else 1.0, 0.0)
    hit = sum((p & t).values())
    precision, recall = hit / np_, hit / nt
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    return Score(precision, recall, f1)


def mean_scores(scores: list[Score]) -> Score:
    """The per-page average (each page counts once, whatever its length)."""
    if not scores:
        return Score(0.0, 0.0, 0.0)
    n = len(scores)
    return Score(
        sum(s.precision for s in scores) / n,
        sum(s.recall for s in scores) / n,
        sum(s.f1 for s in scores) / n,
    )
