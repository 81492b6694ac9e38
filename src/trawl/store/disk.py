"""When the disk says no: the write errors that stop a run, found behind whatever raised them.

A page that breaks a parser is one page's problem (counted, recorded, the run goes on); a write
the disk refuses is every page's: the next write would fail too, and a crawl that went on would
take pages it could not store for done. So :func:`disk_error` recognises the refusal however it
surfaces:

* an ``OSError`` with ``ENOSPC``, ``EDQUOT``, ``EFBIG``, ``EROFS`` or ``EIO`` (a WARC file, the
  stats, a tablet's master map), also as the ``__cause__`` of a :class:`~trawl.errors.StoreError`;
* SQLite's ``SQLITE_FULL`` and ``SQLITE_IOERR`` (the frontier);
* RocksDB's ``IO error: No space left on device: While appending to file: <path>`` (the table;
  rocksdict raises a plain ``Exception``) and Rust's ``... (os error 28)``.

and turns it into one :class:`~trawl.errors.DiskError` whose message names the file and the
cause (``disk full writing <path> (No space left on device)``); :func:`advice` says what to do.
RocksDB stays read-only after such an error until it is opened again, SQLite rolls the
transaction back: what was committed before stays, which is what a resume needs.
"""

from __future__ import annotations

import errno as errnos
import os
import re
import sqlite3
from collections.abc import Callable
from typing import IO

from trawl.errors import DiskError

__all__ = ["DISK_ERRNOS", "advice", "counter", "cut_back", "disk_error", "refused", "write_all"]

#: the errors that stop a run, and how a message names each
DISK_ERRNOS: dict[int, str] = {
    errnos.ENOSPC: "disk full",
    errnos.EDQUOT: "disk quota exceeded",
    errnos.EFBIG: "file too large",
    errnos.EROFS: "read-only file system",
    errnos.EIO: "I/O error",
}
_FIX = {
    errnos.ENOSPC: "free space",
    errnos.EDQUOT: "free space or raise the quota",
    errnos.EFBIG: "lower warc.max_file_bytes or use a file system that takes larger files",
    errnos.EROFS: "make the file system writable",
    errnos.EIO: "check the disk (dmesg, smartctl)",
}
_SQLITE = {13: errnos.ENOSPC, 10: errnos.EIO}  # SQLITE_FULL, SQLITE_IOERR (primary codes)
_BY_TEXT = {os.strerror(n).lower(): n for n in DISK_ERRNOS}
# RocksDB: "IO error: No space left on device: While appending to file: /x/000004.log: No space..."
_ROCKS_FILE = re.compile(r"While [^:]*: (/[^:\s]+)")
_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def _from_text(text: str) -> tuple[int, str | None] | None:
    """The errno and file a RocksDB or Rust error message names, if it is a disk error."""
    m = _OS_ERROR.search(text)
    if m and int(m.group(1)) in DISK_ERRNOS:
        return int(m.group(1)), None
    if "IO error" not in text:
        return None
    low = text.lower()
    for phrase, number in _BY_TEXT.items():
        if phrase in low:
            f = _ROCKS_FILE.search(text)
            return number, f.group(1) if f else None
    return None


def _sqlite_errno(number: int, path: str | os.PathLike[str] | None) -> int:
    """SQLite says ``SQLITE_IOERR`` for every write error but ``ENOSPC`` (and not always for that):
    the file system, when it is known, tells a read-only or full disk from a failing one."""
    if number != errnos.EIO or path is None:
        return number
    where = os.fspath(path)
    try:
        st = os.statvfs(where if os.path.exists(where) else os.path.dirname(where) or ".")
    except OSError:
        return number
    if st.f_flag & os.ST_RDONLY:
        return errnos.EROFS
    return errnos.ENOSPC if st.f_bavail == 0 else number


def disk_error(exc: BaseException, path: str | os.PathLike[str] | None = None) -> DiskError | None:
    """The :class:`DiskError` ``exc`` is or was caused by (``path``: the file being written,
    when the error does not name it), or None when it is no disk error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found: tuple[int, str | None] | None = None
        if isinstance(current, DiskError):
            return current
        if isinstance(current, OSError) and current.errno in DISK_ERRNOS:
            found = current.errno, current.filename if isinstance(current.filename, str) else None
        elif isinstance(current, sqlite3.Error):
            code = getattr(current, "sqlite_errorcode", None)
            if isinstance(code, int) and (code & 0xFF) in _SQLITE:
                found = _sqlite_errno(_SQLITE[code & 0xFF], path), None
        elif type(current) is Exception or "rocksdict" in type(current).__module__:
            found = _from_text(str(current))
        if found is not None:
            number, named = found
            where = named or (os.fspath(path) if path is not None else "the collection")
            return DiskError(where, number, os.strerror(number), DISK_ERRNOS[number])
        current = current.__cause__ or current.__context__
    return None


def refused(write: Callable[[], object], path: str | os.PathLike[str] | None = None) -> DiskError | None:
    """Run ``write``; the :class:`DiskError` it met, or None (any other error is raised): for
    the writes at a run's end (its counters, a state commit) that must not hide why it stopped."""
    try:
        write()
    except Exception as exc:
        if (disk := disk_error(exc, path)) is None:
            raise
        return disk
    return None


def advice(error: DiskError, resume: str) -> str:
    """What to do about ``error`` before ``resume`` (``run again with --resume``)."""
    return f"{_FIX.get(error.errno, 'fix the disk')} and {resume}"


def counter(error: DiskError) -> str:
    """The counter a run adds one to when it stops on ``error`` (``store/error/enospc``)."""
    return f"store/error/{errnos.errorcode.get(error.errno, str(error.errno)).lower()}"


def write_all(fh: IO[bytes], data: bytes) -> None:
    """Write every byte of ``data`` to the unbuffered ``fh``: a short write (a disk filling up)
    is followed by the rest, which then fails or goes through. Unbuffered, so that a failed
    record is not left in a buffer that a later flush or close would write after all."""
    view = memoryview(data)
    while view:
        written = fh.write(view)
        view = view[written or 0 :]


def cut_back(fh: IO[bytes], size: int) -> bool:
    """Cut the file back to ``size`` bytes (the end of its last whole record) after a failed
    write, so no part of a record stays behind; False if even that failed (shrinking a file
    needs no space, but a failing device may refuse it)."""
    try:
        os.ftruncate(fh.fileno(), size)
        fh.seek(size)
    except (OSError, ValueError):
        return False
    return True
