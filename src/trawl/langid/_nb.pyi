"""Types of the compiled naive-Bayes evidence (``_nb.pyx``); see :mod:`trawl.langid.naive_bayes`."""

from typing import Any

__all__ = ["Kernel", "feature_hash"]

def feature_hash(feature: str) -> int: ...

class Kernel:
    def __init__(self, vocab: list[str], indptr: Any, langs: Any, delta: Any, n_classes: int) -> None: ...
    def evidence(self, words: list[str], scores: Any, seen: Any, per_length: Any) -> tuple[int, int, int]: ...
