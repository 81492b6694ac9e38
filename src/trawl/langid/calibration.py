"""Confidence that means something: logistic (Platt) calibration of "is the top label right?".

An identifier's raw evidence (score margins, how many n-grams a text has, how much of it the
winning model has seen) is mapped to the probability that its answer is right by a logistic
regression fitted on held-out snippets: texts from the part of each UDHR translation's first
half that the calibration-time models did not train on, at lengths from a few characters to a
few hundred. So a reported 0.9 is right about 90 % of the time on text like that; the benchmark
checks it on the second halves (reliability table and expected calibration error).
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Calibrator", "expected_calibration_error"]


@dataclass
class Calibrator:
    """P(right) = σ(w · features); ``features`` must be built the same way at fit and use."""

    weights: list[float]

    def __call__(self, features: Sequence[float]) -> float:
        z = sum(w * f for w, f in zip(self.weights, features, strict=True))
        if z < -40:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    @classmethod
    def fit(
        cls,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        l2: float = 1e-3,
        weights: npt.NDArray[np.float64] | None = None,
    ) -> Calibrator:
        """Newton–Raphson (IRLS) on the log loss with a little L2, no dependency beyond NumPy;
        ``weights``: how much each example counts (default: all alike)."""
        w = np.zeros(x.shape[1])
        sw = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -40, 40)))
            grad = x.T @ (sw * (p - y)) + l2 * w
            hess = (x * (sw * p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
            step = np.linalg.solve(hess, grad)
            w -= step
            if np.abs(step).max() < 1e-8:
                break
        return cls([float(v) for v in w])

    def as_json(self) -> dict[str, Any]:
        return {"weights": self.weights}


def expected_calibration_error(
    scores: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> tuple[float, list[tuple[float, float, float, int]]]:
    """ECE over equal-width bins, and per bin (low edge, mean score, accuracy, count)."""
    s = np.asarray(scores, dtype=np.float64)
    c = np.asarray(correct, dtype=np.float64)
    edges = np.linspace(0, 1, bins + 1)
    table = []
    ece = 0.0
    for k in range(bins):
        mask = (s >= edges[k]) & ((s < edges[k + 1]) if k < bins - 1 else (s <= 1.0))
        n = int(mask.sum())
        if not n:
            continue
        conf, acc = float(s[mask].mean()), float(c[mask].mean())
        ece += n / len(s) * abs(conf - acc)
        table.append((float(edges[k]), conf, acc, n))
    return ece, table
