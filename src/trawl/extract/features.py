"""Block features and the two-stage block classifier of the DOM extractor.

Stage 1 scores every text block from its own features (Kohlschütter et al. 2010: word count, link
density, text density), its neighbours' (the previous and next block), its markup (the tag holding
it, class/id hints of its ancestors, depth) and its position in the page. Stage 2 adds context that
needs stage 1: the smoothed scores of the surrounding blocks and whether the block lies inside the
page's *content container*, the element that maximises the stage-1 content words inside it minus
the boilerplate words inside it — Finn's body-text objective lifted from a token sequence to the
DOM tree. Both stages are logistic models whose weights were fitted on half of the WCXB dev set
(``python bench/extract.py train``; see ``_weights.py``). Features are computed as numpy
arrays: Python reads each block and element once, the arithmetic runs over whole columns.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from trawl.extract.blocks import HINT_NAMES, PageBlocks

__all__ = [
    "N_BLOCK_FEATURES",
    "STAGE1_NAMES",
    "STAGE2_NAMES",
    "inside_container",
    "stage1_matrix",
    "stage2_matrix",
]

_TAG_GROUPS = {
    "h1": 0, "h2": 0, "h3": 0, "h4": 0, "h5": 0, "h6": 0,
    "p": 1, "li": 2, "dt": 2, "dd": 2, "td": 3, "th": 3, "pre": 4, "blockquote": 4,
    "div": 5, "section": 5, "article": 5, "main": 5, "body": 6,
}  # fmt: skip
_N_TAGS = 8
_TAG_NAMES = ("heading", "p", "li", "cell", "pre", "div", "body", "other")
_ANCESTOR_TAGS = ("li", "table", "form", "blockquote")
_ANC_INDEX = {"li": 0, "ul": 0, "ol": 0, "dl": 0, "table": 1, "form": 2, "blockquote": 3, "pre": 3}

_NAV = 1 << HINT_NAMES.index("nav")
_SIDE = 1 << HINT_NAMES.index("side")
_COMMENT = 1 << HINT_NAMES.index("comment")

STAGE1_NAMES: tuple[str, ...] = (
    "bias",
    "log_words",
    "link_density",
    "ld_x_log_words",
    "long",
    "punct_density",
    "ends_sentence",
    "position",
    "position_sq",
    "prev_log_words",
    "prev_ld",
    "next_log_words",
    "next_ld",
    "depth",
    "page_log_words",
    "page_ld",
    "element_share",
    "parent_share",
    "same_tag_siblings",
    "all_link",
    "starts_upper",
    "tiny",
    "short",
    "avg_word_len",
    "repeated",
    "repeat_not_first",
    *(f"tag_{n}" for n in _TAG_NAMES),
    *(f"hint_{n}" for n in HINT_NAMES),
    *(f"own_hint_{n}" for n in HINT_NAMES),
    *(f"in_{n}" for n in _ANCESTOR_TAGS),
    *(f"page_share_{n}" for n in HINT_NAMES),
    *(f"hint_x_share_{n}" for n in HINT_NAMES),
)
#: How many of :data:`STAGE1_NAMES` are block features (the rest describe the holding element).
N_BLOCK_FEATURES = STAGE1_NAMES.index("tag_heading")
STAGE2_NAMES: tuple[str, ...] = (
    "p1",
    "p1_logit",
    "p1_window",
    "p1_element",
    "in_container",
    "container_share",
    "container_is_body",
    "words_x_in_container",
    "ld_x_in_container",
    "comment_x_in_container",
    "side_x_in_container",
    "nav_x_in_container",
)


def inside_container(page: PageBlocks, root: int) -> list[bool]:
    """Per block, whether it lies inside element ``root``."""
    elements = page.elements
    inside = [False] * len(elements)
    if 0 <= root < len(elements):
        inside[root] = True
        for i in range(root + 1, len(elements)):  # parents precede children
            inside[i] = inside[elements[i].parent]
    return [inside[b.element] for b in page.blocks]


# --------------------------------------------------------------------------- vectorised


_BITS = np.arange(len(HINT_NAMES))
_ANC_BITS = np.arange(len(_ANCESTOR_TAGS))
_EYE_TAGS = np.eye(_N_TAGS)


def _bits(values: Any, positions: Any) -> Any:
    return ((np.asarray(values, dtype=np.int64)[:, None] >> positions) & 1).astype(np.float64)


def stage1_matrix(page: PageBlocks) -> Any:
    """One row of stage-1 features per text block, columns in the order of :data:`STAGE1_NAMES`.

    Python touches each element and each block once to read it; the features themselves are
    array operations.
    """
    blocks = page.blocks
    elements = page.elements
    n = len(blocks)
    if not n:
        return np.zeros((0, len(STAGE1_NAMES)))
    total = max(page.total_words, 1)
    # Per element (a Python pass over elements, not blocks).
    n_el = len(elements)
    siblings = Counter((e.parent, e.tag) for e in elements)
    anc = [0] * n_el
    depth = np.empty(n_el)
    el_words = np.empty(n_el)
    parent_words = np.empty(n_el)
    sib = np.empty(n_el)
    group = np.empty(n_el, dtype=np.int64)
    ahints = np.empty(n_el, dtype=np.int64)
    hints = np.empty(n_el, dtype=np.int64)
    for i, e in enumerate(elements):
        if e.parent >= 0:
            bit = _ANC_INDEX.get(elements[e.parent].tag)
            anc[i] = anc[e.parent] | ((1 << bit) if bit is not None else 0)
            parent_words[i] = elements[e.parent].words
        else:
            parent_words[i] = e.words
        depth[i] = e.depth
        el_words[i] = e.words
        sib[i] = siblings[(e.parent, e.tag)]
        group[i] = _TAG_GROUPS.get(e.tag, 7)
        ahints[i] = e.ancestor_hints
        hints[i] = e.hints
    # Per block.
    texts = [b.text for b in blocks]
    el = np.fromiter((b.element for b in blocks), dtype=np.int64, count=n)
    w = np.fromiter((b.words for b in blocks), dtype=np.float64, count=n)
    lw = np.fromiter((b.link_words for b in blocks), dtype=np.float64, count=n)
    start = np.fromiter((b.start for b in blocks), dtype=np.float64, count=n)
    length = np.fromiter(map(len, texts), dtype=np.float64, count=n)
    punct = np.fromiter(
        (t.count(".") + t.count(",") + t.count(";") + t.count("?") + t.count("!") for t in texts),
        dtype=np.float64,
        count=n,
    )
    ends = np.fromiter((t[-1:] in ".!?:" for t in texts), dtype=np.float64, count=n)
    upper = np.fromiter((t[:1].isupper() for t in texts), dtype=np.float64, count=n)
    counts = Counter(texts)
    seen: set[str] = set()
    repeat_not_first = np.empty(n)
    for i, t in enumerate(texts):
        repeat_not_first[i] = t in seen
        seen.add(t)
    repeated = np.fromiter((counts[t] > 1 for t in texts), dtype=np.float64, count=n)
    logs = np.log1p(w)
    lds = lw / w
    pos = start / total
    prev_logs = np.concatenate(([0.0], logs[:-1]))
    prev_lds = np.concatenate(([1.0], lds[:-1]))
    next_logs = np.concatenate((logs[1:], [0.0]))
    next_lds = np.concatenate((lds[1:], [1.0]))
    hint_bits = _bits(ahints, _BITS)[el]
    share = (w @ hint_bits) / total
    x = np.empty((n, len(STAGE1_NAMES)))
    x[:, 0] = 1.0
    x[:, 1] = logs
    x[:, 2] = lds
    x[:, 3] = lds * logs
    x[:, 4] = w >= 20
    x[:, 5] = np.minimum(punct / w, 1.0)
    x[:, 6] = ends
    x[:, 7] = pos
    x[:, 8] = pos * pos
    x[:, 9] = prev_logs
    x[:, 10] = prev_lds
    x[:, 11] = next_logs
    x[:, 12] = next_lds
    x[:, 13] = np.minimum(depth[el] / 20.0, 2.0)
    x[:, 14] = math.log1p(total)
    x[:, 15] = lw.sum() / total
    x[:, 16] = el_words[el] / total
    x[:, 17] = parent_words[el] / total
    x[:, 18] = np.log(sib[el])  # log1p(count - 1)
    x[:, 19] = lw >= w
    x[:, 20] = upper
    x[:, 21] = w <= 3
    x[:, 22] = w <= 10
    x[:, 23] = np.minimum(length / w / 10.0, 2.0)
    x[:, 24] = repeated
    x[:, 25] = repeat_not_first
    k = N_BLOCK_FEATURES
    nh = len(HINT_NAMES)
    x[:, k : k + _N_TAGS] = _EYE_TAGS[group[el]]
    k += _N_TAGS
    x[:, k : k + nh] = hint_bits
    k += nh
    x[:, k : k + nh] = _bits(hints, _BITS)[el]
    k += nh
    x[:, k : k + len(_ANCESTOR_TAGS)] = _bits(anc, _ANC_BITS)[el]
    k += len(_ANCESTOR_TAGS)
    x[:, k : k + nh] = share
    k += nh
    x[:, k : k + nh] = hint_bits * share
    return x


def stage2_matrix(page: PageBlocks, p1: Any) -> tuple[Any, int]:
    """Stage-2 features (:data:`STAGE2_NAMES`) from the stage-1 probabilities ``p1``, and the
    content container: the element maximising ``sum((2p - 1) * words)`` over the blocks inside it.
    """
    blocks = page.blocks
    elements = page.elements
    n = len(blocks)
    n_el = len(elements)
    el = np.fromiter((b.element for b in blocks), dtype=np.int64, count=n)
    w = np.fromiter((b.words for b in blocks), dtype=np.float64, count=n)
    lw = np.fromiter((b.link_words for b in blocks), dtype=np.float64, count=n)
    parents = [e.parent for e in elements]
    gain = np.bincount(el, weights=(2.0 * p1 - 1.0) * w, minlength=n_el).tolist()
    for i in range(n_el - 1, 0, -1):
        gain[parents[i]] += gain[i]
    best = int(np.argmax(gain)) if gain else 0
    inside_el = [False] * n_el
    inside_el[best] = True
    for i in range(best + 1, n_el):
        inside_el[i] = inside_el[parents[i]]
    inside = np.asarray(inside_el, dtype=np.float64)[el]
    total = max(page.total_words, 1)
    share = elements[best].words / total
    key = np.asarray(parents, dtype=np.int64)[el] + 1
    acc_p = np.bincount(key, weights=p1 * w)
    acc_w = np.bincount(key, weights=w)
    cum = np.concatenate(([0.0], np.cumsum(p1)))
    idx = np.arange(n)
    lo = np.maximum(idx - 2, 0)
    hi = np.minimum(idx + 3, n)
    ahints = np.fromiter((elements[b.element].ancestor_hints for b in blocks), dtype=np.int64, count=n)
    p = np.clip(p1, 1e-6, 1 - 1e-6)
    x = np.empty((n, len(STAGE2_NAMES)))
    x[:, 0] = p
    x[:, 1] = np.log(p / (1 - p))
    x[:, 2] = (cum[hi] - cum[lo]) / (hi - lo)
    x[:, 3] = acc_p[key] / acc_w[key]
    x[:, 4] = inside
    x[:, 5] = share
    x[:, 6] = best == 0
    x[:, 7] = np.log1p(w) * inside
    x[:, 8] = lw / w * inside
    x[:, 9] = inside * ((ahints & _COMMENT) > 0)
    x[:, 10] = inside * ((ahints & _SIDE) > 0)
    x[:, 11] = inside * ((ahints & _NAV) > 0)
    return x, best
