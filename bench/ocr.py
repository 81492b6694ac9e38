# ruff: noqa: PLC0415  # each peer is imported where it runs: a missing peer must not stop the others
"""OCR: character error rate and pages/s of trawl's Tesseract OCR on pages of known text.

Each page is made the way a scanner makes one: known text set by reportlab in one of its standard
fonts (Helvetica, Times-Roman, Courier) at one size (9, 11, 14 pt) on an A4 page, rendered by
PDFium at 300 dpi in grey. The text is real prose in several languages: the second half of the
Universal Declaration of Human Rights in English, German, French and Spanish
(``../shared/data/langid/udhr2``, the part the language identifier was not trained on), cut to
the characters the fonts can set (Windows-1252).

Character error rate (CER) = Levenshtein distance between the known text and the OCR text, both
with their whitespace collapsed to single spaces, divided by the known text's length. The goal
(issue 38) is a mean CER of at most 2 % at 300 dpi.

Contestants:

* ``trawl-image``: :func:`trawl.convert.registry.convert_bytes` on the page as a PNG, ``ocr =
  "auto"`` with the default language (``eng``): the language is identified from the first
  reading and the page read again with that pack when it is another (as a user runs it);
* ``trawl-told``: the same, told the page's language (``ocr_languages``): one reading a page;
* ``trawl-pdf``: the same page as a scanned PDF (an image-only page): PDFium renders it at 300
  dpi again before Tesseract reads it;
* ``tesseract``: the ``tesseract`` command on the PNG with plain-text output, *told* the right
  language: the ceiling trawl's wrapper, its TSV assembly and its language choice aim at;
* ``markitdown``: Microsoft's converter on the PNG (``bench/out/peers``): without an LLM client or
  Azure Document Intelligence it reads an image's EXIF metadata only, so it recovers no text here.
  docling and unstructured OCR through models downloaded at run time (layout models, or
  unstructured-inference's), which this offline machine cannot fetch: not run.

Usage::

    python bench/ocr.py                 # 4 languages x 3 fonts x 3 sizes = 36 pages
    python bench/ocr.py --quick         # 4 languages x 1 font x 1 size
    python bench/ocr.py --no-markitdown --contestants trawl-image,tesseract
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench" / "out" / "peers"))  # after the environment: its versions win

from trawl.convert.base import ConvertOptions  # noqa: E402
from trawl.convert.ocr import installed_languages, ocr_available  # noqa: E402
from trawl.convert.registry import convert_bytes  # noqa: E402

OUT = ROOT / "bench" / "out" / "ocr"
UDHR = ROOT.parent / "shared" / "data" / "langid" / "udhr2"
LANGUAGES = {"eng": "eng", "deu": "deu", "fra": "fra", "spa": "spa"}  # UDHR file -> Tesseract pack
FONTS = ("Helvetica", "Times-Roman", "Courier")
SIZES = (9, 11, 14)
DPI = 300
GOAL = 0.02


@dataclass(slots=True)
class Page:
    """One rendered page and the text set on it."""

    lang: str
    font: str
    size: int
    text: str
    png: bytes
    pdf: bytes  # the page as an image-only ("scanned") PDF


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), bit-parallel (Myers 1999, Hyyrö's
    formulation): one big-integer step per character of ``b``."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    m = len(a)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def _check_levenshtein() -> None:
    """The bit-parallel distance against the textbook dynamic programme, on a few strings."""
    import random

    def slow(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, cb in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        return row[-1]

    rng = random.Random(5)
    for _ in range(300):
        a = "".join(rng.choice("abcé ") for _ in range(rng.randint(0, 90)))
        b = "".join(rng.choice("abcé ") for _ in range(rng.randint(0, 90)))
        assert levenshtein(a, b) == slow(a, b), (a, b)


def collapse(text: str) -> str:
    return " ".join(text.split())


def cer(expected: str, got: str) -> float:
    want, have = collapse(expected), collapse(got)
    return levenshtein(want, have) / max(len(want), 1)


def _prose(lang: str) -> str:
    """The second half of the language's UDHR, whitespace collapsed, in Windows-1252 characters."""
    text = collapse((UDHR / f"{lang}.txt").read_text(encoding="utf-8"))
    text = text[len(text) // 2 :]
    text = text[text.index(" ") + 1 :]
    return "".join(ch for ch in text if ch.encode("cp1252", "ignore"))


def make_page(lang: str, font: str, size: int, offset: int) -> Page:
    """A page of the language's prose from ``offset`` words in, filled to the bottom margin."""
    import pypdfium2 as pdfium
    from PIL import Image
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    words = _prose(lang).split()
    words = words[offset % max(len(words) - 800, 1) :]
    width, height = A4
    margin, leading = 60, size * 1.35
    lines: list[str] = []
    line = ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if stringWidth(candidate, font, size) > width - 2 * margin:
            lines.append(line)
            line = word
            if len(lines) >= int((height - 2 * margin) / leading):
                break
        else:
            line = candidate
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont(font, size)
    y = height - margin
    for text in lines:
        c.drawString(margin, y, text)
        y -= leading
    c.showPage()
    c.save()
    doc = pdfium.PdfDocument(buf.getvalue())
    try:
        grey = doc[0].render(scale=DPI / 72, grayscale=True).to_pil()
    finally:
        doc.close()
    image = Image.frombytes("L", grey.size, grey.tobytes())
    png, pdf = io.BytesIO(), io.BytesIO()
    image.save(png, "PNG", dpi=(DPI, DPI))
    image.save(pdf, "PDF", resolution=DPI)
    return Page(lang, font, size, "\n".join(lines), png.getvalue(), pdf.getvalue())


def _trawl(kind: str, *, told: bool = False) -> Callable[[Page], str]:
    options = ConvertOptions(ocr="auto")

    def run(page: Page) -> str:
        data = page.png if kind == "image" else page.pdf
        chosen = dataclasses.replace(options, ocr_languages=(LANGUAGES[page.lang],)) if told else options
        conversion = convert_bytes(data, options=chosen)
        if conversion.converted is None:
            raise RuntimeError(conversion.message or conversion.skip_reason or "no text")
        return conversion.converted.text

    return run


def _tesseract(page: Page) -> str:
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        f.write(page.png)
        f.flush()
        done = subprocess.run(
            ["tesseract", f.name, "stdout", "-l", LANGUAGES[page.lang]],
            capture_output=True,
            check=True,
            env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
        )
    return done.stdout.decode("utf-8", "replace")


def _markitdown() -> Callable[[Page], str] | None:
    try:
        from markitdown import MarkItDown
    except ImportError:
        return None
    converter = MarkItDown()

    def run(page: Page) -> str:
        text = converter.convert_stream(io.BytesIO(page.png), file_extension=".png").text_content
        return re.sub(r"^#.*$|^[A-Za-z]+: .*$", "", text or "", flags=re.MULTILINE)  # its metadata lines

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one font and size per language")
    parser.add_argument("--no-markitdown", action="store_true")
    parser.add_argument("--contestants", default="", help="comma-separated subset")
    args = parser.parse_args()
    if not ocr_available():
        print(
            "tesseract is not installed (apt install tesseract-ocr tesseract-ocr-deu ...): nothing to measure"
        )
        return 1
    _check_levenshtein()
    langs = [
        lang
        for lang, pack in LANGUAGES.items()
        if pack in installed_languages() and (UDHR / f"{lang}.txt").exists()
    ]
    fonts, sizes = (FONTS[:1], (11,)) if args.quick else (FONTS, SIZES)
    pages = [
        make_page(lang, font, size, offset=97 * i)
        for lang in langs
        for i, (font, size) in enumerate((f, s) for f in fonts for s in sizes)
    ]
    contestants: dict[str, Callable[[Page], str]] = {
        "trawl-image": _trawl("image"),
        "trawl-told": _trawl("image", told=True),
        "trawl-pdf": _trawl("pdf"),
        "tesseract": _tesseract,
    }
    markitdown = None if args.no_markitdown else _markitdown()
    if markitdown is not None:
        contestants["markitdown"] = markitdown
    if args.contestants:
        keep = set(args.contestants.split(","))
        contestants = {name: run for name, run in contestants.items() if name in keep}
    convert_bytes(pages[0].png, options=ConvertOptions(ocr="auto"))  # warm up: the language model loads once
    rows = []
    rates: dict[str, list[float]] = {name: [] for name in contestants}
    seconds = dict.fromkeys(contestants, 0.0)
    names = list(contestants)
    for number, page in enumerate(pages):  # page by page, the contestants' order rotated: a busy
        for name in names[number % len(names) :] + names[: number % len(names)]:  # moment hits all
            t0 = time.perf_counter()
            try:
                got = contestants[name](page)
            except Exception as exc:  # a contestant's failure is a row, not the end of the run
                got = ""
                print(f"  {name} failed on {page.lang}/{page.font}/{page.size}: {exc}", file=sys.stderr)
            seconds[name] += time.perf_counter() - t0
            rate = cer(page.text, got)
            rates[name].append(rate)
            rows.append({"contestant": name, "lang": page.lang, "font": page.font, "size": page.size,
                         "chars": len(collapse(page.text)), "cer": round(rate, 5)})  # fmt: skip
    summary = {
        name: {
            "mean_cer": statistics.mean(rates[name]),
            "max_cer": max(rates[name]),
            "pages_per_s": len(pages) / seconds[name],
        }
        for name in contestants
    }
    print(f"OCR at {DPI} dpi: {len(pages)} pages ({', '.join(langs)}; {', '.join(fonts)}; {sizes} pt)")
    print(f"{'contestant':<13} {'mean CER':>9} {'max CER':>8} {'pages/s':>8}")
    for name, s in summary.items():
        print(f"{name:<13} {s['mean_cer']:>8.2%} {s['max_cer']:>8.2%} {s['pages_per_s']:>8.2f}")
    print("\nmean CER by language and contestant:")
    for lang in langs:
        means = {
            name: statistics.mean(r["cer"] for r in rows if r["lang"] == lang and r["contestant"] == name)
            for name in contestants
        }
        cells = [f"{name}={mean:.2%}" for name, mean in means.items()]
        print(f"  {lang}: {'  '.join(cells)}")
    print("mean CER by font (trawl-image):")
    for font in fonts:
        mean = (
            statistics.mean(r["cer"] for r in rows if r["font"] == font and r["contestant"] == "trawl-image")
            if "trawl-image" in contestants
            else float("nan")
        )
        print(f"  {font}: {mean:.2%}")
    trawl = summary.get("trawl-image", {}).get("mean_cer")
    if trawl is not None:
        print(f"\ngoal: mean CER <= {GOAL:.0%}: {'met' if trawl <= GOAL else 'NOT met'} ({trawl:.2%})")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps({"summary": summary, "pages": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
