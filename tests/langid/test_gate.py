"""Quality gate: accuracy at 20 and 400 characters on a fixed sample, pinned in langid_gate.json.

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
from trawl.langid.corpus import DEFAULT_UDHR, load_udhr, snippet

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
