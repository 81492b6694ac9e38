"""Assembly, the top layer below the faces: what the commands run.

* :mod:`~trawl.jobs.steps`: the default step lists (conversion; then main content and language
  when the configuration asks), the one place a pipeline is built;
* :mod:`~trawl.jobs.ingest`: sources → steps → the collection (``trawl ingest``, ``trawl demo``);
* :mod:`~trawl.jobs.crawl`: seeds → crawler → a sink → the collection (``trawl crawl``), with
  :mod:`~trawl.jobs.storeproc`, the sinks: worker processes for the pipeline and the writes, or
  the pipeline in the event loop;
* :mod:`~trawl.jobs.dedup`: duplicate discovery and search over a collection (``trawl dedup``).

Nothing below this layer builds a pipeline: sources, converters, the crawler and the store take
what they are given.
"""
