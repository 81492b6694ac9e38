"""The UDHR corpus as the models are trained and judged on it (development time only).

Each translation in ``udhr2`` is NFC-normalised, its whitespace collapsed, and split at the
space nearest its middle: the first half trains (profiles, model, calibration), the second half
is where test snippets come from, so no test text was ever seen in training. Nothing here is
needed to *identify* a language: the shipped model files hold everything the identifiers use.
"""

from __future__ import annotations

import gettext
import random
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trawl.langid.codes import label_for_file, to_iso639_1

__all__ = [
    "DEFAULT_LOCALE",
    "DEFAULT_TATOEBA",
    "DEFAULT_UDHR",
    "TATOEBA_BUCKETS",
    "Translation",
    "bucket_of",
    "load_catalogs",
    "load_tatoeba",
    "load_udhr",
    "mixed_documents",
    "snippet",
    "split_half",
]

#: Where the corpus lies in a development checkout (``../shared/data/langid/udhr2``).
DEFAULT_UDHR = Path(__file__).resolve().parents[4] / "shared" / "data" / "langid" / "udhr2"

#: The Tatoeba sentences (one file a label, one sentence a line; ``../shared/data/langid/tatoeba``).
DEFAULT_TATOEBA = DEFAULT_UDHR.parent / "tatoeba"
#: Length buckets (characters, upper bounds) Tatoeba results are reported in.
TATOEBA_BUCKETS = ((20, "<=20"), (50, "21-50"), (100, "51-100"), (10**9, ">100"))

#: The gettext message catalogs of the programs installed on a Debian-like system.
DEFAULT_LOCALE = Path("/usr/share/locale")

_SPACE = re.compile(r"\s+")
_FORMAT = re.compile(
    r"%(\([^)]*\))?[-+ #0-9.*]*[hlLqjzt]*[a-zA-Z%]|\{[^}]*\}|\$\{?\w+\}?|<[^>]+>|\\[nt]|`[^']*'"
    r"|--?[a-z][-a-z]*|[_&](?=\w)"
)


@dataclass(frozen=True, slots=True)
class Translation:
    """One UDHR file: its name (``srp_latn``), the label it trains (``sr``) and its two halves."""

    name: str
    label: str
    train: str
    test: str


def split_half(text: str) -> tuple[str, str]:
    """Split at the space nearest the middle (anywhere, for a text written without spaces)."""
    mid = len(text) // 2
    left, right = text.rfind(" ", 0, mid), text.find(" ", mid)
    candidates = [i for i in (left, right) if i > 0]
    cut = min(candidates, key=lambda i: abs(i - mid)) if candidates else mid
    if abs(cut - mid) > 200:
        cut = mid
    return text[:cut].strip(), text[cut:].strip()


def load_udhr(root: Path = DEFAULT_UDHR) -> list[Translation]:
    """Every labelled translation under ``root``, sorted by file name."""
    out = []
    for path in sorted(root.glob("*.txt")):
        label = label_for_file(path.stem)
        if label is None:
            continue
        text = unicodedata.normalize("NFC", path.read_text(encoding="utf-8"))
        text = _SPACE.sub(" ", text).strip()
        train, test = split_half(text)
        out.append(Translation(path.stem, label, train, test))
    return out


def snippet(text: str, length: int, rng: random.Random) -> str:
    """A snippet of whole words, at most ``length`` characters, from a random position.

    The start is the first word boundary at or after a random offset; words are taken while
    they fit. A text written without spaces (or whose next word is longer than ``length``, as
    in Japanese) gives ``length`` characters instead.
    """
    if len(text) <= length:
        return text
    start = rng.randrange(0, len(text) - length)
    if start and text[start - 1] != " ":
        nxt = text.find(" ", start)
        if 0 <= nxt < len(text) - length // 2:
            start = nxt + 1
    end = start + length
    if end >= len(text):
        return text[start:].strip()
    if text[end] == " ":
        return text[start:end].strip()
    cut = text.rfind(" ", start, end)
    following = text.find(" ", cut + 1)
    if cut <= start or (following if following >= 0 else len(text)) - cut - 1 > length:
        # no space, or the next "word" is longer than a snippet: a clause of a script written
        # without spaces (Japanese "第20条 すべて…"), which no snippet could hold whole
        return text[start:end].strip()
    return text[start:cut].strip()


def load_tatoeba(root: Path = DEFAULT_TATOEBA, per_label: int = 0, seed: int = 0) -> dict[str, list[str]]:
    """Tatoeba sentences by trawl label (the file name's part before ``_``, as ISO 639-1 where
    one exists: ``jpn_Hani`` and ``jpn_Kana`` are both ``ja``; ``zsm_Latn`` is ``ms``); with
    ``per_label``, a seeded sample of at most that many sentences a label."""
    out: dict[str, list[str]] = {}
    for path in sorted(root.glob("*.txt")):
        label = label_for_file(path.stem.split("_", 1)[0].lower())
        if label is None:
            continue
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out.setdefault(label, []).extend(lines)
    if per_label:
        rng = random.Random(seed)
        for label, lines in out.items():
            if len(lines) > per_label:
                out[label] = rng.sample(lines, per_label)
    return out


def bucket_of(text: str) -> str:
    """The Tatoeba length bucket of ``text`` (:data:`TATOEBA_BUCKETS`)."""
    n = len(text)
    return next(name for upto, name in TATOEBA_BUCKETS if n <= upto)


def load_catalogs(per_label: int = 200, seed: int = 0, root: Path = DEFAULT_LOCALE) -> dict[str, list[str]]:
    """Translated gettext messages by trawl label (labels with at least 50 distinct messages):
    UI strings of real programs, translated by people, in ``root/<lang>/LC_MESSAGES/*.mo``.
    Format specifiers, markup and accelerators are removed, a message equal to its English
    original is left out, and so are variant folders (``en@quot``, ``ca@valencia``; ``@latin``
    is kept). With ``per_label``, a seeded sample of at most that many a label. What is installed
    differs between machines: the set is this machine's."""
    found: dict[str, set[str]] = defaultdict(set)
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        name = folder.name
        if "@" in name and not name.endswith("@latin"):
            continue  # en@quot, en@shaw, ca@valencia...: variants of another folder's text
        base = name.split("@")[0].split("_")[0]
        if base == "en" or not base.isalpha():
            continue
        label = to_iso639_1(base) if len(base) == 3 else base
        for mo in folder.glob("LC_MESSAGES/*.mo"):
            try:
                with mo.open("rb") as fh:
                    catalog: dict[Any, Any] = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
            except (OSError, ValueError, LookupError):  # an unreadable catalog is left out
                continue
            for key, value in catalog.items():
                original = key[0] if isinstance(key, tuple) else key
                if not original or not isinstance(value, str) or value == original:
                    continue
                text = " ".join(_FORMAT.sub(" ", value).split())
                if sum(c.isalpha() for c in text) >= 3 and len(text) <= 400:
                    found[label].add(text)
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for label, texts in found.items():
        if len(texts) >= 50:
            ordered = sorted(texts)
            out[label] = rng.sample(ordered, min(per_label, len(ordered))) if per_label else ordered
    return out


def mixed_documents(
    texts: dict[str, list[str]], n: int, seed: int = 0, sentences: bool = False
) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """Documents of one to three languages for judging per-passage identification: each of
    2-5 paragraphs (1-5 lines) is in one of the document's languages, every language at least
    once. ``texts``: per label, long texts to cut snippets of 30-250 characters from (UDHR second
    halves), or with ``sentences`` short sentences of which a line joins 1-4. Returns each
    document's text and its truth, ``(start, end, label)`` per paragraph."""
    rng = random.Random(seed)
    labels = sorted(lab for lab, v in texts.items() if v)
    docs: list[tuple[str, list[tuple[int, int, str]]]] = []
    for _ in range(n):
        k = rng.choice([1, 2, 2, 3])
        langs = rng.sample(labels, k)
        text, truth = "", []
        for j in range(rng.randint(max(k, 2), 5)):
            lab = langs[j] if j < k else rng.choice(langs)
            lines = []
            for _ in range(rng.randint(1, 5)):
                if sentences:
                    lines.append(" ".join(rng.choice(texts[lab]) for _ in range(rng.randint(1, 4))))
                else:
                    lines.append(snippet(rng.choice(texts[lab]), rng.randint(30, 250), rng))
            start = len(text)
            text += "\n".join(lines) + "\n"
            truth.append((start, len(text), lab))
        docs.append((text, truth))
    return docs
