"""DOM-based main-content extraction: classify text blocks, keep the content ones.

:func:`classify_blocks` runs the two-stage block classifier of :mod:`trawl.extract.features` —
stage 1 a small tree ensemble (:mod:`trawl.extract.forest`, fitted trees in ``_forest.py``),
stage 2 a logistic model over stage 1's context (weights in ``_weights.py``) — and returns, per
block, the probability that it is main content. :func:`render` turns the kept blocks into plain
text (paragraphs separated by a blank line, list items and table cells one per line) or
Markdown-ish text (``#`` headings, ``-`` list items, fenced ``<pre>`` blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from trawl.extract import _forest, _weights
from trawl.extract.blocks import Block, PageBlocks, compiled_walk
from trawl.extract.features import (
    STAGE1_NAMES,
    STAGE2_NAMES,
    inside_container,
    stage1_matrix,
    stage2_matrix,
)
from trawl.extract.forest import Forest

__all__ = ["Classified", "classify_blocks", "render", "select"]

_STAGE1 = Forest.from_module(_forest, STAGE1_NAMES)
_W2 = np.array([_weights.STAGE2.get(n, 0.0) for n in STAGE2_NAMES + STAGE1_NAMES])
_W2_STAGE2, _W2_STAGE1 = _W2[: len(STAGE2_NAMES)], _W2[len(STAGE2_NAMES) :]
_LINE_TAGS = frozenset({"li", "td", "th", "dt", "dd", "tr"})


def _sigmoid(z: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))


@dataclass(slots=True)
class Classified:
    """Per-block content probabilities, the kept blocks and the content container."""

    probs: list[float]
    kept: list[Block]
    container: int
    score: float  # mean probability of the kept blocks, weighted by words
    words: int = 0  # words in the kept blocks


def select(
    page: PageBlocks,
    probs: list[float],
    container: int,
    threshold: float,
    *,
    threshold_main: float | None = None,
    threshold_outside: float | None = None,
) -> list[Block]:
    """The blocks to keep: at or above ``threshold``, inside the container, each text once.

    Blocks outside the content container are dropped when the container holds at least half of
    the kept words (a page with one main region); the blocks inside it must then reach
    ``threshold_main`` (default ``threshold``): on a page with one main region, a doubtful block
    is more often an aside (an author box, a related list) than content; a block outside it stays
    when it reaches ``threshold_outside`` (a confident paragraph the container missed: a page
    whose content is split between two regions). Otherwise (a page whose content is spread over
    several regions) they stay. A text repeated on the page (a menu in a
    mobile and a desktop version, a "Share" line above and below) is kept once.
    """
    p = np.asarray(probs, dtype=np.float64)
    keep = p >= threshold
    words = page.words
    if container > 0 and keep.any():
        inside = inside_container(page, container)
        if 2 * int(words[keep & inside].sum()) >= int(words[keep].sum()):
            main = threshold if threshold_main is None else max(threshold, threshold_main)
            out_thr = 2.0 if threshold_outside is None else threshold_outside
            keep &= np.where(inside, p >= main, p >= out_thr)
    texts = page.texts
    seen: set[str] = set()
    out = []
    idx = np.flatnonzero(keep)
    for i, w, lw, e, start in zip(
        idx.tolist(),
        words[idx].tolist(),
        page.link_words[idx].tolist(),
        page.element[idx].tolist(),
        page.start[idx].tolist(),
        strict=True,
    ):
        text = texts[i]
        if w >= 3:
            if text in seen:
                continue
            seen.add(text)
        out.append(Block(text, w, lw, e, i, start))
    return out


def classify_blocks(page: PageBlocks, threshold: float | None = None) -> Classified:
    """Score every block of ``page`` and keep the content ones (see :func:`select`)."""
    thr = _weights.THRESHOLD if threshold is None else threshold
    thr_main = getattr(_weights, "THRESHOLD_MAIN", None) if threshold is None else None
    thr_out = getattr(_weights, "THRESHOLD_OUTSIDE", None) if threshold is None else None
    if not page.texts:
        return Classified([], [], 0, 0.0, 0)
    x1 = stage1_matrix(page)
    p1 = _sigmoid(_STAGE1.raw(x1, compiled_walk()))
    x2, best = stage2_matrix(page, p1)
    # einsum, not ``@``: a few hundred rows are not worth waking BLAS's threads, whose spinning
    # afterwards costs more CPU than the product.
    p2 = _sigmoid(np.einsum("ij,j->i", x2, _W2_STAGE2) + np.einsum("ij,j->i", x1, _W2_STAGE1))
    probs = p2.tolist()
    kept = select(page, probs, best, thr, threshold_main=thr_main, threshold_outside=thr_out)
    at = [b.index for b in kept]
    w = page.words[at]
    words = int(w.sum())
    score = float(np.dot(p2[at], w)) / words if words else 0.0
    return Classified(probs, kept, best, score, words)


def render(page: PageBlocks, blocks: list[Block], fmt: str = "text") -> str:
    """Plain text (``fmt="text"``) or Markdown-ish text (``fmt="markdown"``) of ``blocks``."""
    out: list[str] = []
    prev_tag = ""
    for b, tag in zip(blocks, page.tags_of([b.element for b in blocks]), strict=True):
        text = b.text
        if fmt == "markdown":
            if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
                text = "#" * int(tag[1]) + " " + text
            elif tag in ("li", "dd"):
                text = "- " + text
            elif tag == "pre":
                text = "```\n" + text + "\n```"
            elif tag == "blockquote":
                text = "> " + text
        if out:
            out.append("\n" if tag in _LINE_TAGS and prev_tag in _LINE_TAGS else "\n\n")
        out.append(text)
        prev_tag = tag
    return "".join(out)
