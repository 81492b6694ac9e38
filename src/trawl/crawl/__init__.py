"""The crawler: a polite, resumable, asynchronous web crawler that hands what it fetches to a sink.

Modules, bottom up: :mod:`~trawl.crawl.urlnorm` (normal form, SURT, shards),
:mod:`~trawl.crawl.seen` (the compact seen-URL set), :mod:`~trawl.crawl.robots` (RFC 9309),
:mod:`~trawl.crawl.discovery` (sitemaps and feeds), :mod:`~trawl.crawl.revisit` (Poisson change
rates), :mod:`~trawl.crawl.focus` (topic scores), :mod:`~trawl.crawl.frontier` (Mercator queues
persisted in SQLite), :mod:`~trawl.crawl.transport` (the one-method network seam) with
:mod:`~trawl.crawl.http11` (trawl's own HTTP/1.1 client, the default) and aiohttp behind it,
:mod:`~trawl.crawl.aio` (uvloop when installed), :mod:`~trawl.crawl.sink` (the jobs handed over
for storing, and the protocol of who stores them) and :mod:`~trawl.crawl.crawler` (workers,
politeness, discovery). The crawl job that puts a crawler, a sink and a collection together is
:mod:`trawl.jobs.crawl`.
"""

__all__: list[str] = []
