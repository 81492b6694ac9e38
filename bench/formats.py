# each peer is imported where it runs: a missing peer must not stop the others
"""Legacy Office, Outlook and iWork files: words recovered against the modern twin, files/s, failures.

For ``.doc``, ``.xls`` and ``.ppt`` the corpus is the test corpus's DOCX, XLSX and PPTX samples
(``tests/convert/corpus.py``, ``--files`` seeds each, scaled up) converted by LibreOffice to the
legacy format (``tests/convert/legacy_corpus.py``, cached under the temporary directory), so each
legacy file has a *modern twin*. The measure is **recall of the twin's words**: the share of the
word tokens trawl reads from the modern file (with their counts) that a contestant reads from the
legacy one (the goal: at least 98 %). ``.msg`` (written by the test suite's compound-file writer)
and iWork '09 packages have known text instead, scored the same way.

Contestants:

* ``trawl``: :func:`~trawl.convert.registry.convert_bytes` with the Python readers
  (``libreoffice = "never"``: olefile, xlrd, the Word and PowerPoint record readers);
* ``trawl+guard``: the same in the guarded worker process;
* ``trawl/libreoffice``: ``libreoffice = "always"`` (soffice converts to the modern format, which
  trawl then reads): the fallback's speed and accuracy;
* ``markitdown`` (bench/out/peers), where it reads the format (``.xls`` through pandas/xlrd,
  ``.msg`` through olefile; it has no ``.doc``/``.ppt`` reader and scores 0 there).

Usage::

    python bench/formats.py                 # --files 10 --repeat 3
    python bench/formats.py --quick         # 3 files per format, 1 round, no LibreOffice timing
    python bench/formats.py --formats doc,xls --no-markitdown
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench" / "out" / "peers"))  # after the environment: its versions win

from bench.harness import Bench, markitdown_reader  # noqa: E402
from tests.convert.corpus import BUILDERS, tokens  # noqa: E402
from tests.convert.legacy_corpus import TWINS, build_legacy, soffice  # noqa: E402

from trawl.convert.base import ConvertOptions  # noqa: E402
from trawl.convert.guard import Guard  # noqa: E402
from trawl.convert.registry import convert_bytes  # noqa: E402

OUT = ROOT / "bench" / "out" / "formats"
SIZES = {"doc": 40, "xls": 60, "ppt": 30, "msg": 40, "pages": 40, "numbers": 40, "key": 30}
SUFFIX = {fmt: f".{fmt}" for fmt in SIZES}
PYTHON = ConvertOptions(libreoffice="never")
ALWAYS = ConvertOptions(libreoffice="always", libreoffice_timeout=120)

Converter = Callable[[Path, bytes], tuple[str, str | None]]  # text, and the failure if any


def recall(expected: str, got: str) -> float:
    want, have = tokens(expected), tokens(got)
    return sum((want & have).values()) / max(1, sum(want.values()))


def corpus(fmt: str, files: int) -> list[tuple[Path, bytes, str]]:
    """``files`` documents of ``fmt``: (path, bytes, the text they should give)."""
    folder = OUT / fmt
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in range(files):
        if fmt in TWINS:
            made = build_legacy(fmt, seed + 100, SIZES[fmt])
            if made is None:
                raise SystemExit("LibreOffice (soffice) is needed to make the legacy corpus")
            modern, data = made
            twin = convert_bytes(modern.data, filename=modern.name).converted
            expected = twin.text if twin is not None else modern.text
        else:
            sample = BUILDERS["ole" if fmt == "msg" else fmt](seed + 100, SIZES[fmt])
            data, expected = sample.data, sample.text
        path = folder / f"{seed:03d}{SUFFIX[fmt]}"
        path.write_bytes(data)
        out.append((path, data, expected))
    return out


def _trawl(options: ConvertOptions, guard: Guard | None = None) -> Converter:
    def run(path: Path, data: bytes) -> tuple[str, str | None]:
        conv = convert_bytes(data, filename=path.name, options=options, guard=guard)
        if conv.converted is None:
            return "", conv.dropped or conv.skip_reason or "skipped"
        return conv.converted.text, None

    return run


def _markitdown() -> Converter | None:
    read = markitdown_reader()
    return None if read is None else (lambda path, _data: read(path))


def bench_format(fmt: str, files: int, repeat: int, contestants: dict[str, Converter]) -> str:
    docs = corpus(fmt, files)
    size = sum(len(data) for _, data, _ in docs)
    scores: dict[str, tuple[float, float, int]] = {}
    for name, convert in contestants.items():
        values = []
        failures = 0
        for path, data, expected in docs:
            text, failure = convert(path, data)
            failures += failure is not None
            values.append(recall(expected, text))
        scores[name] = (statistics.mean(values), min(values), failures)
    bench = Bench(f"{fmt} ({len(docs)} files, {size / 1e6:.2f} MB)", units="files", size_bytes=size)
    for name, convert in contestants.items():

        def job(convert: Converter = convert) -> int:
            for path, data, _ in docs:
                with contextlib.suppress(Exception):  # failures already counted
                    convert(path, data)
            return len(docs)

        bench.add(name, job)
    results = bench.run(repeat=repeat, verbose=False)
    lines = [
        f"| {bench.title} | files/s | MB/s | recall (mean) | recall (min) | failures |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        mean, low, failures = scores[r.name]
        lines.append(
            f"| {r.name} | {len(docs) / r.best:,.1f} | {size / r.best / 1e6:,.2f} | {mean:.4f} | {low:.4f} "
            f"| {failures} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=10, help="documents per format")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="3 files per format, 1 round, no LibreOffice")
    parser.add_argument("--formats", default="doc,xls,ppt,msg,pages,numbers,key")
    parser.add_argument("--no-markitdown", action="store_true")
    args = parser.parse_args()
    files, repeat = (3, 1) if args.quick else (args.files, args.repeat)
    markitdown = None if args.no_markitdown else _markitdown()
    print(f"markitdown: {'found' if markitdown else 'not installed'}; soffice: {soffice() or 'absent'}")
    with Guard(timeout=180) as guard:
        for fmt in args.formats.split(","):
            contestants: dict[str, Converter] = {
                "trawl": _trawl(PYTHON),
                "trawl+guard": _trawl(PYTHON, guard),
            }
            if fmt in TWINS and soffice() and not args.quick:
                contestants["trawl/libreoffice"] = _trawl(ALWAYS)
            if markitdown is not None:
                contestants["markitdown"] = markitdown
            print(bench_format(fmt, files, repeat, contestants), flush=True)
            print(flush=True)


if __name__ == "__main__":
    main()
