"""``trawl extract FILE…|-``: the main content, title, author and date of HTML files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trawl.cli.common import add_config_options, bounded, read_document
from trawl.config import load_config
from trawl.extract.extractor import DEFAULT_MAX_CHARS, DEFAULT_TIME_LIMIT, METHODS, extract_page
from trawl.html.page import read_page
from trawl.jobs.single import OneByOne
from trawl.jobs.steps import decode_steps
from trawl.sniff.magic import effective_type, is_html, is_plain_text

__all__ = ["HELP", "extract_file", "register", "run"]

HELP = "print the main content of HTML files (plain or gzipped), with title, author and date"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "extract",
        help=HELP,
        description=HELP[0].upper() + HELP[1:] + ". Navigation, footers, ads and other boilerplate "
        "are left out by a block classifier over the page's DOM (text and link density, markup "
        "hints, position, neighbours); Finn et al.'s Body Text Extraction and the slope-curve "
        "method are there to compare. Many files are processed in one process.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="HTML files (plain or gzipped); - reads stdin")
    p.add_argument("--url", metavar="URL", help="the page's URL (dates in URLs, relative links)")
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per file: path, title, author, date, text, method, score (and "
        "expected_f1, span, cutoff, encoding; error when the file cannot be read)",
    )
    p.add_argument(
        "--method", choices=METHODS, default="auto", help="auto (the DOM classifier, BTE as fallback), "
        "dom, bte (Finn et al. 2001) or slope (default: auto)"
    )  # fmt: skip
    p.add_argument("--format", dest="fmt", choices=("text", "markdown"), default="text", help="output format")
    p.add_argument(
        "--comments",
        action="store_true",
        default=None,
        help="keep readers' comments under an article (default: left out, as the article-body convention "
        "of most tools and benchmarks; [extract] comments in the configuration); a forum's posts are "
        "kept either way",
    )
    p.add_argument(
        "--plot",
        metavar="DIR",
        type=Path,
        help="write each page's cumulative tag curve with the BTE span to DIR/NAME.png (needs matplotlib)",
    )
    p.add_argument("--plot-format", choices=("png", "svg"), default="png", help="format of --plot files")
    p.add_argument(
        "--max-chars",
        type=bounded(int, 1),
        default=DEFAULT_MAX_CHARS,
        help="cut pages longer than this before parsing",
    )
    p.add_argument(
        "--time-limit",
        type=bounded(float, 0, above=True),
        default=DEFAULT_TIME_LIMIT,
        help="seconds a page may take (guard)",
    )
    add_config_options(p)
    p.set_defaults(func=run)


def extract_file(path: str, args: argparse.Namespace, steps: OneByOne | None = None) -> dict[str, Any]:
    """One file decoded and read as ``trawl ingest`` does it, its main content as a JSON-ready row.

    ``steps``: ingest's sniffing and decoding steps, built once for many files (by :func:`run`);
    built from the configuration here when not given."""
    row: dict[str, Any] = {
        "path": path, "title": "", "author": None, "date": None, "text": "", "method": None, "score": None,
    }  # fmt: skip
    # What ingest does with the file: the same document, the same sniffing and decoding (the
    # evidence chain, mojibake repair, NFC), the same read of the page, the same classifier.
    url = args.url or ("stdin:" if path == "-" else None)
    doc = read_document(path, row, stdin=True, url=url)
    if doc is None:
        return row
    if doc.declared_type is None and doc.header("content-type") is None:
        doc.declared_type = "text/html"  # no name to go by: a page, unless its bytes say otherwise
    if steps is None:
        with _decoding(args) as own:
            own.run(doc)
    else:
        steps.run(doc)
    kind = effective_type(doc)
    problems = [*row.pop("problems", []), *(e.split(": ", 1)[-1] for e in doc.errors)]
    if kind == "application/gzip" and not problems:  # unpacked cleanly, and gzip again inside
        problems = ["gzip inside gzip"]
    readable = doc.markup is not None and (is_html(kind) or is_plain_text(kind) or kind is None)
    if problems and not (readable and (doc.markup or "").strip()):
        row["error"] = f"cannot read {path!r}: {'; '.join(problems)}"  # a corrupt gzip, say
        return row
    if not readable or doc.markup is None:
        row["error"] = (
            f"{path!r} is {kind or 'binary data'}, not an HTML page (trawl convert reads other formats)"
        )
        return row
    if problems:
        row["problems"] = problems
    markup = doc.markup
    page = read_page(markup, doc.url, max_chars=args.max_chars, links=False)
    ex = extract_page(
        page,
        method=args.method,
        fmt=args.fmt,
        time_limit=args.time_limit,
        keep_curve=args.plot is not None,
        comments=bool(args.comments),
    )
    row.update(ex.as_dict())
    row["encoding"] = doc.encoding
    if args.plot is not None and ex.curve is not None:
        from trawl.extract.plot import plot_curve  # noqa: PLC0415 - matplotlib only on request

        args.plot.mkdir(parents=True, exist_ok=True)
        target = _plot_path(args.plot, path, args.plot_format, getattr(args, "plotted", set()))
        row["plot"] = str(plot_curve(ex.curve, target, title=path))
    return row


def _plot_path(folder: Path, path: str, fmt: str, taken: set[Path]) -> Path:
    """DIR/NAME.FMT for a page's curve, one file per page: ``c1/page.html`` and ``c2/page.html``
    become ``page.png`` and ``c2-page.png`` (the folders above the name, as many as it takes)."""
    if path == "-":
        parts = ["stdin"]
    else:
        p = Path(path)
        parts = [*p.parent.parts, p.name.split(".")[0] or p.name]
        parts = [x for x in parts if x not in ("/", ".", "..")] or ["page"]
    for k in range(1, len(parts) + 1):
        target = folder / f"{'-'.join(parts[-k:])}.{fmt}"
        if target not in taken:
            break
    n = 2
    while target in taken:
        target = folder / f"{'-'.join(parts)}-{n}.{fmt}"
        n += 1
    taken.add(target)
    return target


def _decoding(args: argparse.Namespace) -> OneByOne:
    """Ingest's sniffing and decoding steps, from the configuration (``--config``, ``--set``);
    ``--comments`` not given takes ``[extract] comments`` from it."""
    config = load_config(getattr(args, "config", None), overrides=getattr(args, "overrides", ()))
    if getattr(args, "comments", None) is None:
        args.comments = config.extract.comments
    return OneByOne(decode_steps(config))


def run(args: argparse.Namespace) -> int:
    args.plotted = set()  # the plot files written by this run, so no page overwrites another's
    with _decoding(args) as steps:
        return _run(args, steps)


def _run(args: argparse.Namespace, steps: OneByOne) -> int:
    failed = 0
    for path in args.files:
        row = extract_file(path, args, steps)
        failed += "error" in row
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        elif "error" in row:
            print(f"trawl: error: {row['error']}", file=sys.stderr)
        else:
            if len(args.files) > 1:
                print(f"==> {path} <== [{row['method']} {row['score']}]")
            if row["title"]:
                print(row["title"] if args.fmt == "text" else f"# {row['title']}")
                print()
            print(row["text"])
            if len(args.files) > 1:
                print()
    return 1 if failed else 0
