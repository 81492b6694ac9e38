"""Quality gate: precision/recall on generated near duplicates and AUCs on Clough & Stevenson.

Scores are pinned (slightly below the measured values) in ``dedup_gate.json``; a regression fails
the test. The Clough & Stevenson part skips when ../shared/data is absent. ``bench/dedup.py``
measures the same things at larger sizes.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from trawl.dedup.engine import DedupOptions, DuplicateFinder
from trawl.dedup.fingerprint import winnow_batch
from trawl.dedup.hashing import shingle_hashes, word_hashes
from trawl.dedup.minhash import estimate_jaccard, minhash_signatures
from trawl.dedup.sets import HashSets
from trawl.dedup.simhash import hamming, simhash_batch
from trawl.dedup.synth import Corpus, generate

GATE = json.loads((Path(__file__).with_name("dedup_gate.json")).read_text(encoding="utf-8"))
CLASSES = ("cut", "light", "heavy", "non")


def precision_recall(corpus: Corpus, method: str, options: DedupOptions) -> tuple[float, float]:
    """P/R of a method's pairs for Jaccard ≥ threshold; exact copies inherit their original's pairs."""
    finder = DuplicateFinder(replace(options, methods=("exact", method)))  # type: ignore[arg-type]
    finder.add(zip(corpus.names, corpus.texts, strict=True))
    pairs = finder.discover()
    head = list(range(len(corpus.texts)))
    for p in pairs:
        if p.method == "exact":
            head[p.b] = head[p.a]
    groups: dict[int, list[int]] = {}
    for i, h in enumerate(head):
        groups.setdefault(h, []).append(i)
    predicted = {(x, y) for g in groups.values() for x in g for y in g if x < y}
    for p in pairs:
        if p.method == method:
            predicted |= {
                (min(x, y), max(x, y)) for x in groups[head[p.a]] for y in groups[head[p.b]] if x != y
            }
    truth = corpus.positives(options.threshold)
    tp = len(predicted & truth)
    return tp / max(len(predicted), 1), tp / max(len(truth), 1)


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return generate(400, seed=2024)


@pytest.mark.parametrize("method", ["minhash", "winnow", "modp", "simhash"])
def test_generated_precision_recall(corpus: Corpus, method: str) -> None:
    p, r = precision_recall(corpus, method, DedupOptions())
    print(f"{method}: precision {p:.4f} recall {r:.4f}")
    gate = GATE["generated"][method]
    assert p >= gate["precision"], f"{method} precision {p:.4f} < {gate['precision']}"
    assert r >= gate["recall"], f"{method} recall {r:.4f} < {gate['recall']}"


def _auc(pos: list[float], neg: list[float]) -> float:
    a = np.asarray(pos)[:, None]
    b = np.asarray(neg)[None, :]
    return float(((a > b).sum() + 0.5 * (a == b).sum()) / (a.size * b.size))


def test_clough_stevenson_auc(shared_data: Path) -> None:
    root = shared_data / "dedup" / "clough-stevenson"
    rows = [r for r in csv.DictReader((root / "file_information.csv").open(encoding="utf-8"))]
    answers = [r for r in rows if r["Category"] in CLASSES]
    tasks = sorted({r["Task"] for r in answers})
    texts = [(root / f"orig_task{t}.txt").read_text(encoding="utf-8", errors="replace") for t in tasks]
    texts += [(root / r["File"]).read_text(encoding="utf-8", errors="replace") for r in answers]
    wb = word_hashes(texts)
    sb = shingle_hashes(wb, 5)
    a = np.arange(len(tasks), len(texts))
    b = np.array([tasks.index(r["Task"]) for r in answers])
    sigs = minhash_signatures(sb)
    fps = simhash_batch(sb)
    scores = {
        "jaccard": HashSets.from_batch(sb).jaccard(a, b),
        "minhash": estimate_jaccard(sigs[a], sigs[b]),
        "winnow_containment": winnow_batch(sb, 4).containment(a, b),
        "simhash": 1 - hamming(fps[a], fps[b]) / 64,
    }
    failures = []
    for name, s in scores.items():
        per = {c: [float(x) for x, r in zip(s, answers, strict=True) if r["Category"] == c] for c in CLASSES}
        for hi, lo in (("cut", "light"), ("light", "heavy"), ("heavy", "non"), ("cut", "non")):
            got = _auc(per[hi], per[lo])
            pinned = GATE["clough_stevenson"][name][f"{hi}>{lo}"]
            print(f"{name} {hi}>{lo}: {got:.3f} (gate {pinned})")
            if got < pinned:
                failures.append(f"{name} {hi}>{lo}: AUC {got:.3f} < {pinned}")
    assert not failures, failures
