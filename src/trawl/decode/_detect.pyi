"""Types of the charset detector's compiled loops (``_detect.pyx``); see :mod:`trawl.decode.detect`."""

from typing import Any

__all__ = ["VERSION", "Kernel"]

VERSION: int

class Kernel:
    def __init__(
        self, classes: bytes, inner_capital: float, caps: float, misplaced: float, script_mix: float
    ) -> None: ...
    def untag(self, data: bytes) -> bytes: ...
    def thin(self, data: bytes) -> bytes: ...
    def pair_scores(self, values: Any, rows: Any, sample: bytes, out: Any) -> bool: ...
    def char_costs(
        self,
        low: str,
        bi_keys: Any,
        bi_values: Any,
        ctx_keys: Any,
        ctx_values: Any,
        uni_keys: Any,
        uni_values: Any,
        out: Any,
    ) -> bool: ...
    def context_costs(self, text: str) -> float: ...
