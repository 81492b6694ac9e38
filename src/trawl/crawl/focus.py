"""Focused crawling: score links by how likely they lead to pages on a topic.

A :class:`TopicScorer` holds an online linear classifier over words. It starts from the topic's
seed terms (weight 1) and learns from every fetched page: a page whose text holds the topic terms
densely is a positive example, one without them a negative, and the words of its anchor texts
and URL shift their weights accordingly (a perceptron-style update). A link's score combines its
own anchor text and URL words with the score of the page it was found on (topical pages link to
topical pages: Chakrabarti et al., *Focused crawling*, 1999). The score orders the frontier:
high scores are fetched first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

__all__ = ["TopicScorer", "words"]

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


class TopicScorer:
    """Scores in [0, 1]; 0.5 means "no evidence either way"."""

    def __init__(
        self, terms: Iterable[str], *, learning_rate: float = 0.05, max_features: int = 200_000
    ) -> None:
        self.terms = {t.lower() for t in terms if t.strip()}
        self.weights: dict[str, float] = dict.fromkeys(self.terms, 1.0)
        self.learning_rate = learning_rate
        self.max_features = max_features
        self.pages = 0
        self.relevant = 0

    def page_relevance(self, text: str) -> float:
        """How on-topic a fetched page is: topic-term density, squashed to [0, 1]."""
        tokens = words(text[:20000])
        if not tokens or not self.terms:
            return 0.0
        hits = sum(1 for w in tokens if w in self.terms)
        return 1 - math.exp(-200 * hits / len(tokens))

    def _raw(self, tokens: Iterable[str]) -> float:
        w = self.weights
        return sum(w.get(t, 0.0) for t in tokens)

    def link_score(self, anchor: str, url: str, parent_relevance: float) -> float:
        tokens = words(anchor) + words(url.split("//", 1)[-1])
        evidence = 1 / (1 + math.exp(-self._raw(tokens))) if tokens else 0.5
        return 0.6 * evidence + 0.4 * parent_relevance

    def learn(self, text: str, anchors: Iterable[str]) -> float:
        """Update the weights from one fetched page; returns its relevance."""
        relevance = self.page_relevance(text)
        self.pages += 1
        label = 1.0 if relevance >= 0.5 else -1.0
        self.relevant += label > 0
        tokens = {t for a in anchors for t in words(a)}
        if tokens:
            predicted = 1 / (1 + math.exp(-self._raw(tokens)))
            error = (label > 0) - predicted
            for t in tokens:
                if t in self.weights or len(self.weights) < self.max_features:
                    self.weights[t] = self.weights.get(t, 0.0) + self.learning_rate * error
        return relevance
