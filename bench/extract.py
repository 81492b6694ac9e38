"""Main-content extraction on WCXB dev: trawl's methods against their peers, quality and speed.

Usage (from the project root)::

    python bench/extract.py                 # every page, every method and peer
    python bench/extract.py --quick 200     # the first 200 pages
    python bench/extract.py --split heldout # only pages 3, 6, 9, ... (see below)
    python bench/extract.py train           # refit the block classifier on all pages (writes
                                            # _forest.py, _weights.py)
    python bench/extract.py train --split train   # refit it on the train split only

Quality is word-level precision / recall / F1 per page (bags of lower-cased words, see
``trawl.extract.evaluate``), averaged over pages, overall and per page type. Speed is pages per
second of CPU time on decoded pages (str), one core, each method timed on the same pages in the
same run; the parse is part of every method's time. Metadata accuracy (title, author, date) is
compared with trafilatura's.

The shipped classifier is fitted on all 1,337 pages: its features, model sizes and thresholds
were chosen by cross-validation grouped by site (``bench/extract_cv.py``), which also gives the
figures for pages of unseen sites, and the extra pages are worth about +0.0015 mean F1 there.
For a held-out table, ``train --split train`` fits it on the pages whose number is not a multiple
of 3 (the *train* split, 888 pages); pages 3, 6, 9, ... (the *held-out* split, 449 pages) are
then never seen by the fit, and an evaluation of all pages adds a table of those alone. The
split a model was fitted on is recorded in ``_weights.FITTED_ON``.
"""

# Peers and numpy are imported where used (each is optional); X/Y/W are matrix names.
# ruff: noqa: PLC0415, N806
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "extraction" / "wcxb-dev"
sys.path.insert(0, str(ROOT / "src"))

from trawl.extract.evaluate import Score, mean_scores, word_score, words  # noqa: E402


def load(limit: int | None = None, split: str = "all") -> list[tuple[str, str, dict[str, Any]]]:
    """(page number, decoded HTML, truth) for the pages of ``split`` (all, train, heldout)."""
    pages = []
    for path in sorted((DATA / "html").glob("*.html.gz")):
        num = path.name.split(".")[0]
        held = int(num) % 3 == 0
        if (split == "train" and held) or (split == "heldout" and not held):
            continue
        truth = json.loads((DATA / "truth" / f"{num}.json").read_text(encoding="utf-8"))
        html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        pages.append((num, html, truth))
        if limit and len(pages) >= limit:
            break
    return pages


# --------------------------------------------------------------------------- training


#: Short blocks are labelled by where they occur in the truth: as a line or a table cell of it, or
#: at either end of one (``truth_edges``), not anywhere inside its text.
EDGE_LABELS = os.environ.get("TRAWL_EDGE_LABELS", "1") == "1"


def truth_edges(gold: str) -> set[str]:
    """The truth's lines and table cells (split at " | "), and their first and last one to four
    words: where a short block of content (a heading, a list item, a cell) is found in it."""
    out: set[str] = set()
    for part in re.split(r"\n| \| ", gold):
        pw = words(part)
        out.add(" ".join(pw))
        for k in range(1, min(4, len(pw)) + 1):
            out.add(" ".join(pw[:k]))
            out.add(" ".join(pw[-k:]))
    out.discard("")
    return out


def _label(
    block_words: list[str],
    truth_text: str,
    truth_grams: set[tuple[str, ...]],
    edges: set[str] | None = None,
) -> float:
    """1 when the block's words are in the true content: by its word 3-grams; a block of up to
    four words as a phrase, at an edge of a line or cell of the truth when ``edges`` are given
    (:func:`truth_edges`; "Share" or "Contact" is not content because the article uses the word)."""
    if not block_words:
        return 0.0
    if len(block_words) <= 4:
        if edges is not None:
            return 1.0 if " ".join(block_words) in edges else 0.0
        return 1.0 if f" {' '.join(block_words)} " in truth_text else 0.0
    grams = [tuple(block_words[i : i + 3]) for i in range(len(block_words) - 2)]
    hit = sum(g in truth_grams for g in grams)
    return 1.0 if hit >= 0.5 * len(grams) else 0.0


def _fit(x: Any, y: Any, w: Any, l2: float = 1.0, iters: int = 30) -> Any:
    """Weighted L2-regularised logistic regression by Newton's method (IRLS)."""
    import numpy as np

    beta = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[0] = 1e-6
    for _ in range(iters):
        z = x @ beta
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        grad = x.T @ (w * (p - y)) + reg * beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return beta


#: Stage 2's weight on the expected page F1 against the log loss (``_fit_f1``), chosen by
#: bench/extract_cv.py (3 folds by site): 2, 5, 10, 30 gave 0.8700, 0.8703, 0.8709, 0.8708 on
#: fold seed b against 0.8684 for the log loss alone.
F1_WEIGHT = 10.0


def expected_f1_objective(
    b: Any, x: Any, y: Any, w: Any, *, words: Any, page_of: Any, gold: Any, mu: float, reg: Any
) -> tuple[float, Any]:
    """Stage 2's fitting objective at weights ``b`` and its gradient: the weighted log loss, plus
    the L2 penalty ``reg``, minus ``mu`` times the sum over pages of the expected word F1
    2·Σ p·t / (Σ p·w + gold), where each block is kept with its probability p (as
    dom.expected_f1 reads it), t are its true words (its words when labelled content), w its
    words, and gold the page's true word count. ``page_of`` gives each block's page (0, 1, ...)."""
    import numpy as np

    npages = len(gold)
    true = words * y
    p = 1 / (1 + np.exp(-np.clip(x @ b, -30, 30)))
    loss = -(w * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))).sum()
    hit = np.bincount(page_of, p * true, npages)
    den = np.bincount(page_of, p * words, npages) + gold
    f1 = 2 * hit / den
    d_f1 = 2 * true / den[page_of] - 2 * hit[page_of] * words / den[page_of] ** 2
    grad = x.T @ (w * (p - y) - mu * d_f1 * p * (1 - p)) + reg * b
    return float(loss + 0.5 * (reg * b * b).sum() - mu * f1.sum()), grad


def _fit_f1(
    x: Any, y: Any, w: Any, beta: Any, *, page_words: list[Any], gold: Any, mu: float, l2: float
) -> Any:
    """Stage 2's weights refined, from the log-loss fit ``beta``, for :func:`expected_f1_objective`
    (the log loss minus ``mu`` times the summed expected page F1: the metric the benchmark
    averages), then rescaled so that the probabilities are calibrated again. ``page_words``: per
    page, its blocks' word counts (the pages of ``x``'s rows, in order); ``gold``: per page, its
    true word count.

    The log loss weighs each block on its own; a page's F1 weighs a wrongly kept block by how
    little true content its page has, which is where product and collection pages lose."""
    import numpy as np
    from scipy.optimize import minimize

    words = np.concatenate(page_words).astype(np.float64)
    page_of = np.repeat(np.arange(len(page_words)), [len(b) for b in page_words])
    gold = np.asarray(gold, dtype=np.float64)
    reg = np.full(x.shape[1], l2)
    reg[0] = 1e-6
    tuned = minimize(
        lambda b: expected_f1_objective(b, x, y, w, words=words, page_of=page_of, gold=gold, mu=mu, reg=reg),
        beta,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 200},
    ).x
    # The F1 term steepens the logits (about twice): rescaled (Platt: a weighted logistic fit of
    # the labels on the logit), the probabilities are calibrated again, as the page's own bar and
    # the reported expected F1 read them, with the blocks in the same order.
    z = x @ tuned
    bias, slope = _fit(np.column_stack([np.ones_like(z), z]), y, w, l2=0.0)
    tuned = slope * tuned
    tuned[0] += bias  # column 0 is the constant ("bias")
    return tuned


def _tuple(values: list[Any]) -> str:
    """A tuple literal, wrapped at 100 characters."""
    out, line = [], ""
    for v in values:
        item = json.dumps(v) if isinstance(v, str) else repr(v)
        if len(line) + len(item) + 2 > 100:
            out.append(line.rstrip())
            line = ""
        line += item + ", "
    out.append(line.rstrip())
    return "(\n    " + "\n    ".join(out) + "\n)"


def _literal(weights: dict[str, float]) -> str:
    """A dict literal as ``ruff format`` writes it (one entry a line, trailing commas)."""
    return "{\n" + "".join(f"    {json.dumps(k)}: {v!r},\n" for k, v in weights.items()) + "}"


#: Stage 1's tree ensemble (LightGBM): small and shallow, so that evaluating it costs little
#: (100 trees of 7 leaves), chosen by bench/extract_cv.py on the train split (3 folds by site).
FOREST_PARAMS: dict[str, Any] = {
    "objective": "cross_entropy",  # labels in [0, 1], sigmoid output
    "learning_rate": 0.15,
    "num_leaves": 7,
    "min_data_in_leaf": 50,
    "min_sum_hessian_in_leaf": 1e-3,
    "feature_fraction": 0.8,
    "lambda_l2": 1.0,
    "max_bin": 255,
    "seed": 7,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "verbose": -1,
}
FOREST_ROUNDS = 100


def _fit_forest(x: Any, y: Any, w: Any) -> Any:
    """Stage 1's tree ensemble (a LightGBM booster) on rows ``x``, labels ``y``, weights ``w``."""
    try:
        import lightgbm
    except (ImportError, OSError) as exc:  # pragma: no cover - training needs the train extra
        raise SystemExit(f"training stage 1 needs lightgbm (pip install -e '.[train]'): {exc}") from exc
    # The page-normalised weights sum to ~1 per page; scaled so that hessian-based limits and
    # the L2 penalty mean what they say.
    data = lightgbm.Dataset(x, label=y, weight=w * 100.0, free_raw_data=False)
    return lightgbm.train(FOREST_PARAMS, data, num_boost_round=FOREST_ROUNDS)


def _forest_tables(booster: Any) -> dict[str, list[Any]]:
    """The booster's trees as trawl.extract.forest's node tables (children < 0 are leaves ~c)."""
    tables: dict[str, list[Any]] = {k: [] for k in ("FEATURE", "THRESHOLD", "LEFT", "RIGHT", "LEAF", "ROOTS")}

    def add(node: dict[str, Any]) -> int:
        if "leaf_value" in node:
            tables["LEAF"].append(float(node["leaf_value"]))
            return ~(len(tables["LEAF"]) - 1)
        if node.get("decision_type") != "<=" or node.get("missing_type", "None") not in ("None", None):
            raise SystemExit(
                f"unsupported split in the booster: {node.get('decision_type')} {node.get('missing_type')}"
            )
        k = len(tables["FEATURE"])
        tables["FEATURE"].append(int(node["split_feature"]))
        tables["THRESHOLD"].append(float(node["threshold"]))
        tables["LEFT"].append(0)
        tables["RIGHT"].append(0)
        tables["LEFT"][k] = add(node["left_child"])
        tables["RIGHT"][k] = add(node["right_child"])
        return k

    for tree in booster.dump_model()["tree_info"]:
        tables["ROOTS"].append(add(tree["tree_structure"]))
    return tables


def _site_folds(sites: list[str], salt: str, folds: int = 3) -> list[int]:
    return [zlib.crc32((site + salt).encode()) % folds for site in sites]


def _out_of_fold(xs: list[Any], ys: list[Any], ws: list[Any], sites: list[str]) -> list[Any]:
    """Stage-1 probabilities of every page from an ensemble fitted without its site's pages (3
    folds by site), which stage 2 is then fitted on: in-sample tree scores are overconfident, and
    stage 2 would learn to trust them more than unseen pages deserve."""
    import numpy as np

    fold = _site_folds(sites, "inner")
    out: list[Any] = [None] * len(xs)
    for f in range(3):
        fit = [i for i in range(len(xs)) if fold[i] != f]
        model = _fit_forest(
            np.vstack([xs[i] for i in fit]),
            np.concatenate([ys[i] for i in fit]),
            np.concatenate([ws[i] for i in fit]),
        )
        for i in range(len(xs)):
            if fold[i] == f:
                out[i] = model.predict(xs[i])
    return out


#: The scales of the page's own bar tried by ``train`` and extract_cv (dom.select_index).
PAGE_BAR_SCALES = (1.0, 1.1, 1.2, 1.3, 1.4, 1.5)


def fit_selection(
    mean_f1: Callable[..., float], scales: Sequence[float] = PAGE_BAR_SCALES
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float | None]]:
    """dom.select_index's settings fitted for mean page F1, one after the other, each as (the F1
    reached, the value): the threshold; the stricter one inside the container of single-region
    pages; the confidence that keeps a block outside it (2.0: none); the scale of the page's own
    bar (None: not used; ``scales`` empty: not tried). ``mean_f1(threshold, threshold_main,
    threshold_outside=None, page_bar_scale=None)`` scores the fitted pages with those settings."""
    best = (0.0, 0.5)
    for thr in [0.25 + 0.025 * i for i in range(15)]:
        f1 = mean_f1(thr, None)
        if f1 > best[0]:
            best = (f1, thr)
    best_main = best
    for thr_main in [best[1] + 0.025 * i for i in range(1, 17)]:
        f1 = mean_f1(best[1], thr_main)
        if f1 > best_main[0]:
            best_main = (f1, thr_main)
    best_out = (best_main[0], 2.0)
    for thr_out in (0.95, 0.9, 0.85, 0.8, 0.75, 0.7):
        f1 = mean_f1(best[1], best_main[1], thr_out)
        if f1 > best_out[0]:
            best_out = (f1, thr_out)
    best_scale: tuple[float, float | None] = (best_out[0], None)
    for scale in scales:
        f1 = mean_f1(best[1], best_main[1], best_out[1], scale)
        if f1 > best_scale[0]:
            best_scale = (f1, scale)
    return best, best_main, best_out, best_scale


def _fitted_pages(split: str, n: int) -> str:
    if split == "all":
        return f"all {n} WCXB dev pages"
    return f"the {n} WCXB dev pages whose number is not a multiple of 3 (the train split)"


def train(args: argparse.Namespace) -> int:
    import numpy as np

    from trawl.extract.features import STAGE1_NAMES, STAGE2_NAMES, stage1_matrix, stage2_matrix
    from trawl.html.blocks import parse_blocks, parse_page

    split = args.split
    if split == "heldout":
        raise SystemExit("train: --split all (the shipped model) or --split train (for a held-out table)")
    pages = load(args.quick, split)
    print(f"fitting on {len(pages)} pages ({split})", flush=True)
    parsed = []
    true_words = []  # per page, the truth's word count
    for num, html, truth in pages:
        page = parse_blocks(parse_page(html)[0])  # the tree extraction reads (cut, guarded)
        tw = words(truth.get("main_content") or "")
        text = f" {' '.join(tw)} "
        grams = {tuple(tw[i : i + 3]) for i in range(len(tw) - 2)}
        edges = truth_edges(truth.get("main_content") or "") if EDGE_LABELS else None
        labels = [_label(words(b.text), text, grams, edges) for b in page.blocks]
        parsed.append((num, page, labels, truth))
        true_words.append(max(len(tw), 1))
    xs, ys, ws, sites, gold = [], [], [], [], []
    for (_, page, labels, truth), n_true in zip(parsed, true_words, strict=True):
        if not page.blocks:
            continue
        gold.append(n_true)
        xs.append(stage1_matrix(page))
        ys.append(np.array(labels))
        # Each page weighs about the same in the fit, as it does in the per-page mean F1 the
        # benchmark reports (1/sqrt(words) let long pages dominate; cross-validated on the train
        # split, grouped by site: +0.008-0.010 mean F1).
        ws.append(np.minimum(page.words.astype(np.float64), 100) / max(page.total_words, 1))
        sites.append(urlparse(truth.get("url") or "").netloc)
    X1, Y, W = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    forest = _fit_forest(X1, Y, W)
    p1s = _out_of_fold(xs, ys, ws, sites)
    x2 = []
    containers: list[int] = []
    k = 0
    for _, page, _, _ in parsed:
        if not page.blocks:
            containers.append(0)
            continue
        rows2, cont = stage2_matrix(page, p1s[k])
        containers.append(cont)
        x2.append(np.hstack([rows2, xs[k]]))
        k += 1
    X2 = np.vstack(x2)
    b2 = _fit(X2, Y, W, l2=args.l2)
    if args.f1_weight:
        page_words = [page.words for _, page, _, _ in parsed if page.blocks]
        b2 = _fit_f1(X2, Y, W, b2, page_words=page_words, gold=gold, mu=args.f1_weight, l2=args.l2)
    # The threshold that maximises the mean page F1 on the fitted pages, with the same selection
    # (container, repeated texts once) as extraction applies.
    from trawl.extract.dom import render, select

    probs = list(1 / (1 + np.exp(-(X2 @ b2))))

    def mean_f1(
        thr: float, thr_main: float | None, thr_out: float | None = None, scale: float | None = None
    ) -> float:
        k = 0
        scores = []
        for (_, page, _, truth), cont in zip(parsed, containers, strict=True):
            n = len(page.blocks)
            kept = select(
                page,
                probs[k : k + n],
                cont,
                thr,
                threshold_main=thr_main,
                threshold_outside=thr_out,
                page_bar_scale=scale,
            )
            k += n
            scores.append(word_score(render(page, kept), truth.get("main_content") or ""))
        return mean_scores(scores).f1

    best, best_main, best_out, best_scale = fit_selection(mean_f1)
    print(
        f"train mean F1 {best[0]:.4f} at threshold {best[1]:.3f}; "
        f"{best_main[0]:.4f} with {best_main[1]:.3f} inside the container; "
        f"{best_out[0]:.4f} keeping blocks outside it from {best_out[1]:.3f}; "
        f"{best_scale[0]:.4f} with the page's own bar at {best_scale[1]} x half its expected F1"
    )
    out = ROOT / "src" / "trawl" / "extract" / "_weights.py"
    w2 = {n: round(float(v), 5) for n, v in zip(STAGE2_NAMES + STAGE1_NAMES, b2, strict=True)}
    out.write_text(
        '"""Weights of stage 2 of the DOM block classifier, written by ``python bench/extract.py train``.\n\n'
        f"Fitted on {_fitted_pages(split, len(pages))}; do not edit.\n"
        "Stage 1 is the tree ensemble in ``_forest.py``.\n"
        '"""\n\n__all__ = [\n    "FITTED_ON",\n    "PAGE_BAR_SCALE",\n    "STAGE2",\n    "THRESHOLD",\n'
        '    "THRESHOLD_MAIN",\n    "THRESHOLD_OUTSIDE",\n]\n\n'
        "#: The WCXB dev pages of the fit: all, or the train split (numbers not a multiple of 3).\n"
        f'FITTED_ON = "{split}"\n\n'
        f"STAGE2: dict[str, float] = {_literal(w2)}\n\n"
        f"THRESHOLD = {best[1]:.3f}\n"
        f"THRESHOLD_MAIN = {best_main[1]:.3f}\n"
        f"THRESHOLD_OUTSIDE = {best_out[1]:.3f}\n"
        "#: dom.select_index's page_bar_scale (None: the page's own bar is not used).\n"
        f"PAGE_BAR_SCALE: float | None = {best_scale[1]}\n",
        encoding="utf-8",
    )
    print(f"wrote {out}")
    tables = _forest_tables(forest)
    out = ROOT / "src" / "trawl" / "extract" / "_forest.py"
    kinds = {"FEATURE": "int", "THRESHOLD": "float", "LEFT": "int", "RIGHT": "int"}
    kinds |= {"LEAF": "float", "ROOTS": "int"}
    body = "".join(f"{name}: tuple[{kind}, ...] = {_tuple(tables[name])}\n\n" for name, kind in kinds.items())
    out.write_text(
        '"""Stage 1 of the DOM block classifier: a tree ensemble, written by ``python bench/extract.py\n'
        f"train`` (LightGBM, {FOREST_ROUNDS} trees of at most {FOREST_PARAMS['num_leaves']} leaves) on\n"
        f"{_fitted_pages(split, len(pages))}; do not edit. Read by "
        ":mod:`trawl.extract.forest`.\n"
        '"""\n\n# fmt: off\n'
        '__all__ = ["FEATURE", "LEAF", "LEFT", "NAMES", "RIGHT", "ROOTS", "THRESHOLD"]\n\n'
        f"NAMES: tuple[str, ...] = {_tuple(list(STAGE1_NAMES))}\n\n" + body.rstrip() + "\n",
        encoding="utf-8",
    )
    print(f"wrote {out} ({len(tables['ROOTS'])} trees, {len(tables['FEATURE'])} splits)")
    return 0


# --------------------------------------------------------------------------- evaluation


def _trafilatura(html: str) -> str:
    import trafilatura

    return trafilatura.extract(html, include_comments=False) or ""


def _resiliparse(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return str(extract_plain_text(HTMLTree.parse(html), main_content=True))


def _justext(html: str) -> str:
    import justext  # type: ignore[import-untyped]

    paras = justext.justext(html.encode("utf-8"), justext.get_stoplist("English"))
    return "\n".join(p.text for p in paras if not p.is_boilerplate)


def _optional(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _readability(html: str) -> str:
    from readability import Document as RDoc  # type: ignore[import-not-found,import-untyped,unused-ignore]

    from trawl.html.blocks import parse_blocks

    summary = RDoc(html).summary(html_partial=True)
    return "\n".join(b.text for b in parse_blocks(summary).blocks)


def _boilerpy3(html: str) -> str:
    from boilerpy3 import extractors  # type: ignore[import-not-found,import-untyped,unused-ignore]

    return str(extractors.ArticleExtractor(raise_on_failure=False).get_content(html))


def methods(names: list[str]) -> dict[str, Callable[[str], str]]:
    from trawl.extract import extract

    table: dict[str, Callable[[str], str]] = {
        # Text only, as the peers are called; "trawl+meta" also reads title, author and date.
        "trawl": lambda h: extract(h, metadata=False).text,
        "trawl+meta": lambda h: extract(h).text,
        "trawl-dom": lambda h: extract(h, method="dom", metadata=False).text,
        "trawl-bte": lambda h: extract(h, method="bte", metadata=False).text,
        "trawl-slope": lambda h: extract(h, method="slope", metadata=False).text,
        "trafilatura": _trafilatura,
        "resiliparse": _resiliparse,
        "justext": _justext,
        "readability": _readability,
        "boilerpy3": _boilerpy3,
    }
    needs = {"readability": "readability", "boilerpy3": "boilerpy3", "justext": "justext"}
    out = {}
    for name in names:
        if name in needs and not _optional(needs[name]):
            print(f"  ({name}: not installed, skipped)", file=sys.stderr)
            continue
        out[name] = table[name]
    return out


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _norm(s: Any) -> str:
    return " ".join(words(str(s))) if s else ""


def _meta_hit(pred: Any, truth: Any, kind: str) -> bool | None:
    """Whether ``pred`` matches ``truth`` (None: no truth to compare with)."""
    if not truth:
        return None
    if not pred:
        return False
    if kind == "date":
        m = _DATE.search(str(pred))
        return m is not None and m.group(0) == str(truth)[:10]
    p, t = _norm(pred), _norm(truth)
    if kind == "author":
        return bool(p) and (p == t or p in t or t in p)
    return p == t


def _table(
    chosen: dict[str, Callable[[str], str]], rows: dict[str, list[tuple[str, str, Score, float]]]
) -> tuple[list[str], str]:
    """Markdown table lines (P, R, F1 overall and per page type, pages/s of CPU) and the counts."""
    first = rows[next(iter(chosen))]
    types = sorted({t for _, t, _, _ in first})
    # CPU time relative to trafilatura's on the same pages in the same run, when it ran: the
    # ratio, unlike pages/s, holds on a loaded machine.
    base = rows.get("trafilatura") if "trafilatura" in chosen else None
    base_cpu = sum(c for _, _, _, c in base) if base else 0.0
    ratio_head = " speed vs trafilatura |" if base_cpu else ""
    head = (
        "| method | P | R | F1 | " + " | ".join(f"F1 {t}" for t in types) + " | pages/s (CPU) |" + ratio_head
    )
    lines = [head, "|---" * (5 + len(types) + bool(base_cpu)) + "|"]
    for name in chosen:
        got = rows[name]
        overall = mean_scores([s for _, _, s, _ in got])
        per = [mean_scores([s for _, t, s, _ in got if t == ty]).f1 for ty in types]
        cpu = sum(c for _, _, _, c in got)
        rate = len(got) / cpu if cpu else float("inf")
        ratio = f" {base_cpu / cpu:.2f} |" if base_cpu and cpu else (" - |" if base_cpu else "")
        lines.append(
            f"| {name} | {overall.precision:.3f} | {overall.recall:.3f} | **{overall.f1:.3f}** | "
            + " | ".join(f"{v:.3f}" for v in per)
            + f" | {rate:,.0f} |"
            + ratio
        )
    counts = " · ".join(f"{t}: {sum(1 for _, x, _, _ in first if x == t)}" for t in types)
    return lines, counts


def run_method(name: str, fn: Callable[[str], str], num: str, html: str) -> str:
    """``fn(html)``; a method crashing on a page scores 0 there (reported, and "" returned)."""
    try:
        return fn(html)
    except Exception as exc:
        print(f"  {name} failed on {num}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return ""


def evaluate(args: argparse.Namespace) -> int:
    pages = load(args.quick, args.split)
    chosen = methods(args.methods.split(","))
    print(f"{len(pages)} pages ({args.split}), methods: {', '.join(chosen)}", flush=True)
    rows: dict[str, list[tuple[str, str, Score, float]]] = defaultdict(list)
    for num, html, truth in pages:
        gold = truth.get("main_content") or ""
        for name, fn in chosen.items():
            t0 = time.process_time()
            text = run_method(name, fn, num, html)
            cpu = time.process_time() - t0
            rows[name].append((num, truth["page_type"], word_score(text, gold), cpu))
    lines, counts = _table(chosen, rows)
    print(f"\nMain content, {len(pages)} pages ({counts})\n")
    print("\n".join(lines))
    from trawl.extract import _weights

    if args.split == "all" and _weights.FITTED_ON == "all":
        print(
            "\n(The classifier is fitted on all pages: for pages of unseen sites, see "
            "`python bench/extract_cv.py`, or refit with `train --split train` for a held-out table.)"
        )
    elif args.split == "all":
        # The same run restricted to the held-out pages (never seen by the classifier's fit).
        held = {name: [r for r in got if int(r[0]) % 3 == 0] for name, got in rows.items()}
        if held and held[next(iter(chosen))]:
            lines, counts = _table(chosen, held)
            n_held = len(held[next(iter(chosen))])
            print(f"\nHeld-out pages only, {n_held} pages ({counts})\n")
            print("\n".join(lines))
    if not args.no_meta:
        _metadata(pages)
    return 0


def _metadata(pages: list[tuple[str, str, dict[str, Any]]]) -> None:
    from trawl.extract import extract_metadata

    have_traf = _optional("trafilatura")
    tally: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    # Where the truth has no date, a date given is one too many (a guess scores nothing above).
    undated: dict[str, list[bool]] = defaultdict(list)
    for _, html, truth in pages:
        ours = extract_metadata(html)
        theirs: dict[str, Any] = {}
        if have_traf:
            import trafilatura

            doc = trafilatura.bare_extraction(html, with_metadata=True, only_with_metadata=False)
            if doc is not None:
                d = doc.as_dict() if hasattr(doc, "as_dict") else dict(doc)
                theirs = {"title": d.get("title"), "author": d.get("author"), "date": d.get("date")}
        for kind, key in (("title", "title"), ("author", "author"), ("date", "publish_date")):
            for who, pred in (("trawl", getattr(ours, kind)), ("trafilatura", theirs.get(kind))):
                hit = _meta_hit(pred, truth.get(key), kind)
                if hit is not None:
                    tally[who][kind].append(hit)
                elif kind == "date":
                    undated[who].append(bool(pred))
    print(
        "\n| metadata (accuracy where the truth has a value) | title | author | date "
        "| a date where the truth has none |\n|---|---:|---:|---:|---:|"
    )
    for who in ("trawl", "trafilatura"):
        if who == "trafilatura" and not have_traf:
            continue
        cells = []
        for kind in ("title", "author", "date"):
            hits = tally[who][kind]
            cells.append(f"{sum(hits) / len(hits):.3f} (n={len(hits)})" if hits else "-")
        given = undated[who]
        cells.append(f"{sum(given) / len(given):.3f} (n={len(given)})" if given else "-")
        print(f"| {who} | " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", nargs="?", default="eval", choices=["eval", "train"])
    parser.add_argument("--quick", type=int, metavar="N", help="only the first N pages")
    parser.add_argument("--split", default="all", choices=["all", "train", "heldout"])
    parser.add_argument(
        "--methods",
        default="trawl,trawl+meta,trawl-dom,trawl-bte,trawl-slope,trafilatura,resiliparse,justext,readability,"
        "boilerpy3",
    )
    parser.add_argument("--no-meta", action="store_true", help="skip the metadata comparison")
    parser.add_argument("--l2", type=float, default=0.66, help="(train) L2 penalty")
    parser.add_argument(
        "--f1-weight",
        type=float,
        default=F1_WEIGHT,
        help="(train) stage 2's weight on the expected page F1 against the log loss (0: log loss alone)",
    )
    args = parser.parse_args()
    return train(args) if args.command == "train" else evaluate(args)


if __name__ == "__main__":
    sys.exit(main())
