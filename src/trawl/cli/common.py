"""Options and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from trawl.acquire.localdir import file_document
from trawl.decode.http import DEFAULT_MAX_BYTES, decode_payload, file_coding
from trawl.document import Document
from trawl.errors import InputError

__all__ = [
    "add_config_options",
    "bounded",
    "err_console",
    "human_bytes",
    "out_console",
    "output_file",
    "read_document",
    "read_input_file",
    "regex",
    "removed_if_failed",
    "sentence",
]

#: What a gzipped file is declared as by its name; an unpacked one is declared by nothing.
_PACKED_TYPES = frozenset({"application/gzip", "application/x-gzip"})


def add_config_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration (defaults < --config file < TRAWL_* env < --set)")
    group.add_argument("--config", type=Path, metavar="FILE", help="a TOML file of options")
    group.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="override one option (repeatable), e.g. --set warc.max_file_bytes=100e6",
    )


def out_console() -> Console:
    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def err_console() -> Console:
    return Console(file=sys.stderr, highlight=False)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def _stdin_bytes() -> bytes:
    """Standard input's bytes (its text, UTF-8 encoded, where it is a text stream only)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read()
        return data
    return sys.stdin.read().encode("utf-8", "surrogateescape")


def _read_bytes(path: str, row: dict[str, Any], *, stdin: bool, max_file_bytes: int | None) -> bytes | None:
    """A command-line file's bytes as they are (``-``: standard input when ``stdin``); ``None``
    with ``row["error"]`` when it cannot be read or is over ``max_file_bytes``."""
    try:
        if stdin and path == "-":
            return _stdin_bytes()
        if max_file_bytes is not None:
            size = Path(path).stat().st_size
            if size > max_file_bytes:
                row["error"] = f"{path!r} is {size} bytes, over the limit of {max_file_bytes}"
                return None
        return Path(path).read_bytes()
    except OSError as exc:
        row["error"] = f"cannot read {path!r}: {exc.strerror or exc}"
        return None


def _gunzip(data: bytes, row: dict[str, Any]) -> bytes:
    """``data`` unpacked; problems undoing the gzip (truncation, the size cap) to ``row["problems"]``."""
    payload = decode_payload(data, None, "gzip", max_bytes=DEFAULT_MAX_BYTES)
    if payload.problems:
        row["problems"] = [f"{p.kind}: {p.message}" for p in payload.problems]
    return payload.data


def read_input_file(path: str, row: dict[str, Any], *, stdin: bool = False) -> bytes | None:
    """The bytes of a file named on the command line, gunzipped when they are gzip.

    ``-`` is standard input when ``stdin``. A file that cannot be read sets ``row["error"]`` and
    gives ``None``; problems undoing the gzip (truncation, the size cap) go to ``row["problems"]``.
    """
    data = _read_bytes(path, row, stdin=stdin, max_file_bytes=None)
    if data is not None and data[:2] == b"\x1f\x8b":
        data = _gunzip(data, row)
    return data


def read_document(
    path: str,
    row: dict[str, Any],
    *,
    stdin: bool = False,
    content_type: str | None = None,
    url: str | None = None,
    max_file_bytes: int | None = None,
) -> Document | None:
    """The document ``trawl ingest`` would make of a file named on the command line.

    Built by :func:`~trawl.acquire.localdir.file_document`, as a desktop crawl builds it (the
    name declares the type, ``page.html.gz`` is unpacked as a content coding); a gzipped file
    whose name does not say so is unpacked here, as these commands promise "plain or gzipped".
    A file that cannot be read, or is over ``max_file_bytes``, sets ``row["error"]`` and gives
    ``None``; problems undoing the gzip go to ``row["problems"]``.
    """
    raw = _read_bytes(path, row, stdin=stdin, max_file_bytes=max_file_bytes)
    if raw is None:
        return None
    doc = file_document(path, raw, content_type=content_type, url=url)
    if raw[:2] == b"\x1f\x8b" and file_coding(doc) is None:
        doc = file_document(path, _gunzip(raw, row), content_type=content_type, url=url)
        if doc.declared_type in _PACKED_TYPES:
            doc.declared_type = None
    return doc


@contextlib.contextmanager
def output_file(path: Path) -> Iterator[Path]:
    """A path to write a command's output file to, for ``-o PATH``.

    ``-`` is standard output. A symlink is written through (its target is replaced, the link
    stays); a device or FIFO (``/dev/stdout``, a named pipe) is written into, never replaced.
    Either way the writer gets a regular file to write (its own temporary file, copied out once
    complete); a plain path is given as it is, for the writer's own write-then-rename. A missing
    folder or a folder given as the file is a clear error before anything is written.
    """
    if str(path) == "-":
        with tempfile.TemporaryDirectory(prefix="trawl-out-") as tmp:
            staged = Path(tmp) / "out"
            yield staged
            with staged.open("rb") as fh:
                shutil.copyfileobj(fh, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return
    target = Path(os.path.realpath(path))  # a symlink: write its target
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"cannot write {str(path)!r}: it is a directory; give a file name")
    if st is None and not target.parent.is_dir():
        raise InputError(f"cannot write {str(path)!r}: the folder {str(target.parent)!r} does not exist")
    if st is not None and not stat.S_ISREG(st.st_mode):  # a device or a pipe: write into it
        with tempfile.TemporaryDirectory(prefix="trawl-out-") as tmp:
            staged = Path(tmp) / "out"
            yield staged
            with staged.open("rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return
    yield target


def add_scale_options(
    group: Any, workers_help: str, tasks_help: str | None = None, what: str = "the tasks"
) -> None:
    """``--workers N`` (what it does: ``workers_help``), ``--tasks T`` (when the command splits
    into tasks: ``tasks_help``), ``--executor local|ray`` and ``--ray-address A``: the options
    every command that runs on several processes or machines shares."""
    group.add_argument("--workers", type=bounded(int, 1), metavar="N", help=workers_help)
    if tasks_help is not None:
        group.add_argument("--tasks", type=bounded(int, 1), metavar="T", help=tasks_help)
    group.add_argument(
        "--executor",
        choices=("local", "ray"),
        help=f"where {what} run: local processes (the default) or Ray (needs trawl[scale])",
    )
    group.add_argument(
        "--ray-address", metavar="ADDR", help="a Ray cluster (ray://HOST:10001, or auto); else a local Ray"
    )


def collection_dir(value: str) -> Path:
    """An argparse ``type`` for ``-o COLLECTION``: a local (or shared, mounted) folder; a URL is
    refused (the collection's table is a RocksDB on a POSIX file system; inputs may be URLs)."""
    from trawl.fsio import is_remote  # noqa: PLC0415 - keep the CLI's import light

    if is_remote(value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is a URL: a collection is a folder on a local or mounted disk (inputs may be URLs)"
        )
    return Path(value)


def bounded(
    kind: type[int] | type[float], lo: float | None = None, hi: float | None = None, *, above: bool = False
) -> Any:
    """An argparse ``type`` that reads an ``int`` (``1e6`` too) or a ``float`` and checks its
    range, so that ``--port 99999`` or ``--simhash-k 64`` is one line of usage error, not a
    traceback later. ``lo``/``hi`` are inclusive; ``above``: the value must be more than ``lo``.
    """
    what = "an integer" if kind is int else "a number"

    def parse(text: str) -> int | float:
        try:
            number = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if kind is int and not number.is_integer():
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        value = int(number) if kind is int else number
        if lo is not None and (value <= lo if above else value < lo):
            raise argparse.ArgumentTypeError(f"{text} must be {'more than' if above else 'at least'} {lo:g}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"{text} must be at most {hi:g}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def regex(text: str) -> str:
    """An argparse ``type`` for a regular expression: checked now, kept as text."""
    import re  # noqa: PLC0415

    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {exc}") from None
    return text


@contextlib.contextmanager
def removed_if_failed(path: Path) -> Iterator[None]:
    """Remove the collection folder a command made if the command fails before storing anything
    (a missing input, a bad option found late): a failed command leaves nothing behind. A folder
    that existed before, or one that holds a WARC file, is left as it is."""
    path = Path(path)
    existed = path.exists() and (not path.is_dir() or any(path.iterdir()))
    try:
        yield
    except BaseException:
        warc = path / "warc"
        if not existed and path.is_dir() and not (warc.is_dir() and any(warc.iterdir())):
            shutil.rmtree(path, ignore_errors=True)
        raise


def sentence(text: str) -> str:
    """``text`` with its first letter a capital and nothing else changed (``str.capitalize``
    lower-cases the rest: "WARC/ARC" would read "warc/arc")."""
    return text[:1].upper() + text[1:]
