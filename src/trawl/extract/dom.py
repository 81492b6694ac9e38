"""DOM-based main-content extraction: classify text blocks, keep the content ones.

:func:`classify_blocks` runs the two-stage block classifier of :mod:`trawl.extract.features` —
stage 1 a small tree ensemble (:mod:`trawl.extract.forest`, fitted trees in ``_forest.py``),
stage 2 a logistic model over stage 1's context (weights in ``_weights.py``) — and returns, per
block, the probability that it is main content. :func:`render` turns the kept blocks into plain
text (paragraphs separated by a blank line, list items and table cells one per line) or
Markdown-ish text (``#`` headings, ``-`` list items, fenced ``<pre>`` blocks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trawl.extract import _forest, _weights
from trawl.extract.features import (
    STAGE1_NAMES,
    STAGE2_NAMES,
    boiler_hits,
    container_hints,
    first_occurrences,
    inside_container,
    stage1_matrix,
    stage2_matrix,
)
from trawl.extract.forest import Forest
from trawl.html.blocks import (
    ANCESTOR_GROUPS,
    BLOCK_TAGS,
    FINE_HINT_NAMES,
    HINT_NAMES,
    Block,
    PageBlocks,
    compiled_walk,
)

__all__ = [
    "Classified",
    "blocks_at",
    "classify_blocks",
    "comment_index",
    "expected_f1",
    "expected_f1_bar",
    "render",
    "render_index",
    "select",
    "select_index",
]

_STAGE1 = Forest.from_module(_forest, STAGE1_NAMES)
_W2 = np.array([_weights.STAGE2.get(n, 0.0) for n in STAGE2_NAMES + STAGE1_NAMES])
_W2_STAGE2, _W2_STAGE1 = _W2[: len(STAGE2_NAMES)], _W2[len(STAGE2_NAMES) :]
_LINE_TAGS = frozenset({"li", "td", "th", "dt", "dd", "tr"})
_COMMENTS_BIT = 1 << (len(HINT_NAMES) + FINE_HINT_NAMES.index("comments"))
_FORM_BIT = 1 << ANCESTOR_GROUPS["form"]
#: Per tag index (:data:`~trawl.html.blocks.BLOCK_TAGS`, the body's -1 last): a line-like tag.
_LINE_INDEX = np.array([t in _LINE_TAGS for t in (*BLOCK_TAGS, "body")], dtype=bool)


def _sigmoid(z: Any) -> Any:
    """``1 / (1 + exp(-clip(z, -30, 30)))``, the same operations in place (np.clip's Python
    wrappers cost more than the arithmetic on a page's few hundred blocks)."""
    z = np.asarray(z, dtype=np.float64)
    if not z.ndim:
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    out = np.minimum(np.maximum(z, -30.0), 30.0)
    np.negative(out, out=out)
    np.exp(out, out=out)
    out += 1.0
    return np.divide(1.0, out, out=out)


class Classified:
    """Per-block content probabilities, the kept blocks and the content container.

    ``index`` holds the kept blocks' indices; :attr:`kept` makes them :class:`Block` objects on
    first use (the extractor renders from the indices and never needs them).
    """

    __slots__ = ("_kept", "_page", "container", "expected_f1", "index", "probs", "score", "words")

    def __init__(  # noqa: PLR0917 - the dataclass it was took these positionally
        self,
        probs: list[float],
        index: list[int],
        container: int,
        score: float,
        words: int = 0,
        page: PageBlocks | None = None,
        expected_f1: float = 0.0,
    ) -> None:
        self.probs = probs
        self.index = index
        self.container = container
        self.score = score  # mean probability of the kept blocks, weighted by words
        self.words = words  # words in the kept blocks
        # The word F1 the probabilities expect of the kept blocks (:func:`expected_f1`); on pages
        # of unseen sites it tracks the measured F1 (bench/README.md).
        self.expected_f1 = expected_f1
        self._page = page
        self._kept: list[Block] | None = None

    @property
    def kept(self) -> list[Block]:
        """The kept blocks, in page order."""
        if self._kept is None:
            self._kept = [] if self._page is None else blocks_at(self._page, self.index)
        return self._kept


def blocks_at(page: PageBlocks, index: list[int]) -> list[Block]:
    """The blocks of ``page`` at ``index`` as :class:`Block` objects (those of ``page.blocks``)."""
    blocks = page.blocks
    return [blocks[i] for i in index]


def select(
    page: PageBlocks, probs: Any, container: int, threshold: float, **thresholds: float | None
) -> list[Block]:
    """The blocks :func:`select_index` keeps, as :class:`Block` objects (``thresholds``:
    ``threshold_main``, ``threshold_outside``, ``page_bar_scale``)."""
    return blocks_at(page, select_index(page, probs, container, threshold, **thresholds))


def expected_f1_bar(probs: Any, words: Any) -> float:
    """Half the best expected word F1 a page's block probabilities promise: the bar a block's
    probability must reach to be kept if the page's expected F1 is to be as high as it can be.

    Taking ``probs`` as calibrated and the blocks as independent, keeping the set S expects
    ``2 Σ_S p·w / (Σ_S w + Σ_all p·w)`` (true words over kept plus true words, ``w`` a block's
    words); the best S holds the most probable blocks, and every block of it has a probability
    of at least half that best F1 (Lipton, Elkan & Naryanaswamy 2014, "Optimal thresholding of
    classifiers to maximize F1 measure"). 0.5 where no block has any probability or words.
    """
    p = np.asarray(probs, dtype=np.float64)
    w = np.asarray(words, dtype=np.float64)
    order = np.argsort(-p)  # ties: any order gives the same prefix sums at the tie's end
    true_words = np.cumsum(p[order] * w[order])
    if not len(p) or true_words[-1] <= 0.0:
        return 0.5
    kept_words = np.cumsum(w[order])
    kept_words += true_words[-1]
    return float((true_words / kept_words).max())  # 2·TP / (kept + true), halved


def expected_f1(probs: Any, words: Any, index: list[int]) -> float:
    """The word F1 ``probs`` expect of keeping the blocks at ``index``: 2·Σ_kept p·w /
    (Σ_kept w + Σ_all p·w), taking the probabilities as calibrated (0 when both are 0)."""
    p = np.asarray(probs, dtype=np.float64)
    w = np.asarray(words, dtype=np.float64)
    kept = float(w[index].sum())
    true = float(np.dot(p, w))
    return 2 * float(np.dot(p[index], w[index])) / (kept + true) if kept + true > 0 else 0.0


def select_index(
    page: PageBlocks,
    probs: Any,
    container: int,
    threshold: float,
    *,
    threshold_main: float | None = None,
    threshold_outside: float | None = None,
    page_bar_scale: float | None = None,
) -> list[int]:
    """The blocks to keep, as indices (``probs``: per block, a list or array): at or above
    ``threshold``, inside the container, each text once.

    With ``page_bar_scale`` (λ), a page whose blocks promise little lowers its bar: the
    threshold becomes ``min(threshold, λ · expected_f1_bar(probs, words))`` and
    ``threshold_main`` moves down with it. On a page the classifier is unsure of, the global
    threshold (fitted for the typical page) drops blocks that the page's own best expected F1
    would keep; a page it is sure of keeps the global threshold (raising it there was no better).
    Whether the page has one main region (below) is still decided by the blocks that clear the
    global threshold, when any do.

    Blocks outside the content container are dropped when the container holds at least half of
    the kept words (a page with one main region); the blocks inside it must then reach
    ``threshold_main`` (default ``threshold``): on a page with one main region, a doubtful block
    is more often an aside (an author box, a related list) than content; a block outside it stays
    when it reaches ``threshold_outside`` (a confident paragraph the container missed: a page
    whose content is split between two regions). Otherwise (a page whose content is spread over
    several regions) they stay. A text repeated on the page (a menu in a mobile and a desktop
    version, a "Share" line above and below) is kept once.
    """
    p = np.asarray(probs, dtype=np.float64)
    words = page.words
    keep = p >= threshold
    # One main region or several is decided at the global threshold (where anything clears it):
    # the page's own bar changes what is kept within that structure, and never turns a page with
    # one region into a spread one (a 404 page's menu, doubtful block by doubtful block, would
    # outweigh its one message).
    region = keep
    if page_bar_scale is not None:
        bar = page_bar_scale * expected_f1_bar(p, words)
        if bar < threshold:
            if threshold_main is not None:
                threshold_main -= threshold - bar
            threshold = bar
            keep = p >= threshold
            if not region.any():  # nothing clears the global threshold: the page's bar decides
                region = keep
    if container > 0 and region.any():
        inside = inside_container(page, container)
        if 2 * int(words[region & inside].sum()) >= int(words[region].sum()):
            main = threshold if threshold_main is None else max(threshold, threshold_main)
            out_thr = 2.0 if threshold_outside is None else threshold_outside
            keep &= np.where(inside, p >= main, p >= out_thr)
    at = np.flatnonzero(keep)
    firsts = first_occurrences(page)
    walk = compiled_walk()
    if walk is not None:
        index: list[int] = walk.kept_once(at, firsts, words)
        return index
    # Each text's first kept block: a block whose text's first kept block is another is dropped.
    # (A text always has the same word count, so "under 3 words may repeat" is per text.)
    index = at.tolist()
    same = firsts[at].tolist()
    first = dict(zip(reversed(same), reversed(index), strict=True))
    if len(first) == len(index):  # no text kept twice
        return index
    short = (words[at] < 3).tolist()
    return [i for i, c, s in zip(index, same, short, strict=True) if s or first[c] == i]


def comment_index(page: PageBlocks, container: int) -> list[int]:
    """The blocks of readers' comments on ``page``: under an element whose class or id names
    comments (``comment…``, ``respond``, ``disqus``) and that does not hold the content container
    (the posts of a forum thread, which the classifier keeps as the content, are not "comments"
    to it), with at least four words, mostly not links, outside forms (the comment form's
    labels) and not naming boilerplate ("Leave a reply"). The commenter's name and the time,
    usually links or a line of two or three words, stay out."""
    if not page.texts:
        return []
    el = page.element
    words = page.words
    rel = container_hints(page, container)[el]
    chosen = (rel & _COMMENTS_BIT) > 0
    chosen &= (words >= 4) & (2 * page.link_words < words) & ((page.inside[el] & _FORM_BIT) == 0)
    at = np.flatnonzero(chosen).tolist()
    if not at:
        return []
    named = set(boiler_hits(page.texts, [i for i in at if words[i] <= 12]))
    return [i for i in at if i not in named]


def classify_blocks(
    page: PageBlocks, threshold: float | None = None, *, comments: bool = False
) -> Classified:
    """Score every block of ``page`` and keep the content ones (see :func:`select`); with
    ``comments``, readers' comments too (:func:`comment_index`), which an article's main content
    leaves out."""
    thr = _weights.THRESHOLD if threshold is None else threshold
    thr_main = getattr(_weights, "THRESHOLD_MAIN", None) if threshold is None else None
    thr_out = getattr(_weights, "THRESHOLD_OUTSIDE", None) if threshold is None else None
    bar_scale = getattr(_weights, "PAGE_BAR_SCALE", None) if threshold is None else None
    if not page.texts:
        return Classified([], [], 0, 0.0, 0, page)
    x1 = stage1_matrix(page)
    p1 = _sigmoid(_STAGE1.raw(x1, compiled_walk()))
    x2, best = stage2_matrix(page, p1)
    # einsum, not ``@``: a few hundred rows are not worth waking BLAS's threads, whose spinning
    # afterwards costs more CPU than the product.
    p2 = _sigmoid(np.einsum("ij,j->i", x2, _W2_STAGE2) + np.einsum("ij,j->i", x1, _W2_STAGE1))
    index = select_index(
        page, p2, best, thr, threshold_main=thr_main, threshold_outside=thr_out, page_bar_scale=bar_scale
    )
    if comments:
        extra = comment_index(page, best)
        if extra:
            index = sorted({*index, *extra})
    w = page.words[index]
    words = int(w.sum())
    score = float(np.dot(p2[index], w)) / words if words else 0.0
    return Classified(p2.tolist(), index, best, score, words, page, expected_f1(p2, page.words, index))


def render(page: PageBlocks, blocks: list[Block], fmt: str = "text") -> str:
    """Plain text (``fmt="text"``) or Markdown-ish text (``fmt="markdown"``) of ``blocks``."""
    return _render([b.text for b in blocks], page.tags_of([b.element for b in blocks]), fmt)


def render_index(page: PageBlocks, index: list[int], fmt: str = "text") -> str:
    """:func:`render` of the blocks at ``index``."""
    texts = page.texts
    kept = [texts[i] for i in index]
    if fmt != "markdown" and len(kept) > 1:
        # Plain text: a line break between two line-like blocks (list items, cells), else a
        # blank line; the separators from the tag codes, one join.
        line = _LINE_INDEX[page.tag_index[page.element[index]]]
        if not line.any():
            return "\n\n".join(kept)
        parts: list[str] = [""] * (2 * len(kept) - 1)
        parts[::2] = kept
        parts[1::2] = np.where(line[1:] & line[:-1], "\n", "\n\n").tolist()
        return "".join(parts)
    return _render(kept, page.tags_of(page.element[index]) if index else [], fmt)


def _render(texts: list[str], tags: list[str], fmt: str) -> str:
    if fmt != "markdown" and _LINE_TAGS.isdisjoint(tags):
        return "\n\n".join(texts)  # paragraphs only: one join
    out: list[str] = []
    prev_tag = ""
    for raw, tag in zip(texts, tags, strict=True):
        text = raw
        if fmt == "markdown":
            if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
                text = "#" * int(tag[1]) + " " + raw
            elif tag in ("li", "dd"):
                text = "- " + raw
            elif tag == "pre":
                text = "```\n" + raw + "\n```"
            elif tag == "blockquote":
                text = "> " + raw
        if out:
            out.append("\n" if tag in _LINE_TAGS and prev_tag in _LINE_TAGS else "\n\n")
        out.append(text)
        prev_tag = tag
    return "".join(out)
