"""Types of the compiled naive-Bayes evidence (``_nb.pyx``); see :mod:`trawl.langid.naive_bayes`."""

from typing import Any

__all__ = ["Kernel", "Walker", "broad_log_probs", "feature_hash", "fuse", "has_f16c", "viterbi"]

def feature_hash(feature: str) -> int: ...
def has_f16c() -> bool: ...

class Kernel:
    def __init__(
        self, vocab: list[str] | str, indptr: Any, langs: Any, delta: Any, n_classes: int
    ) -> None: ...
    def evidence(self, words: list[str], scores: Any, seen: Any, per_length: Any) -> tuple[int, int, int]: ...

class Walker:
    def __init__(self, nextmove: Any, rowbase: Any, output: Any, ptc: Any) -> None: ...
    def scores(self, data: bytes, out: Any) -> int: ...
    def scores_many(self, data: bytes, ends: Any, out: Any, distinct_out: Any) -> None: ...

def broad_log_probs(
    raw: Any, temperature: float, first: Any, more_to: Any, more_col: Any, out: Any
) -> None: ...
def fuse(
    own: Any,
    n: float,
    seen: Any,
    n_long: float,
    broad: Any,
    broad_pos: Any,
    known: Any,
    candidate: Any,
    out: Any,
    top: Any,
    own_floor: float,
    own_temper: float,
    broad_floor: float,
    broad_weight: float,
    tail_odds: float,
    gate_low: float,
    gate_high: float,
    shrink: float,
) -> tuple[float, int]: ...
def viterbi(costs: Any, switch_cost: float, path: Any) -> None: ...
