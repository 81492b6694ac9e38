"""Benchmark: term statistics, trawl vs a plain ``collections.Counter`` and NLTK's ``FreqDist``.

    python bench/stats.py                 # 32 MB generated corpus, 2 rounds
    python bench/stats.py --full          # 1 GB (as the issue asks; ~30 CPU-minutes in all)
    python bench/stats.py --full --parallel --contestants trawl counter nltk
    python bench/stats.py --mb 16 --repeat 1 --contestants trawl counter

Corpus, generated deterministically once into ``bench/out/`` (one document per line, lowercase
ASCII words separated by spaces, so every contestant's tokenizer finds the same tokens): word
ranks drawn from a Zipf-Mandelbrot law P(r) ∝ (r + 2.7)^-1.3 over 20 million ranks, each rank
spelled as consonant-vowel syllables (frequent words are short, as in language), document
lengths log-normal around 600 tokens. The vocabulary is ~4% of the tokens at 8 M tokens (like
web text rather than edited prose) and outgrows trawl's default in-memory bound (250,000 terms)
in the default 32 MB corpus, so trawl's spill-to-disk path is part of what is measured.

Contestants, each in its own fresh process (so that peak memory is its own), in an order rotated
per round, reading the same lines:

- ``trawl``: :class:`trawl.textstats.StatsBuilder` — tokenizer, exact tf, df and first positions
  with bounded memory, then the *whole report* (top table, Zipf and Heaps fits, hints);
- ``counter``: ``re.findall(r"\\w+", line)`` + ``Counter.update`` (term frequencies only, the
  baseline everyone writes first; memory grows with the vocabulary);
- ``counter-df``: the same plus a second ``Counter`` of document frequencies (what trawl counts);
- ``nltk``: ``nltk.tokenize.RegexpTokenizer(r"\\w+")`` + ``nltk.FreqDist.update``.

Each child reports tokens counted, wall and CPU time and its peak resident memory
(``ru_maxrss``); the table gives the best round and each contestant's speed relative to the
Counter baseline, and the tokens counted must agree.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

OUT = ROOT / "bench" / "out"
CONTESTANTS = ("trawl", "counter", "counter-df", "nltk")
ZIPF_S = 1.3
ZIPF_Q = 2.7
RANKS = 20_000_000
SEED = 20261130

_CONS = "bcdfghjklmnprstvwxyz"
_VOW = "aeiou"
_SYL = [c + v for c in _CONS for v in _VOW]  # 100 syllables


def spell(rank: int) -> str:
    """Rank 0 → "ba", 1 → "be" …: base-100 digits as consonant-vowel syllables (a bijection)."""
    out = []
    n = rank
    while True:
        out.append(_SYL[n % 100])
        n = n // 100 - 1
        if n < 0:
            break
    return "".join(reversed(out))


def corpus_path(mb: int) -> Path:
    return OUT / f"stats-corpus-{mb}mb-s{SEED}.txt"


def generate(mb: int) -> Path:
    """Write the corpus (once; reused while the file exists)."""
    import numpy as np  # noqa: PLC0415 - only the generator needs it

    path = corpus_path(mb)
    if path.exists() and path.stat().st_size >= mb * 1_000_000:
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    cdf = np.cumsum((np.arange(1, RANKS + 1, dtype=np.float64) + ZIPF_Q) ** -ZIPF_S)
    cdf /= cdf[-1]
    target = mb * 1_000_000
    written = 0
    t0 = time.perf_counter()
    tmp = path.with_suffix(".part")
    with tmp.open("w", encoding="ascii") as out:
        while written < target:
            lengths = np.maximum(1, rng.lognormal(math.log(600), 0.6, size=200).astype(np.int64))
            ranks = np.searchsorted(cdf, rng.random(int(lengths.sum())))
            uniq, inverse = np.unique(ranks, return_inverse=True)
            words = np.array([spell(int(r)) for r in uniq], dtype=object)[inverse]
            start = 0
            lines = []
            for n in lengths:
                lines.append(" ".join(words[start : start + n]))
                start += n
            block = "\n".join(lines) + "\n"
            out.write(block)
            written += len(block)
            if written // 50_000_000 != (written - len(block)) // 50_000_000:
                print(
                    f"  generating {path.name}: {written / 1e6:,.0f} / {mb} MB", file=sys.stderr, flush=True
                )
    tmp.rename(path)
    print(f"\n  generated in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return path


def lines(path: Path) -> Iterator[str]:
    with path.open(encoding="ascii") as handle:
        yield from handle


# -- contestants (run in a child process) ---------------------------------------------------------


def run_trawl(path: Path, max_terms: int | None) -> tuple[int, dict[str, object]]:
    from trawl.textstats import DEFAULT_MAX_TERMS, StatsBuilder  # noqa: PLC0415

    with StatsBuilder(max_terms=max_terms or DEFAULT_MAX_TERMS, tmpdir=OUT) as builder:
        add = builder.add
        for line in lines(path):
            add(line)
        stats = builder.finish()
    z, h = stats.zipf, stats.heaps
    return stats.tokens, {
        "vocabulary": stats.vocabulary,
        "hapax": stats.hapax,
        "runs_spilled": stats.memory["runs_spilled"],
        "zipf_exponent": round(z.exponent, 3) if z else None,
        "zipf_bends": [z.head_bend, z.tail_bend] if z else None,
        "heaps_k": round(h.k, 2) if h else None,
        "heaps_beta": round(h.beta, 3) if h else None,
    }


def run_counter(path: Path, with_df: bool) -> tuple[int, dict[str, object]]:
    import re  # noqa: PLC0415

    word = re.compile(r"\w+")
    tf: Counter[str] = Counter()
    df: Counter[str] = Counter()
    for line in lines(path):
        toks = word.findall(line.lower())
        tf.update(toks)
        if with_df:
            df.update(set(toks))
    top = tf.most_common(50)
    return sum(tf.values()), {"vocabulary": len(tf), "top1": top[0][0] if top else None}


def run_nltk(path: Path) -> tuple[int, dict[str, object]]:
    from nltk import FreqDist  # type: ignore[import-untyped]  # noqa: PLC0415
    from nltk.tokenize import RegexpTokenizer  # type: ignore[import-untyped]  # noqa: PLC0415

    tokenizer = RegexpTokenizer(r"\w+")
    fd: FreqDist = FreqDist()
    for line in lines(path):
        fd.update(tokenizer.tokenize(line.lower()))
    top = fd.most_common(50)
    return fd.N(), {"vocabulary": fd.B(), "top1": top[0][0] if top else None}


def child(name: str, path: Path, max_terms: int | None) -> None:
    c0 = time.process_time()
    t0 = time.perf_counter()
    if name == "trawl":
        tokens, extra = run_trawl(path, max_terms)
    elif name in ("counter", "counter-df"):
        tokens, extra = run_counter(path, name == "counter-df")
    elif name == "nltk":
        tokens, extra = run_nltk(path)
    else:
        raise SystemExit(f"unknown contestant {name!r}; choose from {', '.join(CONTESTANTS)}")
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {"name": name, "tokens": tokens, "wall": wall, "cpu": cpu, "peak_mb": peak_kib / 1024, **extra}
        )
    )


# -- tokenizers alone, in this process (bench/harness.py) ------------------------------------------


def tokenizer_bench(repeat: int) -> None:
    """trawl.tokenize vs re ``\\w+`` vs NLTK's RegexpTokenizer, on English and on ~390 languages.

    The unit is characters: the tokenizers disagree on what a token is (``\\w+`` splits Devanagari
    words at every vowel sign), so tokens are reported per tokenizer but not compared.
    """
    import re  # noqa: PLC0415

    from harness import Bench  # noqa: PLC0415
    from trawl.tokenize import tokens  # noqa: PLC0415

    data = ROOT.parent / "shared" / "data"
    texts = {
        "English (inaugural addresses)": sorted((data / "stats" / "inaugural").glob("*.txt")),
        "UDHR, ~390 languages": sorted((data / "langid" / "udhr2").glob("*.txt")),
    }
    word = re.compile(r"\w+")
    try:
        from nltk.tokenize import RegexpTokenizer  # noqa: PLC0415

        nltk_tok = RegexpTokenizer(r"\w+").tokenize
    except ImportError:
        nltk_tok = None
    for title, paths in texts.items():
        if not paths:
            continue
        docs = [p.read_bytes().decode("utf-8", errors="replace") for p in paths]
        counts: dict[str, int] = {}

        def case(
            name: str, fn: Callable[[str], list[str]], docs: list[str] = docs, counts: dict[str, int] = counts
        ) -> Callable[[], int]:
            size = sum(len(d) for d in docs)

            def run() -> int:
                counts[name] = sum(len(fn(d)) for d in docs)
                return size

            return run

        bench = Bench(f"tokenize, {title}", units="chars")
        bench.add("trawl.tokenize", case("trawl.tokenize", tokens))
        bench.add("re \\w+ (lowercased)", case("re \\w+ (lowercased)", lambda d: word.findall(d.lower())))
        if nltk_tok is not None:
            bench.add("nltk RegexpTokenizer", case("nltk RegexpTokenizer", lambda d: nltk_tok(d.lower())))
        results = bench.run(repeat=repeat, verbose=False)
        print("\n" + bench.table(results, reference="re \\w+ (lowercased)"))
        print("tokens: " + ", ".join(f"{n} {c:,}" for n, c in counts.items()))


# -- the parent ---------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=32, help="corpus size in MB (default 32)")
    ap.add_argument("--full", action="store_true", help="1 GB corpus, one round")
    ap.add_argument("--repeat", type=int, default=2, help="rounds (default 2; 1 with --full)")
    ap.add_argument("--contestants", nargs="+", default=list(CONTESTANTS), choices=CONTESTANTS)
    ap.add_argument("--max-terms", type=int, default=None, help="trawl's in-memory vocabulary bound")
    ap.add_argument("--no-tokenizers", action="store_true", help="skip the tokenizer-only comparison")
    ap.add_argument("--parallel", action="store_true", help="run a round's contestants at once (compare CPU)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--generate", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.path, args.max_terms)
        return 0
    if args.generate:
        generate(args.generate)
        return 0
    mb = 1000 if args.full else args.mb
    repeat = 1 if args.full and args.repeat == 2 else args.repeat
    # Generated in a child too: Linux carries a parent's peak RSS into the ru_maxrss of children
    # it forks, and the generator's cumulative distribution alone is 160 MB.
    subprocess.run([sys.executable, __file__, "--generate", str(mb)], check=True)
    path = corpus_path(mb)
    size = path.stat().st_size
    results: dict[str, list[dict[str, object]]] = {n: [] for n in args.contestants}
    names = list(args.contestants)
    for rnd in range(repeat):
        k = rnd % len(names)
        order = names[k:] + names[:k]
        # --parallel: the round's contestants at once, each in its own process (CPU time and peak
        # memory stay per process; wall times then share the cores and are not comparable).
        batches = [order] if args.parallel else [[n] for n in order]
        for batch in batches:
            procs = {}
            for name in batch:
                cmd = [sys.executable, __file__, "--child", name, "--path", str(path)]
                if args.max_terms:
                    cmd += ["--max-terms", str(args.max_terms)]
                procs[name] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for name, proc in procs.items():
                out, err = proc.communicate()
                if proc.returncode:
                    print(err, file=sys.stderr)
                    raise SystemExit(f"{name} failed")
                row = json.loads(out.strip().splitlines()[-1])
                results[name].append(row)
                print(
                    f"  round {rnd + 1}/{repeat} {name}: {row['wall']:.1f} s, CPU {row['cpu']:.1f} s, "
                    f"peak {row['peak_mb']:.0f} MB",
                    file=sys.stderr,
                    flush=True,
                )
    tokens = {rows[0]["tokens"] for rows in results.values()}
    if len(tokens) > 1:
        raise AssertionError(
            f"contestants disagree on the tokens: {[(n, r[0]['tokens']) for n, r in results.items()]}"
        )
    n_tokens = int(tokens.pop())  # type: ignore[call-overload]
    ref = results.get("counter")
    ref_best = min(float(r["wall"]) for r in ref) if ref else None  # type: ignore[arg-type]
    ref_cpu = min(float(r["cpu"]) for r in ref) if ref else None  # type: ignore[arg-type]
    print(f"\nCorpus: {path.name}, {size / 1e6:,.0f} MB, {n_tokens:,} tokens; best of {repeat} round(s)\n")
    print(
        "| contestant | best s | median s | best CPU s | tokens/s (CPU) | MB/s (CPU) | peak memory MB "
        "| speed vs counter (wall) | (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        walls = [float(r["wall"]) for r in rows]  # type: ignore[arg-type]
        best = min(walls)
        cpu = min(float(r["cpu"]) for r in rows)  # type: ignore[arg-type]
        peak = max(float(r["peak_mb"]) for r in rows)  # type: ignore[arg-type]
        ratio = f"{ref_best / best:.2f}x" if ref_best else "-"
        ratio_cpu = f"{ref_cpu / cpu:.2f}x" if ref_cpu else "-"
        print(
            f"| {name} | {best:.1f} | {statistics.median(walls):.1f} | {cpu:.1f} | {n_tokens / cpu:,.0f} | "
            f"{size / cpu / 1e6:.1f} | {peak:,.0f} | {ratio} | {ratio_cpu} |"
        )
    if not args.no_tokenizers:
        tokenizer_bench(3)
    extras = {
        n: {k: v for k, v in rows[0].items() if k not in ("name", "wall", "cpu", "peak_mb")}
        for n, rows in results.items()
    }
    print("\n" + json.dumps(extras, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
