"""``crawl``: seeds → crawler → pipeline → the collection; the library function behind ``trawl crawl``.

The frontier lives in the collection (``frontier/crawl.sqlite``, or ``frontier/shard-i-of-N.sqlite``
for one shard of a partitioned crawl; other shards' URLs travel through ``frontier/route-*.tsv``),
the counters in ``stats/<run>.json`` beside those of every other run, per-host counters in
``stats/<run>.hosts.jsonl``, the drops with their reasons in ``stats/<run>.drops.jsonl``. While it
runs, its live state is in ``frontier/crawl.live.json`` and it obeys ``frontier/crawl.control``
(:mod:`trawl.crawl.live`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from trawl.crawl import aio
from trawl.crawl.crawler import Crawler, CrawlResult, CrawlSettings, PageLease, Progress
from trawl.crawl.frontier import Entry, Frontier
from trawl.crawl.live import LiveMonitor
from trawl.crawl.route import Router
from trawl.crawl.sink import Sink
from trawl.crawl.warcreq import RequestRecorder
from trawl.document import Link
from trawl.errors import ConfigError, RecordNotFound, StoreError
from trawl.jobs.steps import build_steps
from trawl.jobs.storeproc import InLoopSink, StoreWorker
from trawl.store.collection import Collection
from trawl.store.disk import refused

__all__ = ["crawl", "crawl_testweb", "frontier_path", "saved_settings", "settings_path"]


def frontier_path(collection: Collection, settings: CrawlSettings) -> Path:
    name = "crawl.sqlite" if settings.shards == 1 else f"shard-{settings.shard}-of-{settings.shards}.sqlite"
    return collection.path / "frontier" / name


def settings_path(collection: Collection, shard: int = 0, shards: int = 1) -> Path:
    """Where a crawl's settings are saved beside its frontier (``frontier/crawl.settings.json``)."""
    name = "crawl" if shards == 1 else f"shard-{shard}-of-{shards}"
    return collection.path / "frontier" / f"{name}.settings.json"


def saved_settings(collection: Collection, shard: int = 0, shards: int = 1) -> CrawlSettings | None:
    """The settings the crawl held in ``collection`` last ran with, or None (none saved, or
    unreadable: then the configuration's apply)."""
    path = settings_path(collection, shard, shards)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return CrawlSettings.from_dict(data) if isinstance(data, dict) else None
    except (OSError, ValueError, TypeError):
        return None


def _recoverer(collection: Collection) -> Callable[[Entry, str], list[Link] | None]:
    """Was this queued URL stored by the run that was killed? If so, the links it held."""

    def recover(entry: Entry, source: str) -> list[Link] | None:
        try:
            record = collection.find(entry.url)
        except (RecordNotFound, StoreError):
            return None
        if record.capture.get("source") != source:
            return None
        out = record.cells.get("links", {}).get("out", [])
        return [
            Link(str(d.get("url", "")), str(d.get("text", "")), str(d.get("rel", "")))
            for d in out
            if d.get("url")
        ]

    return recover


def crawl(
    seeds: Sequence[str],
    collection: Collection,
    settings: CrawlSettings,
    *,
    resume: bool = False,
    fresh: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    router: Router | None = None,
    budget: PageLease | None = None,
    on_crawler: Callable[[Crawler], None] | None = None,
) -> CrawlResult:
    """Crawl from ``seeds`` into ``collection`` (or continue the crawl it holds, with ``resume``).
    A shard of a crawl in shards (:mod:`trawl.jobs.crawl_cluster`) is given its ``router`` (how
    URLs of hosts it does not own leave, and its own arrive), its ``budget`` of pages, and hears
    of its crawler (``on_crawler``, to steer it)."""
    path = frontier_path(collection, settings)
    if path.exists() and not resume:
        if not fresh:
            raise ConfigError(
                f"{str(path)!r} holds an earlier crawl; add --resume to continue it, or --fresh to start over"
            )
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    if resume and not path.exists() and not seeds:
        raise ConfigError(f"nothing to resume: {str(path)!r} does not exist; give SEED URLs to start a crawl")
    run, ctx = collection.new_run()
    saved = settings_path(collection, settings.shard, settings.shards)
    saved.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.as_dict(), indent=1, sort_keys=True) + "\n"
    if (fault := refused(lambda: saved.write_text(text, encoding="utf-8"), saved)) is not None:
        raise fault  # a full disk before anything was fetched: said as one line by the CLI
    frontier = Frontier(path)
    sink: Sink | None = None
    worker: StoreWorker | None = None
    if settings.store and settings.store_workers:
        # the pipeline and the writes in processes of their own
        sink = worker = StoreWorker(collection, ctx, split=settings.store_workers == 2)
    elif settings.store:
        steps = [*build_steps(collection.config), collection.writer()]  # the ingest pipeline
        recorder = RequestRecorder(collection.path / "warc", prefix=collection.config.warc.prefix)
        sink = InLoopSink(steps, ctx, recorder)
    live = LiveMonitor(path.parent, path.stem)

    def tick(progress: Progress) -> None:
        live.tick(crawler)
        if on_progress is not None:
            on_progress(progress)

    crawler = Crawler(
        settings,
        frontier,
        ctx=ctx,
        recover=_recoverer(collection),
        inbox_dir=collection.path / "frontier" if settings.shards > 1 and router is None else None,
        on_progress=tick,
        sink=sink,
        router=router,
        budget=budget,
    )
    if on_crawler is not None:
        on_crawler(crawler)
    ended = False
    try:
        if worker is not None:
            worker.start()  # the workers import while the crawler recovers and fetches robots.txt
        result = aio.run(crawler.run(seeds))
        ended = True
    finally:
        if not ended:  # the monitor is told the crawl ended even when it ended by an exception
            live.finish(crawler, "error")
        if sink is not None:
            aio.run(sink.close())  # a no-op after a normal end; stops the workers after an error
        frontier.close()
        ctx.stats.finished = ctx.stats.finished or None
        ctx.audit.close()
        counters = collection.path / "stats" / f"{run}.json"
        stats_fault = refused(lambda: collection.save_run(run, ctx.stats), counters)
    result.run = run
    # per-host counters (pages, requests, bytes, errors), one JSON line a host (not *.json: that
    # name is the run's counters, which every reader of stats/ merges)
    hosts_file = collection.path / "stats" / f"{run}.hosts.jsonl"
    lines = "".join(
        json.dumps({"host": h, **c}, sort_keys=True) + "\n" for h, c in sorted(result.per_host.items())
    )
    stats_fault = stats_fault or refused(lambda: hosts_file.write_text(lines, encoding="utf-8"), hosts_file)
    fault = result.fault or stats_fault or collection.disk_failure
    if fault is not None and result.fault is None:  # the pages are stored; their run's counters are not
        result.stopped, result.failure, result.fault = "store-failed", str(fault), fault
    live.finish(crawler, result.stopped)
    return result


def crawl_testweb(
    path: Path, *, seed: int = 0, hosts: int = 8, pages: int = 6, max_pages: int = 80, special: bool = False
) -> CrawlResult:
    """Serve a small :class:`~trawl.testweb.TestWeb` on loopback and crawl it into a new collection
    at ``path`` (what ``trawl demo`` shows of the crawler; a few seconds)."""
    from trawl.testweb import ServerThread, TestWeb  # noqa: PLC0415 - the test web is only needed here

    web = TestWeb(seed, hosts=hosts, pages=pages, special=special, change_rates=(0.0,))
    with ServerThread(web) as server, Collection.create(path) as collection:
        settings = CrawlSettings(
            min_delay=0.02,
            delay_factor=1.0,
            max_pages=max_pages,
            read_timeout=2.0,
            total_timeout=5.0,
            resolve=tuple(server.resolve_rules()),
        )
        return crawl(web.seeds(), collection, settings, fresh=True)
