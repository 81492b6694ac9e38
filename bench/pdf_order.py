# ruff: noqa: PLC0415  # each peer is imported where it runs: a missing peer must not stop the others
"""PDF reading order: two-column pages read column by column, single-column pages not made worse.

Corpora (generated, known text and order):

* **two-column**: :func:`tests.convert.pdfcorpus.columns_pdf`, a journal paper (running header,
  page numbers, first-page title and abstract, two columns, a footnote per page), drawn row by
  row (``rows``: PDFium's content order interleaves the columns) and column by column
  (``columns``, as LaTeX draws), ``--files`` papers of each;
* **tagged**: :func:`tests.convert.pdfcorpus.tagged_pdf`, two columns drawn row by row in a
  tagged PDF (structure tree in column order, header and page number marked ``/Artifact``);
* **single-column**: the PDF builder of ``tests/convert/corpus.py`` (``bench/convert.py``'s).

Measures: the share of the known text's word bigrams found adjacent in the output (the reading
order), token F1 (the words), and pages/s (best of ``--repeat`` interleaved rounds, one process).

Contestants: ``trawl`` (:func:`~trawl.convert.registry.convert_bytes`, layout order: the
default), ``trawl content order`` (``ConvertOptions(pdf_layout=False)``: what trawl did before),
``pypdfium2`` (raw ``get_text_range``), ``pdfminer.six`` (``extract_text``, default ``LAParams``
layout analysis) and ``markitdown`` (pdfminer underneath), the last two where installed (the
environment, or ``bench/out/peers``).

Usage::

    python bench/pdf_order.py                   # --files 8 --repeat 3
    python bench/pdf_order.py --quick           # 2 files, 1 round
    python bench/pdf_order.py --pdfs '/usr/share/doc/**/*.pdf'   # real files: pages reordered
"""

from __future__ import annotations

import argparse
import glob
import io
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench" / "out" / "peers"))  # after the environment: its versions win

from bench.harness import Bench, markitdown_reader  # noqa: E402
from tests.convert.corpus import BUILDERS, Sample, token_f1  # noqa: E402
from tests.convert.pdfcorpus import bigrams_in_order, columns_pdf, tagged_pdf  # noqa: E402

from trawl.convert.base import ConvertOptions  # noqa: E402
from trawl.convert.registry import convert_bytes  # noqa: E402

OUT = ROOT / "bench" / "out" / "pdf_order"
Converter = Callable[[Path, bytes], str]
CONTENT_ORDER = ConvertOptions(pdf_layout=False)


def _trawl(path: Path, data: bytes) -> str:
    conv = convert_bytes(data, filename=path.name)
    return conv.converted.text if conv.converted else ""


def _trawl_content(path: Path, data: bytes) -> str:
    conv = convert_bytes(data, filename=path.name, options=CONTENT_ORDER)
    return conv.converted.text if conv.converted else ""


def _pypdfium2(path: Path, data: bytes) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def _pdfminer() -> Converter | None:
    try:
        from pdfminer.high_level import extract_text
    except ImportError:
        return None

    def run(path: Path, data: bytes) -> str:
        return str(extract_text(io.BytesIO(data)))

    return run


def _markitdown() -> Converter | None:
    read = markitdown_reader()
    return None if read is None else (lambda path, _data: read(path)[0])


def corpus(name: str, files: int) -> list[tuple[Path, Sample]]:
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in range(files):
        if name == "single-column":
            sample = BUILDERS["pdf"](seed + 100, 100)
        elif name == "tagged":
            sample = tagged_pdf(seed + 100, 40)
        else:
            sample = columns_pdf(seed + 100, 40, order=name.removeprefix("two-column, "))
        path = folder / f"{seed:03d}-{sample.name}"
        path.write_bytes(sample.data)
        out.append((path, sample))
    return out


def _pages(sample: Sample) -> int:
    pages = sample.extra.get("pages", 1)
    return pages if isinstance(pages, int) else 1


def bench_corpus(name: str, files: int, repeat: int, contestants: dict[str, Converter]) -> str:
    docs = corpus(name, files)
    pages = sum(_pages(s) for _, s in docs)
    scores: dict[str, tuple[float, float]] = {}
    for who, convert in contestants.items():
        order, f1 = [], []
        for path, sample in docs:
            try:
                text = convert(path, sample.data)
            except Exception:  # counted as a zero, not a crash of the benchmark
                text = ""
            order.append(bigrams_in_order(sample.text, text))
            f1.append(token_f1(sample.text, text))
        scores[who] = (statistics.mean(order), statistics.mean(f1))
    bench = Bench(f"{name} ({len(docs)} files, {pages} pages)", units="pages")
    for who, convert in contestants.items():

        def job(convert: Converter = convert) -> int:
            for path, sample in docs:
                try:
                    convert(path, sample.data)
                except Exception:  # already scored as a zero
                    continue
            return pages

        bench.add(who, job)
    results = bench.run(repeat=repeat, verbose=False)
    ref = next(r for r in results if r.name == "trawl")
    lines = [
        f"| {bench.title} | bigrams in order | token F1 | pages/s | speed vs trawl |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        order, f1 = scores[r.name]
        lines.append(
            f"| {r.name} | {order:.4f} | {f1:.4f} | {pages / r.best:,.0f} | {ref.best / r.best:.2f}x |"
        )
    return "\n".join(lines)


def real_files(pattern: str) -> str:
    """Real PDFs: how many pages the layout reorders, and whether the text's words stay the same."""
    lines = ["| file | pages | pages reordered | token F1, layout vs content order |", "|---|---:|---:|---:|"]
    for name in sorted(glob.glob(pattern, recursive=True)):
        data = Path(name).read_bytes()
        layout = convert_bytes(data, filename=name).converted
        content = convert_bytes(data, filename=name, options=CONTENT_ORDER).converted
        if layout is None or content is None:
            lines.append(f"| {Path(name).name} | — | — | not converted |")
            continue
        reordered = layout.counts.get("pdf/pages-reordered", 0)
        f1 = token_f1(content.text, layout.text)
        lines.append(f"| {Path(name).name} | {layout.metadata.get('pages')} | {reordered} | {f1:.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=8, help="papers per corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2 files per corpus, 1 round")
    parser.add_argument("--no-peers", action="store_true", help="trawl and pypdfium2 only")
    parser.add_argument("--pdfs", default="", help="a glob of real PDFs to check as well")
    args = parser.parse_args()
    files, repeat = (2, 1) if args.quick else (args.files, args.repeat)
    contestants: dict[str, Converter] = {
        "trawl": _trawl,
        "trawl content order": _trawl_content,
        "pypdfium2": _pypdfium2,
    }
    if not args.no_peers:
        for who, make in (("pdfminer.six", _pdfminer), ("markitdown", _markitdown)):
            found = make()
            print(f"{who}: {'found' if found else 'not installed'}", flush=True)
            if found is not None:
                contestants[who] = found
    for name in ("two-column, rows", "two-column, columns", "tagged", "single-column"):
        print(bench_corpus(name, files, repeat, contestants), flush=True)
        print(flush=True)
    if args.pdfs:
        print(real_files(args.pdfs), flush=True)


if __name__ == "__main__":
    main()
