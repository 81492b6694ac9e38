"""Benchmark: per-passage language identification — which parts of a document are in which
language — quality and cost, trawl against the peers.

    python bench/langid_passages.py                 # 150 + 150 mixed documents, 300 WCXB pages
    python bench/langid_passages.py --pages 100 --docs 50 --only trawl py3langid-lines

Sets (no model of trawl trained on any of them):

* ``udhr-mixed`` and ``tatoeba-mixed`` — documents of one to three languages
  (:func:`trawl.langid.corpus.mixed_documents`): 2-5 paragraphs of 1-5 lines, each paragraph in
  one of the document's languages; lines cut from the UDHR second halves (30-250 characters), or
  made of 1-4 Tatoeba sentences. Scored: the share of the truth's letters whose span has the
  paragraph's label (``letters``), and the dominant language (most letters) right (``dominant``).
* ``wcxb`` — the main text of real pages (WCXB, extracted by trawl), each in one language
  (almost all English): a tagger should not invent other languages in a page's short lines,
  names and code. Scored: pages given more than one language, and the share of letters in a
  language other than the page's dominant one (``off``).

Contestants: trawl's passages (``trawl``: the default identifier's two passes; ``trawl
per-unit``: every unit through the full identifier), py3langid line by line (runs of one label
are spans) and lingua's ``detect_multiple_languages_of`` (high accuracy mode). CPU ms per
document over all sets; each contestant's models are loaded before the clock starts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.decode.charset import decode_html
from trawl.extract import extract
from trawl.langid.codes import UND
from trawl.langid.corpus import DEFAULT_TATOEBA, DEFAULT_UDHR, load_tatoeba, load_udhr, mixed_documents
from trawl.langid.passages import dominant, language_spans, units

WCXB = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction" / "wcxb-dev"
#: Languages every contestant knows that both the UDHR and Tatoeba hold.
LANGS = ("af", "ar", "bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "he", "hi", "hr", "hu",
         "id", "is", "it", "ja", "ko", "lt", "lv", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sv", "sw",
         "th", "tr", "uk", "vi", "zh")  # fmt: skip

Spans = list[tuple[int, int, str]]
Tagger = Callable[[str], tuple[Spans, str]]


def trawl_tagger(two_pass: bool) -> Tagger:
    def tag(text: str) -> tuple[Spans, str]:
        spans = language_spans(text, two_pass=two_pass)
        return [(s.start, s.end, s.lang) for s in spans], dominant(spans)[0]

    return tag


def _runs(text: str, labelled: list[tuple[int, int, str]]) -> tuple[Spans, str]:
    spans: Spans = []
    letters: Counter[str] = Counter()
    for a, b, lab in labelled:
        letters[lab] += sum(c.isalpha() for c in text[a:b])
        if spans and spans[-1][2] == lab:
            spans[-1] = (spans[-1][0], b, lab)
        else:
            spans.append((a, b, lab))
    letters.pop(UND, None)
    return spans, (letters.most_common(1)[0][0] if letters else UND)


def py3langid_tagger() -> Tagger:
    from trawl.langid.peers import peer  # noqa: PLC0415 -- a peer, imported when it runs

    ident = peer("py3langid")

    def tag(text: str) -> tuple[Spans, str]:
        return _runs(text, [(a, b, ident.identify(text[a:b]).lang) for a, b in units(text)])

    return tag


def lingua_tagger() -> Tagger:
    from lingua import LanguageDetectorBuilder  # noqa: PLC0415 -- an optional peer

    from trawl.langid.codes import to_iso639_1  # noqa: PLC0415 -- beside the peer it serves

    detector = LanguageDetectorBuilder.from_all_languages().build()

    def tag(text: str) -> tuple[Spans, str]:
        found = [
            (r.start_index, r.end_index, to_iso639_1(r.language.iso_code_639_3.name.lower()))
            for r in detector.detect_multiple_languages_of(text)
        ]
        return _runs(text, found)

    return tag


def score_mixed(docs: list[tuple[str, Spans]], answers: list[tuple[Spans, str]]) -> tuple[float, float]:
    right = total = dom_right = 0
    for (text, truth), (spans, dom) in zip(docs, answers, strict=True):
        label_at: dict[int, str] = {}
        for a, b, lab in spans:
            for x in range(a, b):
                label_at[x] = lab
        letters: Counter[str] = Counter()
        for a, b, lab in truth:
            for x in range(a, b):
                if text[x].isalpha():
                    total += 1
                    right += label_at.get(x) == lab
                    letters[lab] += 1
        dom_right += dom == letters.most_common(1)[0][0]
    return 100 * right / max(total, 1), 100 * dom_right / max(len(docs), 1)


def score_pages(texts: list[str], answers: list[tuple[Spans, str]]) -> tuple[int, float]:
    multi = off = letters = 0
    for text, (spans, dom) in zip(texts, answers, strict=True):
        multi += len({lab for _, _, lab in spans if lab != UND}) > 1
        for a, b, lab in spans:
            n = sum(c.isalpha() for c in text[a:b])
            letters += n
            off += n if lab not in (dom, UND) else 0
    return multi, 100 * off / max(letters, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=150, help="mixed documents a set")
    ap.add_argument("--pages", type=int, default=300, help="WCXB pages")
    ap.add_argument("--only", nargs="*", help="contestants (names as printed)")
    ap.add_argument(
        "--json", type=Path, default=Path(__file__).resolve().parent / "out" / "langid_passages.json"
    )
    args = ap.parse_args()
    if not DEFAULT_UDHR.is_dir() or not WCXB.is_dir():
        sys.exit("../shared/data is not checked out")

    udhr: dict[str, list[str]] = defaultdict(list)
    for t in load_udhr(DEFAULT_UDHR):
        if t.label in LANGS and len(t.test) >= 1000:
            udhr[t.label].append(t.test)
    tatoeba = {lab: v for lab, v in load_tatoeba(DEFAULT_TATOEBA).items() if lab in LANGS}
    sets = {
        "udhr-mixed": mixed_documents(udhr, args.docs, seed=1),
        "tatoeba-mixed": mixed_documents(tatoeba, args.docs, seed=2, sentences=True),
    }
    pages = []
    for path in sorted((WCXB / "html").glob("*.html.gz"))[: args.pages]:
        text = extract(decode_html(gzip.decompress(path.read_bytes())).text, None, metadata=False).text
        if text.strip():
            pages.append(text)
    print(f"# mixed documents: {args.docs} a set; WCXB pages: {len(pages)}", file=sys.stderr)

    makers: dict[str, Callable[[], Tagger]] = {
        "trawl": lambda: trawl_tagger(True),
        "trawl per-unit": lambda: trawl_tagger(False),
        "py3langid-lines": py3langid_tagger,
        "lingua": lingua_tagger,
    }
    rows = []
    report: dict[str, dict[str, float]] = {}
    for name, make in makers.items():
        if args.only and name not in args.only:
            continue
        try:
            tag = make()
        except Exception as exc:  # a peer that does not install is left out and said so
            print(f"# {name} left out: {exc}", file=sys.stderr)
            continue
        tag("warm up: the models load before the clock starts. Ceci est une phrase.")
        cpu = 0.0
        n = 0
        cells: dict[str, float] = {}
        for set_name, docs in sets.items():
            t0 = time.process_time()
            answers = [tag(text) for text, _ in docs]
            cpu += time.process_time() - t0
            n += len(docs)
            cells[f"{set_name} letters"], cells[f"{set_name} dominant"] = score_mixed(docs, answers)
        t0 = time.process_time()
        answers = [tag(text) for text in pages]
        cpu += time.process_time() - t0
        n += len(pages)
        multi, off = score_pages(pages, answers)
        cells["wcxb multi"], cells["wcxb off"] = multi, off
        cells["ms/doc"] = 1000 * cpu / n
        report[name] = cells
        rows.append((name, cells))
        print(f"  {name} done", file=sys.stderr, flush=True)

    print(
        "| tagger | UDHR mixed: letters | dominant | Tatoeba mixed: letters | dominant "
        f"| WCXB: pages with > 1 language (of {len(pages)}) | letters off | CPU ms/doc |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, c in rows:
        print(
            f"| {name} | {c['udhr-mixed letters']:.1f} % | {c['udhr-mixed dominant']:.1f} % "
            f"| {c['tatoeba-mixed letters']:.1f} % | {c['tatoeba-mixed dominant']:.1f} % "
            f"| {int(c['wcxb multi'])} | {c['wcxb off']:.2f} % | {c['ms/doc']:.2f} |"
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
