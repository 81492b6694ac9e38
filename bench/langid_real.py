"""Benchmark: language identification of real short text, by length bucket, against the peers.

    python bench/langid_real.py                       # Tatoeba, 200 sentences a label
    python bench/langid_real.py --set catalogs        # the system's gettext message catalogs
    python bench/langid_real.py --per-label 0 --only trawl-default py3langid   # every sentence

Sets (neither trained any of trawl's models):

* ``tatoeba`` — Tatoeba sentences (``../shared/data/langid/tatoeba``): everyday sentences,
  mostly 10-60 characters. Labels as :func:`trawl.langid.corpus.load_tatoeba` maps them.
  Tatoeba's own labels are noisy in places (its ``slv`` file holds many Slovak sentences; its
  Bosnian is mostly what others call Croatian): every contestant pays for that alike.
* ``catalogs`` — the translated messages of the gettext catalogs installed on this machine
  (``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``): UI strings of real programs, translated by
  people; format specifiers, markup and accelerators removed; a message equal to its English
  original left out. What is installed differs between machines, so the figures are this
  machine's. The default identifier's fusion constants were chosen on this set
  (:mod:`trawl.langid.identify`), so report Tatoeba and UDHR (``bench/langid.py``), not this.

Accuracy is the macro average over the labels every contestant supports (each label counts
once), per length bucket (<= 20, 21-50, 51-100, > 100 characters) and over all; texts/s over
all texts; ECE of the scores. ``--failures`` prints trawl default's commonest confusions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.langid.calibration import expected_calibration_error
from trawl.langid.corpus import (
    DEFAULT_LOCALE,
    DEFAULT_TATOEBA,
    TATOEBA_BUCKETS,
    bucket_of,
    load_catalogs,
    load_tatoeba,
)
from trawl.langid.identify import CavnarTrenkleIdentifier, DefaultIdentifier, LanguageIdentifier
from trawl.langid.peers import PEERS, peer

OUT = Path(__file__).resolve().parent / "out"


def contestants(only: list[str] | None) -> list[LanguageIdentifier]:
    out: list[LanguageIdentifier] = [DefaultIdentifier(), CavnarTrenkleIdentifier()]
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
    ap.add_argument("--set", choices=("tatoeba", "catalogs"), default="tatoeba")
    ap.add_argument("--data", type=Path, default=DEFAULT_TATOEBA, help="the Tatoeba folder")
    ap.add_argument("--per-label", type=int, default=200, help="texts a label (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="contestants to run (names as printed)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--failures", action="store_true", help="print trawl default's commonest confusions")
    args = ap.parse_args()

    if args.set == "tatoeba":
        if not args.data.is_dir():
            sys.exit(f"Tatoeba not found at {args.data} (../shared/data is not checked out)")
        data = load_tatoeba(args.data, args.per_label, args.seed)
    else:
        data = load_catalogs(args.per_label, args.seed)
        if not data:
            sys.exit(f"no gettext catalogs under {DEFAULT_LOCALE}")
    tools = contestants(args.only)
    common = set(data).intersection(*(c.languages() for c in tools))
    texts = [(lab, t) for lab in sorted(common) for t in data[lab]]
    print(f"# {args.set}: {len(texts):,} texts of {len(common)} labels every contestant supports")
    print("# " + " ".join(sorted(common)) + "\n")

    buckets = [name for _, name in TATOEBA_BUCKETS]
    report: dict[str, Any] = {"set": args.set, "labels": sorted(common), "tools": {}}
    rows = []
    confusions: Counter[tuple[str, str]] = Counter()
    for c in tools:
        t0 = time.perf_counter()
        answers = [c.identify(t) for _, t in texts]
        seconds = time.perf_counter() - t0
        right: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for (lab, text), a in zip(texts, answers, strict=True):
            ok = a.lang == lab
            right[bucket_of(text)][lab].append(ok)
            right["all"][lab].append(ok)
            if c.name == "default" and not ok:
                confusions[(lab, a.lang)] += 1

        def macro(by_label: dict[str, list[bool]]) -> float:
            return 100 * sum(sum(v) / len(v) for v in by_label.values()) / max(len(by_label), 1)

        ece, _ = expected_calibration_error(
            [a.score for a in answers], [a.lang == lab for (lab, _), a in zip(texts, answers, strict=True)]
        )
        cells = {b: macro(right[b]) for b in [*buckets, "all"] if right[b]}
        rows.append((label(c), cells, len(texts) / seconds, ece))
        report["tools"][label(c)] = {"accuracy": cells, "texts_per_s": len(texts) / seconds, "ece": ece}
        print(f"  {label(c)} done in {seconds:.1f} s", file=sys.stderr, flush=True)

    print("| identifier | " + " | ".join(buckets) + " | all | texts/s | ECE |")
    print("|---|" + "---:|" * (len(buckets) + 3))
    best = {b: max(r[1].get(b, 0.0) for r in rows) for b in [*buckets, "all"]}
    for name, cells, rate, ece in rows:
        shown = []
        for b in [*buckets, "all"]:
            v = cells.get(b)
            shown.append("-" if v is None else (f"**{v:.1f}**" if v >= best[b] else f"{v:.1f}"))
        print(f"| {name} | " + " | ".join(shown) + f" | {rate:,.0f} | {ece:.3f} |")
    counts = Counter(bucket_of(t) for _, t in texts)
    print("\ntexts per bucket: " + ", ".join(f"{b} {counts[b]:,}" for b in buckets))
    if args.failures:
        print("\n## trawl default's commonest confusions (truth -> guess: count)\n")
        for (truth, guess), k in confusions.most_common(30):
            print(f"  {truth} -> {guess}: {k}")
    path = args.json or OUT / f"langid_{args.set}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1))
    print(f"\ndata: {path}")


if __name__ == "__main__":
    main()
