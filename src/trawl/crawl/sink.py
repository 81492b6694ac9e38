"""Where the crawler's responses go: the jobs it hands over, the outcomes it awaits, the protocol.

The crawler fetches; storing a response (the pipeline of ``trawl ingest``, then the collection's
writer) is somebody else's: a :class:`Sink`. The crawl job (:mod:`trawl.jobs.crawl`) gives it one
that runs the pipeline in worker processes (:class:`~trawl.jobs.storeproc.StoreWorker`) or in the
event loop itself (:class:`~trawl.jobs.storeproc.InLoopSink`); a crawl without a sink stores
nothing and reads each page's links itself.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from trawl.document import Link
from trawl.errors import DiskError

__all__ = ["Sink", "StoreJob", "StoreOutcome"]


@dataclass(slots=True)
class StoreJob:
    """One response for the collection.

    ``kind``: ``page`` (the whole pipeline, then the writer; links come back), ``links`` (a
    sitemap or feed: stored with the ``links`` the crawler parsed, no conversion), ``raw``
    (robots.txt, a 429/503: the pipeline and the writer, nothing comes back that matters) or
    ``unchanged`` (a revisit the server answered 304, or a HEAD whose validators had not changed:
    a WARC revisit record referring to the stored capture, and a new version of the row's capture
    cell; its text, language and links stay the capture's).
    """

    kind: str
    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    source: str
    fetched_at: datetime
    record_id: str
    ip: str | None = None
    truncated: bool = False
    request_headers: list[tuple[str, str]] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)  # for "links"; for "page": extra (a redirect)
    want_text: bool = False
    method: str = "GET"  # the request's, for its WARC request record
    #: for "page": the DOM headless Chromium built (trawl.crawl.render), converted instead of the
    #: body (which the WARC keeps as fetched) and kept as a WARC conversion record; ``render``
    #: says how (reason, seconds, requests, blocked, timed_out), stored in the page's metadata
    rendered: str | None = None
    render: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class StoreOutcome:
    stored: bool
    links: list[Link] = field(default_factory=list)
    nofollow: bool = False
    text: str = ""
    #: a digest of the page's stored text (its main content): what a revisit compares, so that a
    #: changed ad, counter or timestamp is not a change (empty: no text, compare the bytes)
    content: str = ""


class Sink(Protocol):
    """Takes :class:`StoreJob` s and answers each with a :class:`StoreOutcome` once it is stored."""

    #: Why the sink can take no more jobs (the crawl then stops), or None.
    failed: str | None
    #: The write the disk refused, when that was why (:mod:`trawl.store.disk`).
    fault: DiskError | None

    async def open(self) -> None:
        """Take the collection over for writing (after the crawler's recovery has read it)."""

    def submit(self, job: StoreJob) -> asyncio.Future[StoreOutcome]:
        """Store ``job``; the future is done once it is written (or has failed)."""
        ...

    async def close(self) -> None:
        """Wait for every job submitted, then release the collection."""
