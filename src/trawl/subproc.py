"""Fresh worker interpreters over inherited file descriptors, that die with their parent.

``python -m <module> ...`` rather than a ``multiprocessing`` spawn or forkserver: those import
the parent's ``__main__`` again in the child, so a user's script that converts a PDF or starts an
ingest would need an ``if __name__ == "__main__":`` guard. The pipeline's step workers, the
crawl's store workers and the converters' guarded worker all start here.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["die_with_parent", "spawn"]


def spawn(module: str, args: Sequence[str], pass_fds: Sequence[int]) -> subprocess.Popen[bytes]:
    """``python -m module args...`` with ``pass_fds`` inherited and this package importable."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", module, *args]
    return subprocess.Popen(cmd, pass_fds=tuple(pass_fds), env=env, stdin=subprocess.DEVNULL)


def die_with_parent(parent: int) -> None:
    """Ask the kernel for ``SIGKILL`` when the parent dies (Linux); exit now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
