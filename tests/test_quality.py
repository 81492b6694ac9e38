"""The package stays typed (mypy --strict) and lint-clean (ruff), and its public API is explicit."""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import trawl

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (pip install -e '.[test]')")
def test_ruff_clean() -> None:
    r = subprocess.run(
        ["ruff", "check", "src", "tests", "bench"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict() -> None:
    pytest.importorskip("mypy")
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_module_declares_its_public_api() -> None:
    missing = []
    for info in pkgutil.walk_packages(trawl.__path__, "trawl."):
        module = importlib.import_module(info.name)
        if info.name.endswith("__main__"):
            continue
        names = getattr(module, "__all__", None)
        if names is None:
            if not info.ispkg and not info.name.startswith("trawl.cli."):
                missing.append(info.name)
            continue
        for name in names:
            assert hasattr(module, name), f"{info.name}.__all__ names {name!r}, which does not exist"
    assert not missing, f"modules without __all__: {missing}"
