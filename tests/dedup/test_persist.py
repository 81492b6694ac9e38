"""The stored search index answers as the in-memory finder, winnow included, without rebuilding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from trawl.dedup.engine import DedupOptions, DuplicateFinder
from trawl.dedup.fingerprint import FingerprintIndex, IndexedHashSets
from trawl.dedup.persist import FORMAT, load_index, save_index
from trawl.dedup.synth import generate

STATE = {"warc": [["a.warc.gz", 123]], "runs": ["run-1"]}
ALL = DedupOptions(methods=("exact", "minhash", "simhash", "winnow"))


def _finder() -> tuple[DuplicateFinder, list[str]]:
    corpus = generate(80, length=(40, 160), seed=21, truth=False)
    texts = [*corpus.texts, corpus.texts[3], "", corpus.texts[10].upper()]  # exact copies, an empty text
    names = [f"http://example.org/{i}" for i in range(len(texts))]
    finder = DuplicateFinder(ALL)
    finder.add(zip(names, texts, strict=True), chunk=50)
    return finder, texts


def _edited(text: str, k: int) -> str:
    words = text.split()
    words[len(words) // 2] = f"changed{k}"
    return " ".join(words)


def test_loaded_winnow_search_is_the_in_memory_one_without_rebuilding(tmp_path: Path) -> None:
    finder, texts = _finder()
    directory = save_index(
        finder, tmp_path / "near", rows=finder.names, collection_state=STATE, built_by="test", reason="test"
    )
    meta = json.loads((directory / "meta.json").read_text())
    assert meta["format"] == FORMAT and {"winnow.keys", "winnow.postings"} <= set(meta["arrays"])
    assert np.load(directory / "winnow.postings.npy").dtype == np.int32
    winnow_only = DedupOptions(methods=("exact", "winnow"))
    for options in (winnow_only, ALL):
        loaded, rows, why = load_index(directory, options, STATE)
        assert loaded is not None, why
        assert rows == finder.names
        sets = loaded.winnow_sets
        assert isinstance(sets, IndexedHashSets) and isinstance(sets.keys, np.memmap)
        index = FingerprintIndex(sets, options.max_df)
        assert index.keys is sets.keys and index.postings is sets.postings  # opened, not rebuilt
        finder.options = options
        checked = 0
        for i in range(0, len(texts), 9):
            for query, exclude in (
                (texts[i], i),
                (_edited(texts[i], i), None),
                (texts[i][: len(texts[i]) // 2], None),
            ):
                want = finder.near(query, exclude=exclude)
                assert loaded.near(query, exclude=exclude) == want
                checked += any(p.method == "winnow" for p in want)
        assert checked > 10  # the winnow path did answer, not only exact/minhash
    finder.options = ALL


def test_older_format_and_damaged_inverted_index_are_not_served(tmp_path: Path) -> None:
    finder, _ = _finder()
    directory = save_index(
        finder, tmp_path / "near", rows=finder.names, collection_state=STATE, built_by="test", reason="test"
    )
    options = DedupOptions(methods=("exact", "winnow"))
    (directory / "winnow.postings.npy").write_bytes((directory / "winnow.postings.npy").read_bytes()[:-8])
    loaded, _, why = load_index(directory, options, STATE)
    assert loaded is None and why.startswith("index unreadable")
    np.save(directory / "winnow.postings.npy", np.zeros(3, dtype=np.int32))
    loaded, _, why = load_index(directory, options, STATE)
    assert loaded is None and "inverted index" in why
    # the minhash part is still sound: a search without winnow is served
    assert load_index(directory, DedupOptions(), STATE)[0] is not None
    meta = json.loads((directory / "meta.json").read_text())
    meta["format"] = 1
    (directory / "meta.json").write_text(json.dumps(meta))
    assert load_index(directory, options, STATE)[2] == f"index format 1, this trawl reads format {FORMAT}"
