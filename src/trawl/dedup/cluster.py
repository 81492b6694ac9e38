"""Discovery: near-duplicate pairs → clusters (union-find) → one representative per cluster.

Near-duplicate pairs are not transitive (A ~ B and B ~ C does not make A ~ C), but for a crawl
the useful unit is the connected component: every page reachable through near-duplicate links is
one "story", to be crawled, indexed and shown once. Components are found with a union-find
forest (union by size, path halving), which takes near-linear time in the number of pairs.

The **representative** of a cluster is the member with the most words (the fullest copy, which
is usually the original rather than an excerpt); ties go to the smallest URL, so reruns agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Cluster", "UnionFind", "clusters_from_pairs"]


class UnionFind:
    """A disjoint-set forest over 0..n-1 (union by size, path halving)."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        """Join the sets of a and b; False if they were already one set."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return True

    def union_all(self, a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> None:
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            self.union(x, y)

    def roots(self) -> npt.NDArray[np.int64]:
        """The root of every element (a component label)."""
        return np.fromiter(
            (self.find(i) for i in range(len(self.parent))), dtype=np.int64, count=len(self.parent)
        )


@dataclass(slots=True)
class Cluster:
    """A connected component of near duplicates (indices into the batch), representative first."""

    representative: int
    members: list[int]

    @property
    def size(self) -> int:
        return len(self.members)


def clusters_from_pairs(
    n: int,
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    *,
    lengths: Sequence[int] | npt.NDArray[np.int64] | None = None,
    names: Sequence[str] | None = None,
) -> list[Cluster]:
    """Connected components of size ≥ 2, each with its representative (see the module docstring).

    Clusters are ordered by size (largest first), then by representative name.
    """
    uf = UnionFind(n)
    uf.union_all(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    roots = uf.roots()
    counts = np.bincount(roots, minlength=n)
    involved = np.flatnonzero(counts[roots] >= 2)
    if involved.size == 0:
        return []
    lens = np.zeros(n, dtype=np.int64) if lengths is None else np.asarray(lengths, dtype=np.int64)
    keyname = names if names is not None else [f"{i:012d}" for i in range(n)]
    groups: dict[int, list[int]] = {}
    for i in involved.tolist():
        groups.setdefault(int(roots[i]), []).append(i)
    out = []
    for members in groups.values():
        members.sort(key=lambda i: (-int(lens[i]), keyname[i]))
        out.append(Cluster(members[0], members))
    out.sort(key=lambda c: (-c.size, keyname[c.representative]))
    return out
