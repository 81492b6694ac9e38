"""The one record type that flows through every trawl stage.

A source yields :class:`Document` records, each stage takes an iterator of them and yields them,
and a sink writes them. Each field group is filled by the stage that knows it, and says where it
came from (``encoding_source``, ``content_method``, ``errors``...), so that a document's journey can
be audited after the fact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, overload

from trawl.urls import surt

__all__ = ["TRANSIENT", "UNCHANGED", "Document", "LazyHeaders", "Link", "WarcPointer", "utcnow"]

#: The fields of :class:`Document` that exist only while a run handles it: ``body`` (the entity
#: body with its transfer and content codings undone; set by whichever stage needs it first),
#: ``markup`` (the decoded characters, set by :class:`~trawl.decode.charset.CharsetDecoder`) and
#: ``page`` (the parsed HTML page that :class:`~trawl.convert.html.HtmlConverter` built and the
#: main-content extractor reads) and ``rendered`` (the DOM headless Chromium built from the page,
#: :mod:`trawl.crawl.render`: the decoder hands it on as ``markup`` once the fetched bytes'
#: decoding is recorded). Each page is decoded once and parsed once; later stages read these
#: fields instead of redoing the work, and no stage passes anything through side channels.
TRANSIENT = ("body", "markup", "page", "rendered")

#: ``metadata`` key (never stored: it begins with ``_``) of a crawl's unchanged revisit (a 304, or
#: a HEAD whose validators had not changed), its value the request method: the collection writer
#: stores it as a WARC revisit record of the row's capture (profile server-not-modified).
UNCHANGED = "_unchanged"


def utcnow() -> datetime:
    """The current time, timezone-aware UTC, to the second (WARC-Date precision)."""
    return datetime.now(UTC).replace(microsecond=0)


Pair = tuple[str, str]


class LazyHeaders(Sequence[Pair]):
    """Header fields in order, as ``(name, value)`` pairs, made on first use.

    A reader that holds an already-parsed header block (FastWARC's header map) hands over a
    loader instead of the pairs: a dozen headers are ~40 Python objects, and a run that filters,
    counts or stores raw records never looks at them. Immutable; compares equal to any sequence
    of the same pairs (a list of tuples included), so it stands in for the list it replaces.
    """

    __slots__ = ("_load", "_pairs")

    def __init__(self, load: Callable[[], Iterable[Pair]]) -> None:
        self._load: Callable[[], Iterable[Pair]] | None = load
        self._pairs: tuple[Pair, ...] | None = None

    def _get(self) -> tuple[Pair, ...]:
        pairs = self._pairs
        if pairs is None:
            assert self._load is not None
            pairs = self._pairs = tuple(self._load())
            self._load = None  # let go of the source
        return pairs

    def __len__(self) -> int:
        return len(self._get())

    @overload
    def __getitem__(self, index: int) -> Pair: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Pair]: ...
    def __getitem__(self, index: int | slice) -> Pair | Sequence[Pair]:
        return self._get()[index]

    def __iter__(self) -> Iterator[Pair]:
        return iter(self._get())

    def __contains__(self, item: object) -> bool:
        return item in self._get()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyHeaders):
            return self._get() == other._get()
        if isinstance(other, (list, tuple)):
            return list(self._get()) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return repr(list(self._get()))

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (list(self._get()),)  # the loader may not be picklable: the pairs are


@dataclass(slots=True, frozen=True)
class WarcPointer:
    """Where one record lives: a WARC file, the offset of its (gzip member) start and its length.

    ``length`` is the number of bytes in the file (compressed bytes for a gzipped WARC), so that
    exactly one record can be read with one seek and one read.
    """

    file: str
    offset: int
    length: int

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "offset": self.offset, "length": self.length}


@dataclass(slots=True)
class Link:
    """A hyperlink found in a document: the absolute target URL and its anchor text."""

    url: str
    text: str = ""
    rel: str = ""

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"url": self.url, "text": self.text}
        if self.rel:
            d["rel"] = self.rel
        return d


@dataclass(slots=True)
class Document:
    """One captured document and everything trawl learned about it.

    ``raw`` is the payload exactly as captured: for an HTTP response, the entity body after the
    HTTP headers (still transfer/content-encoded if it was captured that way); for a resource or
    a local file, the bytes of the file. ``http_headers`` keeps the HTTP response headers in order
    (a list, or a :class:`LazyHeaders` that a reader fills on first use).
    """

    # identity
    url: str
    docno: str | None = None
    # capture
    fetched_at: datetime | None = None
    status: int | None = None
    http_headers: Sequence[Pair] = field(default_factory=list)
    raw: bytes = b""
    record_type: str = "response"
    record_id: str | None = None
    warc_headers: list[tuple[str, str]] = field(default_factory=list)
    source: str = ""  # where the record was read from: "file.warc.gz@1234", a path, a crawl id
    warc: WarcPointer | None = None  # where the record is stored in the collection
    # format
    declared_type: str | None = None
    sniffed_type: str | None = None
    type_mismatch: bool = False
    # decoding
    encoding: str | None = None
    encoding_source: str | None = None  # bom|http|meta|xml|nul-pattern|utf8-valid|detector|default
    decode_errors: int = 0
    mojibake: bool = False
    mojibake_score: float = 0.0  # 0..1, from trawl.decode.mojibake; ``mojibake`` is its verdict
    encoding_confidence: float | None = None  # 0..1: how sure decoding was of ``encoding``
    # content
    text: str = ""
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    content_span: tuple[int, int] | None = None
    content_score: float | None = None
    content_method: str | None = None
    # language
    lang: str | None = None
    lang_score: float | None = None
    passages: list[dict[str, Any]] = field(default_factory=list)
    # duplicates
    exact_hash: str | None = None
    simhash: int | None = None
    minhash: list[int] | None = None
    duplicate_of: str | None = None
    # audit
    dropped: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    # transient: what one stage hands the next within a run (see TRANSIENT); never stored,
    # pickled, compared or shown
    body: bytes | None = field(default=None, repr=False, compare=False)
    markup: str | None = field(default=None, repr=False, compare=False)
    page: Any = field(default=None, repr=False, compare=False)
    rendered: str | None = field(default=None, repr=False, compare=False)

    def release(self) -> None:
        """Let go of the transient fields (a sink calls this once the document is written)."""
        self.body = self.markup = self.page = self.rendered = None

    def __getstate__(self) -> dict[str, Any]:
        # Pickled between processes (the crawl's convert and store workers): the transient fields
        # stay behind; they can be recomputed from ``raw`` and are many times its size.
        return {name: getattr(self, name) for name in _PERSISTENT}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in TRANSIENT:
            setattr(self, name, None)
        for name, value in state.items():
            setattr(self, name, value)

    @property
    def id(self) -> str:
        """Stable identifier: a hash of the URL and the capture time (or DOCNO when there is one)."""
        when = self.fetched_at.isoformat() if self.fetched_at else ""
        key = f"{self.url}\x00{when}\x00{self.docno or ''}"
        return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    @property
    def surt(self) -> str:
        """The SURT form of the URL: host reversed, so a host's pages sort together."""
        return surt(self.url)

    def header(self, name: str, default: str | None = None) -> str | None:
        """The first HTTP response header called ``name`` (case-insensitive)."""
        lname = name.lower()
        for key, value in self.http_headers:
            if key.lower() == lname:
                return value
        return default

    @property
    def content_type(self) -> str | None:
        """The declared media type without parameters, lower-cased (``text/html``)."""
        value = self.declared_type or self.header("content-type")
        if not value:
            return None
        return value.split(";", 1)[0].strip().lower() or None

    def error(self, stage: str, exc: BaseException | str) -> None:
        """Record that ``stage`` failed on this document."""
        if isinstance(exc, BaseException):
            self.errors.append(f"{stage}: {type(exc).__name__}: {exc}")
        else:
            self.errors.append(f"{stage}: {exc}")

    def summary(self) -> dict[str, Any]:
        """The JSON-friendly view of everything but the raw bytes."""
        return {
            "id": self.id,
            "url": self.url,
            "surt": self.surt,
            "docno": self.docno,
            "fetched_at": self.fetched_at.isoformat() if self.fetched_at else None,
            "status": self.status,
            "record_type": self.record_type,
            "record_id": self.record_id,
            "source": self.source,
            "warc": self.warc.as_dict() if self.warc else None,
            "length": len(self.raw),
            "declared_type": self.declared_type,
            "sniffed_type": self.sniffed_type,
            "type_mismatch": self.type_mismatch,
            "encoding": self.encoding,
            "encoding_source": self.encoding_source,
            "encoding_confidence": self.encoding_confidence,
            "decode_errors": self.decode_errors,
            "mojibake": self.mojibake,
            "mojibake_score": self.mojibake_score,
            "title": self.title,
            "text": self.text,
            "metadata": self.metadata,
            "links": [link.as_dict() for link in self.links],
            "content_span": list(self.content_span) if self.content_span else None,
            "content_score": self.content_score,
            "content_method": self.content_method,
            "lang": self.lang,
            "lang_score": self.lang_score,
            "exact_hash": self.exact_hash,
            "duplicate_of": self.duplicate_of,
            "errors": self.errors,
        }


_PERSISTENT = tuple(f for f in Document.__dataclass_fields__ if f not in TRANSIENT)
