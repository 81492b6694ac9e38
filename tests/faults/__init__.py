"""Fault injection for tests: a disk that fills up (or fails) on demand, through ``enospc.c``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent / "enospc.c"

__all__ = ["SOURCE", "build_shim", "fault_env"]


def build_shim(directory: Path) -> Path:
    """Compile the shim into ``directory``; skips the test where there is no C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) to build the ENOSPC shim")
    lib = directory / "enospc.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(SOURCE), "-ldl"], check=True)
    return lib


def fault_env(
    shim: Path,
    root: Path,
    flag: Path,
    *,
    match: str = "",
    errno: str = "ENOSPC",
    after: int = 0,
    short: bool = False,
) -> dict[str, str]:
    """The environment of a process whose writes under ``root`` (to paths containing ``match``)
    fail with ``errno`` while ``flag`` exists, after ``after`` of them went through."""
    return {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "LD_PRELOAD": str(shim),
        "TRAWL_FAULT_FLAG": str(flag),
        "TRAWL_FAULT_DIR": str(root) + "/",
        "TRAWL_FAULT_MATCH": match,
        "TRAWL_FAULT_ERRNO": errno,
        "TRAWL_FAULT_AFTER": str(after),
        "TRAWL_FAULT_SHORT": "1" if short else "0",
    }
