"""Shared fixtures. Evaluation data is read in place from ../shared/data (never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.s3 import s3, s3_server  # noqa: F401 - fixtures: an S3 server on loopback (moto)

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
TEST_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def test_data() -> Path:
    return TEST_DATA
