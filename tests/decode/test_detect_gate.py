"""Quality gate of the charset detector: accuracy on chardet's test corpus, pinned in detect_gate.json.

The corpus, the snippet cutting and the lenient judging are those of ``bench/encoding_detect.py``
(see its docstring); ``python bench/encoding_detect.py`` prints the same figures beside the
peers'. Raise the pins when the detector improves; never lower them to let a change through.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from trawl.decode.detect import ModelDetector

ROOT = Path(__file__).resolve().parents[2]
PINS = json.loads((Path(__file__).with_name("detect_gate.json")).read_text())


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("encoding_detect", ROOT / "bench" / "encoding_detect.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("encoding_detect", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    module = _bench()
    if not module.DEFAULT_DATA.is_dir():
        pytest.skip(f"corpus not found: {module.DEFAULT_DATA} (../shared/data is not checked out)")
    return module


@pytest.mark.parametrize("subset", ["files", "snippets_20", "snippets_50"])
def test_accuracy_does_not_regress(bench: ModuleType, subset: str) -> None:
    cases, _ = bench.load_corpus(bench.DEFAULT_DATA)
    if subset.startswith("snippets_"):
        size = int(subset.removeprefix("snippets_"))
        cases = [s for s in (bench.snippet(c, size) for c in cases) if s.data]
    accuracy, wrong = bench.evaluate(ModelDetector(), cases)
    pinned = PINS[subset]
    shown = ", ".join(f"{c.label}→{g}" for c, g in wrong[:15])
    assert accuracy * 100 >= pinned, f"{subset}: {accuracy:.2%} < pinned {pinned} %; wrong: {shown}"


def test_confidence_is_calibrated(bench: ModuleType) -> None:
    """A confidence of 0.9 is right about 90 % of the time (expected calibration error, 10 bins)."""
    cases, _ = bench.load_corpus(bench.DEFAULT_DATA)
    pairs: list[tuple[float, bool]] = []
    detector = ModelDetector()
    for size in (None, 20, 50):
        subset = cases if size is None else [s for s in (bench.snippet(c, size) for c in cases) if s.data]
        bench.evaluate(detector, subset, pairs)
    error = bench.calibration_error(pairs)
    assert error <= PINS["calibration_error_max"], "\n".join(bench.reliability(pairs))


@pytest.mark.parametrize("subset", ["files", "snippets_50"])
def test_legacy_udhr_accuracy_does_not_regress(bench: ModuleType, subset: str) -> None:
    """The second corpus (``--set udhr-legacy``): UDHR second halves in every legacy encoding of
    their language, which the character models (trained on the first halves) never saw."""
    if not bench.DEFAULT_UDHR.is_dir():
        pytest.skip(f"corpus not found: {bench.DEFAULT_UDHR}")
    cases = bench.load_legacy()
    if subset == "snippets_50":
        cases = [s for s in (bench.snippet(c, 50) for c in cases) if s.data]
    accuracy, wrong = bench.evaluate(ModelDetector(), cases)
    pinned = PINS["udhr_legacy"][subset]
    shown = ", ".join(f"{c.label}→{g}" for c, g in wrong[:15])
    assert accuracy * 100 >= pinned, (
        f"udhr-legacy {subset}: {accuracy:.2%} < pinned {pinned} %; wrong: {shown}"
    )


@pytest.mark.parametrize("subset", ["files", "snippets_50"])
def test_legacy_tatoeba_accuracy_does_not_regress(bench: ModuleType, subset: str) -> None:
    """The third corpus (``--set tatoeba-legacy``): Tatoeba's conversational sentences, with their
    writers' own punctuation, in every legacy encoding of their language. Evaluation only: the
    character models train on the UDHR, never on these."""
    if not bench.DEFAULT_TATOEBA.is_dir():
        pytest.skip(f"corpus not found: {bench.DEFAULT_TATOEBA}")
    cases = bench.load_tatoeba()
    if subset == "snippets_50":
        cases = [s for s in (bench.snippet(c, 50) for c in cases) if s.data]
    accuracy, wrong = bench.evaluate(ModelDetector(), cases)
    pinned = PINS["tatoeba_legacy"][subset]
    shown = ", ".join(f"{c.label}→{g}" for c, g in wrong[:15])
    assert accuracy * 100 >= pinned, (
        f"tatoeba-legacy {subset}: {accuracy:.2%} < pinned {pinned} %; wrong: {shown}"
    )
