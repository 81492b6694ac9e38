"""Benchmark: mojibake detection and repair, trawl vs ftfy, on ftfy's own test cases and on speed.

Quality: ``../shared/data/encoding/mojibake-cases`` (ftfy's test cases). A positive case is one
whose expected text (``fixed-encoding`` if given, else ``fixed``) differs from the original;
"detected" means the tool changed the text (ftfy) or reported it (trawl), "exact" means the
result equals the expected text, and a negative is "changed" when the tool altered it. ftfy's
``fix_encoding`` is the comparable function (it does not uncurl quotes or normalise width).
Note that these cases are ftfy's development set: ftfy is scored on the data it was tuned on.

Speed: MB/s of text through each tool, on clean non-ASCII text (the common case: it must be
cheap) and on the same text damaged (UTF-8 read as windows-1252), best of 3.

Run: ``python bench/mojibake.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from trawl.decode.mojibake import check_mojibake

CASES = Path(__file__).resolve().parents[2] / "shared" / "data" / "encoding" / "mojibake-cases"

CLEAN = (
    "Le cœur a ses raisons que la raison ne connaît point. Größenwahn: Die Straße führt über "
    "Brücken nach Köln. Não há nada mais difícil do que a ação. Ελληνικά: η ανατροφή των παιδιών. "
    "Русский текст: съешь же ещё этих мягких французских булок. 中文文本、日本語のテキスト。 "
)


def _trawl(text: str) -> str:
    report = check_mojibake(text)
    return report.repaired if report.repaired is not None else text


def _tools() -> dict[str, Callable[[str], str]]:
    tools: dict[str, Callable[[str], str]] = {"trawl": _trawl}
    try:
        import ftfy  # noqa: PLC0415 -- optional peer

        tools["ftfy"] = ftfy.fix_encoding
    except ImportError:
        print("ftfy not installed: pip install ftfy")
    return tools


def quality(fix: Callable[[str], str], detects: Callable[[str], bool]) -> dict[str, int]:
    positives = detected = exact = negatives = changed = 0
    for name in ("synthetic.json", "in-the-wild.json"):
        for case in json.loads((CASES / name).read_text(encoding="utf-8")):
            expected = case.get("fixed-encoding", case["fixed"])
            if case["original"] == expected:
                continue
            positives += 1
            detected += detects(case["original"])
            exact += fix(case["original"]) == expected
    for case in json.loads((CASES / "negative.json").read_text(encoding="utf-8")):
        negatives += 1
        changed += fix(case["original"]) != case["original"]
    return {
        "positives": positives,
        "detected": detected,
        "exact": exact,
        "negatives": negatives,
        "changed": changed,
    }


def speed(fix: Callable[[str], str], text: str) -> float:
    fix(text[:1000])
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fix(text)
        best = min(best, time.perf_counter() - start)
    return len(text.encode()) / best / 1e6


def main() -> None:
    tools = _tools()
    clean = (CLEAN * (1_000_000 // len(CLEAN) + 1))[:1_000_000]
    # as browsers read it: windows-1252, its five undefined bytes as the C1 controls of their value
    table = [bytes([b]).decode("cp1252", "ignore") or chr(b) for b in range(256)]
    damaged = "".join(table[b] for b in clean.encode("utf-8"))
    print("| tool | positives detected | repaired exactly | negatives changed | MB/s clean | MB/s damaged |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, fix in tools.items():
        if name == "trawl":
            scores = quality(fix, lambda t: check_mojibake(t).detected)
        else:
            scores = quality(fix, lambda t, f=fix: f(t) != t)  # type: ignore[misc]
        n = scores["positives"]
        cells = [
            name,
            f"{scores['detected']}/{n}",
            f"{scores['exact']}/{n}",
            f"{scores['changed']}/{scores['negatives']}",
            f"{speed(fix, clean):.1f}",
            f"{speed(fix, damaged):.1f}",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
