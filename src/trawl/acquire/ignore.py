"""What a desktop crawl leaves alone: system folders and ``.gitignore``-style ignore files.

An ignore file (``.gitignore``, ``.trawlignore``: the names are configurable) holds git's
wildmatch patterns, read with ``pathspec``'s :class:`~pathspec.GitIgnoreSpec` (MPL-2.0, an
unmodified dependency). As in git, a file's patterns apply to paths below its own folder, a
deeper file overrides a shallower one (``!keep.log`` re-includes what a parent excluded), and a
folder that is excluded is not entered, so nothing under it can be re-included. Ignore files are
read as the walk enters each folder (they decide the walk, so they are read on every run).

System folders (``$RECYCLE.BIN``, ``System Volume Information``, ``lost+found``,
``__pycache__``, ``node_modules``...) are skipped by name, case-insensitively, unless asked for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trawl.errors import MissingDependency

__all__ = [
    "MAX_IGNORE_BYTES",
    "SYSTEM_FOLDERS",
    "IgnoreFile",
    "ignored",
    "is_system_folder",
    "load_ignore_file",
]

#: folders that hold no one's documents: recycle bins, file system bookkeeping, caches, installed
#: dependencies (dot-folders such as ``.git`` and ``.Trash-1000`` are hidden names already)
SYSTEM_FOLDERS = (
    "$RECYCLE.BIN",
    "System Volume Information",
    "lost+found",
    "__pycache__",
    "node_modules",
    "__MACOSX",
    "RECYCLER",
)
#: an ignore file larger than this is not read (counted as ``local/ignore-file-too-large``)
MAX_IGNORE_BYTES = 1 << 20


def is_system_folder(name: str, names: Sequence[str] = SYSTEM_FOLDERS) -> bool:
    folded = name.casefold()
    return any(folded == n.casefold() for n in names)


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The patterns of one ignore file, which apply below ``base`` (its folder)."""

    base: Path
    spec: Any  # pathspec.GitIgnoreSpec

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included (a ``!`` pattern); None: no pattern matches."""
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        result = self.spec.check_file(rel + "/" if is_dir else rel)
        include = result.include
        return None if include is None else bool(include)


def load_ignore_file(path: Path) -> IgnoreFile:
    """The patterns in ``path``; raises ``OSError`` when it cannot be read, ``ValueError`` when it
    is too large to be an ignore file."""
    try:
        from pathspec import GitIgnoreSpec  # noqa: PLC0415 - only a walk with ignore files needs it
    except ImportError as exc:
        raise MissingDependency("pathspec", "all", "ignore files (local.ignore_files)") from exc
    with open(path, "rb") as fh:
        data = fh.read(MAX_IGNORE_BYTES + 1)
    if len(data) > MAX_IGNORE_BYTES:
        raise ValueError(f"{os.fspath(path)!r} is over {MAX_IGNORE_BYTES} bytes: not an ignore file")
    lines = data.decode("utf-8", "replace").splitlines()
    return IgnoreFile(path.parent, GitIgnoreSpec.from_lines(lines))


def ignored(rules: Sequence[IgnoreFile], path: Path, is_dir: bool) -> bool:
    """Whether ``path`` is ignored by ``rules`` (shallowest first): the deepest file with a
    matching pattern decides, as in git."""
    for rule in reversed(rules):
        verdict = rule.verdict(path, is_dir)
        if verdict is not None:
            return verdict
    return False
