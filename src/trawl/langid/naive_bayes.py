"""A multinomial naive-Bayes language model over character n-grams 1–5.

Each language is a bag of the n-grams of :mod:`trawl.langid.ngrams` (the same tokens and
padding as Cavnar & Trenkle), one distribution per n-gram length with add-α smoothing. The
log-probability of a seen n-gram minus that of an unseen one is ``log((c + α) / α)``, which
depends on the count alone, so the model stores only the counts as a sparse matrix
(n-gram × language): a text's score for every language is one gather and one ``bincount``
over its n-grams, plus the unseen-n-gram log-probability times the number of n-grams of each
length. That is fast enough for tens of thousands of short texts a second and small enough to
ship (the counts compress to a few MB).

A language may have several classes, one per script it was trained in (Bosnian, Serbian,
Malay, Uzbek… have a Latin and a Cyrillic or Arabic UDHR file): in one pooled distribution the
other script's n-grams take half the probability mass, so every Latin n-gram of Bosnian looked
half as likely as Croatian's. A language's score is that of its best class.
"""

# ruff: noqa: RUF002, RUF003 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import io
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from trawl.langid.ngrams import MAX_N, ngrams, normalise, text_words, words

__all__ = ["ORDERS", "Evidence", "NaiveBayesModel", "count_features", "feature_kind", "features"]

FloatArray = npt.NDArray[np.float64]

#: Feature kinds, each with its own distribution: n-grams of length 1..5, then whole words.
ORDERS = MAX_N + 1
_WORD_MARK = "\x01"


def feature_kind(feature: str) -> int:
    """The distribution a feature belongs to: 0..4 for n-grams of length 1..5, 5 for words."""
    return MAX_N if feature[0] == _WORD_MARK else len(feature) - 1


_order = feature_kind


def features(text: str) -> Counter[str]:
    """The n-grams of ``text`` and its words longer than three letters (shorter words are
    already whole among the padded 5-grams)."""
    counts: Counter[str] = Counter()
    for w in words(normalise(text)):
        counts.update(ngrams(w))
        if len(w) > 3:
            counts[_WORD_MARK + w] += 1
    return counts


def count_features(texts: Iterable[str]) -> Counter[str]:
    """All features of ``texts`` with their counts."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(features(text))
    return counts


def _kinds_of_lines(text: str) -> npt.NDArray[np.int64]:
    """How many lines of ``text`` (features, one a line) are of each :func:`feature_kind`."""
    if not text:
        return np.zeros(ORDERS, dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    ends = np.flatnonzero(codes == 10)
    starts = np.concatenate(([0], ends + 1))
    stops = np.concatenate((ends, [len(codes)]))
    kinds = np.where(codes[starts] == ord(_WORD_MARK), MAX_N, stops - starts - 1)
    return np.bincount(kinds, minlength=ORDERS)


class Evidence(NamedTuple):
    """What :meth:`NaiveBayesModel.evidence` finds in one text."""

    scores: FloatArray
    n: int
    seen: FloatArray
    n_long: int


@dataclass
class NaiveBayesModel:
    """Counts of n-grams per class, with what scoring needs precomputed.

    ``vocab`` maps an n-gram to its row; ``indptr``/``langs``/``counts`` are the rows in CSR
    form (``langs`` holds class indices); ``totals[k, c]`` is the number of features of kind k
    (length k+1, or words) seen for class ``c``; ``class_of[c]`` is the index in ``labels`` of
    the language class ``c`` belongs to (None: one class per language, in ``labels`` order).
    """

    labels: list[str]
    vocab: dict[str, int]
    indptr: npt.NDArray[np.int64]
    langs: npt.NDArray[np.int32]
    counts: npt.NDArray[np.float64]
    totals: FloatArray
    alpha: float = 0.5
    class_of: npt.NDArray[np.int64] | None = None
    #: the vocabulary as the shipped file holds it, one n-gram a line in row order: a model read
    #: from a file keeps only this (``vocab`` empty) until the numpy path needs the dict, since
    #: building 740,000 strings and a dict of them is most of a worker's start-up and the
    #: compiled kernel hashes the lines itself
    vocab_text: str | None = None

    def __post_init__(self) -> None:
        if self.class_of is None:
            self.class_of = np.arange(len(self.labels), dtype=np.int64)
        members: dict[int, list[int]] = {}
        for c, li in enumerate(self.class_of.tolist()):
            members.setdefault(li, []).append(c)
        self._first = np.array([members[li][0] for li in range(len(self.labels))], dtype=np.int64)
        self._several = [(li, np.array(cs)) for li, cs in members.items() if len(cs) > 1]
        lengths = np.zeros(ORDERS, dtype=np.float64)
        if self.vocab_text is not None and not self.vocab:  # kinds from the lines, in C (bincount)
            lengths = _kinds_of_lines(self.vocab_text).astype(np.float64)
        for gram in self.vocab:
            lengths[_order(gram)] += 1
        # log P(unseen n-gram of length n | language l), and log((c + α) / α) per stored count
        self.unseen: FloatArray = np.log(self.alpha / (self.totals + self.alpha * lengths[:, None]))
        self.delta: FloatArray = np.log((self.counts + self.alpha) / self.alpha)
        self._kernel: Any = None  # the compiled evidence (trawl.langid._nb), made on first use
        self._kernel_state = "unloaded"

    @classmethod
    def train(
        cls,
        texts: Mapping[str, Sequence[str]],
        alpha: float = 0.5,
        min_count: int = 1,
        label_of: Mapping[str, str] | None = None,
    ) -> NaiveBayesModel:
        """Count the n-grams of each class's texts; n-grams seen fewer than ``min_count``
        times in a class are dropped from it (they then score as unseen). ``label_of`` maps a
        class to its language (default: each key of ``texts`` is a language)."""
        classes = sorted(texts)
        of = label_of or {c: c for c in classes}
        labels = sorted({of[c] for c in classes})
        index = {label: i for i, label in enumerate(labels)}
        class_of = np.array([index[of[c]] for c in classes], dtype=np.int64)
        per_lang = [count_features(texts[c]) for c in classes]
        totals = np.zeros((ORDERS, len(classes)), dtype=np.float64)
        rows: dict[str, list[tuple[int, int]]] = {}
        for li, counts in enumerate(per_lang):
            for gram, c in counts.items():
                totals[_order(gram), li] += c
                if c >= min_count:
                    rows.setdefault(gram, []).append((li, c))
        vocab = {gram: i for i, gram in enumerate(sorted(rows))}
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        langs: list[int] = []
        cnts: list[int] = []
        for i, gram in enumerate(vocab):
            for li, c in rows[gram]:
                langs.append(li)
                cnts.append(c)
            indptr[i + 1] = len(langs)
        return cls(
            labels,
            vocab,
            indptr,
            np.array(langs, dtype=np.int32),
            np.array(cnts, dtype=np.float64),
            totals,
            alpha,
            class_of,
        )

    def log_likelihoods(self, text: str) -> tuple[FloatArray, int]:
        """log P(text | language) for every label, and the number of features it rests on."""
        ev = self.evidence(text)
        return ev.scores, ev.n

    def evidence(self, text: str) -> Evidence:
        """Log-likelihoods, the feature count, and per language how many of the text's n-grams
        of length ≥ 3 it has seen (``seen / n_long`` is the coverage that tells an unsupported
        language or gibberish from a supported one). A language with several classes gets the
        scores and coverage of its best."""
        ev = self._class_evidence(text)
        if not self._several:
            return ev
        scores, seen = ev.scores[self._first], ev.seen[self._first]
        for li, cs in self._several:
            best = cs[int(np.argmax(ev.scores[cs]))]
            scores[li], seen[li] = ev.scores[best], ev.seen[best]
        return Evidence(scores, ev.n, seen, ev.n_long)

    def kernel_status(self) -> str:
        """``ready`` when :meth:`evidence` runs in C (:mod:`trawl.langid._nb`), else why not."""
        self._compiled()
        return self._kernel_state

    def _compiled(self) -> Any:
        if self._kernel_state == "unloaded":
            self._kernel_state = "ready"
            if os.environ.get("TRAWL_PURE_PYTHON"):
                self._kernel_state = "disabled by TRAWL_PURE_PYTHON"
            else:
                try:
                    from trawl.langid import _nb  # noqa: PLC0415 - optional: built on install when it can be

                    self._kernel = _nb.Kernel(
                        self.vocab_text
                        if self.vocab_text is not None and not self.vocab
                        else list(self.vocab),
                        np.ascontiguousarray(self.indptr, dtype=np.int64),
                        np.ascontiguousarray(self.langs, dtype=np.int32),
                        np.ascontiguousarray(self.delta, dtype=np.float64),
                        len(self.totals[0]),
                    )
                except (ImportError, ValueError, MemoryError) as exc:
                    self._kernel_state = f"not used ({type(exc).__name__}: {exc})"
        return self._kernel

    def _class_evidence(self, text: str) -> Evidence:
        kernel = self._compiled()
        if kernel is not None:
            return self._compiled_evidence(kernel, text)
        return self._numpy_evidence(text)

    def _compiled_evidence(self, kernel: Any, text: str) -> Evidence:
        """:meth:`_numpy_evidence` in one C pass, with the same sums in the same order."""
        labels = len(self.totals[0])
        gathered = np.zeros(labels)
        seen = np.zeros(labels)
        per_length = np.zeros(ORDERS)
        n, n_long, known = kernel.evidence(text_words(text), gathered, seen, per_length)
        if not n:
            return Evidence(np.zeros(labels), 0, np.zeros(labels), 0)
        scores: FloatArray = per_length @ self.unseen
        if known:
            scores = scores + gathered
        return Evidence(scores, n, seen, n_long)

    def _numpy_evidence(self, text: str) -> Evidence:
        """The reference: a ``Counter`` of the features, their rows gathered with numpy."""
        grams = features(text)
        labels = len(self.totals[0])
        if not grams:
            return Evidence(np.zeros(labels), 0, np.zeros(labels), 0)
        keys = list(grams)
        counts = np.fromiter(grams.values(), dtype=np.float64, count=len(keys))
        kinds = np.fromiter(
            (MAX_N if g[0] == _WORD_MARK else len(g) - 1 for g in keys), dtype=np.int64, count=len(keys)
        )
        per_length = np.bincount(kinds, weights=counts, minlength=ORDERS)
        n = int(counts.sum())
        scores: FloatArray = per_length @ self.unseen
        n_long = int(per_length[2:MAX_N].sum())
        get = self.vocabulary().get
        rows = np.fromiter((get(g, -1) for g in keys), dtype=np.int64, count=len(keys))
        known = rows >= 0
        seen = np.zeros(labels)
        if known.any():
            idx = rows[known]
            mult = counts[known]
            long_mult = np.where((kinds[known] >= 2) & (kinds[known] < MAX_N), mult, 0.0)
            starts, ends = self.indptr[idx], self.indptr[idx + 1]
            sizes = ends - starts
            total = int(sizes.sum())
            offsets = np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(total)
            langs = self.langs[offsets]
            weights = self.delta[offsets] * np.repeat(mult, sizes)
            scores = scores + np.bincount(langs, weights=weights, minlength=labels)
            seen = np.bincount(langs, weights=np.repeat(long_mult, sizes), minlength=labels).astype(
                np.float64
            )
        return Evidence(scores, n, seen, n_long)

    # -- persistence --------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The model as an ``.npz`` archive (compressed): labels, n-grams, CSR counts, totals."""
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            labels=np.array(self.labels),
            vocab=np.array("\n".join(self.vocabulary())),
            indptr=self.indptr.astype(np.int64),
            langs=self.langs.astype(np.uint16),
            counts=np.minimum(self.counts, 65535).astype(np.uint16),
            totals=self.totals,
            alpha=np.array(self.alpha),
            class_of=np.asarray(self.class_of, dtype=np.uint16),
        )
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> NaiveBayesModel:
        z = np.load(io.BytesIO(data))
        vocab_text = str(z["vocab"])
        return cls(
            [str(x) for x in z["labels"]],
            {},
            z["indptr"].astype(np.int64),
            z["langs"].astype(np.int32),
            z["counts"].astype(np.float64),
            z["totals"].astype(np.float64),
            float(z["alpha"]),
            z["class_of"].astype(np.int64) if "class_of" in z.files else None,
            vocab_text,
        )

    def vocabulary(self) -> dict[str, int]:
        """``vocab``, built from :attr:`vocab_text` the first time it is needed."""
        if not self.vocab and self.vocab_text:
            self.vocab = {g: i for i, g in enumerate(self.vocab_text.split("\n"))}
        return self.vocab
