"""The event loop the crawler and the test web run on: uvloop when it is installed, asyncio's own
otherwise.

uvloop (MIT/Apache-2.0, in the ``crawl`` extra) runs the same asyncio programs with a loop
written in Cython over libuv; socket callbacks, timers and futures cost less, which matters when
one core serves a thousand fetches a second. Nothing in trawl depends on it: without it, or with
``TRAWL_UVLOOP=0`` in the environment, the standard loop runs the same code.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["loop_factory", "new_event_loop", "run", "uvloop_enabled"]

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or ``None`` (asyncio's default) when absent or disabled."""
    if os.environ.get("TRAWL_UVLOOP", "1").lower() in ("0", "no", "false", "off"):
        return None
    try:
        import uvloop  # noqa: PLC0415 - optional extra
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def uvloop_enabled() -> bool:
    return loop_factory() is not None


def new_event_loop() -> asyncio.AbstractEventLoop:
    factory = loop_factory()
    return factory() if factory is not None else asyncio.new_event_loop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the fastest loop available."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
