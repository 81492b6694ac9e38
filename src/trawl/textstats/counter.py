"""Exact term counts in bounded memory: count in a dictionary, spill sorted runs, merge.

A collection's vocabulary grows without limit (Heaps' law: ~K·n^β), so a plain dictionary of
every term is the one part of counting that does not fit in memory on a large crawl. The
:class:`TermCounter` keeps at most ``max_terms`` distinct terms in memory; when it holds more it
writes them, sorted, to a run file and starts afresh, as single-pass in-memory indexing (SPIMI)
does with postings. Reading the counts merges the runs, so the result is *exact* (not a sketch):
term frequency, document frequency and the position of each term's first occurrence, from which
the vocabulary growth curve (Heaps) is rebuilt exactly.

Memory bound: about 400 bytes per in-memory term (three dictionary entries and the string), so
the default ``max_terms`` = 250,000 holds ~100 MB, plus one read buffer per run while merging;
at ``MAX_RUNS`` runs they are merged into one, so at most 32 files are ever open. Disk: one line
per term per run (a term recurs in every run it appears in until the runs are merged).
"""

from __future__ import annotations

import heapq
import itertools
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, NamedTuple

__all__ = ["DEFAULT_MAX_TERMS", "TermCounter", "TermRow"]

#: How many distinct terms the counter keeps in memory before it spills a run to disk.
DEFAULT_MAX_TERMS = 250_000
#: Runs on disk before they are merged into one (bounds the files open while merging).
MAX_RUNS = 32


class TermRow(NamedTuple):
    """One term's totals: occurrences, documents containing it, and its first token position.

    A named tuple rather than a dataclass: a merge pass makes one per term, millions of them,
    and tuples are made in C and compare by term first, so runs merge without a key function.
    """

    term: str
    tf: int
    df: int
    first: int


class TermCounter:
    """Counts terms of a stream of documents with at most ``max_terms`` terms in memory.

    Feed it one document's tokens at a time with :meth:`add`, then read :meth:`rows` (every term
    once, in code-point order, exact). ``tmpdir`` is where runs go (a fresh temporary directory
    by default, removed by :meth:`close`).
    """

    def __init__(self, max_terms: int = DEFAULT_MAX_TERMS, tmpdir: Path | None = None) -> None:
        if max_terms < 1:
            raise ValueError(f"max_terms={max_terms}: must be at least 1")
        self.max_terms = max_terms
        self._tmp_parent = tmpdir
        self._tmp: Path | None = None
        self._tf: Counter[str] = Counter()
        self._df: Counter[str] = Counter()
        self._first: dict[str, int] = {}
        self._runs: list[Path] = []
        self.tokens = 0  # tokens seen so far: the position of the next token
        self.documents = 0
        self.spilled_terms = 0  # term lines written to runs, in all
        self._compactions = 0
        self.spills = 0  # runs written, in all (``runs`` counts those on disk now)

    @property
    def runs(self) -> int:
        """How many sorted runs have been spilled to disk."""
        return len(self._runs)

    def add(self, tokens: list[str]) -> None:
        """Count one document's tokens (a list, in order)."""
        self.add_chunk(tokens, set(tokens))
        self.documents += 1

    def add_chunk(self, tokens: list[str], new_in_document: Iterable[str]) -> None:
        """Count a part of a document: its tokens, and the terms that part adds to the document.

        Lets a caller cut a huge document into pieces while still counting each term once per
        document for its document frequency; :meth:`add` is the one-piece case.
        """
        # All the work is in C (Counter's _count_elements, reversed dict views, list.index), except
        # the loop over terms new to memory, which dwindles as the vocabulary saturates.
        tf = self._tf
        known = len(tf)
        tf.update(tokens)
        self._df.update(new_in_document)
        fresh = len(tf) - known
        if fresh:
            # A dict keeps insertion order, so the terms new to memory are tf's last keys.
            new = list(itertools.islice(reversed(tf.keys()), fresh))
            first = self._first
            base = self.tokens
            if fresh <= 8:
                index = tokens.index
                for term in new:
                    first[term] = base + index(term)
            else:
                n = len(tokens)
                # dict(zip(reversed)) keeps the *first* index of each token: later pairs overwrite.
                position = dict(zip(reversed(tokens), range(n - 1, -1, -1), strict=True))
                for term in new:
                    first[term] = base + position[term]
        self.tokens += len(tokens)
        if len(tf) > self.max_terms:
            self._spill()

    def end_document(self) -> None:
        """Close a document fed in pieces with :meth:`add_chunk`."""
        self.documents += 1

    def _spill(self) -> None:
        if self._tmp is None:
            self._tmp = Path(tempfile.mkdtemp(prefix="trawl-stats-", dir=self._tmp_parent))
        path = self._tmp / f"run-{len(self._runs):05d}.tsv"
        tf, df, first = self._tf, self._df, self._first
        with path.open("w", encoding="utf-8", newline="\n") as out:
            # Tokens never hold tabs or newlines (letters, marks, digits, apostrophes only).
            out.writelines(f"{t}\t{tf[t]}\t{df[t]}\t{first[t]}\n" for t in sorted(first))
        self.spilled_terms += len(first)
        self.spills += 1
        self._runs.append(path)
        self._tf, self._df, self._first = Counter(), Counter(), {}
        if len(self._runs) >= MAX_RUNS:
            self._compact()

    def _compact(self) -> None:
        """Merge every run into one, so that a long stream never holds too many files open."""
        assert self._tmp is not None
        self._compactions += 1
        path = self._tmp / f"merged-{self._compactions:05d}.tsv"
        with path.open("w", encoding="utf-8", newline="\n") as out:
            out.writelines(
                f"{t}\t{tf}\t{df}\t{first}\n" for t, tf, df, first in self._merged_rows(memory=False)
            )
        for old in self._runs:
            old.unlink()
        self._runs = [path]

    def _memory_rows(self) -> Iterator[TermRow]:
        tf, df, first = self._tf, self._df, self._first
        terms = sorted(first)
        make = TermRow._make
        return map(
            make,
            zip(
                terms,
                map(tf.__getitem__, terms),
                map(df.__getitem__, terms),
                map(first.__getitem__, terms),
                strict=True,
            ),
        )

    @staticmethod
    def _read_run(handle: IO[str]) -> Iterator[TermRow]:
        for line in handle:
            term, tf, df, first = line.split("\t")
            yield TermRow(term, int(tf), int(df), int(first))  # int() ignores the newline

    def rows(self) -> Iterator[TermRow]:
        """Every term once with its exact totals, in code-point order of the terms."""
        if not self._runs:
            return self._memory_rows()  # made in C, no generator frame per term
        return self._merged_rows()

    def _merged_rows(self, *, memory: bool = True) -> Iterator[TermRow]:
        handles = [p.open(encoding="utf-8") for p in self._runs]
        try:
            sources = [self._read_run(h) for h in handles]
            if memory:
                sources.append(self._memory_rows())
            merged = heapq.merge(*sources)
            current: TermRow | None = None
            for row in merged:
                if current is not None and row.term == current.term:
                    current = _combine(current, row)
                    continue
                if current is not None:
                    yield current
                current = row
            if current is not None:
                yield current
        finally:
            for h in handles:
                h.close()

    def get(self, term: str) -> TermRow | None:
        """One term's totals (reads the runs: for a few look-ups, not for iteration)."""
        found: TermRow | None = None
        if term in self._first:
            found = TermRow(term, self._tf[term], self._df[term], self._first[term])
        for path in self._runs:
            with path.open(encoding="utf-8") as handle:
                for row in self._read_run(handle):
                    if row.term == term:
                        found = (
                            row
                            if found is None
                            else TermRow(
                                term, found.tf + row.tf, found.df + row.df, min(found.first, row.first)
                            )
                        )
                        break
        return found

    def close(self) -> None:
        """Remove the spilled runs."""
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
            self._runs = []

    def __enter__(self) -> TermCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _combine(a: TermRow, b: TermRow) -> TermRow:
    return TermRow(a.term, a.tf + b.tf, a.df + b.df, min(a.first, b.first))
