"""The stage-1 tree ensemble: the shipped tables are sound, the compiled and numpy evaluations agree
to the last bit, and both give what the library that fitted the trees gives."""

from __future__ import annotations

import types

import numpy as np
import pytest

from trawl.errors import ConfigError
from trawl.extract import _forest
from trawl.extract.features import STAGE1_NAMES, stage1_matrix
from trawl.extract.forest import Forest, forest_raw_numpy
from trawl.html import blocks


def _module(**tables: tuple[object, ...]) -> types.ModuleType:
    m = types.ModuleType("tiny_forest")
    for k, v in tables.items():
        setattr(m, k, v)
    return m


def _tiny() -> Forest:
    # Tree 0: x[b] <= 0.5 ? (x[a] <= 2 ? 1.0 : 2.0) : 3.0   Tree 1: a single leaf, -0.25.
    m = _module(
        NAMES=("a", "b"),
        FEATURE=(1, 0),
        THRESHOLD=(0.5, 2.0),
        LEFT=(1, ~0),
        RIGHT=(~2, ~1),
        LEAF=(1.0, 2.0, 3.0, -0.25),
        ROOTS=(0, ~3),
    )
    return Forest.from_module(m, ("b", "a"))  # the matrix has the columns the other way round


def test_tiny_forest_by_hand() -> None:
    forest = _tiny()
    x = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 2.5], [0.6, 0.0], [0.5, 9.0]])  # columns b, a
    want = np.array([1.0, 1.0, 2.0, 3.0, 2.0]) - 0.25
    assert np.array_equal(forest_raw_numpy(forest, x), want)
    walk = blocks.compiled_walk()
    if walk is not None:
        assert np.array_equal(forest.raw(x, walk), want)


def test_tables_pointing_outside_or_unknown_features_are_errors() -> None:
    with pytest.raises(ConfigError, match="lacks: c"):
        Forest.from_module(
            _module(NAMES=("a", "c"), FEATURE=(), THRESHOLD=(), LEFT=(), RIGHT=(), LEAF=(), ROOTS=()), ("a",)
        )
    good: dict[str, tuple[object, ...]] = {"NAMES": ("a",), "FEATURE": (0,), "THRESHOLD": (1.0,)}
    good |= {"LEFT": (~0,), "RIGHT": (~1,), "LEAF": (1.0, 2.0), "ROOTS": (0,)}
    Forest.from_module(_module(**good), ("a",))
    for change, message in (
        ({"LEFT": (~5,)}, "outside"),
        ({"ROOTS": (3,)}, "outside"),
        ({"LEFT": (0,)}, "before its parent"),  # a loop: the compiled walk would never end
        ({"FEATURE": (1,)}, "does not name"),
        ({"THRESHOLD": ()}, "different lengths"),
    ):
        with pytest.raises(ConfigError, match=message):
            Forest.from_module(_module(**(good | change)), ("a",))


def test_shipped_forest_reads_the_stage1_columns() -> None:
    forest = Forest.from_module(_forest, STAGE1_NAMES)
    assert len(forest.roots) >= 10
    assert set(_forest.NAMES) <= set(STAGE1_NAMES)
    assert len(forest.leaf) == len(forest.feature) + len(forest.roots)  # binary trees


def test_compiled_and_numpy_agree_on_real_feature_rows() -> None:
    walk = blocks.compiled_walk()
    if walk is None:
        pytest.skip("the compiled walk is not built here")
    forest = Forest.from_module(_forest, STAGE1_NAMES)
    rng = np.random.default_rng(3)
    paragraphs = "".join(f"<p>{'word ' * int(n)}<a href=x>link</a></p>" for n in rng.integers(1, 60, 40))
    article = "<p>A sentence of content, with words. And more.</p>" * 20
    pages = [
        f"<body>{paragraphs}</body>",
        f"<body><nav><ul>{'<li><a href=a>Home</a></li>' * 12}</ul></nav><article><h1>T</h1>{article}"
        "</article><footer>(c) 2024</footer></body>",
    ]
    for markup in pages:
        x = stage1_matrix(blocks.parse_blocks(markup))
        assert np.array_equal(forest.raw(x, walk), forest_raw_numpy(forest, x))
    x = rng.normal(size=(500, len(STAGE1_NAMES))) * 3
    assert np.array_equal(forest.raw(x, walk), forest_raw_numpy(forest, np.ascontiguousarray(x)))


def test_exported_tables_give_what_lightgbm_gives(bench: types.ModuleType) -> None:
    try:
        import lightgbm  # noqa: F401  (the train extra; its OpenMP runtime may be missing too)
    except (ImportError, OSError) as exc:
        pytest.skip(f"lightgbm unavailable: {exc}")
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3000, 6))
    y = ((x[:, 0] > 0.2) ^ (x[:, 3] * x[:, 1] > 0.5)).astype(np.float64)
    booster = bench._fit_forest(x, y, np.full(len(y), 0.01))
    m = _module(NAMES=tuple("abcdef"), **{k: tuple(v) for k, v in bench._forest_tables(booster).items()})
    forest = Forest.from_module(m, tuple("abcdef"))
    want = booster.predict(x, raw_score=True)
    assert np.array_equal(forest_raw_numpy(forest, x), want)
    walk = blocks.compiled_walk()
    if walk is not None:
        assert np.array_equal(forest.raw(x, walk), want)


def _random_forest(
    rng: np.random.Generator, n_trees: int, max_leaves: int, n_features: int, *, exact: bool = False
) -> Forest:
    """Random binary trees in preorder (node tables as LightGBM's export gives them), of 1 to
    ``max_leaves`` leaves (``exact``: all of them)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    leaf: list[float] = []
    roots: list[int] = []

    def grow(leaves: int) -> int:
        if leaves == 1:
            leaf.append(float(rng.normal()))
            return ~(len(leaf) - 1)
        k = len(feature)
        feature.append(int(rng.integers(n_features)))
        threshold.append(float(rng.choice([0.0, 0.5, 1.0, rng.normal()])))  # ties between splits
        left.append(0)
        right.append(0)
        split = int(rng.integers(1, leaves))
        left[k] = grow(split)
        right[k] = grow(leaves - split)
        return k

    for _ in range(n_trees):
        roots.append(grow(max_leaves if exact else int(rng.integers(1, max_leaves + 1))))
    names = tuple(f"f{i}" for i in range(n_features))
    tables = {"FEATURE": feature, "THRESHOLD": threshold, "LEFT": left, "RIGHT": right, "LEAF": leaf}
    return Forest.from_module(
        _module(NAMES=names, ROOTS=tuple(roots), **{k: tuple(v) for k, v in tables.items()}), names
    )


def test_leaf_masks_give_the_tree_walks_sums() -> None:
    """The leaf-mask evaluation (forest_masks) equals the tree walk and numpy to the last bit:
    random trees of 1 to 64 leaves (a tree that is one leaf included), values on thresholds,
    NaN and infinities (NaN goes right, as in the walk); over 64 leaves, no masks and the walk."""
    walk = blocks.compiled_walk()
    if walk is None:
        pytest.skip("the compiled walk is not built here")
    rng = np.random.default_rng(11)
    for max_leaves in (1, 2, 7, 64):
        forest = _random_forest(rng, 30, max_leaves, 5)
        assert forest.masks is not None
        x = rng.choice([0.0, 0.5, 1.0, np.nan, np.inf, -np.inf, *rng.normal(size=20)], size=(400, 5))
        want = forest_raw_numpy(forest, x)
        walked = np.empty(len(x))
        walk.forest_raw(
            x, forest.feature, forest.threshold, forest.left, forest.right, forest.leaf, forest.roots, walked
        )
        assert np.array_equal(forest.raw(x, walk), want) and np.array_equal(walked, want)
    big = _random_forest(rng, 2, 65, 3, exact=True)
    assert big.masks is None
    x = rng.normal(size=(50, 3))
    assert np.array_equal(big.raw(x, walk), forest_raw_numpy(big, x))
    assert np.array_equal(forest.raw(np.zeros((0, 5)), walk), np.zeros(0))


def test_a_matrix_narrower_than_the_splits_is_refused() -> None:
    forest = _tiny()  # its splits read columns 0 and 1
    assert forest.width == 2
    with pytest.raises(ValueError, match="2 columns"):
        forest.raw(np.zeros((3, 1)), blocks.compiled_walk())
    with pytest.raises(ValueError, match="2 columns"):
        forest.raw(np.zeros(3))
