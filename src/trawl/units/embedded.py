"""Embedded files as document units: the workbook in a report, the document in a slide, a PDF's
attachments, each a document of its own.

:class:`EmbeddedUnits` runs among the units steps, before the type sniffer, so every unit it makes
goes through sniffing, decoding and conversion like any document. For a document whose bytes are
a ZIP package (DOCX, PPTX, XLSX, ODT, ODS, ODP, told apart by
:func:`~trawl.sniff.identify.identify`) or a PDF, it finds the embedded files
(:func:`~trawl.convert.embedded.embedded_files`: office ``embeddings``, ODF sub-documents, PDF
attachments, an Outlook ``.msg``'s attached files unless ``mail_attachments = "fold"`` folds them;
a PDF is opened by PDFium, a ``.msg`` by olefile, both in the guarded worker, and a PDF only when
its bytes hold an ``/EmbeddedFile`` stream) and yields the document followed by one unit per file:
``raw`` = the file's bytes, declared by its name's media type, ``metadata["filename"]`` its name,
``metadata["unit"] = {"parent", "kind": "embedded", "position", "span": None, "root"}``, URL the
parent's with ``#unit=emb-<position>`` (``…/emb-2`` inside a unit). Files inside a unit are its
units in turn, at most ``max_depth`` deep. The parent's ``metadata["embedded"]`` lists them:
``name``, ``type``, ``size`` and ``unit`` (its URL).

Counted: ``units/embedded/objects`` (units made), ``units/embedded/documents`` (documents that had
any), and the bounds when hit: ``units/embedded/capped/objects``, ``…/bytes``, ``…/depth``; a
container that cannot be read: ``units/embedded/unreadable`` (the document goes on, without units).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from trawl.convert.base import ConvertOptions
from trawl.convert.embedded import Embedded, embedded_files
from trawl.convert.guard import DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT, Guard
from trawl.decode.charset import body_of
from trawl.decode.http import DEFAULT_MAX_BYTES, entity_body
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import FanOutStep
from trawl.sniff.identify import identify
from trawl.sniff.magic import SNIFF_BYTES
from trawl.urls import unit_root, unit_url

__all__ = ["EmbeddedUnits"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_PACKAGES = frozenset({"docx", "pptx", "xlsx", "odt", "ods", "odp"})


class EmbeddedUnits(FanOutStep):
    """Makes the files embedded in office documents, PDFs and Outlook messages document units (see
    the module docstring)."""

    name: ClassVar[str] = "units"

    def __init__(
        self,
        *,
        max_objects: int = 100,
        max_bytes: int = 50 * 1024 * 1024,
        max_depth: int = 2,
        max_body_bytes: int = DEFAULT_MAX_BYTES,
        isolate: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        max_memory: int = DEFAULT_MAX_MEMORY,
        messages: bool = True,
    ) -> None:
        if min(max_objects, max_bytes, max_body_bytes) < 1 or max_depth < 0:
            raise ConfigError(
                "units: embedded_max_objects and embedded_max_bytes must be at least 1, embedded_max_depth "
                f"at least 0 (not {max_objects}, {max_bytes}, {max_depth})"
            )
        self.options = ConvertOptions(
            embedded_max_objects=max_objects, embedded_max_bytes=max_bytes, embedded_max_depth=max_depth
        )
        self.max_body_bytes = max_body_bytes
        self.isolate = isolate
        self.timeout = timeout
        self.max_memory = max_memory
        #: an Outlook message's attached files as units (unless ``mail_attachments = "fold"``
        #: folds them into the message's text, as it does an email's)
        self.messages = messages
        self._guard: Guard | None = None

    @property
    def guard(self) -> Guard | None:
        """The worker PDFs are opened in, started on first use."""
        if self.isolate and self._guard is None:
            self._guard = Guard(timeout=self.timeout, max_memory=self.max_memory)
        return self._guard

    def close(self) -> None:
        if self._guard is not None:
            self._guard.close()
            self._guard = None

    def format_of(self, doc: Document) -> str | None:
        """``docx`` … ``odp`` or ``pdf`` when ``doc`` may hold embedded files, else ``None``
        (decided from the first bytes, so that other documents cost next to nothing)."""
        if doc.record_type not in ("response", "resource") or not doc.raw:
            return None
        head = entity_body(doc, self.max_body_bytes, limit=SNIFF_BYTES).data
        if head.startswith(b"%PDF-") or b"%PDF-" in head[:1024]:
            return "pdf"
        if head.startswith(OLE_MAGIC):
            return "ole" if self.messages else None
        if not head.startswith(b"PK\x03\x04"):
            return None
        name = doc.metadata.get("filename")
        data = body_of(doc, self, self.max_body_bytes)
        fmt = identify(data, doc.content_type, name if isinstance(name, str) else None).format
        return fmt if fmt in _PACKAGES else None

    def split(self, doc: Document) -> Iterator[Document]:
        """``doc`` and its units (and theirs); only ``doc`` when it holds no embedded file."""
        units = self._units(doc, 1)
        yield doc
        yield from units

    def _units(self, doc: Document, depth: int) -> list[Document]:
        fmt = self.format_of(doc)
        if fmt is None:
            return []
        data = body_of(doc, self, self.max_body_bytes)
        found = embedded_files(data, fmt, self.options, self.guard if fmt in ("pdf", "ole") else None)
        for key, n in found.counts.items():
            self.count(f"units/{key}", n)
        if not found.files:
            return []
        if depth > self.options.embedded_max_depth:
            self.count("units/embedded/capped/depth", len(found.files))
            return []
        self.count("units/embedded/documents")
        out: list[Document] = []
        listed: list[dict[str, Any]] = []
        for position, item in enumerate(found.files, 1):
            unit = self._unit(doc, item, position)
            self.count("units/embedded/objects")
            listed.append({"name": item.name, "type": item.type, "size": len(item.data), "unit": unit.url})
            out.append(unit)
            out.extend(self._units(unit, depth + 1))
        doc.metadata["embedded"] = listed
        return out

    @staticmethod
    def _unit(parent: Document, item: Embedded, position: int) -> Document:
        root = unit_root(parent.url)
        metadata: dict[str, Any] = {
            "unit": {
                "parent": parent.url,
                "kind": "embedded",
                "position": position,
                "span": None,
                "root": root,
            },
            "filename": item.name,
            "size": len(item.data),
        }
        for key in ("path", "access"):  # where it came from, and who may read it: its file's
            if key in parent.metadata:
                metadata[key] = parent.metadata[key]
        return Document(
            url=unit_url(parent.url, f"emb-{position}"),
            raw=item.data,
            record_type="resource",
            fetched_at=parent.fetched_at,
            source=parent.source,
            declared_type=item.type,
            http_headers=[("Content-Type", item.type)],
            metadata=metadata,
        )
