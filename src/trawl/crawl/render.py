"""Pages only scripts show: headless Chromium, used for the pages and hosts that need it.

A page whose links or text are built by a script is a dead end to a crawler that reads HTML:
its navigation is an empty ``<nav>``, its body a ``<noscript>`` plea. :class:`Renderer` runs
headless Chromium (Debian's ``chromium`` package, or any Chromium-family browser the setting
names) driven by Playwright, and hands the crawler the DOM the scripts built.

What Chromium fetches, trawl fetches: every request the page makes goes through a Playwright
route to the crawler's own transport, so the renderer obeys what the crawl obeys. The page itself
is served from the response the crawler already has (no second request); a script or an XHR is
fetched only from the page's own site (its host, or a host that shares its registered domain),
only where that host's robots.txt allows it, only by GET, at most ``max_requests`` a page and
``max_bytes`` in all, one request at a time per host with the crawl's politeness gap between
them; images, media, fonts and style sheets are not fetched at all (they build no links and no
text). A script fetched for one page is kept for the next (``render/cache-hits``): a site's
application bundle is asked for once. Chromium itself can reach nothing: it resolves no host
name (``--host-resolver-rules``), and its background traffic (updates, safe browsing, metrics)
is switched off.

Caps: a page has ``timeout`` seconds to load and settle (its DOM is taken as it is then:
``render/timeout``); V8's heap is capped, the browser's memory (all its processes) is measured
after a render and the browser restarted above ``memory_mb`` (``render/restart/memory``); a
crashed page or browser is counted (``render/error/<kind>``), the page kept as fetched, and the
browser started again for the next one (at most :data:`MAX_RESTARTS` times a crawl).

Which pages (``render = "auto"``): :func:`render_signal` reads the fetched HTML for the signs of
a page scripts build — a ``<noscript>`` that asks for JavaScript, fewer than ``min_links`` links
beside a script, a body with scripts and next to no text — and :class:`HostVerdicts` learns per
host whether rendering pays: a host whose renders gained links or text has all its pages with
scripts rendered; one whose first :data:`PROBES` renders gained nothing is rendered no more
(``render/host-gains-nothing``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trawl.crawl.transport import FetchResponse
from trawl.decode.http import decode_payload
from trawl.errors import ConfigError
from trawl.pipeline.stats import Stats

if TYPE_CHECKING:  # pragma: no cover
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Request, Route

__all__ = [
    "BROWSERS",
    "MAX_RESTARTS",
    "PROBES",
    "RENDER_MODES",
    "HostVerdicts",
    "RenderUnavailable",
    "Rendered",
    "Renderer",
    "browser_memory",
    "count_links",
    "entity",
    "find_browser",
    "gained",
    "render_signal",
]

RENDER_MODES = ("never", "auto", "always")
#: Where Debian, Ubuntu and others put a Chromium-family browser, tried in order.
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
#: Renders a host gets in ``auto`` mode before trawl decides that rendering it gains nothing.
PROBES = 3
#: Browser restarts (after a crash or over the memory cap) before rendering is given up for the run.
MAX_RESTARTS = 5
#: Resource types never fetched: they build neither links nor text.
BLOCKED_TYPES = frozenset({"image", "media", "font", "stylesheet", "texttrack", "manifest", "other"})
#: Resource types a page's scripts may fetch (through the crawler).
FETCHED_TYPES = frozenset({"script", "xhr", "fetch", "document", "eventsource"})
#: Quiet time after the last answered request before the DOM is taken (chained fetches: a script
#: that asks for JSON that names more JSON).
SETTLE_SECONDS = 0.1
#: Scripts kept for later pages, in all.
CACHE_BYTES = 32 << 20

_A_HREF = re.compile(rb"<a\s[^>]*?href\s*=", re.I)
_SCRIPT = re.compile(rb"<script\b", re.I)
_NOSCRIPT = re.compile(rb"<noscript\b[^>]*>(.*?)</noscript", re.I | re.S)
_NEEDS_JS = re.compile(rb"javascript|enable|browser|scripts?\b", re.I)
_BODY = re.compile(rb"<body\b[^>]*>(.*)", re.I | re.S)
_DROP = re.compile(rb"<(script|style|noscript|template)\b.*?</\1\s*>", re.I | re.S)
_TAG = re.compile(rb"<[^>]*>")
_WORDS = re.compile(rb"[^\s<>&;]{2,}")


class RenderUnavailable(ConfigError):
    """No browser (or no Playwright) to render with: the reason, and what to install."""


def find_browser(setting: str = "") -> str | None:
    """The browser to run: ``setting`` (a path or a command name) if given, else the first of
    :data:`BROWSERS` on ``PATH``; ``None`` if there is none."""
    if setting:
        path = Path(setting)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        return shutil.which(setting)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def count_links(html: bytes) -> int:
    """``<a href>`` elements in ``html`` (a regular expression: a signal, not a parse)."""
    return len(_A_HREF.findall(html))


def _visible_words(html: bytes) -> int:
    match = _BODY.search(html)
    body = match.group(1) if match else html
    return len(_WORDS.findall(_TAG.sub(b" ", _DROP.sub(b" ", body))))


def render_signal(html: bytes, *, min_links: int = 3) -> str | None:
    """Why the fetched ``html`` looks like a page scripts build, or ``None``.

    ``noscript``: a ``<noscript>`` asks for JavaScript; ``few-links``: scripts and fewer than
    ``min_links`` links; ``empty-body``: scripts and fewer than 20 words of text outside them. A
    page without a ``<script>`` is never rendered: nothing would run.
    """
    if not _SCRIPT.search(html):
        return None
    for inner in _NOSCRIPT.findall(html):
        if _NEEDS_JS.search(inner):
            return "noscript"
    if count_links(html) < min_links:
        return "few-links"
    if _visible_words(html) < 20:
        return "empty-body"
    return None


@dataclass(slots=True)
class _HostVerdict:
    tried: int = 0
    gained: int = 0


class HostVerdicts:
    """Per host: did rendering its pages find more than their HTML held?"""

    def __init__(self, probes: int = PROBES) -> None:
        self.probes = probes
        self._hosts: dict[str, _HostVerdict] = {}

    def record(self, host: str, gained: bool) -> None:
        v = self._hosts.setdefault(host, _HostVerdict())
        v.tried += 1
        v.gained += int(gained)

    def verdict(self, host: str) -> str:
        """``"render"`` (its renders gain: render every page with scripts), ``"skip"`` (its
        first probes gained nothing) or ``"undecided"`` (let each page's signals decide)."""
        v = self._hosts.get(host)
        if v is None:
            return "undecided"
        if v.gained and 2 * v.gained >= v.tried:
            return "render"
        if v.tried >= self.probes and not v.gained:
            return "skip"
        return "undecided"


def gained(before: bytes, after: str, *, min_links: int = 3) -> bool:
    """Whether the rendered DOM holds clearly more than the fetched HTML: ``min_links`` more
    links, or twice the words and 50 more."""
    rendered = after.encode("utf-8", "replace")
    if count_links(rendered) >= count_links(before) + min_links:
        return True
    words_before, words_after = _visible_words(before), _visible_words(rendered)
    return words_after >= 2 * words_before + 50


@dataclass(slots=True)
class Rendered:
    """What rendering one page gave."""

    html: str  # the DOM the scripts built, serialised
    seconds: float  # wall time of the render, from opening the page to taking its DOM
    requests: int = 0  # sub-requests fetched (cache hits included)
    blocked: int = 0  # sub-requests refused (by type, site, robots, method, caps)
    timed_out: bool = False
    navigations: list[str] = field(default_factory=list)  # where scripts sent the page (not followed)
    reason: str = ""  # why it was rendered (the crawler's: "always", "noscript", "few-links", ...)


@dataclass(slots=True)
class _PageState:
    url: str
    host: str
    resp: FetchResponse
    served: bool = False
    requests: int = 0
    blocked: int = 0
    bytes: int = 0
    pending: int = 0
    last_activity: float = 0.0
    crashed: bool = False
    navigations: list[str] = field(default_factory=list)


def _site(host: str) -> str:
    """A host's site, for the same-site rule: its last two labels (three under a two-letter
    second-level label such as ``co.uk``); an IP address is its own site."""
    host = host.lower().rstrip(".")
    if host.replace(".", "").isdigit() or ":" in host:
        return host
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-2]) <= 3 and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _host(url: str) -> str:
    rest = url.split("//", 1)[-1]
    end = len(rest)
    for sep in "/?#":
        i = rest.find(sep)
        if i >= 0:
            end = min(end, i)
    authority = rest[:end].rsplit("@", 1)[-1]
    if authority.startswith("["):
        return authority[1 : authority.find("]")].lower()
    return authority.split(":", 1)[0].lower()


def browser_memory(marker: str) -> int:
    """Memory of the browser started with the command-line ``marker`` and all its descendants
    (renderers, GPU, utility processes): their proportional set sizes, read from ``/proc``; 0
    where there is none."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    root = None
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
            fields = stat[stat.rfind(b")") + 2 :].split()
            parents[pid] = int(fields[1])
            rss[pid] = int(fields[21]) * page
            if root is None:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        root = pid
        except (OSError, ValueError, IndexError):
            continue
    if root is None:
        return 0
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _proportional(pid, rss.get(pid, 0))
        todo.extend(children.get(pid, ()))
    return total


def _proportional(pid: int, resident: int) -> int:
    """A process's proportional set size (its shared pages divided among their sharers: the
    browser's processes share much, and their resident sizes would count it many times), or its
    resident size where the kernel does not say."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resident


Fetch = Callable[[str], Awaitable[FetchResponse]]


class Renderer:
    """Headless Chromium for a crawl (see the module docstring).

    ``fetch(url)`` fetches a sub-request through the crawler (its transport, its private-site
    headers); ``refuse(url)`` says why a sub-request may not be fetched (robots.txt, scope) or
    ``None``; ``gap(host)`` is the politeness gap between two requests to a host.
    """

    def __init__(
        self,
        fetch: Fetch,
        *,
        stats: Stats,
        refuse: Callable[[str], str | None] = lambda url: None,
        gap: Callable[[str], float] = lambda host: 0.0,
        browser: str = "",
        timeout: float = 15.0,
        max_requests: int = 60,
        max_bytes: int = 8 << 20,
        memory_mb: int = 1024,
        concurrency: int = 2,
        user_agent: str = "",
    ) -> None:
        if timeout <= 0 or max_requests < 0 or max_bytes < 0 or memory_mb < 0 or concurrency < 1:
            raise ConfigError(
                "crawl: render_timeout must be positive, render_max_requests, render_max_bytes and "
                "render_memory_mb not negative, render_concurrency at least 1"
            )
        self.fetch = fetch
        self.stats = stats
        self.refuse = refuse
        self.gap = gap
        self.browser_setting = browser
        self.timeout = timeout
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.memory_mb = memory_mb
        self.user_agent = user_agent
        self.concurrency = concurrency
        self._pw: Playwright | None = None
        self._pw_cm: Any = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        #: one tab per concurrent render, reused page after page (a new tab costs a renderer
        #: process: ~150 ms); each tab's route answers for the render it is lent to
        self._tabs: asyncio.Queue[Page] = asyncio.Queue()
        self._states: dict[int, _PageState] = {}
        self._generation = 0  # the browser's; a tab of an earlier browser is not put back
        self._in_flight = 0
        self._stale: str | None = None  # why the browser is to be restarted once it is idle
        self._marker = ""
        self._starting = asyncio.Lock()
        self._restarts = 0
        self._host_locks: dict[str, asyncio.Lock] = {}
        self._host_next: dict[str, float] = {}
        self._cache: OrderedDict[str, tuple[int, list[tuple[str, str]], bytes]] = OrderedDict()
        self._cache_bytes = 0
        self._memory_checked = 0.0
        self.peak_memory = 0  # the browser's largest measured resident size, bytes
        self.unavailable: str | None = None  # why rendering is off for this run

    # -- the browser ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start Playwright and the browser; :class:`RenderUnavailable` says what is missing."""
        async with self._starting:
            if self._browser is not None and self._browser.is_connected():
                return
            if self.unavailable is not None:
                raise RenderUnavailable(self.unavailable)
            executable = find_browser(self.browser_setting)
            if executable is None:
                self.unavailable = (
                    f"no browser to render with ({self.browser_setting or ', '.join(BROWSERS)} not "
                    "found): install Debian's chromium package, or set crawl.render_browser"
                )
                raise RenderUnavailable(self.unavailable)
            try:
                from playwright.async_api import async_playwright  # noqa: PLC0415 - optional
            except ImportError:
                self.unavailable = "rendering needs Playwright: pip install 'trawl[render]'"
                raise RenderUnavailable(self.unavailable) from None
            self._marker = f"--trawl-render={uuid.uuid4().hex}"
            heap = max(64, self.memory_mb // 2) if self.memory_mb else 0
            args = [
                self._marker,
                # Chromium reaches nothing by itself: every request is answered by the route
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-domain-reliability",
                "--disable-client-side-phishing-detection",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--no-first-run",
                "--mute-audio",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--renderer-process-limit=4",
                "--blink-settings=imagesEnabled=false",
            ]
            if heap:
                args.append(f"--js-flags=--max-old-space-size={heap}")
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                args.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
            try:
                if self._pw is None:
                    self._pw_cm = async_playwright()
                    self._pw = await self._pw_cm.start()
                assert self._pw is not None
                self._browser = await self._pw.chromium.launch(
                    executable_path=executable, args=args, headless=True, timeout=30_000
                )
                self._context = await self._browser.new_context(
                    user_agent=self.user_agent or None, service_workers="block", accept_downloads=False
                )
                self._generation += 1
                while not self._tabs.empty():  # an earlier browser's
                    self._tabs.get_nowait()
                for _ in range(self.concurrency):
                    self._tabs.put_nowait(await self._new_tab())
            except Exception as exc:  # a browser that will not start: rendering is off, the crawl goes on
                self.unavailable = f"{executable} did not start: {type(exc).__name__}: {str(exc)[:300]}"
                await self._stop_playwright()
                raise RenderUnavailable(self.unavailable) from exc
            self.stats.inc("render/browser-starts")

    async def _new_tab(self) -> Page:
        assert self._context is not None
        page = await self._context.new_page()
        generation = self._generation

        def crashed(_page: object) -> None:
            state = self._states.get(id(page))
            if state is not None:
                state.crashed = True

        async def route(route: Route, request: Request) -> None:
            state = self._states.get(id(page))
            if state is None or generation != self._generation:  # between renders: nothing loads
                with contextlib.suppress(Exception):
                    await route.abort("aborted")
                return
            await self._answer(route, request, state)

        page.on("crash", crashed)
        await page.route("**/*", route)
        return page

    async def _restart(self, why: str) -> None:
        """Close the browser (the next render starts another), counted by why."""
        self._restarts += 1
        self.stats.inc(f"render/restart/{why}")
        browser, self._browser, self._context = self._browser, None, None
        self._generation += 1
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), timeout=10.0)
        if self._restarts > MAX_RESTARTS:
            self.unavailable = f"the browser was restarted {MAX_RESTARTS} times (last: {why})"

    async def _stop_playwright(self) -> None:
        if self._pw_cm is not None:
            with contextlib.suppress(Exception):
                await self._pw_cm.__aexit__(None, None, None)
        self._pw = self._pw_cm = None

    async def close(self) -> None:
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._browser.close(), timeout=10.0)
            self._browser = self._context = None
        await self._stop_playwright()

    # -- one page ---------------------------------------------------------------------------

    async def render(self, url: str, resp: FetchResponse) -> Rendered:
        """The DOM of ``url`` once its scripts have run, ``resp`` (what the crawler fetched)
        serving the page itself. :class:`RenderUnavailable` if rendering is off for the run;
        :class:`RuntimeError` (counted) if this page could not be rendered."""
        while True:
            if self._stale is not None and self._in_flight == 0:
                why, self._stale = self._stale, None
                await self._restart(why)
            await self.start()
            if self._stale is None or self._in_flight:
                break
        generation = self._generation
        tabs = self._tabs
        try:  # one render per tab: at most ``concurrency`` at once
            tab = await asyncio.wait_for(tabs.get(), timeout=self.timeout * self.concurrency + 30.0)
        except TimeoutError:
            self.stats.inc("render/error/no-tab")
            self._stale = self._stale or "hung"
            raise RuntimeError("no browser tab came free") from None
        self._in_flight += 1
        keep = True
        try:
            # the page's own deadline is the timeout; this one catches a browser that stopped
            # answering (a render never holds the crawl)
            return await asyncio.wait_for(self._render(tab, url, resp), timeout=self.timeout + 20.0)
        except TimeoutError:
            keep = False
            self.stats.inc("render/error/hung")
            self._stale = self._stale or "hung"
            raise RuntimeError("the browser stopped answering") from None
        except RuntimeError:
            keep = False  # a tab that failed is not lent again
            raise
        finally:
            self._in_flight -= 1
            self._states.pop(id(tab), None)
            if generation == self._generation and self._context is not None:
                if not keep:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(tab.close(), timeout=5.0)
                    try:
                        tab = await self._new_tab()
                        keep = True
                    except Exception:  # the browser is gone: restart before the next render
                        self._stale = self._stale or "crashed"
                if keep:
                    tabs.put_nowait(tab)
            # (else the browser was restarted under this render: start() made new tabs)
            await self._check_memory()

    async def _render(self, tab: Page, url: str, resp: FetchResponse) -> Rendered:
        from playwright.async_api import Error as PlaywrightError  # noqa: PLC0415 - optional
        from playwright.async_api import TimeoutError as PlaywrightTimeout  # noqa: PLC0415

        started = time.monotonic()
        deadline = started + self.timeout
        state = _PageState(url, _host(url), resp, last_activity=started)
        self._states[id(tab)] = state
        timed_out = False
        try:
            try:
                await tab.goto(url, wait_until="load", timeout=max(1.0, deadline - time.monotonic()) * 1000)
            except PlaywrightTimeout:
                timed_out = True
            except PlaywrightError as exc:
                if state.crashed:
                    self.stats.inc("render/error/crashed")
                    raise RuntimeError("the page crashed") from exc
                if not state.served:
                    self.stats.inc("render/error/load")
                    raise RuntimeError(f"the page did not load: {str(exc)[:200]}") from exc
            while not timed_out and not state.crashed:
                now = time.monotonic()
                if now >= deadline:
                    timed_out = True
                    break
                if state.pending == 0 and now - state.last_activity >= SETTLE_SECONDS:
                    break
                await asyncio.sleep(0.025)
            if state.crashed:
                self.stats.inc("render/error/crashed")
                raise RuntimeError("the page crashed")
            if timed_out:
                self.stats.inc("render/timeout")
            # (a page still running a script may not answer: its DOM is given up on then)
            html = await asyncio.wait_for(tab.content(), timeout=2.0 if timed_out else 5.0)
        except RuntimeError:
            raise
        except (PlaywrightError, TimeoutError) as exc:
            self.stats.inc("render/error/page")
            raise RuntimeError(f"rendering failed: {type(exc).__name__}: {str(exc)[:200]}") from exc
        seconds = time.monotonic() - started
        self.stats.inc("render/pages")
        self.stats.inc("render/ms", int(seconds * 1000))
        self.stats.inc("render/requests", state.requests)
        return Rendered(html, seconds, state.requests, state.blocked, timed_out, state.navigations)

    async def _answer(self, route: Route, request: Request, state: _PageState) -> None:
        """Serve, fetch or refuse one request of the page (never raises: Playwright would log it
        and the page would hang on the request)."""
        state.pending += 1
        try:
            await self._answer_inner(route, request, state)
        except Exception as exc:  # a closed page, a fetch that broke: the request fails, the render goes on
            self.stats.inc(f"render/error/request/{type(exc).__name__}")
            with contextlib.suppress(Exception):
                await route.abort("failed")
        finally:
            state.pending -= 1
            state.last_activity = time.monotonic()

    def _block(self, state: _PageState, why: str) -> None:
        state.blocked += 1
        self.stats.inc(f"render/blocked/{why}")

    async def _answer_inner(self, route: Route, request: Request, state: _PageState) -> None:
        url = request.url
        resp = state.resp
        kind = request.resource_type
        if request.is_navigation_request() and request.frame.parent_frame is None:
            if not state.served:
                state.served = True
                headers = [
                    (k, v)
                    for k, v in resp.headers
                    if k.lower() in ("content-type", "content-language", "last-modified")
                ]
                body = entity(resp)
                await route.fulfill(status=200, headers=dict(headers), body=body)
                return
            # a script sends the page elsewhere: where to is a link, the page stays
            state.navigations.append(url)
            self.stats.inc("render/navigations")
            await route.abort("aborted")
            return
        if not url.startswith(("http://", "https://")):
            self._block(state, "scheme")
            await route.abort("blockedbyclient")
            return
        if kind in BLOCKED_TYPES or kind not in FETCHED_TYPES:
            self._block(state, kind if kind in BLOCKED_TYPES else "other")
            await route.abort("blockedbyclient")
            return
        if request.method != "GET":
            self._block(state, "method")
            await route.abort("blockedbyclient")
            return
        host = _host(url)
        if _site(host) != _site(state.host):
            self._block(state, "offsite")
            await route.abort("blockedbyclient")
            return
        why = self.refuse(url)
        if why is not None:
            self._block(state, why)
            await route.abort("blockedbyclient")
            return
        if state.requests >= self.max_requests:
            self._block(state, "too-many")
            await route.abort("blockedbyclient")
            return
        cached = self._cache.get(url) if kind == "script" else None
        if cached is not None:
            self._cache.move_to_end(url)
            self.stats.inc("render/cache-hits")
            status, headers, body = cached
        else:
            if state.bytes >= self.max_bytes:
                self._block(state, "too-large")
                await route.abort("blockedbyclient")
                return
            got = await self._polite_fetch(host, url)
            status = got.status
            headers = [(k, v) for k, v in got.headers if k.lower() in ("content-type", "content-language")]
            body = entity(got)
            if kind == "script" and status == 200 and len(body) < CACHE_BYTES // 8:
                self._cache[url] = (status, headers, body)
                self._cache_bytes += len(body)
                while self._cache_bytes > CACHE_BYTES and self._cache:
                    _, (_, _, old) = self._cache.popitem(last=False)
                    self._cache_bytes -= len(old)
        state.requests += 1
        state.bytes += len(body)
        await route.fulfill(status=status, headers=dict(headers), body=body)

    async def _polite_fetch(self, host: str, url: str) -> FetchResponse:
        """One request at a time per host, the crawl's gap between them."""
        lock = self._host_locks.get(host)
        if lock is None:
            lock = self._host_locks[host] = asyncio.Lock()
        async with lock:
            wait = self._host_next.get(host, 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                got = await self.fetch(url)
            finally:
                self._host_next[host] = time.monotonic() + self.gap(host)
        self.stats.inc("render/fetched")
        return got

    async def _check_memory(self) -> None:
        """At most once a second: the browser's memory; over the cap, it is restarted once no
        render is using it."""
        if not self.memory_mb or self._browser is None:
            return
        now = time.monotonic()
        if now - self._memory_checked < 1.0:
            return
        self._memory_checked = now
        used = await asyncio.to_thread(browser_memory, self._marker)
        self.peak_memory = max(self.peak_memory, used)
        if used > self.memory_mb << 20:
            self._stale = self._stale or "memory"


def entity(resp: FetchResponse) -> bytes:
    """The body with its content coding undone (Chromium is handed plain bytes)."""
    ce = ", ".join(v for k, v in resp.headers if k.lower() == "content-encoding") or None
    if ce is None:  # (the transports store bodies de-chunked, without Transfer-Encoding)
        return resp.body
    return decode_payload(resp.body, None, ce, max_bytes=64 << 20).data
