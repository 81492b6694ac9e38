"""Second opinions for close relatives: one small discriminative model per group.

Bosnian, Croatian and Serbian (or Malay and Indonesian, Bokmål, Nynorsk and Danish) share most
of their n-grams, so naive Bayes, which adds up every n-gram's evidence, mostly adds up noise
when it has to choose between them. A multinomial logistic regression trained on snippets of the
group's own training texts instead learns the few features that differ (``svatko``/``svako``,
``članak``/``član``, ``-ija``/``-ija`` endings), and its probabilities split the group's share.
Training (:func:`train_group`, development time, needs SciPy) keeps only the useful weights;
scoring needs NumPy alone.
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from trawl.langid.corpus import snippet
from trawl.langid.naive_bayes import features

__all__ = ["SERBIAN_LATIN", "GroupModel", "train_group"]

#: Serbian/Bosnian Cyrillic → Gaj's Latin, letter for letter: the group model of bs/hr/sr reads
#: both scripts as one, so ijekavian ``dj``/``mj`` forms learnt from one script count in the other.
SERBIAN_LATIN = dict(zip(
    "абвгдђежзијклљмнњопрстћуфхцчџшАБВГДЂЕЖЗИЈКЛЉМНЊОПРСТЋУФХЦЧЏШ",
    ["a", "b", "v", "g", "d", "đ", "e", "ž", "z", "i", "j", "k", "l", "lj", "m", "n", "nj", "o", "p",
     "r", "s", "t", "ć", "u", "f", "h", "c", "č", "dž", "š"] * 2,
    strict=True,
))  # fmt: skip


@dataclass
class GroupModel:
    """Weights of one group: ``weights[feature]`` is one value per label, plus ``bias``."""

    labels: list[str]
    weights: dict[str, list[float]]
    bias: list[float]
    translit: dict[str, str] | None = None

    def __post_init__(self) -> None:
        self._table = str.maketrans(self.translit) if self.translit else None

    def probabilities(self, text: str) -> dict[str, float]:
        """P(label | text, the text is one of the group), by presence of each feature."""
        if self._table is not None:
            text = text.translate(self._table)
        z = np.array(self.bias, dtype=np.float64)
        w = self.weights
        for feat in features(text):
            row = w.get(feat)
            if row is not None:
                z += row
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        return {label: float(pi) for label, pi in zip(self.labels, p, strict=True)}

    def as_json(self) -> dict[str, Any]:
        return {
            "translit": self.translit,
            "labels": self.labels,
            "bias": [round(b, 4) for b in self.bias],
            "weights": {f: [round(x, 3) for x in row] for f, row in self.weights.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GroupModel:
        weights = {k: list(v) for k, v in data["weights"].items()}
        return cls(list(data["labels"]), weights, list(data["bias"]), data.get("translit"))

    def __repr__(self) -> str:
        return f"GroupModel({self.labels}, {len(self.weights)} features)"


def train_group(
    texts: Mapping[str, Sequence[str]],
    *,
    snippets_per_text: int = 1500,
    l2: float = 1.0,
    seed: int = 0,
    keep: float = 0.02,
    translit: dict[str, str] | None = None,
) -> GroupModel:
    """Fit a multinomial logistic regression on random snippets (15–400 characters) of each
    label's texts; features are present/absent; weights smaller than ``keep`` are dropped."""
    from scipy import sparse  # noqa: PLC0415 -- development-time dependency
    from scipy.optimize import minimize  # noqa: PLC0415

    labels = sorted(texts)
    table = str.maketrans(translit) if translit else None
    rng = random.Random(seed)
    rows: list[set[str]] = []
    ys: list[int] = []
    for li, label in enumerate(labels):
        for text in texts[label]:
            for _ in range(snippets_per_text):
                length = int(math.exp(rng.uniform(math.log(15), math.log(400))))
                piece = snippet(text, length, rng)
                rows.append(set(features(piece.translate(table) if table else piece)))
                ys.append(li)
    vocab: dict[str, int] = {}
    for r in rows:
        for f in r:
            vocab.setdefault(f, len(vocab))
    indptr = [0]
    indices: list[int] = []
    for r in rows:
        indices.extend(vocab[f] for f in r)
        indptr.append(len(indices))
    x = sparse.csr_matrix(
        (np.ones(len(indices)), np.array(indices), np.array(indptr)), shape=(len(rows), len(vocab))
    )
    y = np.array(ys)
    k, v, n = len(labels), len(vocab), len(rows)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0

    def loss(theta: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        w = theta[: v * k].reshape(v, k)
        b = theta[v * k :]
        z = x @ w + b
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        value = -(onehot * logp).sum() / n + 0.5 * l2 * (w * w).sum() / n
        g = (np.exp(logp) - onehot) / n
        gw = x.T @ g + l2 * w / n
        return float(value), np.concatenate([np.asarray(gw).ravel(), g.sum(axis=0)])

    res = minimize(loss, np.zeros(v * k + k), jac=True, method="L-BFGS-B", options={"maxiter": 300})
    w = res.x[: v * k].reshape(v, k)
    w -= w.mean(axis=1, keepdims=True)  # only differences between labels matter
    b = res.x[v * k :]
    inverse = {i: f for f, i in vocab.items()}
    kept = np.flatnonzero(np.abs(w).max(axis=1) >= keep).tolist()
    weights = {inverse[i]: [float(x) for x in w[i]] for i in kept}
    return GroupModel(labels, weights, [float(x - b.mean()) for x in b], translit)
