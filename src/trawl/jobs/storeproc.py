"""The crawl's pipeline and collection writes in worker processes, beside the event loop.

Converting a page (type sniffing, charset detection, decoding, the lexbor parse, text and
links, then main-content extraction and language tagging when the collection's configuration
asks for them: the steps of ``trawl ingest``) and storing it (WARC record compressed and
written, table row, anchors, request record) cost many times what fetching it does. Done inside
the asyncio loop they stalled every fetch in flight; done here they run on other cores while
the loop goes on fetching. By default two workers form a chain, *convert* then *store* (the
only process that writes the collection), so the parse of one page overlaps the write of the
one before; one worker can do both.

Protocol (pipes, first in first out):

* the loop calls :meth:`StoreWorker.submit` with a :class:`StoreJob` (the response and what to
  do with it) and awaits a :class:`StoreOutcome` — the links found, the ``nofollow`` flag and,
  for focused crawls, the text; the outcome arrives *after* the page is written, so the crawler
  marks a URL done in its frontier only once its page is in the collection (the resume
  guarantee of :mod:`trawl.crawl.frontier` holds unchanged);
* a sender thread drains the job queue into batches (as many as have arrived while the worker
  was busy), a receiver thread hands the results back to the loop; the worker sends its
  counters and audit entries with every batch, merged into the run's own;
* the worker owns the collection for writing while the crawl runs (the parent closes its table
  handle first, reopened on demand afterwards), and dies with the crawler: it asks the kernel
  for ``SIGKILL`` when its parent dies (Linux) and checks its parent otherwise, so a crawl
  killed with ``kill -9`` can be resumed at once without a stray writer holding the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import queue
import subprocess
import sys
import threading
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from trawl.convert.sniff import TypeSniffer
from trawl.crawl.sink import StoreJob, StoreOutcome
from trawl.document import UNCHANGED, Document
from trawl.errors import DiskError, StoreError
from trawl.jobs.procs import die_with_parent, drain, merge, run_steps, spawn, wait
from trawl.store.disk import counter, disk_error

__all__ = [
    "InLoopSink",
    "StoreWorker",
    "finish",
    "main",
    "make_document",
    "prepare",
    "process_job",
]

_BATCH = 64


#: The sniffing step alone, for the sitemaps and feeds the pipeline does not convert (outside a
#: run it counts nothing: their type is what it sets).
_SNIFFER = TypeSniffer()


def make_document(job: StoreJob) -> Document:
    doc = Document(
        url=job.url,
        fetched_at=job.fetched_at,
        status=job.status,
        http_headers=list(job.headers),
        raw=job.body,
        source=job.source,
        record_id=job.record_id,
    )
    if job.ip:
        doc.warc_headers.append(("WARC-IP-Address", job.ip))
    if job.truncated:
        doc.warc_headers.append(("WARC-Truncated", "length"))
    if job.rendered is not None:
        doc.rendered = job.rendered
        doc.metadata["rendered"] = True
        doc.metadata["render"] = dict(job.render)
    return doc


def prepare(job: StoreJob, steps: list[Any], ctx: Any) -> list[Document]:
    """The conversion half: the response through ``steps`` (no writer); a sitemap or feed is not
    converted, it carries the links the crawler parsed."""
    doc = make_document(job)
    if job.kind == "unchanged":
        # nothing to convert: the writer makes it a revisit of the row's stored capture
        doc.record_type = "revisit"
        doc.metadata[UNCHANGED] = job.method
        return [doc]
    if job.kind == "links":
        doc.links = list(job.links)
        # not converted, but typed as every other capture is (a sitemap, a feed: not "unknown")
        return [_SNIFFER.process(doc)]
    docs = run_steps(steps, [doc], ctx)
    if docs and job.links:
        docs[0].links.extend(job.links)
    return docs


def finish(
    job: StoreJob, docs: list[Document], writer: Any | None, ctx: Any, recorder: Any | None
) -> StoreOutcome:
    """The storing half: the request record, then the writer; what the crawler needs back."""
    if recorder is not None:
        recorder.write(
            job.url, job.method, job.request_headers, job.fetched_at, concurrent_to=job.record_id, ip=job.ip
        )
    if writer is not None:
        docs = list(writer.run(docs, ctx))
    if not docs:
        return StoreOutcome(False)
    if recorder is not None and job.rendered is not None:
        recorder.write_conversion(
            job.url, job.rendered.encode("utf-8"), job.fetched_at, refers_to=job.record_id
        )
    if job.kind in ("links", "unchanged"):
        return StoreOutcome(True)
    out = docs[0]
    nofollow = bool(out.metadata.get("robots_nofollow") or out.metadata.get("nofollow"))
    content = (
        hashlib.blake2b(" ".join(out.text.split()).encode(), digest_size=12).hexdigest() if out.text else ""
    )
    return StoreOutcome(True, list(out.links), nofollow, out.text if job.want_text else "", content)


def process_job(job: StoreJob, steps: list[Any], ctx: Any, recorder: Any | None) -> StoreOutcome:
    """Run one job through ``steps`` (the last one the writer): what a single worker does, and
    what the crawler does in its own loop when no worker is used."""
    docs = prepare(job, steps[:-1], ctx)
    return finish(job, docs, steps[-1] if steps else None, ctx, recorder)


class InLoopSink:
    """A :class:`~trawl.crawl.sink.Sink` that runs the pipeline and the writer in the event loop
    itself (``store_workers = 0``: for a machine without a core to spare; a page's parse then
    delays every fetch in flight by as much)."""

    def __init__(self, steps: list[Any], ctx: Any, recorder: Any | None = None) -> None:
        self.steps = steps  # the conversion steps, then the writer
        self.ctx = ctx
        self.recorder = recorder
        self.failed: str | None = None
        self.fault: DiskError | None = None
        self._closed = False

    async def open(self) -> None:
        return None

    def submit(self, job: StoreJob) -> asyncio.Future[StoreOutcome]:
        fut: asyncio.Future[StoreOutcome] = asyncio.get_running_loop().create_future()
        if self.failed:
            fut.set_exception(StoreError(self.failed))
            return fut
        try:
            fut.set_result(process_job(job, self.steps, self.ctx, self.recorder))
        except Exception as exc:  # the crawler decides what a failed store means for the page
            disk = disk_error(exc)
            if disk is not None:  # no page can be stored now: the crawl stops
                self.ctx.stats.inc(counter(disk))
                self.failed, self.fault = str(disk), disk
            fut.set_exception(exc)
        return fut

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for step in self.steps:
            step.close()
        if self.recorder is not None:
            self.recorder.close()


def _worker_main(role: str, inbox: Connection, outbox: Connection, parent: int) -> None:
    """One worker process. ``all``: convert and store; ``convert``: convert and pass documents on
    to the ``store`` worker, which writes them and answers the crawler."""
    die_with_parent(parent)
    from trawl.crawl.warcreq import RequestRecorder  # noqa: PLC0415
    from trawl.jobs.steps import build_steps  # noqa: PLC0415 - imported in the worker only
    from trawl.pipeline.base import Audit, RunContext  # noqa: PLC0415
    from trawl.pipeline.stats import Stats  # noqa: PLC0415
    from trawl.store.collection import Collection  # noqa: PLC0415

    msg = wait(inbox, parent)  # imports done: wait for the crawler to hand the store over
    if not (isinstance(msg, tuple) and msg[0] == "open"):
        if role == "convert":
            outbox.send(msg)
        return
    _, path, config, store_requests = msg
    ctx = RunContext(Stats(), Audit(None))
    if role == "convert":
        outbox.send(msg)
        steps: list[Any] = build_steps(config)
        while True:
            batch = wait(inbox, parent)
            if batch is None:
                for step in steps:
                    step.close()
                outbox.send(None)
                return
            items: list[tuple[StoreJob, list[Document] | str]] = []
            for job in batch:
                try:
                    items.append((job, prepare(job, steps, ctx)))
                except Exception as exc:  # isolation: the run goes on, the page is not marked done
                    ctx.error("crawl-store", exc, url=job.url, source=job.source)
                    items.append((job, f"{type(exc).__name__}: {exc}"))
            outbox.send((items, *drain(ctx)))
    collection = Collection(Path(path), config)
    try:
        collection.table  # noqa: B018 - opened now: a table another process holds ends the crawl at once
    except Exception as exc:
        refused = disk_error(exc, Path(path) / "table")
        outbox.send(("failed", str(refused) if refused else f"{type(exc).__name__}: {exc}", refused))
        collection.close()
        return
    writer = collection.writer()
    convert: list[Any] = build_steps(config) if role == "all" else []
    recorder = RequestRecorder(Path(path) / "warc", prefix=config.warc.prefix) if store_requests else None
    outbox.send("ready")
    try:
        while True:
            msg = wait(inbox, parent)
            if msg is None:
                break
            upstream: tuple[dict[str, int], dict[str, float], list[dict[str, Any]]] = ({}, {}, [])
            if role == "all":
                items = [(job, []) for job in msg]
            else:
                items, *rest = msg
                upstream = (rest[0], rest[1], rest[2])
            results: list[StoreOutcome | str] = []
            disk: DiskError | None = None
            for job, docs in items:
                try:
                    if isinstance(docs, str):
                        results.append(docs)
                        continue
                    ready = prepare(job, convert, ctx) if role == "all" else docs
                    results.append(finish(job, ready, writer, ctx, recorder))
                except Exception as exc:  # isolation: the run goes on, the page is not marked done
                    if (disk := disk_error(exc)) is not None:
                        ctx.stats.inc(counter(disk))
                        break  # but not after a write the disk refused: no page can be stored now
                    ctx.error("crawl-store", exc, url=job.url, source=job.source)
                    results.append(f"{type(exc).__name__}: {exc}")
            outbox.send((results, *_merged(upstream, drain(ctx))))  # the pages stored before it
            if disk is not None:
                outbox.send(("failed", str(disk), disk))
                break
    finally:
        for step in convert:
            step.close()
        writer.close()
        if recorder is not None:
            recorder.close()
        collection.close()
    outbox.send(("closed", *drain(ctx)))


def _merged(
    a: tuple[dict[str, int], dict[str, float], list[dict[str, Any]]],
    b: tuple[dict[str, int], dict[str, float], list[dict[str, Any]]],
) -> tuple[dict[str, int], dict[str, float], list[dict[str, Any]]]:
    counters = dict(a[0])
    for k, v in b[0].items():
        counters[k] = counters.get(k, 0) + v
    timings = dict(a[1])
    for k, t in b[1].items():
        timings[k] = timings.get(k, 0.0) + t
    return counters, timings, a[2] + b[2]


def main(argv: list[str] | None = None) -> None:
    """``python -m trawl.jobs.storeproc ROLE INBOX_FD OUTBOX_FD PARENT_PID`` (from StoreWorker)."""
    args = sys.argv[1:] if argv is None else argv
    inbox = Connection(int(args[1]), writable=False)
    outbox = Connection(int(args[2]), readable=False)
    with contextlib.suppress(EOFError, BrokenPipeError):  # the crawler is gone
        _worker_main(args[0], inbox, outbox, int(args[3]))


class StoreWorker:
    """The parent's side: start, :meth:`open` (hand the store over), :meth:`submit`, :meth:`close`."""

    def __init__(
        self, collection: Any, ctx: Any, *, store_requests: bool = True, split: bool | None = None
    ) -> None:
        self.collection = collection
        # two workers (convert | store) overlap the parse of one page with the write of another;
        # worth it with a core for each besides the crawler's
        self.split = (os.cpu_count() or 1) >= 2 if split is None else split
        self.ctx = ctx
        self.store_requests = store_requests
        self._procs: list[subprocess.Popen[bytes]] = []
        self._out: Any = None
        self._in: Any = None
        self._jobs: queue.Queue[StoreJob | None] = queue.Queue()
        self._pending: deque[asyncio.Future[StoreOutcome]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._threads: list[threading.Thread] = []
        self._closed: asyncio.Future[None] | None = None
        self.failed: str | None = None
        self.fault: DiskError | None = None
        self.jobs = 0

    def start(self) -> None:
        """Start the worker(s): fresh interpreters (their imports overlap with the crawler's
        start-up, and a script that calls :func:`~trawl.jobs.crawl.crawl` needs no ``__main__``
        guard)."""
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        stages = [(down_r, up_w, "all")]
        if self.split:
            mid_r, mid_w = os.pipe()
            stages = [(down_r, mid_w, "convert"), (mid_r, up_w, "store")]
        for inbox, outbox, role in stages:
            args = [role, str(inbox), str(outbox), str(os.getpid())]
            self._procs.append(spawn("trawl.jobs.storeproc", args, (inbox, outbox)))
            os.close(inbox)
            os.close(outbox)
        self._out = Connection(down_w, readable=False)
        self._in = Connection(up_r, writable=False)

    async def open(self) -> None:
        """Close the parent's table handle and let the worker open the collection for writing."""
        self._loop = asyncio.get_running_loop()
        self.collection.close()
        self._out.send(("open", str(self.collection.path), self.collection.config, self.store_requests))
        # no waiting for "ready": fetching starts while the workers import, their first jobs
        # wait in the pipe; a worker that fails to start ends the crawl through _broken
        self._closed = self._loop.create_future()
        for target, name in ((self._send_loop, "send"), (self._recv_loop, "recv")):
            thread = threading.Thread(target=target, name=f"trawl-crawl-store-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def submit(self, job: StoreJob) -> asyncio.Future[StoreOutcome]:
        assert self._loop is not None
        fut: asyncio.Future[StoreOutcome] = self._loop.create_future()
        if self.failed:
            fut.set_exception(StoreError(self.failed))
            return fut
        self._pending.append(fut)
        self._jobs.put(job)
        self.jobs += 1
        return fut

    def _send_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                batch: list[StoreJob] | None = None
            else:
                batch = [job]
                while len(batch) < _BATCH:
                    try:
                        more = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        self._jobs.put(None)  # the end comes after this batch
                        break
                    batch.append(more)
            try:
                self._out.send(batch)
            except (OSError, ValueError):
                return
            if batch is None:
                return

    def _recv_loop(self) -> None:
        assert self._loop is not None
        while True:
            try:
                msg = self._in.recv()
            except Exception:  # EOF, a broken pipe, a message that does not unpickle: no more answers
                self._loop.call_soon_threadsafe(self._broken)
                return
            if msg == "ready":
                continue
            if isinstance(msg, tuple) and msg and msg[0] == "failed":  # it could not open or write the store
                self._loop.call_soon_threadsafe(self._broken, str(msg[1]), msg[2] if len(msg) > 2 else None)
                return
            self._loop.call_soon_threadsafe(self._deliver, msg)
            if msg[0] == "closed":
                return

    def _deliver(self, msg: tuple[Any, ...]) -> None:
        results, counters, timings, audit = msg
        merge(self.ctx, counters, timings, audit)
        if results == "closed":
            if self._closed is not None and not self._closed.done():
                self._closed.set_result(None)
            return
        for result in results:
            fut = self._pending.popleft()
            if fut.done():
                continue
            if isinstance(result, str):
                fut.set_exception(StoreError(f"storing the page failed: {result}"))
            else:
                fut.set_result(result)

    def _broken(self, why: str = "the crawl's store worker died", fault: DiskError | None = None) -> None:
        self.failed, self.fault = why, fault
        while self._pending:
            fut = self._pending.popleft()
            if not fut.done():
                fut.set_exception(StoreError(self.failed))
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)

    async def close(self) -> None:
        """Wait for every job, let the worker flush and close the collection, and end it."""
        if not self._procs:
            return
        if self._closed is not None:
            self._jobs.put(None)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._closed)
        else:  # never opened: tell them to go
            with contextlib.suppress(OSError, ValueError):
                self._out.send("stop")
        procs, self._procs = self._procs, []
        loop = asyncio.get_running_loop()
        for proc in procs:
            try:
                await loop.run_in_executor(None, proc.wait, 30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for thread in self._threads:
            thread.join(5)
        for conn in (self._out, self._in):
            with contextlib.suppress(OSError):
                conn.close()


if __name__ == "__main__":
    # run the imported module, not this ``__main__`` copy: what the worker pickles must name
    # ``trawl.jobs.storeproc.StoreOutcome``, a class the crawler can find
    import importlib

    importlib.import_module("trawl.jobs.storeproc").main()
