"""The statistics of a collection's text: counts, Zipf, Heaps, estimates and anomaly hints.

:class:`StatsBuilder` reads documents one at a time (streaming; exact counts in bounded memory
through :class:`~trawl.textstats.counter.TermCounter`) and :meth:`StatsBuilder.finish` makes one
merge pass over the counted terms to produce a :class:`TextStats`:

- tokens, vocabulary, hapax legomena (terms seen once) and their share of the vocabulary and of
  the tokens, the share of the two most frequent terms;
- the top-N table as in Croft, Metzler & Strohman's AP89 table (rank, term, frequency, P_r = f/N,
  r·P_r), with document frequencies;
- Zipf's law fitted over the straight stretch of the rank/probability curve and where it bends,
  Heaps' law fitted on the exact vocabulary growth curve (see :mod:`trawl.textstats.fit`);
- Croft §4.2.2 estimates: the result-set size of a conjunctive query from its terms' document
  frequencies assuming independence, f_ab = N · (f_a/N) · (f_b/N), set beside the true count;
  the collection size from a pair, N ≈ f_a · f_b / f_ab; and from a known word's document
  probability measured on a sample (every second document), N ≈ df / p;
- anomaly hints (see :mod:`trawl.textstats.anomalies`).

Bad input never stops a run: an empty document is counted (``empty_documents``) and a huge one is
tokenized in pieces of ``chunk_chars`` characters, cut at whitespace.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

from trawl.textstats.anomalies import (
    AMBIGUOUS_MARKUP,
    ENTITY_TERMS,
    MARKUP_TERMS,
    BoilerplateTracker,
    EncodingDamage,
    markup_hint,
)
from trawl.textstats.counter import DEFAULT_MAX_TERMS, TermCounter, TermRow
from trawl.textstats.fit import HeapsFit, ZipfFit, fit_heaps, fit_zipf, rank_groups
from trawl.tokenize import Tokenizer, default_tokenizer

__all__ = [
    "AUTO_QUERY_MAX_TOKENS",
    "DocText",
    "StatsBuilder",
    "TextStats",
    "TopRow",
    "auto_estimates",
    "estimate_collection_size",
    "estimate_result_size",
    "query_pass",
    "text_stats",
]

#: Ratio between successive points of the sampled growth and rank/frequency curves.
CURVE_RATIO = 1.05
#: Bands of document share (df / N) from which automatic query pairs are drawn.
AUTO_QUERY_BANDS = ((0.05, 0.15), (0.15, 0.3), (0.3, 0.5))
#: Documents longer than this (characters) are tokenized in pieces.
DEFAULT_CHUNK_CHARS = 1 << 20
#: Automatic query pairs (for the §4.2.2 estimates) are only counted with a second pass up to here.
AUTO_QUERY_MAX_TOKENS = 50_000_000

_MARKUP_WATCH = ENTITY_TERMS | MARKUP_TERMS | AMBIGUOUS_MARKUP


@dataclass(slots=True, frozen=True)
class DocText:
    """One document's text as the statistics see it: a name for reports, its host, the text.

    A document too large to hold as one string gives ``pieces`` instead: a function returning its
    text in consecutive pieces (called once per pass).
    """

    name: str
    host: str
    text: str
    pieces: Callable[[], Iterable[str]] | None = None

    def parts(self) -> Iterable[str]:
        return self.pieces() if self.pieces is not None else (self.text,)


@dataclass(slots=True, frozen=True)
class TopRow:
    """One line of the top-N table: rank, term, frequency, P_r, r·P_r and document frequency."""

    rank: int
    term: str
    frequency: int
    probability: float
    rank_times_probability: float
    df: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "term": self.term,
            "frequency": self.frequency,
            "probability": round(self.probability, 6),
            "r_times_p": round(self.rank_times_probability, 4),
            "df": self.df,
        }


def estimate_result_size(dfs: Sequence[int], documents: int) -> float:
    """Croft §4.2.2: documents containing *all* the terms if they occur independently.

    f_ab… = N · Π (f_i / N), with f_i each term's document frequency and N the documents.
    """
    if documents <= 0:
        return 0.0
    estimate = float(documents)
    for df in dfs:
        estimate *= df / documents
    return estimate


def estimate_collection_size(df: int, probability: float) -> float | None:
    """Croft §4.2.2: the size of a collection from a word with known document probability.

    A word known (from a sample or another collection) to be in a fraction ``probability`` of
    documents, found in ``df`` documents here, suggests N ≈ df / probability. With a pair of words
    and the result-set size of their conjunction, ``probability`` is f_ab / f_b, which gives Croft's
    N ≈ f_a · f_b / f_ab.
    """
    if probability <= 0:
        return None
    return df / probability


@dataclass(slots=True)
class TextStats:
    """The report; :meth:`as_dict` is the JSON written by ``trawl stats --json``."""

    documents: int
    empty_documents: int
    tokens: int
    vocabulary: int
    hapax: int
    dis_legomena: int
    top: list[TopRow]
    top_two_share: float
    zipf: ZipfFit | None
    heaps: HeapsFit | None
    rank_frequency: list[tuple[int, int]]
    growth: list[tuple[int, int]]
    estimates: dict[str, Any]
    anomalies: dict[str, Any]
    memory: dict[str, Any]
    tokenizer: str
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def hapax_share(self) -> float:
        """Hapax legomena as a share of the vocabulary."""
        return self.hapax / self.vocabulary if self.vocabulary else 0.0

    @property
    def hapax_token_share(self) -> float:
        """Hapax legomena as a share of the tokens."""
        return self.hapax / self.tokens if self.tokens else 0.0

    def as_dict(self, *, curves: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "documents": self.documents,
            "empty_documents": self.empty_documents,
            "tokens": self.tokens,
            "vocabulary": self.vocabulary,
            "hapax": self.hapax,
            "hapax_share": round(self.hapax_share, 6),
            "hapax_token_share": round(self.hapax_token_share, 6),
            "dis_legomena": self.dis_legomena,
            "top_two_share": round(self.top_two_share, 6),
            "top": [row.as_dict() for row in self.top],
            "zipf": self.zipf.as_dict() if self.zipf else None,
            "heaps": self.heaps.as_dict() if self.heaps else None,
            "estimates": self.estimates,
            "anomalies": self.anomalies,
            "memory": self.memory,
            "tokenizer": self.tokenizer,
            "skipped": self.skipped,
        }
        if curves:
            out["curves"] = {
                "rank_frequency": [list(p) for p in self.rank_frequency],
                "growth": [list(p) for p in self.growth],
            }
        return out


def _geometric_grid(limit: int, ratio: float = CURVE_RATIO, dense: int = 10) -> list[int]:
    """1, 2, …, ``dense``, then integers growing by ``ratio``, ending at ``limit``."""
    grid: list[int] = []
    x = 1.0
    while x < limit:
        n = int(x)
        if not grid or n > grid[-1]:
            grid.append(n)
        x = x + 1 if n < dense else x * ratio
    if limit >= 1 and (not grid or grid[-1] != limit):
        grid.append(limit)
    return grid


class StatsBuilder:
    """Accumulates documents; :meth:`finish` gives the :class:`TextStats`.

    ``queries``: term tuples whose conjunctive result-set size is counted exactly, for the §4.2.2
    estimates (terms are tokenized, so ``"Fellow-Citizens"`` becomes two terms). ``max_terms``:
    the in-memory vocabulary bound (see :mod:`trawl.textstats.counter`).
    """

    def __init__(
        self,
        *,
        tokenizer: Tokenizer | None = None,
        max_terms: int = DEFAULT_MAX_TERMS,
        top: int = 50,
        queries: Iterable[Sequence[str] | str] = (),
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
        tmpdir: Path | None = None,
    ) -> None:
        self.tokenizer = tokenizer or default_tokenizer()
        self.counter = TermCounter(max_terms, tmpdir)
        self.top_n = top
        self.chunk_chars = max(1024, chunk_chars)
        self.queries: list[tuple[str, ...]] = []
        for q in queries:
            terms = tuple(dict.fromkeys(self.tokenizer.tokens(q if isinstance(q, str) else " ".join(q))))
            if terms and terms not in self.queries:
                self.queries.append(terms)
        self._query_hits = [0] * len(self.queries)
        self._query_terms = {t for q in self.queries for t in q}
        # df of query terms among even-numbered documents (the sample of the §4.2.2 estimates),
        # and among odd-numbered ones: a sharded count whose part starts at an odd document needs
        # those (trawl.jobs.sharded_stats)
        self._sample_df: Counter[str] = Counter()
        self._sample_df_odd: Counter[str] = Counter()
        self.empty_documents = 0
        self.encoding = EncodingDamage()
        self.boilerplate = BoilerplateTracker()
        self.skipped: Counter[str] = Counter()
        self._pairs: list[tuple[str, str]] = []

    def _chunks(self, text: str) -> Iterator[str]:
        size = self.chunk_chars
        start = 0
        while start < len(text):
            end = start + size
            if end < len(text):
                cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
                if cut > start:
                    end = cut
            yield text[start:end]
            start = end

    def _pieces(self, text: str | Iterable[str]) -> Iterator[str]:
        """Pieces of at most ~``chunk_chars``, cut at whitespace, a word never split in two."""
        if isinstance(text, str):
            yield from self._chunks(text)
            return
        carry = ""
        for part in text:
            block = carry + part
            cut = max(block.rfind(" "), block.rfind("\n"))
            if cut < 0 and len(block) < 4 * self.chunk_chars:
                carry = block  # no whitespace yet: wait for more (bounded)
                continue
            if cut < 0:
                cut = len(block)
            carry = block[cut:]
            yield from self._chunks(block[:cut])
        if carry:
            yield from self._chunks(carry)

    def add(self, text: str | Iterable[str], *, name: str = "", host: str = "") -> None:
        """Count one document: its text (or its text in pieces), a name and its host."""
        counter = self.counter
        document_index = counter.documents
        seen: set[str]
        if isinstance(text, str) and len(text) <= self.chunk_chars:
            self.encoding.check(text, name)
            toks = self.tokenizer.tokens(text)
            seen = set(toks)
            counter.add_chunk(toks, seen)
        else:
            seen = set()
            for piece in self._pieces(text):
                self.encoding.check(piece, name)
                toks = self.tokenizer.tokens(piece)
                fresh = set(toks).difference(seen)
                seen |= fresh
                counter.add_chunk(toks, fresh)
        counter.end_document()
        if not seen:
            self.empty_documents += 1
            return
        self.boilerplate.add(host, seen)
        if self.queries:
            for i, q in enumerate(self.queries):
                if all(t in seen for t in q):
                    self._query_hits[i] += 1
            (self._sample_df_odd if document_index % 2 else self._sample_df).update(
                self._query_terms.intersection(seen)
            )

    def add_documents(self, docs: Iterable[DocText]) -> None:
        for doc in docs:
            self.add(doc.text if doc.pieces is None else doc.pieces(), name=doc.name, host=doc.host)

    def finish(
        self, *, vocabulary_out: IO[str] | None = None, rows: Iterator[TermRow] | None = None
    ) -> TextStats:
        """One merge pass over the counted terms; optionally writes every term's tf and df.
        ``rows``: the terms' totals in code-point order from elsewhere (the parts of a sharded
        count, merged), with the counter's ``tokens`` and ``documents`` set to their totals."""
        counter = self.counter
        n_tokens = counter.tokens
        n_docs = counter.documents
        freq_of_freq: Counter[int] = Counter()
        grid = _geometric_grid(n_tokens)
        first_hist = [0] * (len(grid) + 1)
        boiler_terms = self.boilerplate.qualified()
        special = _MARKUP_WATCH | boiler_terms | self._query_terms
        specials: dict[str, TermRow] = {}
        # Terms in at least the lowest band's share of documents, for automatic query pairs: few,
        # since all of them together fill at most 1/share of the average document's terms.
        df_min = max(1, math.ceil(AUTO_QUERY_BANDS[0][0] * n_docs)) if n_docs else 1 << 62
        widespread: list[TermRow] = []
        write = vocabulary_out.write if vocabulary_out is not None else None
        if write is not None:
            write("term\tfrequency\tdf\tfirst_position\n")
        bisect_right = bisect.bisect_right

        def tap(rows: Iterator[TermRow]) -> Iterator[TermRow]:
            # Once per term of the vocabulary (millions): keep the loop lean.
            for row in rows:
                term, tf, df, first = row
                freq_of_freq[tf] += 1
                first_hist[bisect_right(grid, first)] += 1
                if df >= df_min:
                    widespread.append(row)
                if term in special:
                    specials[term] = row
                if write is not None:
                    write(f"{term}\t{tf}\t{df}\t{first}\n")
                yield row

        # nlargest is stable: among equal frequencies the alphabetically first terms are kept.
        best = heapq.nlargest(self.top_n, tap(counter.rows() if rows is None else rows), key=itemgetter(1))
        best.sort(key=lambda r: (-r.tf, r.term))
        watch = {t: r for t, r in specials.items() if t in _MARKUP_WATCH}
        boiler_totals = {t: (r.tf, r.df) for t, r in specials.items() if t in boiler_terms}
        query_df = {t: (specials[t].df if t in specials else 0) for t in self._query_terms}
        self._pairs = _pick_pairs(widespread, n_docs)
        vocabulary = sum(freq_of_freq.values())
        top = [
            TopRow(
                i,
                r.term,
                r.tf,
                r.tf / n_tokens,
                i * r.tf / n_tokens,
                r.df,
            )
            for i, r in enumerate(best, 1)
        ]
        growth: list[tuple[int, int]] = []
        seen_terms = 0
        for i, n in enumerate(grid):
            seen_terms += first_hist[i]
            growth.append((n, seen_terms))
        groups = rank_groups(freq_of_freq)
        stats = TextStats(
            documents=n_docs,
            empty_documents=self.empty_documents,
            tokens=n_tokens,
            vocabulary=vocabulary,
            hapax=freq_of_freq.get(1, 0),
            dis_legomena=freq_of_freq.get(2, 0),
            top=top,
            top_two_share=sum(r.frequency for r in top[:2]) / n_tokens if n_tokens else 0.0,
            zipf=fit_zipf(freq_of_freq, n_tokens) if n_tokens else None,
            heaps=fit_heaps(growth),
            rank_frequency=_sample_ranks(groups),
            growth=growth,
            estimates=self._estimates(query_df, n_docs),
            anomalies={
                "markup": _markup_hints(watch, groups),
                "encoding": self.encoding.as_dict(),
                "boilerplate": self.boilerplate.hints(boiler_totals),
            },
            memory={
                "max_terms": counter.max_terms,
                "runs_spilled": counter.spills,
                "terms_spilled": counter.spilled_terms,
            },
            tokenizer=repr(self.tokenizer),
            skipped=dict(self.skipped),
        )
        stats.anomalies["hints"] = (
            len(stats.anomalies["markup"])
            + len(stats.anomalies["boilerplate"])
            + (1 if self.encoding.documents else 0)
        )
        return stats

    def auto_queries(self) -> list[tuple[str, str]]:
        """Pairs of content-like terms for the §4.2.2 estimates, one per band of document share.

        In each band of ``AUTO_QUERY_BANDS``, the two most widespread terms longer than three
        characters that occur at most three times per document on average (not function words).

        Available after :meth:`finish`; count them with a second pass of a fresh builder.
        """
        return list(self._pairs)

    def _estimates(self, query_df: dict[str, int], n_docs: int) -> dict[str, Any]:
        n_sample = (n_docs + 1) // 2
        result_sets = []
        for q, hits in zip(self.queries, self._query_hits, strict=True):
            dfs = [query_df.get(t, 0) for t in q]
            row: dict[str, Any] = {
                "terms": list(q),
                "df": dfs,
                "estimated": round(estimate_result_size(dfs, n_docs), 2),
                "actual": hits,
            }
            if len(q) == 2 and hits:
                row["collection_size_estimate"] = round(dfs[0] * dfs[1] / hits, 1)
            result_sets.append(row)
        known = []
        for term in sorted(self._query_terms):
            df_sample = self._sample_df.get(term, 0)
            if not df_sample or not n_sample:
                continue
            p = df_sample / n_sample
            known.append(
                {
                    "term": term,
                    "df": query_df.get(term, 0),
                    "sample_probability": round(p, 6),
                    "collection_size_estimate": round(
                        estimate_collection_size(query_df.get(term, 0), p) or 0.0, 1
                    ),
                }
            )
        return {
            "documents": n_docs,
            "method": "Croft et al. 4.2.2: f_ab = N (f_a/N)(f_b/N); N = f_a f_b / f_ab; N = df / p "
            "with p measured on every second document",
            "result_sets": result_sets,
            "known_words": known,
        }

    def close(self) -> None:
        self.counter.close()

    def __enter__(self) -> StatsBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pick_pairs(rows: list[TermRow], n_docs: int) -> list[tuple[str, str]]:
    """The two most widespread content-like terms of each band of ``AUTO_QUERY_BANDS``."""
    pairs = []
    for lo, hi in AUTO_QUERY_BANDS:
        band = [
            (r.df, r.term) for r in rows if lo <= r.df / n_docs < hi and r.tf <= 3 * r.df and len(r.term) > 3
        ]
        best = heapq.nlargest(2, band)
        if len(best) == 2:
            pairs.append((best[0][1], best[1][1]))
    return pairs


def _rank_of(groups: list[tuple[int, int, int]]) -> Callable[[int], int]:
    """Rank of the first term with a given frequency (ties share the best rank)."""
    by_freq = {f: first for first, _, f in groups}
    return lambda f: by_freq.get(f, 0)


def _markup_hints(watch: dict[str, TermRow], groups: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    rank = _rank_of(groups)
    out = []
    for term, row in watch.items():
        r = rank(row.tf)
        why = markup_hint(term, r, row.tf)
        if why:
            out.append({"kind": "markup", "term": term, "rank": r, "frequency": row.tf, "reason": why})
    out.sort(key=lambda d: (d["rank"], d["term"]))
    return out


def _sample_ranks(groups: list[tuple[int, int, int]], ratio: float = 1.02) -> list[tuple[int, int]]:
    """(rank, frequency) at every rank up to 100, then at ranks growing by ``ratio``, and the last."""
    if not groups:
        return []
    last_rank = groups[-1][1]
    out: list[tuple[int, int]] = []
    gi = 0
    r = 1
    while r <= last_rank:
        while groups[gi][1] < r:
            gi += 1
        out.append((r, groups[gi][2]))
        r = r + 1 if r < 100 else max(r + 1, math.floor(r * ratio))
    if out[-1][0] != last_rank:
        out.append((last_rank, groups[-1][2]))
    return out


def text_stats(
    documents: Iterable[DocText] | Callable[[], Iterable[DocText]],
    *,
    queries: Iterable[Sequence[str] | str] | None = None,
    auto_queries: bool = True,
    vocabulary_out: IO[str] | None = None,
    **options: Any,
) -> TextStats:
    """The statistics of ``documents`` in one call.

    ``documents`` is an iterable, or a function returning a fresh one: given a function and no
    ``queries``, the statistics pick a few content-word pairs and count them with a second pass
    (when the text has at most ``AUTO_QUERY_MAX_TOKENS`` tokens), so the §4.2.2 estimates always
    stand beside true counts. ``options`` go to :class:`StatsBuilder`.
    """
    source = documents() if callable(documents) else documents
    with StatsBuilder(queries=queries or (), **options) as builder:
        builder.add_documents(source)
        stats = builder.finish(vocabulary_out=vocabulary_out)
        pairs = builder.auto_queries()
    if (
        queries is None
        and auto_queries
        and callable(documents)
        and pairs
        and stats.tokens <= AUTO_QUERY_MAX_TOKENS
    ):
        stats.estimates = _count_queries(documents(), pairs, options.get("tokenizer"))
    return stats


def _count_queries(
    docs: Iterable[DocText], pairs: list[tuple[str, str]], tokenizer: Tokenizer | None
) -> dict[str, Any]:
    """A second, light pass: document frequencies and co-occurrences of the pair terms only."""
    builder = StatsBuilder(queries=pairs, tokenizer=tokenizer, max_terms=1)
    df, n_docs = query_pass(docs, builder)
    return auto_estimates(builder, df, n_docs)


def query_pass(docs: Iterable[DocText], builder: StatsBuilder) -> tuple[Counter[str], int]:
    """Count ``builder``'s query terms in ``docs``: their document frequencies and the documents
    read (returned), the queries' hits and the sampled document frequencies (in ``builder``)."""
    terms = builder._query_terms
    tok = builder.tokenizer
    n_docs = 0
    df: Counter[str] = Counter()
    for doc in docs:
        seen: set[str] = set()
        for part in doc.parts():
            seen.update(terms.intersection(tok.tokens(part)))
        (builder._sample_df_odd if n_docs % 2 else builder._sample_df).update(seen)
        n_docs += 1
        df.update(seen)
        for i, q in enumerate(builder.queries):
            if all(t in seen for t in q):
                builder._query_hits[i] += 1
    return df, n_docs


def auto_estimates(builder: StatsBuilder, df: Counter[str], n_docs: int) -> dict[str, Any]:
    """The §4.2.2 estimates of the automatic query pairs counted by :func:`query_pass`."""
    estimates = builder._estimates(dict(df), n_docs)
    estimates["queries"] = "automatic: a pair of content words from each band of document share " + ", ".join(
        f"{lo:.0%}-{hi:.0%}" for lo, hi in AUTO_QUERY_BANDS
    )
    return estimates
