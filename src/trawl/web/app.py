"""The ASGI application of ``trawl serve``: server-rendered pages, each also a JSON endpoint.

Every page ``/X`` has its data at ``/api/X``; ``/api/openapi.json`` describes every ``/api`` route.
Collections are reached only by the short names given at start (``/c/<name>/...``): no path
parameter is ever joined to a file system path, and a document key must be one the side index
(:mod:`trawl.web.index`) holds. Security: responses carry ``Content-Security-Policy:
default-src 'self'`` and ``X-Content-Type-Options: nosniff``; templates autoescape; a raw capture
is sent as ``text/plain`` or a download, never as HTML from this origin. Writes (``POST``) need
``Authorization: Bearer <token>``; with ``token_for_reads`` (a non-loopback ``--host``) every
route does, or the cookie the ``/login`` form sets.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import orjson
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trawl import __version__
from trawl.crawl.live import COMMANDS, combine, read_collection_live, send_command
from trawl.errors import RecordNotFound
from trawl.store.collection import Collection
from trawl.web.explain import EXAMPLES, EXPLAINERS, ExplainError, explain
from trawl.web.index import DocFilter, DocIndex
from trawl.web.jobs import Job, JobBusy, Jobs
from trawl.web.stats import StatsCache, freshness_stats, text_statistics

__all__ = ["SECURITY_HEADERS", "Served", "create_app", "short_names"]

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
COOKIE = "trawl_token"
PER_PAGE = 50
#: seconds a page waits for statistics being computed before it says so (and reloads)
PAGE_WAIT = 0.25
#: the largest form or JSON body an action reads
FORM_BYTES = 256 * 1024
#: seeds one start of a crawl may give
MAX_SEEDS = 1000
_KEY = re.compile(r"^[0-9a-f]{16}$")
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}


@dataclass(slots=True)
class Served:
    """One collection being served: its short name, directory and side index."""

    name: str
    path: Path
    index: DocIndex
    jobs: Jobs


def short_names(paths: Sequence[Path]) -> list[str]:
    """A URL-safe short name per collection: its directory's name, ``-2``, ``-3``... when taken."""
    names: list[str] = []
    for path in paths:
        base = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).resolve().name).strip("-.") or "collection"
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names


def _json(data: Any, status: int = 200) -> Response:
    body = orjson.dumps(data, default=_jsonable, option=orjson.OPT_NON_STR_KEYS)
    return Response(body, status_code=status, media_type="application/json")


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", "replace")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(seconds)))


def _local_path(path: str) -> str:
    """``path`` when it is a path on this server (where to go after signing in), else ``/``."""
    ok = path.startswith("/") and not path.startswith("//") and "\\" not in path and len(path) < 2000
    return path if ok and all(" " < c < "\x7f" for c in path) else "/"


def _text(value: Any) -> str:
    """A JSON value as a form field's text (``true``/``false`` for booleans, "" for null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _same(given: str, expected: str) -> bool:
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())


def cookie_token(cookie_header: str) -> str:
    """The login cookie's value in a ``Cookie`` header, or ""."""
    for part in cookie_header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


def csrf_value(token: str) -> str:
    """What a form that writes carries (``?csrf=``) beside the login cookie: derived from the
    token, so it cannot be guessed by another site and needs no server-side session."""
    return hmac.new(token.encode(), b"trawl serve: a form of this origin", "sha256").hexdigest()[:32]


class _Security:
    """Pure ASGI middleware: the security headers on every response, and the token check."""

    def __init__(self, app: ASGIApp, token: str | None, token_for_reads: bool) -> None:
        self.app = app
        self.token = token
        self.token_for_reads = token_for_reads

    def allowed(self, scope: Scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        method = scope.get("method", "GET")
        path = str(scope.get("path", ""))
        write = method not in ("GET", "HEAD", "OPTIONS")
        if path.startswith("/static/") or path == "/login":  # the login form checks the token itself
            return True
        if not write and not self.token_for_reads:
            return True
        if self.token is None:  # no token configured: nothing that needs one is reachable
            return False
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            return _same(auth[7:].strip(), self.token)
        # the browser's login cookie opens pages; a write needs it and the form's CSRF value,
        # which only a page of this origin holds (the cookie is SameSite=Strict as well)
        if not _same(cookie_token(headers.get("cookie", "")), self.token):
            return False
        if not write:
            return True
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return _same((query.get("csrf") or [""])[0], csrf_value(self.token))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message["headers"] = headers
            await send(message)

        if not self.allowed(scope):
            path = str(scope.get("path", ""))
            if self.token_for_reads and not path.startswith("/api/") and scope.get("method") == "GET":
                response: Response = RedirectResponse("/login", status_code=303)
            else:
                response = _json(
                    {"error": "unauthorized", "detail": "send Authorization: Bearer <token>"}, 401
                )
                response.headers["www-authenticate"] = 'Bearer realm="trawl"'
            await response(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)


class _Pages:
    """The route handlers; each page renders a template or, under ``/api``, returns its data."""

    def __init__(self, served: Mapping[str, Served], token_for_reads: bool) -> None:
        self.served = served
        self.token_for_reads = token_for_reads
        self.env = Environment(
            loader=FileSystemLoader(str(TEMPLATES)),
            autoescape=select_autoescape(default=True, default_for_string=True),
        )
        self.env.globals["version"] = __version__
        self.env.filters["datetime"] = _utc
        self.stats_cache = StatsCache()

    # -- helpers -------------------------------------------------------------------------------

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(template).render(**context), status_code=status)

    def collection(self, request: Request) -> Served:
        name = str(request.path_params.get("name", ""))
        found = self.served.get(name)
        if found is None:
            raise HTTPException(404, f"no collection named {name!r} is served")
        found.index.refresh_if_stale()
        return found

    def known_key(self, served: Served, key: str) -> str:
        """``key`` when the side index holds it: the only way a request names a document."""
        if _KEY.match(key):
            with served.index.connect() as db:
                if db.execute("SELECT 1 FROM docs WHERE key = ?", (key,)).fetchone():
                    return key
        raise HTTPException(404, f"no document {key!r} in collection {served.name!r}")

    @contextmanager
    def opened(self, served: Served) -> Iterator[Collection]:
        """The collection, open for one request (so a later ``trawl ingest`` can take it)."""
        with served.index.collection_lock:
            if why := served.index.hold():
                raise HTTPException(503, f"collection {served.name!r} cannot be read now: {why}")
            try:
                coll = Collection.open(served.path)
                coll.table  # noqa: B018 - opens RocksDB now, so a busy collection is said here
            except Exception as exc:
                raise HTTPException(503, f"collection {served.name!r} cannot be read now: {exc}") from exc
            try:
                yield coll
            finally:
                coll.close()

    @staticmethod
    def api(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    # -- pages ---------------------------------------------------------------------------------

    def _home(self) -> dict[str, Any]:
        out = []
        for s in self.served.values():
            s.index.refresh_if_stale()
            summary = s.index.summary()
            out.append(
                {
                    "name": s.name,
                    "documents": summary["documents"],
                    "hosts": summary["hosts"],
                    "bytes": summary["bytes"],
                    "url": f"/c/{s.name}/",
                }
            )
        return {"version": __version__, "collections": out}

    async def home(self, request: Request) -> Response:
        """The collections served, with their counts and sizes."""
        data = await run_in_threadpool(self._home)
        if self.api(request):
            return _json(data)
        return self.page("home.html", **data)

    def _overview(self, served: Served) -> dict[str, Any]:
        return {"name": served.name, "note": served.index.note, **served.index.summary()}

    async def overview(self, request: Request) -> Response:
        """One collection's counts: documents, hosts, languages, formats, statuses, bytes, dates."""
        served = self.collection(request)
        data = await run_in_threadpool(self._overview, served)
        if self.api(request):
            return _json(data)
        return self.page("collection.html", c=data, auth=self.auth(request))

    async def docs(self, request: Request) -> Response:
        """Documents filtered by host, URL prefix, language, format, status, date, duplicate
        cluster and full-text query ``q``, ``per_page`` at a time (``page`` from 1)."""
        served = self.collection(request)
        p = request.query_params
        flt = DocFilter(
            host=p.get("host", ""),
            prefix=p.get("prefix", ""),
            lang=p.get("lang", ""),
            format=p.get("format", ""),
            status=p.get("status", ""),
            date_from=p.get("from", ""),
            date_to=p.get("to", ""),
            dup=p.get("dup", ""),
            q=p.get("q", "").strip(),
        )
        try:
            page = max(1, int(p.get("page", "1")))
            per_page = min(500, max(1, int(p.get("per_page", str(PER_PAGE)))))
        except ValueError as exc:
            raise HTTPException(400, "page and per_page must be whole numbers") from exc
        rows, total = await run_in_threadpool(served.index.documents, flt, page=page, per_page=per_page)
        pages = max(1, -(-total // per_page))
        base = {k: v for k, v in flt.as_dict().items() if v}
        data = {
            "collection": served.name,
            "filter": flt.as_dict(),
            "page": page,
            "per_page": per_page,
            "pages": pages,
            "total": total,
            "documents": [
                {**r, "doc": f"/c/{served.name}/doc/{r['key']}", "raw": f"/c/{served.name}/raw/{r['key']}"}
                for r in rows
            ],
        }
        if self.api(request):
            return _json(data)
        prev_url = f"?{urlencode({**base, 'page': page - 1})}" if page > 1 else ""
        next_url = f"?{urlencode({**base, 'page': page + 1})}" if page < pages else ""
        return self.page("docs.html", d=data, prev_url=prev_url, next_url=next_url, note=served.index.note)

    def _journey(self, served: Served, key: str) -> dict[str, Any]:
        with self.opened(served) as coll:
            try:
                from trawl.web.journey import journey  # noqa: PLC0415 - written beside this module
            except ImportError:  # the journey module is not there: the stored record as it is
                try:
                    return coll.find(key).as_dict()
                except RecordNotFound as exc:
                    raise HTTPException(404, str(exc)) from exc
            try:
                return dict(journey(coll, key))
            except RecordNotFound as exc:
                raise HTTPException(404, str(exc)) from exc

    async def doc(self, request: Request) -> Response:
        """One document's journey through every stage (request, bytes, decoding, extraction,
        language, fingerprints, duplicates, versions, anchors, units)."""
        served = self.collection(request)
        key = self.known_key(served, str(request.path_params["key"]))
        data = await run_in_threadpool(self._journey, served, key)
        if self.api(request):
            return _json(data)
        context: dict[str, Any] = {"c": {"name": served.name}, "key": key, "journey": data}
        if (TEMPLATES / "doc.html").is_file():
            return self.page("doc.html", **context)
        return self.page("doc_generic.html", **context)

    def _raw(self, served: Served, key: str) -> tuple[bytes, str, str]:
        with self.opened(served) as coll:
            try:
                record = coll.find(key)
                doc = coll.read(record)
            except RecordNotFound as exc:
                raise HTTPException(404, str(exc)) from exc
            encoding = str(record.cells.get("meta", {}).get("decode", {}).get("encoding") or "")
            declared = str(record.capture.get("sniffed_type") or record.capture.get("declared_type") or "")
        return doc.raw, declared, encoding

    async def raw(self, request: Request) -> Response:
        """The stored capture's payload bytes: ``text/plain`` for text, else a download (never
        rendered as a page from this origin). ``?download=1`` always downloads."""
        served = self.collection(request)
        key = self.known_key(served, str(request.path_params["key"]))
        body, declared, encoding = await run_in_threadpool(self._raw, served, key)
        texty = declared.startswith("text/") or declared.endswith(("+xml", "/xml", "/json"))
        headers = {"content-security-policy": "default-src 'none'; sandbox"}
        if texty and not request.query_params.get("download"):
            charset = encoding if re.fullmatch(r"[A-Za-z0-9._:-]{1,40}", encoding) else "utf-8"
            return Response(body, media_type=f"text/plain; charset={charset}", headers=headers)
        headers["content-disposition"] = f'attachment; filename="{key}.bin"'
        return Response(body, media_type="application/octet-stream", headers=headers)

    async def reindex(self, request: Request) -> Response:
        """Rebuild the collection's side index now (needs the token): counts of rows added,
        updated, removed and scanned."""
        served = self.collection(request)
        try:
            counts = await run_in_threadpool(served.index.refresh, force=True)
        except HTTPException:
            raise
        except Exception as exc:
            raise HTTPException(503, f"collection {served.name!r} cannot be read now: {exc}") from exc
        if self.api(request):
            return _json({"collection": served.name, **counts})
        return RedirectResponse(f"/c/{served.name}/", status_code=303)

    # -- actions: writes, from the API (Bearer token) or a signed-in page's forms ---------------

    def auth(self, request: Request) -> dict[str, Any]:
        """What a page's forms need: whether the server has a token at all, the CSRF value when
        the browser is signed in (else ""), and where to sign in."""
        token = request.app.state.token
        if not token:
            return {"token": False, "csrf": "", "login": ""}
        signed = _same(cookie_token(request.headers.get("cookie", "")), token)
        login = f"/login?{urlencode({'next': request.url.path})}"
        return {"token": True, "csrf": csrf_value(token) if signed else "", "login": login}

    @staticmethod
    async def fields(request: Request) -> dict[str, list[str]]:
        """A request's fields: a JSON object (lists kept, values as text) or a form."""
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > FORM_BYTES:
                raise HTTPException(413, f"the request is over {FORM_BYTES:,} bytes")
        if request.headers.get("content-type", "").startswith("application/json"):
            try:
                data = orjson.loads(body or b"{}")
            except orjson.JSONDecodeError as exc:
                raise HTTPException(400, f"the body is not JSON: {exc}") from exc
            if not isinstance(data, dict):
                raise HTTPException(400, "the body must be a JSON object")
            return {str(k): [_text(x) for x in (v if isinstance(v, list) else [v])] for k, v in data.items()}
        return parse_qs(body.decode("utf-8", "replace"))

    def _start_job(self, served: Served, kind: str, args: list[str], **extra: Any) -> Job:
        state = self._crawl_state(served)["state"]
        if state in ("running", "paused", "stopping"):
            raise HTTPException(409, f"a crawl runs on {served.name!r} ({state}): one writer at a time")
        with served.index.collection_lock:  # the server's own use of the store ends first
            try:
                return served.jobs.start(kind, args, **extra)
            except JobBusy as exc:
                raise HTTPException(409, str(exc)) from exc

    async def crawl_start(self, request: Request) -> Response:
        """Start ``trawl crawl`` on the collection (needs the token): ``seeds`` (URLs, one per
        line or a list), ``max_pages``, ``max_time`` (seconds), ``resume`` (continue the last
        crawl with its saved settings); 202 with the job, 409 when a crawl or job runs."""
        served = self.collection_name(request)
        f = await self.fields(request)
        seeds = [u for v in f.get("seeds", []) for u in v.split()]
        if len(seeds) > MAX_SEEDS:
            raise HTTPException(400, f"at most {MAX_SEEDS:,} seeds")
        for url in seeds:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 2048:
                raise HTTPException(400, f"not an http(s) URL: {url[:200]!r}")
        resume = (f.get("resume") or [""])[-1].lower() in ("1", "on", "true", "yes")
        if not seeds and not resume:
            raise HTTPException(400, "give at least one seed URL, or resume the last crawl")
        args = [*seeds, "-o", str(served.path)]
        if resume:
            args.append("--resume")
        for name, flag, kind in (("max_pages", "--max-pages", int), ("max_time", "--max-time", float)):
            value = (f.get(name) or [""])[-1].strip()
            if value:
                try:
                    number = kind(value)
                except ValueError as exc:
                    raise HTTPException(400, f"{name} must be a number, not {value[:40]!r}") from exc
                if not 0 < number <= 1e9:
                    raise HTTPException(400, f"{name} must be above 0")
                args += [flag, str(number)]
        job = await run_in_threadpool(self._start_job, served, "crawl", args, seeds=len(seeds))
        if self.api(request):
            return _json({"collection": served.name, "job": job.as_dict()}, 202)
        return RedirectResponse(f"/c/{served.name}/crawl", status_code=303)

    async def dedup(self, request: Request) -> Response:
        """Run near-duplicate discovery over the collection (``trawl dedup COLLECTION``, its
        configured methods) as a job (needs the token); 202 with the job, 409 when one runs."""
        served = self.collection_name(request)
        job = await run_in_threadpool(self._start_job, served, "dedup", [str(served.path)])
        if self.api(request):
            return _json({"collection": served.name, "job": job.as_dict()}, 202)
        return RedirectResponse(f"/c/{served.name}/jobs", status_code=303)

    def _jobs(self, served: Served) -> dict[str, Any]:
        jobs = [{**j.as_dict(), "output": served.jobs.log_tail(j)} for j in served.jobs.listed()]
        return {"collection": served.name, "jobs": jobs}

    async def jobs(self, request: Request) -> Response:
        """The crawls and dedup runs started from here, newest first, with their state, exit
        status and the end of their output."""
        served = self.collection_name(request)
        data = await run_in_threadpool(self._jobs, served)
        if self.api(request):
            return _json(data)
        return self.page("jobs.html", c={"name": served.name}, j=data, auth=self.auth(request))

    async def crawl_form(self, request: Request) -> Response:
        """The monitor's forms: start, pause, resume or stop, then back to the monitor."""
        served = self.collection_name(request)
        if request.path_params["command"] == "start":
            return await self.crawl_start(request)
        await self.crawl_control(request)
        return RedirectResponse(f"/c/{served.name}/crawl", status_code=303)

    def _text_stats(self, served: Served, wait: float | None) -> dict[str, Any] | None:
        def compute() -> dict[str, Any]:
            with self.opened(served) as coll:
                return text_statistics(coll, served.index)

        return self.stats_cache.get(served.path, "text", compute, wait=wait)

    def computing(self, served: Served, what: str, path: str) -> Response:
        """The page a large collection's statistics are not ready for yet: it asks again."""
        return self.page("computing.html", c={"name": served.name}, what=what, path=path)

    async def stats(self, request: Request) -> Response:
        """Term statistics as trawl stats computes them: Zipf and Heaps fits with their plots
        (inline SVG), hapax legomena, top terms, per-host text share and boilerplate terms.
        Computed once a collection generation (a sample of a large one, in seconds): the JSON
        waits for them, the page says they are being computed and reloads."""
        served = self.collection(request)
        api = self.api(request)
        found = await run_in_threadpool(self._text_stats, served, None if api else PAGE_WAIT)
        if found is None:
            return self.computing(served, "Term statistics", f"/c/{served.name}/stats")
        data = {"collection": served.name, **found}
        if api:
            return _json({k: v for k, v in data.items() if k != "plots"})
        return self.page("stats.html", c={"name": served.name}, s=data)

    def _freshness(self, served: Served, wait: float | None) -> dict[str, Any] | None:
        # freshness moves with the clock: recomputed after a minute even when nothing was fetched
        # (the last answer is shown meanwhile)
        compute = functools.partial(freshness_stats, served.path)
        return self.stats_cache.get(served.path, "freshness", compute, max_age=60, wait=wait)

    async def freshness(self, request: Request) -> Response:
        """Freshness as trawl freshness computes it, overall and per host, and the expected
        freshness and age over time since the crawl's last fetch (when the crawl revisits)."""
        served = self.collection(request)
        api = self.api(request)
        found = await run_in_threadpool(self._freshness, served, None if api else PAGE_WAIT)
        if found is None:
            return self.computing(served, "Freshness", f"/c/{served.name}/freshness")
        data = {"collection": served.name, **found}
        if api:
            return _json({k: v for k, v in data.items() if k != "plots"})
        return self.page("freshness.html", c={"name": served.name}, f=data)

    def _crawl_state(self, served: Served) -> dict[str, Any]:
        states, _ = read_collection_live(served.path)  # a sharded crawl's shards (and partitions') as one
        live = combine(states)
        data = {"collection": served.name, **(live or {"state": "none"})}
        job = served.jobs.running()
        if (
            job is not None
            and job.kind == "crawl"
            and data["state"] in ("none", "finished", "gone")
            and float(data.get("started") or 0) < job.started
        ):  # a crawl started here that has not published its state yet (an earlier one's is shown)
            data.update(state="starting", job=job.id)
        return data

    async def crawl(self, request: Request) -> Response:
        """The crawl running on the collection, as it publishes itself (frontier/crawl.live.json):
        state (running, paused, stopping, finished, gone: killed; none: no crawl), pages, bytes,
        rates and their recent series, frontier, hosts with politeness delay and next-allowed
        time, status classes, errors, robots decisions, recent fetches. A sharded crawl's shards
        (frontier/shard-i-of-N.live.json) are summed, and listed under ``shards``."""
        served = self.collection_name(request)
        data = await run_in_threadpool(self._crawl_state, served)
        if self.api(request):
            return _json(data)
        return self.page(
            "crawl.html", c={"name": served.name}, s=data, spark=_sparkline(data), auth=self.auth(request)
        )

    async def crawl_events(self, request: Request) -> Response:
        """Server-sent events: the crawl's state (as /api/c/{name}/crawl) each time it changes,
        a comment line as heartbeat every 10 s; the stream ends when the crawl does."""
        served = self.collection_name(request)

        async def events() -> AsyncIterator[bytes]:
            last, beat = None, time.monotonic()
            while True:
                data = await run_in_threadpool(self._crawl_state, served)
                stamp = (data.get("updated"), data.get("state"))
                if stamp != last:
                    last, beat = stamp, time.monotonic()
                    yield b"event: state\ndata: " + orjson.dumps(data) + b"\n\n"
                elif time.monotonic() - beat >= 10:
                    beat = time.monotonic()
                    yield b": heartbeat\n\n"
                if data["state"] in ("finished", "gone", "none"):
                    return
                await asyncio.sleep(0.25)

        headers = {"cache-control": "no-cache", "x-accel-buffering": "no"}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    async def crawl_control(self, request: Request) -> Response:
        """Pause, resume or stop the running crawl, every running or paused shard of a sharded
        one (needs the token); 409 when none runs."""
        served = self.collection_name(request)
        command = str(request.path_params["command"])
        if command not in COMMANDS:
            raise HTTPException(404, f"no crawl command {command!r}: use one of {', '.join(COMMANDS)}")
        data = await run_in_threadpool(self._crawl_state, served)
        shards = data.get("shards") or [{"name": "crawl", "state": data["state"]}]
        names = [shard["name"] for shard in shards if shard["state"] in ("running", "paused")]
        if not names:
            raise HTTPException(409, f"no crawl is running on {served.name!r} (state: {data['state']})")
        _, where = await run_in_threadpool(read_collection_live, served.path)
        for name in names:
            await run_in_threadpool(send_command, where.get(name, served.path / "frontier"), command, name)
        sent = {"collection": served.name, "sent": command, "state": data["state"]}
        return _json(sent if "shards" not in data else {**sent, "shards": names}, 202)

    def collection_name(self, request: Request) -> Served:
        """The served collection the request names, without touching its index (a running
        crawl may hold the collection)."""
        name = str(request.path_params.get("name", ""))
        found = self.served.get(name)
        if found is None:
            raise HTTPException(404, f"no collection named {name!r} is served")
        return found

    async def openapi(self, request: Request) -> Response:
        """This description."""
        return _json(openapi_schema(self.routes_api))

    async def login(self, request: Request) -> Response:
        """The token form (for a server on a non-loopback address); sets an HttpOnly cookie."""
        if request.method == "GET":
            after = _local_path(request.query_params.get("next", ""))
            return self.page("login.html", failed=False, next=after, token=bool(request.app.state.token))
        form = await self.fields(request)
        token = (form.get("token") or [""])[0]
        after = _local_path((form.get("next") or [""])[0])
        app_token = request.app.state.token
        if app_token and token and hmac.compare_digest(token.encode(), app_token.encode()):
            response = RedirectResponse(after, status_code=303)
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
            return response
        return self.page("login.html", status=401, failed=True, next=after, token=bool(app_token))

    async def explain_index(self, request: Request) -> Response:
        """The explain pages: the course's algorithms stepped through on any text."""
        pages = [{"name": n, "title": t, "url": f"/explain/{n}"} for n, (t, _) in EXPLAINERS.items()]
        data: dict[str, Any] = {"pages": pages}
        if self.api(request):
            return _json(data)
        return self.page("explain_index.html", **data)

    async def explain(self, request: Request) -> Response:
        """One algorithm on ``text`` (the page's example when absent): utf8, cavnar (top,
        langs), fingerprint (n, p, w), simhash (bits, hashes=word:0101..., weights=word:2) or
        bte (text is HTML)."""
        name = str(request.path_params["method"])
        if name not in EXPLAINERS:
            raise HTTPException(404, f"no explain page {name!r}: choose one of {', '.join(EXPLAINERS)}")
        params = dict(request.query_params) if "text" in request.query_params else dict(EXAMPLES[name])
        try:
            data, error = await run_in_threadpool(explain, name, params), ""
        except ExplainError as exc:
            if self.api(request):
                return _json({"error": 400, "detail": str(exc)}, 400)
            data, error = {"method": name, "title": EXPLAINERS[name][0]}, str(exc)
        if self.api(request):
            return _json(data)
        return self.page(f"explain_{name}.html", status=400 if error else 200, e=data, q=params, error=error)

    routes_api: list[Route]


def _sparkline(data: Mapping[str, Any], width: int = 240, height: int = 40) -> str:
    """The SVG ``points`` of the pages/s series (the page's first drawing; the script redraws)."""
    rates = [float(s[1]) for s in data.get("series", [])]
    if len(rates) < 2:
        return ""
    top = max(rates) or 1.0
    step = width / (len(rates) - 1)
    return " ".join(f"{i * step:.1f},{height - r / top * height:.1f}" for i, r in enumerate(rates))


#: the OpenAPI description of each /api route: (summary, parameters, response description)
_PARAMS: dict[str, list[tuple[str, str, str]]] = {
    "/api/explain/{method}": [
        ("text", "query", "the text (HTML for bte), at most 20,000 characters; absent: the example"),
        ("n", "query", "fingerprint: words per n-gram (3)"),
        ("p", "query", "fingerprint: keep hashes that are 0 mod p (4)"),
        ("w", "query", "fingerprint: winnowing window (4)"),
        ("bits", "query", "simhash: bits of the fingerprint (64; 8 for the textbook example)"),
        ("hashes", "query", "simhash: given word hashes, word:01100001,... (only those words count)"),
        ("weights", "query", "simhash: given weights, word:2,... (else term frequency)"),
        ("top", "query", "cavnar: n-grams listed (50)"),
        ("langs", "query", "cavnar: languages listed (10)"),
    ],
    "/api/c/{name}/docs": [
        ("host", "query", "host name (file: for local files)"),
        ("prefix", "query", "URL prefix"),
        ("lang", "query", "language code"),
        ("format", "query", "sniffed media type"),
        ("status", "query", "HTTP status, or 'none'"),
        ("from", "query", "first date, YYYY-MM-DD"),
        ("to", "query", "last date, YYYY-MM-DD"),
        ("dup", "query", "'any', 'none', or a cluster's representative"),
        ("q", "query", "words, all required, in title or text (FTS5)"),
        ("page", "query", "page number from 1"),
        ("per_page", "query", "documents per page (1-500, 50)"),
    ],
}


def _held_by_job(jobs: Jobs) -> str:
    """Why the server must not open the collection now: a job it started writes it."""
    job = jobs.running()
    return f"a {job.kind} started here (job {job.id}) writes it; see its jobs page" if job else ""


_FORM = "application/x-www-form-urlencoded"
#: the fields of a POST route's body: (name, JSON type, description)
_BODIES: dict[str, list[tuple[str, str, str]]] = {
    "/api/c/{name}/crawl/start": [
        ("seeds", "array", "seed URLs (http, https); a form gives them one per line"),
        ("max_pages", "integer", "at most this many pages (--max-pages)"),
        ("max_time", "number", "for at most this many seconds (--max-time)"),
        ("resume", "boolean", "continue the last crawl with its saved settings (--resume)"),
    ],
}


def openapi_schema(routes: Sequence[Route]) -> dict[str, Any]:
    """OpenAPI 3.1 for ``routes``, from their docstrings and path parameters."""
    paths: dict[str, Any] = {}
    for route in routes:
        path = route.path.replace("{key:path}", "{key}")
        doc = (route.endpoint.__doc__ or "").strip()
        summary = " ".join(doc.split())
        params = [
            {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
            for p in re.findall(r"{(\w+)(?::\w+)?}", route.path)
        ]
        params += [
            {"name": n, "in": where, "required": False, "schema": {"type": "string"}, "description": d}
            for n, where, d in _PARAMS.get(route.path, [])
        ]
        for method in sorted((route.methods or set()) - {"HEAD"}):
            op: dict[str, Any] = {
                "summary": summary.split(". ")[0][:120],
                "description": summary,
                "parameters": params,
                "responses": {
                    "200": {"description": "the page's data", "content": {"application/json": {}}},
                    "401": {"description": "the token is missing or wrong"},
                    "404": {"description": "no such collection or document"},
                },
            }
            if method == "POST":
                op["security"] = [{"bearer": []}]
                op["responses"]["409"] = {"description": "a crawl or a job runs on the collection"}
            if method == "POST" and route.path in _BODIES:
                props = {n: {"type": t, "description": d} for n, t, d in _BODIES[route.path]}
                schema = {"type": "object", "properties": props}
                op["requestBody"] = {
                    "required": False,
                    "content": {"application/json": {"schema": schema}, _FORM: {"schema": schema}},
                }
            paths.setdefault(path, {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "trawl serve", "version": __version__},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }


def create_app(
    collections: Sequence[Path] | Mapping[str, Path],
    token: str | None = None,
    *,
    token_for_reads: bool = False,
    refresh: bool = True,
) -> Starlette:
    """The application serving ``collections`` (paths, named by :func:`short_names`, or a
    mapping of names to paths). ``token``: what writes (and, with ``token_for_reads``, every
    route) require. ``refresh``: bring each side index up to date now (else on first request)."""
    if isinstance(collections, Mapping):
        named = dict(collections)
    else:
        named = dict(zip(short_names(collections), collections, strict=True))
    served: dict[str, Served] = {}
    for name, given in named.items():
        path = Path(given).resolve()
        if not Collection.is_collection(path):
            Collection.open(path)  # raises CollectionNotFound with the fix
        index = DocIndex(path, threading.Lock())
        jobs = Jobs(path)
        index.hold = functools.partial(_held_by_job, jobs)
        if refresh:
            index.refresh_now()
        served[name] = Served(name, path, index, jobs)
    pages = _Pages(served, token_for_reads)
    pairs: list[tuple[str, Callable[[Request], Awaitable[Response]], list[str]]] = [
        ("/", pages.home, ["GET"]),
        ("/c/{name}/", pages.overview, ["GET"]),
        ("/c/{name}/docs", pages.docs, ["GET"]),
        ("/c/{name}/doc/{key:path}", pages.doc, ["GET"]),
        ("/c/{name}/stats", pages.stats, ["GET"]),
        ("/c/{name}/freshness", pages.freshness, ["GET"]),
        ("/c/{name}/crawl", pages.crawl, ["GET"]),
        ("/explain/", pages.explain_index, ["GET"]),
        ("/explain/{method}", pages.explain, ["GET"]),
    ]
    api: list[tuple[str, Callable[[Request], Awaitable[Response]], list[str]]] = [
        ("/api/collections", pages.home, ["GET"]),
        ("/api/c/{name}", pages.overview, ["GET"]),
        ("/api/c/{name}/docs", pages.docs, ["GET"]),
        ("/api/c/{name}/doc/{key:path}", pages.doc, ["GET"]),
        ("/api/c/{name}/stats", pages.stats, ["GET"]),
        ("/api/c/{name}/freshness", pages.freshness, ["GET"]),
        ("/api/c/{name}/reindex", pages.reindex, ["POST"]),
        ("/api/c/{name}/dedup", pages.dedup, ["POST"]),
        ("/api/c/{name}/jobs", pages.jobs, ["GET"]),
        ("/api/c/{name}/crawl/start", pages.crawl_start, ["POST"]),
        ("/api/c/{name}/crawl", pages.crawl, ["GET"]),
        ("/api/c/{name}/crawl/events", pages.crawl_events, ["GET"]),
        ("/api/c/{name}/crawl/{command}", pages.crawl_control, ["POST"]),
        ("/api/openapi.json", pages.openapi, ["GET"]),
        ("/api/explain", pages.explain_index, ["GET"]),
        ("/api/explain/{method}", pages.explain, ["GET"]),
    ]
    pages.routes_api = [Route(p, e, methods=m) for p, e, m in api]
    routes: list[Any] = [Route(p, e, methods=m) for p, e, m in pairs]
    routes += [
        Route("/c/{name}/raw/{key:path}", pages.raw, methods=["GET"]),
        Route("/login", pages.login, methods=["GET", "POST"]),
        Route("/c/{name}/jobs", pages.jobs, methods=["GET"]),
        Route("/c/{name}/reindex", pages.reindex, methods=["POST"]),
        Route("/c/{name}/dedup", pages.dedup, methods=["POST"]),
        Route("/c/{name}/crawl/{command}", pages.crawl_form, methods=["POST"]),
        *pages.routes_api,
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]

    async def error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        if request.url.path.startswith("/api/"):
            return _json({"error": status, "detail": detail}, status)
        return pages.page("error.html", status=status, status_code=status, detail=detail)

    app = Starlette(routes=routes, exception_handlers={HTTPException: error})
    app.state.token = token
    app.state.served = served
    app.add_middleware(_Security, token=token, token_for_reads=token_for_reads)
    return app
