"""Pick the reader for an input from its bytes, never from its name.

``crawl.warc.gz``, ``wt10g/B01.gz`` and ``notes.txt`` all end up somewhere sensible however they
are named: :func:`sniff_input` undoes any compression and looks at the first bytes (``WARC/1.``,
``filedesc://``, ``<DOC>``), and :func:`open_source` / :func:`sources_for` build the matching
:class:`~trawl.pipeline.base.Source`. An input that cannot be opened at all raises
:class:`~trawl.errors.InputError` here, before any reading starts, because that is a mistake on
the command line rather than bad data inside a file.

Inputs may be URLs (``s3://bucket/crawl/*.warc.gz``, :mod:`trawl.fsio`): a glob or a remote
"folder" is expanded to its files, each sniffed from its first bytes (one ranged read); archives
go to their readers, which stream them, and any other file to
:class:`~trawl.acquire.remote.RemoteFileSource`.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from trawl import fsio
from trawl.acquire.localdir import LocalDirSource
from trawl.acquire.remote import RemoteFileSource
from trawl.acquire.streams import Compression, detect_compression, input_name, open_input, open_raw
from trawl.acquire.trec import TrecSource
from trawl.errors import ConfigError, InputError
from trawl.pipeline.base import Audit, RunContext, Source
from trawl.pipeline.stats import Stats

if TYPE_CHECKING:
    from trawl.config import Config

__all__ = ["InputKind", "archive_directory", "kind_of", "open_source", "sniff_input", "sources_for"]

InputKind = Literal["warc", "arc", "trec", "directory", "file"]

_HEAD = 4096  # enough for a BOM and the blank lines some TREC files start with
_REMOTE_HEAD = 65536  # compressed bytes fetched to sniff a remote file: _HEAD and more, decompressed
_BOM = b"\xef\xbb\xbf"
# Which reader handles each kind: consecutive inputs with the same reader share one Source.
_FAMILY: dict[str, str] = {
    "warc": "warc",
    "arc": "warc",
    "trec": "trec",
    "directory": "local",
    "file": "local",
}


def _head(path: Path | io.BytesIO) -> bytes:
    """The first decompressed bytes of a file; whatever a damaged stream gives before failing."""
    raw, _ = open_raw(path)
    try:
        try:
            stream, _kind = open_input(raw)
        except OSError as exc:
            raise InputError(f"cannot read {input_name(path)!r}: {exc.strerror or exc}") from exc
        read1 = getattr(stream, "read1", None)
        read = read1 if callable(read1) else stream.read
        head = b""
        # A damaged stream still tells its kind by the bytes it gave before failing; the reader
        # reports the damage itself when it gets there.
        with contextlib.suppress(Exception):
            while len(head) < _HEAD:
                chunk = read(_HEAD - len(head))
                if not chunk:
                    break
                head += chunk
        if stream is not raw:
            stream.close()
        return head
    finally:
        raw.close()


def kind_of(head: bytes) -> InputKind:
    """The kind of a file whose decompressed content starts with ``head``."""
    if head.startswith(b"WARC/1."):
        return "warc"
    if head.startswith(b"filedesc://"):
        return "arc"
    body = head[len(_BOM) :] if head.startswith(_BOM) else head
    if body.lstrip(b" \t\r\n\f\v").startswith(b"<DOC>"):
        return "trec"
    return "file"


def sniff_input(path: str | PathLike[str]) -> InputKind:
    """``"warc"``, ``"arc"``, ``"trec"``, ``"directory"`` or ``"file"``, from the bytes.

    Special files (FIFOs, sockets, devices) are never opened, since opening a FIFO blocks; they
    are ``"file"`` and the local reader records them as ``local/not-regular``. Raises
    :class:`InputError`, quoting the path, when it does not exist or cannot be read.
    """
    where = os.fspath(path)
    if fsio.is_remote(where):
        return _sniff_remote(where)
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError as exc:
        what = "is a broken symlink" if p.is_symlink() else "does not exist"
        raise InputError(f"input {where!r} {what}") from exc
    except OSError as exc:
        raise InputError(f"cannot read input {where!r}: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(st.st_mode):
        try:
            with os.scandir(p):
                pass
        except OSError as exc:
            raise InputError(f"cannot list directory {where!r}: {exc.strerror or exc}") from exc
        return "directory"
    if not stat.S_ISREG(st.st_mode):
        return "file"
    if st.st_size == 0:
        # No bytes to sniff: the name is the only evidence, so that an empty crawl.warc.gz is
        # reported by the WARC reader as warc/empty-file rather than stored as an empty document.
        return _kind_from_name(p.name)
    head = _head(p)
    if not head:
        # Compressed, but nothing decompresses (a corrupt gzip): the name is the only evidence,
        # so that a damaged crawl.warc.gz reaches the WARC reader, which says what is wrong with
        # it, instead of being stored as one opaque file.
        return _kind_from_name(p.name)
    return kind_of(head)


def _sniff_remote(url: str) -> InputKind:
    """:func:`sniff_input` for a URL: from its first bytes, read in one ranged request."""
    try:
        head = fsio.read_bytes(url, end=_REMOTE_HEAD)
    except InputError:
        if fsio.exists(url) and fsio.info(url).is_dir:
            return "directory"
        raise
    name = url.rstrip("/").rsplit("/", 1)[-1]
    if not head:
        return _kind_from_name(name)
    decompressed = _head(io.BytesIO(head))
    return kind_of(decompressed) if decompressed else _kind_from_name(name)


def _kind_from_name(name: str) -> InputKind:
    parts = name.lower().split(".")[1:]
    if "warc" in parts:
        return "warc"
    if "arc" in parts:
        return "arc"
    if "trec" in parts:
        return "trec"
    return "file"


def _could_be_archive(path: Path) -> bool:
    """A cheap look at a file's first bytes: only a compressed file, or one starting like a WARC,
    ARC or TREC file, needs the full sniff."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False  # the local reader records why
    try:
        head = os.read(fd, 16)
    except OSError:
        return False
    finally:
        os.close(fd)
    if detect_compression(head) != Compression.NONE or kind_of(head) != "file":
        return True
    body = head.removeprefix(_BOM).lstrip(b" \t\r\n\f\v")
    return body[:1] in (b"<", b"")  # a TREC file's <DOC>, perhaps after more blank lines than this


def archive_directory(
    path: str | PathLike[str], local: Mapping[str, Any] | None = None
) -> tuple[list[tuple[Path, InputKind]], bool]:
    """The archives (WARC, ARC, TREC) in a directory, and whether it holds anything else.

    ``trawl ingest crawl/`` on a folder of WARC files means "read these archives", not "store
    each .warc.gz as one opaque document", also when a README or a checksum file lies beside
    them: archives are read by their readers, every other file by the local reader. The walk is
    the local reader's own (``local``: its options, so hidden files, patterns, symlinks and the
    excluded output collection count the same way); a file is sniffed fully only when its first
    bytes could start an archive.
    """
    walker = LocalDirSource([path], **(local or {}))
    # an incremental ingest: a file stored before and unchanged by stat is not opened to sniff it
    changes = walker.changes
    found: list[tuple[Path, InputKind]] = []
    others = False
    # what it cannot read, the local reader records; incremental, it replays this walk
    counted = RunContext(Stats(), Audit(None, keep=sys.maxsize))
    walked: list[tuple[Path, os.stat_result]] = []
    for file, st in walker.files(counted):
        kind: InputKind = "file"
        if changes is not None:
            walked.append((file, st))
            if changes.known(file, st):
                others = True
                continue
        if stat.S_ISREG(st.st_mode) and _could_be_archive(file):
            try:
                kind = sniff_input(file)
            except InputError:
                kind = "file"  # unreadable: let the local reader record it as a drop
        if kind in ("warc", "arc", "trec"):
            found.append((file, kind))
        else:
            others = True
    if changes is not None:
        changes.remember_walk(Path(path), walked, counted)
    return found, others


def _build(family: str, paths: list[str | PathLike[str]], options: Mapping[str, Any]) -> Source:
    if family == "trec":
        return TrecSource(paths, **options)
    if family == "local":
        return LocalDirSource(paths, **options)
    if family == "remote":
        return RemoteFileSource([os.fspath(p) for p in paths], **options)
    try:
        # Imported here so that TREC and local inputs work in an install (or a checkout) that
        # lacks the WARC reader's dependencies.
        from trawl.acquire.warc import WarcSource  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415
    except ImportError as exc:
        raise InputError(
            f"{os.fspath(paths[0])!r} is a WARC/ARC file, but the WARC reader cannot be loaded: {exc}"
        ) from exc
    return WarcSource(paths, **options)  # type: ignore[no-any-return,unused-ignore]


def open_source(path: str | PathLike[str], **options: Any) -> Source:
    """The Source that reads ``path``, given ``options`` for that reader's constructor.

    WARC and ARC files get ``trawl.acquire.warc.WarcSource``, TREC files :class:`TrecSource`,
    directories and any other file :class:`LocalDirSource` (a file named by a URL:
    :class:`~trawl.acquire.remote.RemoteFileSource`).
    """
    family = _FAMILY[sniff_input(path)]
    if family == "local" and fsio.is_remote(path):
        family = "remote"
    return _build(family, [path], options)


def _config_options(config: Config | None) -> dict[str, dict[str, Any]]:
    """Each reader's constructor options taken from a :class:`~trawl.config.Config`."""
    if config is None:
        return {"warc": {}, "trec": {}, "local": {}, "remote": {}}
    ingest, local = config.ingest, config.local
    # An empty content_types list means "keep every type", which WarcSource spells None.
    warc: dict[str, Any] = {
        "record_types": list(ingest.record_types),
        "content_types": list(ingest.content_types) or None,
    }
    trec: dict[str, Any] = {}
    if ingest.max_record_bytes > 0:
        warc["max_length"] = ingest.max_record_bytes
        trec["max_doc_bytes"] = ingest.max_record_bytes
    loc: dict[str, Any] = {
        "skip_hidden": local.skip_hidden,
        "follow_symlinks": local.follow_symlinks,
        "skip_system": local.skip_system,
        "system_folders": list(local.system_folders),
        "ignore_files": list(local.ignore_files),
        "include": list(local.include) or ["*"],
        "exclude": list(local.exclude),
        "record_access": local.record_access,
    }
    remote: dict[str, Any] = {}
    if local.max_file_bytes > 0:
        loc["max_file_bytes"] = local.max_file_bytes
        remote["max_file_bytes"] = local.max_file_bytes
    return {"warc": warc, "trec": trec, "local": loc, "remote": remote}


def sources_for(
    paths: Sequence[str | PathLike[str]],
    *,
    config: Config | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Source]:
    """One Source per run of consecutive inputs read by the same reader, in input order.

    Every input is sniffed first, so a missing or unreadable one fails (with
    :class:`InputError`) before anything is read. Reader options come from ``config``
    (``ingest.max_record_bytes``, ``ingest.record_types``, ``ingest.content_types``, the
    ``local`` section) and then ``options``, keyed by reader: ``"warc"``, ``"trec"``, ``"local"``,
    ``"remote"`` (loose files named by URL; ``local.max_file_bytes`` bounds them too).

    A URL is expanded first (:func:`trawl.fsio.expand`: a glob or a remote folder gives its
    files, sorted), and each file is sniffed like a local one.
    """
    merged = _config_options(config)
    for family, extra in (options or {}).items():
        if family not in merged:
            raise ConfigError(
                f"no reader called {family!r}; options are for 'warc', 'trec', 'local' or 'remote'"
            )
        merged[family].update(extra)
    groups: list[tuple[str, list[str | PathLike[str]]]] = []
    left: dict[int, list[Path]] = {}  # by group: a folder's archives, which its local reader leaves

    def add(family: str, path: str | PathLike[str]) -> None:
        if groups and groups[-1][0] == family and len(groups) - 1 not in left:
            groups[-1][1].append(path)
        else:
            groups.append((family, [path]))

    for path in paths:
        if fsio.is_remote(path):
            for url in fsio.expand([path]):
                family = _FAMILY[sniff_input(url)]
                add("remote" if family == "local" else family, url)
            continue
        kind = sniff_input(path)
        if kind != "directory":
            add(_FAMILY[kind], path)
            continue
        archives, others = archive_directory(path, merged["local"])
        for archive, archive_kind in archives:
            add(_FAMILY[archive_kind], archive)
        if not archives:
            add("local", path)
        elif others:  # the rest of the folder: a desktop crawl that leaves the archives alone
            groups.append(("local", [path]))
            left[len(groups) - 1] = [a for a, _ in archives]
    return [
        _build(family, group, {**merged[family], **({"archive_paths": left[i]} if i in left else {})})
        for i, (family, group) in enumerate(groups)
    ]
