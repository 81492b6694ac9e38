"""What a payload is, by its bytes: magic numbers, markup patterns, containers, type families.

A low layer with no stage in it: :mod:`~trawl.sniff.magic` sniffs a payload's head and reconciles
declared and sniffed types (:func:`~trawl.sniff.magic.effective_type`, the type every stage acts
on); :mod:`~trawl.sniff.identify` identifies a whole payload (a ZIP by its central directory, XML
by its root element). The pipeline step is :class:`trawl.convert.sniff.TypeSniffer`.
"""
