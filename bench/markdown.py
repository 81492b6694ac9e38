# markitdown is imported where it runs: a missing peer must not stop the bench
"""Markdown rendering: structure kept and speed, trawl side by side with markitdown.

The input is the structured samples of ``tests/convert/structured.py`` (DOCX with headings, bullet
and numbered lists, a table and a link; PPTX with titled slides, nested bullets, a chart; ODT with
headings, a nested list, a table and a link) and the corpus's XLSX, ODS, EPUB and HTML samples
(``tests/convert/corpus.py``: sheet names, cells, chapter headings), ``--files`` of each with
different seeds. For each contestant and format:

* headings: the share of the known headings found as Markdown headings (``#`` lines);
* items: the share of the known list items found as list items (``-``, ``1.`` lines);
* cells: the share of the known table cells found in pipe-table rows;
* links: the share of the known links found as ``[text](url)``;
* files/s: files converted per second (one process, interleaved rounds, best round).

Contestants: ``trawl`` (:func:`~trawl.convert.registry.convert_bytes` with ``markdown=True``, in
this process) and ``markitdown`` where it is installed (``pip install --target bench/out/peers
'markitdown[docx,pptx,xlsx]'``, or the environment).

Usage::

    python bench/markdown.py               # --files 10 --repeat 3
    python bench/markdown.py --quick       # 3 files, 1 round
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench" / "out" / "peers"))

from bench.harness import markitdown_reader  # noqa: E402
from tests.convert.structured import Structured, structured  # noqa: E402

from trawl.convert.base import ConvertOptions  # noqa: E402
from trawl.convert.registry import convert_bytes  # noqa: E402

FORMATS = ("docx", "pptx", "odt", "xlsx", "ods", "epub", "html")
Render = Callable[[Path, bytes], str]


def _trawl(path: Path, data: bytes) -> str:
    conversion = convert_bytes(data, filename=path.name, options=ConvertOptions(markdown=True))
    converted = conversion.converted
    return str(converted.metadata.get("markdown", "")) if converted is not None else ""


def _markitdown() -> Render | None:
    read = markitdown_reader()
    return None if read is None else (lambda path, _data: read(path)[0])


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[*_`\\]", "", text).split()).lower()


def score(sample: Structured, markdown: str) -> dict[str, float | None]:
    """The shares of the sample's headings, items, cells and links the Markdown keeps as such."""
    headings = {_norm(m[1]) for m in re.finditer(r"(?m)^#{1,6} (.+)$", markdown)}
    items = {_norm(m[1]) for m in re.finditer(r"(?m)^\s*(?:[-*+]|\d+[.)]) (.+)$", markdown)}
    cells = {
        _norm(cell)
        for line in markdown.splitlines()
        if line.lstrip().startswith("|")
        for cell in line.strip().strip("|").split("|")
    }

    def share(known: list[str], found: set[str]) -> float | None:
        return sum(_norm(k) in found for k in known) / len(known) if known else None

    links = [f"[{text}]({url})" in markdown for url, text in sample.links]
    return {
        "headings": share(sample.headings, headings),
        "items": share(sample.items, items),
        "cells": share(sample.cells, cells),
        "links": sum(links) / len(links) if links else None,
    }


def bench(fmt: str, files: int, repeat: int, contestants: dict[str, Render], folder: Path) -> list[str]:
    samples = []
    for seed in range(files):
        sample = structured(fmt, seed=seed + 1)
        path = folder / f"{seed:03d}-{sample.name}"
        path.write_bytes(sample.data)
        samples.append((path, sample))
    rows = []
    for name, render in contestants.items():
        best = float("inf")
        scores: dict[str, list[float]] = {}
        for _ in range(repeat):
            t0 = time.perf_counter()
            outputs = [render(path, sample.data) for path, sample in samples]
            best = min(best, time.perf_counter() - t0)
        for (_path, sample), markdown in zip(samples, outputs, strict=True):
            for key, value in score(sample, markdown).items():
                if value is not None:
                    scores.setdefault(key, []).append(value)
        cols = [
            f"{sum(scores[k]) / len(scores[k]):6.2f}" if k in scores else "     -"
            for k in ("headings", "items", "cells", "links")
        ]
        rows.append(f"{fmt:5} {name:11} {' '.join(cols)} {len(samples) / best:9.1f}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args()
    files, repeat = (3, 1) if args.quick else (args.files, args.repeat)
    contestants: dict[str, Render] = {"trawl": _trawl}
    peer = _markitdown()
    if peer is not None:
        contestants["markitdown"] = peer
    print(f"markitdown: {'found' if peer else 'not installed'}")
    print("fmt   contestant  headings  items  cells  links   files/s")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in args.formats.split(","):
            for row in bench(fmt, files, repeat, contestants, Path(tmp)):
                print(row, flush=True)


if __name__ == "__main__":
    main()
