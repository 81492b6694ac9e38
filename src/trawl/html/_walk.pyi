"""Types of the compiled block walk (``_walk.pyx``); see :mod:`trawl.html.blocks`."""

from collections.abc import Callable
from typing import Any

__all__ = [
    "LiteTree",
    "anchors",
    "boiler_hits",
    "build_tree",
    "cut_no_text",
    "cut_no_text_str",
    "forest_raw",
    "guard_markup",
    "hidden_sizes",
    "hint_bits_ascii",
    "init",
    "init_boiler",
    "init_hints",
    "init_links",
    "init_tree",
    "page_columns",
    "stage1_fill",
    "stage2_fill",
    "walk",
]

def init(
    first_attr: int,
    next_attr: int,
    attr_name: int,
    attr_value: int,
    kinds: dict[int, int],
    block_index: dict[int, int],
    semantic: dict[int, int],
    groups: dict[int, int],
) -> None: ...
def init_hints(keywords: list[tuple[bytes, int, int, int]], ad_bit: int) -> None: ...
def hint_bits_ascii(names: bytes) -> int | None: ...
def page_columns(words: Any, links: Any, element: Any, end: Any) -> tuple[bytes, bytes, bytes, bytes]: ...
def hidden_sizes(
    root_id: int, is_hidden_style: Callable[[str], bool], attributes: bool = True
) -> tuple[int, list[tuple[int, int]]]: ...
def walk(
    root_id: int, drop: set[int], hint_cache: dict[str, int], hint_bits: Callable[[str], int]
) -> tuple[Any, ...]: ...
def cut_no_text(markup: bytes) -> bytes: ...
def cut_no_text_str(markup: str) -> bytes: ...
def init_boiler(keywords: list[tuple[bytes, int, int, int]]) -> None: ...
def init_links(a_id: int, area_id: int, img_id: int) -> None: ...
def anchors(root_id: int) -> list[tuple[str, str | None, str, str | None, bool]]: ...
def node_attr(node_id: int, name: bytes) -> str | None: ...
def init_meta(qualified_name: int, tags: dict[int, str], anchor_id: int) -> None: ...
def meta_candidates(root_id: int) -> list[tuple[str, dict[str, str | None], int]]: ...
def meta_text(node_id: int, separator: bytes = b"") -> str: ...
def style_hidden(style: bytes) -> bool | None: ...
def strip_attributes(markup: bytes) -> bytes: ...
def meta_first_link(node_id: int) -> tuple[str | None, int] | None: ...
def boiler_hits(texts: list[str], candidates: list[int], fallback: Callable[[str], bool]) -> list[int]: ...
def stage1_fill(
    texts: list[str],
    x: Any,
    words: Any,
    links: Any,
    element: Any,
    start: Any,
    firsts: Any,
    boiler: Any,
    group: Any,
    sib: Any,
    depth: Any,
    hints: Any,
    ahints: Any,
    inside: Any,
    el_words: Any,
    parent_words: Any,
    el_ld: Any,
    parent_ld: Any,
    total_words: int,
    n_block: int,
    n_tags: int,
    n_hints: int,
    n_anc: int,
) -> None: ...
def guard_markup(markup: bytes, max_depth: int, max_attrs: int) -> tuple[bytes, str | None]: ...
def stage2_fill(
    p1: Any,
    words: Any,
    links: Any,
    element: Any,
    inside_el: Any,
    parent: Any,
    ahints: Any,
    in_unit: Any,
    best: int,
    share: float,
    total_pw: float,
    x: Any,
    nav_bit: int,
    side_bit: int,
    comment_bit: int,
) -> None: ...
def forest_raw(
    x: Any, feature: Any, threshold: Any, left: Any, right: Any, leaf: Any, roots: Any, out: Any
) -> None: ...
def forest_masks(
    x: Any, feature: Any, offset: Any, threshold: Any, tree: Any, mask: Any, leaf: Any, stride: int, out: Any
) -> None: ...
def first_occurrences(texts: list[str], out: Any) -> None: ...
def kept_once(index: Any, firsts: Any, words: Any) -> list[int]: ...
def element_columns(
    tag_code: Any,
    parent: Any,
    el_words: Any,
    end: Any,
    unit_code: Any,
    total_words: int,
    n_codes: int,
    sib: Any,
    in_unit: Any,
) -> None: ...

TREE_TAGS_SPACED: str

class _LiteNode:
    mem_id: int

class LiteTree:
    """A page's tree built by :func:`build_tree` (``reason`` set: it gave up, use lexbor)."""

    reason: str
    root: _LiteNode | None
    head: _LiteNode | None
    body: _LiteNode | None

def init_tree(lexbor_ids: dict[str, int], entities: dict[str, str]) -> None: ...
def build_tree(markup: bytes, max_depth: int, max_attrs: int) -> LiteTree: ...
