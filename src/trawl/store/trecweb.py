"""TREC Web files with a DOCNO → offset index: written, indexed and read one document at a time.

A TREC Web file (WT10g, GOV2) is a sequence of ``<DOC>`` blocks::

    <DOC>
    <DOCNO>trawl-0000001</DOCNO>
    <DOCHDR>
    http://www.example.com/ 20240501120000 text/html 1234
    HTTP/1.1 200 OK
    Content-Type: text/html
    </DOCHDR>
    ...the page's bytes, as captured...
    </DOC>

:class:`TrecWebWriter` writes them — one gzip member per document when the name ends in ``.gz``,
so that, as in a WARC file, one document is one seek, one read and one decompression — and an
index beside the file (``NAME.idx``: ``DOCNO<TAB>offset<TAB>length`` per line).
:func:`build_index` makes that index for an existing plain or per-document-gzip TREC file, and
:class:`TrecWebIndex` answers ``DOCNO → Document`` with :func:`read_trec_at`. Reading a whole
TREC collection as a stream of documents (to import it) is :class:`trawl.acquire.trec.TrecSource`'s
job: ``trawl ingest FILE`` stores it, DOCNOs included, in a collection.
"""

from __future__ import annotations

import os
import re
import zlib
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from trawl.document import Document
from trawl.errors import RecordNotFound, StoreError, TrecFormatError, quote_bytes
from trawl.store.warcfile import http_reason, read_span

__all__ = ["TrecWebIndex", "TrecWebWriter", "build_index", "read_trec_at"]

_GZIP_MAGIC = b"\x1f\x8b"
_DOCNO_RE = re.compile(rb"<DOCNO>\s*([^<\s]{1,256})\s*</DOCNO>")
_DOC_START = re.compile(rb"(?:^|\n)[ \t\r]*<DOC>", re.MULTILINE)
_MAX_DOC = 64 << 20


def _clean(value: str) -> str:
    return " ".join(value.split())


class TrecWebWriter:
    """Writes documents as TREC Web ``<DOC>`` blocks and their DOCNO → (offset, length) index.

    ``path`` ending in ``.gz``: each document is its own gzip member (the file is still one valid
    gzip stream for tools that read it whole). DOCNOs must be unique and free of whitespace and
    ``<``; a document without one gets ``{prefix}-{n:07d}``.
    """

    def __init__(self, path: Path, *, prefix: str = "trawl", level: int = 6) -> None:
        self.path = Path(path)
        self.prefix = prefix
        self.level = level
        self.compress = self.path.name.endswith(".gz")
        try:
            self._fh: IO[bytes] = self.path.open("xb")
        except OSError as exc:
            raise StoreError(f"cannot create TREC file {str(self.path)!r}: {exc.strerror or exc}") from exc
        self._index: list[tuple[str, int, int]] = []
        self._seen: set[str] = set()
        self._size = 0
        self._closed = False

    @property
    def index_path(self) -> Path:
        return self.path.with_name(self.path.name + ".idx")

    def write(self, doc: Document, docno: str | None = None) -> tuple[str, int, int]:
        """Append one document; returns its (DOCNO, offset, length)."""
        if self._closed:
            raise StoreError("TrecWebWriter is closed")
        docno = docno or doc.docno or f"{self.prefix}-{len(self._index) + 1:07d}"
        if not re.fullmatch(r"[^\s<>]{1,256}", docno):
            raise StoreError(
                f"DOCNO {docno!r} cannot be written: it must be 1-256 characters, no spaces or <>"
            )
        if docno in self._seen:
            raise StoreError(f"DOCNO {docno!r} is written twice into {str(self.path)!r}")
        self._seen.add(docno)
        when = (doc.fetched_at or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d%H%M%S")
        ctype = _clean(doc.declared_type or doc.header("Content-Type") or "application/octet-stream")
        lines = [f"{_clean(doc.url).replace(' ', '%20')} {when} {ctype} {len(doc.raw)}"]
        if doc.status is not None:
            lines.append(f"HTTP/1.1 {doc.status} {http_reason(doc.status)}".rstrip())
            lines += [f"{_clean(k)}: {_clean(v)}" for k, v in doc.http_headers]
        head = f"<DOC>\n<DOCNO>{docno}</DOCNO>\n<DOCHDR>\n" + "\n".join(lines) + "\n</DOCHDR>\n"
        block = head.encode("utf-8") + doc.raw + b"\n</DOC>\n"
        if self.compress:
            packer = zlib.compressobj(self.level, zlib.DEFLATED, 31)
            block = packer.compress(block) + packer.flush()
        offset = self._size
        try:
            self._fh.write(block)
        except OSError as exc:
            raise StoreError(f"cannot write to {str(self.path)!r}: {exc.strerror or exc}") from exc
        self._size += len(block)
        entry = (docno, offset, len(block))
        self._index.append(entry)
        return entry

    def close(self) -> None:
        """Finish the file and write its index (``NAME.idx``)."""
        if self._closed:
            return
        self._closed = True
        self._fh.close()
        _write_index(self.index_path, self._index)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _write_index(path: Path, entries: list[tuple[str, int, int]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for docno, offset, length in entries:
            fh.write(f"{docno}\t{offset}\t{length}\n")
    os.replace(tmp, path)


def _parse_block(data: bytes, where: str) -> Document:
    """One ``<DOC>`` block (bytes from ``<DOC>`` to ``</DOC>``) as a Document."""
    start = data.find(b"<DOC>")
    if start < 0:
        raise TrecFormatError(
            f"{where}: no <DOC> here, found {quote_bytes(data)}; is the offset a document start?"
        )
    m = _DOCNO_RE.search(data, start, start + 4096)
    if m is None:
        raise TrecFormatError(f"{where}: <DOC> without a <DOCNO>: {quote_bytes(data[start:])}")
    docno = m.group(1).decode("utf-8", "replace")
    end = data.rfind(b"</DOC>")
    if end < 0:
        raise TrecFormatError(f"{where}: document {docno} is not closed by </DOC>")
    body_end = end - 1 if data[end - 1 : end] == b"\n" else end
    hdr = data.find(b"<DOCHDR>", m.end(), m.end() + 4096)
    if hdr < 0:  # a plain TREC text document
        raw = data[m.end() : body_end].lstrip(b"\r\n")
        return Document(url=f"trec:{docno}", docno=docno, raw=raw, record_type="resource", source=where)
    hdr_end = data.find(b"</DOCHDR>", hdr)
    if hdr_end < 0:
        raise TrecFormatError(f"{where}: <DOCHDR> of {docno} is not closed by </DOCHDR>")
    head = data[hdr + len(b"<DOCHDR>") : hdr_end].decode("utf-8", "replace").strip("\r\n").splitlines()
    raw_start = hdr_end + len(b"</DOCHDR>")
    raw_start += (
        2
        if data[raw_start : raw_start + 2] == b"\r\n"
        else 1
        if data[raw_start : raw_start + 1] == b"\n"
        else 0
    )
    tokens = head[0].split() if head else []
    url = tokens[0] if tokens else f"trec:{docno}"
    when = None
    for token in tokens[1:]:
        if re.fullmatch(r"\d{14}", token):
            when = datetime.strptime(token, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            break
    status = None
    headers: list[tuple[str, str]] = []
    if len(head) > 1 and head[1].startswith("HTTP/"):
        parts = head[1].split()
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        for line in head[2:]:
            name, sep, value = line.partition(":")
            if sep and name.strip():
                headers.append((name.strip(), value.strip()))
    return Document(
        url=url,
        docno=docno,
        fetched_at=when,
        status=status,
        http_headers=headers,
        raw=data[raw_start:body_end],
        record_type="response" if status is not None else "resource",
        source=where,
    )


def read_trec_at(path: Path, offset: int, length: int) -> Document:
    """The one ``<DOC>`` at ``offset`` (``length`` bytes, a gzip member or plain) of a TREC file."""
    where = f"{os.fspath(path)}@{offset}"
    if offset < 0 or length <= 0 or length > _MAX_DOC:
        raise RecordNotFound(f"{where}: invalid pointer (offset {offset}, length {length})")
    data = read_span(path, offset, length, "TREC")
    if data.startswith(_GZIP_MAGIC):
        inflater = zlib.decompressobj(31)
        try:
            data = inflater.decompress(data, _MAX_DOC)
        except zlib.error as exc:
            raise TrecFormatError(f"{where}: corrupt gzip member ({exc})") from exc
        if not inflater.eof:
            raise TrecFormatError(f"{where}: gzip member is truncated or larger than {_MAX_DOC} bytes")
    return _parse_block(data, where)


def _scan_plain(data: bytes, base: int, out: list[tuple[str, int, int]], where: str) -> None:
    starts = [m.end() - len(b"<DOC>") for m in _DOC_START.finditer(data)]
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(data)
        m = _DOCNO_RE.search(data, start, min(stop, start + 4096))
        if m is None:
            raise TrecFormatError(f"{where}@{base + start}: <DOC> without a <DOCNO>")
        out.append((m.group(1).decode("utf-8", "replace"), base + start, stop - start))


def build_index(path: Path) -> Path:
    """Write ``NAME.idx`` for an existing TREC file: plain, or one gzip member per document.

    A file gzipped as one stream has no per-document offsets: that is a clear error naming the
    fix (re-write it with :class:`TrecWebWriter`, e.g. ``trawl ingest`` then ``trawl export
    --format trec``).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from exc
    entries: list[tuple[str, int, int]] = []
    if data.startswith(_GZIP_MAGIC):
        pos = 0
        while pos < len(data):
            inflater = zlib.decompressobj(31)
            try:
                block = inflater.decompress(data[pos:])
            except zlib.error as exc:
                raise TrecFormatError(f"{path}@{pos}: corrupt gzip member ({exc})") from exc
            if not inflater.eof:
                raise TrecFormatError(f"{path}@{pos}: gzip member is truncated")
            used = len(data) - pos - len(inflater.unused_data)
            found: list[tuple[str, int, int]] = []
            _scan_plain(block, 0, found, str(path))
            if len(found) > 1:
                raise StoreError(
                    f"{str(path)!r} is gzipped as one stream ({len(found)} documents in a member): it has no "
                    "per-document offsets; re-write it one member per document (trawl ingest, then "
                    "trawl export --format trec)"
                )
            entries += [(docno, pos, used) for docno, _, _ in found]
            pos += used
    else:
        _scan_plain(data, 0, entries, str(path))
    index = path.with_name(path.name + ".idx")
    _write_index(index, entries)
    return index


class TrecWebIndex:
    """DOCNO → one document of a TREC file, through its ``NAME.idx`` (built if missing)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        index = self.path.with_name(self.path.name + ".idx")
        if not index.is_file():
            build_index(self.path)
        self._entries: dict[str, tuple[int, int]] = {}
        line = ""
        try:
            for line in index.read_text(encoding="utf-8").splitlines():
                docno, offset, length = line.split("\t")
                self._entries[docno] = (int(offset), int(length))
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot read the index {str(index)!r} at {line[:80]!r}: {exc}") from exc

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, docno: str) -> bool:
        return docno in self._entries

    def docnos(self) -> list[str]:
        return list(self._entries)

    def get(self, docno: str) -> Document:
        entry = self._entries.get(docno)
        if entry is None:
            raise RecordNotFound(f"no DOCNO {docno!r} in {str(self.path)!r}")
        return read_trec_at(self.path, *entry)
