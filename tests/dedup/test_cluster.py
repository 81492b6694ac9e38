"""Union-find clusters and their representatives."""

from __future__ import annotations

import numpy as np

from trawl.dedup.cluster import UnionFind, clusters_from_pairs


def test_union_find() -> None:
    uf = UnionFind(6)
    assert uf.union(0, 1) and uf.union(1, 2) and not uf.union(0, 2)
    uf.union(4, 5)
    roots = uf.roots()
    assert roots[0] == roots[1] == roots[2] != roots[4]
    assert roots[3] not in (roots[0], roots[4])


def test_clusters_with_representative_longest_then_name() -> None:
    a = np.array([0, 2, 4])
    b = np.array([1, 1, 5])
    clusters = clusters_from_pairs(
        7, a, b, lengths=[10, 30, 30, 5, 1, 1, 9], names=["u0", "u1", "u2", "u3", "u4", "u5", "u6"]
    )
    assert [c.size for c in clusters] == [3, 2]
    assert clusters[0].representative == 1  # 30 words, and "u1" < "u2"
    assert clusters[0].members == [1, 2, 0]
    assert clusters[1].representative == 4


def test_no_pairs_no_clusters() -> None:
    assert clusters_from_pairs(3, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == []
