"""Focused crawling: judge fetched pages against a topic and fetch the links likeliest to lead to
more of it first (Chakrabarti, van den Berg & Dom, *Focused crawling*, 1999).

:class:`TopicModel` is a two-class multinomial naive Bayes over words: the **topic**, and the
**background**, the web as this crawl has seen it. The topic starts from the user's seed terms
(each counts :data:`TERM_COUNT` times) and example pages (their words), the background from
nothing; both learn from every fetched page, the background from all of them and the topic from
those judged on it (self-training, as the classic focused crawlers did). As a query-likelihood
model smooths a document toward its collection (Croft, Metzler & Strohman, ch. 7), the topic's
word distribution is smoothed toward the background's (a Dirichlet prior of :data:`MU` words),
and the background's toward an even spread over :data:`BACKGROUND_VOCABULARY` words (a prior of
:data:`BACKGROUND_PRIOR` words: before the crawl has seen the web every word is rare). So a word
says "topic" only as far as on-topic text uses it more than the web at large: the words every
page has ("the", a site's navigation) say little, and the log-likelihood ratio of a word is
``log P(w | topic) - log P(w | background)``.

* A page's **relevance** is the posterior P(topic | text): the prior log-odds :data:`PRIOR` (a
  topic is a small part of the web) plus the mean log-likelihood ratio of its words times at most
  :data:`PAGE_TOKENS` of them (long pages do not become certain by length alone).
* A link's **score** combines the evidence of its anchor text and its URL's words (at most
  :data:`LINK_TOKENS`) with the relevance of the page it was found on, since topical pages link
  to topical pages: ``LINK_WEIGHT`` x anchor evidence + (1 - ``LINK_WEIGHT``) x the parent's
  relevance. The score orders the frontier; below the crawl's threshold, once a few off-topic
  pages in a row led to it, the link is not followed at all (pruned, counted by its score).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "BACKGROUND_PRIOR",
    "BACKGROUND_VOCABULARY",
    "LINK_TOKENS",
    "LINK_WEIGHT",
    "MU",
    "PAGE_TOKENS",
    "PRIOR",
    "RELEVANT",
    "TERM_COUNT",
    "TopicModel",
    "read_examples",
    "words",
]

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
#: pseudo-occurrences of each seed term among the topic's words
TERM_COUNT = 5
#: Dirichlet prior of the topic's word distribution, in words of the background's
MU = 200.0
#: the background's prior: an even spread over this many words, weighing as this many words
BACKGROUND_VOCABULARY = 50_000
BACKGROUND_PRIOR = 100.0
#: prior log-odds that a page is on the topic (e^-2: about one page in eight): a page needs
#: evidence to count, and a few common words that on-topic pages also had are not enough
PRIOR = -2.0
#: a page's relevance rests on at most this many words' worth of evidence
PAGE_TOKENS = 50
#: a link's anchor and URL, on at most this many
LINK_TOKENS = 8
#: the share of a link's score its own words carry (the rest: the page it was found on)
LINK_WEIGHT = 0.6
#: a page this relevant counts as on topic (harvest rate; it teaches the topic)
RELEVANT = 0.5
#: characters of a page read
_MAX_CHARS = 20_000


def words(text: str) -> list[str]:
    """Lower-cased words of three letters or more."""
    return [w.lower() for w in _WORD.findall(text)]


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


class TopicModel:
    """The topic and the background as word counts (see the module docstring)."""

    def __init__(
        self, terms: Iterable[str] = (), examples: Iterable[str] = (), *, max_features: int = 200_000
    ) -> None:
        self.terms = tuple(dict.fromkeys(w for t in terms for w in words(t)))
        self.topic: Counter[str] = Counter()
        self.background: Counter[str] = Counter()
        self.topic_total = 0
        self.background_total = 0
        self.max_features = max_features
        self.examples = 0
        for term in self.terms:
            self.topic[term] += TERM_COUNT
            self.topic_total += TERM_COUNT
        for text in examples:
            tokens = words(text[:_MAX_CHARS])
            if tokens:
                self.topic_total += self._add(self.topic, tokens)
                self.examples += 1
        if not self.topic_total:
            raise ValueError("a topic needs at least one term or one example page with words")
        self.pages = 0
        self.relevant = 0

    def _add(self, counts: Counter[str], tokens: list[str]) -> int:
        """Count ``tokens`` into ``counts`` (new words only while there is room); how many."""
        room = len(counts) < self.max_features
        added = 0
        for w in tokens:
            if room or w in counts:
                counts[w] += 1
                added += 1
        return added

    def llr(self, word: str) -> float:
        """log P(word | topic) - log P(word | background)."""
        p_bg = (self.background.get(word, 0) + BACKGROUND_PRIOR / BACKGROUND_VOCABULARY) / (
            self.background_total + BACKGROUND_PRIOR
        )
        p_topic = (self.topic.get(word, 0) + MU * p_bg) / (self.topic_total + MU)
        return math.log(p_topic / p_bg)

    def evidence(self, tokens: list[str], cap: int, prior: float = 0.0) -> float:
        """P(topic) from ``tokens``, with at most ``cap`` words' worth of evidence, and the prior
        log-odds ``prior``; without a word, the prior alone."""
        if not tokens:
            return _sigmoid(prior)
        mean = sum(self.llr(w) for w in tokens) / len(tokens)
        return _sigmoid(prior + mean * min(len(tokens), cap))

    def relevance(self, text: str) -> float:
        """How on topic a page is: P(topic | its words); 0 for a page without words."""
        tokens = words(text[:_MAX_CHARS])
        return self.evidence(tokens, PAGE_TOKENS, PRIOR) if tokens else 0.0

    def link_score(self, anchor: str, url: str, parent_relevance: float) -> float:
        """How likely a link leads to a page on topic, in [0, 1]."""
        tokens = words(anchor) + words(url.split("//", 1)[-1])
        return LINK_WEIGHT * self.evidence(tokens, LINK_TOKENS) + (1 - LINK_WEIGHT) * parent_relevance

    def learn(self, text: str) -> float:
        """Judge one fetched page and learn from it; its relevance."""
        tokens = words(text[:_MAX_CHARS])
        relevance = self.evidence(tokens, PAGE_TOKENS, PRIOR) if tokens else 0.0
        self.pages += 1
        if relevance >= RELEVANT:
            self.relevant += 1
        if tokens:
            self.background_total += self._add(self.background, tokens)
            if relevance >= RELEVANT:
                self.topic_total += self._add(self.topic, tokens)
        return relevance

    @property
    def harvest_rate(self) -> float:
        """The share of judged pages on topic."""
        return self.relevant / self.pages if self.pages else 0.0


def read_examples(folder: Path, limit: int = 1000) -> list[str]:
    """The text of the example pages in ``folder`` (HTML or plain text, any encoding the decoder
    reads; at most ``limit`` files, in name order)."""
    from trawl.decode.charset import decode_html  # noqa: PLC0415 -- only for --focus-examples
    from trawl.extract import extract  # noqa: PLC0415

    if not folder.is_dir():
        raise FileNotFoundError(f"--focus-examples: {folder} is not a folder")
    texts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file())[:limit]:
        raw = path.read_bytes()
        markup = decode_html(raw).text
        if "<" in markup[:2000] and ">" in markup[:2000]:
            texts.append(extract(markup, None, metadata=False).text)
        else:
            texts.append(markup)
    return [t for t in texts if t.strip()]
