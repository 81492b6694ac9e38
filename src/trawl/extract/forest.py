"""A gradient-boosted tree ensemble, evaluated without the library that fitted it.

Stage 1 of the block classifier (:mod:`trawl.extract.dom`) is a small ensemble of regression
trees (LightGBM, cross-entropy objective, fitted by ``python bench/extract.py train``), stored as
plain tuples in :mod:`trawl.extract._forest`: a node table shared by all trees and one root per
tree. Node ``k`` sends a row to ``left[k]`` when ``x[feature[k]] <= threshold[k]`` and to
``right[k]`` otherwise; a child or root ``c < 0`` is the leaf ``~c``. The content probability is the
sigmoid of the summed leaf values. The compiled module (``_walk.forest_raw``) walks the trees row
by row in C; :func:`forest_raw_numpy` advances all rows one level at a time and is the reference
(both sum the trees in the same order, so they agree to the last bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from trawl.errors import ConfigError

__all__ = ["Forest", "forest_raw_numpy"]


@dataclass(frozen=True, slots=True)
class Forest:
    """A tree ensemble over the columns named ``names`` (see the module docstring)."""

    names: tuple[str, ...]
    feature: Any  # int64[n_nodes]
    threshold: Any  # float64[n_nodes]
    left: Any  # int64[n_nodes]
    right: Any  # int64[n_nodes]
    leaf: Any  # float64[n_leaves]
    roots: Any  # int64[n_trees]

    @classmethod
    def from_module(cls, module: ModuleType, columns: tuple[str, ...]) -> Forest:
        """The ensemble stored in ``module``, its features re-indexed to ``columns`` (the order in
        which the feature matrix has them); a feature the matrix lacks is a clear error."""
        names = tuple(module.NAMES)
        missing = [n for n in names if n not in columns]
        if missing:
            raise ConfigError(f"{module.__name__} uses features the extractor lacks: {', '.join(missing)}")
        where = np.array([columns.index(n) for n in names], dtype=np.int64)
        feature = np.asarray(module.FEATURE, dtype=np.int64)
        left = np.asarray(module.LEFT, dtype=np.int64)
        right = np.asarray(module.RIGHT, dtype=np.int64)
        leaf = np.asarray(module.LEAF, dtype=np.float64)
        roots = np.asarray(module.ROOTS, dtype=np.int64)
        threshold = np.asarray(module.THRESHOLD, dtype=np.float64)
        n_nodes = len(feature)
        # The compiled walk trusts these tables (no bounds checks), so they are checked here: every
        # index in range, and every child after its parent (nodes in preorder), so a walk ends.
        if not len(threshold) == len(left) == len(right) == n_nodes:
            raise ConfigError(f"{module.__name__}: node tables of different lengths")
        if n_nodes and not 0 <= feature.min() <= feature.max() < len(names):
            raise ConfigError(f"{module.__name__}: a split on a feature it does not name")
        at = np.arange(n_nodes)
        for child, parent in ((left, at), (right, at), (roots, None)):
            inner = child >= 0
            if (child[inner] >= n_nodes).any() or (~child[~inner] >= len(leaf)).any():
                raise ConfigError(f"{module.__name__}: a node points outside the tables")
            if parent is not None and (child[inner] <= parent[inner]).any():
                raise ConfigError(f"{module.__name__}: a child before its parent (nodes not in preorder)")
        return cls(names, where[feature] if n_nodes else feature, threshold, left, right, leaf, roots)

    def raw(self, x: Any, walk: Any = None) -> Any:
        """The summed leaf values for every row of ``x`` (float64, C-contiguous), by the compiled
        module ``walk`` when given, else by numpy."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        if walk is None:  # not built (blocks.compiled_walk: a stale build is not used either)
            return forest_raw_numpy(self, x)
        out = np.empty(len(x))
        walk.forest_raw(x, self.feature, self.threshold, self.left, self.right, self.leaf, self.roots, out)
        return out


def forest_raw_numpy(forest: Forest, x: Any) -> Any:
    """:meth:`Forest.raw` in numpy: per tree, every row descends one level per step."""
    n = len(x)
    out = np.zeros(n)
    rows = np.arange(n)
    for root in forest.roots.tolist():
        if root < 0:
            out += forest.leaf[~root]
            continue
        node = np.full(n, root, dtype=np.int64)
        active = rows
        while len(active):
            at = node[active]
            go_left = x[active, forest.feature[at]] <= forest.threshold[at]
            node[active] = np.where(go_left, forest.left[at], forest.right[at])
            active = active[node[active] >= 0]
        out += forest.leaf[~node]
    return out
