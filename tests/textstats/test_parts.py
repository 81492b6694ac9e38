"""Counter, fits, anomaly hints, sources and bad input, on data made to have a known answer."""

from __future__ import annotations

import io
import math
import random
from collections import Counter
from pathlib import Path

import pytest

from trawl.errors import InputError
from trawl.textstats import (
    DocText,
    StatsBuilder,
    TermCounter,
    estimate_collection_size,
    estimate_result_size,
    file_documents,
    fit_heaps,
    fit_line,
    fit_zipf,
    text_stats,
)


def test_counter_exact_with_and_without_spilling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.textstats import counter as counter_module

    monkeypatch.setattr(counter_module, "MAX_RUNS", 3)  # compact runs often
    rng = random.Random(7)
    docs = [[f"w{int(rng.paretovariate(1.0))}" for _ in range(rng.randint(0, 300))] for _ in range(200)]
    tf: Counter[str] = Counter()
    df: Counter[str] = Counter()
    first: dict[str, int] = {}
    pos = 0
    for d in docs:
        tf.update(d)
        df.update(set(d))
        for t in d:
            first.setdefault(t, pos)
            pos += 1
    for bound in (1, 7, 10_000):
        with TermCounter(max_terms=bound, tmpdir=tmp_path) as counter:
            for d in docs:
                counter.add(d)
            rows = list(counter.rows())
            assert (counter.spills > 0) == (bound < len(tf))
            assert counter.runs < 3  # compacted
            assert [r.term for r in rows] == sorted(tf)
            assert {r.term: (r.tf, r.df, r.first) for r in rows} == {t: (tf[t], df[t], first[t]) for t in tf}
            assert counter.tokens == pos and counter.documents == 200
            some = next(iter(tf))
            got = counter.get(some)
            assert got is not None and (got.tf, got.df, got.first) == (tf[some], df[some], first[some])
            assert counter.get("absent") is None
        assert not list(tmp_path.iterdir())  # runs removed on close
    with pytest.raises(ValueError, match="max_terms"):
        TermCounter(max_terms=0)


def test_fit_line_and_errors() -> None:
    fit = fit_line([0, 1, 2, 3], [1, 3, 5, 7])
    assert fit.slope == pytest.approx(2) and fit.intercept == pytest.approx(1) and fit.r2 == pytest.approx(1)
    with pytest.raises(ValueError, match="two or more"):
        fit_line([1], [1])
    with pytest.raises(ValueError, match="distinct"):
        fit_line([1, 1], [1, 2])


def test_zipf_recovers_a_known_law() -> None:
    # Frequencies exactly proportional to r^-1.2 for 2,000 ranks (rounded, so ties in the tail).
    freq_of_freq: Counter[int] = Counter(round(1e6 * r**-1.2) for r in range(1, 2001))
    tokens = sum(f * m for f, m in freq_of_freq.items())
    z = fit_zipf(freq_of_freq, tokens)
    assert z is not None
    assert z.exponent == pytest.approx(1.2, abs=0.02)
    assert z.r2 > 0.999
    assert fit_zipf({5: 1}, 5) is None  # too few points to fit


def test_heaps_recovers_a_known_law() -> None:
    growth = [(n, round(30 * n**0.55)) for n in (10**k for k in range(2, 8))]
    h = fit_heaps(growth, min_tokens=1)
    assert h is not None
    assert h.beta == pytest.approx(0.55, abs=0.001) and h.k == pytest.approx(30, rel=0.01)
    assert fit_heaps([]) is None and fit_heaps([(1, 1), (2, 2)]) is None


def test_croft_estimates() -> None:
    # Croft's example in 4.2.2: "tropical" (120,990 docs) and "fish" (1,131,855) in 25,205,179
    # documents; independence predicts 5,433 documents with both.
    assert estimate_result_size([120_990, 1_131_855], 25_205_179) == pytest.approx(5433, abs=1)
    assert estimate_collection_size(1000, 0.01) == pytest.approx(100_000)
    assert estimate_collection_size(10, 0) is None
    assert estimate_result_size([1], 0) == 0


def test_markup_encoding_and_boilerplate_hints() -> None:
    rng = random.Random(3)
    words = [f"word{i}" for i in range(1000)]
    docs = []
    for i in range(20):  # host a: every page has the same footer and leaked entities
        body = " ".join(rng.choice(words) for _ in range(200))
        docs.append(DocText(f"a/{i}", "com,a", f"{body} &nbsp; Subscribe to our newsletter &amp; more"))
    for i in range(20):  # host b: clean, one page with mojibake
        body = " ".join(rng.choice(words) for _ in range(200))
        if i == 5:
            body += " cafÃ© donâ€™t"
        docs.append(DocText(f"b/{i}", "com,b", body))
    st = text_stats(docs)
    markup = {h["term"] for h in st.anomalies["markup"]}
    assert {"nbsp", "amp"} <= markup
    boiler = {(h["host"], h["term"]) for h in st.anomalies["boilerplate"]}
    assert ("com,a", "newsletter") in boiler and ("com,a", "subscribe") in boiler
    assert not any(host == "com,b" for host, _ in boiler)
    assert not any(term.startswith("word") for _, term in boiler)  # in both hosts: not boilerplate
    enc = st.anomalies["encoding"]
    assert enc["documents"] == 1 and enc["examples"] == ["b/5"]
    assert {s["sequence"] for s in enc["top_sequences"]} >= {"Ã©", "â€™"}


def test_ambiguous_markup_words_need_a_high_rank() -> None:
    rng = random.Random(4)
    words = [f"w{int(rng.paretovariate(1.0))}" for _ in range(20_000)]
    prose = " ".join(words) + " the class, the style, the copy and the table " * 3
    st = text_stats([DocText("p", "h", prose)])
    assert st.anomalies["markup"] == []  # English words, low in the ranking
    leaked = " ".join(words) + " class style " * 2000  # a stylesheet leaked into the text
    hints = {h["term"]: h for h in text_stats([DocText("p", "h", leaked)]).anomalies["markup"]}
    assert set(hints) == {"class", "style"} and hints["class"]["rank"] <= 3


def test_huge_document_in_pieces_counts_like_one_string() -> None:
    rng = random.Random(5)
    text = " ".join(f"t{int(rng.paretovariate(0.8))}" for _ in range(30_000))
    whole = text_stats([DocText("x", "h", text)], top=20)
    with StatsBuilder(chunk_chars=1024, top=20) as builder:
        builder.add(text, name="x")  # cut at whitespace into ~1 KiB pieces
        chunked = builder.finish()
    pieces = [text[i : i + 777] for i in range(0, len(text), 777)]  # cut anywhere
    with StatsBuilder(chunk_chars=1024, top=20) as builder:
        builder.add(iter(pieces), name="x")
        streamed = builder.finish()
    for st in (chunked, streamed):
        assert st.documents == 1
        assert (st.tokens, st.vocabulary, st.hapax) == (whole.tokens, whole.vocabulary, whole.hapax)
        assert [r.as_dict() for r in st.top] == [r.as_dict() for r in whole.top]
        assert st.growth == whole.growth


def test_empty_and_degenerate_input() -> None:
    st = text_stats([DocText("e", "h", ""), DocText("p", "h", "... !!! ---")])
    assert (st.documents, st.empty_documents, st.tokens, st.vocabulary) == (2, 2, 0, 0)
    assert st.zipf is None and st.heaps is None and st.top == []
    d = st.as_dict()
    assert d["tokens"] == 0 and d["top"] == [] and d["zipf"] is None
    one = text_stats([DocText("one", "h", "word")])
    assert one.vocabulary == 1 and one.hapax == 1 and one.top[0].rank_times_probability == 1.0


def test_file_documents_skip_binary_and_decode_legacy(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Hello world", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes("Grüße aus Köln".encode("cp1252"))
    (tmp_path / "c.bin").write_bytes(b"\x00\x01\x02" * 100)
    (tmp_path / ".hidden.txt").write_text("secret", encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "d.txt").write_text("nested words", encoding="utf-8")
    skipped: Counter[str] = Counter()
    docs = list(file_documents([tmp_path], skipped=skipped))
    assert [Path(d.name).name for d in docs] == ["a.txt", "b.txt", "d.txt"]
    assert "Köln" in docs[1].text
    assert skipped == {"binary": 1}
    assert [Path(d.name).name for d in file_documents([tmp_path], pattern="a*")] == ["a.txt"]
    with pytest.raises(InputError, match="does not exist"):
        list(file_documents([tmp_path / "missing"]))


def test_large_file_streams_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.textstats import sources

    monkeypatch.setattr(sources, "STREAM_BYTES", 1000)
    text = "naïve café " * 500  # multi-byte characters across the 1,000-byte block edges
    (tmp_path / "big.txt").write_text(text, encoding="utf-8")
    docs = list(file_documents([tmp_path]))
    assert docs[0].text == "" and "".join(docs[0].parts()) == text
    st = text_stats(docs)
    assert st.tokens == 1000 and st.vocabulary == 2


def test_vocabulary_out_lists_every_term() -> None:
    out = io.StringIO()
    text_stats([DocText("1", "h", "b a b"), DocText("2", "h", "c b")], vocabulary_out=out)
    assert out.getvalue().splitlines() == [
        "term\tfrequency\tdf\tfirst_position",
        "a\t1\t1\t1",
        "b\t3\t2\t0",
        "c\t1\t1\t3",
    ]


def test_as_dict_is_json_ready() -> None:
    import json

    st = text_stats([DocText(str(i), "h", f"alpha beta gamma delta {i} " * 5) for i in range(30)])
    d = json.loads(json.dumps(st.as_dict()))
    assert {"tokens", "vocabulary", "hapax", "top", "zipf", "heaps", "curves"} <= set(d)
    assert math.isclose(sum(r["probability"] for r in d["top"]), 1.0, abs_tol=1e-3)


def test_plots_without_matplotlib_name_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from trawl.errors import MissingDependency
    from trawl.textstats.plot import plot_data, write_plots

    st = text_stats([DocText(str(i), "h", f"alpha beta gamma {i} " * 5) for i in range(30)])
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails as if not installed
    with pytest.raises(MissingDependency, match=r"trawl\[stats\]"):
        write_plots(st, tmp_path)
    data = plot_data(st)  # the web UI's data needs no matplotlib
    assert data["heaps"]["points"][-1] == [st.tokens, st.vocabulary]


def test_boilerplate_shares_are_measured_on_a_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    from trawl.textstats import anomalies

    monkeypatch.setattr(anomalies, "HOST_SAMPLE", 10)
    docs = [DocText(str(i), "com,a", f"unique{i} words{i} cookie policy") for i in range(25)]
    hints = text_stats(docs).anomalies["boilerplate"]
    assert {h["term"] for h in hints} == {"cookie", "policy"}
    assert hints[0]["host_documents"] == 10 and "sampled (of 25)" in hints[0]["reason"]
