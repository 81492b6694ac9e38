"""Close relatives: pair models over the features that tell two languages apart."""

# ruff: noqa: RUF001 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import pytest

from trawl.langid import identify
from trawl.langid.relatives import GroupModel, PairModel, distinguishing


def test_distinguishing_keeps_differences_not_shared_ngrams() -> None:
    texts = {
        "bs": ["svako ima pravo na vrijeme i djelo svijeta " * 5],
        "sr": ["svako ima pravo na vreme i delo sveta " * 5],
    }
    keep = distinguishing(texts, 2.0)
    assert "\x01vrijeme" in keep and "\x01vreme" in keep  # the words that differ
    assert "\x01svako" not in keep and "\x01pravo" not in keep  # shared words carry nothing
    assert "_na_" not in keep


def test_pairs_are_coupled_into_probabilities() -> None:
    pair = PairModel(("bs", "sr"), {"\x01vrijeme": 3.0, "\x01vreme": -3.0}, 0.0)
    other = PairModel(("bs", "hr"), {"\x01svako": 1.0}, 0.0)
    third = PairModel(("hr", "sr"), {}, 0.0)
    group = GroupModel(["bs", "hr", "sr"], [pair, other, third])
    p = group.probabilities("u vrijeme")
    assert p["bs"] > p["sr"] and abs(sum(p.values()) - 1.0) < 1e-9
    assert group.probabilities("u vreme", among=["bs", "sr"])["sr"] > 0.9
    assert group.probabilities("u vreme", among=["sr"]) == {"sr": 1.0}
    restored = GroupModel.from_json(group.as_json())
    assert restored.probabilities("u vrijeme") == pytest.approx(p, abs=1e-3)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        # ekavian Serbian vs ijekavian Bosnian, Cyrillic: the reflex of jat decides
        (
            "Мајке и деца имају право на нарочито старање и помоћ. Сва деца, рођена у браку или ван "
            "њега, уживају једнаку социјалну заштиту.",
            "sr",
        ),
        (
            "Брак се склапа само уз слободан и потпун пристанак оних који намјеравају ступити у брак. "
            "Обитељ је природна и основна друштвена јединица.",
            "bs",
        ),
        (
            "Svatko ima pravo na školovanje. Školovanje mora biti besplatno barem u osnovnim i "
            "nižim razredima.",
            "hr",
        ),
        (
            "Enhver har ret til undervisning. Undervisningen skal være gratis, i det mindste på de "
            "elementære og grundlæggende trin.",
            "da",
        ),
    ],
)
def test_relatives_on_longer_text(text: str, lang: str) -> None:
    assert identify(text).lang == lang
