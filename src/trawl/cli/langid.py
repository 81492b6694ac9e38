"""``trawl langid [TEXT…] [--lines FILE|-]``: the language of each text or line, or a document's
language spans (``--passages``), or the Cavnar & Trenkle distance table (``--table``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from trawl.cli.common import read_input_file
from trawl.decode.charset import decode_html
from trawl.errors import InputError

HELP = "identify the language of texts or lines (ISO 639-1/639-3 label, calibrated score)"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "langid",
        help=HELP,
        description=HELP[0].upper() + HELP[1:] + ". One result per TEXT argument or per input line "
        "(blank lines included: they give 'und'). Labels are ISO 639-1 where one exists, else "
        "639-3; text in no known language (empty, digits, emoji, URLs, code, an unsupported "
        "language) gives 'und' with a low score. Close relatives (ms/id, es/pt/gl, bs/hr/sr/mk/bg, "
        "nb/nn/da, cs/sk) that the text does not tell apart are named in 'ambiguous'.",
    )
    p.add_argument("texts", nargs="*", metavar="TEXT", help="texts to identify")
    p.add_argument("--lines", metavar="FILE", help="identify each line of FILE ('-' for standard input)")
    p.add_argument(
        "--method",
        choices=("default", "cavnar-trenkle"),
        default="default",
        help="default: script cut + naive Bayes + relatives + calibration; cavnar-trenkle: the "
        "1994 out-of-place method alone",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="JSON lines with lang, score, alternatives (and ambiguous, script, reason, method)",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="print the Cavnar & Trenkle distance table of each text: every n-gram of its profile, "
        "its rank in the text and in each language's profile, and what it adds to the distance",
    )
    p.add_argument(
        "--langs",
        metavar="CODES",
        help="languages for --table, comma-separated (default: the three nearest)",
    )
    p.add_argument(
        "--passages",
        action="store_true",
        help="treat all input (TEXT arguments or the --lines file) as one document and print its "
        "language spans (start, end, lang, score, chars) and dominant language",
    )
    p.set_defaults(func=run)


def _inputs(args: argparse.Namespace) -> Iterator[str]:
    yield from args.texts
    if args.lines is None:
        return
    # The file's bytes (gzip unpacked) decoded as ingest decodes text: BOM, UTF-8 validity, then
    # the statistical detector, so a Latin-1 or UTF-16 file reads as what it says.
    row: dict[str, Any] = {}
    data = read_input_file(args.lines, row, stdin=True)
    if data is None:
        raise InputError(str(row["error"]))
    for problem in row.get("problems", []):
        print(f"trawl: warning: {args.lines}: {problem}", file=sys.stderr)
    text = decode_html(data, None, html=False).text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts no line of its own
    yield from (line.removesuffix("\r") for line in lines)


def _print_table(text: str, langs: list[str] | None, as_json: bool) -> None:
    from trawl.langid.cavnar import distance_table  # noqa: PLC0415 -- only this option needs it
    from trawl.langid.identify import load_cavnar_trenkle  # noqa: PLC0415

    model = load_cavnar_trenkle()
    if langs:
        unknown = [lab for lab in langs if lab not in model.profiles]
        if unknown:
            raise InputError(
                f"no Cavnar & Trenkle profile for {', '.join(unknown)}; try e.g. --langs en,de,fr"
            )
    else:
        dist, _ = model.distances(text)
        langs = [model.labels[i] for i in dist.argsort(kind="stable")[:3]]
    rows, totals, distinct = distance_table(model, text, langs)
    if as_json:
        table = {
            "text": text,
            "distinct_ngrams": distinct,
            "profile_ngrams": len(rows),
            "max_penalty": model.size,
            "totals": totals,
            "rows": [
                {"ngram": r.ngram, "count": r.count, "rank": r.text_rank, "ranks": r.ranks, "adds": r.adds}
                for r in rows
            ],
        }
        print(json.dumps(table, ensure_ascii=False))
        return
    print(f"text: {text!r}")
    print(f"distinct n-grams: {distinct}; in the text profile: {len(rows)}; max penalty {model.size}")
    head = f"{'n-gram':<8}{'count':>6}{'rank':>6}" + "".join(
        f"{lab + ' rank':>10}{'adds':>6}" for lab in langs
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        cells = "".join(
            f"{('-' if r.ranks[lab] is None else r.ranks[lab])!s:>10}{r.adds[lab]:>6}" for lab in langs
        )
        print(f"{r.ngram:<8}{r.count:>6}{r.text_rank:>6}{cells}")
    print("-" * len(head))
    print(f"{'distance':<20}" + "".join(f"{totals[lab]:>16}" for lab in langs))
    winner = min(langs, key=lambda lab: totals[lab])
    print(f"smallest: {winner}")


def run(args: argparse.Namespace) -> int:
    if not args.texts and args.lines is None:
        print("trawl: error: give TEXT arguments or --lines FILE (or - for standard input)", file=sys.stderr)
        return 2
    if args.langs and not args.table:
        print("trawl: error: --langs chooses the languages of --table; give --table too", file=sys.stderr)
        return 2
    from trawl.langid.identify import get_identifier  # noqa: PLC0415 -- loads the models

    if args.table:
        langs = [c.strip() for c in args.langs.split(",") if c.strip()] if args.langs else None
        for text in _inputs(args):
            _print_table(text, langs, args.json)
        return 0
    identifier = get_identifier(args.method)
    if args.passages:
        from trawl.langid.passages import dominant, language_spans  # noqa: PLC0415

        text = "\n".join(_inputs(args))
        spans = language_spans(text, identifier)
        lang, score = dominant(spans)
        if args.json:
            doc = {"lang": lang, "score": round(score, 4), "passages": [s.as_dict() for s in spans]}
            print(json.dumps(doc, ensure_ascii=False))
        else:
            print(f"dominant: {lang} ({score:.2f})")
            for s in spans:
                preview = " ".join(text[s.start : s.end].split())[:60]
                print(f"{s.start}-{s.end}\t{s.lang}\t{s.score:.2f}\t{preview}")
        return 0
    for text in _inputs(args):
        result = identifier.identify(text)
        if args.json:
            print(json.dumps(result.as_dict(), ensure_ascii=False), flush=True)
        else:
            note = f"  (ambiguous: {'/'.join(result.ambiguous)})" if result.ambiguous else ""
            if result.reason:
                note += f"  ({result.reason})"
            alts = ", ".join(f"{lab} {s:.2f}" for lab, s in result.alternatives[:2])
            preview = " ".join(text.split())[:50]
            print(f"{result.lang}\t{result.score:.2f}\t[{alts}]\t{preview}{note}", flush=True)
    return 0
