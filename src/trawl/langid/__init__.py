"""Language identification: which language a text, and each passage of a document, is in.

``identify(text)`` gives a :class:`LangResult` (ISO 639-1 label where one exists, else 639-3;
``und`` when the text is in no language the models know). Two identifiers ship, both trained on
the first halves of the UDHR translations and both offline:

* ``default`` — script cut, naive Bayes over character n-grams and words, discriminative models
  for close relatives, calibrated confidence (:class:`DefaultIdentifier`);
* ``cavnar-trenkle`` — the 1994 method exactly (:class:`CavnarTrenkleIdentifier`,
  :func:`~trawl.langid.cavnar.distance_table`).

:class:`LanguageTagger` is the pipeline step that fills ``Document.lang``, ``lang_score`` and
``passages``. Peers for the benchmark live in :mod:`trawl.langid.peers`.
"""

from __future__ import annotations

from trawl.langid.identify import (
    METHODS,
    CavnarTrenkleIdentifier,
    DefaultIdentifier,
    LangResult,
    LanguageIdentifier,
    get_identifier,
    identify,
)
from trawl.langid.passages import LanguageTagger, language_spans

__all__ = [
    "METHODS",
    "CavnarTrenkleIdentifier",
    "DefaultIdentifier",
    "LangResult",
    "LanguageIdentifier",
    "LanguageTagger",
    "get_identifier",
    "identify",
    "language_spans",
]
