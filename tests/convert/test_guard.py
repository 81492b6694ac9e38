"""The worker-process guard: a timeout, a crash and an out-of-memory are reasons, not failures."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from trawl.convert.base import ConversionError
from trawl.convert.guard import Guard
from trawl.errors import ConfigError


def test_results_come_back_and_the_worker_is_reused() -> None:
    with Guard() as guard:
        assert guard.call(sum, [1, 2, 3]) == 6
        assert guard.call(len, b"abc") == 3
        assert guard.restarts == 0


def test_timeout_kills_the_worker_and_the_next_call_gets_a_new_one() -> None:
    with Guard(timeout=0.5) as guard:
        t0 = time.perf_counter()
        with pytest.raises(ConversionError) as info:
            guard.call(time.sleep, 30)
        assert info.value.reason == "timeout" and time.perf_counter() - t0 < 10
        assert guard.call(sum, [4, 5]) == 9
        assert guard.restarts == 1


def _leave_a_file_and_hang(note: str) -> None:
    """In the worker: a temporary file (as OCR's page image is), its path noted, then a hang."""
    handle, path = tempfile.mkstemp(prefix="trawl-ocr-", suffix=".img")
    os.write(handle, b"x" * 1000)
    Path(note).write_text(path, encoding="utf-8")
    time.sleep(30)


def test_a_killed_workers_temporary_files_are_removed(tmp_path: Path) -> None:
    note = tmp_path / "where"
    with Guard(timeout=2) as guard:
        with pytest.raises(ConversionError) as info:
            guard.call(_leave_a_file_and_hang, str(note))
        assert info.value.reason == "timeout"
        left = Path(note.read_text(encoding="utf-8"))
        assert left.name.startswith("trawl-ocr-") and left.parent.name.startswith("trawl-guard-")
        assert not left.exists() and not left.parent.exists()  # the worker's own folder, gone
        assert guard.call(sum, [1, 2]) == 3  # a new worker, with a folder of its own
    assert not list(Path(left.parent.parent).glob(f"{left.parent.name}*"))


def test_a_crashing_worker_is_a_reason() -> None:
    with Guard() as guard:
        with pytest.raises(ConversionError) as info:
            guard.call(os._exit, 3)
        assert info.value.reason == "crashed" and "exit code 3" in str(info.value)
        assert guard.call(max, [1, 7]) == 7


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_memory_limit_turns_a_huge_allocation_into_a_reason() -> None:
    with Guard(max_memory=512 * 1024**2) as guard:
        with pytest.raises(ConversionError) as info:
            guard.call(bytearray, 2 * 1024**3)
        assert info.value.reason == "memory"


def test_exceptions_in_the_worker_are_reported_with_their_type() -> None:
    with Guard() as guard, pytest.raises(ConversionError) as info:
        guard.call(int, "not a number")
    assert info.value.reason == "failed" and "ValueError" in str(info.value)


def test_bad_limits_are_configuration_errors() -> None:
    with pytest.raises(ConfigError):
        Guard(timeout=0)


def test_the_readme_example_runs_as_a_script_without_a_main_guard(tmp_path: Path) -> None:
    """Saved as a script and run, the README's guarded conversion works as it is: the worker is a
    fresh interpreter, which does not import the script again (multiprocessing's would)."""
    import re
    import subprocess

    from tests.convert.corpus import build

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "Guard(" in b)
    (tmp_path / "report.pdf").write_bytes(build("pdf", seed=4, size=2).data)
    (tmp_path / "example.py").write_text(example, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pdf False"), done.stdout
