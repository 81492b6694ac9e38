"""Main content, title, author and date of HTML pages.

* :func:`extract` / :class:`ContentExtractor`: the main content of a page by the DOM block
  classifier (default), Finn et al.'s Body Text Extraction or the slope curve, with the method,
  score and span that decided it, under a per-page size and time guard;
* :func:`body_text_extraction`, :func:`slope_extraction`: the token-sequence methods, with their
  cumulative tag curve (:func:`plot_curve` draws it);
* :func:`extract_metadata`: title, author and publication date;
* :func:`word_score`: word-level precision / recall / F1 against a gold text.
"""

from trawl.extract.bte import TokenCurve, body_text_extraction, slope_extraction, tokenize
from trawl.extract.dom import classify_blocks, render
from trawl.extract.evaluate import Score, mean_scores, word_score
from trawl.extract.extractor import METHODS, ContentExtractor, Extraction, extract
from trawl.extract.plot import plot_curve
from trawl.html.blocks import Block, PageBlocks, parse_blocks
from trawl.html.metadata import PageMetadata, extract_metadata, read_metadata

__all__ = [
    "METHODS",
    "Block",
    "ContentExtractor",
    "Extraction",
    "PageBlocks",
    "PageMetadata",
    "Score",
    "TokenCurve",
    "body_text_extraction",
    "classify_blocks",
    "extract",
    "extract_metadata",
    "mean_scores",
    "parse_blocks",
    "plot_curve",
    "read_metadata",
    "render",
    "slope_extraction",
    "tokenize",
    "word_score",
]
