"""Body Text Extraction (Finn, Kushmerick & Smyth 2001) and the document slope curve.

The page is a sequence of tokens, each a tag (``b_n = 1``) or a word (``b_n = 0``). BTE picks the
span ``[i, j]`` that maximises

    (tags before i) + (words in [i, j]) + (tags after j)

i.e. the region where text is dense and markup sparse, with markup-heavy navigation on both sides.
With ``P[k]`` the number of tags among the first ``k`` tokens the objective is
``(2·P[i] - i) + (j + 1 - 2·P[j+1]) + P[N]``: one running maximum of the first term over ``i ≤ j``
finds the optimum in O(N) instead of trying all O(N²) pairs. The running sums and maxima are
:func:`itertools.accumulate` calls, so the loop runs in C.

The *slope* method reads the same cumulative tag curve ``P``: text shows up as flat stretches
(plateaus: many tokens, few tags). Slopes are measured over windows that are halved until
near-zero-slope plateaus appear; the plateaus holding most words are the content.

Both return the curve so that it can be plotted (:func:`trawl.extract.plot.plot_curve`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from itertools import accumulate

__all__ = ["TokenCurve", "body_text_extraction", "slope_extraction", "tokenize"]

_DROP = re.compile(
    r"<!--.*?-->|<(script|style|noscript|template|svg|head)\b.*?</\1\s*>",
    re.DOTALL | re.IGNORECASE,
)
_TOKEN = re.compile(r"<[^>]*>|[^<\s]+")
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|h[1-6]|li|tr|td|th|br|section|article|pre|blockquote|dd|dt|ul|ol|table)\b", re.I
)


@dataclass(slots=True)
class TokenCurve:
    """The outcome of BTE or the slope method on one page.

    ``curve[k]`` is the number of tags among the first ``k`` tokens (the cumulative tag curve);
    ``spans`` are the chosen token ranges ``[start, end)``; ``score`` is the fraction of the
    objective's maximum possible value (BTE) or of the page's words in the plateaus (slope).
    """

    tokens: list[str]
    curve: list[int]
    spans: list[tuple[int, int]] = field(default_factory=list)
    score: float = 0.0
    window: int = 0

    @property
    def text(self) -> str:
        """The words of the chosen spans, a line break at each block-level tag between them."""
        out: list[str] = []
        for start, end in self.spans:
            line: list[str] = []
            for tok in self.tokens[start:end]:
                if tok[0] == "<":
                    if line and _BLOCK_TAG.match(tok):
                        out.append(" ".join(line))
                        line = []
                else:
                    line.append(tok)
            if line:
                out.append(" ".join(line))
        return html.unescape("\n".join(out))


def tokenize(markup: str) -> list[str]:
    """Tags and words of a page, scripts, styles, comments and the head removed."""
    return _TOKEN.findall(_DROP.sub(" ", markup))


def body_text_extraction(markup: str | list[str]) -> TokenCurve:
    """Finn et al.'s BTE, exactly, in O(N) (see the module docstring)."""
    tokens = tokenize(markup) if isinstance(markup, str) else markup
    n = len(tokens)
    is_tag = [t[0] == "<" for t in tokens]
    prefix = list(accumulate(is_tag, initial=0))
    if n == 0:
        return TokenCurve(tokens, prefix)
    tags = prefix[n]
    a = [2 * p - i for i, p in enumerate(prefix[:n])]
    run = list(accumulate(a, max))
    best_j = max(range(n), key=lambda j: run[j] + j + 1 - 2 * prefix[j + 1])
    best_i = a.index(run[best_j])
    value = run[best_j] + best_j + 1 - 2 * prefix[best_j + 1] + tags
    return TokenCurve(tokens, prefix, [(best_i, best_j + 1)], value / n)


def slope_extraction(markup: str | list[str], *, flat: float = 0.15, min_window: int = 4) -> TokenCurve:
    """Content as the flattest stretches of the cumulative tag curve (see the module docstring).

    Starting from a window of an eighth of the page, the window is halved until some stretch of
    at least one window has a tag slope at most ``flat``; every plateau holding at least a quarter
    of the words of the largest is kept.
    """
    tokens = tokenize(markup) if isinstance(markup, str) else markup
    n = len(tokens)
    prefix = list(accumulate((t[0] == "<" for t in tokens), initial=0))
    result = TokenCurve(tokens, prefix)
    if n == 0:
        return result
    window = max(n // 8, min_window)
    while True:
        limit = flat * window
        spans: list[tuple[int, int]] = []
        start = -1
        for k in range(0, n - window + 1):
            if prefix[k + window] - prefix[k] <= limit:
                if start < 0:
                    start = k
            elif start >= 0:
                spans.append((start, k + window - 1))
                start = -1
        if start >= 0:
            spans.append((start, n))
        if spans or window <= min_window:
            break
        window //= 2
    result.window = window
    if not spans:
        return result
    # Refine each plateau's edges with the narrowest window: a wide window lets a plateau run
    # into the markup around it by up to a window's worth of tokens.
    fine = min_window * 2
    refined = []
    for first, last in spans:
        lo, hi = first, last
        while lo + fine <= hi and prefix[lo + fine] - prefix[lo] > flat * fine:
            lo += 1
        while hi - fine >= lo and prefix[hi] - prefix[hi - fine] > flat * fine:
            hi -= 1
        if hi > lo:
            refined.append((lo, hi))
    spans = refined
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    words = [(e - s) - (prefix[e] - prefix[s]) for s, e in merged]
    if not words:
        return result
    top = max(words)
    result.spans = [span for span, w in zip(merged, words, strict=True) if w >= 0.25 * top and w > 0]
    page_words = n - prefix[n]
    kept = sum(w for w in words if w >= 0.25 * top and w > 0)
    result.score = kept / page_words if page_words else 0.0
    return result
