"""The one exception tree of trawl.

Third-party errors are translated at the boundary (``raise TrawlError(...) from exc``) so that
callers only ever catch these::

    TrawlError                      anything trawl raises on purpose
    ├── ConfigError                 a bad option, file or environment variable
    ├── MissingDependency           an optional extra is not installed (names the extra)
    ├── InputError                  a source cannot be opened or read at all
    │   └── FormatError             bytes are not what they claim to be
    │       ├── WarcFormatError     a WARC/ARC record is malformed (bad header, lying length, …)
    │       ├── TrecFormatError     a TREC <DOC> block is malformed
    │       └── CompressionError    a truncated or corrupt gzip/bz2/zstd stream
    ├── StageError                  a pipeline stage failed on one document
    └── StoreError                  the collection cannot be created, opened, read or written
        ├── CollectionNotFound      no collection at that path
        ├── RecordNotFound          no record for that URL / DOCNO / pointer
        └── DiskError               the disk refused a write (full, quota, read-only, I/O error)

Every message quotes the bad input and, where there is one, names the fix.
"""

from __future__ import annotations

__all__ = [
    "CollectionNotFound",
    "CompressionError",
    "ConfigError",
    "DiskError",
    "FormatError",
    "InputError",
    "MissingDependency",
    "RecordNotFound",
    "StageError",
    "StoreError",
    "TrawlError",
    "TrecFormatError",
    "WarcFormatError",
    "quote_bytes",
]


class TrawlError(Exception):
    """Base of every error trawl raises on purpose."""


class ConfigError(TrawlError):
    """A configuration value, file or environment variable is invalid."""


class MissingDependency(TrawlError):
    """An optional dependency is missing; the message names the extra that provides it."""

    def __init__(self, module: str, extra: str, needed_by: str) -> None:
        self.module = module
        self.extra = extra
        self.needed_by = needed_by
        super().__init__(
            f"{needed_by} needs the Python module {module!r}, which is not installed; "
            f"install it with: pip install 'trawl[{extra}]'"
        )


class InputError(TrawlError):
    """A source cannot be opened or read."""


class FormatError(InputError):
    """Bytes are not in the format they claim to be in.

    ``offset`` is the byte offset in the (compressed) file where the problem starts, when known.
    """

    def __init__(self, message: str, *, offset: int | None = None, source: str | None = None) -> None:
        self.offset = offset
        self.source = source
        where = ""
        if source is not None:
            where = f"{source}"
            if offset is not None:
                where += f" @{offset}"
            where += ": "
        super().__init__(where + message)
        self.reason = message


class WarcFormatError(FormatError):
    """A WARC or ARC record is malformed."""


class TrecFormatError(FormatError):
    """A TREC Web ``<DOC>`` block is malformed."""


class CompressionError(FormatError):
    """A compressed stream is truncated or corrupt."""


class StageError(TrawlError):
    """A pipeline stage failed on one document."""


class StoreError(TrawlError):
    """The collection cannot be created, opened, read or written."""


class CollectionNotFound(StoreError):
    """There is no trawl collection at the given path."""


class RecordNotFound(StoreError):
    """No record matches the requested key."""


class DiskError(StoreError):
    """The disk refused a write: full (``ENOSPC``), over quota (``EDQUOT``), a file too large
    (``EFBIG``), read-only (``EROFS``) or failing (``EIO``).

    Not one document's problem: every write after it would fail too, so a run stops at the first
    one, keeping what it stored before; ``--resume`` (a crawl) or the same command again (an
    ingest) continues once the cause is fixed. :func:`trawl.store.disk.disk_error` finds one
    behind an ``OSError``, SQLite's ``SQLITE_FULL``/``SQLITE_IOERR`` and RocksDB's ``IO error``.
    """

    def __init__(self, path: str, errno: int, strerror: str, what: str) -> None:
        self.path = path
        self.errno = errno
        self.strerror = strerror
        self.what = what  # "disk full", "I/O error", ...
        super().__init__(f"{what} writing {path} ({strerror})")

    def __reduce__(self) -> tuple[type[DiskError], tuple[str, int, str, str]]:
        return DiskError, (self.path, self.errno, self.strerror, self.what)


def quote_bytes(data: bytes, limit: int = 60) -> str:
    """Quote the start of some bad input for an error message, printable and bounded."""
    shown = data[:limit]
    text = repr(shown)
    if len(data) > limit:
        text += f"… ({len(data)} bytes)"
    return text
