"""Per-passage identification: a document's language spans and its dominant language.

A document is cut into units — lines, and sentences within long lines — and the labels are
chosen jointly by a Viterbi pass: each unit pays ``-log P(label)`` for the label it gets (a
label it never considered costs as much as ``floor``), and every change of language between
neighbours pays :data:`SWITCH_COST`. A run of units with one label is a span; the dominant
language is the one with the most letters.

With the default identifier the pass runs in two steps, so that its cost stays below the main
content's extraction however many lines a page has:

1. **units by the broad model** (py3langid's, :meth:`~trawl.langid.broad.BroadModel.log_probs_many`:
   one walk of the units' bytes in C): its probabilities over its 139 languages are the units'
   evidence; a unit :func:`~trawl.langid.identify.clean_text` finds no language in (code, a
   listing, no letters) or the broad model calls ``zxx`` is evidence for nothing;
2. **spans by the default identifier**: each run of one label is identified again as a whole
   (its first units, until they hold :data:`SPAN_SAMPLE` characters) by the fused, calibrated
   identifier, which brings the languages only trawl knows, the relatives' decisions and the
   calibrated score; neighbours that come out alike are one span.

Other identifiers (Cavnar & Trenkle, trawl's models alone) identify every unit with the full
identifier and choose by its calibrated scores and alternatives.

:class:`LanguageTagger` is the pipeline step: it fills ``Document.lang``, ``lang_score`` (the
letter-weighted mean score of the dominant language's spans) and ``passages`` (one dict per span:
``start``, ``end`` — character offsets in ``doc.text`` —, ``lang``, ``score``, ``chars``).
"""

# ruff: noqa: RUF001, RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import contextlib
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from trawl.document import Document
from trawl.langid.broad import NO_LANGUAGE
from trawl.langid.codes import UND
from trawl.langid.identify import (
    DefaultIdentifier,
    LangResult,
    LanguageIdentifier,
    clean_text,
    get_identifier,
)
from trawl.pipeline.base import Step

__all__ = ["SPAN_SAMPLE", "SWITCH_COST", "LanguageTagger", "Span", "dominant", "language_spans", "units"]

#: Cost of changing language between neighbouring units, in nats.
SWITCH_COST = 2.5
_FLOOR = 1e-4
#: A span the broad model's pass finds is identified by the full identifier from its first units,
#: until they hold this many characters (or the whole span; whole units, so a little more: a
#: stricter cut at 600 cost the UDHR mixed documents of bench/langid_passages.py 1.3 points).
SPAN_SAMPLE = 600
#: Labels per unit the Viterbi pass considers (the broad model's best few).
_UNIT_LABELS = 3

_compiled_viterbi: Any = None
if not os.environ.get("TRAWL_PURE_PYTHON"):
    with contextlib.suppress(ImportError):  # not built: numpy's
        from trawl.langid._nb import viterbi as _compiled_viterbi
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


def _scale(w: int) -> float:
    return min(1.0, w / 30) + 0.2  # longer units weigh more


def _viterbi(costs: np.ndarray[Any, np.dtype[np.float64]], switch_cost: float) -> list[int]:
    """The cheapest path through ``costs`` (units × labels) when a change of label costs
    ``switch_cost``: one label index per unit (ties: the lower index, staying before switching).
    In C when the compiled module is there (:func:`trawl.langid._nb.viterbi`), else numpy's."""
    if _compiled_viterbi is not None:
        path = np.empty(len(costs), dtype=np.int64)
        _compiled_viterbi(np.ascontiguousarray(costs), switch_cost, path)
        out: list[int] = path.tolist()
        return out
    return _numpy_viterbi(costs, switch_cost)


def _numpy_viterbi(costs: np.ndarray[Any, np.dtype[np.float64]], switch_cost: float) -> list[int]:
    """:func:`_viterbi` in numpy (the reference)."""
    prev = costs[0].copy()
    back = np.zeros(costs.shape, dtype=np.int64)
    for i in range(1, len(costs)):
        j = int(np.argmin(prev))
        switch = prev[j] + switch_cost
        stay = prev <= switch
        back[i] = np.where(stay, np.arange(costs.shape[1]), j)
        prev = np.where(stay, prev, switch) + costs[i]
    path = [int(np.argmin(prev))]
    for i in range(len(costs) - 1, 0, -1):
        path.append(int(back[i, path[-1]]))
    path.reverse()
    return path


def _two_pass_spans(
    text: str, pieces: list[tuple[int, int]], ident: DefaultIdentifier, switch_cost: float
) -> list[Span]:
    """Units by the broad model, spans by the default identifier (the module docstring)."""
    assert ident.broad is not None
    broad = ident.broad
    weights = [max(1, _letters(text[a:b])) for a, b in pieces]
    cleaned = [clean_text(text[a:b]) for a, b in pieces]
    live = [i for i, (_, reason) in enumerate(cleaned) if reason is None]
    logs = broad.log_probs_many([cleaned[i][0] for i in live])
    zxx = broad.index.get(NO_LANGUAGE)
    if zxx is not None and live:
        keep = np.argmax(logs, axis=1) != zxx  # py3langid's "no linguistic content": no evidence
        live = [i for i, k in zip(live, keep.tolist(), strict=True) if k]
        logs = logs[keep]
    if not live:
        return [Span(pieces[0][0], pieces[-1][1], UND, 0.0, sum(weights))]
    # the labels: each live unit's best few, then und (the label of units with no evidence)
    order = (
        np.argpartition(-logs, _UNIT_LABELS - 1, axis=1)[:, :_UNIT_LABELS]
        if logs.shape[1] > _UNIT_LABELS
        else np.argsort(-logs, axis=1)
    )
    cols = sorted({int(c) for c in order.ravel().tolist()} - ({zxx} if zxx is not None else set()))
    floor = -math.log(_FLOOR)
    costs = np.zeros((len(pieces), len(cols) + 1))
    sub = np.minimum(-logs[:, cols], floor)
    scales = np.array([_scale(weights[i]) for i in live])
    costs[live, : len(cols)] = sub * scales[:, None]
    costs[live, len(cols)] = floor * scales  # und for a unit with evidence
    path = _viterbi(costs, switch_cost)
    names = [broad.labels[c] for c in cols] + [UND]
    # runs of one label, then each run identified as a whole
    runs: list[tuple[int, int, str]] = []  # first unit, last unit (inclusive), broad label
    for i, k in enumerate(path):
        if runs and runs[-1][2] == names[k]:
            runs[-1] = (runs[-1][0], i, names[k])
        else:
            runs.append((i, i, names[k]))
    spans: list[Span] = []
    for first, last, name in runs:
        a, b = pieces[first][0], pieces[last][1]
        w = sum(weights[first : last + 1])
        if name == UND:
            lab, score = UND, 0.0
        else:
            sample: list[str] = []
            size = 0
            for i in range(first, last + 1):
                if cleaned[i][1] is None:
                    unit = text[pieces[i][0] : pieces[i][1]].strip()
                    sample.append(unit)
                    size += len(unit) + 1
                    if size >= SPAN_SAMPLE:
                        break
            r = ident.identify("\n".join(sample)) if sample else None
            lab, score = (r.lang, r.score) if r is not None else (UND, 0.0)
        _append_span(spans, a, b, lab, score=score, letters=w)
    return spans


def language_spans(
    text: str,
    identifier: LanguageIdentifier | None = None,
    switch_cost: float = SWITCH_COST,
    two_pass: bool = True,
) -> list[Span]:
    """The language spans of ``text`` (see the module docstring); ``two_pass=False`` identifies
    every unit with the full identifier even when it is the default one (slower, and noisier on
    a page's short lines: ``bench/langid_passages.py`` compares the two)."""
    ident = identifier or get_identifier("default")
    pieces = units(text)
    if not pieces:
        return []
    if two_pass and isinstance(ident, DefaultIdentifier) and ident.broad is not None:
        return _trim(text, _two_pass_spans(text, pieces, ident, switch_cost))
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
        _append_span(spans, a, b, lab, score=s, letters=w)
    return _trim(text, spans)


def _append_span(spans: list[Span], start: int, end: int, lang: str, *, score: float, letters: int) -> None:
    """Characters ``start:end`` in ``lang``: the last span grows when it is in ``lang`` too (its
    score the letter-weighted mean), else a new one follows it."""
    if spans and spans[-1].lang == lang:
        sp = spans[-1]
        sp.score = (sp.score * sp.letters + score * letters) / (sp.letters + letters)
        sp.end, sp.letters = end, sp.letters + letters
    else:
        spans.append(Span(start, end, lang, score, letters))


def _trim(text: str, spans: list[Span]) -> list[Span]:
    """The spans without the whitespace at their edges."""
    for sp in spans:
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
        if isinstance(self.identifier, DefaultIdentifier):
            self.identifier.warm()
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
