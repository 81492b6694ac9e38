"""Hints that a pipeline stage went wrong, read off the term statistics.

The most frequent terms of a collection are the cheapest audit an indexer has: an HTML entity
that survived extraction (``&nbsp;`` → ``nbsp``), text decoded with the wrong charset
(``cafÃ©``), or navigation text on every page of a site shows up as a term far more frequent
than language makes it. Three kinds of hint, each with the evidence:

- ``markup``: a term that is an HTML entity name or numeric reference (``lt``, ``amp``, ``nbsp``,
  ``quot``, ``x27``, ``8217``…) or markup/script vocabulary (``href``, ``div``, ``px``…), more
  frequent than natural text has it. Entity names and markup words are flagged from
  ``MIN_MARKUP_FREQUENCY`` occurrences on (numbers of references only in the top
  4 x ``AMBIGUOUS_TOP_RANK``); those that are also English (``class``, ``style``, ``copy``,
  ``times``) only when they rank in the top ``AMBIGUOUS_TOP_RANK``.
- ``encoding``: documents whose text holds mojibake sequences (UTF-8 read as Latin-1 or
  windows-1252: ``Ã©``, ``â€™``, ``Ð¿``; Big5 punctuation read as windows-1252: ``¡X``, ``¡¦``
  right after a letter, as in the 2005 inaugural address of the shared data) or U+FFFD
  replacement characters, counted per document with the sequences seen most.
- ``boilerplate``: a term in at least ``BOILERPLATE_SHARE`` of one host's documents (and at most
  twice per document on average, which sets navigation labels apart from function words), when
  the host has at least ``MIN_HOST_DOCUMENTS`` documents; where other hosts exist, the term must
  also be rarer there (under half of their documents). Occurrences per document are taken
  collection-wide (tf/df), which keeps the per-host state to one counter per candidate.

Bounds: per host, only the terms of its first ``CANDIDATE_DOCUMENTS`` documents are candidates
(a term in ≥ 90% of a host's pages is in one of its first three with near certainty), at most
``MAX_CANDIDATES`` of them, for at most ``MAX_HOSTS`` hosts; shares are measured on a host's first
``HOST_SAMPLE`` documents (enough to tell 90% from 50%, and it keeps a large host from costing a
set intersection per page for the whole run).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AMBIGUOUS_MARKUP",
    "ENTITY_TERMS",
    "MARKUP_TERMS",
    "BoilerplateTracker",
    "EncodingDamage",
    "markup_hint",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: HTML entity names that are not words, and numbers of common numeric references, as the
#: tokenizer leaves them (``&#8217;`` → ``8217``, ``&#x27;`` → ``x27``).
ENTITY_TERMS = _words(
    """
    nbsp amp lt gt quot apos mdash ndash hellip rsquo lsquo rdquo ldquo laquo raquo
    middot zwnj zwj lrm rlm ensp emsp thinsp plusmn iexcl iquest uml cedil eacute egrave
    aacute agrave oacute uuml ouml auml szlig ccedil ntilde x27 x22 x26 x3c x3e xa0 x2019
    x201c x201d 39 34 38 60 62 160 8211 8212 8216 8217 8220 8221 8226 8230
    """
)

#: Markup, style and script vocabulary that ordinary prose hardly ever uses.
MARKUP_TERMS = _words(
    """
    href div px rgba http https www html htm php asp jsp css js src img onclick onload
    javascript iframe tbody thead td tr ul br utf charset doctype xmlns viewbox svg png
    jpg jpeg gif webp ttf woff getelementbyid innerhtml typeof
    """
)

#: Entity names and markup words that are also English, flagged only near the top of the ranking.
AMBIGUOUS_MARKUP = _words(
    """
    class style table font color title content type width height margin padding border
    text body head meta link script function return new span em var alt null li ol nav
    copy reg trade bull shy deg times divide euro pound yen cent sect para acute
    """
)

MIN_MARKUP_FREQUENCY = 3
AMBIGUOUS_TOP_RANK = 50
BOILERPLATE_SHARE = 0.9
MIN_HOST_DOCUMENTS = 5
CANDIDATE_DOCUMENTS = 3
MAX_CANDIDATES = 5000
MAX_HOSTS = 2000
HOST_SAMPLE = 1000

# UTF-8 bytes read as Latin-1/windows-1252: a lead byte's character (Ã Â Å Ä Ð Ñ â ï ...) followed by a
# continuation byte's character (U+0080-U+00BF or the windows-1252 punctuation at 0x80-0x9F).
_MOJIBAKE = re.compile(
    "[\u00c2-\u00df][\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039"
    "\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178]"
    "|\u00e2\u20ac[\u0080-\u00bf\u2122\u0153\u201c\u201d\u2018\u2019\u00a6\u02dc]?"
    "|\u00ef\u00bb\u00bf|\ufffd"
    # Big5/GBK punctuation (lead byte 0xA1) read as windows-1252: "¡X", "¡¦", "¡§"... inside a word,
    # where Spanish never puts an inverted exclamation mark.
    "|(?<=[^\\W_])\u00a1[^\\s]"
)


def markup_hint(term: str, rank: int, frequency: int) -> str | None:
    """Why ``term`` looks like markup or an entity leftover, or None."""
    if frequency < MIN_MARKUP_FREQUENCY:
        return None
    if term in ENTITY_TERMS and not term.isdigit():
        return f"HTML entity name or reference (&{term};) left in the text"
    if term in ENTITY_TERMS and rank <= AMBIGUOUS_TOP_RANK * 4:
        return f"number of a common numeric character reference (&#{term};) ranked {rank}"
    if term in MARKUP_TERMS:
        return "markup, style or script vocabulary"
    if term in AMBIGUOUS_MARKUP and rank <= AMBIGUOUS_TOP_RANK:
        return f"markup word or entity name ranked {rank}, higher than prose ranks it"
    return None


@dataclass(slots=True)
class EncodingDamage:
    """Documents with mojibake or replacement characters, and the sequences seen most."""

    documents: int = 0
    replacement_chars: int = 0
    sequences: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def check(self, text: str, name: str) -> bool:
        """Look at one document's text; True when it shows damage."""
        if text.isascii():
            return False
        found = _MOJIBAKE.findall(text)
        if not found:
            return False
        self.documents += 1
        self.replacement_chars += found.count("\ufffd")
        if len(self.sequences) < 10_000:  # bounded: damage comes in few distinct shapes
            self.sequences.update(found)
        if len(self.examples) < 10:
            self.examples.append(name)
        return True

    def state(self) -> dict[str, Any]:
        """Everything seen, as JSON (a part of a sharded count, for :meth:`merge`)."""
        return {
            "documents": self.documents,
            "replacement_chars": self.replacement_chars,
            "sequences": dict(self.sequences),
            "examples": self.examples,
        }

    def merge(self, state: dict[str, Any]) -> None:
        """Add what a later part of the documents saw (:meth:`state`), as if read after these."""
        self.documents += int(state["documents"])
        self.replacement_chars += int(state["replacement_chars"])
        for seq, n in state["sequences"].items():
            if seq in self.sequences or len(self.sequences) < 10_000:
                self.sequences[seq] += int(n)
        self.examples = (self.examples + list(state["examples"]))[:10]

    def as_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "replacement_chars": self.replacement_chars,
            "top_sequences": [{"sequence": s, "count": c} for s, c in self.sequences.most_common(10)],
            "examples": self.examples,
        }


@dataclass(slots=True)
class _Host:
    documents: int = 0  # documents sampled (the first HOST_SAMPLE)
    unsampled: int = 0
    candidates: Counter[str] = field(default_factory=Counter)


class BoilerplateTracker:
    """Per-host document frequencies of candidate terms, in bounded memory (see module docstring)."""

    def __init__(self) -> None:
        self._hosts: dict[str, _Host] = {}
        self.untracked_documents = 0

    def add(self, host: str, distinct: set[str]) -> None:
        """Count one document of ``host`` by its set of distinct terms."""
        h = self._hosts.get(host)
        if h is None:
            if len(self._hosts) >= MAX_HOSTS:
                self.untracked_documents += 1
                return
            h = self._hosts[host] = _Host()
        if h.documents >= HOST_SAMPLE:
            h.unsampled += 1
            return
        h.documents += 1
        if h.documents <= CANDIDATE_DOCUMENTS:
            room = MAX_CANDIDATES - len(h.candidates)
            if room > 0:
                for term in distinct:
                    if term not in h.candidates:
                        h.candidates[term] = 0
                        room -= 1
                        if room <= 0:
                            break
        h.candidates.update(distinct.intersection(h.candidates))

    def state(self) -> dict[str, Any]:
        """Every host's sample, as JSON (a part of a sharded count, for :meth:`merge`)."""
        return {
            "untracked_documents": self.untracked_documents,
            "hosts": [
                [name, h.documents, h.unsampled, dict(h.candidates)] for name, h in self._hosts.items()
            ],
        }

    def merge(self, state: dict[str, Any]) -> None:
        """Add what a later part of the documents saw (:meth:`state`), as if read after these.

        Exact for hosts whose documents are all in one part (a sharded count cuts its parts at
        hosts where it can); a host in two parts gets the sum of both parts' samples, capped at
        ``HOST_SAMPLE`` documents, its candidates those of either part."""
        self.untracked_documents += int(state["untracked_documents"])
        for name, documents, unsampled, candidates in state["hosts"]:
            h = self._hosts.get(name)
            if h is None:
                if len(self._hosts) >= MAX_HOSTS:
                    self.untracked_documents += int(documents) + int(unsampled)
                    continue
                self._hosts[name] = _Host(int(documents), int(unsampled), Counter(candidates))
                continue  # a host new here (most hosts, all in one part): its sample as it is
            total = h.documents + int(documents)
            h.documents = min(total, HOST_SAMPLE)
            h.unsampled += int(unsampled) + total - h.documents
            for term, df in candidates.items():
                if term in h.candidates or len(h.candidates) < MAX_CANDIDATES:
                    h.candidates[term] += int(df)

    def qualified(self) -> set[str]:
        """Terms in at least ``BOILERPLATE_SHARE`` of some host's documents (before other tests)."""
        out: set[str] = set()
        for h in self._hosts.values():
            if h.documents >= MIN_HOST_DOCUMENTS:
                need = BOILERPLATE_SHARE * h.documents
                out.update(t for t, df in h.candidates.items() if df >= need)
        return out

    def hints(self, totals: Mapping[str, tuple[int, int]], limit: int = 50) -> list[dict[str, Any]]:
        """Terms in nearly every document of one host and rarer elsewhere, most widespread first.

        ``totals`` maps each :meth:`qualified` term to its collection-wide (tf, df).
        """
        out: list[dict[str, Any]] = []
        total_docs = sum(h.documents for h in self._hosts.values())
        for host, h in self._hosts.items():
            if h.documents < MIN_HOST_DOCUMENTS:
                continue
            others = total_docs - h.documents
            for term, df in h.candidates.items():
                share = df / h.documents
                if share < BOILERPLATE_SHARE:
                    continue
                tf_all, df_all = totals.get(term, (0, 0))
                per_doc = tf_all / df_all if df_all else 0.0
                if per_doc > 2.0:
                    continue
                elsewhere = None
                if others:
                    other_df = sum(
                        o.candidates.get(term, 0) for name, o in self._hosts.items() if name != host
                    )
                    elsewhere = other_df / others
                    if elsewhere >= 0.5:
                        continue
                out.append(
                    {
                        "kind": "boilerplate",
                        "term": term,
                        "host": host,
                        "host_documents": h.documents,
                        "share": round(share, 4),
                        "per_document": round(per_doc, 3),
                        "share_elsewhere": None if elsewhere is None else round(elsewhere, 4),
                        "reason": f"in {share:.0%} of the {h.documents} documents of {host}"
                        + (f" sampled (of {h.documents + h.unsampled})" if h.unsampled else ""),
                    }
                )
        out.sort(key=lambda d: (-d["share"], -d["host_documents"], d["term"]))
        return out[:limit]
