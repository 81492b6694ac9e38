"""The crawl loop: a dispatcher hands hosts whose turn it is to asyncio tasks, each fetches one
URL through the transport, runs the page through the pipeline into the collection and queues
the links it found.

Policies, in the order a URL meets them (each counts what it rejects as ``drop/<reason>``):

1. **Discovery filters** (:meth:`Crawler.admit`): normal form (:func:`normalize_url`), scope
   (hosts, domains, include/exclude regexes), traps (URL length, path depth, a path segment
   repeated, per-host page budget), shard ownership (``hash(host) mod N``, or a consistent-hash
   ring with ``partition = "ring"``; other shards' URLs are sent to them through a
   :class:`~trawl.crawl.route.Router`), depth limit, the seen set.
2. **robots.txt** (RFC 9309, :mod:`trawl.crawl.robots`), fetched before a host's first URL and
   cached for ``robots_ttl``; redirects followed up to five hops; 4xx allows all, 5xx and
   unreachable disallow all.
3. **Politeness**: one request in flight per host; after each answer the host waits
   ``max(min_delay, min(Crawl-delay, max_crawl_delay), delay_factor x response time)``;
   ``429``/``503`` with ``Retry-After`` (seconds or a date, capped) push the host back and the
   URL is retried (at most ``max_retries`` times). Faults (5xx, 429, timeouts, refused or reset
   connections) raise the host's back-off level, doubling its gap up to ``max_backoff``; each good
   answer lowers it a step; ``max_host_faults`` in a row give the host up for the run, its URLs
   left queued (docs/design.md, "Politeness under faults").
4. **Transport caps** (:mod:`trawl.crawl.transport`): timeouts, the body size cap while
   streaming, the content-type filter before the body.
5. **Redirects** are not followed inline: the target is queued as a new URL (so it meets every
   policy above, including its own host's politeness) with its hop count; beyond
   ``max_redirects`` hops it is dropped (``drop/redirect-limit``), and loops end in the seen set.
6. **Conditional GET** on revisits (``If-None-Match`` / ``If-Modified-Since``); ``304`` counts as
   unchanged. A host that ignores it but whose validators have proven true is checked with a
   ``HEAD`` first, the GET following only when they changed (:mod:`trawl.crawl.validators`).

Every response (robots.txt, sitemaps and 3xx included) goes to a :class:`~trawl.crawl.sink.Sink`,
which writes it to the collection's WARC and table, pages after the default pipeline (type
sniffing, decoding, conversion, main content, language) so their text and out-links are stored.
The crawl job's sink does that in worker processes (:mod:`trawl.jobs.storeproc`) while the loop
goes on fetching; a page's visit waits for its answer (the links, once the page is written) but lets its
host go as soon as the response is in, so politeness is timed from the response, not the parse.
Sitemaps and feeds add their URLs, bounded (``drop/sitemap-too-*``, ``drop/feed-too-*``), with
their hints: priority and lastmod order the frontier and seed the revisit prior, a lastmod newer
than a capture sends the page back to the queue, a feed is polled again in every crawl, new
entries first (:mod:`trawl.crawl.discovery`); in revisit mode each page is queued again at an interval set
from its estimated Poisson change rate (:mod:`trawl.crawl.revisit`); with focus terms the links
are ordered by a topic score (:mod:`trawl.crawl.focus`); with ``websub`` a feed that names a hub
is subscribed to and its pushed entries are admitted as a poll's new ones (:mod:`trawl.crawl.websub`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import html
import importlib
import math
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urljoin, urlsplit

from trawl.config import CrawlConfig
from trawl.crawl.discovery import (
    CHANGEFREQ_RATE,
    FeedInfo,
    SitemapEntry,
    feed_poll_interval,
    is_feed,
    lastmod_rate,
    next_poll,
    parse_feed,
    parse_sitemap,
)
from trawl.crawl.focus import RELEVANT, TopicModel, read_examples
from trawl.crawl.frontier import DONE, DROPPED, REVISIT, Entry, Frontier, Host
from trawl.crawl.http11 import HttpTransport
from trawl.crawl.private import load_private_sites
from trawl.crawl.render import (
    RENDER_MODES,
    HostVerdicts,
    Rendered,
    Renderer,
    RenderUnavailable,
    entity,
    gained,
    render_signal,
)
from trawl.crawl.revisit import POLICIES, ChangeHistory, estimate_rate, policy_frequencies, revisit_interval
from trawl.crawl.robots import MAX_ROBOTS_BYTES, RobotsRules
from trawl.crawl.route import FileRouter, Router
from trawl.crawl.sink import Sink, StoreJob, StoreOutcome
from trawl.crawl.transport import AiohttpTransport, FetchError, FetchRequest, FetchResponse, Transport
from trawl.crawl.urlnorm import HashRing, host_of, normalize_url, shard_of, url_key
from trawl.crawl.validators import ValidatorTrust, same_validators
from trawl.crawl.warcreq import new_record_id
from trawl.crawl.websub import Subscriber, Subscription, parse_listen
from trawl.document import Link
from trawl.errors import ConfigError, DiskError, StoreError
from trawl.pipeline.base import RunContext
from trawl.pipeline.stats import Stats
from trawl.store.disk import counter

__all__ = ["PARTITIONS", "TRANSPORTS", "CrawlResult", "CrawlSettings", "Crawler", "Progress", "extract_links"]

TRANSPORTS = ("http", "aiohttp")


class PageLease(Protocol):
    """Pages a shard may fetch, granted by its coordinator (``jobs.crawl_cluster.PageBudget``):
    ``limit`` (the crawl's pages so far included), ``final`` once no more will come, and
    ``wanted``, set when the shard needs more."""

    limit: int
    final: bool
    wanted: bool

    def release(self, used: int) -> None:
        """The shard has nothing to do: the pages above ``used`` go back to the coordinator."""


PARTITIONS = ("mod", "ring")  # how hosts are dealt to shards: hash mod N, or a consistent-hash ring

DEFAULT_TYPES = (
    "text/html",
    "application/xhtml+xml",
    "text/plain",
    "text/xml",
    "application/xml",
    "application/rss+xml",
    "application/atom+xml",
    "application/pdf",
    "application/msword",
    "application/vnd.openxmlformats-officedocument",
    "application/vnd.oasis.opendocument",
    "application/x-gzip",
    "application/gzip",
)


_FORM = re.compile(rb"<form\b", re.IGNORECASE)
_SCRIPT_TAG = re.compile(rb"<script\b", re.IGNORECASE)
_WEIGHT_FUNCTION = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def _robots_target(url: str) -> str:
    """What robots.txt rules match against: the URL's path and query ("/" for none)."""
    split = urlsplit(url)
    return (split.path + ("?" + split.query if split.query else "")) or "/"


def load_weight_function(spec: str) -> Callable[[str], float]:
    """The user's importance function ``MODULE:FUNCTION`` (a page's URL -> a positive weight),
    imported; :class:`ConfigError` says why it cannot be used."""
    module_name, _, name = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in name.split("."):
            target = getattr(target, part)
    except Exception as exc:  # ImportError, AttributeError, or the module's own error
        raise ConfigError(
            f"crawl: policy_weights = {spec!r} cannot be loaded: {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(target):
        raise ConfigError(f"crawl: policy_weights = {spec!r} is not a function")
    fn: Callable[[str], float] = target
    return fn


@dataclass(slots=True)
class CrawlSettings:
    """Every knob of a crawl, with the defaults ``trawl crawl`` uses."""

    user_agent: str = "trawl/0.1 (+https://github.com/trawl/trawl)"
    agent_token: str = "trawl"
    concurrency: int = 64
    min_delay: float = 1.0
    delay_factor: float = 2.0
    max_crawl_delay: float = 10.0
    max_retry_after: float = 120.0
    max_retries: int = 2
    # a host's faults (5xx, 429, timeouts, refused or reset connections): the gap after the n-th
    # in a row is at least max(min_delay, backoff_base) x 2^n, up to max_backoff, and halves again
    # with each answer that is not a fault; after max_host_faults in a row (0: never) the host is
    # given up for the run, its URLs left queued for the next (--resume)
    backoff_base: float = 1.0
    max_backoff: float = 120.0
    max_host_faults: int = 10
    connect_timeout: float = 10.0
    read_timeout: float = 15.0
    total_timeout: float = 60.0
    max_body_bytes: int = 10 << 20
    accept_types: tuple[str, ...] = DEFAULT_TYPES
    max_redirects: int = 5
    max_pages: int | None = None
    max_depth: int | None = None
    max_seconds: float | None = None
    max_bytes: int | None = None
    max_pages_per_host: int = 2000
    max_path_depth: int = 12
    max_segment_repeat: int = 2
    max_url_length: int = 1024
    hosts: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    robots: bool = True
    robots_ttl: float = 86400.0
    sitemaps: bool = True
    max_sitemap_depth: int = 2
    max_sitemap_bytes: int = 50 << 20  # decompressed; the sitemap protocol's limit
    max_sitemap_urls: int = 50000  # URLs (or child sitemaps) read from one sitemap
    feeds: bool = True
    max_feed_bytes: int = 10 << 20  # decompressed
    max_feed_entries: int = 1000  # entries read from one feed
    conditional: bool = True
    # HEAD before GET on a revisit, where a host ignores conditional GET and its validators
    # have told the truth on its last ``head_trust`` revisits; every ``head_audit``-th such
    # check is a full GET all the same (0: never), so the trust is earned again
    head_checks: bool = True
    head_trust: int = 3
    head_audit: int = 10
    revisit: bool = False
    revisit_min: float = 60.0
    revisit_max: float = 86400.0
    # "adaptive": each page by its own estimated rate (revisit_interval); "uniform",
    # "proportional", "optimal": the whole set of pages under ``budget`` revisits a second
    policy: str = "adaptive"
    budget: float = 0.0
    # what "optimal" optimises: "freshness" (it gives up on pages changing faster than it can
    # follow) or "age" (Cho & Garcia-Molina's expected age, which visits them too)
    policy_metric: str = "freshness"
    # importance weights of the budgeted policies: "none", "inlinks" (1 + log of the in-links the
    # crawl has seen) or "sitemap" (a sitemap's <priority>, 0.5 when absent)
    policy_weights: str = "none"
    focus: tuple[str, ...] = ()
    focus_examples: str = ""  # a folder of example pages of the topic
    focus_threshold: float = 0.0  # links scoring below it are not followed (pruned)...
    focus_tunnel: int = 2  # ...once this many off-topic pages in a row led to them
    private_sites: str = ""  # a TOML file of per-host headers, cookies, basic auth (crawl.private)
    # fetch from loopback, private, link-local, multicast... addresses (crawl.addresses); a
    # --resolve rule's address is allowed either way
    allow_private: bool = False
    # pages only scripts show (crawl.render): "never", "auto" (the pages and hosts that need it)
    # or "always" (every HTML page), in headless Chromium with its own caps
    render: str = "never"
    render_browser: str = ""  # a path or command; empty: chromium, chromium-browser, google-chrome
    render_timeout: float = 15.0  # seconds a page has to load and settle
    render_max_requests: int = 60  # sub-requests a page may make (scripts, XHR)
    render_max_bytes: int = 8 << 20  # bytes of sub-requests a page may fetch
    render_memory_mb: int = 1024  # the browser is restarted above this resident size (0: no cap)
    render_concurrency: int = 2  # pages rendered at once
    render_min_links: int = 3  # auto: fewer links than this beside a script is a sign
    shard: int = 0
    shards: int = 1
    # which shard owns a host: "mod" (hash mod shards) or "ring" (consistent hashing: a shard
    # more moves about 1/shards of the hosts; crawl.urlnorm.HashRing)
    partition: str = "mod"
    route_interval: float = 0.5  # seconds between two looks at what other shards sent
    resolve: tuple[str, ...] = ()
    store: bool = True  # False: fetch and extract links only (benchmarks)
    transport: str = "http"  # "http": trawl's own HTTP/1.1 client (crawl/http11.py); "aiohttp"
    # 2: convert and store in two worker processes; 1: both in one; 0: in the event loop
    store_workers: int = 2
    # push feeds (crawl.websub): subscribe at the hub a feed names; the hubs call back on
    # websub_listen (HOST:PORT; port 0: any), reached at websub_public_url (empty: http://listen)
    websub: bool = False
    websub_listen: str = "127.0.0.1:0"
    websub_public_url: str = ""
    websub_lease: float = 86400.0  # hub.lease_seconds asked for; renewed at 80 % of the granted
    websub_max_bytes: int = 1 << 20  # a pushed body (a larger one is refused: websub/too-large)
    websub_max_subscriptions: int = 1000

    @classmethod
    def from_config(cls, cfg: CrawlConfig, **changes: Any) -> CrawlSettings:
        """The settings ``[crawl]`` gives (see ``defaults.toml``), with ``changes`` on top."""
        values: dict[str, Any] = {}
        for name in cls.__dataclass_fields__:
            if not hasattr(cfg, name):
                continue
            value = getattr(cfg, name)
            if isinstance(value, list):
                value = tuple(value)
            if name in ("max_pages", "max_bytes") and value == 0:
                value = None
            if name == "max_seconds" and value == 0:
                value = None
            if name == "max_depth" and value < 0:
                value = None
            values[name] = value
        values.update(changes)
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """Every setting, JSON-ready (what a crawl saves beside its frontier)."""
        return {
            name: (list(v) if isinstance(v, tuple) else v) for name, v in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CrawlSettings:
        """Settings saved by :meth:`as_dict`; names this version does not know are ignored."""
        known = cls.__dataclass_fields__
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known
        }
        return cls(**values)

    def check(self) -> None:
        if not 0.0 <= self.focus_threshold <= 1.0:
            raise ConfigError(f"crawl: focus_threshold is a score from 0 to 1, not {self.focus_threshold}")
        if self.focus_examples and not Path(self.focus_examples).is_dir():
            raise ConfigError(
                f"crawl: focus_examples {self.focus_examples!r} is not a folder of example pages"
            )
        if min(self.max_sitemap_bytes, self.max_sitemap_urls, self.max_feed_bytes, self.max_feed_entries) < 1:
            raise ConfigError(
                "crawl: max_sitemap_bytes, max_sitemap_urls, max_feed_bytes and max_feed_entries must be "
                "at least 1"
            )
        if self.max_sitemap_depth < 0 or self.head_trust < 1 or self.head_audit < 0:
            raise ConfigError(
                "crawl: max_sitemap_depth and head_audit cannot be negative, head_trust must be at least 1"
            )
        if self.concurrency < 1:
            raise ConfigError(f"crawl: concurrency must be at least 1, not {self.concurrency}")
        if not 0 <= self.shard < self.shards:
            raise ConfigError(
                f"crawl: shard {self.shard}/{self.shards} is out of range; use i/N with 0 <= i < N"
            )
        if self.partition not in PARTITIONS:
            raise ConfigError(f"crawl: partition is {' or '.join(PARTITIONS)}, not {self.partition!r}")
        if not self.route_interval > 0:
            raise ConfigError(f"crawl: route_interval must be positive seconds, not {self.route_interval}")
        if self.min_delay < 0 or self.delay_factor < 0:
            raise ConfigError("crawl: delays cannot be negative")
        if self.backoff_base <= 0 or self.max_backoff < 0 or self.max_host_faults < 0:
            raise ConfigError(
                f"crawl: backoff_base must be positive (not {self.backoff_base}), max_backoff and "
                f"max_host_faults not negative (not {self.max_backoff}, {self.max_host_faults})"
            )
        if self.store_workers not in (0, 1, 2):
            raise ConfigError(f"crawl: store workers must be 0, 1 or 2, not {self.store_workers}")
        if self.transport not in TRANSPORTS:
            raise ConfigError(
                f"crawl: unknown transport {self.transport!r}; choose one of {', '.join(TRANSPORTS)}"
            )
        if self.render not in RENDER_MODES:
            raise ConfigError(f"crawl: render is {', '.join(RENDER_MODES)}, not {self.render!r}")
        if (
            self.render_timeout <= 0
            or self.render_max_requests < 0
            or self.render_max_bytes < 0
            or self.render_memory_mb < 0
            or self.render_concurrency < 1
            or self.render_min_links < 0
        ):
            raise ConfigError(
                "crawl: render_timeout must be positive, render_concurrency at least 1, and "
                "render_max_requests, render_max_bytes, render_memory_mb, render_min_links not negative"
            )
        if self.policy_metric not in ("freshness", "age"):
            raise ConfigError(f"crawl: policy_metric is freshness or age, not {self.policy_metric!r}")
        if self.policy_weights not in ("none", "inlinks", "sitemap") and not _WEIGHT_FUNCTION.fullmatch(
            self.policy_weights
        ):
            raise ConfigError(
                "crawl: policy_weights is none, inlinks, sitemap or MODULE:FUNCTION (a function of "
                f"a page's URL giving its importance), not {self.policy_weights!r}"
            )
        if self.websub:
            parse_listen(self.websub_listen)  # ConfigError naming the setting
            if self.websub_lease < 1 or self.websub_max_bytes < 1 or self.websub_max_subscriptions < 1:
                raise ConfigError(
                    "crawl: websub_lease, websub_max_bytes and websub_max_subscriptions must be at least 1"
                )
            if self.websub_public_url and urlsplit(self.websub_public_url).scheme not in ("http", "https"):
                raise ConfigError(
                    f"crawl: websub_public_url {self.websub_public_url!r} is not an http(s) URL "
                    "(how hubs reach websub_listen, e.g. 'https://crawler.example.org/hooks')"
                )
        if self.policy not in ("adaptive", *POLICIES):
            raise ConfigError(
                f"crawl: unknown revisit policy {self.policy!r}; choose adaptive, {', '.join(POLICIES)}"
            )
        if self.budget < 0 or (self.policy != "adaptive" and self.budget == 0):
            raise ConfigError(
                f"crawl: the {self.policy} revisit policy needs a positive budget (revisits a second), "
                f"not {self.budget}"
            )


@dataclass(slots=True)
class Progress:
    """A snapshot for a live display."""

    pages: int
    requests: int
    seconds: float
    queued: int
    hosts_active: int
    hosts_waiting: int
    bytes: int
    statuses: dict[str, int]
    #: with a topic: the share of judged pages on it (None without one)
    harvest: float | None = None

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else 0.0


@dataclass(slots=True)
class CrawlResult:
    run: str
    stats: Stats
    seconds: float
    pages: int
    frontier: dict[str, int]
    per_host: dict[str, dict[str, int]] = field(default_factory=dict)
    stopped: str = "done"
    refused_seeds: list[tuple[str, str]] = field(default_factory=list)  # (seed, why)
    #: why the crawl could not go on storing (``stopped == "store-failed"``): every URL not
    #: stored stays queued for ``--resume``
    failure: str = ""
    #: the write the disk refused, when that was why (full, over quota, read-only, failing)
    fault: DiskError | None = None


# ``<a ... href=...>text`` up to the next ``<a`` or ``</a>``, over the raw bytes: one compiled
# pattern instead of an HTML parse (the fetch-only mode's link extraction; the full pipeline
# parses the page with lexbor anyway and takes its links from there).
_A_RE = re.compile(
    rb"""<a\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))[^>]*>([^<]*(?:<(?!/?a[\s>])[^<]*)*)""",
    re.IGNORECASE,
)
_TAG_RE = re.compile(rb"<[^>]*>")
_SPACE_RE = re.compile(r"\s+")


def extract_links(body: bytes, base: str) -> list[Link]:
    """Links of an HTML body for the fetch-only mode: ``<a href>`` resolved against ``base``,
    with their anchor text (tags removed, entities decoded, spaces collapsed)."""
    out = []
    slash = base.find("/", base.find("//") + 2)
    origin = base[:slash] if slash >= 0 else base
    for m in _A_RE.finditer(body):
        raw = m.group(1) or m.group(2) or m.group(3) or b""
        href = raw.decode("utf-8", "replace").strip()
        if not href or href[0] == "#":
            continue
        if "&" in href:
            href = html.unescape(href)
        if href.startswith(("http://", "https://")):
            url = href
        elif href[0] == "/" and not href.startswith("//") and "/." not in href:
            url = origin + href  # the common root-relative link, without urljoin's general parse
        else:
            url = urljoin(base, href)
        text_b = m.group(4)
        if b"<" in text_b:
            text_b = _TAG_RE.sub(b" ", text_b)
        text = text_b.decode("utf-8", "replace")
        if "&" in text:
            text = html.unescape(text)
        out.append(Link(url, _SPACE_RE.sub(" ", text).strip()))
    return out


#: new feed entries go ahead of every page found by links (breadth-first priorities are below 0),
#: after the seeds (10)
FEED_ENTRY_PRIORITY = 9.0
#: a date this far past the server's own "now" is a clock that is off, not a hint
_FUTURE_SLACK = 86400.0
#: the longest age a lastmod prior believes (older pages are taken to change yearly)
_MAX_LASTMOD_AGE = 365 * 86400.0


def _recency(age: float) -> float:
    """The frontier bonus of a URL its sitemap or feed dates ``age`` seconds before it was read:
    newest first among URLs of equal priority, and by less than a sitemap priority step (0.1 of
    ``<priority>`` is 0.2 of frontier priority), so it orders only what is otherwise equal."""
    return 0.19 / (1.0 + max(0.0, age) / 86400.0)


def _http_time(value: str | None) -> float | None:
    """Seconds since the epoch of an HTTP date (``Last-Modified``, ``Date``), or ``None``."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _server_now(resp: FetchResponse) -> float:
    """The server's "now" for a response (its ``Date`` header, else ours): what the dates it
    gives (a sitemap's lastmod, a feed's pubDate) are ages against."""
    return _http_time(resp.header("Date")) or time.time()


def _retry_after(value: str | None, cap: float) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return min(cap, float(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: year 20299999999994
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return min(cap, max(0.0, (when - datetime.now(UTC)).total_seconds()))


class Crawler:
    """One crawl (one shard of one): see the module docstring."""

    def __init__(
        self,
        settings: CrawlSettings,
        frontier: Frontier,
        *,
        ctx: RunContext | None = None,
        transport: Transport | None = None,
        recover: Callable[[Entry, str], list[Link] | None] | None = None,
        inbox_dir: Path | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        sink: Sink | None = None,
        router: Router | None = None,
        budget: PageLease | None = None,
    ) -> None:
        settings.check()
        self.settings = settings
        #: a shard's lease of pages under a crawl in shards' --max-pages (jobs.crawl_cluster)
        self.budget = budget
        self.frontier = frontier
        self.ctx = ctx or RunContext()
        self.stats = self.ctx.stats
        self.transport = transport
        self._own_transport = transport is None
        self.recover_fn = recover
        self.inbox_dir = inbox_dir
        #: how other shards' URLs leave and this shard's arrive (inbox_dir: files, as before)
        self.router: Router | None = router
        if router is None and inbox_dir is not None:
            self.router = FileRouter(inbox_dir, settings.shard, frontier, self.stats)
        self._owner: Callable[[str], int] = (
            HashRing(settings.shards).owner
            if settings.partition == "ring"
            else lambda host: shard_of(host, settings.shards)
        )
        self._said_idle = False  # told the router this shard is idle (and not since that it is not)
        self.on_progress = on_progress
        #: per-host headers, cookies and basic auth for private sites (never logged; withheld
        #: from the WARC request records unless a site says otherwise)
        self.private = load_private_sites(settings.private_sites) if settings.private_sites else None
        #: headless Chromium for pages only scripts show (started on the first page that needs it)
        self.renderer: Renderer | None = None
        self._render_verdicts = HostVerdicts()
        if settings.render != "never":
            self.renderer = Renderer(
                self._render_fetch,
                stats=self.stats,
                refuse=self._render_refuse,
                gap=lambda host: self._politeness_delay(self.frontier.host(host), 0.0),
                browser=settings.render_browser,
                timeout=settings.render_timeout,
                max_requests=settings.render_max_requests,
                max_bytes=settings.render_max_bytes,
                memory_mb=settings.render_memory_mb,
                concurrency=settings.render_concurrency,
                user_agent=settings.user_agent,
            )
        self.focus: TopicModel | None = None
        #: frontier key -> off-topic pages in a row before it (focused crawls; forgotten once
        #: fetched, and on --resume, which only makes pruning more lenient)
        self._tunnel: dict[int, int] = {}
        #: importance for the budgeted revisit policies: in-links seen, a sitemap's <priority>
        self._inlinks: dict[int, int] = {}
        self._importance: dict[int, float] = {}
        #: the user's importance function (policy_weights = "MODULE:FUNCTION") and its answers
        self._weigh: Callable[[str], float] | None = None
        self._user_weights: dict[int, float] = {}
        if _WEIGHT_FUNCTION.fullmatch(settings.policy_weights):
            self._weigh = load_weight_function(settings.policy_weights)
        if settings.focus or settings.focus_examples:
            examples = read_examples(Path(settings.focus_examples)) if settings.focus_examples else []
            try:
                self.focus = TopicModel(settings.focus, examples)
            except ValueError as exc:  # no term and no example page with words
                raise ConfigError(
                    f"crawl: {exc} (--focus TERM… or --focus-examples DIR of pages with text)"
                ) from exc
        self._include = [re.compile(p) for p in settings.include]
        self._exclude = [re.compile(p) for p in settings.exclude]
        self._hosts = {h.lower() for h in settings.hosts}
        self._domains = tuple(d.lower().lstrip(".") for d in settings.domains)
        self.per_host: dict[str, Counter[str]] = {}
        self.pages_total = sum(h.fetched for h in frontier.hosts.values())
        if budget is not None:  # a lease counts on top of what the crawl fetched before
            budget.limit += self.pages_total
        self.pages_run = 0
        self.bytes_run = 0
        self.requests = 0
        self._wake = asyncio.Event()
        self._stop: str | None = None
        self._disk_fault: DiskError | None = None  # the frontier's disk refused a commit
        self._t0 = 0.0
        self._source_prefix = f"crawl:{frontier.crawl_id}"
        self._norm_cache: dict[str, tuple[str | None, int]] = {}
        self._refusal = ""  # why admit() last refused a URL (for seeds)
        self._fetching = 0  # page fetches in flight
        #: the monitor's view (trawl.crawl.live): the last fetches (time, URL, status, bytes, ms),
        #: and whether new fetches wait (pause); status 0 is a fetch that got no answer
        self.recent: deque[tuple[float, str, int, int, float]] = deque(maxlen=50)
        self.paused = False
        self._contents: dict[int, str] = {}  # a page's main-content digest, from its store to its schedule
        # revisit policies under a budget: each scheduled page's rate, and the solved frequencies
        self._rates: dict[int, float] = {}
        self._frequencies: dict[int, float] = {}
        self._solved_for, self._solved_at = 0, 0.0
        self._sitemap_hints: dict[str, SitemapEntry] = {}  # a URL's sitemap entry, until admitted
        self._feed_rules: dict[int, FeedInfo] = {}  # a feed's skipHours/skipDays, from its last read
        self._validators: dict[str, ValidatorTrust] = {}  # host -> what its validators have shown
        self.refused_seeds: list[tuple[str, str]] = []
        self._held: dict[str, int] = {}  # host -> the visit that still holds its turn
        self._visits = 0
        self.sink = sink
        #: push feeds: subscriptions at the hubs feeds name, and the server they call back
        self.websub: Subscriber | None = None
        if settings.websub:
            self.websub = Subscriber(
                on_feed=self._admit_pushed,
                ctx=self.ctx,
                listen=settings.websub_listen,
                public_url=settings.websub_public_url,
                lease=settings.websub_lease,
                max_bytes=settings.websub_max_bytes,
                max_entries=settings.max_feed_entries,
                max_subscriptions=settings.websub_max_subscriptions,
            )

    # -- admission -------------------------------------------------------------------------------

    def _in_scope(self, url: str, host: str) -> str | None:
        name = host.split(":", 1)[0]
        if self._hosts and name not in self._hosts:
            return "scope/host"
        if self._domains and not any(name == d or name.endswith("." + d) for d in self._domains):
            return "scope/domain"
        if self._include and not any(p.search(url) for p in self._include):
            return "scope/include"
        if self._exclude and any(p.search(url) for p in self._exclude):
            return "scope/exclude"
        return None

    def _trap(self, url: str) -> str | None:
        s = self.settings
        if len(url) > s.max_url_length:
            return "trap/url-length"
        start = url.find("/", url.find("//") + 2)
        if start < 0:
            return None
        path = url[start:].split("?", 1)[0]
        segments = [seg for seg in path.split("/") if seg]
        if len(segments) > s.max_path_depth:
            return "trap/path-depth"
        if len(segments) > s.max_segment_repeat + 1:
            most = Counter(segments).most_common(1)[0][1]
            if most > s.max_segment_repeat + 1:
                return "trap/path-repeat"
        return None

    def admit(
        self,
        raw_url: str,
        *,
        depth: int,
        priority: float,
        hops: int = 0,
        kind: str = "page",
        anchor: str = "",
    ) -> Entry | None:
        """The frontier entry for a discovered URL, or ``None`` (counted) if a policy refuses it."""
        cached = self._norm_cache.get(raw_url)
        if cached is None:
            url = normalize_url(raw_url)
            key = url_key(url) if url is not None else 0
            if len(self._norm_cache) >= 50_000:
                self._norm_cache.clear()  # a bounded memo: most links on a page were seen before
            self._norm_cache[raw_url] = (url, key)
        else:
            url, key = cached
        if url is None:
            self.stats.inc("discover/unfetchable")
            self._refusal = "not an http(s) URL trawl can fetch"
            return None
        if key in self.frontier.seen and hops == 0:
            self.stats.inc("discover/seen")
            self._refusal = "seen already in this crawl"
            return None
        host = self.frontier.host_name(host_of(url))
        reason = self._in_scope(url, host) or self._trap(url)
        if reason is None and self.settings.max_depth is not None and depth > self.settings.max_depth:
            reason = "depth"
        if reason is not None:
            self.stats.inc(f"discover/refused/{reason}")
            self._refusal = f"refused by the crawl's {reason} rule"
            return None
        entry = Entry(key, url, host, priority, depth, hops, kind, anchor[:300])
        s = self.settings
        if s.shards > 1:
            owner = self._owner(host)
            if owner != s.shard:
                self._route(owner, entry)
                return None
        return entry

    def add_urls(self, entries: list[Entry]) -> int:
        new = self.frontier.add_many(entries)
        self.stats.inc("discover/new", new)
        if new:
            self._wake.set()
        return new

    def add_seeds(self, seeds: Sequence[str]) -> int:
        """Queue the seeds; each one refused is counted (``seed/refused``) and kept with its
        reason in :attr:`refused_seeds`, for the command to tell the user."""
        entries = []
        for seed in seeds:
            self._refusal = ""
            e = self.admit(seed, depth=0, priority=10.0)
            if e is not None:
                entries.append(e)
            elif self._refusal:  # a seed of another shard is routed, not refused
                self.stats.inc("seed/refused")
                self.refused_seeds.append((seed, self._refusal))
        return self.add_urls(entries)

    # -- shards ----------------------------------------------------------------------------------

    def _route(self, owner: int, e: Entry) -> None:
        if self.router is None:
            self.stats.inc("shard/foreign-dropped")
            return
        self.router.send(owner, e.url, e.depth, e.priority, e.anchor)
        self.stats.inc("shard/routed")

    def import_inbox(self) -> int:
        """Queue the URLs other shards sent this one (through the router), each admitted as a
        discovered URL is; how many were new."""
        if self.router is None:
            return 0
        received = self.router.receive()
        entries = []
        for url, depth, priority, anchor in received:
            e = self.admit(url, depth=depth, priority=priority, anchor=anchor)
            if e is not None:
                entries.append(e)
        n = self.add_urls(entries)
        if received:
            self.frontier.flush()  # committed before the router forgets them (FileRouter's offsets)
        self.router.flush()  # and what this shard sent meanwhile goes out
        self.stats.inc("shard/imported", n)
        return n

    # -- the loop --------------------------------------------------------------------------------

    def _shards_done(self) -> bool:
        """This shard has nothing left: may it end? Not while other shards may still send it
        URLs (the router knows; a FileRouter never waits, its files keep them for a resume)."""
        if self.router is None:
            return True
        self._said_idle = True  # until a visit starts again
        if self.budget is not None and not self._fetching:  # pages it cannot use go back
            self.budget.release(self.pages_total)
        return self.router.done(True)

    def _page_limit(self) -> int | None:
        """The pages the crawl may reach: ``--max-pages``, or a shard's lease (with a budget)."""
        return self.budget.limit if self.budget is not None else self.settings.max_pages

    def _out_of_pages(self) -> bool:
        """Every page the limit allows is fetched or being fetched (a shard with URLs queued
        asks for more; one with none does not, or it would hold pages others could use)."""
        limit = self._page_limit()
        if limit is None or self.pages_total + self._fetching < limit:
            return False
        if self.budget is not None and not self.budget.final and self.frontier.queued:
            self.budget.wanted = True
        return True

    def _limit_reached(self) -> str | None:
        s = self.settings
        limit = self._page_limit()
        if limit is not None and self.pages_total >= limit and (self.budget is None or self.budget.final):
            return "max-pages"
        if s.max_seconds is not None and time.monotonic() - self._t0 >= s.max_seconds:
            return "max-seconds"
        if s.max_bytes is not None and self.bytes_run >= s.max_bytes:
            return "max-bytes"
        return None

    def pause(self) -> None:
        """Start no new fetch until :meth:`resume` (those in flight finish)."""
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        self._wake.set()

    def request_stop(self, reason: str) -> None:
        """End the crawl as a limit would: fetches in flight finish, the rest stays queued."""
        self._stop = self._stop or reason
        self.paused = False
        self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stop is not None

    @property
    def in_flight(self) -> int:
        return sum(h.busy for h in self.frontier.hosts.values())

    def politeness_delay(self, h: Host) -> float:
        """``h``'s gap between requests now (after its last response time)."""
        return self._politeness_delay(h, h.last_seconds)

    def progress(self) -> Progress:
        statuses = {k.rsplit("/", 1)[-1]: v for k, v in self.stats.prefix("fetch/status-class/").items()}
        busy = sum(1 for h in self.frontier.hosts.values() if h.busy)
        return Progress(
            self.pages_run,
            self.requests,
            time.monotonic() - self._t0,
            self.frontier.queued,
            busy,
            self.frontier.ready_hosts,
            self.bytes_run,
            statuses,
            self.focus.harvest_rate if self.focus is not None else None,
        )

    def recover(self) -> int:
        """On resume: queued URLs already stored by the killed run are marked done, links replayed."""
        if self.recover_fn is None:
            return 0
        recovered = []
        replay: list[Entry] = []
        # the queued URLs, then the URLs their links lead to: one discovered and fetched after
        # the last commit (a kill, a disk that refused the commit) is queued nowhere on disk,
        # only linked from a stored page, and must not be fetched and stored a second time
        pending = deque(self.frontier.queued_entries())
        linked: set[int] = set()  # the links' keys, each looked at once (pages link each other)
        while pending:
            e = pending.popleft()
            links = self.recover_fn(e, f"{self._source_prefix}/{e.key}/{e.fetches + 1}")
            if links is None:
                continue
            e.fetches += 1
            e.last_fetch = time.time()
            recovered.append(e)
            for link in links:
                if link.rel == "redirect":
                    child = self.admit(
                        link.url, depth=e.depth, priority=e.priority + 1, hops=e.hops + 1, anchor=link.text
                    )
                else:
                    kind = link.rel if link.rel in ("sitemap", "feed") else "page"
                    child = self.admit(
                        link.url,
                        depth=e.depth + 1,
                        priority=self._priority(e, link.text, link.url),
                        anchor=link.text,
                        kind=kind,
                    )
                if child is not None and child.key not in linked:
                    linked.add(child.key)
                    replay.append(child)
                    pending.append(child)
        # the links first: marking the pages done commits, and the links must be in that same
        # transaction (a kill between the two lost them: done pages are not recovered again)
        self.add_urls(replay)
        n = self.frontier.mark_recovered(recovered)
        for e in recovered:
            self.frontier.host(e.host).fetched += 1
        self.pages_total += n
        self.frontier.flush()
        self.stats.inc("resume/recovered-pages", n)
        return n

    def _reread_hints(self) -> int:
        """On resume (a later crawl into the same collection): the sitemaps and feeds the crawl
        has read, more than ``revisit_min`` ago, are read again, so their new URLs, a ``lastmod``
        newer than a stored capture and new feed entries reach this run too (a feed waiting for
        its next poll keeps its time; a crawl resumed at once after a kill reads nothing twice)."""
        s = self.settings
        kinds = tuple(k for k, on in (("sitemap", s.sitemaps), ("feed", s.feeds)) if on)
        entries = self.frontier.kind_done(kinds, time.time() - s.revisit_min) if kinds else []
        for e in entries:
            self.frontier.requeue(e)
        self.stats.inc("resume/hints-reread", len(entries))
        return len(entries)

    def _before_deadline(self, wall: float) -> bool:
        """Is wall time ``wall`` before the crawl's ``max_seconds`` run out?"""
        s = self.settings
        if s.max_seconds is None:
            return False
        left = s.max_seconds - (time.monotonic() - self._t0)
        return wall - time.time() < left

    def _awaiting_pushes(self) -> bool:
        """With nothing else to do: wait on for a hub's push? Only while a subscription is live,
        and as a feed's poll is waited for: under ``--max-time`` or ``--revisit``."""
        s = self.settings
        return self.websub is not None and self.websub.live and (s.max_seconds is not None or s.revisit)

    async def run(self, seeds: Sequence[str] = ()) -> CrawlResult:
        s = self.settings
        if self.transport is None:
            kind = HttpTransport if s.transport == "http" else AiohttpTransport
            self.transport = kind(
                resolve=s.resolve,
                user_agent=s.user_agent,
                connect_timeout=s.connect_timeout,
                read_timeout=s.read_timeout,
                total_timeout=s.total_timeout,
                connections=max(64, s.concurrency * 2),
                allow_private=s.allow_private,
            )
        if self.renderer is not None and s.render == "always":
            await self.renderer.start()  # RenderUnavailable: said before anything is fetched
        self._t0 = time.monotonic()
        try:
            if self.frontier.resumed:
                self.recover()
                self._reread_hints()
            if self.sink is not None:
                await self.sink.open()  # after recovery: the worker takes the collection over now
            self.add_seeds(seeds)
            self.import_inbox()
            self.frontier.flush()
        except DiskError as exc:  # a disk full still (the table's log replayed on open, a commit)
            self._disk_fault = exc  # the loop below stops at once
        sem = asyncio.Semaphore(s.concurrency)
        tasks: set[asyncio.Task[None]] = set()
        last_progress = 0.0
        last_inbox = time.monotonic()

        def finished(task: asyncio.Task[None]) -> None:
            tasks.discard(task)
            sem.release()
            self._wake.set()
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                assert exc is not None
                self.ctx.error("crawl", exc)

        async def clock() -> None:
            """Keeps time while the loop waits (for a slot, on a slow host): the progress shown
            moves every half second, and at ``max_seconds`` the visits in flight are stopped
            (their pages stay in the frontier, for a resume), so the limit is the limit."""
            nonlocal last_progress
            while True:
                await asyncio.sleep(0.25)
                now = time.monotonic()
                if self.on_progress is not None and now - last_progress >= 0.5:
                    last_progress = now
                    self.on_progress(self.progress())
                if s.max_seconds is not None and now - self._t0 >= s.max_seconds:
                    self._stop = self._stop or "max-seconds"
                    for task in list(tasks):
                        task.cancel()
                    self._wake.set()
                    return

        ticker = asyncio.get_running_loop().create_task(clock())
        try:
            if self.websub is not None:
                assert self.transport is not None
                await self.websub.start(self.transport)  # ConfigError: the address cannot be listened on
            while True:
                now = time.monotonic()
                if self.router is not None and now - last_inbox >= s.route_interval:
                    last_inbox = now
                    self.import_inbox()
                self._stop = self._stop or self._limit_reached()
                failed = self.frontier.failed or self._disk_fault
                if (self.sink is not None and self.sink.failed) or failed is not None:
                    self._stop = "store-failed"  # a disk refused a write: what is stored stays
                if self._stop:
                    break
                if self.paused:  # the monitor's pause: no new fetch until resumed or stopped
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), timeout=0.25)
                    continue
                if self._out_of_pages() and (
                    self._fetching or (self.budget is not None and self.frontier.queued)
                ):
                    # each page left to the limit is being fetched: wait for one to end (the
                    # visits reserve their page before fetching it, so a crawl never passes
                    # max_pages); a shard waits for its next lease
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), timeout=0.5)
                    continue
                # revisits, and without --revisit the feeds' polls (the only URLs then due again)
                self.frontier.due_revisits(time.time())
                host, wait = self.frontier.next_host(now)
                if host is None:
                    if not tasks and wait == float("inf"):
                        nxt = self.frontier.next_revisit()
                        if nxt is None or not (s.revisit or self._before_deadline(nxt)):
                            # without --revisit, a feed's next poll (or a hub's push to a live
                            # subscription, crawl.websub) is waited for only under --max-time
                            if not self._awaiting_pushes():
                                if self.router is None:
                                    break
                                last_inbox = time.monotonic()
                                if self.import_inbox():
                                    continue
                                if self._shards_done():
                                    break
                            nxt = time.time() + 0.5
                        wait = max(0.0, nxt - time.time())
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), timeout=min(wait, 0.5))
                    self.frontier.maybe_flush()
                    continue
                await sem.acquire()
                if self._stop:  # the clock stopped the crawl while this waited for a slot
                    sem.release()
                    self.frontier.release(host)
                    break
                if self._said_idle and self.router is not None:
                    self._said_idle = False
                    self.router.done(False)
                task = asyncio.get_running_loop().create_task(self._visit(host))
                tasks.add(task)
                task.add_done_callback(finished)
                self.frontier.maybe_flush()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
        except DiskError as exc:  # a frontier commit refused: pages stored since are recovered on resume
            self._stop, self._disk_fault = "store-failed", exc
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            if tasks:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if self.websub is not None:
                # unsubscribe (best effort, through the transport); a push that comes meanwhile is
                # still queued, before the frontier's last flush
                await self.websub.close()
            if self.sink is not None:
                await self.sink.close()  # every page submitted is written before the last commit
            try:
                self.frontier.flush()
            except DiskError as exc:
                self._stop, self._disk_fault = "store-failed", self._disk_fault or exc
            if self.router is not None:
                with contextlib.suppress(DiskError):  # offsets not kept: the URLs come again (seen)
                    self.router.close()
            if self.renderer is not None:
                if self.renderer.peak_memory:
                    self.stats.inc("render/browser-peak-mib", self.renderer.peak_memory >> 20)
                await self.renderer.close()
            if self._own_transport and self.transport is not None:
                await self.transport.close()
        seconds = time.monotonic() - self._t0
        self.stats.inc("crawl/pages", self.pages_run)
        fault = (
            (self.sink.fault if self.sink is not None else None) or self._disk_fault or self.frontier.failed
        )
        if fault is not None:  # a write the disk refused, whenever it came
            self._stop = "store-failed"
            if self.sink is None or self.sink.fault is None:
                self.stats.inc(counter(fault))  # the frontier's (the sink counts its own)
        deferred = sum(len(h.queue) + h.on_disk for h in self.frontier.hosts.values() if h.given_up)
        if deferred:  # the URLs of hosts given up, queued still for the next run
            self.stats.inc("crawl/deferred-urls", deferred)
        self.stats.finished = time.time()
        if self.on_progress is not None:
            self.on_progress(self.progress())
        per_host = {h: dict(c) for h, c in self.per_host.items()}
        return CrawlResult(
            "",
            self.stats,
            seconds,
            self.pages_run,
            self.frontier.counts(),
            per_host,
            self._stop or "done",
            list(self.refused_seeds),
            (self.sink.failed if self.sink is not None else None) or str(fault or ""),
            fault,
        )

    # -- one visit -------------------------------------------------------------------------------

    def _politeness_delay(self, h: Host, seconds: float) -> float:
        """The gap before ``h``'s next request after one that took ``seconds``: the minimum,
        ``delay_factor`` x ``seconds``, robots.txt's Crawl-delay and the host's back-off."""
        s = self.settings
        delay = max(s.min_delay, s.delay_factor * seconds)
        if h.robots is not None and h.robots.crawl_delay is not None:
            delay = max(delay, min(h.robots.crawl_delay, s.max_crawl_delay))
        if h.errors:
            delay = max(delay, self._backoff(h.errors))
        return delay

    def _backoff(self, level: int) -> float:
        s = self.settings
        return min(s.max_backoff, max(s.min_delay, s.backoff_base) * 2.0**level)

    def _fault(self, h: Host, kind: str, seconds: float, retry_after: float | None = None) -> None:
        """A fault of ``h`` (an answer 5xx or 429, a network error), its request having taken
        ``seconds``: the back-off level rises (to where the gap reaches ``max_backoff``) and the
        next request waits the politeness delay at that level, or the ``Retry-After`` if longer;
        ``max_host_faults`` in a row and the host is given up for this run."""
        s = self.settings
        h.faults += 1
        top = 1
        while top < 64 and self._backoff(top) < s.max_backoff:
            top += 1
        h.errors = min(h.errors + 1, top)
        self.stats.inc(f"politeness/backoff/{kind}")
        gap = self._politeness_delay(h, seconds)
        if retry_after is not None:
            self.stats.inc("politeness/retry-after")
            gap = max(gap, retry_after)
        h.next_at = time.monotonic() + gap
        if s.max_host_faults and h.faults >= s.max_host_faults and not h.given_up:
            self.frontier.give_up(h)  # its URLs stay queued (crawl/deferred-urls at the end)
            self.stats.inc("fetch/host-given-up")
            self._host_counter(h.name)["given-up"] = 1  # in the crawl's per-host record

    def _answered(self, h: Host, seconds: float) -> None:
        """An answer from ``h`` that is not a fault: the faults in a row end, the back-off level
        comes down one step (the gap halves: a host that just recovered is not rushed), and the
        gap follows the response time (a host slowing down is asked less often at once)."""
        s = self.settings
        h.faults = 0
        if h.errors:
            h.errors -= 1
            self.stats.inc("politeness/recovering")
        if s.delay_factor * seconds > s.min_delay:
            self.stats.inc("politeness/slowed")
        h.next_at = time.monotonic() + self._politeness_delay(h, seconds)

    async def _visit(self, h: Host) -> None:
        self._visits += 1
        token = self._held[h.name] = self._visits
        try:
            s = self.settings
            now = time.monotonic()
            if s.robots and (h.robots is None or now - h.robots_at > s.robots_ttl):
                await self._fetch_robots(h)
                return
            entry = self.frontier.pop(h)
            if entry is None:
                return
            if s.robots and h.robots is not None and not h.robots.allowed(_robots_target(entry.url)):
                if h.robots.source.startswith("address/"):
                    self._drop(entry, h.robots.source, "not a public address (--allow-private)")
                else:
                    self._drop(entry, f"robots/{h.robots.source}" if h.robots.disallow_all else "robots")
                return
            if h.fetched >= s.max_pages_per_host and entry.fetches == 0:
                self._drop(entry, "trap/host-budget")
                return
            if self._out_of_pages():
                self.frontier.push_back(h, entry)  # the limit's last pages are being fetched already
                return
            self._fetching += 1  # a page reserved against max_pages until its fetch ends
            try:
                await self._fetch(h, entry, token)
            finally:
                self._fetching -= 1
        finally:
            self._let_go(h, token)

    def _let_go(self, h: Host, token: int) -> None:
        """The host's request is over: it may be handed out again (once per visit)."""
        if self._held.get(h.name) == token:
            del self._held[h.name]
            self.frontier.release(h)
            self._wake.set()

    def _drop(self, e: Entry, reason: str, message: str = "") -> None:
        self.frontier.finish(e, DROPPED, reason)
        self.ctx.drop("crawl", reason, message, url=e.url)

    def _host_counter(self, host: str) -> Counter[str]:
        c = self.per_host.get(host)
        if c is None:
            c = self.per_host[host] = Counter()
        return c

    async def _get(
        self,
        url: str,
        headers: list[tuple[str, str]],
        max_bytes: int,
        accept: tuple[str, ...],
        method: str = "GET",
    ) -> FetchResponse:
        assert self.transport is not None
        self.requests += 1
        self.stats.inc("fetch/requests")
        if self.private is not None:
            extra = self.private.headers_for(host_of(url))
            if extra:
                headers = [*headers, *extra]
                self.stats.inc("fetch/private")
        return await self.transport.fetch(FetchRequest(url, headers, max_bytes, accept, method))

    async def _fetch_robots(self, h: Host) -> None:
        s = self.settings
        url = f"{self.frontier.scheme_of(h)}://{h.name}/robots.txt"
        rules: RobotsRules
        resp: FetchResponse | None = None
        seconds = 0.0
        try:
            for _hop in range(6):
                resp = await self._get(url, [], MAX_ROBOTS_BYTES + 1, ())
                seconds += resp.seconds
                location = resp.header("Location")
                if resp.status in (301, 302, 303, 307, 308) and location:
                    self.stats.inc("robots/redirect")
                    url = urljoin(url, location)
                    continue
                break
            assert resp is not None
            if resp.status in (301, 302, 303, 307, 308):
                rules = RobotsRules.allow_all("4xx")  # too many redirects: as if unavailable (RFC 9309)
            else:
                rules = RobotsRules.for_status(resp.status, resp.body, s.agent_token)
            self.stats.inc(f"robots/status/{resp.status // 100}xx")
            if resp.truncated or rules.truncated:
                self.stats.inc("robots/truncated")
            if rules.bad_lines:
                self.stats.inc("robots/bad-lines", rules.bad_lines)
            self._store_response(resp, url, "robots", None)
        except FetchError as exc:
            self.stats.inc(f"robots/error/{exc.kind}")
            h.robots_failures += 1
            if exc.kind in ("timeout", "connect", "payload") and h.robots_failures <= s.max_retries:
                # unreachable for now: ask again later before giving up on the whole host
                h.next_at = time.monotonic() + max(s.min_delay, 1.0) * 2**h.robots_failures
                self.stats.inc("robots/retry")
                return
            if exc.kind.startswith("address/"):
                # not an address a crawl may go to: the host's pages are dropped as address/<class>
                rules = RobotsRules.forbid_all(exc.kind)
                self.ctx.drop("robots", exc.kind, str(exc), url=url)
            else:
                rules = RobotsRules.forbid_all("unreachable")
                # the robots.txt request itself; the host's pages are then robots/unreachable
                self.ctx.drop("robots", f"robots/unreachable/robots.txt/{exc.kind}", str(exc), url=url)
        self.stats.inc("robots/fetched")
        h.robots = rules
        h.robots_at = time.monotonic()
        h.next_at = time.monotonic() + self._politeness_delay(h, seconds)
        if s.sitemaps and rules.sitemaps:
            entries = []
            for sm in rules.sitemaps[:10]:
                e = self.admit(sm, depth=0, priority=5.0, kind="sitemap")
                if e is not None:
                    entries.append(e)
            added = self.add_urls(entries)
            self.stats.inc("discover/sitemaps", added)
            if added:
                # committed before they can be fetched: robots.txt is no stored page whose links a
                # resume replays, so one fetched and stored before the next commit came twice
                self.frontier.flush()

    # -- cheap change checks (crawl.validators) ---------------------------------------------------

    def _trust(self, host: str) -> ValidatorTrust:
        trust = self._validators.get(host)
        if trust is None:
            trust = self._validators[host] = ValidatorTrust()
        return trust

    async def _head_check(self, h: Host, e: Entry) -> FetchResponse | None:
        """A HEAD before the GET of a revisit, where the host has earned it: the HEAD's answer
        when it settles the visit (``200`` with the stored validators: unchanged; or a 429/503 to
        back off on), else ``None`` (the GET follows: the validators changed, the HEAD failed,
        or no HEAD was due)."""
        s = self.settings
        trust = self._validators.get(h.name)
        if (
            trust is None
            or not (e.etag or e.modified)
            or not trust.head_worth_it(s.head_trust, conditional=s.conditional)
        ):
            return None
        if trust.audit_due(s.head_audit):
            self.stats.inc("fetch/head-audit")  # a full GET now and then: the trust is checked again
            return None
        try:
            resp = await self._get(e.url, [], 0, (), method="HEAD")
        except FetchError as exc:
            self.stats.inc(f"fetch/head-error/{exc.kind}")
            return None
        self.stats.inc("fetch/head")
        if resp.status in (429, 503):
            return resp
        if resp.status in (405, 501):
            trust.head_refused = True
            self.stats.inc("fetch/head-refused")
            return None
        same = same_validators(e.etag, e.modified, resp.header("ETag"), resp.header("Last-Modified"))
        if resp.status != 200 or not same:
            self.stats.inc("fetch/head-changed")
            return None
        self.stats.inc("fetch/head-unchanged")
        return resp

    def _observe_validators(
        self, host: str, stored: tuple[str | None, str | None], e: Entry, changed: bool, *, asked: bool
    ) -> None:
        """A full revisit (``200``): did the host ignore a conditional GET, and did its validators
        tell whether the page changed?"""
        if not (stored[0] or stored[1]):
            return
        trust = self._trust(host)
        same = same_validators(stored[0], stored[1], e.etag, e.modified)
        if asked and same:
            if not trust.ignores_conditional:
                self.stats.inc("fetch/conditional-ignored")
            trust.ignores_conditional = True
        verdict = trust.observe(same, changed)
        if verdict == "lie":
            self.stats.inc("fetch/validators-lied")

    async def _fetch(self, h: Host, e: Entry, token: int = 0) -> None:
        s = self.settings
        headers: list[tuple[str, str]] = []
        if s.conditional and e.fetches > 0:
            if e.etag:
                headers.append(("If-None-Match", e.etag))
            if e.modified:
                headers.append(("If-Modified-Since", e.modified))
        accept = s.accept_types if e.kind == "page" else ()
        cap = s.max_body_bytes
        if e.kind in ("sitemap", "feed"):  # a byte over its own limit, so that one over it shows
            cap = (s.max_sitemap_bytes if e.kind == "sitemap" else s.max_feed_bytes) + 1
        hc = self._host_counter(h.name)
        # a HEAD where it can stand in for the GET: its answer when it settles the visit
        head = await self._head_check(h, e) if e.kind == "page" and e.fetches > 0 and s.head_checks else None
        by_head = head is not None and head.status == 200  # the validators are unchanged
        started = time.monotonic()
        try:
            resp = head if head is not None else await self._get(e.url, headers, cap, accept)
        except FetchError as exc:
            self.stats.inc(f"fetch/error/{exc.kind}")
            self.recent.append((time.time(), e.url, 0, 0, round((time.monotonic() - started) * 1000, 1)))
            hc["errors"] += 1
            if exc.kind.startswith("address/"):  # refused before asking: no fault of the host
                h.next_at = time.monotonic() + self._politeness_delay(h, 0.0)
            else:
                self._fault(h, exc.kind, time.monotonic() - started)
            e.retries += 1
            if exc.kind in ("timeout", "connect") and e.retries <= s.max_retries:
                self.stats.inc("fetch/retry")
                self.frontier.push_back(h, e)
            elif exc.kind.startswith("address/"):  # not a public address: drop/address/<class>
                self._drop(e, exc.kind, str(exc))
            else:
                self._drop(e, f"fetch/{exc.kind}", str(exc))
            return
        h.last_seconds = resp.seconds
        status = resp.status
        self.stats.inc(f"fetch/status/{status}")
        self.stats.inc(f"fetch/status-class/{status // 100}xx")
        self.stats.inc("fetch/bytes", len(resp.body))
        self.bytes_run += len(resp.body)
        self.recent.append((time.time(), e.url, status, len(resp.body), round(resp.seconds * 1000, 1)))
        hc["requests"] += 1
        hc["bytes"] += len(resp.body)
        if status in (429, 503):
            wait = _retry_after(resp.header("Retry-After"), s.max_retry_after)
            self._fault(h, str(status), resp.seconds, wait)
            self.stats.inc(f"fetch/backoff/{status}")
            self._store_response(resp, e.url, "backoff", None)
            e.retries += 1
            if e.retries <= s.max_retries:
                self.frontier.push_back(h, e)
            else:
                self._drop(e, f"fetch/status-{status}")
            return
        if status >= 500:  # stored as any answer, but the host is given time to recover
            self._fault(h, "5xx", resp.seconds)
        else:
            self._answered(h, resp.seconds)
        if resp.skipped:
            self._drop(
                e, f"content-type/{(resp.header('Content-Type') or '').split(';')[0].strip() or 'none'}"
            )
            return
        if resp.truncated:
            self.stats.inc("fetch/truncated")
            self.ctx.drop("crawl", "too-large", f"body cut at {cap} bytes", url=e.url)
        if resp.overrun:  # bytes past the Content-Length: kept out of the body and the next answer
            self.stats.inc("fetch/overrun")
        e.fetches += 1
        previous = e.last_fetch
        e.last_fetch = time.time()
        h.fetched += 1
        self.pages_total += 1
        self.pages_run += 1
        hc["pages"] += 1
        if status == 304 or by_head:
            if status == 304:
                self.stats.inc("fetch/not-modified")
                self._trust(h.name).ignores_conditional = False  # it honours them: no HEAD needed
            if self._storing:
                # a new version of the capture, and a WARC revisit record of the stored one
                job = self._job("unchanged", resp, e.url, f"{self._source_prefix}/{e.key}/{e.fetches}")
                job.method = "HEAD" if by_head else "GET"
                assert self.sink is not None
                self.sink.submit(job).add_done_callback(self._stored_in_background)
            self._schedule(e, previous, changed=False)
            return
        validators = (e.etag, e.modified)  # the stored capture's
        e.etag = resp.header("ETag")
        e.modified = resp.header("Last-Modified")
        self._let_go(h, token)  # the host may be asked again while this page is processed
        try:
            links = await self._process(e, resp)
        except StoreError as exc:
            if self.sink is not None and self.sink.failed:
                return  # the store is gone (a disk refused a write): the URL stays queued for --resume
            self._drop(e, "store/error", str(exc))  # this page broke the pipeline: counted, recorded
            return
        if 300 <= status < 400:
            location = resp.header("Location")
            if location:
                if e.hops + 1 > s.max_redirects:
                    self.ctx.drop(
                        "crawl", "redirect-limit", f"more than {s.max_redirects} redirects", url=location
                    )
                else:
                    target_url = urljoin(e.url, location)
                    target = self.admit(
                        target_url,
                        depth=e.depth,
                        priority=e.priority + 1,
                        hops=e.hops + 1,
                        anchor=e.anchor,
                    )
                    if target is not None and self.add_urls([target]) == 0:
                        self.stats.inc("redirect/seen-target")
                    elif target is None and normalize_url(target_url) is None:
                        # file:, ftp:, data:, javascript:… are never followed, whoever asks
                        message = f"redirect to {target_url[:200]!r}: not an http(s) URL"
                        self.ctx.drop("crawl", "redirect-unfetchable", message, url=e.url)
        children = []
        hinted = self._sitemap_hints
        threshold = s.focus_threshold if self.focus is not None else 0.0
        # how many off-topic pages in a row led here, this one included: a focused crawl may
        # tunnel through a few to reach its topic (Bergmark, Lagoze & Sbityakov 2002)
        tunnel = 0
        if self.focus is not None:
            tunnel = self._tunnel.pop(e.key, 0) + 1 if e.priority < 10.0 * RELEVANT else 0
        if s.policy_weights == "inlinks" and not previous:
            # in-links from distinct pages: a page's first fetch counts its links once each
            # (a revisit's would count the same link again)
            linked = {normalize_url(link.url) for link in links}
            for linked_url in linked - {None, e.url}:
                lk = url_key(linked_url or "")
                self._inlinks[lk] = self._inlinks.get(lk, 0) + 1
        for link in links:
            priority = self._priority(e, link.text, link.url)
            if (
                threshold
                and priority < 10.0 * threshold
                and tunnel > s.focus_tunnel
                and link.rel not in ("sitemap", "feed")
            ):  # off topic, and far from it: not followed; counted by its score (a tenth wide)
                self.stats.inc("focus/pruned")
                self.stats.inc(f"focus/pruned-score/{min(int(priority), 9) / 10:.1f}")
                continue
            hint = hinted.pop(link.url, None) if hinted else None
            importance = None
            if hint is not None and hint.priority is not None:
                # a sitemap's <priority> (0..1, 0.5 when absent) lifts a page by up to one level
                importance = min(1.0, max(0.0, hint.priority))
                priority += 2.0 * (importance - 0.5)
                self.stats.inc("discover/sitemap-priority")
            if e.kind == "feed":  # entries not seen before (the others are not admitted again) first
                priority = max(priority, FEED_ENTRY_PRIORITY)
            if hint is not None and hint.age is not None:
                priority += _recency(hint.age)  # a sitemap's lastmod, a feed entry's date: newest first
            child = self.admit(
                link.url,
                depth=e.depth + 1,
                priority=priority,
                anchor=link.text,
                kind=link.rel if link.rel in ("sitemap", "feed") else "page",
            )
            if child is not None:
                if tunnel:
                    self._tunnel[child.key] = tunnel
                if importance is not None and s.policy_weights == "sitemap":
                    self._importance[child.key] = importance
                if hint is not None and hint.changefreq in CHANGEFREQ_RATE:
                    # the site's own estimate of how often it changes: the page's revisit prior
                    child.prior = CHANGEFREQ_RATE[hint.changefreq]
                elif hint is not None and hint.age is not None:
                    # no changefreq: how long before the hint was read the page last changed
                    # (one draw of the Poisson model's waiting time: rate 1/age)
                    child.prior = lastmod_rate(
                        hint.age, minimum_age=s.revisit_min, maximum_age=_MAX_LASTMOD_AGE
                    )
                    self.stats.inc("discover/lastmod-prior")
                children.append(child)
        self.stats.inc("discover/links", len(links))
        if children:
            self.add_urls(children)
        # the main content's digest where the page has text (an ad or a timestamp that changes
        # is no change), else the bytes'
        digest = self._contents.pop(e.key, "") or hashlib.blake2b(resp.body, digest_size=12).hexdigest()
        changed = e.digest is not None and digest != e.digest
        if previous and status == 200 and e.kind == "page" and s.head_checks:
            self._observe_validators(h.name, validators, e, changed, asked=bool(headers))
        e.digest = digest
        self._schedule(e, previous, changed=changed)

    def _priority(self, parent: Entry, anchor: str, url: str) -> float:
        if self.focus is not None:
            return 10.0 * self.focus.link_score(
                anchor, url, parent.priority / 10.0 if parent.priority <= 10 else 1.0
            )
        return -float(parent.depth + 1)  # breadth first

    def _schedule(self, e: Entry, previous: float, *, changed: bool) -> None:
        s = self.settings
        if previous:
            history = ChangeHistory(max(0, e.fetches - 2), e.changes, e.watched)
            history.observe(e.last_fetch - previous, changed)
            e.changes, e.watched = history.changes, history.watched
            if changed:
                self.stats.inc("revisit/changed")
            else:
                self.stats.inc("revisit/unchanged")
        if e.kind == "feed":
            # polled again in every crawl, --revisit or not: at its ttl (its prior, 1/ttl), or
            # sooner or later as its polls have found new entries, at an hour it allows
            history = ChangeHistory(max(0, e.fetches - 1), e.changes, e.watched)
            rate = estimate_rate(history, prior=e.prior or 1.0 / s.revisit_min)
            declared = 1.0 / e.prior if e.prior > 0 else None
            wait = feed_poll_interval(declared, rate, minimum=s.revisit_min, maximum=s.revisit_max)
            rules = self._feed_rules.get(e.key)
            e.due = next_poll(time.time() + wait, rules) if rules is not None else time.time() + wait
            self.frontier.finish(e, REVISIT)
            return
        if not s.revisit:
            self.frontier.finish(e, DONE)
            return
        history = ChangeHistory(max(0, e.fetches - 1), e.changes, e.watched)
        # the prior: what the site said (a sitemap's changefreq or lastmod), else the slowest revisit
        rate = estimate_rate(history, prior=e.prior or 1.0 / s.revisit_max)
        if e.kind == "sitemap":  # read again as it changes (its lastmods may send pages back)
            e.due = time.time() + revisit_interval(rate, minimum=s.revisit_min, maximum=s.revisit_max)
            self.frontier.finish(e, REVISIT)
            return
        if s.policy != "adaptive" and s.budget > 0:
            if self._weigh is not None and e.key not in self._user_weights:
                self._user_weights[e.key] = self._user_weight(e.url)
            interval = self._policy_interval(e.key, rate)
        else:
            interval = revisit_interval(rate, minimum=s.revisit_min, maximum=s.revisit_max)
        e.due = time.time() + interval
        self.frontier.finish(e, REVISIT)

    def _user_weight(self, url: str) -> float:
        """The user's function's weight for ``url``; 1.0 (counted) where it fails or answers
        something that is not a positive finite number."""
        assert self._weigh is not None
        try:
            weight = float(self._weigh(url))
        except Exception as exc:  # the user's code: one page's failure is counted, not fatal
            self.stats.inc("revisit/weight-error")
            self.ctx.error("policy-weights", exc, url=url)
            return 1.0
        if not (math.isfinite(weight) and weight > 0):
            self.stats.inc("revisit/bad-weight")
            return 1.0
        return weight

    def _policy_interval(self, key: int, rate: float) -> float:
        """The page's revisit interval under the crawl's policy and budget: the frequencies of
        every page this run has scheduled (their latest rate estimates) are solved again when the
        set has grown by a tenth or a second has passed (:func:`~trawl.crawl.revisit.policy_frequencies`)."""
        s = self.settings
        self._rates[key] = rate
        now = time.monotonic()
        if (
            key not in self._frequencies
            or len(self._rates) > 1.1 * self._solved_for
            or now - self._solved_at > 1.0
        ):
            keys = list(self._rates)
            weights = None
            if s.policy_weights == "inlinks":  # pages more of the web links to matter more
                weights = [1.0 + math.log1p(self._inlinks.get(k, 0)) for k in keys]
            elif s.policy_weights == "sitemap":
                weights = [self._importance.get(k, 0.5) for k in keys]
            elif self._weigh is not None:
                weights = [self._user_weights.get(k, 1.0) for k in keys]
            freqs = policy_frequencies(
                [self._rates[k] for k in keys], s.budget, s.policy, weights=weights, metric=s.policy_metric
            )
            self._frequencies = dict(zip(keys, freqs, strict=True))
            self._solved_for, self._solved_at = len(keys), now
        f = self._frequencies.get(key, 0.0)
        interval = 1.0 / f if f > 0 else s.revisit_max  # not worth a visit: the slowest check
        return min(s.revisit_max, max(s.revisit_min, interval))

    # -- what a response becomes -------------------------------------------------------------------

    @property
    def _storing(self) -> bool:
        return self.settings.store and self.sink is not None

    def _job(
        self, kind: str, resp: FetchResponse, url: str, source: str, links: Sequence[Link] = ()
    ) -> StoreJob:
        return StoreJob(
            kind,
            url,
            resp.status,
            list(resp.headers),
            resp.body,
            source,
            datetime.now(UTC),
            new_record_id(),
            resp.ip,
            resp.truncated,
            (
                self.private.for_record(host_of(url), resp.request_headers)
                if self.private is not None
                else resp.request_headers
            ),
            list(links),
            want_text=self.focus is not None,
        )

    async def _store(self, job: StoreJob) -> StoreOutcome:
        """Through the sink into the collection (awaited: the answer comes once the page is
        written)."""
        assert self.sink is not None
        return await self.sink.submit(job)

    def _store_response(self, resp: FetchResponse, url: str, kind: str, e: Entry | None) -> None:
        """Store a response nothing waits for (robots.txt, a 429/503)."""
        if not self._storing:
            return
        source = (
            f"{self._source_prefix}/{kind}" if e is None else f"{self._source_prefix}/{e.key}/{e.fetches}"
        )
        job = self._job("raw", resp, url, source)
        assert self.sink is not None
        fut = self.sink.submit(job)
        fut.add_done_callback(self._stored_in_background)

    def _stored_in_background(self, fut: asyncio.Future[StoreOutcome]) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            self.stats.inc("store/background-errors")

    async def _process(self, e: Entry, resp: FetchResponse) -> list[Link]:
        """Store the response and return the links it holds (pages, sitemaps and feeds alike)."""
        s = self.settings
        ctype = (resp.header("Content-Type") or "").split(";", 1)[0].strip().lower()
        links: list[Link] = []
        if e.kind == "sitemap" or (s.sitemaps and e.url.endswith((".xml", ".xml.gz")) and "sitemap" in e.url):
            links = self._read_sitemap(e, resp)
            await self._store_links_doc(e, resp, links)
            return [Link(link.url, link.text, link.rel) for link in links]
        if s.feeds and is_feed(ctype, resp.body[:1024]):
            links = self._read_feed(e, resp)
            await self._store_links_doc(e, resp, links)
            return links
        if e.kind == "feed":  # a feed no more (gone, moved, an error page): not polled again
            e.kind = "page"
        rendered = None
        if self.renderer is not None and 200 <= resp.status < 300 and "html" in ctype:
            rendered = await self._render(e, resp)
        if not self._storing:
            if 200 <= resp.status < 300 and ("html" in ctype or not ctype):
                try:
                    html = rendered.html.encode("utf-8") if rendered is not None else resp.body
                    found = extract_links(html, e.url)
                    if rendered is not None:
                        found += [Link(u, "", "") for u in rendered.navigations]
                    return found
                except Exception as exc:  # isolation: a page that breaks the parser is one drop
                    self.ctx.error("links", exc, url=e.url)
            return []
        extra = []
        if 300 <= resp.status < 400 and resp.header("Location"):
            extra.append(Link(urljoin(e.url, resp.header("Location") or ""), e.anchor, "redirect"))
        if 200 <= resp.status < 300 and "html" in ctype:
            forms = len(_FORM.findall(resp.body))
            if forms:  # filling forms is out of scope: what lies behind them is not reached
                self.stats.inc("discover/form-skipped", forms)
        job = self._job("page", resp, e.url, f"{self._source_prefix}/{e.key}/{e.fetches}", extra)
        if rendered is not None:
            job.rendered = rendered.html
            job.render = {
                "reason": rendered.reason,
                "seconds": round(rendered.seconds, 3),
                "requests": rendered.requests,
                "blocked": rendered.blocked,
                "timed_out": rendered.timed_out,
            }
            # where a script sent the page (location = ...): links like any other
            job.links.extend(Link(u, "", "") for u in rendered.navigations)
        out = await self._store(job)
        if not out.stored:
            return []
        if out.content:
            self._contents[e.key] = out.content
        if self.focus is not None and out.text:
            relevance = self.focus.learn(out.text)
            e.priority = 10.0 * relevance
            self.stats.inc("focus/pages")
            if relevance >= RELEVANT:
                self.stats.inc("focus/relevant")
        if out.nofollow:
            self.stats.inc("discover/nofollow")
            return []
        return out.links if 200 <= resp.status < 300 else []

    async def _render(self, e: Entry, resp: FetchResponse) -> Rendered | None:
        """The page as headless Chromium renders it, where the settings and the page's signs
        (auto) say it needs rendering; ``None`` to keep it as fetched (rendering failed, counted,
        or unavailable: said once, and the crawl goes on without it)."""
        s = self.settings
        assert self.renderer is not None
        if s.render == "auto":
            host = self.frontier.host_name(host_of(e.url))
            verdict = self._render_verdicts.verdict(host)
            if verdict == "skip":
                self.stats.inc("render/host-gains-nothing")
                return None
            body = entity(resp)
            reason = render_signal(body, min_links=s.render_min_links)
            if reason is None and verdict == "render" and _SCRIPT_TAG.search(body):
                reason = "host"  # this host's pages gained by rendering: each page with scripts
            if reason is None:
                return None
        else:
            host, body, reason = "", b"", "always"
        self.stats.inc(f"render/reason/{reason}")
        try:
            rendered = await self.renderer.render(e.url, resp)
        except RenderUnavailable as exc:
            self.stats.inc("render/unavailable")
            self.ctx.drop("crawl", "render/unavailable", str(exc), url=e.url)
            self.renderer = None  # said once: the rest of the crawl reads HTML as fetched
            return None
        except RuntimeError as exc:
            self.stats.inc("render/failed")
            self.ctx.error("render", exc, url=e.url)
            return None
        rendered.reason = reason
        if s.render == "auto":
            grew = gained(body, rendered.html, min_links=s.render_min_links)
            self._render_verdicts.record(host, grew)
            self.stats.inc("render/gained" if grew else "render/no-gain")
        return rendered

    async def _render_fetch(self, url: str) -> FetchResponse:
        """A renderer's sub-request, through the crawl's transport (private-site headers too)."""
        self.stats.inc("render/sub-requests")
        return await self._get(url, [], self.settings.render_max_bytes, ())

    def _render_refuse(self, url: str) -> str | None:
        """Why a renderer's sub-request may not be fetched: its host's robots.txt (a host whose
        rules the crawl has not read yet is not asked), or ``None``."""
        if not self.settings.robots:
            return None
        h = self.frontier.hosts.get(self.frontier.host_name(host_of(url)))
        if h is None or h.robots is None:
            return "robots-unknown"
        return None if h.robots.allowed(_robots_target(url)) else "robots"

    # -- sitemaps and feeds (crawl.discovery) -----------------------------------------------------

    def _read_sitemap(self, e: Entry, resp: FetchResponse) -> list[Link]:
        """A sitemap's URLs (its hints kept for their admission) or child sitemaps; the limits
        hit and the bad values met counted; pages it says changed after their stored capture
        queued again."""
        s = self.settings
        e.kind = "sitemap"
        info = parse_sitemap(resp.body, max_bytes=s.max_sitemap_bytes, max_urls=s.max_sitemap_urls)
        if info.problem:
            self.stats.inc("discover/sitemap-problem")
        if info.too_large or resp.truncated:
            self.ctx.drop(
                "crawl", "sitemap-too-large", f"over {s.max_sitemap_bytes} bytes; read up to there", url=e.url
            )
        if info.too_many:
            self.ctx.drop(
                "crawl",
                "sitemap-too-many-urls",
                f"more than {s.max_sitemap_urls} entries; the rest ignored",
                url=e.url,
            )
        if info.bad_dates:
            self.stats.inc("discover/lastmod-bad", info.bad_dates)
        if info.bad_priorities:
            self.stats.inc("discover/sitemap-bad-priority", info.bad_priorities)
        links: list[Link] = []
        if e.depth < s.max_sitemap_depth:
            links += [Link(u, "", "sitemap") for u in info.sitemaps]
        elif info.sitemaps:
            self.stats.inc("drop/sitemap-depth", len(info.sitemaps))
        now = _server_now(resp)
        dated: dict[str, float] = {}
        for item in info.urls:
            links.append(Link(item.url, "", ""))
            if item.lastmod is not None:
                if item.lastmod > now + _FUTURE_SLACK:  # a clock that is off: no hint at all
                    self.stats.inc("discover/lastmod-future")
                    item.lastmod = None
                else:
                    item.age = now - item.lastmod
                    dated[item.url] = item.lastmod
            if item.priority is not None or item.changefreq in CHANGEFREQ_RATE or item.age is not None:
                self._sitemap_hints[item.url] = item  # priority and change rate, read on admission
            if item.changefreq in CHANGEFREQ_RATE:
                self.stats.inc(f"discover/changefreq/{item.changefreq}")
        self.stats.inc("discover/sitemap-urls", len(info.urls))
        if dated:
            self._refetch_changed(dated, "discover/lastmod-refetch")
        return links

    def _read_feed(self, e: Entry, resp: FetchResponse) -> list[Link]:
        """A feed's entries, newest first in the frontier (their dates kept as hints); its
        ``ttl`` (its prior: 1/ttl) and skip rules kept for its next poll; entries updated after
        their stored capture queued again."""
        s = self.settings
        e.kind = "feed"
        feed = parse_feed(resp.body, max_bytes=s.max_feed_bytes, max_entries=s.max_feed_entries)
        if feed.problem:
            self.stats.inc("discover/feed-problem")
        if feed.too_large or resp.truncated:
            self.ctx.drop(
                "crawl", "feed-too-large", f"over {s.max_feed_bytes} bytes; read up to there", url=e.url
            )
        if feed.too_many:
            self.ctx.drop(
                "crawl",
                "feed-too-many-entries",
                f"more than {s.max_feed_entries} entries; the rest ignored",
                url=e.url,
            )
        if feed.bad_dates:
            self.stats.inc("discover/feed-bad-date", feed.bad_dates)
        now = _server_now(resp)
        links: list[Link] = []
        dated: dict[str, float] = {}
        new = 0
        for entry in feed.entries:
            links.append(Link(entry.url, entry.title))
            url = normalize_url(entry.url)
            if url is not None and url_key(url) not in self.frontier.seen:
                new += 1
            if entry.date is not None:
                if entry.date > now + _FUTURE_SLACK:
                    self.stats.inc("discover/lastmod-future")
                    continue
                self._sitemap_hints[entry.url] = SitemapEntry(
                    entry.url, lastmod=entry.date, age=now - entry.date
                )
                dated[entry.url] = entry.date
        self.stats.inc("discover/feed-links", len(links))
        self.stats.inc("discover/feed-new", new)
        e.prior = 1.0 / max(1.0, feed.ttl_seconds) if feed.ttl_seconds else 0.0
        if feed.skip_hours or feed.skip_days:
            self.stats.inc("discover/feed-skip-rules")
            self._feed_rules[e.key] = FeedInfo(skip_hours=feed.skip_hours, skip_days=feed.skip_days)
        else:
            self._feed_rules.pop(e.key, None)
        # what tells one poll from the last (the feed's history): the entries it lists, not its bytes
        listed = "\n".join(sorted(entry.url for entry in feed.entries)).encode()
        self._contents[e.key] = hashlib.blake2b(listed, digest_size=12).hexdigest()
        if dated:
            self._refetch_changed(dated, "discover/feed-refetch")
        if self.websub is not None and 200 <= resp.status < 300:
            self.websub.feed_read(e.url, e.depth, resp.headers, feed)  # subscribes where it names a hub
        return links

    def _admit_pushed(self, sub: Subscription, feed: FeedInfo) -> int:
        """Entries a hub pushed (crawl.websub): admitted as a polled feed's new entries are (ahead
        of every page found by links, newest first by their dates, their dates as priors), and
        a fetched one dated after its capture queued again; how many were new."""
        s = self.settings
        now = time.time()
        children: list[Entry] = []
        dated: dict[str, float] = {}
        for entry in feed.entries:
            priority = FEED_ENTRY_PRIORITY
            age = None
            if entry.date is not None and entry.date <= now + _FUTURE_SLACK:
                age = max(0.0, now - entry.date)
                priority += _recency(age)
                dated[entry.url] = entry.date
            url = urljoin(sub.feed_url, entry.url)
            child = self.admit(url, depth=sub.depth + 1, priority=priority, anchor=entry.title)
            if child is not None:
                if age is not None:
                    child.prior = lastmod_rate(age, minimum_age=s.revisit_min, maximum_age=_MAX_LASTMOD_AGE)
                children.append(child)
        new = self.add_urls(children)
        if dated:
            self._refetch_changed(dated, "websub/refetch")
        return new

    def _refetch_changed(self, dated: dict[str, float], counter: str) -> int:
        """Queue again the fetched URLs among ``dated`` (URL -> when the site says it last
        changed) whose stored capture is older: older than its ``Last-Modified`` where the
        capture had one (the site's clock against the site's clock), else than the fetch."""
        keys: dict[int, float] = {}
        for raw, when in dated.items():
            url = normalize_url(raw)
            if url is not None:
                keys[url_key(url)] = when
        known = [k for k in keys if k in self.frontier.seen]
        n = 0
        for old in self.frontier.fetched(known) if known else []:
            captured = _http_time(old.modified) or old.last_fetch
            if captured and keys[old.key] > captured:
                self.frontier.requeue(old)
                n += 1
        if n:
            self.stats.inc(counter, n)
            self._wake.set()
        return n

    async def _store_links_doc(self, e: Entry, resp: FetchResponse, links: list[Link]) -> None:
        """A sitemap or feed: stored with the URLs it lists, so a resumed crawl can replay them."""
        if not self._storing:
            return
        await self._store(
            self._job("links", resp, e.url, f"{self._source_prefix}/{e.key}/{e.fetches}", links)
        )
