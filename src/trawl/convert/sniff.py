"""The sniffing stage: every document's type by its first bytes, against the declared one.

The rules are :mod:`trawl.sniff` (magic numbers, markup patterns, type families); this step
applies them to the head of each document's entity body.
"""

from __future__ import annotations

from typing import ClassVar

from trawl.decode.http import entity_body, file_coding
from trawl.document import Document
from trawl.pipeline.base import Step
from trawl.sniff.magic import SNIFF_BYTES, sniff_type, types_disagree

__all__ = ["TypeSniffer"]


class TypeSniffer(Step):
    """Sets ``sniffed_type``, ``declared_type`` (from the HTTP header, if not already set) and
    ``type_mismatch``; counts ``format/sniffed/<type>`` and ``format/mismatch``."""

    name: ClassVar[str] = "sniff"

    def process(self, doc: Document) -> Document:
        sniffed = sniff_type(entity_body(doc, limit=SNIFF_BYTES).data)
        doc.sniffed_type = sniffed
        if doc.declared_type is None:
            doc.declared_type = doc.content_type
        declared = doc.content_type
        if file_coding(doc) is not None:  # page.html.gz: judge the inside against its name
            declared = str(doc.metadata["compressed_type"])
        doc.type_mismatch = types_disagree(declared, sniffed)
        self.count(f"format/sniffed/{sniffed}")
        if doc.type_mismatch:
            self.count("format/mismatch")
        return doc
