"""The page's tree, shared by every stage that reads HTML: one parse per page.

* :mod:`~trawl.html.nesting`: the guard against hostile nesting (elements past a depth, tags with
  too many attributes) applied before any parse;
* :mod:`~trawl.html.blocks`: :func:`~trawl.html.blocks.parse_page` builds the tree (the compiled
  module's own tree builder, lexbor where it gives up) of the markup without scripts, styles and
  SVG, and :func:`~trawl.html.blocks.parse_blocks` walks it into text blocks with their DOM
  context;
* ``_walk`` (Cython, ``_walk.pyx`` with ``_tree.pxi``; optional, built on install): the tokenizer
  cut, the tree builder and the walks in C, and, because they share its internals, the compiled
  kernels of the extractor's features and trees.
"""
