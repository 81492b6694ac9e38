"""Run a converter in a worker process with a time and a memory limit.

PDF and office libraries are C code or deep XML walks over attacker-chosen input: a malformed
PDF can loop, a ZIP bomb can fill memory, a bug can segfault. :class:`Guard` keeps one worker
process (a fresh interpreter: no threads or open databases of the parent are inherited, and no
``__main__`` guard is needed in the caller's script) and sends it one conversion at a time over
a socket:

* the worker caps its own address space (``RLIMIT_AS``) at ``max_memory`` bytes, so an allocation
  past it fails inside the worker as a ``MemoryError`` → reason ``memory``;
* the parent waits at most ``timeout`` seconds for the answer, then kills the worker → ``timeout``;
* a worker that dies (segfault, the kernel's OOM killer) → ``crashed``, with its exit code.

Each is raised as :class:`~trawl.convert.base.ConversionError` with that reason; the next call
starts a fresh worker. A worker is also replaced after ``max_tasks`` conversions, to bound what a
leaking library can accumulate. Each worker has its own temporary folder (``TMPDIR``: an OCR page
image, LibreOffice's profile), removed by the parent when the worker ends, killed or not.
Converters must be importable module-level functions (they are sent by reference).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from trawl.convert.base import ConversionError
from trawl.errors import ConfigError
from trawl.subproc import die_with_parent, spawn

__all__ = ["DEFAULT_MAX_MEMORY", "DEFAULT_TIMEOUT", "Guard"]

#: Seconds a guarded conversion may take.
DEFAULT_TIMEOUT = 30.0
#: Bytes of address space a worker may use (0: no limit).
DEFAULT_MAX_MEMORY = 2 * 1024**3

T = TypeVar("T")


def _limit_memory(max_memory: int) -> None:
    if max_memory <= 0:
        return
    try:
        import resource  # noqa: PLC0415  # POSIX only; without it the time guard still holds

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = max_memory if hard == resource.RLIM_INFINITY else min(max_memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass


#: What a failure says when it was the memory limit (a library that could not map its code, or
#: could not allocate), however it is raised.
_OUT_OF_MEMORY = ("failed to map segment", "cannot allocate memory", "memory allocation", "out of memory")
#: The isolated converters' modules, imported before the memory limit so that the limit bounds
#: the conversion, not the loading of the libraries (their absence is the converter's to report).
_PRELOAD = ("trawl.convert.pdf", "trawl.convert.office", "trawl.convert.registry")


def _out_of_memory(exc: BaseException, max_memory: int) -> tuple[str, str, str] | None:
    if isinstance(exc, MemoryError) or any(m in str(exc).lower() for m in _OUT_OF_MEMORY):
        limit = f"{max_memory / 2**20:g} MiB" if max_memory else "the machine's"
        return ("error", "memory", f"the conversion needed more memory than the limit ({limit})")
    return None


def main(argv: list[str] | None = None) -> None:
    """The worker process: ``python -m trawl.convert.guard FD PARENT_PID MAX_MEMORY [TMPDIR]``.

    ``TMPDIR``: the worker's own temporary folder (its converters' files, an OCR page image,
    LibreOffice's profile and output, their programs' own), which the parent removes once the
    worker has ended, however it ended: a worker killed mid-file leaves nothing in ``/tmp``."""
    args = sys.argv[1:] if argv is None else argv
    fd, parent, max_memory = (int(a) for a in args[:3])
    if len(args) > 3:
        os.environ["TMPDIR"] = tempfile.tempdir = args[3]
    die_with_parent(parent)
    _worker(Connection(fd), max_memory)


def _worker(conn: Connection, max_memory: int) -> None:
    """The worker's loop: receive ``(func, args)``, answer ``("ok", result)`` or an error.

    Nothing escapes it as a traceback: a task that cannot even be unpacked (its modules would
    not load under the limit) is answered like a failed conversion.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")  # one thread's buffers, not one per core, under the limit
    for module in _PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(module)
    _limit_memory(max_memory)
    while True:
        answer: tuple[Any, ...]
        try:
            task = conn.recv()
        except (EOFError, ConnectionError):
            return
        except Exception as exc:  # unpickling the task failed: its module, or memory
            answer = _out_of_memory(exc, max_memory) or (
                "error",
                "failed",
                f"{type(exc).__name__}: {exc}"[:500],
            )
            task = ()
        else:
            if task is None:
                return
            func, args = task
            try:
                answer = ("ok", func(*args))
            except ConversionError as exc:
                answer = ("error", exc.reason, str(exc))
            except RecursionError:
                answer = ("error", "too-deep", "the document is nested too deeply")
            except Exception as exc:  # a library failure on bad input: reported, never raised
                answer = _out_of_memory(exc, max_memory) or (
                    "error",
                    "failed",
                    f"{type(exc).__name__}: {exc}"[:500],
                )
        try:
            conn.send(answer)
        except MemoryError:
            conn.send(("error", "memory", "the result was too large to send back"))
        except (EOFError, ConnectionError):
            return


class Guard:
    """One worker process that runs conversions under a time and memory limit (module docstring).

    The worker is a fresh interpreter (:func:`trawl.subproc.spawn`), not a ``multiprocessing``
    child: those import the parent's ``__main__`` again, so a user's script calling
    :func:`~trawl.convert.registry.convert_bytes` would need a ``__main__`` guard.
    """

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_memory: int = DEFAULT_MAX_MEMORY,
        max_tasks: int = 1000,
    ) -> None:
        if timeout <= 0 or max_memory < 0 or max_tasks <= 0:
            raise ConfigError(
                f"convert guard: timeout and max_tasks must be positive and max_memory not negative, "
                f"not {timeout}, {max_tasks}, {max_memory}"
            )
        self.timeout = timeout
        self.max_memory = max_memory
        self.max_tasks = max_tasks
        self._process: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._tmp: str | None = None
        self._tasks = 0
        self.restarts = 0

    def _start(self) -> Connection:
        mine, theirs = socket.socketpair()
        with mine, theirs:
            fd = theirs.fileno()
            tmp = tempfile.mkdtemp(prefix="trawl-guard-")
            args = [str(fd), str(os.getpid()), str(self.max_memory), tmp]
            try:
                process = spawn("trawl.convert.guard", args, (fd,))
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            self._tmp = tmp
            parent = Connection(os.dup(mine.fileno()))
        self._process, self._conn, self._tasks = process, parent, 0
        return parent

    def _stop(self, *, kill: bool) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            if not kill:
                with contextlib.suppress(OSError):
                    conn.send(None)
            conn.close()
        if process is not None:
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a worker that ignores its pipe closing
                process.kill()
                process.wait()
        tmp, self._tmp = self._tmp, None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    def close(self) -> None:
        """Stop the worker (a later call starts a new one)."""
        self._stop(kill=False)

    def __del__(self) -> None:
        # A step that was never closed (a pipeline iterated by hand) must not leave a worker behind.
        with contextlib.suppress(Exception):
            self._stop(kill=True)

    def __enter__(self) -> Guard:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def call(self, func: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """``func(*args)`` in the worker; raises :class:`ConversionError` on any failure."""
        conn = self._conn
        if conn is None or self._tasks >= self.max_tasks:
            if conn is not None:
                self._stop(kill=False)
            conn = self._start()
        self._tasks += 1
        limit = self.timeout if timeout is None else timeout
        t0 = time.monotonic()
        try:
            conn.send((func, args))
            ready = conn.poll(limit)
            answer = conn.recv() if ready else None
        except (EOFError, OSError, BrokenPipeError):
            process = self._process
            code = None
            if process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=1)
                code = process.returncode
            self._stop(kill=True)
            self.restarts += 1
            what = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            raise ConversionError(f"the converter's worker process died ({what})", "crashed") from None
        if answer is None:
            self._stop(kill=True)
            self.restarts += 1
            raise ConversionError(
                f"the conversion took longer than {limit:g} s ({time.monotonic() - t0:.1f} s): stopped",
                "timeout",
            )
        if answer[0] == "ok":
            result: T = answer[1]
            return result
        _, reason, message = answer
        raise ConversionError(message, reason)


if __name__ == "__main__":
    # run the imported module, not this ``__main__`` copy, so pickled functions resolve
    from trawl.convert.guard import main as _main

    _main()
