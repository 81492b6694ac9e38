"""Main content of a page: :func:`extract` for one page, :class:`ContentExtractor` for a pipeline.

Methods:

``dom``
    the block classifier (:mod:`trawl.extract.dom`): text, link and markup features of each text
    block and of its neighbours, and the content container it lies in;
``bte``
    Finn et al.'s Body Text Extraction on the token sequence (:mod:`trawl.extract.bte`);
``slope``
    the flat stretches of the cumulative tag curve;
``auto`` (default)
    ``dom``; BTE decides instead when the classifier keeps almost nothing of a page that has
    text (a page whose blocks all look like boilerplate to it), and the page's text is returned
    whole when neither finds anything.

Readers' comments under an article are not its main content (the convention of most tools and
benchmarks, trafilatura's and WCXB's among them): by default they are left out; ``comments=True``
keeps them (:func:`~trawl.extract.dom.comment_index`: the text of elements named for comments
that do not hold the content itself). The posts of a forum thread are its content either way.

Every result says which method decided, its score (0..1), for the block classifier the word F1
its probabilities expect of the kept blocks (``expected_f1``), and the character span of the content
in the page text (all of the page's text blocks, one per line), so a document's extraction can be
audited and its curve plotted.

A guard bounds each page: markup longer than ``max_chars`` is cut before parsing (``cutoff =
"size"``); pages with more than ``max_blocks`` text blocks are classified on their first
``max_blocks`` (``"blocks"``); when a page has used up ``time_limit`` seconds at a checkpoint, the
remaining, costlier stages are skipped and the best answer so far is returned (``"time"``).
Elements nested deeper than ``nesting.MAX_DEPTH`` and attributes past ``nesting.MAX_ATTRIBUTES``
in one tag are dropped before parsing (``"depth"``, ``"attributes"``; attributes that nothing reads
are dropped before that, with the compiled module, and cut nothing; see
:mod:`trawl.html.nesting`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from trawl.convert.markdown import blocks_markdown, text_markdown
from trawl.decode.charset import decode_document
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.extract.bte import TokenCurve, body_text_extraction, slope_extraction, tokenize
from trawl.extract.dom import classify_blocks, render_index
from trawl.html.blocks import PageBlocks
from trawl.html.page import HtmlPage, read_page
from trawl.pipeline.base import Step
from trawl.sniff.magic import effective_type, is_html

__all__ = [
    "DEFAULT_MAX_BLOCKS",
    "DEFAULT_MAX_CHARS",
    "DEFAULT_TIME_LIMIT",
    "METHODS",
    "ContentExtractor",
    "Extraction",
    "extract",
    "extract_page",
]

#: Markup longer than this many characters is cut before parsing.
DEFAULT_MAX_CHARS = 3_000_000
#: At most this many text blocks are classified.
DEFAULT_MAX_BLOCKS = 20_000
#: Seconds a page may take before costlier stages are skipped.
DEFAULT_TIME_LIMIT = 2.0
METHODS = ("auto", "dom", "bte", "slope")
Method = Literal["auto", "dom", "bte", "slope"]
Format = Literal["text", "markdown"]


@dataclass(slots=True)
class Extraction:
    """The main content of one page and how it was found."""

    text: str = ""
    title: str = ""
    author: str = ""
    date: str = ""
    method: str = ""
    score: float = 0.0
    # dom only: the word F1 the classifier's probabilities expect of the kept blocks (an
    # estimate of the extraction's quality; None when another method decided)
    expected_f1: float | None = None
    span: tuple[int, int] | None = None  # of the content in ``page_text``
    page_text: str = ""
    cutoff: str | None = None  # why the guard stopped the page early: size, blocks, time
    curve: TokenCurve | None = None  # the token curve, for bte/slope (or auto when asked)
    probs: list[float] = field(default_factory=list)  # per-block content probability (dom)
    sources: dict[str, str] = field(default_factory=dict)  # metadata field -> where found
    parser: str = ""  # which parser built the page's tree: "lite", "lexbor[:why the lite one gave up]"
    markdown: str = ""  # the content as Markdown, when asked for (``markdown=True``)

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "author": self.author or None,
            "date": self.date or None,
            "text": self.text,
            "method": self.method,
            "score": round(self.score, 4),
            "expected_f1": None if self.expected_f1 is None else round(self.expected_f1, 4),
            "span": list(self.span) if self.span else None,
            "cutoff": self.cutoff,
        }


def _block_start(page: PageBlocks, i: int) -> int:
    """Where block ``i`` starts in the page text (the blocks one per line)."""
    return sum(map(len, page.texts[:i])) + i


def _span_of_text(page_text: str, text: str) -> tuple[int, int] | None:
    if not text:
        return None
    first = text.split("\n", 1)[0]
    last = text.rsplit("\n", 1)[-1]
    start = page_text.find(first)
    if start < 0:
        return None
    end = page_text.rfind(last)
    return (start, end + len(last)) if end >= start else (start, start + len(first))


def extract(
    markup: str | bytes,
    url: str | None = None,
    *,
    method: Method | str = "auto",
    fmt: Format | str = "text",
    max_chars: int = DEFAULT_MAX_CHARS,
    max_blocks: int = DEFAULT_MAX_BLOCKS,
    time_limit: float = DEFAULT_TIME_LIMIT,
    keep_curve: bool = False,
    metadata: bool = True,
    comments: bool = False,
) -> Extraction:
    """The main content, title, author and date of one page (see the module docstring);
    ``comments``: keep readers' comments as well."""
    _check(method, fmt)
    if isinstance(markup, bytes):
        markup = markup.decode("utf-8", "replace")
    # Scripts, styles and inline SVG are most of a modern page's bytes and none of its text:
    # read_page cuts them first (a tokenizing C pass), which costs less than parsing them. JSON-LD
    # scripts stay (metadata reads them); BTE and slope see the page as it came.
    page = read_page(markup, url or "", max_chars=max_chars, metadata=metadata, links=False)
    return extract_page(
        page,
        method=method,
        fmt=fmt,
        max_blocks=max_blocks,
        time_limit=time_limit,
        keep_curve=keep_curve,
        comments=comments,
    )


def _check(method: str, fmt: str) -> None:
    if method not in METHODS:
        raise ConfigError(f"unknown extraction method {method!r}; choose one of {', '.join(METHODS)}")
    if fmt not in ("text", "markdown"):
        raise ConfigError(f"unknown output format {fmt!r}; choose 'text' or 'markdown'")


def extract_page(
    page: HtmlPage,
    *,
    method: Method | str = "auto",
    fmt: Format | str = "text",
    max_blocks: int = DEFAULT_MAX_BLOCKS,
    time_limit: float = DEFAULT_TIME_LIMIT,
    keep_curve: bool = False,
    comments: bool = False,
    markdown: bool = False,
) -> Extraction:
    """The main content of a page already read (:func:`~trawl.html.page.read_page`): its text
    blocks classified, its title, author and date as read. The time the read took counts against
    ``time_limit``; a page with more than ``max_blocks`` blocks is classified on its first ones
    (its blocks are cut to them). ``comments``: keep readers' comments as well. ``markdown``: also
    the content as Markdown (:attr:`Extraction.markdown`; the text itself where a method other
    than the block classifier chose it)."""
    _check(method, fmt)
    t0 = time.perf_counter() - page.seconds
    result = Extraction(parser=page.parser)
    if page.cutoff in ("size", "depth", "attributes"):
        result.cutoff = page.cutoff
    about = page.about
    result.title, result.author, result.date = about.title, about.author, about.date
    result.sources = dict(about.sources or {})
    original = page.markup
    blocks = page.blocks
    if len(blocks.texts) > max_blocks:
        blocks.truncate(max_blocks)
        result.cutoff = result.cutoff or "blocks"
    page_text = "\n".join(blocks.texts)  # the blocks one per line
    result.page_text = page_text
    if method in ("bte", "slope"):
        curve = body_text_extraction(original) if method == "bte" else slope_extraction(original)
        result.method, result.score, result.text = method, curve.score, curve.text
        result.curve = curve
        result.span = _span_of_text(page_text, result.text)
        return result
    if time.perf_counter() - t0 > time_limit:
        result.cutoff = "time"
        result.method, result.text = "page", page_text
        result.span = (0, len(page_text)) if page_text else None
        return result
    classified = classify_blocks(blocks, comments=comments)
    result.probs = classified.probs
    kept_words = classified.words
    result.method, result.score = "dom", classified.score
    chosen = classified.index
    if keep_curve:
        result.curve = body_text_extraction(tokenize(original))
    if method == "auto" and kept_words < 10 and blocks.total_words >= 20:
        if time.perf_counter() - t0 > time_limit:
            result.cutoff = "time"
        else:
            curve = result.curve or body_text_extraction(original)
            text = curve.text
            if len(text.split()) > kept_words:
                result.method, result.score, result.text, result.curve = "bte", curve.score, text, curve
                result.span = _span_of_text(page_text, text)
                return result
    if not chosen and method == "auto":
        chosen = list(range(len(blocks.texts)))
        result.method, result.score = "page", 0.0
    if result.method == "dom":
        result.expected_f1 = classified.expected_f1
    result.text = render_index(blocks, chosen, fmt)
    if markdown:
        result.markdown = blocks_markdown(blocks, chosen, page.links)
    if chosen:
        last = chosen[-1]
        result.span = (_block_start(blocks, chosen[0]), _block_start(blocks, last) + len(blocks.texts[last]))
    return result


class ContentExtractor(Step):
    """Replaces an HTML document's text with its main content (see :func:`extract`).

    Sets ``text`` (the main content), ``title`` (when found), ``metadata["author"]``,
    ``metadata["date"]``, ``metadata["content_expected_f1"]`` (when the classifier decided),
    ``content_method``, ``content_score`` and ``content_span`` (the span of the content in the
    page's text blocks one per line, which is the visible text the HTML stage set). Counts
    ``extract/method/<method>``, ``extract/parser/<parser>`` (``lite``, or ``lexbor:<why>`` where
    trawl's tree builder gave up: ``lexbor:foreign``, ``lexbor:template``...),
    ``extract/cutoff/<reason>`` and ``extract/empty``; a page cut
    short also gets a line in ``doc.errors``. After :class:`~trawl.convert.html.HtmlConverter` it
    classifies the page that stage read (``doc.page``: one parse per page); on its own it reads
    the page itself, from the characters the charset decoder left in ``doc.markup`` or decoding
    them now. Other documents pass untouched. ``comments=True`` (``[extract] comments``) keeps
    readers' comments under an article, which the main content leaves out by default.
    ``markdown=True`` (``[convert] markdown``) sets ``metadata["markdown"]`` to the main content
    as Markdown.
    """

    name: ClassVar[str] = "extract"

    def __init__(
        self,
        *,
        method: str = "auto",
        fmt: str = "text",
        max_chars: int = DEFAULT_MAX_CHARS,
        max_blocks: int = DEFAULT_MAX_BLOCKS,
        time_limit: float = DEFAULT_TIME_LIMIT,
        comments: bool = False,
        markdown: bool = False,
    ) -> None:
        if method not in METHODS:
            raise ConfigError(f"extract.method must be one of {', '.join(METHODS)}, not {method!r}")
        if fmt not in ("text", "markdown"):
            raise ConfigError(f"extract.format must be 'text' or 'markdown', not {fmt!r}")
        if max_chars <= 0 or max_blocks <= 0 or time_limit <= 0:
            raise ConfigError(
                f"extract: max_chars, max_blocks and time_limit must be positive, not "
                f"{max_chars}, {max_blocks}, {time_limit}"
            )
        self.method = method
        self.fmt = fmt
        self.max_chars = max_chars
        self.max_blocks = max_blocks
        self.time_limit = time_limit
        self.comments = comments
        self.markdown = markdown

    def process(self, doc: Document) -> Document:
        if not is_html(effective_type(doc)):
            return doc
        page = doc.page
        if not isinstance(page, HtmlPage):  # no HTML stage before this one: read the page here
            page = doc.page = read_page(decode_document(doc, self), doc.url, max_chars=self.max_chars)
        ex = extract_page(
            page,
            method=self.method,
            fmt=self.fmt,
            max_blocks=self.max_blocks,
            time_limit=self.time_limit,
            comments=self.comments,
            markdown=self.markdown,
        )
        doc.text = ex.text
        if self.markdown:  # the main content's, in place of the whole page's
            doc.metadata["markdown"] = ex.markdown or text_markdown(ex.text)
        if ex.title:
            doc.title = ex.title
        if ex.author:
            doc.metadata["author"] = ex.author
        if ex.date:
            doc.metadata["date"] = ex.date
        doc.content_method = ex.method
        doc.content_score = round(ex.score, 4)
        if ex.expected_f1 is not None:
            doc.metadata["content_expected_f1"] = round(ex.expected_f1, 4)
        doc.content_span = ex.span  # in the page's text blocks, one per line: the visible text
        self.count(f"extract/method/{ex.method}")
        self.count(f"extract/parser/{ex.parser}")
        if ex.cutoff:
            self.count(f"extract/cutoff/{ex.cutoff}")
            doc.error(self.name, f"cut off ({ex.cutoff}): page of {len(page.markup)} characters")
        if not ex.text:
            self.count("extract/empty")
        return doc
