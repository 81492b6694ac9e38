"""Where the statistics get their text: a collection's stored text, or plain files.

Both yield :class:`~trawl.textstats.report.DocText` lazily, one document at a time. A collection
is read through its public API (:meth:`~trawl.store.collection.Collection.records`), in SURT order,
so a host's documents come together. Files are read as UTF-8 when they are valid UTF-8 and
otherwise through trawl's charset detection; files that look binary (NUL bytes in their first
8 KiB) and unreadable files are skipped and counted, never fatal; files larger than
``STREAM_BYTES`` are decoded and counted in pieces, so a single huge file does not need its whole
text in memory.
"""

from __future__ import annotations

import codecs
import functools
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from trawl.errors import InputError
from trawl.textstats.report import DocText

if TYPE_CHECKING:  # the statistics of plain files need no store (and its RocksDB)
    from trawl.store.collection import Collection

__all__ = ["STREAM_BYTES", "collection_documents", "file_documents", "host_of"]

#: Files larger than this are read in pieces of this size.
STREAM_BYTES = 16 << 20


def host_of(row: str) -> str:
    """The host part of a SURT row key: ``com,example)/a`` → ``com,example``; ``file:/x`` → ``file:``."""
    if ")" in row:
        return row.split(")", 1)[0]
    return row.split(":", 1)[0] + ":"


def collection_documents(
    collection: Collection, prefix: str = "", *, start: str = "", end: str | None = None
) -> Iterator[DocText]:
    """The stored text of every record (title and body), optionally under a SURT prefix and in
    the row-key range ``[start, end)``."""
    for record in collection.records(prefix, start=start, end=end):
        text = record.text
        title = record.title
        # The body of a plain-text document starts with its title line; do not count it twice.
        if title and not text.lstrip().startswith(title):
            text = title + "\n" + text
        yield DocText(record.url or record.row, host_of(record.row), text)


def _pieces(path: Path) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with path.open("rb") as handle:
        while True:
            block = handle.read(STREAM_BYTES)
            if not block:
                break
            yield decoder.decode(block)
    yield decoder.decode(b"", final=True)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        from trawl.decode.charset import decode_html  # noqa: PLC0415 - only for non-UTF-8 files

        return decode_html(data, None, html=False).text


def _walk(root: Path, pattern: str) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith(".") and Path(name).match(pattern):
                yield Path(directory) / name


def file_documents(
    paths: Sequence[str | os.PathLike[str]], *, pattern: str = "*", skipped: Counter[str] | None = None
) -> Iterator[DocText]:
    """One document per file under ``paths`` (files or directories, walked in sorted order).

    ``pattern`` selects file names (``*.txt``); ``skipped`` counts ``binary`` and ``unreadable``
    files. A path that does not exist raises :class:`~trawl.errors.InputError` before anything is
    read.
    """
    roots = [Path(p) for p in paths]
    for root in roots:
        if not root.exists():
            raise InputError(f"{str(root)!r} does not exist; give text files or directories of them")
    counts = skipped if skipped is not None else Counter()
    for root in roots:
        for path in _walk(root, pattern):
            host = str(path.parent)
            try:
                size = path.stat().st_size
                with path.open("rb") as handle:
                    head = handle.read(8192)
                if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
                    counts["binary"] += 1
                    continue
                if size > STREAM_BYTES:
                    yield DocText(str(path), host, "", pieces=functools.partial(_pieces, path))
                    continue
                text = _decode(path.read_bytes())
            except OSError:
                counts["unreadable"] += 1
                continue
            yield DocText(str(path), host, text)
