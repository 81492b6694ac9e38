"""The site bootstrap of bench/extract_cv.py (trawl against a peer on pages of unseen sites)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest


def test_a_constant_difference_has_no_width(cv: ModuleType) -> None:
    lo, hi = cv.site_interval(np.full(40, 0.25), np.arange(40) % 7, 7, np.random.default_rng(1))
    assert lo == pytest.approx(0.25) and hi == pytest.approx(0.25)


def test_independent_pages_give_the_normal_interval(cv: ModuleType) -> None:
    rng = np.random.default_rng(2)
    values = rng.normal(0.1, 0.3, size=2000)
    lo, hi = cv.site_interval(values, np.arange(2000), 2000, np.random.default_rng(3))
    half = 1.96 * values.std() / np.sqrt(len(values))
    assert lo < values.mean() < hi
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.1)


def test_pages_of_one_site_move_together(cv: ModuleType) -> None:
    """Ten sites of ten identical pages: as wide as ten pages, not a hundred."""
    rng = np.random.default_rng(4)
    per_site = rng.normal(0.0, 0.3, size=10)
    values = np.repeat(per_site, 10)
    sites = np.repeat(np.arange(10), 10)
    lo_site, hi_site = cv.site_interval(values, sites, 10, np.random.default_rng(5))
    lo_page, hi_page = cv.site_interval(values, np.arange(100), 100, np.random.default_rng(5))
    assert hi_site - lo_site > 2.5 * (hi_page - lo_page)
    assert lo_site < per_site.mean() < hi_site


def test_bad_site_indices_are_refused(cv: ModuleType) -> None:
    rng = np.random.default_rng(6)
    with pytest.raises(ValueError, match="site"):
        cv.site_interval([0.1, 0.2], [0, 2], 2, rng)  # index out of range
    with pytest.raises(ValueError, match="site"):
        cv.site_interval([0.1, 0.2], [0], 1, rng)  # one index per value
    with pytest.raises(ValueError, match="without pages"):
        cv.site_interval([0.1, 0.2], [0, 0], 2, rng)  # site 1 has no pages
    with pytest.raises(ValueError, match="site"):
        cv.site_interval([], [], 1, rng)


def test_a_run_against_an_earlier_dump(
    cv: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--against: per type the paired difference, and the pages that moved; a dump that lacks
    pages of this run is refused."""
    recs = [{"num": f"{i:04d}", "type": "a" if i < 6 else "b", "site": f"s{i % 4}"} for i in range(10)]
    before = tmp_path / "before.txt"
    before.write_text("\n".join(f"{r['num']} 0.5 0.5 0.5000" for r in recs))
    now = {r["num"]: (0.6, 0.6, 0.6 if r["type"] == "a" else 0.5) for r in recs}
    cv.against(recs, now, str(before))
    rows = {
        line.split("|")[1].strip(): line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ")
    }
    assert "+0.0600" in rows["all"] and "| 6 / 0 |" in rows["all"]
    assert "| 0.5000 | 0.6000 | +0.1000 | [+0.1000, +0.1000] | 6 / 0 |" in rows["a"]
    assert "| +0.0000 |" in rows["b"] and "| 0 / 0 |" in rows["b"]
    before.write_text("0000 0.5 0.5 0.5")
    with pytest.raises(SystemExit, match="lacks 9"):
        cv.against(recs, now, str(before))
