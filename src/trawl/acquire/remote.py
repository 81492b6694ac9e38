"""Read loose remote files (``s3://bucket/docs/report.pdf``) as documents, one per file.

What :class:`~trawl.acquire.localdir.LocalDirSource` makes of a local file, for a file named by a
URL (:mod:`trawl.fsio`): the whole file is the document, its URL is the document's URL and
source, its type is declared by its name and found from its bytes downstream, its modification
time is the document's date. Archives (WARC, ARC, TREC) found remotely go to their own readers
(:func:`~trawl.acquire.detect.sources_for`), which stream them; a loose file is read whole, so
it is bounded by ``max_file_bytes``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from trawl import fsio
from trawl.acquire.localdir import file_document
from trawl.document import Document
from trawl.errors import ConfigError, InputError
from trawl.pipeline.base import InputsSource, RunContext

__all__ = ["RemoteFileSource"]

STAGE = "remote"


class RemoteFileSource(InputsSource):
    """One document per remote file in ``inputs`` (URLs of files, not globs: see
    :func:`trawl.fsio.expand`), in the order given.

    Counters: ``read/files``, ``read/records``, ``read/bytes``. Drops: ``remote/unreadable`` (a
    file gone or refused since it was listed, or a read that failed), ``remote/too-large`` (over
    ``max_file_bytes``: never read) and ``remote/empty-file``.
    """

    name: ClassVar[str] = "remote"

    def __init__(self, inputs: Sequence[str], *, max_file_bytes: int = 100 << 20) -> None:
        if max_file_bytes <= 0:
            raise ConfigError(f"RemoteFileSource: max_file_bytes must be positive, not {max_file_bytes}")
        self.inputs = [str(i) for i in inputs]
        self.max_file_bytes = max_file_bytes

    def read_input(self, ctx: RunContext, src: str) -> Iterator[Document]:
        try:
            found = fsio.info(src)
            if found.size > self.max_file_bytes:
                ctx.drop(
                    STAGE,
                    "remote/too-large",
                    f"{src!r} is {found.size} bytes, over max_file_bytes={self.max_file_bytes}",
                    source=src,
                )
                return
            # the range bounds what a file that grew since it was listed can cost
            data = fsio.read_bytes(src, end=self.max_file_bytes + 1)
        except InputError as exc:
            ctx.drop(STAGE, "remote/unreadable", str(exc), source=src)
            return
        ctx.stats.inc("read/files")
        if len(data) > self.max_file_bytes:
            ctx.drop(
                STAGE,
                "remote/too-large",
                f"{src!r} grew past max_file_bytes={self.max_file_bytes} while being read",
                source=src,
            )
            return
        if not data:
            ctx.drop(STAGE, "remote/empty-file", f"{src!r} is empty (0 bytes)", source=src)
            return
        ctx.stats.inc("read/records")
        ctx.stats.inc("read/bytes", len(data))
        yield file_document(src, data, url=src, fetched_at=found.modified)
