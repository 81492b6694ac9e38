"""A gradient-boosted tree ensemble, evaluated without the library that fitted it.

Stage 1 of the block classifier (:mod:`trawl.extract.dom`) is a small ensemble of regression
trees (LightGBM, cross-entropy objective, fitted by ``python bench/extract.py train``), stored as
plain tuples in :mod:`trawl.extract._forest`: a node table shared by all trees and one root per
tree. Node ``k`` sends a row to ``left[k]`` when ``x[feature[k]] <= threshold[k]`` and to
``right[k]`` otherwise; a child or root ``c < 0`` is the leaf ``~c``. The content probability is the
sigmoid of the summed leaf values. The compiled module evaluates the trees by leaf masks
(``_walk.forest_masks``, QuickScorer: a row's value per feature is compared with that feature's
thresholds in ascending order, and each split it goes right at clears its left subtree's leaves;
~40 % less time than walking the trees, whose data-dependent branches the processor mispredicts),
or, for a tree of over 64 leaves, walks them row by row (``_walk.forest_raw``);
:func:`forest_raw_numpy` advances all rows one level at a time and is the reference (all sum the
trees in the same order, so they agree to the last bit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from trawl.errors import ConfigError

__all__ = ["Forest", "forest_raw_numpy", "leaf_masks"]


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
    #: The same trees as leaf masks for ``_walk.forest_masks`` (see :func:`leaf_masks`), or None
    #: when a tree has more than 64 leaves; made from the tables above.
    masks: Any = field(default=None, compare=False, repr=False)
    #: How many columns a feature matrix needs: one past the highest feature a split reads.
    width: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.masks is None:
            object.__setattr__(self, "masks", leaf_masks(self))
        object.__setattr__(self, "width", int(self.feature.max()) + 1 if len(self.feature) else 0)

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
        if x.ndim != 2 or (len(x) and x.shape[1] < self.width):
            # (The compiled walks read x[row, feature] unchecked.)
            raise ValueError(f"a forest over {self.width} columns given a matrix of shape {x.shape}")
        if walk is None:  # not built (blocks.compiled_walk: a stale build is not used either)
            return forest_raw_numpy(self, x)
        out = np.empty(len(x))
        if self.masks is not None:
            walk.forest_masks(x, *self.masks, out)
        else:
            walk.forest_raw(
                x, self.feature, self.threshold, self.left, self.right, self.leaf, self.roots, out
            )
        return out


def leaf_masks(forest: Forest) -> tuple[Any, ...] | None:
    """The tables of ``_walk.forest_masks``: ``(features, offsets, thresholds, trees, masks,
    leaves, stride)``. Per tree its leaves are numbered left to right, and a split's mask clears
    the leaves of its left subtree (a row that goes right cannot reach them); the splits are
    grouped by feature, by ascending threshold within one. None when a tree has over 64 leaves."""
    feats: list[int] = []
    thrs: list[float] = []
    trees: list[int] = []
    masks: list[int] = []
    tree_leaves: list[list[float]] = []
    left, right = forest.left.tolist(), forest.right.tolist()
    feature, threshold, leaf = forest.feature.tolist(), forest.threshold.tolist(), forest.leaf.tolist()
    full = (1 << 64) - 1
    for t, root in enumerate(forest.roots.tolist()):
        stack, n_leaves = [root], 0
        while stack and n_leaves <= 64:  # counted first: the numbering below recurses
            c = stack.pop()
            if c < 0:
                n_leaves += 1
            else:
                stack += (left[c], right[c])
        if n_leaves > 64:
            return None
        values: list[float] = []

        def number(c: int, values: list[float] = values, t: int = t) -> tuple[int, int]:
            """Numbers the leaves under child ``c`` left to right: their first number and count."""
            if c < 0:
                values.append(leaf[~c])
                return len(values) - 1, 1
            first, n_left = number(left[c])
            _, n_right = number(right[c])
            feats.append(feature[c])
            thrs.append(threshold[c])
            trees.append(t)
            masks.append(full ^ (((1 << n_left) - 1) << first))
            return first, n_left + n_right

        number(root)
        tree_leaves.append(values)
    stride = max((len(v) for v in tree_leaves), default=1)
    leaves = np.zeros(len(tree_leaves) * stride)
    for t, values in enumerate(tree_leaves):
        leaves[t * stride : t * stride + len(values)] = values
    order = sorted(range(len(feats)), key=lambda k: (feats[k], thrs[k]))
    used = sorted(set(feats))
    offsets = np.searchsorted(
        np.array([feats[k] for k in order], dtype=np.int64), [*used, max(used, default=0) + 1]
    )
    return (
        np.array(used, dtype=np.int64),
        np.asarray(offsets, dtype=np.int64),
        np.array([thrs[k] for k in order], dtype=np.float64),
        np.array([trees[k] for k in order], dtype=np.int64),
        np.array([masks[k] for k in order], dtype=np.uint64),
        leaves,
        stride,
    )


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
