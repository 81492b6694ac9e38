"""Read a directory tree (a "desktop crawl") as documents: one document per regular file.

The walk is deterministic (entries sorted by name at every level) so that two runs over the same
tree yield the same documents in the same order, which keeps resumable and sharded runs honest.
It is also defensive, because a home directory holds everything a parser can trip on: sockets
and FIFOs (opening a FIFO blocks forever, so nothing is opened before ``stat`` says it is a
regular file, and the open itself is non-blocking), broken symlinks, symlink loops, files that
vanish between listing and reading, and files too large to hold in memory. Each is a counted,
recorded drop under ``local/``; the walk goes on.

Symlinks to files are read (as their target, whose resolved path is the URL). Symlinks to
directories are entered only with ``follow_symlinks=True``, and then a directory already on the
current path is reported as a loop instead of being walked forever.
"""

from __future__ import annotations

import errno
import mimetypes
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from trawl.acquire.access import access_of
from trawl.acquire.ignore import SYSTEM_FOLDERS, IgnoreFile, ignored, is_system_folder, load_ignore_file
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import RunContext, Source, check_shard

if TYPE_CHECKING:
    from trawl.acquire.budget import ResourceBudget
    from trawl.acquire.desktop import ChangeTracker

__all__ = ["LocalDirSource", "file_document", "guess_type"]

STAGE = "local"

# A private table built from Python's own defaults only, so the guess does not change with the
# host's /etc/mime.types; plus the formats trawl itself reads and writes.
_TYPES = mimetypes.MimeTypes()
for _ext, _type in {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rst": "text/x-rst",
    ".jsonl": "application/jsonl",
    ".ndjson": "application/x-ndjson",
    ".warc": "application/warc",
    ".arc": "application/x-internet-archive",
    ".trec": "application/x-trec",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".log": "text/plain",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}.items():
    _TYPES.add_type(_type, _ext)
_TYPES.encodings_map[".zst"] = "zstd"
_TYPES.encodings_map[".zstd"] = "zstd"
_TYPES.encodings_map[".lz4"] = "lz4"

# What the bytes of a compressed file are, whatever they hold inside.
_ENCODING_TYPES = {
    "gzip": "application/gzip",
    "bzip2": "application/x-bzip2",
    "xz": "application/x-xz",
    "zstd": "application/zstd",
    "br": "application/x-brotli",
    "compress": "application/x-compress",
    "lz4": "application/x-lz4",
}


def guess_type(name: str) -> tuple[str | None, str | None]:
    """The media type of a file's bytes from its name, and what a compressed file holds inside.

    ``report.html`` → ``("text/html", None)``; ``report.html.gz`` → ``("application/gzip",
    "text/html")``: ``raw`` is the compressed file, so that is what is declared.
    """
    inner, encoding = _TYPES.guess_type(name, strict=False)
    if encoding is not None:
        return _ENCODING_TYPES.get(encoding, "application/octet-stream"), inner
    return inner, None


def file_document(
    path: str,
    data: bytes,
    *,
    content_type: str | None = None,
    url: str | None = None,
    fetched_at: datetime | None = None,
) -> Document:
    """The document ingest makes of a file called ``path`` holding ``data``.

    The declared type comes from the name, as in a desktop crawl (``report.html.gz`` is gzip
    holding HTML, undone as a content coding); ``content_type`` is taken as an HTTP
    ``Content-Type`` the file was served with, and then it is the declaration (its charset is
    evidence for the decoder). ``-`` (standard input) has no name, so no declared type.
    """
    name = "" if path == "-" else Path(path).name
    declared, inner = guess_type(name) if name else (None, None)
    metadata: dict[str, object] = {"size": len(data), "path": path}
    if inner is not None:
        metadata["compressed_type"] = inner
    headers: list[tuple[str, str]] = []
    if content_type:
        headers.append(("Content-Type", content_type))
        declared = None if inner is None else declared
    if url is None:
        url = "stdin:" if path == "-" else Path(path).resolve().as_uri()
    return Document(
        url=url,
        raw=data,
        record_type="resource",
        fetched_at=fetched_at,
        source=path,
        declared_type=declared,
        http_headers=headers,
        metadata=metadata,
    )


def _mtime(st: os.stat_result) -> datetime:
    # Whole seconds, as WARC-Date has them, so a document's id is the same after a round trip.
    return datetime.fromtimestamp(int(st.st_mtime), UTC)


class LocalDirSource(Source):
    """One document per file under ``roots`` (directories or single files), in sorted order.

    ``include`` and ``exclude`` are shell patterns matched against a file's name and against its
    path relative to its root (``*.txt``, ``drafts/*``); ``exclude`` also prunes directories.
    Neither applies to a root named explicitly. With ``skip_hidden``, names starting with ``.``
    below a root are skipped; with ``skip_system``, folders named in ``system_folders`` (recycle
    bins, ``lost+found``, ``__pycache__``...: :data:`~trawl.acquire.ignore.SYSTEM_FOLDERS`). Files
    named in ``ignore_files`` (``.gitignore``, ``.trawlignore``) hold git-style patterns for the
    folder they are in and everything below it (:mod:`trawl.acquire.ignore`).

    ``record_access``: each document's ``metadata["access"]`` says who may read the file (owner,
    group, mode, POSIX ACL: :func:`~trawl.acquire.access.access_of`). ``changes``: a
    :class:`~trawl.acquire.desktop.ChangeTracker` that skips files unchanged since the last run
    without opening them and tells deletions and renames; ``budget``: a
    :class:`~trawl.acquire.budget.ResourceBudget` that paces the files read; ``stop``: once set,
    the walk ends after the file it is reading (and then decides no deletions).

    Nothing outside the roots is read unless ``follow_symlinks``: a symlink to a directory is not
    entered and a symlink to a file outside every root is not read (a link to a file inside one
    is, as that file). ``exclude_paths`` (the collection being written, when it lies inside a
    root) are never walked; ``archive_paths`` are left to the archive readers (WARC, ARC, TREC
    files found in a folder: :func:`~trawl.acquire.detect.sources_for`).

    Counters: ``read/files``, ``read/records``, ``read/bytes``, ``read/skipped/hidden``,
    ``read/skipped/excluded``, ``read/skipped/symlink-dir`` (a directory symlink not followed),
    ``read/skipped/symlink-outside`` (a file symlink leading out of the roots),
    ``read/skipped/output`` (the collection itself), ``read/archives`` (left to their readers),
    ``read/skipped/system`` (system folders), ``read/skipped/ignored`` (by an ignore file).
    Drops: ``local/unreadable``, ``local/broken-symlink``, ``local/symlink-loop``,
    ``local/too-large`` (never read) and ``local/not-regular`` (sockets, FIFOs, devices: never
    opened), ``local/bad-ignore-file`` (an ignore file that cannot be read: the walk goes on
    without it).
    """

    name: ClassVar[str] = "local"

    def __init__(
        self,
        roots: Sequence[str | PathLike[str]],
        *,
        include: Sequence[str] = ("*",),
        exclude: Sequence[str] = (),
        follow_symlinks: bool = False,
        max_file_bytes: int = 100 << 20,
        skip_hidden: bool = True,
        exclude_paths: Sequence[str | PathLike[str]] = (),
        archive_paths: Sequence[str | PathLike[str]] = (),
        skip_system: bool = True,
        system_folders: Sequence[str] = SYSTEM_FOLDERS,
        ignore_files: Sequence[str] = (),
        record_access: bool = True,
        changes: ChangeTracker | None = None,
        budget: ResourceBudget | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        if max_file_bytes <= 0:
            raise ConfigError(f"LocalDirSource: max_file_bytes must be positive, not {max_file_bytes}")
        if isinstance(include, str) or isinstance(exclude, str):
            raise ConfigError("LocalDirSource: include and exclude are lists of patterns, not one string")
        if isinstance(ignore_files, str) or isinstance(system_folders, str):
            raise ConfigError(
                "LocalDirSource: ignore_files and system_folders are lists of names, not one string"
            )
        self.roots = [Path(root) for root in roots]
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.follow_symlinks = follow_symlinks
        self.max_file_bytes = max_file_bytes
        self.skip_hidden = skip_hidden
        self.skip_system = skip_system
        self.system_folders = tuple(system_folders)
        self.ignore_files = frozenset(ignore_files)
        self.record_access = record_access
        self.changes = changes
        self.budget = budget
        self.stop = stop
        # compared by (device, inode), from the stat the walk makes anyway: no path resolving
        self._excluded = _identities(exclude_paths)
        self._archives = _identities(archive_paths)
        self._real_roots = [os.path.realpath(root) for root in self.roots]
        self._rank, self._world, self._seen = 0, 1, 0

    # -- the walk ---------------------------------------------------------------------------------

    def read(self, ctx: RunContext) -> Iterator[Document]:
        return self.read_shard(ctx)

    def read_shard(self, ctx: RunContext, rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        """Task ``rank`` of ``world_size`` reads every ``world_size``-th file of the sorted walk,
        and only those (the others are not opened)."""
        check_shard(rank, world_size)
        self._rank, self._world, self._seen = rank, world_size, 0
        changes = self.changes
        later: list[tuple[Path, os.stat_result]] = []  # new files: read once renames are known
        for path, st in self.files(ctx):
            if self._archives and (st.st_dev, st.st_ino) in self._archives:
                ctx.stats.inc("read/archives")
                continue
            if not self._mine():
                continue
            if self.stop is not None and self.stop.is_set():
                if changes is not None:
                    changes.interrupted = True
                return
            if changes is None:
                doc = self._paced_read(ctx, path, st)
            else:
                verdict = changes.check(ctx, path, st)
                if verdict == "new":
                    later.append((path, st))
                    continue
                if verdict == "unchanged":
                    continue
                doc = changes.examine(ctx, path, st, self._paced_read(ctx, path, st))
            if doc is not None:
                yield doc
        if changes is None:
            return
        changes.walked(self.roots)
        for path, st in later:
            if self.stop is not None and self.stop.is_set():
                changes.interrupted = True
                return
            doc = changes.examine(ctx, path, st, self._paced_read(ctx, path, st))
            if doc is not None:
                yield doc

    def _paced_read(self, ctx: RunContext, path: Path, st: os.stat_result) -> Document | None:
        if self.budget is not None:
            self.budget.before_read(st.st_size, ctx.stats)
        return self._read_file(ctx, path, st)

    def files(self, ctx: RunContext) -> Iterator[tuple[Path, os.stat_result]]:
        """Every file the walk reaches, ``(path, stat)``, in order, after the filters (hidden,
        include/exclude, symlinks, the excluded paths); what cannot be listed or stat-ed is
        recorded in ``ctx`` as the reading does."""
        for root in self.roots:
            st = self._stat(ctx, root)
            if st is None:
                continue
            if (st.st_dev, st.st_ino) in self._excluded:
                ctx.stats.inc("read/skipped/output")
            elif stat.S_ISDIR(st.st_mode):
                walked = self.changes.take_walk(root, ctx) if self.changes is not None else None
                yield from walked if walked is not None else self._walk(ctx, root, st)
            else:
                yield root, st

    def _inside_roots(self, path: Path) -> bool:
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self._real_roots)

    def _mine(self) -> bool:
        """Whether the next file of the walk is this task's."""
        index = self._seen
        self._seen += 1
        return index % self._world == self._rank

    def _walk(
        self, ctx: RunContext, root: Path, root_st: os.stat_result
    ) -> Iterator[tuple[Path, os.stat_result]]:
        """Depth-first, sorted, iterative (a deep tree must not hit the recursion limit)."""
        first = self._list(ctx, root)
        if first is None:
            return
        on_path = [(root_st.st_dev, root_st.st_ino)]
        cut = len(os.path.join(os.fspath(root), ""))  # an entry's path below the root: its tail
        stack: list[Iterator[os.DirEntry[str]]] = [iter(first)]
        rules_at: list[list[IgnoreFile]] = [self._rules(ctx, root, first, [])]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                on_path.pop()
                rules_at.pop()
                continue
            rel = entry.path[cut:].replace(os.sep, "/") if os.sep != "/" else entry.path[cut:]
            if self.skip_hidden and entry.name.startswith("."):
                ctx.stats.inc("read/skipped/hidden")
                continue
            if self.exclude and self._matches(self.exclude, entry.name, rel):
                ctx.stats.inc("read/skipped/excluded")
                continue
            rules = rules_at[-1]
            path = Path(entry.path)
            try:
                is_link = entry.is_symlink()
            except OSError:
                is_link = False
            st = self._stat(ctx, path)
            if st is None:
                continue
            if self._excluded and (st.st_dev, st.st_ino) in self._excluded:
                ctx.stats.inc("read/skipped/output")
                continue
            is_dir = stat.S_ISDIR(st.st_mode)
            if is_dir and self.skip_system and is_system_folder(entry.name, self.system_folders):
                ctx.stats.inc("read/skipped/system")
                continue
            if rules and ignored(rules, path, is_dir):
                ctx.stats.inc("read/skipped/ignored")
                continue
            if is_dir:
                if is_link and not self.follow_symlinks:
                    ctx.stats.inc("read/skipped/symlink-dir")
                    continue
                key = (st.st_dev, st.st_ino)
                if key in on_path:
                    ctx.drop(
                        STAGE,
                        "local/symlink-loop",
                        f"{os.fspath(path)!r} leads back to a directory above it; not walked again",
                        source=os.fspath(path),
                    )
                    continue
                listing = self._list(ctx, path)
                if listing is not None:
                    stack.append(iter(listing))
                    on_path.append(key)
                    rules_at.append(self._rules(ctx, path, listing, rules))
                continue
            if self.include != ("*",) and not self._matches(self.include, entry.name, rel):
                ctx.stats.inc("read/skipped/excluded")
                continue
            if is_link and not self.follow_symlinks and not self._inside_roots(path):
                ctx.stats.inc("read/skipped/symlink-outside")
                continue
            yield path, st

    def _rules(
        self, ctx: RunContext, folder: Path, listing: list[os.DirEntry[str]], outer: list[IgnoreFile]
    ) -> list[IgnoreFile]:
        """The ignore rules in force inside ``folder``: ``outer`` and its own ignore files."""
        if not self.ignore_files:
            return outer
        own: list[IgnoreFile] = []
        for entry in listing:
            if entry.name not in self.ignore_files:
                continue
            try:
                if not entry.is_file():
                    continue
                own.append(load_ignore_file(Path(entry.path)))
            except (OSError, ValueError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                ctx.drop(
                    STAGE,
                    "local/bad-ignore-file",
                    f"cannot use ignore file {entry.path!r}: {why}; walking {os.fspath(folder)!r} without it",
                    source=entry.path,
                )
        return [*outer, *own] if own else outer

    @staticmethod
    def _matches(patterns: Sequence[str], name: str, rel: str) -> bool:
        return any(fnmatchcase(name, p) or fnmatchcase(rel, p) for p in patterns)

    def _list(self, ctx: RunContext, directory: Path) -> list[os.DirEntry[str]] | None:
        try:
            with os.scandir(directory) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self._drop_os_error(ctx, directory, exc, "cannot list directory")
            if self.changes is not None:
                self.changes.keep(directory)
            return None

    def _stat(self, ctx: RunContext, path: Path) -> os.stat_result | None:
        """``stat`` through symlinks, turning each way it can fail into the right drop."""
        try:
            return os.stat(path)
        except OSError as exc:
            self._drop_os_error(ctx, path, exc, "cannot stat")
            if self.changes is not None and exc.errno != errno.ENOENT:
                self.changes.keep(path)  # there, but not stat-able now: not a deletion
            return None

    def _drop_os_error(self, ctx: RunContext, path: Path, exc: OSError, doing: str) -> None:
        where = os.fspath(path)
        why = exc.strerror or str(exc)
        if exc.errno == errno.ELOOP:
            ctx.drop(STAGE, "local/symlink-loop", f"{where!r} is a symlink loop: {why}", source=where)
        elif exc.errno == errno.ENOENT and path.is_symlink():
            target = os.readlink(path)
            ctx.drop(
                STAGE,
                "local/broken-symlink",
                f"{where!r} is a symlink to {target!r}, which does not exist",
                source=where,
            )
        elif exc.errno == errno.ENXIO:  # opening a socket
            ctx.drop(STAGE, "local/not-regular", f"{where!r} is not a regular file: {why}", source=where)
        else:
            ctx.drop(STAGE, "local/unreadable", f"{doing} {where!r}: {why}", source=where)

    # -- one file ---------------------------------------------------------------------------------

    def _read_file(self, ctx: RunContext, path: Path, st: os.stat_result) -> Document | None:
        where = os.fspath(path)
        if not stat.S_ISREG(st.st_mode):
            what = _kind(st.st_mode)
            ctx.drop(STAGE, "local/not-regular", f"{where!r} is a {what}, not a regular file", source=where)
            return None
        if st.st_size > self.max_file_bytes:
            ctx.drop(
                STAGE,
                "local/too-large",
                f"{where!r} is {st.st_size} bytes, over max_file_bytes={self.max_file_bytes}",
                source=where,
            )
            return None
        try:
            # O_NONBLOCK: if the path became a FIFO since stat, open returns instead of waiting.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except OSError as exc:
            self._drop_os_error(ctx, path, exc, "cannot open")
            return None
        try:
            with open(fd, "rb", closefd=True) as fh:
                st = os.fstat(fh.fileno())
                if not stat.S_ISREG(st.st_mode):
                    ctx.drop(STAGE, "local/not-regular", f"{where!r} is not a regular file", source=where)
                    return None
                data = fh.read(self.max_file_bytes + 1)
                access = access_of(st, fh.fileno()) if self.record_access else None
        except OSError as exc:
            self._drop_os_error(ctx, path, exc, "cannot read")
            return None
        ctx.stats.inc("read/files")
        if len(data) > self.max_file_bytes:  # it grew since stat
            ctx.drop(
                STAGE,
                "local/too-large",
                f"{where!r} grew past max_file_bytes={self.max_file_bytes} while being read",
                source=where,
            )
            return None
        if not data:  # nothing to index; recorded so that the file is not silently missing
            ctx.drop(STAGE, "local/empty-file", f"{where!r} is empty (0 bytes)", source=where)
            return None
        ctx.stats.inc("read/records")
        ctx.stats.inc("read/bytes", len(data))
        doc = file_document(where, data, url=path.resolve().as_uri(), fetched_at=_mtime(st))
        if access is not None:
            doc.metadata["access"] = access
        if self.changes is not None:  # what the bytes read are: the state records this stat
            doc.metadata["_fstat"] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        return doc


def _identities(paths: Sequence[str | PathLike[str]]) -> frozenset[tuple[int, int]]:
    """(device, inode) of each of ``paths`` that exists."""
    out = set()
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        out.add((st.st_dev, st.st_ino))
    return frozenset(out)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"
