"""``trawl stats COLLECTION --workers N``: term statistics counted as sharded tasks, then merged.

The same report as one process gives (:func:`~trawl.textstats.text_stats`), counted in parallel:

1. **count** (rank r of T, :mod:`trawl.jobs.scan`): the records of one row-key range — cut at a
   host's first row where that costs little, so a host's documents are counted by one task — go
   through a :class:`~trawl.textstats.StatsBuilder`; the task writes every term's totals in
   code-point order (``terms.tsv``: term, tf, df, first position *within the part*) and the rest of
   the builder's state (documents, tokens, query hits, the sampled document frequencies of even-
   and odd-numbered documents, encoding damage, the per-host boilerplate samples).
2. **the job** merges the parts in row order: a term's tf and df are summed and its first position
   is the least of (tokens of the parts before + its position in the part), so the vocabulary
   growth (Heaps) is the one-pass curve; the §4.2.2 sample is every second document of the whole
   collection (each part's even or odd documents, as its first document's number falls); then
   :meth:`~trawl.textstats.StatsBuilder.finish` runs on the merged terms as it does in one process.
3. **queries** (when no ``--query`` was given and the text is small enough, as in one process): a
   second sharded pass counts the automatic query pairs' document frequencies and hits.

Every figure equals the one-process report's, but for a host whose documents two tasks share
(one host with more than half a task's rows): its boilerplate sample is the sum of both parts'
(:meth:`~trawl.textstats.anomalies.BoilerplateTracker.merge`).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from trawl.jobs.executors import Executor
from trawl.jobs.scan import OnTask, Share, run_scan
from trawl.store.collection import Collection
from trawl.textstats import StatsBuilder, TermRow, TextStats, collection_documents
from trawl.textstats.counter import DEFAULT_MAX_TERMS
from trawl.textstats.report import AUTO_QUERY_MAX_TOKENS, auto_estimates, query_pass

__all__ = ["count_part", "queries_part", "sharded_stats"]

TERMS = "terms.tsv"
STATE = "state.json"


def _builder(options: dict[str, Any], tmpdir: Path | None = None) -> StatsBuilder:
    return StatsBuilder(
        queries=[tuple(q) for q in options.get("queries") or ()],
        top=int(options.get("top", 50)),
        max_terms=int(options.get("max_terms", DEFAULT_MAX_TERMS)),
        tmpdir=tmpdir,
    )


def count_part(coll: Collection, share: Share, options: dict[str, Any]) -> dict[str, Any]:
    """A task: the term statistics of one range, as terms (``terms.tsv``) and state (``state.json``)."""
    docs = collection_documents(coll, str(options.get("prefix", "")), start=share.start, end=share.end)
    with _builder(options, share.out) as builder:
        builder.add_documents(docs)
        counter = builder.counter
        with (share.out / TERMS).open("w", encoding="utf-8") as fh:
            fh.writelines(f"{term}\t{tf}\t{df}\t{first}\n" for term, tf, df, first in counter.rows())
        state = {
            "documents": counter.documents,
            "tokens": counter.tokens,
            "empty_documents": builder.empty_documents,
            "query_hits": builder._query_hits,
            "sample_df": [dict(builder._sample_df), dict(builder._sample_df_odd)],
            "encoding": builder.encoding.state(),
            "boilerplate": builder.boilerplate.state(),
            "spills": counter.spills,
            "spilled_terms": counter.spilled_terms,
        }
    (share.out / STATE).write_bytes(orjson.dumps(state))
    return {"documents": state["documents"], "tokens": state["tokens"]}


def queries_part(coll: Collection, share: Share, options: dict[str, Any]) -> dict[str, Any]:
    """A task of the second pass: the automatic query pairs' counts in one range."""
    docs = collection_documents(coll, str(options.get("prefix", "")), start=share.start, end=share.end)
    builder = StatsBuilder(queries=[tuple(q) for q in options["queries"]], max_terms=1)
    df, n_docs = query_pass(docs, builder)
    return {
        "documents": n_docs,
        "df": dict(df),
        "query_hits": builder._query_hits,
        "sample_df": [dict(builder._sample_df), dict(builder._sample_df_odd)],
    }


def _terms(path: Path, offset: int) -> Iterator[TermRow]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            term, tf, df, first = line.split("\t")
            yield TermRow(term, int(tf), int(df), offset + int(first))


def _merged(parts: list[Iterator[TermRow]]) -> Iterator[TermRow]:
    """Each term once, its totals summed and its first position the least (parts sorted by term)."""
    current: TermRow | None = None
    for row in heapq.merge(*parts):
        if current is not None and row.term == current.term:
            current = TermRow(
                row.term, current.tf + row.tf, current.df + row.df, min(current.first, row.first)
            )
            continue
        if current is not None:
            yield current
        current = row
    if current is not None:
        yield current


def _add_samples(builder: StatsBuilder, states: list[dict[str, Any]]) -> None:
    """The parts' query hits, and the sampled document frequencies of the collection's
    even-numbered documents (each part's even or odd ones, by its first document's number)."""
    before = 0
    for state in states:
        for i, hits in enumerate(state["query_hits"]):
            builder._query_hits[i] += int(hits)
        even, odd = state["sample_df"]
        builder._sample_df.update({t: int(n) for t, n in (odd if before % 2 else even).items()})
        before += int(state["documents"])


def sharded_stats(
    coll: Collection,
    executor: Executor,
    *,
    prefix: str = "",
    queries: list[tuple[str, ...]] | None = None,
    top: int = 50,
    max_terms: int = DEFAULT_MAX_TERMS,
    vocabulary_out: IO[str] | None = None,
    tasks: int | None = None,
    on_task: OnTask | None = None,
) -> tuple[TextStats, dict[str, Any]]:
    """The term statistics of ``coll`` (under ``prefix``) as sharded tasks on ``executor``; see the
    module's docstring. Returns the report and how the job ran (tasks, executor, seconds)."""
    options: dict[str, Any] = {
        "prefix": prefix,
        "queries": [list(q) for q in queries or ()],
        "top": top,
        "max_terms": max_terms,
    }
    job = run_scan(
        coll,
        "stats",
        "trawl.jobs.sharded_stats:count_part",
        options,
        executor,
        tasks=tasks,
        hosts=True,
        on_task=on_task,
    )
    run: dict[str, Any] = {"tasks": len(job.results), "executor": job.executor, "resumed": job.resumed}
    try:
        states = [orjson.loads((job.output(r) / STATE).read_bytes()) for r in range(len(job.results))]
        with _builder(options) as builder:
            counter = builder.counter
            counter.documents = sum(int(s["documents"]) for s in states)
            counter.tokens = sum(int(s["tokens"]) for s in states)
            counter.spills = sum(int(s["spills"]) for s in states)
            counter.spilled_terms = sum(int(s["spilled_terms"]) for s in states)
            builder.empty_documents = sum(int(s["empty_documents"]) for s in states)
            _add_samples(builder, states)
            offsets = [0]
            for state in states:
                builder.encoding.merge(state["encoding"])
                builder.boilerplate.merge(state["boilerplate"])
                offsets.append(offsets[-1] + int(state["tokens"]))
            parts = [_terms(job.output(r) / TERMS, offsets[r]) for r in range(len(states))]
            stats = builder.finish(vocabulary_out=vocabulary_out, rows=_merged(parts))
            pairs = builder.auto_queries()
    finally:
        job.close()
    run["seconds"] = job.seconds
    if not queries and pairs and stats.tokens <= AUTO_QUERY_MAX_TOKENS:
        second = run_scan(
            coll,
            "stats-queries",
            "trawl.jobs.sharded_stats:queries_part",
            {"prefix": prefix, "queries": [list(p) for p in pairs]},
            executor,
            tasks=tasks,
            on_task=on_task,
        )
        second.close()
        pass_two = StatsBuilder(queries=pairs, max_terms=1)
        _add_samples(pass_two, second.results)
        df: Counter[str] = Counter()
        for result in second.results:
            df.update({t: int(n) for t, n in result["df"].items()})
        stats.estimates = auto_estimates(pass_two, df, sum(int(r["documents"]) for r in second.results))
        run["seconds"] += second.seconds
    return stats, run
