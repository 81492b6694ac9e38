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
import re
import threading
from typing import Any

import numpy as np

from trawl.html.blocks import BLOCK_TAGS, FINE_HINT_NAMES, HINT_NAMES, PageBlocks, compiled_walk, trie_pattern

__all__ = [
    "N_BLOCK_FEATURES",
    "STAGE1_NAMES",
    "STAGE2_NAMES",
    "boiler_hits",
    "container_hints",
    "container_of",
    "content_region",
    "first_occurrences",
    "inside_container",
    "relative_hints",
    "stage1_matrix",
    "stage2_matrix",
    "subtree_end",
]

_TAG_GROUPS = {
    "h1": 0, "h2": 0, "h3": 0, "h4": 0, "h5": 0, "h6": 0,
    "p": 1, "li": 2, "dt": 2, "dd": 2, "td": 3, "th": 3, "pre": 4, "blockquote": 4,
    "div": 5, "section": 5, "article": 5, "main": 5, "body": 6,
}  # fmt: skip
_N_TAGS = 8
_TAG_NAMES = ("heading", "p", "li", "cell", "pre", "div", "body", "other")
_ANCESTOR_TAGS = ("li", "table", "form", "blockquote")

#: The hint families read relative to the content container (stage 2's ``rel_*``).
_REL_HINTS = ("nav", "footer", "side", "comment", "social", "meta", "ad", *FINE_HINT_NAMES)
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
    "el_link_density",
    "parent_link_density",
    "boiler_phrase",
    "under_boiler_heading",
    "content_heading_before",
    "digit_share",
    "in_unit",
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
    "mass_before",
    "mass_after",
    "gap_prev",
    "gap_next",
    "in_main_run",
    "unit_after_main",
    *(f"rel_{n}" for n in _REL_HINTS),
)
#: Short texts that name boilerplate: a block saying only this, or the section under a heading
#: saying it ("Related articles", "Leave a reply", "Follow us"), is rarely the page's content.
#: Matched on the lower-cased text with one prefix-factored pattern (see blocks.trie_pattern).
_BOILER_PHRASES = (
    "related|you may also like|you might also like|you may like|you might like|also like|more from"
    "|more stories|more articles|more news|more posts|recommended|popular|trending|most read"
    "|most viewed|read more|read next|comment|leave a|share|sharing|follow us|subscribe|newsletter"
    "|sign up|sign in|login|log in|advertis|sponsored|cookie|privacy|terms of|all rights|copyright"
    "|\u00a9|skip to|back to top|search|categor|previous|load more|show more|see all|see more"
    "|view all|latest|about us|about the author|contact|footer|navigation|breadcrumb"
    "|licensed under|last updated|edit this page|was this page helpful|feedback|on github"
    "|add to cart|add to bag|add to basket|buy now|in stock|out of stock|free shipping|quantity"
    "|wishlist|wish list|write a review|customers also|frequently bought|you may also"
)
#: The same boilerplate in the other languages the web writes most (German, French, Spanish,
#: Italian, Portuguese, Dutch, Polish): the headings of related-article, comment, share and
#: newsletter boxes. Without them a German page's "Mehr zum Thema" box read as article text
#: (issue 32). Prefixes where the word inflects (kommentar-, komentarz-, commentaire-).
_BOILER_PHRASES_INTL = (
    "mehr zum thema|das könnte sie auch interessieren|das könnte dich auch interessieren"
    "|auch interessant|ähnliche beiträge|ähnliche artikel|verwandte artikel|weitere artikel"
    "|weitere beiträge|weiterlesen|mehr lesen|kommentar|kommentier|teilen|abonnieren"
    "|meistgelesen|beliebteste|über den autor|über die autorin|zum autor|datenschutz|impressum"
    "|nach oben|anmelden"
    "|articles similaires|à lire aussi|lire aussi|voir aussi|sur le même sujet|vous aimerez"
    "|commentaire|partager|abonnez-vous|inscrivez-vous|les plus lus|mentions légales"
    "|artículos relacionados|noticias relacionadas|te puede interesar|lee también|comentario"
    "|compartir|suscríbete|lo más leído"
    "|articoli correlati|potrebbe interessarti|leggi anche|commenti|lascia un commento"
    "|condividi|iscriviti"
    "|artigos relacionados|leia também|veja também|comentários|deixe um comentário"
    "|compartilhe|partilhar"
    "|gerelateerde artikelen|lees ook|meer over|reacties|reageer|deel dit"
    "|zobacz także|zobacz też|czytaj także|czytaj też|podobne artykuły|powiązane|komentarz"
    "|udostępnij|najczęściej czytane|polecamy"
)


def _with_capitals(phrases: list[str]) -> list[str]:
    """Each phrase, and its capitalised form where that begins with a non-ASCII letter (the
    compiled matcher lower-cases ASCII only: "Ähnliche" must match "ähnliche")."""
    out = []
    for phrase in phrases:
        out.append(phrase)
        if not phrase[0].isascii() and phrase[0].upper() != phrase[0]:
            out.append(phrase[0].upper() + phrase[1:])
    return out


_PHRASES = _with_capitals([*_BOILER_PHRASES.split("|"), *_BOILER_PHRASES_INTL.split("|")])
_BOILER_SUFFIXES = {"comment": r"s?\b", "share": r"\b"}
_BOILER = re.compile(r"\b(?:reply|next|menu|tags?)\b|" + trie_pattern(_PHRASES, _BOILER_SUFFIXES))


def _boiler_keywords() -> list[tuple[bytes, int, int, int]]:
    """:data:`_BOILER` for the compiled matcher (``_walk.init_boiler``): the phrases, with end
    kind 3 for ``s?\\b``, 4 for ``\\b``, 1 for none; the whole words with 5 (6 for ``tags?``)."""
    kinds = {r"s?\b": 3, r"\b": 4}
    out = [
        (phrase.encode("utf-8"), kinds[_BOILER_SUFFIXES[phrase]] if phrase in _BOILER_SUFFIXES else 1, 0, 0)
        for phrase in _PHRASES
    ]
    out += [(word.encode("ascii"), 5, 0, 0) for word in ("reply", "next", "menu")]
    out.append((b"tag", 6, 0, 0))
    return out


class _CompiledBoiler:
    """The compiled walk module once its boilerplate-phrase trie is loaded (None: use the regex)."""

    module: Any = None
    loaded = False
    lock = threading.Lock()


def _compiled_boiler() -> Any:
    if not _CompiledBoiler.loaded:
        with _CompiledBoiler.lock:
            if not _CompiledBoiler.loaded:
                walk = compiled_walk()
                if walk is not None:
                    walk.init_boiler(_boiler_keywords())
                    _CompiledBoiler.module = walk
                _CompiledBoiler.loaded = True
    return _CompiledBoiler.module


def _boiler_regex(text: str) -> bool:
    return _BOILER.search(text.lower()) is not None


def boiler_hits(texts: list[str], candidates: list[int]) -> list[int]:
    """The indices among ``candidates`` whose text names boilerplate (matches :data:`_BOILER`):
    by the compiled trie when it is built, else by the regex, cached per text."""
    walk = _compiled_boiler()
    if walk is not None:
        hits: list[int] = walk.boiler_hits(texts, candidates, _boiler_regex)
        return hits
    return [i for i in candidates if _names_boilerplate(texts[i])]


def subtree_end(page: PageBlocks, root: int) -> int:
    """One past the last element inside element ``root`` (elements are in document order, so a
    subtree is the run ``[root, end)``)."""
    return int(page.end[root])


def inside_container(page: PageBlocks, root: int) -> Any:
    """Per block, whether it lies inside element ``root`` (a boolean array)."""
    n_el = len(page.depth)
    if not 0 <= root < n_el:
        return np.zeros(len(page.texts), dtype=bool)
    el = page.element
    return (el >= root) & (el < subtree_end(page, root))


# --------------------------------------------------------------------------- vectorised


_BITS = np.arange(len(HINT_NAMES))
_ANC_BITS = np.arange(len(_ANCESTOR_TAGS))
_EYE_TAGS = np.eye(_N_TAGS)
#: Element tag codes are ``tag_index + 1`` (0: the body), and these tables are indexed by code.
_CODE_TAGS = ("body", *BLOCK_TAGS)
_GROUP_OF_CODE = np.array([_TAG_GROUPS.get(t, 7) for t in _CODE_TAGS], dtype=np.int64)
_UNIT_TAGS = ("li", "article", "section", "div")
_UNIT_OF_CODE = np.array([t in _UNIT_TAGS for t in _CODE_TAGS], dtype=bool)


def _bits(values: Any, positions: Any) -> Any:
    return ((np.asarray(values, dtype=np.int64)[:, None] >> positions) & 1).astype(np.float64)


class _Columns:
    """The per-element and per-block numbers both stages need, as float or int arrays."""

    __slots__ = ("ahints", "el", "el_links", "el_words", "in_unit", "lw", "parent", "w")

    def __init__(self, page: PageBlocks) -> None:
        self.el = page.element
        self.w = page.words.astype(np.float64)
        self.lw = page.link_words.astype(np.float64)
        parent = page.parent.copy()
        parent[0] = 0
        self.parent = parent
        self.el_words = page.el_words.astype(np.float64)
        self.el_links = page.el_link_words.astype(np.float64)
        self.in_unit = np.zeros(0)  # per block, set by stage1_matrix
        self.ahints = page.ancestor_hints


def _columns(page: PageBlocks) -> _Columns:
    cols = page.cache.get("columns")
    if cols is None:
        cols = page.cache["columns"] = _Columns(page)
    return cols


def stage1_matrix(page: PageBlocks) -> Any:
    """One row of stage-1 features per text block, columns in the order of :data:`STAGE1_NAMES`.

    The per-element columns are numpy operations; the per-block rows are filled by the compiled
    module (``_walk.stage1_fill``) when it is built, else by the numpy code below (the reference:
    both give the same numbers, tested).
    """
    texts = page.texts
    n = len(texts)
    if not n:
        return np.zeros((0, len(STAGE1_NAMES)))
    total = max(page.total_words, 1)
    cols = _columns(page)
    tag_code = page.tag_index + 1
    parent = cols.parent
    el_words = cols.el_words
    walk = _compiled_boiler()
    if walk is not None:
        n_el = len(parent)
        sib = np.empty(n_el)
        unit_el = np.empty(n_el)
        units = _UNIT_OF_CODE.view(np.uint8)
        n_codes = len(_CODE_TAGS)
        walk.element_columns(tag_code, parent, el_words, page.end, units, total, n_codes, sib, unit_el)
    else:
        sib, unit_el = _element_columns(page, tag_code, parent, el_words, total)
    group = _GROUP_OF_CODE[tag_code]
    parent_words = el_words[parent]
    el_ld = cols.el_links / np.maximum(el_words, 1.0)
    el = cols.el
    # Repeated texts: each block's first occurrence.
    firsts = first_occurrences(page)
    # Short blocks whose text names boilerplate ("Related posts", "Share", "Leave a reply").
    boiler = np.zeros(n, dtype=np.uint8)
    hits = boiler_hits(texts, np.flatnonzero(page.words <= 12).tolist())
    if hits:
        boiler[hits] = 1
    x = np.empty((n, len(STAGE1_NAMES)))
    if walk is not None:
        walk.stage1_fill(
            texts, x, page.words, page.link_words, page.element, page.start, firsts, boiler, group, sib,
            page.depth, page.hints, page.ancestor_hints, page.inside, el_words, parent_words, el_ld,
            el_ld[parent], page.total_words, N_BLOCK_FEATURES, _N_TAGS, len(HINT_NAMES), len(_ANCESTOR_TAGS),
        )  # fmt: skip
    else:
        _stage1_numpy(page, x, firsts=firsts, boiler=boiler, group=group, sib=sib, parent_words=parent_words,
                      el_ld=el_ld)  # fmt: skip
    _digit_column(page, x)
    cols.in_unit = unit_el[el]
    x[:, len(STAGE1_NAMES) - 1] = cols.in_unit
    return x


_DIGIT_COLUMN = STAGE1_NAMES.index("digit_share")


def _digit_column(page: PageBlocks, x: Any) -> None:
    """Stage 1's ``digit_share``: the share of a block's characters that are ASCII digits. A line
    of a date and a time ("31. Mai 2012, 19:49", "23.10.2018"), a counter or a price is mostly
    digits, in any language; running text is not. One pass over the page's joined text."""
    texts = page.texts
    joined = "\n".join(texts)
    if joined.isascii():
        data = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    else:
        data = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(lengths + 1) - 1
    cum = np.concatenate(([0], np.cumsum((data >= 48) & (data <= 57))))
    digits = cum[ends] - cum[ends - lengths]
    x[:, _DIGIT_COLUMN] = digits / np.maximum(lengths, 1)


def first_occurrences(page: PageBlocks) -> Any:
    """Per block, the index of the first block with the same text (an int64 array, cached)."""
    firsts = page.cache.get("firsts")
    if firsts is None:
        texts = page.texts
        n = len(texts)
        walk = _compiled_boiler()
        if walk is not None:
            firsts = np.empty(n, dtype=np.int64)
            walk.first_occurrences(texts, firsts)
        else:
            # (A dict built from the end keeps each text's first index; both passes at C speed.)
            first = dict(zip(reversed(texts), range(n - 1, -1, -1), strict=True))
            firsts = np.fromiter(map(first.__getitem__, texts), dtype=np.int64, count=n)
        page.cache["firsts"] = firsts
    return firsts


def _element_columns(
    page: PageBlocks, tag_code: Any, parent: Any, el_words: Any, total: int
) -> tuple[Any, Any]:
    """Per element: same-tag siblings, and whether it lies in a repeated unit (numpy; the compiled
    ``_walk.element_columns`` is the same)."""
    # Same-tag siblings: elements sharing (parent, tag).
    # (One bincount over parent * n_codes + tag code, the body left out: it has no siblings.)
    key = parent * len(_CODE_TAGS) + tag_code
    sib = np.bincount(key[1:], minlength=int(key.max()) + 1)[key].astype(np.float64)
    sib[0] = 1.0
    # Repeated units: blocks inside one of three or more same-tag sibling containers that each
    # hold a few sentences — the posts of a thread, the comments under an article, the teasers
    # of a related list. Which of these they are depends on what precedes them (stage 2).
    unit = (sib >= 3) & (el_words >= 15) & (el_words <= 0.2 * total) & _UNIT_OF_CODE[tag_code]
    unit[0] = False
    # Inside a unit: in the run [i, end[i]) of some unit element i (a difference array).
    n_el = len(unit)
    at = np.flatnonzero(unit)
    cover = np.cumsum(np.bincount(at, minlength=n_el + 1) - np.bincount(page.end[at], minlength=n_el + 1))
    return sib, (cover[:n_el] > 0).astype(np.float64)


def _stage1_numpy(
    page: PageBlocks, x: Any, *, firsts: Any, boiler: Any, group: Any, sib: Any, parent_words: Any, el_ld: Any
) -> None:
    """The per-block columns of :func:`stage1_matrix` (all but ``in_unit``) with numpy."""
    texts = page.texts
    n = len(texts)
    total = max(page.total_words, 1)
    cols = _columns(page)
    el, w, lw = cols.el, cols.w, cols.lw
    start = page.start.astype(np.float64)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    length = lengths.astype(np.float64)
    # Punctuation counts and last characters from the code points of all texts at once (one
    # joined string, one comparison per character class) rather than five str.count per block.
    chars = np.frombuffer("\n".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    ends_at = np.cumsum(lengths + 1) - 1  # one past each text's last character
    is_punct = (chars == 46) | (chars == 44) | (chars == 59) | (chars == 63) | (chars == 33)  # .,;?!
    cum_punct = np.concatenate(([0], np.cumsum(is_punct)))
    punct = (cum_punct[ends_at] - cum_punct[ends_at - lengths]).astype(np.float64)
    last = chars[ends_at - 1]
    ends = ((last == 46) | (last == 33) | (last == 63) | (last == 58)).astype(np.float64)  # .!?:
    # First characters: ASCII capitals by code, other characters asked of Python.
    head = chars[ends_at - lengths]
    upper = (head >= 65) & (head <= 90)
    wide = np.flatnonzero(head > 127)
    if len(wide):
        upper[wide] = [chr(c).isupper() for c in head[wide].tolist()]
    repeated = np.bincount(firsts, minlength=n)[firsts] > 1
    repeat_not_first = firsts != np.arange(n)
    logs = np.log1p(w)
    lds = lw / w
    pos = start / total
    hint_bits = _bits(cols.ahints[el], _BITS)
    share = (w @ hint_bits) / total
    depth = page.depth.astype(np.float64)
    x[:, 0] = 1.0
    x[:, 1] = logs
    x[:, 2] = lds
    x[:, 3] = lds * logs
    x[:, 4] = w >= 20
    x[:, 5] = np.minimum(punct / w, 1.0)
    x[:, 6] = ends
    x[:, 7] = pos
    x[:, 8] = pos * pos
    x[0, 9] = 0.0
    x[1:, 9] = logs[:-1]
    x[0, 10] = 1.0
    x[1:, 10] = lds[:-1]
    x[:-1, 11] = logs[1:]
    x[-1, 11] = 0.0
    x[:-1, 12] = lds[1:]
    x[-1, 12] = 1.0
    x[:, 13] = np.minimum(depth[el] / 20.0, 2.0)
    x[:, 14] = math.log1p(total)
    x[:, 15] = lw.sum() / total
    x[:, 16] = cols.el_words[el] / total
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
    x[:, k : k + nh] = _bits(page.hints[el], _BITS)
    k += nh
    x[:, k : k + len(_ANCESTOR_TAGS)] = _bits(page.inside[el], _ANC_BITS)
    k += len(_ANCESTOR_TAGS)
    x[:, k : k + nh] = share
    k += nh
    x[:, k : k + nh] = hint_bits * share
    k += nh
    x[:, k] = el_ld[el]
    x[:, k + 1] = el_ld[cols.parent][el]
    # Boilerplate-naming short blocks, and the blocks under a heading that names boilerplate;
    # a heading that does not (a content section's title) is noted for the blocks after it.
    under = np.zeros(n)
    content_heading = np.zeros(n)
    seen_content_heading = 0.0
    heads = np.flatnonzero(group[el] == 0).tolist()
    for j, i in enumerate(heads):
        state = float(boiler[i])
        end = heads[j + 1] if j + 1 < len(heads) else n
        under[i:end] = state
        if not state:
            seen_content_heading = 1.0
        content_heading[i:end] = seen_content_heading
    x[:, k + 2] = boiler
    x[:, k + 3] = under
    x[:, k + 4] = content_heading


_boiler_cache: dict[str, bool] = {}


def _names_boilerplate(text: str) -> bool:
    """Whether a short block's text matches :data:`_BOILER`; cached per text, since menus,
    "Share" and "Read more" lines recur on every page of a site."""
    hit = _boiler_cache.get(text)
    if hit is None:
        if len(_boiler_cache) > 100_000:
            _boiler_cache.clear()
        hit = _boiler_cache[text] = _boiler_regex(text)
    return hit


def container_of(page: PageBlocks, p1: Any) -> tuple[int, Any]:
    """The content container (the element maximising ``sum((2p - 1) * words)`` over the blocks
    inside it) and, per element, whether it lies inside it."""
    cols = _columns(page)
    n_el = len(cols.parent)
    own = np.bincount(cols.el, weights=(2.0 * p1 - 1.0) * cols.w, minlength=n_el)
    # A subtree is the run [i, end[i]) of elements: its gain is a difference of prefix sums.
    cum = np.concatenate(([0.0], np.cumsum(own)))
    gain = cum[page.end] - cum[:n_el]
    best = int(np.argmax(gain)) if n_el else 0
    inside_el = np.zeros(n_el, dtype=bool)
    inside_el[best : subtree_end(page, best)] = True
    return best, inside_el


def stage2_matrix(page: PageBlocks, p1: Any) -> tuple[Any, int]:
    """Stage-2 features (:data:`STAGE2_NAMES`) from the stage-1 probabilities ``p1``, and the
    content container (see :func:`container_of`). The rows are filled by the compiled module when
    it is built (``_walk.stage2_fill``, the same operations), else by the numpy code below.
    """
    n = len(page.texts)
    cols = _columns(page)
    el, w, lw = cols.el, cols.w, cols.lw
    best, inside_el = container_of(page, p1)
    total = max(page.total_words, 1)
    share = float(page.el_words[best]) / total
    walk = _compiled_boiler()
    if walk is not None and n:
        x = np.empty((n, len(STAGE2_NAMES)))
        walk.stage2_fill(
            np.ascontiguousarray(p1, dtype=np.float64), page.words, page.link_words, page.element,
            inside_el.view(np.uint8), cols.parent, page.ancestor_hints, cols.in_unit, best, share,
            float((p1 * w).sum()), x, _NAV, _SIDE, _COMMENT,
        )  # fmt: skip
        _relative_columns(page, best, x)
        return x, best
    inside = inside_el[el].astype(np.float64)
    key = cols.parent[el] + 1
    key[el == 0] = 0
    acc_p = np.bincount(key, weights=p1 * w)
    acc_w = np.bincount(key, weights=w)
    cum = np.concatenate(([0.0], np.cumsum(p1)))
    idx = np.arange(n)
    lo = np.maximum(idx - 2, 0)
    hi = np.minimum(idx + 3, n)
    ahints = cols.ahints[el]
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
    # Where the content mass lies: blocks after the last of it (a related-stories list, the
    # comments under an article) or far from any confident block are seldom content.
    mass = p1 * w * inside if inside.any() else p1 * w
    cm = np.cumsum(mass)
    tot = cm[-1] if n and cm[-1] > 0 else 1.0
    x[:, 12] = (cm - mass) / tot
    x[:, 13] = (tot - cm) / tot
    sure = np.flatnonzero((p1 >= 0.7) & (w >= 10))
    if len(sure):
        pos_prev = np.searchsorted(sure, idx, side="right") - 1
        prev_gap = np.where(pos_prev >= 0, idx - sure[np.maximum(pos_prev, 0)], 50)
        pos_next = np.searchsorted(sure, idx, side="left")
        next_gap = np.where(pos_next < len(sure), sure[np.minimum(pos_next, len(sure) - 1)] - idx, 50)
        x[:, 14] = np.log1p(np.minimum(prev_gap, 50))
        x[:, 15] = np.log1p(np.minimum(next_gap, 50))
        x[:, 16] = (idx >= sure[0]) & (idx <= sure[-1])
    else:
        x[:, 14] = x[:, 15] = math.log1p(50)
        x[:, 16] = 0.0
    # A repeated unit after a run of content outside such units: comments under an article.
    if len(cols.in_unit) == n:
        solo = p1 * w * (1.0 - cols.in_unit)
        before = (np.cumsum(solo) - solo) / max(float((p1 * w).sum()), 1.0)
        x[:, 17] = cols.in_unit * before
    else:
        x[:, 17] = 0.0
    _relative_columns(page, best, x)
    return x, best


_REL_BITS = [(*HINT_NAMES, *FINE_HINT_NAMES).index(n) for n in _REL_HINTS]
_REL_FIRST = 18  # the first rel_* column of stage 2


def relative_hints(page: PageBlocks, root: int) -> Any:
    """Per element, the hint bits of its ancestors (itself included) that do not hold element
    ``root`` (the content container): the hints that set it apart from the content. Inside the
    container these are the hints of the boxes within it (an author box, a related list, the
    comments under an article), where the union over all ancestors also carries every wrapper
    above it (a page-wide ``content`` or ``comments-open`` class)."""
    hints = page.hints
    end = page.end
    n_el = len(hints)
    idx = np.arange(n_el)
    # Neither the wrappers that hold the container nor anything inside one of three or more like
    # siblings (same parent, tag and hints: the posts of a thread, each named "comment", with
    # their "comment-body" and "comment-author" inside) is a box: an article's comment section is
    # named by its own wrapper, which the article's container does not hold.
    like = _like_siblings(page)
    units = np.flatnonzero(like >= 3)
    in_unit = np.cumsum(np.bincount(units, minlength=n_el + 1) - np.bincount(end[units], minlength=n_el + 1))
    boxes = ~((idx <= root) & (end > root)) & (in_unit[:n_el] == 0)
    out = np.zeros(n_el, dtype=np.int64)
    for k in _REL_BITS:
        at = np.flatnonzero(((hints >> k) & 1).astype(bool) & boxes)
        if not len(at):
            continue
        cover = np.cumsum(np.bincount(at, minlength=n_el + 1) - np.bincount(end[at], minlength=n_el + 1))
        out |= (cover[:n_el] > 0).astype(np.int64) << k
    return out


def content_region(page: PageBlocks, root: int, like: Any = None) -> int:
    """The element that holds the content container ``root`` and the like siblings it is one of:
    a container that is one of three or more elements under one parent with its tag and its
    (non-empty) hints (one post of a thread, one card of a list) stands for them all, and the
    boxes are what lies beside them. ``like``: :func:`_like_siblings`, when already computed."""
    like = _like_siblings(page) if like is None else like
    parent = page.parent
    while root > 0 and like[root] >= 3:
        root = int(parent[root])
    return max(root, 0)


def _like_siblings(page: PageBlocks) -> Any:
    """Per element, how many elements (itself included) share its parent, tag and hint bits; 1
    for an element without hints (a page's unnamed layout <div>s are alike, and no unit)."""
    like = page.cache.get("like_siblings")
    if like is None:
        # (parent, tag) in the high bits, the hint bits (fewer than 32) in the low ones: exact
        composite = page.parent.astype(np.int64) * (len(_CODE_TAGS) + 1) + page.tag_index + 1
        key = (composite << 32) | (page.hints.astype(np.int64) & 0xFFFFFFFF)
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        like = counts[inverse]
        like[page.hints == 0] = 1
        like[0] = 1  # the body
        page.cache["like_siblings"] = like
    return like


def container_hints(page: PageBlocks, root: int) -> Any:
    """:func:`relative_hints` of the content region of container ``root`` (:func:`content_region`),
    computed once per page and container (cached)."""
    cached = page.cache.get("relative_hints")
    if cached is not None and cached[0] == root:
        return cached[1]
    rel = relative_hints(page, content_region(page, root))
    page.cache["relative_hints"] = (root, rel)
    return rel


def _relative_columns(page: PageBlocks, best: int, x: Any) -> None:
    """Stage 2's ``rel_*`` columns: per block, the :func:`relative_hints` bits of its element."""
    rel = container_hints(page, best)[page.element]
    for j, k in enumerate(_REL_BITS):
        x[:, _REL_FIRST + j] = (rel >> k) & 1
