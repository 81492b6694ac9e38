"""Bytes of any format to text, title, metadata and links.

* :mod:`~trawl.sniff`, and :mod:`~trawl.sniff.identify`: what a payload really is, by its
  magic number and container, against what it was declared to be and what its name says;
* :mod:`~trawl.convert.registry`: format → converter, :func:`~trawl.convert.registry.convert_bytes`
  for one payload and the pipeline step :class:`~trawl.convert.registry.FormatConverter`;
* the converters: :mod:`~trawl.convert.html`, :mod:`~trawl.convert.text`, :mod:`~trawl.convert.pdf`,
  :mod:`~trawl.convert.office` (DOCX, PPTX, XLSX, ODT, ODS, ODP, EPUB), :mod:`~trawl.convert.rtf`,
  :mod:`~trawl.convert.feeds` (XML, RSS, Atom), :mod:`~trawl.convert.legacy` (DOC, XLS, PPT, MSG;
  LibreOffice as the fallback), :mod:`~trawl.convert.iwork` (Pages, Numbers, Keynote);
* :mod:`~trawl.convert.markdown` (the Markdown rendering, when asked) and
  :mod:`~trawl.convert.embedded` (files inside documents: folded in, or units);
* the guards: :mod:`~trawl.convert.xmlsafe` (no entities, no network), :mod:`~trawl.convert.guard`
  (a worker process with a time and memory limit) and :mod:`~trawl.convert.meta` (metadata
  checked before it is trusted).
"""
