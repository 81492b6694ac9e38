"""Second opinions for close relatives: small discriminative models per pair of a group.

Bosnian, Croatian and Serbian (or Malay and Indonesian, Bokmål, Nynorsk and Danish) share most
of their n-grams, so naive Bayes, which adds up every n-gram's evidence, mostly adds up noise
when it has to choose between them. For every pair of a group, a logistic regression trained on
snippets of the two labels' training texts, over only the features whose frequencies differ
clearly between the two (:func:`distinguishing`: ``svatko``/``svako``, ``vrijeme``/``vreme``,
``članak``/``član``), learns the few differences; the pairs' log-probabilities, summed per label,
split the group's share. Training (:func:`train_group`, development time, needs SciPy) keeps
only the useful weights; scoring needs nothing beyond the standard library.
"""

# ruff: noqa: RUF002, RUF003 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.langid.corpus import snippet
from trawl.langid.naive_bayes import feature_kind, features
from trawl.langid.ngrams import normalise

__all__ = [
    "JAT",
    "SERBIAN_LATIN",
    "SPREAD",
    "GroupModel",
    "PairModel",
    "distinguishing",
    "marker_rates",
    "train_group",
    "train_pair",
]

#: Least spread (nats) between two labels' naive-Bayes log-probabilities of a feature for it to
#: be a feature of their pair model. Chosen on held-out text (bs/hr/sr/mk/bg at 20 / 100 / 400
#: characters): all features 61 / 82 / 92 %, spread 2 → 65 / 90 / 100 %, 2.5 → 66 / 91 / 100 %;
#: for nb/nn/da 57 / 80 / 98 %, 59 / 98 / 100 %, 55 / 87 / 100 %.
SPREAD = 2.0
#: A feature seen fewer times than this per text of each label is not used for it: a word used
#: twice in one translation's first half and never in the other's is mostly chance (Bosnian
#: ``-uje`` verb endings: 2 against 0 in the first halves, 13 against 12 in the second).
MIN_COUNT = 3
#: The jat reflex: ijekavian Bosnian and Croatian write ``ije``/``je`` where ekavian Serbian
#: writes ``e`` (``vrijeme``/``vreme``, ``djeca``/``deca``, ``mjesto``/``mesto``), read after
#: :data:`SERBIAN_LATIN`. About 9 per 1,000 characters in the Bosnian and Croatian first halves,
#: under 1 in the Serbian (loans such as ``teritorije``): a rate no single n-gram shows in a text
#: of a few hundred characters, and in a long Serbian text the *absence* of the reflex is the evidence.
JAT = r"(?<![cn])ije|(?<![a-zčćđšž])(?:dj|vj|mj|tj|sj|bj|pj|zj)e|(?<=[a-zčćđšž])[dvmtsbpz]je"
#: A pair uses the marker when one label's rate is at least this many times the other's.
MARKER_RATIO = 3.0
#: Add-α smoothing of the naive-Bayes estimates behind :func:`distinguishing`.
SPREAD_ALPHA = 0.5

#: Serbian/Bosnian Cyrillic → Gaj's Latin, letter for letter: the group model of bs/hr/sr reads
#: both scripts as one, so ijekavian ``dj``/``mj`` forms learnt from one script count in the other.
SERBIAN_LATIN = dict(zip(
    "абвгдђежзијклљмнњопрстћуфхцчџшАБВГДЂЕЖЗИЈКЛЉМНЊОПРСТЋУФХЦЧЏШ",
    ["a", "b", "v", "g", "d", "đ", "e", "ž", "z", "i", "j", "k", "l", "lj", "m", "n", "nj", "o", "p",
     "r", "s", "t", "ć", "u", "f", "h", "c", "č", "dž", "š"] * 2,
    strict=True,
))  # fmt: skip


@dataclass
class PairModel:
    """A logistic regression between two relatives: ``bias + Σ weights[f]`` over the features
    present is the log-odds of ``labels[0]`` against ``labels[1]``."""

    labels: tuple[str, str]
    weights: dict[str, float]
    bias: float
    #: how often the group's :data:`marker <GroupModel.marker>` occurs per character in each
    #: label's training text, and the weight the regression gave the Poisson log-likelihood
    #: ratio of the marker count (None: the two use it alike)
    rates: tuple[float, float] | None = None
    rate_weight: float = 0.0

    def marker_evidence(self, markers: int, chars: int) -> float:
        """Poisson log-likelihood ratio of ``markers`` occurrences in ``chars`` characters."""
        if self.rates is None:
            return 0.0
        ra, rb = self.rates
        return markers * math.log(ra / rb) - (ra - rb) * chars

    def log_odds(self, present: set[str], markers: int = 0, chars: int = 0) -> float:
        w = self.weights
        # the features both have, found by a set intersection in C (a set's order is arbitrary
        # anyway: so is the order of this sum)
        odds = self.bias + sum(w[f] for f in present & w.keys())
        if self.rates is not None:
            odds += self.rate_weight * self.marker_evidence(markers, chars)
        return odds


@dataclass
class GroupModel:
    """One :class:`PairModel` per pair of the group, coupled into probabilities.

    Each pair has its own features (those that tell *these two* apart): in one model for
    the whole group, features that only separate Bulgarian from the rest also took weights
    between Serbian and Bosnian, fitted to which sentences happen to be in which file.
    """

    labels: list[str]
    pairs: list[PairModel]
    translit: dict[str, str] | None = None
    #: a regular expression whose rate tells some pairs apart (:data:`JAT`), or None
    marker: str | None = None

    def __post_init__(self) -> None:
        self._table = str.maketrans(self.translit) if self.translit else None
        self._marker = re.compile(self.marker) if self.marker else None

    def probabilities(self, text: str, among: Collection[str] | None = None) -> dict[str, float]:
        """P(label | text, the text is one of ``among``, default the group): each label's
        log-probability of winning against each other one, summed and normalised."""
        if self._table is not None:
            text = text.translate(self._table)
        labels = [lab for lab in self.labels if among is None or lab in among]
        if len(labels) < 2:
            return dict.fromkeys(labels, 1.0)
        present = set(features(text))
        markers, chars = _markers(self._marker, text)
        z = dict.fromkeys(labels, 0.0)
        for pair in self.pairs:
            a, b = pair.labels
            if a in z and b in z:
                odds = pair.log_odds(present, markers, chars)
                z[a] -= math.log1p(math.exp(-odds)) if odds > -30 else -odds
                z[b] -= math.log1p(math.exp(odds)) if odds < 30 else odds
        peak = max(z.values())
        e = {lab: math.exp(v - peak) for lab, v in z.items()}
        total = sum(e.values())
        return {lab: v / total for lab, v in e.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            "translit": self.translit,
            "marker": self.marker,
            "labels": self.labels,
            "pairs": [
                {
                    "labels": list(p.labels),
                    "bias": round(p.bias, 4),
                    "weights": {f: round(x, 3) for f, x in p.weights.items()},
                    "rates": list(p.rates) if p.rates else None,
                    "rate_weight": p.rate_weight,
                }
                for p in self.pairs
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GroupModel:
        pairs = [
            PairModel(
                (p["labels"][0], p["labels"][1]),
                dict(p["weights"]),
                float(p["bias"]),
                (float(p["rates"][0]), float(p["rates"][1])) if p.get("rates") else None,
                float(p.get("rate_weight", 0.0)),
            )
            for p in data["pairs"]
        ]
        return cls(list(data["labels"]), pairs, data.get("translit"), data.get("marker"))

    def __repr__(self) -> str:
        return f"GroupModel({self.labels}, {sum(len(p.weights) for p in self.pairs)} features)"


def _markers(marker: re.Pattern[str] | None, text: str) -> tuple[int, int]:
    """Occurrences of ``marker`` in ``text`` (already transliterated) and its length."""
    if marker is None:
        return 0, 0
    low = normalise(text)
    return len(marker.findall(low)), len(low)


def marker_rates(
    texts: Mapping[str, Sequence[str]], marker: str, translit: dict[str, str] | None = None
) -> dict[str, float]:
    """Occurrences of ``marker`` per character in each label's texts (half an occurrence added,
    so that a label never seen to use it keeps a small rate)."""
    table = str.maketrans(translit) if translit else None
    pattern = re.compile(marker)
    out = {}
    for label, items in texts.items():
        found = chars = 0
        for text in items:
            k, n = _markers(pattern, text.translate(table) if table else text)
            found, chars = found + k, chars + n
        out[label] = (found + 0.5) / max(chars, 1)
    return out


def distinguishing(
    texts: Mapping[str, Sequence[str]],
    spread: float = SPREAD,
    translit: dict[str, str] | None = None,
    min_count: int = MIN_COUNT,
) -> set[str]:
    """The features whose smoothed log-probability differs by at least ``spread`` nats between
    two labels of the group (per feature kind, as naive Bayes estimates it): the spelling and
    word choices that tell the relatives apart (``vrijeme``/``vreme``, ``obitelj``/``porodica``),
    not the n-grams all of them share. A feature must also occur ``min_count`` times per text of
    one of the labels: rarer differences are mostly chance."""
    table = str.maketrans(translit) if translit else None
    labels = sorted(texts)
    counts = {lab: Counter[str]() for lab in labels}
    for lab in labels:
        for text in texts[lab]:
            counts[lab].update(features(text.translate(table) if table else text))
    vocab = set().union(*counts.values())
    kinds = Counter(feature_kind(f) for f in vocab)
    totals = {lab: Counter[int]() for lab in labels}
    for lab in labels:
        for f, c in counts[lab].items():
            totals[lab][feature_kind(f)] += c
    keep = set()
    for f in vocab:
        if max(counts[lab][f] / len(texts[lab]) for lab in labels) < min_count:
            continue
        k = feature_kind(f)
        logp = [
            math.log((counts[lab][f] + SPREAD_ALPHA) / (totals[lab][k] + SPREAD_ALPHA * kinds[k]))
            for lab in labels
        ]
        if max(logp) - min(logp) >= spread:
            keep.add(f)
    return keep


def train_group(
    texts: Mapping[str, Sequence[str]],
    *,
    snippets_per_text: int = 1500,
    l2: float = 1.0,
    seed: int = 0,
    keep: float = 0.02,
    translit: dict[str, str] | None = None,
    spread: float | None = SPREAD,
    marker: str | None = None,
) -> GroupModel:
    """One :func:`train_pair` model for every pair of the group's labels."""
    labels = sorted(texts)
    pairs = [
        train_pair(
            {a: texts[a], b: texts[b]},
            snippets_per_text=snippets_per_text,
            l2=l2,
            seed=seed,
            keep=keep,
            translit=translit,
            spread=spread,
            marker=marker,
        )
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
    ]
    return GroupModel(labels, pairs, translit, marker)


def train_pair(
    texts: Mapping[str, Sequence[str]],
    *,
    snippets_per_text: int = 1500,
    l2: float = 1.0,
    seed: int = 0,
    keep: float = 0.02,
    translit: dict[str, str] | None = None,
    spread: float | None = SPREAD,
    marker: str | None = None,
) -> PairModel:
    """Fit a logistic regression between two labels on random snippets (15–400 characters) of
    their texts, the same number for each; features are present/absent; weights smaller than
    ``keep`` are dropped.

    With ``spread``, only the features of :func:`distinguishing` are used: the two texts are
    translations of one document, so most of their n-grams are shared, and weights on them only
    learn which sentence happens to be in which file (ekavian Serbian text of a later article came
    out Bosnian at 0.99 before this selection)."""
    from scipy import sparse  # noqa: PLC0415 -- development-time dependency
    from scipy.optimize import minimize  # noqa: PLC0415

    labels = sorted(texts)
    if len(labels) != 2:
        raise ValueError(f"a pair model needs two labels, not {labels}")
    table = str.maketrans(translit) if translit else None
    allowed = distinguishing(texts, spread, translit) if spread is not None else None
    rates: tuple[float, float] | None = None
    if marker is not None:
        per_char = marker_rates(texts, marker, translit)
        if max(per_char.values()) >= MARKER_RATIO * min(per_char.values()):
            rates = (per_char[labels[0]], per_char[labels[1]])
    scorer = PairModel((labels[0], labels[1]), {}, 0.0, rates, 1.0)
    pattern = re.compile(marker) if marker else None
    evidence: list[float] = []
    rng = random.Random(seed)
    rows: list[set[str]] = []
    ys: list[float] = []
    # both labels get as many snippets (their texts take turns): a label with a Cyrillic and a
    # Latin file must not get twice the prior of one with a single file
    per_label = snippets_per_text * max(len(texts[label]) for label in labels)
    for li, label in enumerate(labels):
        for i in range(per_label):
            text = texts[label][i % len(texts[label])]
            length = int(math.exp(rng.uniform(math.log(15), math.log(400))))
            piece = snippet(text, length, rng)
            piece = piece.translate(table) if table else piece
            found = features(piece)
            rows.append({f for f in found if allowed is None or f in allowed})
            ys.append(1.0 - li)  # 1: the first label
            evidence.append(scorer.marker_evidence(*_markers(pattern, piece)))
    vocab: dict[str, int] = {}
    for row in rows:
        for f in row:
            vocab.setdefault(f, len(vocab))
    indptr = [0]
    indices: list[int] = []
    for row in rows:
        indices.extend(vocab[f] for f in row)
        indptr.append(len(indices))
    v, n = len(vocab), len(rows)
    x = sparse.csr_matrix((np.ones(len(indices)), np.array(indices), np.array(indptr)), shape=(n, v))
    y = np.array(ys)
    # the marker's log-likelihood ratio enters as an offset (weight 1, not fitted): the features
    # learn what it leaves open, rather than shrinking a rate that holds across the whole text
    offset = np.array(evidence)

    def loss(theta: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        w, b = theta[:v], theta[v]
        z = x @ w + b + offset
        # log(1 + e^z) - y z, stably
        value = float((np.logaddexp(0.0, z) - y * z).sum() / n + 0.5 * l2 * (w @ w) / n)
        g = (1.0 / (1.0 + np.exp(-z)) - y) / n
        return value, np.concatenate([x.T @ g + l2 * w / n, [g.sum()]])

    res = minimize(loss, np.zeros(v + 1), jac=True, method="L-BFGS-B", options={"maxiter": 300})
    w, b = res.x[:v], float(res.x[v])
    inverse = {i: f for f, i in vocab.items()}
    weights = {inverse[i]: float(w[i]) for i in np.flatnonzero(np.abs(w) >= keep).tolist()}
    return PairModel((labels[0], labels[1]), weights, b, rates, 1.0 if rates is not None else 0.0)
