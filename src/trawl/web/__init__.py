"""``trawl serve``: a web interface over collections (needs the ``web`` extra).

:mod:`trawl.web.app` builds the ASGI application, :mod:`trawl.web.index` the SQLite side index
that lists, filters and searches a collection's documents quickly, :mod:`trawl.web.journey` one
document's journey through every stage (the data behind ``templates/doc.html``).
"""
