"""The worker-process guard: a timeout, a crash and an out-of-memory are reasons, not failures."""

from __future__ import annotations

import os
import sys
import time

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
