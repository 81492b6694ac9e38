"""Naive Bayes with several classes per language: a language scores as its best class."""

from __future__ import annotations

import numpy as np

from trawl.langid.naive_bayes import NaiveBayesModel

LATIN = ["svako ima pravo na život slobodu i bezbjednost ličnosti"] * 5
CYRILLIC = ["свако има право на живот слободу и безбједност личности"] * 5
OTHER = ["everyone has the right to life liberty and security of person"] * 5


def test_classes_of_one_language_are_not_pooled() -> None:
    pooled = NaiveBayesModel.train({"bs": LATIN + CYRILLIC, "en": OTHER}, alpha=0.1)
    split = NaiveBayesModel.train(
        {"bs:Latin": LATIN, "bs:Cyrillic": CYRILLIC, "en:Latin": OTHER},
        alpha=0.1,
        label_of={"bs:Latin": "bs", "bs:Cyrillic": "bs", "en:Latin": "en"},
    )
    assert split.labels == pooled.labels == ["bs", "en"]
    text = "pravo na život"
    pooled_ev, split_ev = pooled.evidence(text), split.evidence(text)
    # the Cyrillic half no longer dilutes the Latin n-grams' probabilities
    assert split_ev.scores[0] > pooled_ev.scores[0] + 5.0
    assert split_ev.scores[1] == pooled_ev.scores[1]
    assert split_ev.seen[0] == pooled_ev.seen[0] > 0
    assert split.evidence("живот").scores.argmax() == 0


def test_classes_survive_persistence() -> None:
    model = NaiveBayesModel.train(
        {"bs:Latin": LATIN, "bs:Cyrillic": CYRILLIC, "en:Latin": OTHER},
        label_of={"bs:Latin": "bs", "bs:Cyrillic": "bs", "en:Latin": "en"},
    )
    again = NaiveBayesModel.from_bytes(model.to_bytes())
    assert again.labels == model.labels
    for text in ("pravo na život", "живот", "the right", ""):
        assert np.allclose(again.evidence(text).scores, model.evidence(text).scores)
