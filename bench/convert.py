# ruff: noqa: PLC0415  # each peer is imported where it runs: a missing peer must not stop the others
"""Format conversion: trawl's converters side by side with peer libraries, speed and accuracy.

The input is the test corpus of ``tests/convert/corpus.py``, scaled up: for each format, ``--files``
documents written by the format's own writer library (python-docx, openpyxl, python-pptx, odfpy,
reportlab) or by hand (RTF, EPUB, HTML, feeds), with known text. Every contestant converts every
file; the harness times them interleaved in one process, and accuracy is the mean token-level F1
of each contestant's text against the known text (markup such as Markdown's ``#`` and ``|`` does
not count; words a converter adds, e.g. "Slide number", do).

Contestants, where they exist for the format:

* ``trawl``: :func:`trawl.convert.registry.convert_bytes` in this process;
* ``trawl+guard``: the same in the worker process (the isolation's cost: a pipe round trip);
* ``pypdfium2`` (raw ``get_text_range``, no cleaning), ``pypdf`` (``extract_text``);
* ``python-docx`` (paragraphs and table cells), ``docx2txt``; ``openpyxl`` (read-only cell
  values); ``python-pptx`` (shape text frames and notes);
* ``markitdown`` (Microsoft's converter to Markdown; pdfminer.six, mammoth, pandas, python-pptx
  underneath), looked for in ``bench/out/peers`` (``pip install --target bench/out/peers
  'markitdown[docx,pptx,xlsx,pdf]' docx2txt``) or the environment.

Usage::

    python bench/convert.py               # --files 20 --repeat 3
    python bench/convert.py --quick       # 4 files per format, 1 round
    python bench/convert.py --formats pdf,docx --no-markitdown
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench" / "out" / "peers"))  # after the environment: its versions win

from bench.harness import Bench, markitdown_reader  # noqa: E402
from tests.convert.corpus import BUILDERS, Sample, empty_pages_pdf, token_f1  # noqa: E402

from trawl.convert.base import ConvertOptions  # noqa: E402
from trawl.convert.guard import Guard  # noqa: E402
from trawl.convert.registry import convert_bytes  # noqa: E402

OUT = ROOT / "bench" / "out" / "convert"
SIZES = {"pdf": 100, "docx": 40, "xlsx": 60, "pptx": 30, "odt": 40, "ods": 60, "odp": 20, "rtf": 40,
         "epub": 40, "rss": 30, "atom": 30, "html": 40, "xml": 40, "text": 40}  # fmt: skip

Converter = Callable[[Path, bytes], str]


def _trawl(path: Path, data: bytes) -> str:
    conv = convert_bytes(data, filename=path.name)
    return conv.converted.text if conv.converted else ""


def _trawl_guarded(guard: Guard) -> Converter:
    def run(path: Path, data: bytes) -> str:
        conv = convert_bytes(data, filename=path.name, guard=guard)
        return conv.converted.text if conv.converted else ""

    return run


def _pypdfium2(path: Path, data: bytes) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def _pypdf(path: Path, data: bytes) -> str:
    import pypdf

    return "\n".join(page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def _python_docx(path: Path, data: bytes) -> str:
    import docx

    doc = docx.Document(io.BytesIO(data))
    parts = [p.text for p in doc.paragraphs]
    for table in doc.tables:
        parts += [cell.text for row in table.rows for cell in row.cells]
    return "\n".join(parts)


def _docx2txt(path: Path, data: bytes) -> str:
    import docx2txt

    return str(docx2txt.process(io.BytesIO(data)))


def _openpyxl(path: Path, data: bytes) -> str:
    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    lines = []
    for ws in wb.worksheets:
        lines.append(ws.title)
        for row in ws.iter_rows(values_only=True):
            lines.append("\t".join(str(v) for v in row if v is not None))
    wb.close()
    return "\n".join(lines)


def _python_pptx(path: Path, data: bytes) -> str:
    import pptx

    prs = pptx.Presentation(io.BytesIO(data))
    parts = []
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.append(shape.text_frame.text)
            if getattr(shape, "has_table", False):
                parts += [cell.text for row in shape.table.rows for cell in row.cells]
        if slide.has_notes_slide:
            parts.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(parts)


def _markitdown() -> Converter | None:
    read = markitdown_reader()
    return None if read is None else (lambda path, _data: read(path)[0])


PEERS: dict[str, dict[str, Converter]] = {
    "pdf": {"pypdfium2": _pypdfium2, "pypdf": _pypdf},
    "docx": {"python-docx": _python_docx, "docx2txt": _docx2txt},
    "xlsx": {"openpyxl": _openpyxl},
    "pptx": {"python-pptx": _python_pptx},
}
MARKITDOWN_FORMATS = ("pdf", "docx", "xlsx", "pptx", "html", "epub", "rss")
GUARDED = ("pdf", "docx", "xlsx", "pptx", "odt")


def corpus(fmt: str, files: int) -> list[tuple[Path, Sample]]:
    folder = OUT / fmt
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in range(files):
        sample = BUILDERS[fmt](seed + 100, SIZES[fmt])
        path = folder / f"{seed:03d}-{sample.name}"
        path.write_bytes(sample.data)
        out.append((path, sample))
    return out


def bench_format(fmt: str, files: int, repeat: int, markitdown: Converter | None, guard: Guard) -> str:
    docs = corpus(fmt, files)
    contestants: dict[str, Converter] = {"trawl": _trawl}
    if fmt in GUARDED:
        contestants["trawl+guard"] = _trawl_guarded(guard)
    contestants.update(PEERS.get(fmt, {}))
    if markitdown is not None and fmt in MARKITDOWN_FORMATS:
        contestants["markitdown"] = markitdown
    size = sum(len(s.data) for _, s in docs)
    accuracy: dict[str, float] = {}
    for name, convert in contestants.items():
        scores = []
        for path, sample in docs:
            try:
                text = convert(path, sample.data)
            except Exception:  # counted as a zero, not a crash of the benchmark
                text = ""
            scores.append(token_f1(sample.text, text))
        accuracy[name] = statistics.mean(scores)
    bench = Bench(f"{fmt} ({len(docs)} files, {size / 1e6:.2f} MB)", units="files", size_bytes=size)
    for name, convert in contestants.items():

        def job(convert: Converter = convert) -> int:
            for path, sample in docs:
                with contextlib.suppress(Exception):  # failures already scored as zeros
                    convert(path, sample.data)
            return len(docs)

        bench.add(name, job)
    results = bench.run(repeat=repeat, verbose=False)
    ref = next(r for r in results if r.name == "trawl")
    lines = [f"| {bench.title} | files/s | MB/s | speed vs trawl | token F1 |", "|---|---:|---:|---:|---:|"]
    for r in results:
        lines.append(
            f"| {r.name} | {len(docs) / r.best:,.1f} | {size / r.best / 1e6:,.2f} | {ref.best / r.best:.2f}x "
            f"| {accuracy[r.name]:.4f} |"
        )
    return "\n".join(lines)


def hostile(guard: Guard) -> str:
    """Seconds from bytes to a recorded reason for the hostile inputs of the test suite."""
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", b"\0" * (256 * 1024 * 1024))
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
            for i in range(1, 10)
        )
        + b"]><rss><channel><title>&lol9;</title></channel></rss>"
    )
    docx = BUILDERS["docx"](1, 10).data
    cases = {
        "DOCX zip bomb (256 MiB of zeros in 256 KB)": (bomb.getvalue(), "bomb.docx"),
        "billion laughs RSS": (laughs, "feed.rss"),
        "truncated DOCX": (docx[: len(docx) // 2], "cut.docx"),
        "PDF header + garbage": (b"%PDF-1.4\n" + bytes(range(256)) * 400, "junk.pdf"),
        "PDF, 10,000 empty pages": (empty_pages_pdf(10_000), "empty.pdf"),
        "PNG named .html": (b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "index.html"),
    }
    lines = ["| hostile input | bytes | seconds | outcome |", "|---|---:|---:|---|"]
    for name, (data, filename) in cases.items():
        t0 = time.perf_counter()
        conv = convert_bytes(data, filename=filename, guard=guard, options=ConvertOptions())
        took = time.perf_counter() - t0
        if conv.dropped:
            outcome = f"dropped: `{conv.dropped}`"
        elif conv.skipped:
            outcome = f"identified as {conv.identity.mime}, disagree={conv.identity.disagree}, no text"
        else:
            counts = conv.converted.counts if conv.converted else {}
            outcome = f"converted, {', '.join(f'`{k}`' for k in counts) or 'no counters'}"
        lines.append(f"| {name} | {len(data):,} | {took:.2f} | {outcome} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=20, help="documents per format")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="4 files per format, 1 round")
    parser.add_argument(
        "--formats", default=",".join(f for f in BUILDERS if f in SIZES), help="comma-separated formats"
    )
    parser.add_argument("--no-markitdown", action="store_true")
    parser.add_argument("--no-hostile", action="store_true")
    args = parser.parse_args()
    files, repeat = (4, 1) if args.quick else (args.files, args.repeat)
    markitdown = None if args.no_markitdown else _markitdown()
    print(f"markitdown: {'found' if markitdown else 'not installed'}", flush=True)
    with Guard(timeout=60) as guard:
        for fmt in args.formats.split(","):
            print(bench_format(fmt, files, repeat, markitdown, guard), flush=True)
            print(flush=True)
        if not args.no_hostile:
            print(hostile(guard), flush=True)


if __name__ == "__main__":
    main()
