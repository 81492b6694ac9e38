"""Cross-validation of the DOM block classifier on WCXB dev, folds grouped by site.

Usage::

    python bench/extract_cv.py cache        # parse the 1,337 pages once (bench/out/cv_cache_all.pkl)
    python bench/extract_cv.py [--l2 0.66 --wpow 1.0 --seed S]   # 3 folds by site: fit on 2, score 1
    python bench/extract_cv.py --stage1 logit                    # stage 1 logistic, as before
    python bench/extract_cv.py --split train cache               # the 888 train-split pages only
    python bench/extract_cv.py --split train --seed S
    python bench/extract_cv.py --seeds ,b,c,d,e --compare trafilatura,resiliparse
        # five fold assignments, each page's scores averaged over them; then per page type the
        # difference with each peer and a 95% interval from a bootstrap over whole sites
    python bench/extract_cv.py --seeds ,b,c,d,e --no-page-bar --dump bench/out/before.txt
    python bench/extract_cv.py --seeds ,b,c,d,e --against bench/out/before.txt
        # a change against the code before it, page by page, with the same site intervals

Each page is scored by a model fitted on other sites' pages, so the figures are those of pages of
unseen sites; the shipped model (fitted on all pages) was chosen this way.

The fit (stage 1 a LightGBM tree ensemble, stage 2 logistic on out-of-fold stage-1 scores,
refined for the pages' expected F1 unless ``--f1-weight 0``),
thresholds and selection are those of ``bench/extract.py train`` and ``dom.select``;
scoring emulates ``extract(method="auto")`` (BTE fallback when the classifier keeps < 10 words,
the whole page when nothing is kept). Features come from this checkout's ``src/trawl`` (which
``bench/extract.py`` puts first on ``sys.path``, ahead of PYTHONPATH), so a candidate feature is
tested by editing features.py and rerunning (after ``cache`` when it changes how pages are parsed).
"""

# ruff: noqa: PLC0415, N803, N806, B023, PLR0917  (closures over the fold's weights are used within the fold)
from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import extract as bench

OUT = Path(__file__).resolve().parent / "out"


def cache_path(split: str) -> Path:
    return OUT / f"cv_cache_{split}.pkl"


def build_cache(split: str) -> None:
    from trawl.extract.bte import body_text_extraction
    from trawl.extract.evaluate import words
    from trawl.html.blocks import parse_blocks, parse_page

    pages = bench.load(None, split)
    out = []
    t0 = time.time()
    for num, html, truth in pages:
        page = parse_blocks(parse_page(html)[0])
        page.cache.clear()
        gold = truth.get("main_content") or ""
        tw = words(gold)
        text = f" {' '.join(tw)} "
        grams = {tuple(tw[i : i + 3]) for i in range(len(tw) - 2)}
        bw = [words(b.text) for b in page.blocks]
        edges = bench.truth_edges(gold) if bench.EDGE_LABELS else None
        labels = [bench._label(x, text, grams, edges) for x in bw]
        bte = body_text_extraction(html).text
        out.append(
            {
                "num": num,
                "type": truth["page_type"],
                "site": urlparse(truth.get("url") or "").netloc,
                "page": page,
                "labels": labels,
                "block_words": bw,
                "gold_words": tw,
                "bte_words": words(bte),
                "bte_n": len(bte.split()),
            }
        )
    OUT.mkdir(parents=True, exist_ok=True)
    cache_path(split).write_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    print(f"cached {len(out)} pages in {time.time() - t0:.0f}s")


class Scorer:
    """Word-bag F1 of a page's kept blocks against its truth, with word ids and bincounts."""

    def __init__(self, rec: dict) -> None:
        vocab: dict[str, int] = {}
        self.gold = np.bincount(
            np.array([vocab.setdefault(w, len(vocab)) for w in rec["gold_words"]], dtype=np.int64),
            minlength=1,
        )
        self.ids = [
            np.array([vocab.setdefault(w, len(vocab)) for w in ws], dtype=np.int64)
            for ws in rec["block_words"]
        ]
        bte = np.array([vocab.setdefault(w, len(vocab)) for w in rec["bte_words"]], dtype=np.int64)
        self.v = len(vocab)
        self.gold = np.concatenate([self.gold, np.zeros(self.v - len(self.gold), dtype=np.int64)])
        self.ngold = int(self.gold.sum())
        self.bte = bte
        self.bte_n = rec["bte_n"]

    def f1_ids(self, ids: np.ndarray) -> tuple[float, float, float]:
        npred = len(ids)
        if not npred and not self.ngold:
            return 1.0, 1.0, 1.0
        if not npred or not self.ngold:
            return (0.0 if npred else 1.0), (0.0 if self.ngold else 1.0), 0.0
        pred = np.bincount(ids, minlength=self.v)
        hit = int(np.minimum(pred, self.gold).sum())
        if not hit:
            return 0.0, 0.0, 0.0
        p, r = hit / npred, hit / self.ngold
        return p, r, 2 * p * r / (p + r)

    def score(self, page, kept) -> tuple[float, float, float]:
        kept_words = sum(b.words for b in kept)
        if kept_words < 10 and page.total_words >= 20 and self.bte_n > kept_words:
            return self.f1_ids(self.bte)
        if not kept:
            kept = page.blocks
        ids = [self.ids[b.index] for b in kept]
        return self.f1_ids(np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64))


def expected_f1(page, probs, kept) -> tuple[float, float] | None:
    """What ``extract`` reports as ``expected_f1`` and ``score`` for these kept blocks: None
    where it would fall back to BTE or the whole page (as ``Scorer.score`` does)."""
    kept_words = sum(b.words for b in kept)
    if not kept or (kept_words < 10 and page.total_words >= 20):
        return None
    from trawl.extract.dom import expected_f1 as expected

    index = [b.index for b in kept]
    score = float(np.dot(np.asarray(probs, dtype=np.float64)[index], page.words[index])) / kept_words
    return expected(probs, page.words, index), score


def sigmoid(z):
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def run(args: argparse.Namespace) -> None:
    import trawl
    from trawl.extract.features import STAGE1_NAMES, stage1_matrix

    cache = cache_path(args.split)
    if not cache.exists():
        raise SystemExit(f"no {cache}: run `python bench/extract_cv.py --split {args.split} cache` first")
    recs = pickle.loads(cache.read_bytes())
    recs = [r for r in recs if r["page"].blocks] + [r for r in recs if not r["page"].blocks]
    t0 = time.time()
    for r in recs:
        r["page"].cache.clear()
        r["scorer"] = Scorer(r)
    X1s = [stage1_matrix(r["page"]) if r["page"].blocks else None for r in recs]
    t_feat = time.time() - t0
    seeds = args.seeds.split(",") if args.seeds else [args.seed]
    runs = []
    for i, seed in enumerate(seeds):
        # The first seed's diagnostics at --diag, the others' beside it.
        diag_path = args.diag if not args.diag or i == 0 else f"{args.diag}.{seed}"
        expected: dict[str, tuple[float, float] | None] | None = {} if args.calibration and i == 0 else None
        results = cross_validate(args, recs, X1s, seed, diag_path, expected)
        if expected is not None:
            calibration(recs, results, expected, seed)
        runs.append(results)
        if len(seeds) > 1:
            print(f"seed {seed!r}: " + _row(recs, results)[1])
    # Each page's scores averaged over the fold assignments (one run: that run's).
    results = {k: tuple(float(np.mean([r[k][j] for r in runs])) for j in range(3)) for k in runs[0]}
    head, row = _row(recs, results)
    print(f"[{args.tag}] features from {trawl.__file__}; n1={len(STAGE1_NAMES)}", end=" ")
    many = f", each page's scores the mean of {len(seeds)} fold assignments" if len(seeds) > 1 else ""
    print(f"feat {t_feat:.1f}s total {time.time() - t0:.0f}s{many}")
    print(head)
    print(row)
    if args.dump:
        Path(args.dump).write_text(
            "\n".join(f"{k} {v[0]:.4f} {v[1]:.4f} {v[2]:.4f}" for k, v in sorted(results.items()))
        )
    for peer in filter(None, args.compare.split(",")):
        compare(recs, results, peer, args.split)
    if args.against:
        against(recs, results, args.against)


def calibration(
    recs: list[dict], results: dict[str, tuple[float, float, float]], expected: dict[str, Any], seed: str
) -> None:
    """How well ``expected_f1`` predicts the measured F1 on pages of unseen sites: per bin of the
    expected F1, the pages and their mean measured F1; the correlation over all pages."""
    nums = [r["num"] for r in recs if expected.get(r["num"]) is not None]
    e = np.array([expected[n][0] for n in nums])
    score = np.array([expected[n][1] for n in nums])
    f = np.array([results[n][2] for n in nums])
    print(f"\nexpected F1 against measured F1 on pages of unseen sites (fold seed {seed!r}; the {len(nums)}")
    print(f"pages where the classifier decided): Pearson r {np.corrcoef(e, f)[0, 1]:.3f} (the score, the")
    print(f"kept words' mean probability: {np.corrcoef(score, f)[0, 1]:.3f}); mean |expected - measured|")
    print(f"{np.abs(e - f).mean():.3f}; means {e.mean():.3f} expected, {f.mean():.3f} measured\n")
    print("| expected F1 | pages | mean measured F1 | pages under 0.5 |")
    print("|---|---:|---:|---:|")
    for lo in (0.0, 0.5, 0.6, 0.7, 0.8, 0.9):
        hi = {0.0: 0.5}.get(lo, lo + 0.1)
        m = (e >= lo) & (e < hi if hi < 1 else e <= 1)
        if m.any():
            print(f"| {lo:.1f}-{hi:.1f} | {int(m.sum())} | {f[m].mean():.3f} | {int((f[m] < 0.5).sum())} |")
    m = e >= 0.5
    print(f"| 0.5 and over | {int(m.sum())} | {f[m].mean():.3f} | {int((f[m] < 0.5).sum())} |\n")


def _row(recs: list[dict], results: dict[str, tuple[float, float, float]]) -> tuple[str, str]:
    """The table head and row: overall P / R / F1, then F1 per page type."""
    by_type: dict[str, list] = defaultdict(list)
    for r in recs:
        by_type[r["type"]].append(results[r["num"]])
    allv = list(results.values())
    types = sorted(by_type)
    head = "overall P/R/F1 | " + " | ".join(types)
    p, r, f1 = (np.mean([s[k] for s in allv]) for k in range(3))
    row = f"{p:.4f} {r:.4f} **{f1:.4f}** | " + " | ".join(
        f"{np.mean([s[2] for s in by_type[t]]):.4f}" for t in types
    )
    return head, row


def peer_scores(peer: str, split: str) -> dict[str, float]:
    """Per page, the peer's word F1 (computed once, then read from bench/out/peer_f1_PEER.json;
    the file records the peer's version and is recomputed when it changes)."""
    import importlib.metadata as md
    import json

    from trawl.extract.evaluate import word_score

    dist = {"trafilatura": "trafilatura", "resiliparse": "resiliparse", "justext": "justext",
            "readability": "readability-lxml", "boilerpy3": "boilerpy3"}.get(peer, peer)  # fmt: skip
    try:
        version = md.version(dist)
    except md.PackageNotFoundError:
        version = "trawl"
    path = OUT / f"peer_f1_{peer}.json"
    stored = json.loads(path.read_text()) if path.exists() else {}
    if stored.get("version") == version and stored.get("split") == split:
        return {k: float(v) for k, v in stored["f1"].items()}
    fn = bench.methods([peer]).get(peer)
    if fn is None:
        raise SystemExit(f"{peer} is not installed")
    out: dict[str, float] = {}
    t0 = time.time()
    pages = bench.load(None, split)
    for n, (num, html, truth) in enumerate(pages, 1):
        out[num] = word_score(bench.run_method(peer, fn, num, html), truth.get("main_content") or "").f1
        if n % 200 == 0:
            print(f"  {peer}: {n}/{len(pages)} pages, {time.time() - t0:.0f}s", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": version, "split": split, "f1": out}))
    return out


def paired_rows(recs: list[dict], ours: dict[str, float], theirs: dict[str, float]) -> list[tuple[Any, ...]]:
    """Per page type ("all" first): (type, pages, sites, our mean, their mean, the per-page
    differences, and a 95% interval for their mean from 5,000 bootstrap draws of whole sites: a
    site's pages share their template, so they are not independent draws)."""
    rng = np.random.default_rng(20261201)
    rows = []
    for kind in ["all", *sorted({r["type"] for r in recs})]:
        chosen = [r for r in recs if kind in ("all", r["type"])]
        sites = sorted({r["site"] for r in chosen})
        site_of = {s: i for i, s in enumerate(sites)}
        diff = np.array([ours[r["num"]] - theirs[r["num"]] for r in chosen])
        lo, hi = site_interval(diff, [site_of[r["site"]] for r in chosen], len(sites), rng)
        mine, other = (float(np.mean([f[r["num"]] for r in chosen])) for f in (ours, theirs))
        rows.append((kind, len(chosen), len(sites), mine, other, diff, lo, hi))
    return rows


def compare(recs: list[dict], results: dict[str, tuple[float, float, float]], peer: str, split: str) -> None:
    """trawl's F1 on pages of unseen sites against a peer's, per page type, with a 95% interval
    for the difference from a bootstrap that resamples whole sites."""
    ours = {k: v[2] for k, v in results.items()}
    print(f"\ntrawl (unseen sites) against {peer}: mean F1 per page; a 95% interval for the difference")
    print("from 5,000 bootstrap draws of whole sites\n")
    print(f"| pages | n | sites | trawl | {peer} | difference | 95% interval |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for kind, n, n_sites, mine, other, _, lo, hi in paired_rows(recs, ours, peer_scores(peer, split)):
        print(
            f"| {kind} | {n} | {n_sites} | {mine:.4f} | {other:.4f} | {mine - other:+.4f} "
            f"| [{lo:+.4f}, {hi:+.4f}] |"
        )


def against(recs: list[dict], results: dict[str, tuple[float, float, float]], path: str) -> None:
    """This run's F1 on pages of unseen sites against an earlier run's (``--dump`` file), page by
    page: per type the mean difference, its 95% site-bootstrap interval, and how many pages
    gained or lost more than 0.001."""
    before = {}
    for line in Path(path).read_text().splitlines():
        num, *scores = line.split()
        before[num] = float(scores[2])
    missing = [r["num"] for r in recs if r["num"] not in before]
    if missing:
        raise SystemExit(
            f"{path} lacks {len(missing)} of this run's pages (e.g. {missing[0]}): another --split?"
        )
    ours = {k: v[2] for k, v in results.items()}
    print(f"\nthis run against {path}: mean F1 per page; a 95% interval for the difference from 5,000")
    print("bootstrap draws of whole sites\n")
    print("| pages | n | before | now | difference | 95% interval | pages up / down |")
    print("|---|---:|---:|---:|---:|---|---|")
    for kind, n, _, mine, old, diff, lo, hi in paired_rows(recs, ours, before):
        print(
            f"| {kind} | {n} | {old:.4f} | {mine:.4f} | {mine - old:+.4f} "
            f"| [{lo:+.4f}, {hi:+.4f}] | {(diff > 0.001).sum()} / {(diff < -0.001).sum()} |"
        )


def site_interval(
    values: Any, site: Any, n_sites: int, rng: np.random.Generator, draws: int = 5000
) -> tuple[float, float]:
    """A 95% bootstrap interval for the mean of per-page ``values`` whose pages come from sites
    (``site[i]`` in ``range(n_sites)``): each draw takes ``n_sites`` sites with replacement and
    averages over all the pages they bring, so a site's correlated pages move together."""
    values = np.asarray(values, dtype=np.float64)
    idx = np.asarray(site, dtype=np.int64)
    if not len(values) or len(idx) != len(values) or n_sites <= 0 or idx.min() < 0 or idx.max() >= n_sites:
        raise ValueError("site_interval: one site index in range(n_sites) per value, at least one value")
    sums = np.bincount(idx, weights=values, minlength=n_sites)
    counts = np.bincount(idx, minlength=n_sites).astype(np.float64)
    if (counts == 0).any():
        raise ValueError("site_interval: a site without pages")
    picks = rng.integers(0, n_sites, size=(draws, n_sites))
    boot = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(lo), float(hi)


def cross_validate(
    args: argparse.Namespace,
    recs: list[dict],
    X1s: list,
    seed: str,
    diag_path: str = "",
    expected: dict[str, tuple[float, float] | None] | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Per page, P / R / F1 from models fitted on the other folds' sites (folds by ``seed``);
    with ``diag_path``, each held-out page's blocks and probabilities are pickled there; with
    ``expected``, each page's expected F1 of its kept blocks (dom.Classified.expected_f1) is put
    there (None where the scoring falls back to BTE or the whole page)."""
    from trawl.extract import dom
    from trawl.extract.features import stage2_matrix

    folds = bench._site_folds([r["site"] for r in recs], seed, args.folds)
    results: dict[str, tuple[float, float, float]] = {}
    select = dom.select
    diag = []

    for f in range(args.folds):
        tr = [i for i in range(len(recs)) if folds[i] != f and X1s[i] is not None]
        te = [i for i in range(len(recs)) if folds[i] == f]
        X1 = np.vstack([X1s[i] for i in tr])
        ys = [np.array(recs[i]["labels"]) for i in tr]
        ws = [
            np.minimum([b.words for b in recs[i]["page"].blocks], args.wcap)
            / max(recs[i]["page"].total_words, 1) ** args.wpow
            for i in tr
        ]
        Y, W = np.concatenate(ys), np.concatenate(ws)
        if args.stage1 == "forest":
            forest = bench._fit_forest(X1, Y, W)
            p1_of = forest.predict
            # Stage 2 is fitted on out-of-fold stage-1 scores, as bench/extract.py train does.
            oof = bench._out_of_fold([X1s[i] for i in tr], ys, ws, [recs[i]["site"] for i in tr])
            fit_p1 = dict(zip(tr, oof, strict=True))
        else:
            b1 = bench._fit(X1, Y, W, l2=args.l2)
            p1_of = lambda x: sigmoid(x @ b1)  # noqa: E731
            fit_p1 = {}

        def stage2(i):
            page = recs[i]["page"]
            p1 = fit_p1[i] if i in fit_p1 else p1_of(X1s[i])
            rows2, cont = stage2_matrix(page, p1)
            return np.hstack([rows2, X1s[i]]), cont

        s2 = {i: stage2(i) for i in tr}
        fit_p1.clear()  # the held-out fold is scored with the ensemble fitted on all of tr
        X2 = np.vstack([s2[i][0] for i in tr])
        l2_2 = args.l2_2 if args.l2_2 is not None else args.l2
        b2 = bench._fit(X2, Y, W, l2=l2_2)
        if args.f1_weight:
            b2 = bench._fit_f1(
                X2,
                Y,
                W,
                b2,
                page_words=[recs[i]["page"].words for i in tr],
                gold=[max(recs[i]["scorer"].ngold, 1) for i in tr],
                mu=args.f1_weight,
                l2=l2_2,
            )
        if args.stage3:

            def stage3(i, x2):
                p2 = sigmoid(x2 @ b2)
                rows3, cont = stage2_matrix(recs[i]["page"], p2)
                return np.hstack([rows3, x2]), cont

            s3 = {i: stage3(i, s2[i][0]) for i in tr}
            b3 = bench._fit(np.vstack([s3[i][0] for i in tr]), Y, W, l2=args.l2)
            s2 = s3
            probs = {i: sigmoid(s3[i][0] @ b3).tolist() for i in tr}
        else:
            probs = {i: sigmoid(s2[i][0] @ b2).tolist() for i in tr}

        def mean_f1(idx, pr, conts, thr, thr_main, thr_out=None, scale=None):
            tot = 0.0
            for i in idx:
                page = recs[i]["page"]
                kept = select(
                    page,
                    pr[i],
                    conts[i],
                    thr,
                    threshold_main=thr_main,
                    threshold_outside=thr_out,
                    page_bar_scale=scale,
                )
                tot += recs[i]["scorer"].score(page, kept)[2]
            return tot / len(idx)

        conts = {i: s2[i][1] for i in tr}
        best, best_main, best_out, best_scale = bench.fit_selection(
            lambda *settings: mean_f1(tr, probs, conts, *settings),
            bench.PAGE_BAR_SCALES if args.page_bar else (),
        )
        if args.verbose:
            print(f"fold {f}: thr {best[1]:.3f} main {best_main[1]:.3f} out {best_out[1]:.3f}", end=" ")
            print(f"page bar {best_scale[1]} train {best_scale[0]:.4f}")
        for i in te:
            page = recs[i]["page"]
            if X1s[i] is None:
                results[recs[i]["num"]] = recs[i]["scorer"].score(page, [])
                continue
            x2, cont = stage2(i)
            pr = sigmoid(x2 @ b2).tolist()
            if args.stage3:
                x3, cont = stage3(i, x2)
                pr = sigmoid(x3 @ b3).tolist()
            kept = select(
                page,
                pr,
                cont,
                best[1],
                threshold_main=best_main[1],
                threshold_outside=best_out[1],
                page_bar_scale=best_scale[1],
            )
            results[recs[i]["num"]] = recs[i]["scorer"].score(page, kept)
            if expected is not None:
                expected[recs[i]["num"]] = expected_f1(page, pr, kept)
            if diag_path:
                keptset = {b.index for b in kept}
                diag.append(
                    (
                        recs[i]["num"],
                        recs[i]["type"],
                        results[recs[i]["num"]],
                        [
                            (
                                b.index,
                                int(b.index in keptset),
                                recs[i]["labels"][b.index],
                                round(pr[b.index], 2),
                                b.words,
                                page.elements[b.element].tag,
                                b.text[:150],
                            )
                            for b in page.blocks
                        ],
                    )
                )
    if diag_path:
        Path(diag_path).write_bytes(pickle.dumps(diag))
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", nargs="?", default="cv", choices=["cv", "cache"])
    ap.add_argument("--l2", type=float, default=0.66)
    ap.add_argument("--l2-2", dest="l2_2", type=float, default=None)
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--tag", default="")
    ap.add_argument("--dump", default="")
    ap.add_argument("--diag", default="")
    ap.add_argument("--stage3", action="store_true")
    ap.add_argument(
        "--f1-weight",
        type=float,
        default=bench.F1_WEIGHT,
        help="stage 2's weight on the expected page F1 (bench/extract.py _fit_f1); 0: log loss alone",
    )
    ap.add_argument("--wpow", type=float, default=1.0)
    ap.add_argument("--wcap", type=float, default=100)
    ap.add_argument("--seed", default="", help="salt of the site-to-fold hash")
    ap.add_argument("--seeds", default="", help="several salts, comma-separated (scores averaged)")
    ap.add_argument(
        "--compare", default="", help="peers (trafilatura,resiliparse…): differences per type, intervals"
    )
    ap.add_argument(
        "--against",
        default="",
        metavar="DUMP",
        help="an earlier run's --dump file: the paired difference, per type",
    )
    ap.add_argument("--split", default="all", choices=["all", "train"], help="the pages cross-validated")
    ap.add_argument("--stage1", default="forest", choices=["forest", "logit"], help="stage-1 model")
    ap.add_argument(
        "--no-page-bar",
        dest="page_bar",
        action="store_false",
        help="no per-page bar (dom.select_index's page_bar_scale), as before the eleventh session",
    )
    ap.add_argument(
        "--calibration",
        action="store_true",
        help="the first seed's expected F1 (extract's expected_f1) against the measured F1, by bin",
    )
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.command == "cache":
        build_cache(args.split)
    else:
        run(args)


if __name__ == "__main__":
    main()
