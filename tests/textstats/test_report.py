"""The full report on the inaugural addresses, checked against an independent computation.

The reference is deliberately plain: one regular expression (the documented tokenizer rules
re-derived), ``collections.Counter``, a Python set for vocabulary growth and numpy's polyfit for
the Heaps line — no trawl code beyond reading the files.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from trawl.decode.detect import default_detector
from trawl.textstats import StatsBuilder, TextStats, file_documents, text_stats
from trawl.textstats.report import _geometric_grid

np = pytest.importorskip("numpy")  # the independent fits

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "stats" / "inaugural"
GATE = json.loads((Path(__file__).with_name("gate.json")).read_text(encoding="utf-8"))

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="shared data folder absent")

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # noqa: RUF001 - the apostrophe


def reference_tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    return [t.replace("’", "'") for t in WORD.findall(text)]  # noqa: RUF001 - the apostrophe


def read(path: Path) -> str:
    """UTF-8, else what trawl's detector picks (2005-Bush.txt: English with Big5 punctuation,
    which no single-byte reading gets right)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        found = default_detector().detect(data)
        assert found is not None
        return data.decode(found.encoding)


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    docs = [reference_tokens(read(p)) for p in sorted(DATA.glob("*.txt"))]
    tf: Counter[str] = Counter()
    df: Counter[str] = Counter()
    growth_first: list[int] = []
    seen: set[str] = set()
    position = 0
    for toks in docs:
        tf.update(toks)
        df.update(set(toks))
        for t in toks:
            if t not in seen:
                seen.add(t)
                growth_first.append(position)
            position += 1
    return {"docs": docs, "tf": tf, "df": df, "first": growth_first, "tokens": position}


@pytest.fixture(scope="module")
def stats() -> TextStats:
    return text_stats(lambda: file_documents([DATA], pattern="*.txt"), top=50)


def test_counts(stats: TextStats, reference: dict[str, Any]) -> None:
    tf: Counter[str] = reference["tf"]
    assert stats.documents == len(reference["docs"]) == 59
    assert stats.tokens == reference["tokens"]
    assert stats.vocabulary == len(tf)
    assert stats.hapax == sum(1 for c in tf.values() if c == 1)
    assert stats.dis_legomena == sum(1 for c in tf.values() if c == 2)
    assert stats.hapax_share == pytest.approx(stats.hapax / len(tf))
    top2 = sum(c for _, c in tf.most_common(2))
    assert stats.top_two_share == pytest.approx(top2 / reference["tokens"])


def test_top_table(stats: TextStats, reference: dict[str, Any]) -> None:
    tf: Counter[str] = reference["tf"]
    df: Counter[str] = reference["df"]
    n = reference["tokens"]
    expected = sorted(tf.items(), key=lambda kv: (-kv[1], kv[0]))[:50]
    assert [(r.term, r.frequency) for r in stats.top] == expected
    for row in stats.top:
        assert row.df == df[row.term]
        assert row.probability == pytest.approx(tf[row.term] / n)
        assert row.rank_times_probability == pytest.approx(row.rank * tf[row.term] / n)
    assert [r.term for r in stats.top[:4]] == ["the", "of", "and", "to"]


def test_zipf(stats: TextStats, reference: dict[str, Any]) -> None:
    z = stats.zipf
    assert z is not None
    n = reference["tokens"]
    freqs = sorted(reference["tf"].values(), reverse=True)
    # The curve bends at both ends: the stretch starts after the first word and ends before the
    # hapax legomena (whose ranks start where the frequency-1 plateau starts).
    first_hapax_rank = freqs.index(1) + 1
    assert 1 < z.head_bend < 20
    assert 500 < z.tail_bend < first_hapax_rank
    # Independent fit over every rank of that stretch: close to trawl's binned fit.
    ranks = np.arange(z.head_bend, z.tail_bend + 1)
    probs = np.array(freqs[z.head_bend - 1 : z.tail_bend]) / n
    slope, _ = np.polyfit(np.log10(ranks), np.log10(probs), 1)
    assert -slope == pytest.approx(z.exponent, abs=0.08)
    # The classic constant is the mean of r·P_r over the stretch.
    assert z.c_classic == pytest.approx(float(np.mean(ranks * probs)), rel=1e-9)
    # The fitted line predicts P_r inside the stretch within 25%.
    for r in (10, 100, 1000):
        assert z.probability(r) == pytest.approx(freqs[r - 1] / n, rel=0.25)
    assert 0.9 < z.exponent < 1.15 and 0.08 < z.c_classic < 0.12  # Croft: a ≈ 1, c ≈ 0.1
    assert z.r2 >= GATE["zipf_r2_min"]


def test_heaps(stats: TextStats, reference: dict[str, Any]) -> None:
    h = stats.heaps
    assert h is not None
    n = reference["tokens"]
    first = reference["first"]
    grid = _geometric_grid(n)
    expected = [(g, sum(1 for f in first if f < g)) for g in grid]
    assert stats.growth == expected
    use = [(g, v) for g, v in expected if g >= n // 10]
    beta, logk = np.polyfit(np.log10([g for g, _ in use]), np.log10([v for _, v in use]), 1)
    assert h.beta == pytest.approx(beta, rel=1e-9)
    assert h.k == pytest.approx(10**logk, rel=1e-9)
    assert 0.4 < h.beta < 0.7 and 5 < h.k < 100  # Croft: 10 ≤ K ≤ 100, β ≈ 0.5
    assert h.r2 >= GATE["heaps_r2_min"]
    assert h.vocabulary(n) == pytest.approx(stats.vocabulary, rel=0.03)


def test_estimates(stats: TextStats, reference: dict[str, Any]) -> None:
    docs = [set(d) for d in reference["docs"]]
    est = stats.estimates
    assert est["documents"] == 59
    assert len(est["result_sets"]) == 3
    errors = []
    for row in est["result_sets"]:
        a, b = row["terms"]
        fa = sum(a in d for d in docs)
        fb = sum(b in d for d in docs)
        fab = sum(a in d and b in d for d in docs)
        assert row["df"] == [fa, fb]
        assert row["actual"] == fab
        assert row["estimated"] == pytest.approx(59 * (fa / 59) * (fb / 59), abs=0.01)
        if fab:
            assert row["collection_size_estimate"] == pytest.approx(fa * fb / fab, abs=0.1)
            errors.append(abs(row["collection_size_estimate"] - 59) / 59)
    assert errors and max(errors) <= GATE["collection_size_error_max"]
    for row in est["known_words"]:
        sample = sum(row["term"] in d for d in docs[::2])
        assert row["sample_probability"] == pytest.approx(sample / len(docs[::2]), abs=1e-6)


def test_queries_given(reference: dict[str, Any]) -> None:
    docs = [set(d) for d in reference["docs"]]
    st = text_stats(file_documents([DATA]), queries=["Fellow-Citizens", "peace war"])
    rows = st.estimates["result_sets"]
    assert [r["terms"] for r in rows] == [["fellow", "citizens"], ["peace", "war"]]
    assert rows[0]["actual"] == sum({"fellow", "citizens"} <= d for d in docs)
    # "fellow" and "citizens" go together: independence underestimates their conjunction.
    assert rows[0]["actual"] > rows[0]["estimated"]


def test_spilling_gives_identical_results(stats: TextStats) -> None:
    with StatsBuilder(max_terms=300) as builder:
        builder.add_documents(file_documents([DATA], pattern="*.txt"))
        spilled = builder.finish()
        assert builder.counter.spills > 10
    assert spilled.memory["runs_spilled"] > 10
    for key in ("tokens", "vocabulary", "hapax", "dis_legomena", "growth", "rank_frequency"):
        assert getattr(spilled, key) == getattr(stats, key), key
    assert [r.as_dict() for r in spilled.top] == [r.as_dict() for r in stats.top]
    assert spilled.zipf == stats.zipf and spilled.heaps == stats.heaps


def test_rank_frequency_curve(stats: TextStats, reference: dict[str, Any]) -> None:
    freqs = sorted(reference["tf"].values(), reverse=True)
    assert stats.rank_frequency[0] == (1, freqs[0])
    assert stats.rank_frequency[-1] == (len(freqs), 1)
    for r, f in stats.rank_frequency:
        assert freqs[r - 1] == f
    assert all(math.isfinite(v) for v in (stats.zipf.c, stats.zipf.exponent))  # type: ignore[union-attr]


def test_anomalies_on_real_data(stats: TextStats) -> None:
    enc = stats.anomalies["encoding"]
    assert enc["documents"] == 1
    assert enc["examples"][0].endswith("2005-Bush.txt")
    # Big5's em dash and apostrophe read as "¡X" and "¡" + a second sign (¦ or Š, by the reading)
    sequences = {s["sequence"] for s in enc["top_sequences"]}
    assert "\u00a1X" in sequences and any(q.startswith("\u00a1") and q != "\u00a1X" for q in sequences)
    assert stats.anomalies["markup"] == []
    assert stats.anomalies["boilerplate"] == []  # speeches share no navigation text
