"""Every input fuzzing once found to break a parser is replayed through it (issue 35), and every
parser gets a short Hypothesis run of mutated seeds (``slow``).

The fixtures are ``tests/data/fuzz/<target>/<sha1>``, written by ``bench/fuzz.py``; the targets
and what counts as breaking one are in :mod:`tests.fuzz.targets`. A target that runs C code (the
compiled HTML walk, PDFium, FastWARC) is replayed in a child process, so a segfault that comes back
fails its test instead of the whole run.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.targets import (
    FUZZ_FIXTURES,
    MAX_LEN,
    ROOT,
    TARGETS,
    all_fixture_cases,
    mutate,
    mutate_zip,
    mutations,
)

HANG_BOUND = 10.0  # seconds for one input: the fuzzer's hang bound
CASES = list(all_fixture_cases())


def _replay_in_child(name: str, path: Path) -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from tests.fuzz.targets import TARGETS; "
        "TARGETS[sys.argv[2]].run(open(sys.argv[3], 'rb').read())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), name, str(path)],
        capture_output=True,
        text=True,
        timeout=HANG_BOUND + 30,  # + the imports
        check=False,
    )
    assert done.returncode == 0, f"{name} on {path.name}: exit {done.returncode}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{n}/{p.name[:12]}" for n, p in CASES])
def test_fixture_no_longer_breaks_its_parser(name: str, path: Path) -> None:
    target = TARGETS[name]
    began = time.monotonic()
    if target.compiled:
        _replay_in_child(name, path)
    else:
        target.run(path.read_bytes())
    assert time.monotonic() - began < HANG_BOUND + (30 if target.compiled else 0)


def test_fixtures_belong_to_known_targets() -> None:
    folders = [p.name for p in FUZZ_FIXTURES.iterdir()] if FUZZ_FIXTURES.is_dir() else []
    assert set(folders) <= set(TARGETS), sorted(set(folders) - set(TARGETS))
    assert CASES, "no fuzz fixtures: bench/fuzz.py saves every crash and hang in tests/data/fuzz"
    for _, path in CASES:
        assert path.stat().st_size <= MAX_LEN


def test_every_target_takes_its_seeds() -> None:
    pytest.importorskip("docx", reason="the convert corpus needs trawl[convert-test]")
    for target in TARGETS.values():
        seeds = target.seeds()
        assert seeds, target.name
        for seed in seeds:
            assert len(seed) <= MAX_LEN
            target.run(seed)


def _drive(tmp_path: Path, engine: str, seconds: float) -> tuple[dict[str, Any], str]:
    """bench/fuzz.py on the self-test target, which raises, hangs or segfaults by input length."""
    out = tmp_path / "fuzz.json"
    command = [sys.executable, str(ROOT / "bench" / "fuzz.py"), "--engine", engine, "--targets", "selftest"]
    command += ["--seconds", str(seconds), "--hang", "1", "--no-save", "--out", str(out)]
    env = {**os.environ, "TRAWL_FUZZ_SELFTEST": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, env=env)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # 1: something was found
    report = json.loads(out.read_text())
    return report["targets"]["selftest"], done.stdout


def test_the_driver_catches_exceptions_hangs_and_signals(tmp_path: Path) -> None:
    result, table = _drive(tmp_path, "hypothesis", 4)
    assert result["engine"] == "hypothesis" and result["executions"] > 3 and result["max_rss_mb"] > 0
    errors = {f["kind"]: f["error"] for f in result["findings"]}
    assert "ValueError: selftest" in errors["crash"] or "signal 11" in errors["crash"]
    assert result["hangs"] >= 1 and result["crashes"] >= 1
    kept = [ROOT / f["fixture"] for f in result["findings"]]
    assert all(p.exists() and len(p.read_bytes()) % 11 in (1, 2, 3) for p in kept)  # the culprits
    assert "| selftest | hypothesis |" in table


@pytest.mark.slow
def test_the_driver_catches_them_with_atheris(tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    result, _ = _drive(tmp_path, "atheris", 20)
    kinds = [f["kind"] for f in result["findings"]]
    assert "hang" in kinds and kinds.count("crash") >= 2, result["findings"]
    assert any("deadly signal" in f["error"] for f in result["findings"])


def test_zip_formats_through_the_guard() -> None:
    """The ZIP targets call the converters in-process; in a pipeline they run in the Guard's
    worker. Damaged packages (members edited, bytes edited) come back as drops there too."""
    pytest.importorskip("docx", reason="the convert corpus needs trawl[convert-test]")
    from trawl.convert.base import ConvertOptions
    from trawl.convert.guard import Guard
    from trawl.convert.registry import convert_bytes

    rng = random.Random(35)
    with Guard(timeout=20) as guard:
        for name, filename in (("docx", "a.docx"), ("xlsx", "a.xlsx"), ("odf", "a.odt"), ("epub", "a.epub")):
            seed = TARGETS[name].seeds()[0]
            for data in (
                mutate_zip(seed, rng, lambda body: mutate(body, rng)),
                mutate(seed, rng),
                seed[:-100],
            ):
                conversion = convert_bytes(data, filename=filename, options=ConvertOptions(), guard=guard)
                assert conversion.converted is not None or conversion.dropped or conversion.skipped
                assert not (conversion.dropped or "").endswith(("-crashed", "-timeout")), conversion.message


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TARGETS))
def test_mutated_seeds(name: str) -> None:
    pytest.importorskip("docx", reason="the convert corpus needs trawl[convert-test]")
    target = TARGETS[name]

    @settings(max_examples=1000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(mutations(target))
    def run(data: bytes) -> None:
        began = time.monotonic()
        target.run(data)
        assert time.monotonic() - began < HANG_BOUND

    run()
