"""Long documents as units: a PDF's pages or outline sections, a deck's slides, a workbook's sheets,
a book's chapters, each a document of its own.

:class:`PageUnits` runs right after conversion (:func:`~trawl.jobs.steps.build_steps`: after the
text converter, before main-content extraction, language tagging and the writer). The format
converters record the boundaries they know (:attr:`~trawl.convert.base.Converted.segments`,
handed on as ``metadata["_segments"]``, never stored); for a document that has them and whose kind
is switched on (``[units] pdf = "page"|"section"``, ``slides``, ``sheets``, ``chapters``) the
step passes the document on whole, followed by one unit per part with text:

* URL: the parent's with ``#unit=page-7`` (``section-2``, ``slide-3``, ``sheet-2``,
  ``chapter-4``): the number is the part's in the document (page 7 is the seventh page, whether
  or not page 6 has text; chapters are numbered in spine order);
* ``text``: the part's slice of the parent's text, exactly (``metadata["unit"]["span"]`` =
  ``[start, end]`` in characters of the parent's ``text``); ``title``: the part's own (a slide's
  or chapter's title, a sheet's name, a bookmark's) or else the parent's + `` — page 7``;
* ``raw``: that text as UTF-8, declared ``text/plain; charset=utf-8`` (``encoding_source``
  ``unit``), so the writer stores it and ``trawl get --raw`` prints it; no converter runs on a
  unit again (every converter is before this step), and extraction leaves plain text alone;
* ``metadata["unit"]`` = ``{"parent", "kind", "position", "span", "root"}`` as for mail units;
  the capture time and source are the parent's.

A document with fewer than two parts that have text gets no units (its one unit would repeat it),
nor does one whose conversion failed (it was dropped before). ``pdf = "section"`` uses the
outline where it has two entries or more, else the pages (``units/pages/no-outline``). At most
``max_segments`` units a document: the first ones are made and the document is counted
``units/pages/capped`` (``metadata["units_capped"]`` = how many were not made). Units made are
counted ``units/pages/<kind>``, documents split ``units/pages/documents``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from trawl.convert.base import Segment
from trawl.convert.registry import SEGMENTS
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import RunContext, Step
from trawl.urls import unit_root, unit_url

__all__ = ["PDF_MODES", "PageUnits"]

#: The values of ``[units] pdf``.
PDF_MODES = ("none", "page", "section")
#: What a unit's raw bytes are declared as.
UNIT_TYPE = "text/plain; charset=utf-8"


class PageUnits(Step):
    """Cuts converted long documents into units by their own parts (see the module docstring)."""

    name: ClassVar[str] = "pages"

    def __init__(
        self,
        *,
        pdf: str = "page",
        slides: bool = True,
        sheets: bool = True,
        chapters: bool = True,
        max_segments: int = 2000,
    ) -> None:
        if pdf not in PDF_MODES:
            raise ConfigError(f"units.pdf = {pdf!r}: choose one of {', '.join(map(repr, PDF_MODES))}")
        if max_segments < 1:
            raise ConfigError(f"units.max_segments must be at least 1, not {max_segments}")
        self.pdf = pdf
        self.kinds = {
            kind for kind, on in (("slide", slides), ("sheet", sheets), ("chapter", chapters)) if on
        }
        self.max_segments = max_segments

    @property
    def wanted(self) -> bool:
        """Whether this step makes any unit at all."""
        return self.pdf != "none" or bool(self.kinds)

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        """Each document, followed by its units (a fan-out, so not :meth:`Step.process`)."""
        self.ctx = ctx
        for doc in docs:
            segments = doc.metadata.pop(SEGMENTS, None)
            if not segments:
                yield doc  # a document without parts (every HTML page) costs one lookup
                continue
            t0 = time.perf_counter()
            try:
                units = self.split(doc, segments)
            except Exception as exc:  # isolation: the document goes on whole, its units unmade
                doc.error(self.name, exc)
                ctx.error(self.name, exc, url=doc.url, source=doc.source)
                units = []
            finally:
                ctx.stats.add_time(self.name, time.perf_counter() - t0)
            yield doc
            yield from units

    def chosen(self, segments: list[Segment]) -> list[Segment]:
        """The segments that become units: those of the kinds switched on, with text."""
        kinds = set(self.kinds)
        if self.pdf == "page":
            kinds.add("page")
        elif self.pdf == "section":
            sections = [s for s in segments if s.kind == "section" and s.end > s.start]
            if len(sections) >= 2:
                return sections
            if any(s.kind == "page" for s in segments):
                self.count("units/pages/no-outline")
            kinds.add("page")
        return [s for s in segments if s.kind in kinds and s.end > s.start]

    def split(self, doc: Document, segments: list[Segment]) -> list[Document]:
        """The units of ``doc`` (none when fewer than two of its parts have text)."""
        if doc.dropped is not None:
            return []
        chosen = self.chosen(segments)
        if len(chosen) < 2:
            return []
        text = doc.text
        root = unit_root(doc.url)
        units: list[Document] = []
        for segment in chosen:
            if len(units) >= self.max_segments:
                self.count("units/pages/capped")
                doc.metadata["units_capped"] = len(chosen) - self.max_segments
                break
            start, end = max(segment.start, 0), min(segment.end, len(text))
            if end <= start:
                continue  # past the end of a text cut after its segments were recorded
            units.append(self._unit(doc, segment, text[start:end], [start, end], root))
            self.count(f"units/pages/{segment.kind}")
        if units:
            self.count("units/pages/documents")
        return units

    @staticmethod
    def _unit(parent: Document, segment: Segment, text: str, span: list[int], root: str) -> Document:
        kind, position = segment.kind, segment.position
        raw = text.encode("utf-8", "replace")  # a lone surrogate in a converter's text: "?"
        metadata: dict[str, Any] = {
            "unit": {"parent": parent.url, "kind": kind, "position": position, "span": span, "root": root},
            "size": len(raw),
        }
        for key in ("path", "access"):  # where it came from, and who may read it: its file's
            if key in parent.metadata:
                metadata[key] = parent.metadata[key]
        title = segment.title or (
            f"{parent.title} — {kind} {position}" if parent.title else f"{kind} {position}"
        )
        return Document(
            url=unit_url(parent.url, f"{kind}-{position}"),
            raw=raw,
            record_type="resource",
            fetched_at=parent.fetched_at,
            source=parent.source,
            declared_type=UNIT_TYPE,
            sniffed_type="text/plain",
            encoding="utf-8",
            encoding_source="unit",
            text=text,
            title=title,
            metadata=metadata,
        )
