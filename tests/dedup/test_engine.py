"""DuplicateFinder: exact copies collapse, near duplicates verified, empty texts never match."""

from __future__ import annotations

import pytest

from trawl.dedup.engine import DedupOptions, DuplicateFinder
from trawl.dedup.synth import generate

ALL = DedupOptions(methods=("exact", "minhash", "simhash", "winnow", "modp"))


def test_empty_texts_match_nothing() -> None:
    f = DuplicateFinder(ALL)
    f.add([("a", ""), ("b", "..."), ("c", "one two three")])
    assert f.discover() == []
    assert f.near("") == []
    assert [p.b for p in f.near("One, two; THREE!")] == [2]
    assert f.counters["dedup/skipped/empty-text"] == 2


def test_exact_copies_collapse_and_chunks_do_not_matter() -> None:
    corpus = generate(60, seed=9)
    docs = list(zip(corpus.names, corpus.texts, strict=True))
    one = DuplicateFinder(ALL)
    one.add(docs)
    many = DuplicateFinder(ALL)
    many.add(docs, chunk=7)
    p1 = sorted((p.a, p.b, p.method, p.similarity) for p in one.discover())
    p2 = sorted((p.a, p.b, p.method, p.similarity) for p in many.discover())
    assert p1 == p2
    exact = [(a, b) for a, b, m, _ in p1 if m == "exact"]
    assert exact, "the generator makes exact copies (edit rate 0)"
    copies = {b for _, b in exact}
    assert not any(m != "exact" and (a in copies or b in copies) for a, b, m, _ in p1)
    # every reported minhash pair is a verified one
    assert all(s >= 0.8 for _, _, m, s in p1 if m in ("minhash", "winnow", "modp"))
    assert {m for _, _, m, _ in p1} == {"exact", "minhash", "simhash", "winnow", "modp"}


def test_near_excludes_the_query_document_and_reports_clusters() -> None:
    base = " ".join(f"w{i % 50} v{i}" for i in range(200))
    f = DuplicateFinder()
    f.add([("u0", base), ("u1", base.replace("v100", "changed")), ("u2", "unrelated words only here")])
    found = f.near(base, exclude=0)
    assert [(p.b, p.method) for p in found] == [(1, "minhash")]
    pairs = f.discover()
    clusters = f.clusters(pairs)
    assert len(clusters) == 1 and clusters[0].representative == 0  # same length: smaller name wins
    report = f.report(pairs, clusters)
    assert report["options"]["bands"] == 17 and report["options"]["rows"] == 7
    assert report["clusters"][0]["members"] == ["u0", "u1"]


def test_modp_keeps_about_one_hash_in_p_and_finds_near_copies() -> None:
    base = " ".join(f"w{i % 50} v{i}" for i in range(400))
    other = " ".join(f"x{i}" for i in range(400))
    docs = [("u0", base), ("u1", base.replace("v200", "changed")), ("u2", other)]
    sizes = {}
    for p in (1, 4, 16):
        f = DuplicateFinder(DedupOptions(methods=("exact", "modp"), modp_p=p))
        f.add(docs)
        sizes[p] = f.modp_sets.sizes[0]
        assert [(q.a, q.b, q.method) for q in f.discover()] == [(0, 1, "modp")]
        assert [(q.b, q.method) for q in f.near(base, exclude=0)] == [(1, "modp")]
        assert f.memory()["modp_sets"] == f.modp_sets.nbytes
    assert sizes[1] == 796 and 796 / 4 * 0.7 < sizes[4] < 796 / 4 * 1.3 and sizes[16] < sizes[4]
    with pytest.raises(ValueError, match="at least 1"):
        DuplicateFinder(DedupOptions(modp_p=0))
