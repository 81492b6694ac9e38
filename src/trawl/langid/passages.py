"""Per-passage identification: a document's language spans and its dominant language.

A document is cut into units — lines, and sentences within long lines — and each unit is
identified on its own. Short units are weak evidence ("Home | Contact" could be many things),
so the labels are chosen jointly by a Viterbi pass: each unit pays ``-log P(label)`` for the
label it gets (from its score and alternatives; a label it never considered costs as much as
``floor``), and every change of language between neighbours pays :data:`SWITCH_COST`. A run
of units with one label is a span; the dominant language is the one with the most letters.

:class:`LanguageTagger` is the pipeline step: it fills ``Document.lang``, ``lang_score`` (the
letter-weighted mean score of the dominant language's spans) and ``passages`` (one dict per span:
``start``, ``end`` — character offsets in ``doc.text`` —, ``lang``, ``score``, ``chars``).
"""

# ruff: noqa: RUF001 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from trawl.document import Document
from trawl.langid.codes import UND
from trawl.langid.identify import LangResult, LanguageIdentifier, get_identifier
from trawl.pipeline.base import Step

__all__ = ["SWITCH_COST", "LanguageTagger", "Span", "dominant", "language_spans", "units"]

#: Cost of changing language between neighbouring units, in nats.
SWITCH_COST = 2.5
_FLOOR = 1e-4
_UNIT = re.compile(r"[^\n]*?(?:[.!?。！？।](?=\s)|\n|$)")
_MAX_UNIT = 400


@dataclass(slots=True)
class Span:
    """Characters ``start:end`` of the text are in ``lang`` with mean score ``score``."""

    start: int
    end: int
    lang: str
    score: float
    letters: int

    def as_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "lang": self.lang, "score": round(self.score, 4),
                "chars": self.end - self.start}  # fmt: skip


def units(text: str) -> list[tuple[int, int]]:
    """Offsets of the lines of ``text``, lines longer than a few hundred characters cut at
    sentence ends; blank lines are left out."""
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line)
        pos = end
        if not line.strip():
            continue
        if len(line) <= _MAX_UNIT:
            out.append((start, end))
            continue
        cursor = start
        for m in _UNIT.finditer(line):
            if m.end() == m.start():
                continue
            if m.end() + start - cursor >= 40 or m.end() == len(line):
                out.append((cursor, start + m.end()))
                cursor = start + m.end()
        if cursor < end:
            out.append((cursor, end))
    return out


def _letters(s: str) -> int:
    return sum(map(str.isalpha, s))


def language_spans(
    text: str, identifier: LanguageIdentifier | None = None, switch_cost: float = SWITCH_COST
) -> list[Span]:
    """The language spans of ``text`` (see the module docstring)."""
    ident = identifier or get_identifier("default")
    pieces = units(text)
    if not pieces:
        return []
    results: list[LangResult] = [ident.identify(text[a:b]) for a, b in pieces]
    weights = [max(1, _letters(text[a:b])) for a, b in pieces]
    labels = sorted({lab for r in results for lab in [r.lang, *(x for x, _ in r.alternatives)]} | {UND})
    index = {lab: i for i, lab in enumerate(labels)}

    def cost(r: LangResult, w: int) -> list[float]:
        probs = dict.fromkeys(labels, _FLOOR)
        probs[r.lang] = max(r.score, _FLOOR) if r.lang != UND else 0.5
        for lab, s in r.alternatives:
            probs[lab] = max(probs[lab], s, _FLOOR)
        if r.lang == UND:  # no evidence: any label is as good
            return [0.0] * len(labels)
        scale = min(1.0, w / 30) + 0.2  # longer units weigh more
        return [-math.log(probs[lab]) * scale for lab in labels]

    # Viterbi over units
    prev = cost(results[0], weights[0])
    back: list[list[int]] = []
    for r, w in zip(results[1:], weights[1:], strict=True):
        c = cost(r, w)
        best_prev = min(range(len(labels)), key=lambda j: prev[j])
        row, cur = [], []
        for k in range(len(labels)):
            stay, switch = prev[k], prev[best_prev] + switch_cost
            if stay <= switch:
                row.append(k)
                cur.append(stay + c[k])
            else:
                row.append(best_prev)
                cur.append(switch + c[k])
        back.append(row)
        prev = cur
    path = [min(range(len(labels)), key=lambda j: prev[j])]
    for row in reversed(back):
        path.append(row[path[-1]])
    path.reverse()
    if all(r.lang == UND for r in results):
        path = [index[UND]] * len(results)

    spans: list[Span] = []
    for (a, b), k, r, w in zip(pieces, path, results, weights, strict=True):
        lab = labels[k]
        s = r.score if r.lang == lab else dict(r.alternatives).get(lab, 0.0)
        if spans and spans[-1].lang == lab:
            sp = spans[-1]
            sp.score = (sp.score * sp.letters + s * w) / (sp.letters + w)
            sp.end, sp.letters = b, sp.letters + w
        else:
            spans.append(Span(a, b, lab, s, w))
    for sp in spans:  # trim the whitespace at span edges
        while sp.start < sp.end and text[sp.start].isspace():
            sp.start += 1
        while sp.end > sp.start and text[sp.end - 1].isspace():
            sp.end -= 1
    return spans


def dominant(spans: list[Span]) -> tuple[str, float]:
    """The language with the most letters (``und`` only if nothing else), and its mean score."""
    letters: Counter[str] = Counter()
    for sp in spans:
        if sp.lang != UND:
            letters[sp.lang] += sp.letters
    if not letters:
        return UND, 0.0
    lang = letters.most_common(1)[0][0]
    mine = [sp for sp in spans if sp.lang == lang]
    return lang, sum(sp.score * sp.letters for sp in mine) / sum(sp.letters for sp in mine)


class LanguageTagger(Step):
    """Fills ``lang``, ``lang_score`` and ``passages`` from ``doc.text``.

    Counters: ``langid/lang/<code>`` per document, ``langid/mixed`` when a document has spans in
    more than one language, ``langid/und/empty`` for a document without text. Only the first
    ``max_chars`` characters are read (a huge document is not slower to tag than a big one).
    """

    name: ClassVar[str] = "langid"

    def __init__(
        self, method: str = "default", max_chars: int = 100_000, switch_cost: float = SWITCH_COST
    ) -> None:
        self.identifier = get_identifier(method)
        self.max_chars = max_chars
        self.switch_cost = switch_cost

    def process(self, doc: Document) -> Document:
        text = doc.text[: self.max_chars]
        spans = language_spans(text, self.identifier, self.switch_cost) if text.strip() else []
        if not spans:
            doc.lang, doc.lang_score, doc.passages = UND, 0.0, []
            self.count("langid/und/empty")
            return doc
        doc.lang, doc.lang_score = dominant(spans)
        doc.passages = [sp.as_dict() for sp in spans]
        self.count(f"langid/lang/{doc.lang}")
        if len({sp.lang for sp in spans if sp.lang != UND}) > 1:
            self.count("langid/mixed")
        return doc
