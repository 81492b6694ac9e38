"""Units cut from a document's text (passages, FAQ question/answer pairs): what they share.

Unlike mail's units, which are bytes that the pipeline still has to sniff, decode and convert,
these are made *after* main-content extraction (``jobs/steps.py`` :func:`~trawl.jobs.steps.build_steps`
puts their steps after the extractor and before the language tagger): their text is final when
they are made, so they skip conversion and extraction by where they run, and go through language
identification (each passage gets its own language: the passages of a bilingual page differ) and
the writer like any document. Their ``raw`` is their text in UTF-8, declared
``text/plain; charset=utf-8`` (so a WARC record of one reads back as what it is, and should
anything convert it again, it converts to the same characters), with ``encoding_source = "unit"``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from trawl.document import UNCHANGED, Document
from trawl.pipeline.base import RunContext, Step
from trawl.urls import unit_name, unit_root, unit_url

__all__ = ["PART_KINDS", "TEXT_KINDS", "TextUnitStep", "cut_from_text", "text_unit"]

#: The kinds of unit whose text is cut from their parent's text (never cut again themselves).
TEXT_KINDS = frozenset(("passage", "qa"))
#: The unit names those kinds get (``p-3``, ``qa-2``): how a unit read back from a WARC record,
#: without its metadata, is known.
_TEXT_NAMES = ("p-", "qa-")
#: The kinds of unit :mod:`trawl.units.pages` cuts from a long document's text (its parts): no
#: passages are cut from them, since their parent's passages cover the same text.
PART_KINDS = frozenset(("page", "section", "slide", "sheet", "chapter"))
#: What a unit carries over from its parent's metadata: where its file is and who may read it.
_INHERITED = ("path", "access")


def cut_from_text(doc: Document) -> bool:
    """Whether ``doc`` is itself a unit cut from a text (a passage, a question/answer pair)."""
    unit = doc.metadata.get("unit")
    if isinstance(unit, dict) and unit.get("kind") in TEXT_KINDS:
        return True
    name = unit_name(doc.url)
    return name is not None and name.startswith(_TEXT_NAMES)


def text_unit(
    parent: Document,
    name: str,
    *,
    kind: str,
    position: int,
    text: str,
    span: list[int] | None,
    title: str,
) -> Document:
    """A unit of ``parent`` named ``name`` (``p-3``) whose text is ``text`` (see the module docstring)."""
    raw = text.encode("utf-8", "surrogatepass")
    metadata: dict[str, Any] = {
        "unit": {
            "parent": parent.url,
            "kind": kind,
            "position": position,
            "span": span,
            "root": unit_root(parent.url),
        },
        "size": len(raw),
    }
    for key in _INHERITED:
        if key in parent.metadata:
            metadata[key] = parent.metadata[key]
    return Document(
        url=unit_url(parent.url, name),
        raw=raw,
        record_type="resource",
        fetched_at=parent.fetched_at,  # a unit is as old as its file: see Collection.retire_stale_units
        source=parent.source,
        declared_type="text/plain; charset=utf-8",
        sniffed_type="text/plain",
        encoding="utf-8",
        encoding_source="unit",
        text=text,
        title=title,
        metadata=metadata,
    )


class TextUnitStep(Step):
    """A fan-out step: each document, followed by the units :meth:`units` cuts from its text.

    Documents that cannot have such units pass at the cost of a few attribute reads: a dropped
    document, a crawl's unchanged revisit (its text is the earlier capture's), a document with no
    text, and a unit cut from a text itself. A failure on one document is counted and recorded,
    and the document goes on without units."""

    name: ClassVar[str] = "units-text"

    def run(self, docs: Iterable[Document], ctx: RunContext) -> Iterator[Document]:
        self.ctx = ctx
        for doc in docs:
            if doc.dropped or not doc.text or doc.metadata.get(UNCHANGED) or cut_from_text(doc):
                yield doc
                continue
            t0 = time.perf_counter()
            try:
                units = self.units(doc)
            except Exception as exc:  # isolation: the document goes on whole, its units unmade
                doc.error(self.name, exc)
                ctx.error(self.name, exc, url=doc.url, source=doc.source)
                units = []
            finally:
                ctx.stats.add_time(self.name, time.perf_counter() - t0)
            yield doc
            yield from units

    def units(self, doc: Document) -> list[Document]:
        """The units of ``doc``, in order (none by default)."""
        return []
