"""Term statistics of a collection: the cheapest sanity check an indexer has.

Counts (tokens, vocabulary, term and document frequencies, hapax legomena), Zipf's and Heaps'
laws fitted, Croft §4.2.2 size estimates, anomaly hints and plots, in bounded memory. Text is
tokenized by :mod:`trawl.tokenize`, the tokenizer every part of trawl uses. ``trawl stats`` is
the command-line face of this package.
"""

from trawl.textstats.counter import DEFAULT_MAX_TERMS, TermCounter, TermRow
from trawl.textstats.fit import HeapsFit, ZipfFit, fit_heaps, fit_line, fit_zipf
from trawl.textstats.report import (
    DocText,
    StatsBuilder,
    TextStats,
    TopRow,
    estimate_collection_size,
    estimate_result_size,
    text_stats,
)
from trawl.textstats.sources import collection_documents, file_documents

__all__ = [
    "DEFAULT_MAX_TERMS",
    "DocText",
    "HeapsFit",
    "StatsBuilder",
    "TermCounter",
    "TermRow",
    "TextStats",
    "TopRow",
    "ZipfFit",
    "collection_documents",
    "estimate_collection_size",
    "estimate_result_size",
    "file_documents",
    "fit_heaps",
    "fit_line",
    "fit_zipf",
    "text_stats",
]
