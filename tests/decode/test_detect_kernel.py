"""The charset detector's compiled loops (``trawl.decode._detect``) give the Python path's results exactly.

Each loop against the code it replaces (the sample's regular expressions, the byte-pair sums, the
multi-byte lookups and the context costs), on synthetic bytes and text built to hit the edges;
then whole detections, compiled against Python, on chardet's test files and their snippets (when
``../shared/data`` is checked out) and on random bytes.
"""

# ruff: noqa: RUF001 -- multilingual text is meant

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trawl.decode import detect
from trawl.decode.detect import ModelDetector, compiled_detector_status

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    compiled_detector_status() != "ready", reason=f"compiled detector: {compiled_detector_status()}"
)


def _kernel() -> detect.Kernel:
    kernel = detect._compiled()
    assert kernel is not None
    return kernel


def _tag_soup(rng: random.Random, n: int) -> bytes:
    """Bytes rich in what the tag and run expressions turn on: tags, stray brackets, long tag
    bodies around the 2000-byte limit, ASCII runs of every length around 10, high bytes."""
    parts: list[bytes] = []
    while sum(map(len, parts)) < n:
        kind = rng.randrange(8)
        if kind == 0:
            parts.append(b"<" + rng.choice([b"a", b"/", b"!", b"?", b"Z", b" ", b"1", b"<", b">", b""]))
        elif kind == 1:
            parts.append(b">")
        elif kind == 2:  # a tag body near the limit, sometimes broken by a bracket
            body = bytes(
                rng.choice(b"ab =\"'\n\x80\xe9") for _ in range(rng.choice([1998, 1999, 2000, 2001, 2002]))
            )
            if rng.random() < 0.3:
                pos = rng.randrange(len(body))
                body = body[:pos] + rng.choice([b"<", b">"]) + body[pos + 1 :]
            parts.append(b"<p" + body + rng.choice([b">", b"", b"<"]))
        elif kind == 3:
            parts.append(b"x" * rng.choice([0, 1, 3, 4, 5, 8, 9, 10, 11, 12, 40]))
        elif kind == 4:
            parts.append(bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randrange(1, 6))))
        elif kind == 5:
            parts.append(b'<div class="x">' if rng.random() < 0.5 else b"</span>")
        else:
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30))))
    return b"".join(parts)[:n]


@pytest.mark.parametrize("seed", range(40))
def test_untag_and_thin_are_the_regular_expressions(seed: int) -> None:
    kernel = _kernel()
    rng = random.Random(seed)
    data = _tag_soup(rng, rng.choice([0, 1, 2, 10, 100, 3000, 9000]))
    assert kernel.untag(data) == detect._TAG.sub(b" ", data)
    assert kernel.thin(data) == detect._ASCII_RUN.sub(detect._collapse, data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_untag_and_thin_on_any_bytes(data: bytes) -> None:
    kernel = _kernel()
    for text in (data, data.replace(b"\x00", b"<"), data.replace(b"\x01", b">")):
        assert kernel.untag(text) == detect._TAG.sub(b" ", text)
        assert kernel.thin(text) == detect._ASCII_RUN.sub(detect._collapse, text)


def _filled_stack_rows() -> np.ndarray:
    """Every single-byte candidate's pooled row and one group's language rows."""
    plan = detect._plan(detect._CANDIDATES)
    return np.concatenate([plan.rows, detect._language_rows("cp1250", "central")])


@pytest.mark.parametrize("seed", range(12))
def test_pair_scores_are_the_python_sums_bit_for_bit(seed: int) -> None:
    kernel = _kernel()
    stack = detect._stack()
    rows = _filled_stack_rows()
    rng = random.Random(seed)
    for size in (0, 1, 2, 50, 300, 4097, 8191):
        sample = bytes(rng.choice([rng.randrange(256), rng.randrange(0x20, 0x7F)]) for _ in range(size))
        python = stack.scores(rows, sample)  # fills the pairs not scored yet
        compiled = np.empty(len(rows))
        assert kernel.pair_scores(stack._values.view(np.uint16), rows, sample, compiled)
        assert compiled.tolist() == python.tolist()
        assert stack.scores(rows, sample, kernel).tolist() == python.tolist()


def test_pair_scores_leave_unscored_pairs_and_long_samples_to_python() -> None:
    kernel = _kernel()
    stack = detect._stack()
    row = stack.add("cp1252", detect._models()["western"])  # a fresh row: nothing scored
    rows = np.array([row], dtype=np.int64)
    out = np.empty(1)
    assert not kernel.pair_scores(stack._values.view(np.uint16), rows, b"abc", out)
    expected = stack.scores(rows, b"abc")
    assert kernel.pair_scores(stack._values.view(np.uint16), rows, b"abc", out)
    assert out.tolist() == expected.tolist()
    long = b"ab" * (detect._EXACT_PAIRS // 2)
    assert not kernel.pair_scores(stack._values.view(np.uint16), rows, long, out)
    with pytest.raises(IndexError):
        kernel.pair_scores(stack._values.view(np.uint16), np.array([10**6], dtype=np.int64), b"a", out)


_TEXTS = [
    "",
    "a",
    "Все люди рождаются свободными, ДЛЯ всех длЯ.",
    "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。",
    "Grüße aus Köln — d‚clar‚ §igen Š§igen, „Zitat“ 5 €, ™ and ®x",
    "İstanbul ΑΒΓ abc ΑβΓ aβ βa โl lโ",
    "中文字符和English混合，还有한국어 텍스트와 ＡＢＣ",
    "\ufffd\ufffd abc \ufffd\x00\x7f\x85",
]


def _random_texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = [rng.randbytes(rng.randrange(400)).decode(codec, "replace") for codec in detect._MULTIBYTE]
    pool = "aAzZ éÉßŠšİıΑαЖжЯя€§„‚¿¡•°¹²³™®©†‰ โ中あア한\ufffd \n1.,"
    texts += ["".join(rng.choice(pool) for _ in range(rng.randrange(60))) for _ in range(20)]
    return texts


@pytest.mark.parametrize("seed", range(6))
def test_multibyte_scores_and_context_costs_are_pythons_bit_for_bit(seed: int) -> None:
    kernel = _kernel()
    models = detect._models()
    for text in _TEXTS + _random_texts(seed):
        assert kernel.context_costs(text) == detect._context_costs(text), text
        for group in ("japanese", "zh_hans", "zh_hant", "korean", "western", "cyrillic"):
            model = models[group]
            python = model.score(text)  # adds unigrams not yet in the table
            assert model.score(text, kernel) == python, (group, text)


def test_a_character_without_a_unigram_is_left_to_python() -> None:
    kernel = _kernel()
    model = detect._models()["korean"]
    model.score("가")
    bi_keys, bi_values, ctx_keys, ctx_values = model._arrays()
    uni = model._uni_sorted
    assert uni is not None
    new = next(chr(c) for c in range(0x1F600, 0x1F700) if c not in set(uni[0].tolist()))  # not scored yet
    out = np.empty(2)
    assert not kernel.char_costs("가" + new, bi_keys, bi_values, ctx_keys, ctx_values, uni[0], uni[1], out)
    assert model.score("가" + new, kernel) == model.score("가" + new)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x3100), max_size=40))
def test_context_costs_on_any_text(text: str) -> None:
    assert _kernel().context_costs(text) == detect._context_costs(text)


def _same_detections(datas: list[bytes]) -> None:
    compiled, python = ModelDetector(compiled=True), ModelDetector(compiled=False)
    for data in datas:
        assert compiled.detect(data) == python.detect(data), data[:80]


def _random_bytes(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = rng.choice([1, 2, 3, 5, 10, 30, 100, 300, 1000, 5000])
        mode = i % 4
        if mode == 0:
            data = rng.randbytes(n)
        elif mode == 1:  # printable ASCII and high bytes
            data = bytes(
                rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x100)]) for _ in range(n)
            )
        elif mode == 2:  # markup and DOS line ends around a few high bytes
            data = bytes(
                rng.randrange(0x80, 0x100) if rng.random() < 0.2 else rng.choice(b"abcde fgh\r\n<>/p")
                for _ in range(n)
            )
        else:  # double-byte shaped
            data = bytes(
                rng.randrange(0xA1, 0xFF) if rng.random() < 0.5 else rng.randrange(0x20, 0x7F)
                for _ in range(n)
            )
        out.append(data)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_detections_are_the_same_on_random_bytes(seed: int) -> None:
    _same_detections(_random_bytes(seed, 300))


def test_detections_are_the_same_on_legacy_text() -> None:
    rng = random.Random(5)
    datas = []
    codecs = (
        "cp1251",
        "koi8_r",
        "cp932",
        "euc_jp",
        "gb18030",
        "big5",
        "cp949",
        "cp1252",
        "mac_roman",
        "cp1253",
    )
    for text in _TEXTS[2:7]:
        for codec in codecs:
            data = text.encode(codec, "ignore")
            datas += [
                data,
                b"<html><title>" + data + b"</title><p>" + data * 40 + b"</p>",
                data.replace(b" ", b"\r\n"),
            ]
            datas += [data[: rng.randrange(1, len(data) + 1)] for _ in range(3) if data]
    _same_detections(datas)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("encoding_detect", ROOT / "bench" / "encoding_detect.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("encoding_detect", module)
    spec.loader.exec_module(module)
    return module


def test_detections_are_the_same_on_chardets_files() -> None:
    bench = _bench()
    if not bench.DEFAULT_DATA.is_dir():
        pytest.skip(f"corpus not found: {bench.DEFAULT_DATA} (../shared/data is not checked out)")
    cases, _ = bench.load_corpus(bench.DEFAULT_DATA)
    datas = [c.data for c in cases]
    for size in bench.SNIPPET_SIZES:
        datas += [s.data for s in (bench.snippet(c, size) for c in cases) if s.data]
    _same_detections(datas)


def test_pure_python_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAWL_PURE_PYTHON", "1")
    assert detect._load_compiled() == "disabled by TRAWL_PURE_PYTHON"
    monkeypatch.setattr(detect._CompiledKernel, "state", "disabled by TRAWL_PURE_PYTHON")
    monkeypatch.setattr(detect._CompiledKernel, "kernel", None)
    assert compiled_detector_status() == "disabled by TRAWL_PURE_PYTHON"
    assert ModelDetector()._kernel is None
    with pytest.raises(RuntimeError, match="TRAWL_PURE_PYTHON"):
        ModelDetector(compiled=True)
