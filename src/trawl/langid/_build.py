"""Regenerate the shipped language-identification data in ``trawl/langid/data/``.

Run ``python -m trawl.langid._build [UDHR_DIR]`` (default ``../shared/data/langid/udhr2`` from
the repository root); it takes a few minutes (``--floors-only`` recomputes just the coverage
floors of the unsupported-language check, ``--likelihood-only`` just the out-of-model check's
``likelihood.json.gz``). Only the *first half* of each translation is read
(NFC, whitespace collapsed; :mod:`trawl.langid.corpus`), so the second halves stay unseen test
text. Files with fewer than :data:`MIN_TRAIN` characters in their first half are left out.

1. Calibration models are trained on the first 80 % of every first half; snippets (5–500
   characters) of the remaining 20 % tune the relatives' regularisation, fit the calibrators and
   set the coverage below which a text counts as an unsupported language.
2. The shipped models are then trained on the whole first halves:
   ``cavnar_trenkle.json.gz`` (top-300 profiles), ``naive_bayes.npz`` (n-gram counts) and
   ``langid.json.gz`` (scripts per language, relatives' models, calibrators, thresholds).
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import gzip
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from trawl.langid.broad import NO_LANGUAGE, load_broad
from trawl.langid.calibration import Calibrator, expected_calibration_error
from trawl.langid.cavnar import CavnarTrenkleModel
from trawl.langid.codes import RELATIVES
from trawl.langid.corpus import DEFAULT_UDHR, Translation, load_catalogs, load_udhr, snippet
from trawl.langid.identify import LIKELIHOOD_FILE, CavnarTrenkleIdentifier, DefaultIdentifier, clean_text
from trawl.langid.naive_bayes import NaiveBayesModel
from trawl.langid.relatives import JAT, SERBIAN_LATIN, train_group
from trawl.langid.scripts import dominant_script, script_counts

__all__ = ["MIN_TRAIN", "build", "main"]

MIN_TRAIN = 300
DATA = Path(__file__).resolve().parent / "data"
HOLDOUT = 0.2
L2_CHOICES = (1.0, 3.0, 10.0)
#: Naive Bayes smoothing, chosen on the held-out 20 % (0.5 → 85 %, 0.1 → 88 % at 20 characters).
ALPHA = 0.1
#: Prior (nats) for languages with an ISO 639-1 code; see DefaultIdentifier. On the held-out
#: 20 % at 20 characters (relatives merged), 3 → 93.0 % of snippets of those languages and 90.7 %
#: of the others right, 5 → 93.6 % and 90.5 %: the web holds far more of the former.
PRIOR_MAJOR = 5.0
#: Share of naive Bayes' log-odds between relatives added to the pair models', and the number of
#: features up to which it is added in full (then it falls as 1/features). On the held-out 20 %
#: of the relatives' texts at 20 / 50 / 100 characters: none 68.4 / 88.3 / 94.4 %, 0.05 in full
#: 71.6 / 84.6 / 91.9 %, 0.05 up to 60 features 72.1 / 87.0 / 94.4 %.
NB_WEIGHT_IN_GROUP = 0.05
#: Weight of a held-out snippet of a language the broad model does not know when the default's
#: calibrator is fitted: every UDHR language has the same number of snippets, but on the web the
#: ~210 long-tail languages are together a small share, so an answer in a big language is right
#: far more often than on the UDHR. Chosen on the gettext catalogs (ECE 0.115 at 1, 0.070 at 0.1,
#: 0.075 at 0.03); Tatoeba 0.130 -> 0.071 (reported).
TAIL_WEIGHT = 0.1
NB_FEATURES_IN_GROUP = 60.0
#: Naive Bayes with one class per language *and script* (a language scores as its best class)
#: rather than one per language (where bs/sr/ms/uz… pool a Latin and a Cyrillic or Arabic file).
#: Off: on the held-out 20 % (relatives at 20 / 50 / 100 characters, 80 % pair models) it gave
#: 68.1 / 87.0 / 95.8 % against 67.5 / 86.8 / 95.4 % pooled, within noise, while on the benchmark
#: (second halves) the mean at 20 characters fell from 91.3 to 90.3 % (id→ms, hr→sr/bs: pooling
#: had been a de-facto prior for the single-file relative, which the tuned constants relied on).
PER_SCRIPT_CLASSES = False
#: Messages a label of the gettext catalogs (:func:`catalog_calibration_set`) the default's
#: calibrator is also fitted on.
CATALOG_MESSAGES = 200
#: Held-out snippets per text of a relatives group for its calibrator.
GROUP_SNIPPETS = 300
#: Upper edges (number of features: ~5 per character) of the length bands of the coverage floors.
COVERAGE_BANDS = (150.0, 300.0, 600.0, 1200.0, 1e9)
#: The out-of-model check (:meth:`DefaultIdentifier.foreign`) reads texts of at least this many
#: features (about 40 characters: shorter real snippets stray too far to tell), in these bands
#: of length, against this quantile of held-out supported text.
FIT_MIN_FEATURES = 200.0
FIT_BANDS = (400.0, 800.0, 1600.0, 1e9)
FIT_QUANTILE = 0.001
FIT_SHORT_MARGIN = 2.0


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def label_scripts(translations: list[Translation]) -> dict[str, list[str]]:
    """Scripts that hold ≥ 20 % of the letters of any of a label's texts."""
    out: dict[str, set[str]] = defaultdict(set)
    for t in translations:
        counts = script_counts(t.train)
        total = sum(counts.values()) or 1
        out[t.label].update(s for s, n in counts.items() if n / total >= 0.2)
    return {label: sorted(s) for label, s in sorted(out.items())}


def _by_label(translations: list[Translation], *, holdout: bool) -> dict[str, list[str]]:
    """Each label's training texts: whole first halves, or their first 80 % (``holdout``)."""
    texts: dict[str, list[str]] = defaultdict(list)
    for t in translations:
        cut = int(len(t.train) * (1 - HOLDOUT))
        texts[t.label].append(t.train[:cut] if holdout else t.train)
    return dict(texts)


def _by_class(
    translations: list[Translation], *, holdout: bool
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Naive Bayes' training texts, one class per language and script (``bs:Cyrillic``,
    ``bs:Latin``), and each class's language: see :mod:`trawl.langid.naive_bayes`."""
    texts: dict[str, list[str]] = defaultdict(list)
    label_of: dict[str, str] = {}
    for t in translations:
        cut = int(len(t.train) * (1 - HOLDOUT))
        key = f"{t.label}:{dominant_script(t.train)[0]}"
        texts[key].append(t.train[:cut] if holdout else t.train)
        label_of[key] = t.label
    return dict(texts), label_of


def _nb_texts(
    translations: list[Translation], *, holdout: bool
) -> tuple[dict[str, list[str]], dict[str, str] | None]:
    """Naive Bayes' classes: per language and script if :data:`PER_SCRIPT_CLASSES`."""
    if PER_SCRIPT_CLASSES:
        return _by_class(translations, holdout=holdout)
    return _by_label(translations, holdout=holdout), None


def _train_nb(translations: list[Translation], *, holdout: bool) -> NaiveBayesModel:
    texts, label_of = _nb_texts(translations, holdout=holdout)
    return NaiveBayesModel.train(texts, alpha=ALPHA, label_of=label_of)


def _translit(group: frozenset[str]) -> dict[str, str] | None:
    return SERBIAN_LATIN if "sr" in group else None


def _marker(group: frozenset[str]) -> str | None:
    return JAT if "sr" in group else None


def _tune_group(group: frozenset[str], fit: dict[str, list[str]], held: list[tuple[str, str]]) -> float:
    best, best_acc = L2_CHOICES[0], -1.0
    for l2 in L2_CHOICES:
        gm = train_group(
            {lab: fit[lab] for lab in group if lab in fit},
            snippets_per_text=500,
            l2=l2,
            translit=_translit(group),
            marker=_marker(group),
        )
        rng = random.Random(1)
        ok = n = 0
        for label, text in held:
            for length in (20, 100, 400):
                for _ in range(15):
                    p = gm.probabilities(snippet(text, length, rng))
                    ok += max(p, key=lambda k: p[k]) == label
                    n += 1
        acc = ok / max(n, 1)
        _log(f"  relatives {sorted(group)} l2={l2}: held-out accuracy {acc:.3f}")
        if acc > best_acc:
            best, best_acc = l2, acc
    return best


#: A language of the broad model counts as known in a script when it is the broad model's first
#: answer for at least this share of 100-character snippets of its UDHR text in that script.
BROAD_KNOWN_SHARE = 0.3
BROAD_KNOWN_SNIPPETS = 20


def broad_unknown_scripts(translations: list[Translation]) -> dict[str, list[str]]:
    """Per language of the broad model, the scripts in which it does not recognise the
    language's UDHR text (first halves): py3langid learnt Azerbaijani, Malay, Serbian... in one
    script, and its opinion of a Cyrillic Azerbaijani text is no evidence about Azerbaijani.
    In those scripts the fusion treats the language as one only trawl knows."""
    broad = load_broad()
    if broad is None:
        return {}
    hits: dict[tuple[str, str], list[float]] = defaultdict(list)
    for t in translations:
        script = dominant_script(t.train)[0]
        if t.label not in broad.index or script is None:
            continue
        rng = random.Random(0)
        top = [
            broad.labels[int(np.argmax(broad.log_probs(snippet(t.train, 100, rng))))] == t.label
            for _ in range(BROAD_KNOWN_SNIPPETS)
        ]
        hits[(t.label, script)].append(sum(top) / len(top))
    out: dict[str, list[str]] = defaultdict(list)
    for (label, script), shares in sorted(hits.items()):
        if max(shares) < BROAD_KNOWN_SHARE:
            out[label].append(script)
    _log(f"scripts the broad model does not know its languages in: {dict(out)}")
    return dict(out)


def _calibration_set(
    identifier: DefaultIdentifier | CavnarTrenkleIdentifier,
    held: list[tuple[str, str]],
    per_text: int,
    seed: int,
    labels: list[str] | None = None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[tuple[float, float]]]:
    """Calibration features and outcomes of snippets of ``held``; ``labels`` (when given) is
    filled with each row's true label."""
    labels = [] if labels is None else labels
    rng = random.Random(seed)
    xs: list[list[float]] = []
    ys: list[float] = []
    coverage: list[tuple[float, float]] = []
    labels.clear()
    for label, text in held:
        for _ in range(per_text):
            length = int(math.exp(rng.uniform(math.log(5), math.log(500))))
            s = snippet(text, length, rng)
            raw = identifier.raw(s)
            best, feats = raw[0], raw[1]
            if not feats:
                continue
            xs.append(feats)
            ys.append(1.0 if best == label else 0.0)
            labels.append(label)
            if length >= 20 and isinstance(identifier, DefaultIdentifier):
                if best == label:  # the winner's coverage of text of its own language
                    coverage.append((feats[5], math.expm1(feats[4])))  # coverage, number of features
            elif length >= 20:
                coverage.append((feats[4], 0.0))  # nearness
    return np.array(xs), np.array(ys), coverage


def catalog_calibration_set(
    identifier: DefaultIdentifier, per_label: int = CATALOG_MESSAGES, seed: int = 7
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[str]]:
    """Calibration features and outcomes of the translated messages of this machine's gettext
    catalogs (:func:`~trawl.langid.corpus.load_catalogs`), for the labels ``identifier`` knows:
    real short text of ~140 languages, unlike the UDHR's held-out snippets, which are of the very
    document trawl's model learnt from (on them trawl's model covers most of the text and is
    nearly always right; on real text it covers little, the gate gives it little weight and the
    answers are the broad model's). Empty when no catalogs are installed."""
    known = set(identifier.labels)
    xs: list[list[float]] = []
    ys: list[float] = []
    truth: list[str] = []
    for label, texts in sorted(load_catalogs(per_label, seed).items()):
        if label not in known:
            continue
        for text in texts:
            cleaned, reason = clean_text(text)
            if reason is not None:
                continue
            best, feats, *_ = identifier.raw(cleaned)
            if not feats or best == NO_LANGUAGE:
                continue
            xs.append(feats)
            ys.append(1.0 if best == label else 0.0)
            truth.append(label)
    _log(
        f"calibration: {len(ys)} catalog messages of {len(set(truth))} labels"
        + (f", accuracy {sum(ys) / len(ys):.3f}" if ys else " (no catalogs installed)")
    )
    return np.array(xs).reshape(len(xs), -1), np.array(ys), truth


def group_calibration(
    identifier: DefaultIdentifier, held: list[tuple[str, str]], per_text: int = GROUP_SNIPPETS, seed: int = 11
) -> dict[str, dict[str, Any]]:
    """A calibrator per relatives group, fitted on the held-out snippets of the group's
    languages whose answer the pair models decided: P(right | pair models' log-odds, length)."""
    out: dict[str, dict[str, Any]] = {}
    for group in RELATIVES:
        rng = random.Random(seed)
        xs: list[list[float]] = []
        ys: list[float] = []
        before: list[float] = []
        for label, text in held:
            if label not in group:
                continue
            for _ in range(per_text):
                length = int(math.exp(rng.uniform(math.log(5), math.log(500))))
                best, feats, *_ = identifier.raw(snippet(text, length, rng))
                if not feats or not feats[7] or best not in group:
                    continue
                xs.append(identifier.group_features(feats))
                ys.append(1.0 if best == label else 0.0)
                cal = identifier.calibrator
                before.append(cal(feats[: len(cal.weights)]) if cal else 0.5)
        if len(ys) < 50:
            continue
        x, y = np.array(xs), np.array(ys)
        gcal = Calibrator.fit(x, y)
        after = [min(b, gcal(row)) for b, row in zip(before, xs, strict=True)]
        right = (y > 0).tolist()
        ece0, _ = expected_calibration_error(before, right)
        ece1, _ = expected_calibration_error(after, right)
        _log(
            f"  group {' '.join(sorted(group))}: {len(ys)} pair-model decisions, accuracy {y.mean():.3f}, "
            f"ECE {ece0:.4f} -> {ece1:.4f} capped by the group calibrator"
        )
        out[" ".join(sorted(group))] = gcal.as_json()
    return out


def coverage_floors(pairs: list[tuple[float, float]], quantile: float = 0.005) -> list[list[float]]:
    """``[[up to n features, lowest coverage of supported text], …]``: the ``quantile`` of the
    winner's coverage of held-out supported snippets it identified right, per band of text
    length (short texts see fewer of their n-grams in any profile, so their floor is lower)."""
    floors: list[list[float]] = []
    lo, highest = 0.0, 0.0
    for hi in COVERAGE_BANDS:
        band = [c for c, n in pairs if lo <= n < hi]
        if band:  # non-decreasing with length, as DefaultIdentifier reads them
            highest = max(highest, round(float(np.quantile(band, quantile)), 4))
            floors.append([hi, highest])
        lo = hi
    return floors


def likelihood_fit(
    identifier: DefaultIdentifier, held: list[tuple[str, str]], per_text: int = 40, seed: int = 13
) -> dict[str, Any]:
    """The out-of-model check's data, from held-out snippets (30–500 characters) read by
    ``identifier`` (models that never saw them): per language the median mean log-likelihood
    per feature of its correctly identified snippets of ≥ 400 features (``reference``), and one
    floor for (fit − the winner's reference): the lowest over bands of text length of the
    :data:`FIT_QUANTILE` of the snippets identified right (text of the language whose
    model is asked; since the broad model decides most answers, a wrong winner's poor fit would
    loosen the floor). On held-out text longer snippets stray less, but the
    held-out 20 % shares its first half's wording; text on other topics (the second halves) keeps
    a shift that does not shrink with length (a per-band floor of −0.43 at 400 characters turned
    3 % of the quality gate's snippets into ``und``), so the loosest band sets it for all. Below
    ``FIT_BANDS[0]`` features that floor is multiplied by :data:`FIT_SHORT_MARGIN`: one unusual
    word moves a 50-character text's mean a long way, and real 50-character snippets on other
    topics stray past the held-out quantile (−1.1 cost 0.6 points of accuracy at 50 characters)."""
    rng = random.Random(seed)
    rows: list[tuple[str, str, int, float]] = []
    for label, text in held:
        for _ in range(per_text):
            length = int(math.exp(rng.uniform(math.log(30), math.log(500))))
            best, feats, *_, fit = identifier.decide(snippet(text, length, rng))
            if feats:
                rows.append((label, best, round(math.expm1(feats[4])), fit))
    own: dict[str, list[float]] = defaultdict(list)
    for label, best, n, fit in rows:
        if best == label and n >= 400:
            own[label].append(fit)
    reference = {label: round(float(np.median(v)), 4) for label, v in sorted(own.items())}
    per_band: list[list[float]] = []
    lo = FIT_MIN_FEATURES
    for hi in FIT_BANDS:
        band = [
            fit - reference[best]
            for label, best, n, fit in rows
            if lo <= n < hi and best == label and best in reference
        ]
        if band:
            per_band.append([hi, round(float(np.quantile(band, FIT_QUANTILE)), 4)])
        lo = hi
    floors = []
    if per_band:  # below FIT_BANDS[0] features (about 80 characters) the margin is doubled
        floors = [
            [FIT_BANDS[0], round(FIT_SHORT_MARGIN * per_band[0][1], 4)],
            [1e18, min(f for _, f in per_band)],
        ]
    _log(f"likelihood quantiles by length: {per_band} ({len(reference)} references, {len(rows)} snippets)")
    return {
        "min_features": FIT_MIN_FEATURES,
        "quantile": FIT_QUANTILE,
        "reference": reference,
        "floors": floors,
    }


def _write_likelihood(data: dict[str, Any], out: Path) -> None:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    (out / LIKELIHOOD_FILE).write_bytes(gzip.compress(text.encode(), 9, mtime=0))


def build(root: Path = DEFAULT_UDHR, out: Path = DATA) -> None:
    translations = [t for t in load_udhr(root) if len(t.train) >= MIN_TRAIN]
    _log(f"{len(translations)} translations, {len({t.label for t in translations})} labels")
    scripts = label_scripts(translations)
    fit = _by_label(translations, holdout=True)
    held = [(t.label, t.train[int(len(t.train) * (1 - HOLDOUT)) :]) for t in translations]

    _log("relatives: choosing regularisation on held-out text")
    l2 = {}
    for group in RELATIVES:
        l2[group] = _tune_group(group, fit, [(lab, txt) for lab, txt in held if lab in group])
    _log("calibration models (80 % of each first half)")
    nb80 = _train_nb(translations, holdout=True)
    groups80 = [
        train_group(
            {lab: fit[lab] for lab in g},
            snippets_per_text=800,
            l2=l2[g],
            translit=_translit(g),
            marker=_marker(g),
        )
        for g in RELATIVES
    ]
    unknown = broad_unknown_scripts(translations)
    shipped80: dict[str, Any] = {
        "scripts": scripts,
        "broad_unknown_scripts": unknown,
        "groups": [g.as_json() for g in groups80],
        "prior_major": PRIOR_MAJOR,
        "nb_weight_in_group": NB_WEIGHT_IN_GROUP,
        "nb_features_in_group": NB_FEATURES_IN_GROUP,
    }
    default80 = DefaultIdentifier(nb80, shipped80)
    own80 = DefaultIdentifier(nb80, shipped80, use_broad=False)  # trawl's models alone
    ct80 = CavnarTrenkleIdentifier(CavnarTrenkleModel.train(fit), shipped80)
    calibration = {}
    x, y, _ = _calibration_set(own80, held, 40, seed=7)
    own_cal = Calibrator.fit(x, y)
    _log(f"calibration own (no broad model): {len(y)} held-out snippets, accuracy {y.mean():.3f}")
    calibration["own"] = own_cal.as_json()
    own80.calibrator = own_cal
    calibration["own_groups"] = group_calibration(own80, held)
    broad_labels = set(default80.broad.labels) if default80.broad is not None else set()
    for name, ident in (("default", default80), ("cavnar-trenkle", ct80)):
        truth: list[str] = []
        x, y, coverage = _calibration_set(ident, held, 40, seed=7, labels=truth)
        weights = None
        if name == "default":  # and real short text: the translated messages of the catalogs
            xc, yc, truth_c = catalog_calibration_set(default80)
            if len(yc):
                x, y, truth = np.vstack([x, xc]), np.concatenate([y, yc]), truth + truth_c
        if name == "default" and broad_labels:  # the long tail as rare as it is on the web
            weights = np.array([1.0 if lab in broad_labels else TAIL_WEIGHT for lab in truth])
        cal = Calibrator.fit(x, y, weights=weights)
        p = np.array([cal(row) for row in x])
        ece, _ = expected_calibration_error(p.tolist(), (y > 0).tolist())
        _log(f"calibration {name}: {len(y)} held-out snippets, accuracy {y.mean():.3f}, ECE {ece:.4f}")
        calibration[name] = cal.as_json()
        if name == "default":
            default80.calibrator = cal
            calibration["groups"] = group_calibration(default80, held)
            likelihood = likelihood_fit(default80, held)
        cov = np.array([c for c, _ in coverage])
        if name == "default":
            floors = coverage_floors(coverage)
            _log(f"coverage floors by length: {floors}")
        else:
            max_dist = float(np.quantile(cov, 0.998))
            _log(f"nearness quantiles 50%/99%/99.9%: {np.quantile(cov, [0.5, 0.99, 0.999])}")

    _log("shipped models (whole first halves)")
    full = _by_label(translations, holdout=False)
    nb = _train_nb(translations, holdout=False)
    groups = [
        train_group(
            {lab: full[lab] for lab in g},
            snippets_per_text=1000,
            l2=l2[g],
            translit=_translit(g),
            marker=_marker(g),
        )
        for g in RELATIVES
    ]
    ct = CavnarTrenkleModel.train(full)
    out.mkdir(parents=True, exist_ok=True)
    (out / "naive_bayes.npz").write_bytes(nb.to_bytes())
    (out / "cavnar_trenkle.json.gz").write_bytes(
        gzip.compress(json.dumps(ct.profiles, ensure_ascii=False).encode(), 9, mtime=0)
    )
    meta = {
        "scripts": scripts,
        "broad_unknown_scripts": unknown,
        "groups": [g.as_json() for g in groups],
        "calibration": calibration,
        "prior_major": PRIOR_MAJOR,
        "nb_weight_in_group": NB_WEIGHT_IN_GROUP,
        "nb_features_in_group": NB_FEATURES_IN_GROUP,
        "min_coverage": {"default": floors},
        "max_distance": {"cavnar-trenkle": round(max_dist, 4)},
        "trained_on": {t.name: t.label for t in translations},
    }
    (out / "langid.json.gz").write_bytes(
        gzip.compress(json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode(), 9, mtime=0)
    )
    _write_likelihood(likelihood, out)
    for f in sorted(out.iterdir()):
        _log(f"wrote {f} ({f.stat().st_size:,} bytes)")


def refloor(root: Path = DEFAULT_UDHR, out: Path = DATA) -> None:
    """Recompute only the coverage floors in ``langid.json.gz`` (a minute, not a rebuild): naive
    Bayes on 80 % of each first half, with the shipped relatives, on the held-out 20 %."""
    translations = [t for t in load_udhr(root) if len(t.train) >= MIN_TRAIN]
    held = [(t.label, t.train[int(len(t.train) * (1 - HOLDOUT)) :]) for t in translations]
    meta = json.loads(gzip.decompress((out / "langid.json.gz").read_bytes()))
    meta["min_coverage"] = {"default": []}
    nb80 = _train_nb(translations, holdout=True)
    ident = DefaultIdentifier(nb80, meta)
    _, _, coverage = _calibration_set(ident, held, 40, seed=7)
    meta["min_coverage"] = {"default": coverage_floors(coverage)}
    _log(f"coverage floors by length: {meta['min_coverage']['default']}")
    (out / "langid.json.gz").write_bytes(
        gzip.compress(json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode(), 9, mtime=0)
    )


def refit_likelihood(root: Path = DEFAULT_UDHR, out: Path = DATA) -> None:
    """Recompute only the out-of-model check's data (a minute or two, not a rebuild): naive
    Bayes on 80 % of each first half, with the shipped relatives, on the held-out 20 %."""
    translations = [t for t in load_udhr(root) if len(t.train) >= MIN_TRAIN]
    held = [(t.label, t.train[int(len(t.train) * (1 - HOLDOUT)) :]) for t in translations]
    meta = json.loads(gzip.decompress((out / "langid.json.gz").read_bytes()))
    ident = DefaultIdentifier(_train_nb(translations, holdout=True), meta)
    _write_likelihood(likelihood_fit(ident, held), out)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--likelihood-only":
        refit_likelihood(Path(args[1]) if len(args) > 1 else DEFAULT_UDHR)
        return 0
    if args and args[0] == "--floors-only":
        refloor(Path(args[1]) if len(args) > 1 else DEFAULT_UDHR)
        return 0
    build(Path(args[0]) if args else DEFAULT_UDHR)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
