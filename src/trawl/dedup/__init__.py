"""Exact and near duplicates: digests, n-gram fingerprints, simhash and MinHash, for search and discovery.

Modules, bottom up:

* :mod:`~trawl.dedup.hashing` — batch word splitting and 64-bit word / shingle hashes (numpy);
* :mod:`~trawl.dedup.exact` — payload and normalised-text digests (XXH3-128, BLAKE2b), plus the
  byte-sum and CRC-32 checksums kept as demonstrations of why they are unsafe;
* :mod:`~trawl.dedup.fingerprint` — "0 mod p" and winnowing selection, inverted index, Jaccard
  and containment;
* :mod:`~trawl.dedup.simhash` — Charikar's simhash and Manku's permuted tables (Hamming ≤ k);
* :mod:`~trawl.dedup.minhash` — one-permutation MinHash and LSH bands x rows from a threshold;
* :mod:`~trawl.dedup.cluster` — union-find clusters with a representative;
* :mod:`~trawl.dedup.engine` — the methods together over a batch: discovery and search;
* :mod:`~trawl.jobs.dedup` — the same over a collection, results stored in its ``dup`` family.
"""

from __future__ import annotations

from trawl.dedup.cluster import Cluster, UnionFind, clusters_from_pairs
from trawl.dedup.engine import METHODS, DedupOptions, DuplicateFinder, Pair
from trawl.dedup.exact import normalize_text, payload_digest, text_digest
from trawl.dedup.fingerprint import FingerprintIndex, select_mod_p, winnow
from trawl.dedup.hashing import shingle_hashes, word_hashes
from trawl.dedup.minhash import MinHashLSH, candidate_probability, lsh_params, minhash_signatures
from trawl.dedup.sets import HashSets
from trawl.dedup.simhash import SimhashIndex, simhash, simhash_batch

__all__ = [
    "METHODS",
    "Cluster",
    "DedupOptions",
    "DuplicateFinder",
    "FingerprintIndex",
    "HashSets",
    "MinHashLSH",
    "Pair",
    "SimhashIndex",
    "UnionFind",
    "candidate_probability",
    "clusters_from_pairs",
    "lsh_params",
    "minhash_signatures",
    "normalize_text",
    "payload_digest",
    "select_mod_p",
    "shingle_hashes",
    "simhash",
    "simhash_batch",
    "text_digest",
    "winnow",
    "word_hashes",
]
