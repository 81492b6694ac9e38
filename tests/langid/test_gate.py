"""Quality gate: accuracy at 20 and 400 characters on a fixed UDHR sample, and on Tatoeba
sentences by length, pinned in langid_gate.json.

The sample is that of ``bench/langid.py`` in miniature: whole-word snippets cut at seeded random
positions from the second halves of the UDHR translations (which no model trained on), for the
languages every compared tool supports (listed in the JSON). Raise the pins when the identifier
improves; never lower them to let a change through. ``python bench/langid.py`` prints the full
figures beside the peers'.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest

from trawl.langid import get_identifier
from trawl.langid.corpus import (
    DEFAULT_TATOEBA,
    DEFAULT_UDHR,
    bucket_of,
    load_tatoeba,
    load_udhr,
    mixed_documents,
    snippet,
)
from trawl.langid.passages import language_spans
from trawl.langid.scripts import dominant_script

PINS = json.loads(Path(__file__).with_name("langid_gate.json").read_text())


@pytest.fixture(scope="module")
def sample() -> dict[int, list[tuple[str, str]]]:
    if not DEFAULT_UDHR.is_dir():
        pytest.skip(f"corpus not found: {DEFAULT_UDHR} (../shared/data is not checked out)")
    files: dict[str, list[str]] = defaultdict(list)
    for t in load_udhr(DEFAULT_UDHR):
        if t.label in PINS["languages"] and len(t.test) >= 1000:
            files[t.label].append(t.test)
    rng = random.Random(PINS["seed"])
    out: dict[int, list[tuple[str, str]]] = {}
    for length in (20, 400):
        out[length] = [
            (lab, snippet(files[lab][j % len(files[lab])], length, rng))
            for lab in sorted(files)
            for j in range(PINS["snippets"])
        ]
    return out


@pytest.mark.parametrize("method", ["default", "cavnar-trenkle"])
@pytest.mark.parametrize("length", [20, 400])
def test_accuracy_does_not_regress(
    sample: dict[int, list[tuple[str, str]]], method: str, length: int
) -> None:
    ident = get_identifier(method)
    cases = sample[length]
    right = sum(ident.identify(text).lang == lab for lab, text in cases)
    accuracy = right / len(cases)
    pinned = PINS[method][str(length)]
    assert accuracy >= pinned, f"{method} at {length} chars: {accuracy:.4f} < pinned {pinned}"


@pytest.fixture(scope="module")
def tatoeba() -> list[tuple[str, str]]:
    if not DEFAULT_TATOEBA.is_dir():
        pytest.skip(f"corpus not found: {DEFAULT_TATOEBA} (../shared/data is not checked out)")
    data = load_tatoeba(DEFAULT_TATOEBA, PINS["tatoeba"]["per_label"], PINS["tatoeba"]["seed"])
    return [(lab, text) for lab in PINS["tatoeba"]["languages"] for text in data.get(lab, [])]


@pytest.mark.parametrize("bucket", ["<=20", "21-50", "all"])
def test_tatoeba_accuracy_does_not_regress(tatoeba: list[tuple[str, str]], bucket: str) -> None:
    """Real everyday sentences (Tatoeba, which no model trained on), macro over the labels every
    peer supports; ``python bench/langid_real.py`` prints the peers beside it."""
    ident = get_identifier("default")
    right: dict[str, list[bool]] = defaultdict(list)
    for lab, text in tatoeba:
        if bucket in ("all", bucket_of(text)):
            right[lab].append(ident.identify(text).lang == lab)
    accuracy = sum(sum(v) / len(v) for v in right.values()) / len(right)
    pinned = PINS["tatoeba"]["default"][bucket]
    assert accuracy >= pinned, f"Tatoeba {bucket}: {accuracy:.4f} < pinned {pinned}"


def test_passages_do_not_regress() -> None:
    """Documents of one to three languages (lines of UDHR second halves): the share of letters
    whose passage has the paragraph's language; ``python bench/langid_passages.py`` prints it
    beside the peers' and the false switches on real one-language pages."""
    if not DEFAULT_UDHR.is_dir():
        pytest.skip(f"corpus not found: {DEFAULT_UDHR} (../shared/data is not checked out)")
    files: dict[str, list[str]] = defaultdict(list)
    for t in load_udhr(DEFAULT_UDHR):
        if t.label in PINS["languages"] and len(t.test) >= 1000:
            files[t.label].append(t.test)
    right = total = 0
    for text, truth in mixed_documents(files, PINS["passages"]["documents"], seed=PINS["seed"]):
        spans = language_spans(text)
        for start, end, lab in truth:
            for x in range(start, end):
                if text[x].isalpha():
                    total += 1
                    right += any(s.start <= x < s.end and s.lang == lab for s in spans)
    accuracy = right / total
    pinned = PINS["passages"]["default"]
    assert accuracy >= pinned, f"passages: {accuracy:.4f} of letters right < pinned {pinned}"


def test_mojibake_is_no_language() -> None:
    """UDHR snippets (100 characters) of the gate's languages in another script than Latin,
    encoded in UTF-8 and read as windows-1252 (the commonest mojibake): no language."""
    if not DEFAULT_UDHR.is_dir():
        pytest.skip(f"corpus not found: {DEFAULT_UDHR} (../shared/data is not checked out)")
    ident = get_identifier("default")
    rng = random.Random(PINS["seed"])
    cases = []
    for t in load_udhr(DEFAULT_UDHR):
        if t.label in PINS["languages"] and len(t.test) >= 1000 and not t.test[:200].isascii():
            s = snippet(t.test, 100, rng)
            garbled = s.encode("utf-8").decode("cp1252", errors="replace")
            if garbled != s and dominant_script(s)[0] not in (None, "Latin"):  # all of it garbled
                cases.append(garbled)
    und = sum(ident.identify(c).lang == "und" for c in cases) / len(cases)
    assert len(cases) >= 20
    assert und >= PINS["mojibake"]["und"], f"mojibake read as a language: {1 - und:.3f}"
