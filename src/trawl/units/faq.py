"""FAQ question/answer pairs as document units.

:class:`FaqUnits` runs after main-content extraction (see :mod:`trawl.units.text`) on HTML pages,
reading what the page's one parse left (``doc.page``: its JSON-LD objects, ``page.about.ld``, and
its text blocks with their elements, ``page.blocks``); nothing is parsed again. Each pair is a
unit at the parent's URL plus ``#unit=qa-1``, ``qa-2``… in the page's order: title = the
question, text = the question, a blank line and the answer, ``metadata["question"]``,
``metadata["answer"]``, ``metadata["faq"]`` = where it was found (``json-ld``, ``dl``,
``details``, ``headings``) and ``metadata["unit"]`` = ``{"parent", "kind": "qa", "position",
"span", "root"}``, ``span`` being ``[start, end]`` of the pair in the parent's text (from its
question to the end of its answer) or ``None`` where the parent's text does not hold it.

Where pairs are found, most deliberate first; a page's pairs come from JSON-LD when it has any,
else from its markup:

* **JSON-LD**: a ``FAQPage`` whose ``mainEntity`` is ``Question`` objects with a ``name`` and an
  ``acceptedAnswer`` with a ``text`` (HTML in it made text). One question is enough: the page
  says what it is. A question without both is counted (``units/faq/skipped/malformed``).
* **Markup**, conservatively: a pair is a *question* (a text of at most 300 characters ending
  with a question mark: ``?``, the full-width one, the Arabic one) followed by a non-empty answer
  of at most 4,000 characters, and a page needs at least two of them of one pattern:

  - a ``<dl>`` whose ``<dt>`` terms are at least half questions (the question terms with their
    ``<dd>`` descriptions are the pairs). **A glossary is not a FAQ**: a ``<dl>`` of terms and
    definitions makes no units (``units/faq/skipped/glossary``); a term is not a question, and
    passage units serve retrieval over definitions;
  - ``<details>`` whose ``<summary>`` is a question (an accordion), the rest of the ``<details>``
    the answer;
  - a run of headings of one level that are questions, each followed by its answer: the blocks
    after it, inside the heading's parent element, up to the next heading of its level or above
    (a deeper heading that is no question is part of the answer); a heading that is no question,
    or a question without an answer, ends the run.

  One question alone is not a FAQ (``units/faq/skipped/one-question``). A pair found in markup
  must be in the page's main content: its question, and the answer's blocks that the main content
  holds (the rest of the answer left out); a pair the main content does not hold (a FAQ box in a
  sidebar, repeated on every page of a site) makes no unit (``units/faq/skipped/outside-content``).
  The same question twice on a page makes one unit.

Counters: ``units/faq/pages`` (pages with pairs), ``units/faq/pairs``, ``units/faq/source/<where>``
and, when ``max_pairs`` per page is hit, ``units/faq/capped``. A page that is not HTML, or whose
parse is not at hand (a document handed over from another process), passes without pairs.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from trawl.document import Document
from trawl.errors import ConfigError
from trawl.html.blocks import BLOCK_TAGS, PageBlocks
from trawl.html.page import HtmlPage
from trawl.units.text import TextUnitStep, text_unit

__all__ = ["FaqUnits", "Pair", "dom_pairs", "is_question", "ld_pairs"]

#: What ends a question, in the scripts that mark one at its end (Spanish "¿…?" ends with "?").
QUESTION_MARKS = ("?", "\uff1f", "\u061f")  # ?, full-width (CJK), Arabic
MAX_QUESTION_CHARS = 300
MAX_ANSWER_CHARS = 4000
#: Question/answer pairs a page's markup must show before they are taken for a FAQ.
MIN_MARKUP_PAIRS = 2

_NAMES = (*BLOCK_TAGS, "body")  # by tag index; -1 (the body) reads the last
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# A tag runs to its ">" and stops at a "<" (an unclosed "<p" ends there): each match attempt is
# then bounded by the next "<", so a text of unclosed tags is read in linear time, not squared.
_BREAK_TAGS = re.compile(r"<\s*(?:br|/?(?:p|div|li|ul|ol|h[1-6]|tr|blockquote|pre))\b[^<>]*>", re.I)
_DROPPED_OPEN = re.compile(r"<\s*(script|style)\b", re.I)
_DROPPED_CLOSE = {name: re.compile(rf"<\s*/\s*{name}\s*>", re.I) for name in ("script", "style")}
_TAG = re.compile(r"<[^<>]*>")
_SPACES = re.compile(r"[^\S\n]+")


def is_question(text: str) -> bool:
    """Whether ``text`` reads as a question: short, with a letter, ending with a question mark."""
    text = text.rstrip()
    return (
        0 < len(text) <= MAX_QUESTION_CHARS
        and text.endswith(QUESTION_MARKS)
        and any(c.isalpha() for c in text)
    )


@dataclass(slots=True)
class Pair:
    """One question and its answer (paragraphs), where it was found, and its span in the text."""

    question: str
    answer: list[str]
    source: str
    span: list[int] | None = None
    order: int = 0  # the question's block, for markup: pairs of several patterns in page order


def _drop_scripts(value: str) -> str:
    """``value`` with each ``<script>``/``<style>`` element, up to its first closing tag, one
    space; an element never closed is left (its tags go with the others). One pass: an opening
    whose closing tag is missing is not searched for again at each later opening."""
    out: list[str] = []
    pos = at = 0
    unclosed: set[str] = set()
    while (m := _DROPPED_OPEN.search(value, at)) is not None:
        name = m.group(1).lower()
        close = None if name in unclosed else _DROPPED_CLOSE[name].search(value, m.end())
        if close is None:
            unclosed.add(name)
            at = m.end()
            continue
        out += (value[pos : m.start()], " ")
        pos = at = close.end()
    out.append(value[pos:])
    return "".join(out)


def _plain(value: str) -> str:
    """JSON-LD text (which may hold HTML, or HTML-escaped HTML) as text, paragraphs one per line."""
    if "<" not in value and "&lt;" in value:
        value = html.unescape(value)  # HTML written escaped
    if "<" in value:
        value = _drop_scripts(value)
        value = _BREAK_TAGS.sub("\n", value)
        value = _TAG.sub("", value)
    value = html.unescape(value)
    lines = (_SPACES.sub(" ", line).strip() for line in value.split("\n"))
    return "\n".join(line for line in lines if line)


def _types(item: dict[str, Any]) -> list[str]:
    kind = item.get("@type")
    if isinstance(kind, str):
        return [kind]
    return [k for k in kind if isinstance(k, str)] if isinstance(kind, list) else []


def ld_pairs(items: list[dict[str, Any]]) -> tuple[list[Pair], int]:
    """The pairs of the ``FAQPage`` objects among ``items`` (JSON-LD, as :attr:`PageMetadata.ld`
    holds it), and how many of their questions were malformed."""
    pairs: list[Pair] = []
    malformed = 0
    for item in items:
        if "FAQPage" not in _types(item):
            continue
        main = item.get("mainEntity")
        for q in main if isinstance(main, list) else [main]:
            if not isinstance(q, dict) or "Question" not in _types(q):
                malformed += 1
                continue
            name = q.get("name") or q.get("text")
            accepted = q.get("acceptedAnswer")
            if isinstance(accepted, list):
                accepted = next((a for a in accepted if isinstance(a, dict)), None)
            text = accepted.get("text") if isinstance(accepted, dict) else None
            question = _plain(name).replace("\n", " ") if isinstance(name, str) else ""
            answer = _plain(text) if isinstance(text, str) else ""
            if not question or not answer:
                malformed += 1
                continue
            pairs.append(Pair(question, answer.split("\n"), "json-ld"))
    return pairs, malformed


class _Tree:
    """The columns of a page's blocks that the markup patterns read, as lists."""

    def __init__(self, blocks: PageBlocks) -> None:
        self.texts = blocks.texts
        self.element: list[int] = blocks.element.tolist()
        self.tag: list[str] = [_NAMES[t] for t in blocks.tag_index.tolist()]
        self.parent: list[int] = blocks.parent.tolist()
        self.end: list[int] = blocks.end.tolist()

    def ancestor(self, e: int, wanted: frozenset[str]) -> int:
        """``e`` or its nearest ancestor whose tag is ``wanted``; -1 for none."""
        while e >= 0:
            if self.tag[e] in wanted:
                return e
            e = self.parent[e]
        return -1

    def inside(self, container: int, e: int) -> bool:
        return container <= e < self.end[container]


_DL_ROLES = frozenset(("dt", "dd"))
_DL = frozenset(("dl",))
_DETAILS_ROLES = frozenset(("summary", "details"))
#: Elements that wrap a heading alone: its answer is in their parent.
_WRAPPERS = frozenset(("header", "hgroup"))


def _grouped(
    tree: _Tree, roles: frozenset[str], group: frozenset[str]
) -> dict[int, list[tuple[str, int, int]]]:
    """The blocks under an element of ``roles``, by that element's nearest ancestor of ``group``
    (``roles`` may hold the group's own tag): ``(role, role element, block)`` in page order."""
    out: dict[int, list[tuple[str, int, int]]] = {}
    for b, e in enumerate(tree.element):
        owner = tree.ancestor(e, roles)
        if owner < 0:
            continue
        at = owner if tree.tag[owner] in group else tree.ancestor(tree.parent[owner], group)
        if at >= 0:
            out.setdefault(at, []).append((tree.tag[owner], owner, b))
    return out


def _dl_pairs(tree: _Tree, counts: dict[str, int]) -> list[Pair]:
    out: list[Pair] = []
    for entries in _grouped(tree, _DL_ROLES, _DL).values():
        terms: list[tuple[int, str, list[str]]] = []  # (block, term, description paragraphs)
        last_owner = -1
        for role, owner, b in entries:
            text = tree.texts[b]
            if role == "dt":
                if owner == last_owner and terms and not terms[-1][2]:
                    terms[-1] = (terms[-1][0], f"{terms[-1][1]} {text}", [])
                else:
                    terms.append((b, text, []))
            elif terms:
                terms[-1][2].append(text)
            last_owner = owner
        described = [t for t in terms if t[2]]
        questions = [t for t in described if is_question(t[1])]
        if len(questions) >= MIN_MARKUP_PAIRS and 2 * len(questions) >= len(terms):
            out.extend(Pair(q, answer, "dl", order=b) for b, q, answer in questions)
        elif len(questions) == 1 and len(described) == 1:
            _inc(counts, "units/faq/skipped/one-question")
        elif len(described) >= MIN_MARKUP_PAIRS:
            _inc(counts, "units/faq/skipped/glossary")
    return out


def _details_pairs(tree: _Tree) -> list[Pair]:
    out: list[Pair] = []
    for entries in _grouped(tree, _DETAILS_ROLES, frozenset(("details",))).values():
        summary: list[str] = []
        answer: list[str] = []
        first = -1
        for role, _owner, b in entries:
            if role == "summary":
                summary.append(tree.texts[b])
                first = b if first < 0 else first
            else:
                answer.append(tree.texts[b])
        question = " ".join(summary)
        if is_question(question) and answer:
            out.append(Pair(question, answer, "details", order=first))
    return out


@dataclass(slots=True)
class _Open:
    level: int
    question: str
    block: int
    container: int
    answer: list[str] = field(default_factory=list)


def _heading_pairs(tree: _Tree, counts: dict[str, int]) -> list[Pair]:
    out: list[Pair] = []
    run: list[_Open] = []
    current: _Open | None = None

    def end_run() -> None:
        if len(run) >= MIN_MARKUP_PAIRS:
            out.extend(Pair(p.question, p.answer, "headings", order=p.block) for p in run)
        elif run:
            _inc(counts, "units/faq/skipped/one-question")
        run.clear()

    def close() -> None:
        if current is None:
            return
        if current.answer and sum(map(len, current.answer)) <= MAX_ANSWER_CHARS:
            run.append(current)
        else:
            end_run()

    items: list[tuple[int, int, str, int]] = []  # (heading level or 0, element, text, block)
    for b, e in enumerate(tree.element):
        level = _HEADINGS.get(tree.tag[e], 0)
        if level and items and items[-1][1] == e:
            items[-1] = (level, e, f"{items[-1][2]} {tree.texts[b]}", items[-1][3])
        else:
            items.append((level, e, tree.texts[b], b))
    for level, e, text, b in items:
        if current is not None and not tree.inside(current.container, e):
            close()
            current = None
        if not level:
            if current is not None:
                current.answer.append(text)
            continue
        if current is not None and level > current.level and not is_question(text):
            current.answer.append(text)
            continue
        close()
        current = None
        if is_question(text):
            if run and run[0].level != level:
                end_run()
            container = max(tree.parent[e], 0)
            while tree.tag[container] in _WRAPPERS:  # <section><header><h2>…</h2></header><p>…
                container = max(tree.parent[container], 0)
            current = _Open(level, text, b, container)
        else:
            end_run()
    close()
    end_run()
    return out


def _inc(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def dom_pairs(blocks: PageBlocks, counts: dict[str, int] | None = None) -> list[Pair]:
    """The pairs a page's markup shows (``<dl>``, ``<details>``, question headings; see the module
    docstring), in page order, a question seen twice kept once; ``counts`` gets the near misses."""
    counts = {} if counts is None else counts
    if not any(is_question(t) for t in blocks.texts):  # most pages: one pass, and done
        return []
    tree = _Tree(blocks)
    found = [*_dl_pairs(tree, counts), *_details_pairs(tree), *_heading_pairs(tree, counts)]
    found.sort(key=lambda p: p.order)
    seen: set[str] = set()
    out = []
    for pair in found:
        key = " ".join(pair.question.split()).lower()
        if key not in seen:
            seen.add(key)
            out.append(pair)
    return out


def _locate(text: str, question: str, answer: list[str], cursor: int) -> tuple[int, list[tuple[int, int]]]:
    """Where ``question`` and the paragraphs of ``answer`` are in ``text`` after ``cursor``: the
    question's start (-1 if absent) and, for each paragraph found in order after it, its span."""
    at = text.find(question, cursor)
    if at < 0:
        return -1, []
    found: list[tuple[int, int]] = []
    pos = at + len(question)
    for para in answer:
        i = text.find(para, pos)
        if i < 0:
            continue
        found.append((i, i + len(para)))
        pos = i + len(para)
    if found:  # the question nearest its answer (a table of contents may name it before)
        at = text.rfind(question, at, found[0][0])
    return at, found


class FaqUnits(TextUnitStep):
    """Cuts FAQ pages into question/answer units (see the module docstring)."""

    name: ClassVar[str] = "faq"

    def __init__(self, *, max_pairs: int = 200) -> None:
        if max_pairs < 1:
            raise ConfigError(f"units.max_faq_pairs must be at least 1, not {max_pairs}")
        self.max_pairs = max_pairs

    def pairs(self, doc: Document) -> list[Pair]:
        """The pairs of ``doc``, spans set, in order (up to one past the bound)."""
        page = doc.page
        if not isinstance(page, HtmlPage):
            return []
        text = doc.text
        pairs, malformed = ld_pairs(page.about.ld) if page.about.ld else ([], 0)
        if malformed:
            self.count("units/faq/skipped/malformed", malformed)
        out: list[Pair] = []
        seen: set[str] = set()
        cursor = 0
        if pairs:
            for pair in pairs:
                if len(out) > self.max_pairs:
                    break  # one past the bound tells units() it was hit; the rest is not looked for
                key = " ".join(pair.question.split()).lower()
                if key in seen:
                    continue
                seen.add(key)
                at, found = _locate(text, pair.question, pair.answer, cursor)
                if at >= 0 and len(found) == len(pair.answer):
                    pair.span = [at, found[-1][1]]
                    cursor = found[-1][1]
                out.append(pair)
            return out
        counts: dict[str, int] = {}
        for pair in dom_pairs(page.blocks, counts):
            if len(out) > self.max_pairs:
                break
            at, found = _locate(text, pair.question, pair.answer, cursor)
            if at < 0 or not found:
                self.count("units/faq/skipped/outside-content")
                continue
            pair.answer = [text[s:e] for s, e in found]
            pair.span = [at, found[-1][1]]
            cursor = found[-1][1]
            out.append(pair)
        for key, n in counts.items():
            self.count(key, n)
        return out

    def units(self, doc: Document) -> list[Document]:
        pairs = self.pairs(doc)
        if not pairs:
            return []
        if len(pairs) > self.max_pairs:
            self.count("units/faq/capped")
            pairs = pairs[: self.max_pairs]
        self.count("units/faq/pages")
        self.count("units/faq/pairs", len(pairs))
        units = []
        for position, pair in enumerate(pairs, 1):
            answer = "\n\n".join(pair.answer)
            unit = text_unit(
                doc,
                f"qa-{position}",
                kind="qa",
                position=position,
                text=f"{pair.question}\n\n{answer}",
                span=pair.span,
                title=pair.question,
            )
            unit.metadata.update(question=pair.question, answer=answer, faq=pair.source)
            self.count(f"units/faq/source/{pair.source}")
            units.append(unit)
        return units
