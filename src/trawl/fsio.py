"""Files that may live elsewhere: local paths, and ``s3://`` (or any fsspec) URLs.

A thin, typed layer over `fsspec <https://filesystem-spec.readthedocs.io>`_ for what trawl needs
of a file: open it to read, its size, whether it exists, read or write it whole, copy it up or
down, list a prefix, remove it. A local path never goes through fsspec (it is not even
imported): the default path costs what ``open`` costs. A URL with a scheme other than ``file``
(``s3://bucket/crawl/a.warc.gz``) goes to the fsspec filesystem of that scheme, configured the
usual way (for S3: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, ``~/.aws``, an instance
role), plus an endpoint for S3-compatible servers (MinIO, Ceph, moto) from ``TRAWL_S3_ENDPOINT``
or :func:`configure`. ``s3://`` needs ``s3fs`` (``pip install 'trawl[scale]'``): without it, a
:class:`~trawl.errors.MissingDependency` naming the extra.

Errors are translated here: a remote input that is missing or cannot be read raises
:class:`~trawl.errors.InputError` quoting the URL (also when a read fails midway), a remote write
that fails :class:`~trawl.errors.StoreError`. Local reads raise :class:`~trawl.errors.InputError`
too; local writes raise the ``OSError`` itself, so that :mod:`trawl.store.disk` can tell a full
disk from the errno.

Nothing in trawl is below this module but :mod:`trawl.errors`; the readers
(:mod:`trawl.acquire`) and the jobs (:mod:`trawl.jobs`) use it.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import urlsplit
from urllib.request import url2pathname

from trawl.errors import InputError, MissingDependency, StoreError

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

__all__ = [
    "BLOCK_SIZE",
    "FileInfo",
    "configure",
    "exists",
    "expand",
    "get_file",
    "info",
    "is_remote",
    "join",
    "listdir",
    "open_input",
    "put_file",
    "read_bytes",
    "remove",
    "size",
    "write_bytes",
]

#: Bytes fetched per remote read: large enough that a WARC is read in a few dozen requests a
#: gigabyte (each a round trip), small enough that sniffing many files reads little beyond them.
BLOCK_SIZE = 8 << 20

# Two letters at least, so that a Windows drive (C://x, C:\x) is never a scheme.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")
_GLOB = re.compile(r"[*?\[]")
# The package behind each scheme trawl documents, and the extra that installs it.
_PACKAGES = {"s3": ("s3fs", "scale"), "s3a": ("s3fs", "scale")}

_options: dict[str, dict[str, Any]] = {}


def configure(*, s3_endpoint: str | None = None) -> None:
    """Options for the remote filesystems of this process (``TRAWL_S3_ENDPOINT`` overrides them).

    ``s3_endpoint``: the URL of an S3-compatible server (``http://127.0.0.1:9000`` for a MinIO);
    ``None`` or empty: AWS's own, or whatever botocore's configuration says.
    """
    s3 = {"endpoint_url": s3_endpoint} if s3_endpoint else {}
    _options["s3"] = s3
    _options["s3a"] = s3


def _scheme(path: str) -> str | None:
    match = _SCHEME.match(path)
    return match.group(1).lower() if match else None


def is_remote(path: str | PathLike[str]) -> bool:
    """Whether ``path`` is a URL of a filesystem other than this machine's (``s3://b/k``).

    ``file:`` URLs and Windows drive letters are local. A URL must be given as a string:
    ``Path("s3://b/k")`` has already lost a slash.
    """
    text = os.fspath(path)
    if "://" not in text:  # the cheap test that every local path fails
        return False
    scheme = _scheme(text)
    return scheme is not None and scheme != "file"


def _local(path: str | PathLike[str]) -> str:
    """The local path of a path or a ``file:`` URL."""
    text = os.fspath(path)
    if text[:7].lower() == "file://":
        return url2pathname(urlsplit(text).path)
    return text


def _fs(url: str) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem for ``url`` and the path within it."""
    scheme = _scheme(url) or ""
    package, extra = _PACKAGES.get(scheme, (scheme, "scale"))
    try:
        from fsspec.core import url_to_fs  # noqa: PLC0415 - only remote paths pay for fsspec
    except ImportError as exc:
        raise MissingDependency("fsspec", "scale", f"reading {url!r}") from exc
    options = dict(_options.get(scheme, {}))
    endpoint = os.environ.get("TRAWL_S3_ENDPOINT", "")
    if endpoint and scheme in ("s3", "s3a"):
        options["endpoint_url"] = endpoint
    try:
        fs, inner = url_to_fs(url, **options)
    except ImportError as exc:
        if scheme in _PACKAGES:
            raise MissingDependency(package, extra, f"reading {url!r}") from exc
        raise InputError(f"{url!r}: {scheme}:// URLs need a package that is not installed ({exc})") from exc
    except ValueError as exc:  # fsspec knows no such protocol
        raise InputError(f"{url!r}: no filesystem reads {scheme}:// URLs ({exc})") from exc
    return fs, inner


def _url(fs: AbstractFileSystem, path: str) -> str:
    return str(fs.unstrip_protocol(path))


@contextlib.contextmanager
def _reading(url: str, doing: str = "read") -> Iterator[None]:
    """Translate a filesystem's failure to read ``url`` into an InputError that quotes it."""
    try:
        yield
    except (InputError, MissingDependency):
        raise
    except FileNotFoundError as exc:
        raise InputError(f"input {url!r} does not exist") from exc
    except PermissionError as exc:
        raise InputError(f"cannot {doing} {url!r}: access denied ({exc})") from exc
    except Exception as exc:  # botocore, aiohttp, …: every failure of a remote read, one type
        raise InputError(f"cannot {doing} {url!r}: {_why(exc)}") from exc


@contextlib.contextmanager
def _writing(url: str, doing: str = "write") -> Iterator[None]:
    try:
        yield
    except (StoreError, MissingDependency):
        raise
    except Exception as exc:
        raise StoreError(f"cannot {doing} {url!r}: {_why(exc)}") from exc


@contextlib.contextmanager
def _midway(url: str) -> Iterator[None]:
    try:
        yield
    except OSError:
        raise
    except Exception as exc:
        raise OSError(errno.EIO, f"cannot read {url!r}: {_why(exc)}") from exc


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class _RemoteInput(io.RawIOBase):
    """A remote file opened for reading; fsspec's own file object does the read-ahead.

    A read that fails midway (a dropped connection, an expired credential) raises an
    ``OSError`` naming the URL, whatever the library below raised: readers isolate a file's I/O
    errors by catching ``OSError``, as they do for a local disk.
    """

    def __init__(self, url: str, inner: Any) -> None:
        super().__init__()
        self.name = url
        self._inner = inner

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._inner.seekable())

    def readinto(self, buffer: Any) -> int:
        with _midway(self.name):
            data = self._inner.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n

    def read(self, size: int | None = -1) -> bytes:
        with _midway(self.name):
            return bytes(self._inner.read(-1 if size is None else size))

    def readall(self) -> bytes:
        return self.read(-1)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        with _midway(self.name):
            return int(self._inner.seek(offset, whence))

    def tell(self) -> int:
        return int(self._inner.tell())

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):  # a read-only file has nothing left to lose
                self._inner.close()
        super().close()


def open_input(path: str | PathLike[str], *, block_size: int = BLOCK_SIZE) -> BinaryIO:
    """Open ``path`` (a local path or a URL) for binary reading; seekable where the filesystem is.

    A remote file is read ``block_size`` bytes a request, ahead of the reader. Raises
    :class:`InputError` quoting ``path`` when it does not exist or cannot be opened.
    """
    if not is_remote(path):
        local = _local(path)
        try:
            return open(local, "rb")
        except OSError as exc:
            raise InputError(f"cannot open {local!r}: {exc.strerror or exc}") from exc
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _reading(url, "open"):
        handle = fs.open(inner, "rb", block_size=block_size, cache_type="readahead")
    return _RemoteInput(url, handle)  # type: ignore[return-value]


def size(path: str | PathLike[str]) -> int:
    """The size of the file at ``path`` in bytes."""
    if not is_remote(path):
        local = _local(path)
        try:
            return os.path.getsize(local)
        except OSError as exc:
            raise InputError(f"cannot read {local!r}: {exc.strerror or exc}") from exc
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _reading(url):
        return int(fs.size(inner))


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What a filesystem says of a path without reading it."""

    size: int
    is_dir: bool
    modified: datetime | None  # UTC, whole seconds (as WARC-Date has them); None if not said


def info(path: str | PathLike[str]) -> FileInfo:
    """The size, kind and modification time of ``path`` (one request for a URL)."""
    if not is_remote(path):
        local = _local(path)
        try:
            st = os.stat(local)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise InputError(f"input {local!r} does not exist") from exc
            raise InputError(f"cannot read {local!r}: {exc.strerror or exc}") from exc
        return FileInfo(st.st_size, stat.S_ISDIR(st.st_mode), datetime.fromtimestamp(int(st.st_mtime), UTC))
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _reading(url):
        details = fs.info(inner)
    when = details.get("LastModified") or details.get("mtime") or details.get("last_modified")
    modified: datetime | None = None
    if isinstance(when, datetime):
        modified = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC).replace(microsecond=0)
    elif isinstance(when, int | float):
        modified = datetime.fromtimestamp(int(when), UTC)
    is_dir = details.get("type") == "directory"
    return FileInfo(0 if is_dir else int(details.get("size") or 0), is_dir, modified)


def exists(path: str | PathLike[str]) -> bool:
    """Whether a file (or a remote prefix holding files) is at ``path``."""
    if not is_remote(path):
        return os.path.exists(_local(path))
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _reading(url, "look up"):
        fs.invalidate_cache(inner)  # another process may have written it since this one listed
        return bool(fs.exists(inner))


def read_bytes(path: str | PathLike[str], *, start: int = 0, end: int | None = None) -> bytes:
    """The bytes of the file at ``path``, or of its range [``start``, ``end``)."""
    if not is_remote(path):
        local = _local(path)
        try:
            with open(local, "rb") as fh:
                if start:
                    fh.seek(start)
                return fh.read() if end is None else fh.read(max(0, end - start))
        except OSError as exc:
            raise InputError(f"cannot read {local!r}: {exc.strerror or exc}") from exc
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _reading(url):
        try:
            return bytes(fs.cat_file(inner, start=start or None, end=end))
        except Exception:
            # a range that starts at or past the end (an empty object's first bytes) is refused
            # by S3 (416, "range not satisfiable"), where a local file reads b""
            if start or end is not None:
                details = fs.info(inner)
                if details.get("type") == "file" and start >= int(details.get("size") or 0):
                    return b""
            raise


def _replace_atomically(target: str, fill: Any) -> None:
    """Write ``target`` through a temporary file beside it and a rename: readers see the old file
    or the new one, never half of it. ``fill(fileobj)`` writes the bytes."""
    folder = os.path.dirname(target) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    try:
        with open(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes(path: str | PathLike[str], data: bytes) -> None:
    """Write ``data`` as the whole file at ``path``, atomically: locally a temporary file and a
    rename (parent folders are created), on S3 one PUT (an object appears whole or not at all)."""
    if not is_remote(path):
        _replace_atomically(_local(path), lambda fh: fh.write(data))
        return
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _writing(url):
        fs.pipe_file(inner, data)


def put_file(local: str | PathLike[str], remote: str | PathLike[str]) -> None:
    """Copy the local file ``local`` to ``remote`` (a URL, or a local path: then a copy)."""
    source = _local(local)
    if not is_remote(remote):

        def copy(fh: Any) -> None:
            with open(source, "rb") as src:
                shutil.copyfileobj(src, fh, 1 << 20)

        _replace_atomically(_local(remote), copy)
        return
    url = os.fspath(remote)
    if not os.path.isfile(source):
        raise InputError(f"cannot upload {source!r} to {url!r}: no such file")
    fs, inner = _fs(url)
    with _writing(url, f"upload {source!r} to"):
        fs.put_file(source, inner)


def get_file(remote: str | PathLike[str], local: str | PathLike[str]) -> None:
    """Copy ``remote`` (a URL or a local path) to the local file ``local``, atomically."""
    target = _local(local)
    if not is_remote(remote):
        source = _local(remote)
        if not os.path.isfile(source):
            raise InputError(f"input {source!r} does not exist")

        def copy(fh: Any) -> None:
            with open(source, "rb") as src:
                shutil.copyfileobj(src, fh, 1 << 20)

        _replace_atomically(target, copy)
        return
    url = os.fspath(remote)
    fs, inner = _fs(url)
    with _reading(url, "download"), fs.open(inner, "rb", block_size=BLOCK_SIZE) as src:
        _replace_atomically(target, lambda fh: shutil.copyfileobj(src, fh, 1 << 20))


def listdir(prefix: str | PathLike[str]) -> list[str]:
    """The entries (files and folders) directly under ``prefix``, as full paths or URLs, sorted.

    A prefix that does not exist is empty, as on S3, where a "folder" exists only while it
    holds something.
    """
    if not is_remote(prefix):
        local = _local(prefix)
        try:
            names = os.listdir(local)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise InputError(f"cannot list {local!r}: {exc.strerror or exc}") from exc
        return sorted(os.path.join(local, name) for name in names)
    url = os.fspath(prefix)
    fs, inner = _fs(url)
    with _reading(url, "list"):
        fs.invalidate_cache(inner)
        try:
            entries = fs.ls(inner, detail=False)
        except FileNotFoundError:
            return []
    base = inner.rstrip("/")
    return sorted(_url(fs, str(e)) for e in entries if str(e).rstrip("/") != base)


def remove(path: str | PathLike[str]) -> None:
    """Remove the file at ``path``; one that is not there is no error."""
    if not is_remote(path):
        with contextlib.suppress(FileNotFoundError):
            os.remove(_local(path))
        return
    url = os.fspath(path)
    fs, inner = _fs(url)
    with _writing(url, "remove"), contextlib.suppress(FileNotFoundError):
        fs.rm_file(inner)


def join(base: str | PathLike[str], *parts: str) -> str:
    """``base`` and ``parts`` joined with the separator of its filesystem (``/`` for URLs)."""
    text = os.fspath(base)
    if not is_remote(text):
        return os.path.join(text, *parts)
    out = text
    for part in parts:
        out = (out if out.endswith("/") else out + "/") + part.lstrip("/")
    return out


def expand(paths: Iterable[str | PathLike[str]]) -> list[str]:
    """The files ``paths`` name, with remote globs and "folders" expanded, in order.

    A remote glob (``s3://b/crawl/*.warc.gz``) gives the files it matches, a remote folder (a
    prefix) every file under it, each sorted; local paths are returned as given (the local
    reader walks folders itself). A remote path that names nothing raises :class:`InputError`.
    """
    out: list[str] = []
    for path in paths:
        text = os.fspath(path)
        if not is_remote(text):
            out.append(text)
            continue
        fs, inner = _fs(text)
        with _reading(text, "list"):
            fs.invalidate_cache()
            if _GLOB.search(inner):
                found = fs.glob(inner, detail=True)
                files = sorted(p for p, info in found.items() if info.get("type") != "directory")
                if not files:
                    raise InputError(f"{text!r} matches no file")
            else:
                info = fs.info(inner)
                if info.get("type") == "directory":
                    files = sorted(fs.find(inner))
                    if not files:
                        raise InputError(f"{text!r} holds no file")
                else:
                    out.append(text)  # as given: provenance keeps the URL the user wrote
                    continue
        out.extend(_url(fs, f) for f in files)
    return out
