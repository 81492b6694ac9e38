"""Fixtures of the extraction tests: the benchmark scripts under bench/ as modules."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` imported as a module (bench/ is not a package)."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/extract.py: the extraction benchmark and the classifier's fitting."""
    return bench_module("extract")


@pytest.fixture(scope="module")
def cv() -> ModuleType:
    """bench/extract_cv.py: the site-grouped cross-validation."""
    return bench_module("extract_cv")
