"""Cavnar & Trenkle: profiles, the out-of-place measure, and the distance table."""

from __future__ import annotations

from collections import Counter

from trawl.langid.cavnar import PROFILE_SIZE, CavnarTrenkleModel, distance_table, profile
from trawl.langid.identify import load_cavnar_trenkle
from trawl.langid.ngrams import ngram_counts


def test_profile_ranks_by_count_then_ngram() -> None:
    assert profile(Counter({"b": 2, "a": 2, "c": 5, "d": 1}), size=3) == ["c", "a", "b"]


def test_out_of_place_by_hand() -> None:
    model = CavnarTrenkleModel({"xx": ["_", "a", "b"], "yy": ["b", "a", "_"]}, size=3)
    # text "a": n-grams "_", "a", "_a", "a_", ... ranked (all count 1 except none); compute by hand
    ranked, _ = model.text_profile("a")
    dist, n = model.distances("a")
    expected = {}
    for label, prof in model.profiles.items():
        expected[label] = sum(abs(prof.index(g) - i) if g in prof else 3 for i, g in enumerate(ranked))
    assert n == len(ranked) == 3  # a profile holds at most `size` n-grams
    assert dict(zip(model.labels, dist.tolist(), strict=True)) == expected


def test_shipped_profiles_are_top_300() -> None:
    model = load_cavnar_trenkle()
    assert model.size == PROFILE_SIZE
    assert all(len(p) == PROFILE_SIZE for p in model.profiles.values() if len(p) >= PROFILE_SIZE)
    assert model.profiles["en"][0] == "_"


def test_table_totals_match_distances() -> None:
    model = load_cavnar_trenkle()
    text = "Everyone has the right to education."
    rows, totals, distinct = distance_table(model, text, ["en", "de", "fr"])
    assert distinct == len(ngram_counts(text)) == 153
    dist, _ = model.distances(text)
    for label, total in totals.items():
        assert total == dist[model.labels.index(label)]
        assert total == sum(r.adds[label] for r in rows)
    assert totals["en"] < totals["fr"] and totals["en"] < totals["de"]
    absent = [r for r in rows if r.ranks["de"] is None]
    assert absent and all(r.adds["de"] == PROFILE_SIZE for r in absent)
