"""Which language: one interface, the Cavnar & Trenkle identifier and the default one.

:class:`LanguageIdentifier` is the seam every identifier sits behind (trawl's own and the peers
in :mod:`trawl.langid.peers`): ``identify(text) -> LangResult``. Both of trawl's identifiers
share the handling of bad input, so that empty text, digits, emoji, URLs and code come out as
``und`` with a low score rather than as a confident wrong language:

* URLs, e-mail addresses and ``@handles`` are removed first (they are not in any language);
* fewer than :data:`MIN_LETTERS` letters left → ``und``, score 0;
* text that looks like program code (braces, ``==``, ``foo(``, ``snake_case``, tags) → ``und``.

The **default** identifier (:class:`DefaultIdentifier`):

1. the script cut (:mod:`trawl.langid.scripts`): only languages written in the text's main
   script are candidates; a script used by one language decides alone;
2. two experts rank the candidates (:meth:`DefaultIdentifier.scores`): the broad model
   (:mod:`trawl.langid.broad`, py3langid's naive Bayes trained on large real corpora, 139
   languages) and trawl's naive Bayes over n-grams 1–5 and words (:mod:`trawl.langid.naive_bayes`,
   trained on the UDHR, ~350 languages). Each gives log-probabilities, trawl's tempered by the
   number of features to the power :data:`OWN_TEMPER`; each is floored (:data:`BROAD_FLOOR`,
   :data:`OWN_FLOOR`: a language the expert does not know, or rates below the floor, gets the
   floor), so that neither can veto alone; the broad model's count :data:`BROAD_WEIGHT` times.
   trawl's count as much as its model has seen of the text (the gate, :data:`GATE_LOW` to
   :data:`GATE_HIGH` of the text's longer n-grams in its best language's training text: one
   document per language explains the UDHR and little conversation), and between two languages
   the broad model knows only :data:`KNOWN_SHRINK` of that. A language the broad model does not
   know — at all, or in the text's script (Cyrillic Azerbaijani, Jawi Malay, Latin Serbian:
   ``broad_unknown_scripts``, measured by ``_build``) — gets its best guess's log-probability
   less :data:`TAIL`.
   So the languages of the web are ranked by what was learnt from real text, while a language
   only trawl knows still wins when trawl's model has seen the text's words and is sure of it;
   py3langid's ``zxx`` (no linguistic content) winning makes the text ``und`` (``no-language``);
3. if the winner has close relatives (:data:`~trawl.langid.codes.RELATIVES`), the group's share is
   split by the broad model where it knows the group in the text's script (the relatives' pair
   models count :data:`PAIR_WEIGHT` times; a member it does not know there, such as Latin
   Serbian, at e^-:data:`TAIL` its best known relative, the pair models deciding between them),
   else by the discriminative pair models of the group (:mod:`trawl.langid.relatives`) with
   naive Bayes; when the runner-up keeps ≥ :data:`AMBIGUOUS_SHARE` of it the result names both
   in ``ambiguous``;
4. a text most of whose longer n-grams the winner never saw, or (from about 40 characters) that
   the winner's model explains far worse than held-out text of that language
   (:meth:`DefaultIdentifier.foreign`), is in no language the model knows: ``und``
   (``unsupported``), with the best guess among the alternatives;
5. the score is calibrated (:mod:`trawl.langid.calibration`): P(the label is right), from the
   margins, the length, the coverage, the broad model's probability, the gate and (for a
   language the broad model does not know) these again, fitted on held-out UDHR text and on the
   translated messages of gettext catalogs. When the relatives' pair models took part in the
   decision, it is at most what a calibrator fitted on that group's decisions alone gives
   (:meth:`DefaultIdentifier.group_score`).
"""

# ruff: noqa: RUF002 -- multilingual text, typographic dashes and math symbols are meant

from __future__ import annotations

import gzip
import json
import math
import re
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from trawl.langid.broad import NO_LANGUAGE, SCRIPTS, BroadModel, load_broad
from trawl.langid.calibration import Calibrator
from trawl.langid.cavnar import CavnarTrenkleModel
from trawl.langid.codes import _ISO1, UND
from trawl.langid.naive_bayes import Evidence, FloatArray, NaiveBayesModel
from trawl.langid.relatives import GroupModel
from trawl.langid.scripts import dominant_script, script_counts

__all__ = [
    "AMBIGUOUS_SHARE",
    "BROAD_FLOOR",
    "BROAD_WEIGHT",
    "LIKELIHOOD_FILE",
    "METHODS",
    "MIN_LETTERS",
    "MIXED_SCRIPTS",
    "OWN_FLOOR",
    "OWN_TEMPER",
    "PAIR_WEIGHT",
    "TAIL",
    "VOUCH",
    "WINNER_SCRIPT_SHARE",
    "CavnarTrenkleIdentifier",
    "DefaultIdentifier",
    "LangResult",
    "LanguageIdentifier",
    "clean_text",
    "get_identifier",
    "identify",
    "load_cavnar_trenkle",
    "load_likelihood",
    "load_naive_bayes",
    "load_shipped",
]

#: A text needs at least this many letters to be in a language at all.
MIN_LETTERS = 3
#: A close relative holding at least this share of the group's probability makes the result
#: explicitly ambiguous between the two.
AMBIGUOUS_SHARE = 0.25
#: Per language, the mean log-likelihood per feature of held-out text, and the floors below it
#: (written by ``python -m trawl.langid._build --likelihood-only``).
LIKELIHOOD_FILE = "likelihood.json.gz"
#: How the two experts are fused (:meth:`DefaultIdentifier.scores`). Chosen on a set neither
#: model nor trawl's tuning had seen, the translated messages of the system's gettext catalogs
#: (``bench/langid_real.py --set catalogs``: 116 languages either model knows, up to 200
#: messages each, mostly short), the long tail included. Weights 1-3, floors 4-6 and 8-12,
#: powers 0.3-0.7 and tail odds 1-4 first (issue 32's first session); then the gate and the
#: shrink below (its second): 66.9 -> 68.7 % right there. Reported, not fitted: Tatoeba and
#: the UDHR second halves (bench/langid_real.py, bench/langid.py).
BROAD_WEIGHT = 2.0
BROAD_FLOOR = 5.0
OWN_FLOOR = 10.0
OWN_TEMPER = 0.6
TAIL = 2.0
#: trawl's own model learnt each language from one document, the UDHR: where it has seen most of
#: a text's longer n-grams (coverage: the share of the text's 3-5-grams its best language's
#: training text holds) its evidence is worth having, where it has seen few (conversation, UI
#: strings, news) it is mostly noise. Its log-probabilities count ``w`` times, ``w`` rising
#: linearly from 0 at coverage :data:`GATE_LOW` to 1 at :data:`GATE_HIGH` (catalogs: 0.2-0.7
#: 68.0 %, 0.3-0.8 67.6, 0.4-0.9 66.9, ungated 66.9).
GATE_LOW = 0.2
GATE_HIGH = 0.7
#: Between two languages the broad model knows (in the text's script), trawl's model counts at
#: this share of its gated weight: the broad model learnt them from large real corpora, trawl's
#: from one document (catalogs: 1 -> 67.95 %, 0.5 -> 68.74, 0.25 -> 68.67, 0 -> 68.12). Against
#: a language only trawl knows it counts in full: that is what it is there for.
KNOWN_SHRINK = 0.5
#: Within a group of close relatives the broad model knows (in the text's script), the weight of
#: the pair models' log-probabilities beside its own, floored at :data:`BROAD_FLOOR` as in the
#: fusion. 0: the pair models are trained on the UDHR too (catalogs: 0 -> 68.74 %, 1 -> 68.67).
#: Where the broad model does not know a member (Latin Serbian, Cyrillic Bosnian), the pair
#: models decide with naive Bayes, as trawl's models alone do.
PAIR_WEIGHT = 0.0
#: The broad model's probability from which it vouches for a language trawl's own model finds
#: out of its experience (:meth:`DefaultIdentifier.vouched`).
VOUCH = 0.9
#: Texts up to this many characters are remembered by :meth:`DefaultIdentifier.identify`, at
#: most this many at a time.
CACHE_CHARS = 200
CACHE_SIZE = 4096
#: A text with less than this share of its letters in one script is mixed, and its winner's
#: scripts must hold at least :data:`WINNER_SCRIPT_SHARE` of them, or it is in no language.
MIXED_SCRIPTS = 0.6
WINNER_SCRIPT_SHARE = 0.4
#: How many of the best candidates :meth:`DefaultIdentifier.decide` looks at.
TOP = 8
#: The identifiers ``trawl langid --method`` and :func:`get_identifier` know.
METHODS = ("default", "cavnar-trenkle")

#: Scripts written without spaces: their "words" are whole clauses, so their longer n-grams are
#: rarely seen in training and coverage says nothing about whether the language is supported.
_UNSPACED = frozenset({"Han", "Kana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan", "Hangul", "Yi"})
_TOKEN = re.compile(r"[^\W_]+")  # runs of letters and digits
#: A text of this many tokens or more, fewer than this share of them words: a listing, no language.
LISTING_MIN_TOKENS = 3
LISTING_WORD_SHARE = 0.4
FRAGMENT_SHARE = 0.7
_WWW = re.compile(r"www\.", re.IGNORECASE)  # (with "@" and "://": whether _URL can match at all)
_LETTER = re.compile(r"[^\W\d_]")
#: :data:`MIN_LETTERS` letters, whatever lies between them (a search stops at the third)
_ENOUGH_LETTERS = re.compile(r"[^\W\d_]" + r"[\W\d_]*[^\W\d_]" * (MIN_LETTERS - 1))
_URL = re.compile(r"(?:https?://|ftp://|www\.)\S+|\S+@\S+\.\w+|(?<!\w)@\w+", re.IGNORECASE)
_CODE = re.compile(r"[{};]|==|!=|=>|->|::|&&|\|\||\b\w+\(|\b[a-z]+_[a-z_]+\b|</?\w+[^>]*>")


@dataclass(slots=True)
class LangResult:
    """The answer for one text.

    ``lang``: ISO 639-1 where one exists, else 639-3, or ``und``. ``score``: for a language,
    the calibrated probability that it is right; for ``und``, low (how likely the best guess
    would have been). ``alternatives``: the next candidates with their probabilities.
    ``ambiguous``: two close relatives the text does not tell apart (``lang`` is the first).
    ``reason``: why a text is ``und`` (``empty``, ``no-letters``, ``code``, ``no-language``
    (identifiers, numbers, a listing; or the broad model's "no linguistic content"), ``unknown-script``,
    ``unsupported``).
    """

    lang: str
    score: float
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    ambiguous: tuple[str, ...] = ()
    script: str | None = None
    reason: str | None = None
    method: str = "default"

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "lang": self.lang,
            "score": round(self.score, 4),
            "alternatives": [{"lang": lang, "score": round(s, 4)} for lang, s in self.alternatives],
        }
        if self.ambiguous:
            d["ambiguous"] = list(self.ambiguous)
        if self.script:
            d["script"] = self.script
        if self.reason:
            d["reason"] = self.reason
        d["method"] = self.method
        return d


class LanguageIdentifier(Protocol):
    """What every identifier offers: a name, its labels, and one text → one result."""

    name: str

    def languages(self) -> frozenset[str]:
        """The labels it can answer (ISO 639-1 where one exists, else 639-3)."""
        ...

    def identify(self, text: str) -> LangResult:
        """The language of ``text``; never raises on bad input (``und`` instead)."""
        ...


def clean_text(text: str) -> tuple[str, str | None]:
    """``text`` without URLs, addresses and handles, or a reason it is in no language."""
    if not text or not text.strip():
        return "", "empty"
    cleaned = _URL.sub(" ", text) if "@" in text or "://" in text or _WWW.search(text) else text
    if not _ENOUGH_LETTERS.search(cleaned):
        letters = len(_LETTER.findall(cleaned))
        if letters + sum(map(_syllabic, cleaned)) < MIN_LETTERS:
            return "", "no-letters"
    signals = len(_CODE.findall(cleaned))
    if signals >= 3 and signals * 4 >= len(cleaned.split()):
        return "", "code"
    if _listing(cleaned):
        return "", "no-language"
    return cleaned, None


def _syllabic(ch: str) -> bool:
    """A Han, Kana or Hangul letter: a syllable or a word in one character (two such are
    "谢谢", "你好": text, where two Latin letters are not), so it counts as two letters (the
    blocks' symbols, enclosed letters and Yijing signs do not)."""
    return (
        "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"
    ) and ch.isalpha()


def _listing(text: str) -> bool:
    """Tokens, not words: identifiers and numbers (``p0 p1 p2``, ``a1b2c3``, ``id=42 ts=17``,
    ``1 2 3 next last``), a few words repeated between numbers (``page 0 page 1 … page 9``), or
    Latin letters one at a time between signs (at least :data:`FRAGMENT_SHARE` of the tokens:
    the mojibake of a script in UTF-8 read as Latin-1; no text of Tatoeba, the UDHR or the
    catalogs has as many).
    Whether a text has at least :data:`LISTING_MIN_TOKENS` tokens with a letter or digit, of
    which fewer than :data:`LISTING_WORD_SHARE` are words of letters alone, or at least twice as
    many as that with no more than two distinct words among them."""
    tokens = _TOKEN.findall(text)
    if len(tokens) < LISTING_MIN_TOKENS:
        return False
    if sum(map(str.isalpha, tokens)) < LISTING_WORD_SHARE * len(tokens):
        return True
    if len(tokens) < 2 * LISTING_MIN_TOKENS:
        return False
    if (
        sum(len(t) == 1 for t in tokens) >= FRAGMENT_SHARE * len(tokens)
        and dominant_script(text)[0] == "Latin"
    ):
        return True  # letters one at a time between signs: UTF-8 read as Latin-1
    distinct = set(filter(str.isalpha, tokens))
    # (two words can be written a few ways: Page, page, PAGE; more than eight forms are more words)
    return len(distinct) <= 2 or (len(distinct) <= 8 and len({w.lower() for w in distinct}) <= 2)


# -- shipped data --------------------------------------------------------------------------------


def _read(name: str) -> bytes:
    return resources.files("trawl.langid").joinpath("data", name).read_bytes()


@cache
def load_shipped() -> dict[str, Any]:
    """The small shipped facts: scripts per label, group models, calibrators, thresholds."""
    data: dict[str, Any] = json.loads(gzip.decompress(_read("langid.json.gz")))
    return data


@cache
def load_naive_bayes() -> NaiveBayesModel:
    return NaiveBayesModel.from_bytes(_read("naive_bayes.npz"))


@cache
def load_likelihood() -> dict[str, Any]:
    """The out-of-model check's data (``{}`` when not shipped: no check)."""
    try:
        data: dict[str, Any] = json.loads(gzip.decompress(_read(LIKELIHOOD_FILE)))
    except FileNotFoundError:
        return {}
    return data


@cache
def load_cavnar_trenkle() -> CavnarTrenkleModel:
    profiles = json.loads(gzip.decompress(_read("cavnar_trenkle.json.gz")))
    return CavnarTrenkleModel(profiles)


def _und(reason: str, method: str, score: float = 0.0, alternatives: list[tuple[str, float]] | None = None,
         script: str | None = None) -> LangResult:  # fmt: skip
    return LangResult(UND, score, alternatives or [], script=script, reason=reason, method=method)


def _script_candidates(text: str, label_scripts: dict[str, list[str]]) -> tuple[str | None, set[str] | None]:
    """The text's main script and the labels written in it (None: no restriction)."""
    script, share = dominant_script(text)
    if script is None:
        return None, None
    if share < 0.6:  # mixed scripts: every label written in any of them
        present = set(script_counts(text))
        return script, {lab for lab, ss in label_scripts.items() if present & set(ss)}
    return script, {lab for lab, ss in label_scripts.items() if script in ss}


class Fusion(NamedTuple):
    """What :meth:`DefaultIdentifier.scores` finds in one text."""

    script: str | None
    candidates: set[str] | None
    evidence: Evidence
    scores: FloatArray
    broad: FloatArray | None
    #: how much trawl's own model counts (the gate, from its coverage of the text)
    weight: float
    #: the labels the broad model knows in the text's script (None: no broad model)
    known: np.ndarray[Any, np.dtype[np.bool_]] | None
    #: the best labels' indices, highest score first (ties by index), finite scores only
    top: npt.NDArray[np.int64]
    #: the share of the text's letters in its main script (1.0 when it has no letters)
    script_share: float = 1.0


class DefaultIdentifier:
    """Script cut → naive Bayes → relatives → unsupported check → calibrated score."""

    name = "default"

    def __init__(
        self,
        model: NaiveBayesModel | None = None,
        shipped: dict[str, Any] | None = None,
        likelihood: dict[str, Any] | None = None,
        broad: BroadModel | None = None,
        use_broad: bool = True,
    ) -> None:
        """``likelihood``: the out-of-model check's reference fits and floors (default: the
        shipped ones when ``model`` is the shipped model, else no such check). ``broad``: the
        first expert (default: py3langid's shipped model, when installed); ``use_broad=False``:
        trawl's own models alone."""
        if likelihood is None and model is None:
            likelihood = load_likelihood()
        self.model = model or load_naive_bayes()
        shipped = shipped if shipped is not None else load_shipped()
        self.label_scripts: dict[str, list[str]] = shipped["scripts"]
        self.groups = [GroupModel.from_json(g) for g in shipped.get("groups", [])]
        self.group_of = {label: g for g in self.groups for label in g.labels}
        # the fused identifier and trawl's models alone have calibrators of their own
        fused = use_broad and (broad or load_broad()) is not None
        calibration = shipped.get("calibration", {})
        cal = calibration.get("default" if fused else "own")
        self.calibrator = Calibrator(cal["weights"]) if cal else None
        self.group_calibrators: dict[str, Calibrator] = {}
        for key, gcal in calibration.get("groups" if fused else "own_groups", {}).items():
            for label in key.split():
                self.group_calibrators[label] = Calibrator(gcal["weights"])
        # Supported text sees more of its n-grams the longer it is; the per-band quantiles are
        # noisy, so the floors are made non-decreasing with length.
        self.coverage_floors: list[tuple[float, float]] = []
        highest = 0.0
        for upto, floor in shipped.get("min_coverage", {}).get("default", []):
            highest = max(highest, float(floor))
            self.coverage_floors.append((float(upto), highest))
        # naive Bayes' log-odds between relatives count too, for short texts only: there the pair
        # models often have no distinguishing feature at all, while over longer texts naive
        # Bayes adds up shared-content noise (the weight falls as 1/features past ``nb_features``)
        self.nb_weight: float = shipped.get("nb_weight_in_group", 0.0)
        self.nb_features: float = shipped.get("nb_features_in_group", 1e9)
        # Languages with an ISO 639-1 code are the ones written widely (and so met on the web far
        # more often than, say, Ladino beside Spanish or Pidgin beside English): a prior of
        # ``prior_major`` nats for them settles short texts that fit both.
        major = set(_ISO1.values())
        bonus = float(shipped.get("prior_major", 0.0))
        self.prior = np.array([bonus if label in major else 0.0 for label in self.model.labels])
        self.index = {label: i for i, label in enumerate(self.model.labels)}
        # the label space: trawl's model's labels, then those only the broad model knows
        self.broad = (broad or load_broad()) if use_broad else None
        own = list(self.model.labels)
        extra = [lab for lab in self.broad.labels if lab not in self.index] if self.broad else []
        self.labels: list[str] = own + extra
        self.all_index = {label: i for i, label in enumerate(self.labels)}
        self.n_own = len(own)
        for lab in extra:  # their scripts, for the script cut (zxx: every script)
            self.label_scripts = {**self.label_scripts, lab: list(SCRIPTS.get(lab, ()))}
        self._broad_pos = (
            np.array([self.all_index[lab] for lab in self.broad.labels], dtype=np.int64)
            if self.broad
            else None
        )
        self._no_language = self.all_index.get(NO_LANGUAGE, -1)
        likelihood = likelihood or {}
        self.fit_reference: dict[str, float] = likelihood.get("reference", {})
        self.fit_floors: list[tuple[float, float]] = [
            (float(u), float(f)) for u, f in likelihood.get("floors", [])
        ]
        self.fit_min_features: float = float(likelihood.get("min_features", 1e18))
        self._written_in: dict[str, set[str] | None] = {}
        self._cache: dict[str, LangResult] = {}
        self._mask_cache: dict[frozenset[str], np.ndarray[Any, np.dtype[np.bool_]]] = {}
        #: the scripts in which the broad model does not know a language of its own
        self.broad_unknown: dict[str, list[str]] = shipped.get("broad_unknown_scripts", {})
        self._known_cache: dict[str | None, np.ndarray[Any, np.dtype[np.bool_]]] = {}
        self._all = np.ones(len(self.labels), dtype=bool)
        #: the fusion in C (None: numpy's, the reference; TRAWL_PURE_PYTHON or no compiled module)
        self._fuse: Any = None
        if self.broad is not None and self.broad.kernel_status == "ready":
            try:
                from trawl.langid._nb import fuse  # noqa: PLC0415 -- optional compiled module

                self._fuse = fuse
            except ImportError:
                pass

    def languages(self) -> frozenset[str]:
        return frozenset(self.labels) - {NO_LANGUAGE}

    def warm(self) -> None:
        """Build what the first text would (the compiled vocabulary's hash table), so that a
        pipeline step pays it when it is made, not inside its first document."""
        self.model.kernel_status()

    def _floor(self, log_features: float) -> float:
        """The lowest coverage supported text of this length shows (0: no floor known)."""
        n = math.expm1(log_features)
        for upto, floor in self.coverage_floors:
            if n < upto:
                return floor
        return 0.0

    def foreign(self, best: str, fit: float, n: float) -> bool:
        """Whether ``best``'s model explains a text of ``n`` features far worse than it explains
        held-out text of its language: the mean log-likelihood per feature ``fit`` lies below
        that language's reference by more than held-out supported text of that length ever
        does (its 0.1 % quantile). Only texts of at least ``fit_min_features`` features."""
        ref = self.fit_reference.get(best)
        if ref is None or n < self.fit_min_features:
            return False
        for upto, floor in self.fit_floors:
            if n < upto:
                return fit - ref < floor
        return False

    def vouched(self, best: str, feats: list[float]) -> bool:
        """Whether the broad model, trained on real text of ``best``, is sure of it (its
        probability, a calibration feature, at least :data:`VOUCH`): then the text is in a
        supported language however little of it trawl's UDHR-trained model has seen."""
        return self.broad is not None and best in self.broad.index and len(feats) > 8 and feats[8] >= VOUCH

    def _mask(self, candidates: set[str]) -> np.ndarray[Any, np.dtype[np.bool_]]:
        key = frozenset(candidates)
        mask = self._mask_cache.get(key)
        if mask is None:
            mask = np.zeros(len(self.labels), dtype=bool)
            for label in candidates:
                i = self.all_index.get(label)
                if i is not None:
                    mask[i] = True
            if self._no_language >= 0:
                mask[self._no_language] = True
            self._mask_cache[key] = mask
        return mask

    def _known_in(self, script: str | None) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The labels the broad model knows in ``script``: all of its own, but a language it
        learnt in another script only (:data:`broad_unknown`: Cyrillic Azerbaijani, Jawi
        Malay, Latin Serbian, measured on the UDHR by ``_build``)."""
        mask = self._known_cache.get(script)
        if mask is None:
            mask = np.zeros(len(self.labels), dtype=bool)
            if self._broad_pos is not None:
                mask[self._broad_pos] = True
            for label, scripts in self.broad_unknown.items():
                if script in scripts and label in self.all_index:
                    mask[self.all_index[label]] = False
            self._known_cache[script] = mask
        return mask

    def scores(self, text: str) -> Fusion:
        """The first half of :meth:`decide`: the text's script and the candidate languages it
        leaves, trawl's naive-Bayes evidence, each language's score over :attr:`labels`
        (``-inf`` outside the candidates), the broad model's log-probabilities over its own
        labels (None without one), the gate's weight of trawl's model and which labels the broad
        model knows in the text's script. Without the broad model a score is naive Bayes'
        log-likelihood plus the prior; with it, the fusion of the module's docstring (step 2)."""
        script, script_share = dominant_script(text)
        if script is not None and script_share >= 0.6:  # the common case, cached per script
            candidates = self._written_in.get(script)
            if candidates is None:
                candidates = self._written_in[script] = _script_candidates(text, self.label_scripts)[1]
        else:
            script, candidates = _script_candidates(text, self.label_scripts)
        ev = self.model.evidence(text)
        own = ev.scores + self.prior
        mask = self._mask(candidates) if candidates is not None else None
        if mask is not None:
            own[~mask[: self.n_own]] = -np.inf
        if self.broad is None or self._broad_pos is None:
            order = np.argsort(-own, kind="stable")[:TOP]
            finite = order[np.isfinite(own[order])]
            return Fusion(script, candidates, ev, own, None, 1.0, None, finite, script_share)
        if self._fuse is not None:  # the same steps in C (trawl.langid._nb.fuse)
            broad_lp = self.broad.log_probs(text)
            in_script = self._known_in(script)
            scores = np.empty(len(self.labels))
            top = np.empty(TOP, dtype=np.int64)
            weight, filled = self._fuse(
                own, float(ev.n), ev.seen, float(ev.n_long), broad_lp, self._broad_pos,
                in_script.view(np.uint8), (mask if mask is not None else self._all).view(np.uint8),
                scores, top, OWN_FLOOR, OWN_TEMPER, BROAD_FLOOR, BROAD_WEIGHT, TAIL, GATE_LOW,
                GATE_HIGH, KNOWN_SHRINK,
            )  # fmt: skip
            return Fusion(
                script, candidates, ev, scores, broad_lp, weight, in_script, top[:filled], script_share
            )
        known = np.isfinite(own)
        part = np.full(len(self.labels), -OWN_FLOOR)  # languages trawl's model does not know: its floor
        weight = 1.0
        if known.any():
            tempered = own[known] / max(1.0, float(ev.n)) ** OWN_TEMPER
            tempered -= tempered.max()
            tempered -= math.log(float(np.exp(tempered).sum()))
            own_part = np.full(self.n_own, -np.inf)
            own_part[known] = np.maximum(tempered, -OWN_FLOOR)
            part[: self.n_own] = own_part
            if ev.n_long:  # the gate: how much of the text trawl's best language has seen
                coverage = float(ev.seen[int(np.argmax(own_part))]) / ev.n_long
                weight = min(1.0, max(0.0, (coverage - GATE_LOW) / (GATE_HIGH - GATE_LOW)))
        else:
            part[: self.n_own] = -np.inf
        if mask is not None:
            part[~mask] = -np.inf
        broad = self.broad.log_probs(text)
        # a language the broad model does not know (or not in this script) may be the text's at
        # e^-TAIL the odds of its best guess (a floor, were it a language it knows and rates low,
        # would all but rule out the long tail: on UDHR snippets of trawl's other 210 languages,
        # 46-78 % right, not 90-99)
        tail = max(float(broad.max()) - TAIL, -BROAD_FLOOR)
        support = np.full(len(self.labels), tail)
        support[self._broad_pos] = np.maximum(broad, -BROAD_FLOOR)
        in_script = self._known_in(script)
        support[~in_script] = tail
        # between languages the broad model knows, trawl's differences count KNOWN_SHRINK times
        both = in_script & np.isfinite(part)
        if both.any() and KNOWN_SHRINK != 1.0:
            best_part = float(part[both].max())
            part[both] = KNOWN_SHRINK * part[both] + (1.0 - KNOWN_SHRINK) * best_part
        # (outside the candidates part is -inf and so is the score: masked below, not 0 * -inf)
        scores = BROAD_WEIGHT * support + weight * np.maximum(part, -OWN_FLOOR)
        if mask is not None:
            scores[~mask] = -np.inf
        if not np.isfinite(part[: self.n_own]).any():
            scores[: self.n_own] = -np.inf
        order = np.argsort(-scores, kind="stable")[:TOP]
        return Fusion(
            script,
            candidates,
            ev,
            scores,
            broad,
            weight,
            in_script,
            order[np.isfinite(scores[order])],
            script_share,
        )

    def raw(self, text: str) -> tuple[str, list[float], list[tuple[str, float]], tuple[str, ...], str | None]:
        """The winner, its calibration features, the runners-up (with relative weights),
        any ambiguity, and the script; used by :meth:`identify` and to fit calibration."""
        return self.decide(text)[:5]

    def decide(
        self, text: str
    ) -> tuple[str, list[float], list[tuple[str, float]], tuple[str, ...], str | None, float]:
        """:meth:`raw` plus the winner's mean naive-Bayes log-likelihood per feature (how well
        its model explains the text, compared with held-out text of it by :meth:`foreign`)."""
        fused = self.scores(text)
        script, candidates, ev, scores, broad = fused[:5]
        labels = self.labels
        finite: list[int] = fused.top.tolist()
        if not finite:
            return UND, [], [], (), script, 0.0
        best = labels[finite[0]]
        group = self.group_of.get(best)
        in_group = [labels[i] for i in finite if group is not None and labels[i] in group.labels]
        p_in = 1.0
        by_pairs = False  # whether the relatives' pair models took part in the decision
        ranked: list[tuple[str, float]] = []
        ambiguous: tuple[str, ...] = ()
        if (
            group is not None
            and len(in_group) > 1
            and broad is not None
            and self.broad is not None
            and fused.known is not None
            and any(fused.known[self.all_index[lab]] for lab in in_group)
        ):  # the broad model knows the group in this script: its log-probabilities (and the pair
            # models', PAIR_WEIGHT times); a member it does not know in this script (Latin
            # Serbian) gets its best known relative's, and the pair models decide between them
            whole = all(fused.known[self.all_index[lab]] for lab in in_group)
            pair_weight = (PAIR_WEIGHT if whole else 1.0) * fused.weight
            by_pairs = pair_weight > 0.0
            probs = group.probabilities(text, in_group) if pair_weight else dict.fromkeys(in_group, 1.0)
            support = {
                lab: max(float(broad[self.broad.index[lab]]), -BROAD_FLOOR)
                for lab in in_group
                if fused.known[self.all_index[lab]]
            }
            top_known = max(support.values())
            logits = {
                lab: support.get(lab, top_known - TAIL) + pair_weight * math.log(max(probs[lab], 1e-12))
                for lab in in_group
            }
            peak = max(logits.values())
            weights = {lab: math.exp(v - peak) for lab, v in logits.items()}
            mass = sum(weights.values())
            share = sorted(((weights[lab] / mass, lab) for lab in in_group), reverse=True)
            best, p_in = share[0][1], share[0][0]
            ranked = [(lab, p) for p, lab in share[1:]]
            if share[1][0] >= AMBIGUOUS_SHARE:
                ambiguous = (best, share[1][1])
        elif group is not None and len(in_group) > 1:
            by_pairs = True
            probs = group.probabilities(text, in_group)
            # the group model's log-odds plus a share of naive Bayes' (both carry evidence)
            nb_top = max(float(scores[self.index[lab]]) for lab in in_group)
            nb_weight = self.nb_weight * min(1.0, self.nb_features / max(ev.n, 1))
            logits = {
                lab: math.log(max(probs[lab], 1e-12)) + nb_weight * (float(scores[self.index[lab]]) - nb_top)
                for lab in in_group
            }
            peak = max(logits.values())
            weights = {lab: math.exp(v - peak) for lab, v in logits.items()}
            mass = sum(weights.values())
            share = sorted(((weights[lab] / mass, lab) for lab in in_group), reverse=True)
            best, p_in = share[0][1], share[0][0]
            ranked = [(lab, p) for p, lab in share[1:]]
            if len(share) > 1 and share[1][0] >= AMBIGUOUS_SHARE:
                ambiguous = (best, share[1][1])
            else:  # the pair models alone see no decisive difference: still ambiguous
                mass_in = sum(probs[lab] for lab in in_group)
                rival = max((lab for lab in in_group if lab != best), key=lambda lab: probs[lab])
                if probs[rival] >= AMBIGUOUS_SHARE * mass_in:
                    ambiguous = (best, rival)
        mates = set(in_group) | {best}
        outside = [i for i in finite if labels[i] not in mates and labels[i] != NO_LANGUAGE]
        top = max(float(scores[self.all_index[lab]]) for lab in mates)
        margin = top - float(scores[outside[0]]) if outside else 60.0
        # naive Bayes counts overlapping n-grams as independent evidence, so its log-odds grow
        # with the text; tempered by the number of features, they rank the runners-up sensibly
        # (fused scores are log-probabilities already)
        temper = max(1.0, ev.n / 20.0) if broad is None else 1.0
        for i in outside[:3]:
            ranked.append((labels[i], math.exp(max(-60.0, (float(scores[i]) - top) / temper))))
        own_best = self.index.get(best)
        if fused.script_share < MIXED_SCRIPTS and best != NO_LANGUAGE:
            # letters of several scripts: the winner's must hold a fair share of them (random
            # characters, or a page's debris, are in no language)
            counts = script_counts(text)
            mine = set(self.label_scripts.get(best, ()))
            if sum(n for sc, n in counts.items() if sc in mine) < WINNER_SCRIPT_SHARE * sum(counts.values()):
                return NO_LANGUAGE, [], [], (), script, 0.0
        if ev.n_long and own_best is not None:
            coverage = float(ev.seen[own_best]) / ev.n_long
        elif ev.n_long and np.isfinite(scores[: self.n_own]).any():
            # a language only the broad model knows, in a script trawl's model has languages of:
            # how much of the text the best of those has seen (garbage and mojibake: little;
            # a Creole or a dialect beside its relatives: a fair share)
            coverage = float(ev.seen[np.isfinite(scores[: self.n_own])].max()) / ev.n_long
        else:
            coverage = 1.0  # a script trawl's model has no language in: no evidence either way
        single = 1.0 if candidates is not None and len(candidates) == 1 else 0.0
        feats = [
            1.0,
            min(margin, 60.0) / 10.0,
            math.sqrt(min(max(margin, 0.0), 400.0)),
            math.log(max(p_in, 1e-6)),
            math.log1p(ev.n),
            coverage,
            single,
            1.0 if by_pairs else 0.0,  # (the group calibrator caps these: group_score)
        ]
        if broad is not None and self.broad is not None:  # the broad model's probability of it
            at = self.broad.index.get(best)
            feats.append(math.exp(float(broad[at])) if at is not None else 0.0)
            feats.append(fused.weight)  # how much trawl's own model counted
            # a language the broad model does not know (here): its answers are trawl's model's,
            # right on text like the UDHR and seldom on other text, so the calibrator reads
            # the margin, length, coverage and gate again for them
            tail = 0.0 if fused.known is not None and fused.known[self.all_index[best]] else 1.0
            feats.extend((tail, tail * feats[1], tail * feats[4], tail * feats[5], tail * fused.weight))
        fit = float(ev.scores[own_best]) / max(ev.n, 1) if own_best is not None else 0.0
        return best, feats, ranked, ambiguous, script, fit

    @staticmethod
    def group_features(feats: list[float]) -> list[float]:
        """What a relatives group's calibrator reads: the pair models' log-odds for the winner
        (from its share of the group) and the number of features."""
        p_in = min(math.exp(feats[3]), 1.0 - 1e-9)
        return [1.0, feats[3] - math.log1p(-p_in), feats[4]]

    def group_score(self, best: str, feats: list[float]) -> float | None:
        """P(right) of a decision among relatives by their group's calibrator (None: the pair
        models did not decide, or the group has no calibrator)."""
        cal = self.group_calibrators.get(best)
        if cal is None or not feats[7]:
            return None
        return cal(self.group_features(feats))

    def identify(self, text: str) -> LangResult:
        """The language of ``text``. Short texts are remembered (:data:`CACHE_CHARS`,
        :data:`CACHE_SIZE`): a site's navigation and footer lines come back on every page, and
        each answer is a fresh copy."""
        if len(text) > CACHE_CHARS:
            return self._identify(text)
        hit = self._cache.get(text)
        if hit is None:
            hit = self._identify(text)
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()  # a generation at a time: cheaper than an LRU's bookkeeping
            self._cache[text] = hit
        return replace(hit, alternatives=list(hit.alternatives))

    def _identify(self, text: str) -> LangResult:
        cleaned, reason = clean_text(text)
        if reason is not None:
            return _und(reason, self.name)
        best, feats, ranked, ambiguous, script, fit = self.decide(cleaned)
        if best == UND:
            return _und("unknown-script", self.name, script=script)
        if best == NO_LANGUAGE:  # the broad model's class for numbers, markup, identifiers
            return _und("no-language", self.name, 0.0, script=script)
        # (a calibrator fitted before the in-group flag existed reads the first seven features)
        score = self.calibrator(feats[: len(self.calibrator.weights)]) if self.calibrator else 0.5
        capped = self.group_score(best, feats)
        if capped is not None:
            score = min(score, capped)
        alternatives = _spread(ranked, score)
        unseen = feats[5] < self._floor(feats[4]) and not feats[6] and script not in _UNSPACED
        if (unseen or self.foreign(best, fit, math.expm1(feats[4]))) and not self.vouched(best, feats):
            low = min(score, 0.1)
            scale = low / max(score, 1e-9)  # the guesses keep their order, none above ``low``
            guesses = [(best, low), *((lab, s * scale) for lab, s in alternatives[:2])]
            # (ordered by score to 12 places: equal scores in the last bits keep the winner first)
            return _und(
                "unsupported", self.name, low, sorted(guesses, key=lambda g: -round(g[1], 12)), script
            )
        return LangResult(best, score, alternatives, ambiguous, script, None, self.name)


def _spread(ranked: list[tuple[str, float]], score: float) -> list[tuple[str, float]]:
    """Share ``1 - score`` among the runners-up in proportion to their weights."""
    total = sum(w for _, w in ranked)
    if not ranked or total <= 0:
        return []
    rest = 1.0 - score
    alts = [(lab, min(rest * w / total, score)) for lab, w in ranked[:4]]
    return sorted(((lab, p) for lab, p in alts if p >= 0.0005), key=lambda a: -a[1])


class CavnarTrenkleIdentifier:
    """The 1994 method alone: smallest out-of-place distance wins (no script cut, no groups)."""

    name = "cavnar-trenkle"

    def __init__(
        self, model: CavnarTrenkleModel | None = None, shipped: dict[str, Any] | None = None
    ) -> None:
        self.model = model or load_cavnar_trenkle()
        shipped = shipped if shipped is not None else load_shipped()
        cal = shipped.get("calibration", {}).get("cavnar-trenkle")
        self.calibrator = Calibrator(cal["weights"]) if cal else None
        self.max_distance: float = shipped.get("max_distance", {}).get("cavnar-trenkle", 1.0)

    def languages(self) -> frozenset[str]:
        return frozenset(self.model.labels)

    def raw(self, text: str) -> tuple[str, list[float], list[tuple[str, float]]]:
        dist, n = self.model.distances(text)
        order = np.argsort(dist, kind="stable")
        d1, d2 = float(dist[order[0]]), float(dist[order[1]])
        rel = (d2 - d1) / max(d1, 1.0)
        nearness = d1 / (self.model.size * max(n, 1))  # 1.0: not one n-gram of the text in the profile
        feats = [1.0, rel * 10.0, math.sqrt(rel * 100.0), math.log1p(n), nearness]
        ranked = [
            (self.model.labels[i], math.exp(-(float(dist[i]) - d1) / max(d1, 1.0) * 50)) for i in order[1:4]
        ]
        return self.model.labels[order[0]], feats, ranked

    def identify(self, text: str) -> LangResult:
        cleaned, reason = clean_text(text)
        if reason is not None:
            return _und(reason, self.name)
        best, feats, ranked = self.raw(cleaned)
        score = self.calibrator(feats) if self.calibrator else 0.5
        if feats[4] > self.max_distance:
            low = min(score, 0.1)
            return _und("unsupported", self.name, low, [(best, low)])
        return LangResult(best, score, _spread(ranked, score), method=self.name)


@cache
def get_identifier(method: str = "default") -> LanguageIdentifier:
    """The identifier for ``method`` (one of :data:`METHODS`), loaded once per process."""
    if method == "default":
        return DefaultIdentifier()
    if method == "cavnar-trenkle":
        return CavnarTrenkleIdentifier()
    raise ValueError(f"unknown language identification method {method!r}; use one of {', '.join(METHODS)}")


def identify(text: str, method: str = "default") -> LangResult:
    """The language of ``text`` by ``method`` (see :class:`DefaultIdentifier`)."""
    return get_identifier(method).identify(text)
