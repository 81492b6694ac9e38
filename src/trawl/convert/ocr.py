"""OCR with Tesseract: the text of images and of PDF pages that have no text layer.

Tesseract (Apache-2.0; Debian's ``tesseract-ocr`` and its ``tesseract-ocr-<lang>`` packs) runs as a
subprocess, one page at a time, its image in a temporary file and its TSV (one row per word, with
the word's box and confidence) on stdout. Each run has a time cap (``ocr_timeout`` seconds: ``ocr-timeout``)
and inherits the guarded worker's memory cap (:mod:`trawl.convert.guard`); ``OMP_THREAD_LIMIT=1``
keeps it on one core, as parallel workers need.

* **PDF pages** (:func:`read_pdf_pages`, called by :func:`~trawl.convert.pdf.convert_pdf`) are
  rendered by PDFium in grey at :data:`DPI` (300; fewer when a page would exceed
  :data:`MAX_PIXELS`). With ``ocr = "auto"`` the pages that have no text layer (the ones that
  flag ``needs_ocr``) are read, with ``"always"`` every page, its OCR text replacing the layer's.
* **Images** (:func:`convert_image`: PNG, JPEG, TIFF, WebP, BMP, GIF) are decoded by Pillow,
  every frame of a multi-page TIFF a page; without Pillow the bytes go to Tesseract as they are.

Language: the pages are read with ``ocr_languages`` (``eng`` by default); trawl's language
identifier (:mod:`trawl.langid`) then names the language of the first page's text (the first
with 100 characters) — of the PDF's own text layer where it has 200 — and when another installed pack
(``tesseract --list-langs``) matches it, the pages are read with that one (the first page again,
its better reading kept). At most ``ocr_max_pages`` pages are read per document
(``ocr/pages-capped``). The result records ``metadata["ocr"]`` = ``{"pages", "page_numbers",
"confidence" (per page, the mean word confidence 0-100, ``null`` for a page without words),
"lang", "seconds"}`` and ``metadata["converter"] = "tesseract"`` (``pypdfium2+tesseract`` for a
PDF some of whose pages kept their text layer).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from trawl.convert.base import ConversionError, Converted, ConvertOptions, segments_of

__all__ = [
    "DPI",
    "IMAGE_TYPES",
    "MAX_PIXELS",
    "OCR_MODES",
    "OcrPage",
    "PdfOcr",
    "convert_image",
    "installed_languages",
    "language_for",
    "ocr_available",
    "parse_tsv",
    "read_image",
    "read_pdf_pages",
    "tesseract_code",
]

#: The values of ``[convert] ocr`` / ``--ocr``.
OCR_MODES = ("auto", "never", "always")
#: Resolution PDF pages are rendered at for OCR.
DPI = 300
#: Pixels of one page image at most: a PDF page is rendered smaller, an image larger is refused
#: (``image-too-large``). A4 at 300 dpi is 8.7 million.
MAX_PIXELS = 60_000_000
#: Images smaller than this (width, height) hold no text worth a Tesseract run (icons, spacers).
MIN_SIZE = (16, 8)
#: Image types OCRed; other images (icons, SVG) are skipped as before.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/tiff", "image/webp", "image/bmp", "image/gif"})
#: A text layer with at least this many characters names the language of the pages OCRed.
_HINT_CHARS = 200
#: A page OCR read with fewer characters than this does not decide the language (the next does).
_DECIDE_CHARS = 100
#: How sure the identifier must be before the pages are read again in another language.
_LANG_SCORE = 0.5
#: Language labels (trawl.langid: ISO 639-1, else 639-3) whose Tesseract pack is named otherwise
#: than by the label's ISO 639-3 code.
_TESSERACT_NAMES = {"zh": "chi_sim", "nb": "nor", "nn": "nor", "no": "nor", "sr": "srp", "ms": "msa"}


@functools.cache
def _tesseract() -> str | None:
    return shutil.which("tesseract")


@functools.cache
def installed_languages() -> frozenset[str]:
    """The language packs Tesseract has (``tesseract --list-langs``, ``osd`` left out); empty
    when it is not installed or does not answer."""
    program = _tesseract()
    if program is None:
        return frozenset()
    try:
        done = subprocess.run([program, "--list-langs"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip() and line.strip() != "osd")


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, loaded before any fork (a forked child must not ``dlopen``)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def _die_with_parent() -> None:
    """In the Tesseract child: ``SIGKILL`` when the worker that started it dies (the guard kills
    a worker that overran; its Tesseract must not run on)."""
    prctl = _prctl()
    if prctl is not None:
        with contextlib.suppress(OSError):
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def ocr_available() -> bool:
    """Whether Tesseract is installed with at least one language pack."""
    return bool(installed_languages())


def tesseract_code(label: str) -> str:
    """The Tesseract pack of a language label: ``de`` → ``deu``, ``zh`` → ``chi_sim``."""
    from trawl.langid.codes import to_iso639_3  # noqa: PLC0415  # only OCR needs it

    return _TESSERACT_NAMES.get(label) or to_iso639_3(label)


class OcrPage(NamedTuple):
    """One page read: its text (lines joined by newlines), the mean confidence of its words
    (0-100; ``None`` without words), its word count and the seconds Tesseract took."""

    text: str
    confidence: float | None
    words: int
    seconds: float


def parse_tsv(tsv: str) -> tuple[str, float | None, int]:
    """Text, mean word confidence and word count from Tesseract's TSV output. Words of one line
    are joined by spaces, lines by newlines (a blank line between paragraphs is not kept: block
    boundaries are newlines in trawl's text); hyphenation and spacing are cleaned as a PDF text
    layer's (:func:`~trawl.convert.pdf.clean_page_text`)."""
    from trawl.convert.pdf import clean_page_text  # noqa: PLC0415  # pdf imports this module lazily too

    lines: list[list[str]] = []
    last: tuple[str, ...] = ()
    confidences: list[float] = []
    for row in tsv.split("\n")[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5":
            continue
        word = cells[11].strip()
        if not word:
            continue
        key = tuple(cells[1:5])  # page, block, paragraph, line
        if key != last or not lines:
            lines.append([])
            last = key
        lines[-1].append(word)
        try:
            conf = float(cells[10])
        except ValueError:
            continue
        if conf >= 0:
            confidences.append(conf)
    text = clean_page_text("\n".join(" ".join(words) for words in lines))
    mean = sum(confidences) / len(confidences) if confidences else None
    return text, mean, sum(len(words) for words in lines)


def read_image(image: bytes, languages: Sequence[str], *, timeout: float, dpi: int | None = None) -> OcrPage:
    """One page image (any format Tesseract's Leptonica reads; PGM is the cheapest) read with
    ``languages``; raises :class:`ConversionError` (``ocr-unavailable``, ``ocr-timeout``,
    ``ocr-failed``)."""
    program = _tesseract()
    if program is None:
        raise ConversionError(
            "OCR needs tesseract, which is not installed (apt install tesseract-ocr)", "ocr-unavailable"
        )
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core: workers run side by side
    _prctl()
    t0 = time.perf_counter()
    # a file, not stdin: Leptonica reads a large PGM from a pipe markedly slower
    with tempfile.NamedTemporaryFile(prefix="trawl-ocr-", suffix=".img") as file:
        file.write(image)
        file.flush()
        command = [program, file.name, "stdout", "-l", "+".join(languages)]
        if dpi:
            command += ["--dpi", str(dpi)]
        command.append("tsv")
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                env=env,
                check=False,
                preexec_fn=_die_with_parent,  # only prctl: safe after a fork
            )
        except subprocess.TimeoutExpired as exc:
            raise ConversionError(
                f"tesseract took longer than {timeout:g} s on one page: stopped", "ocr-timeout"
            ) from exc
        except OSError as exc:
            raise ConversionError(f"tesseract could not be run: {exc}", "ocr-unavailable") from exc
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        errors = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        why = errors[-1] if errors else f"exit code {done.returncode}"
        raise ConversionError(f"tesseract failed: {why}"[:500], "ocr-failed")
    text, confidence, words = parse_tsv(done.stdout.decode("utf-8", "replace"))
    return OcrPage(text, confidence, words, seconds)


def language_for(text: str, current: Sequence[str]) -> tuple[str, ...] | None:
    """The installed Tesseract pack for the language ``text`` is in, when it is identified with
    confidence and is not among ``current`` (the packs it was read with); else ``None``."""
    from trawl.langid import identify  # noqa: PLC0415  # loaded only when OCR runs

    result = identify(text[:5000])
    if result.lang == "und" or result.score < _LANG_SCORE:
        return None
    code = tesseract_code(result.lang)
    if code not in installed_languages() or code in current:  # read with that pack already
        return None
    return (code,)


def _languages(options: ConvertOptions) -> tuple[str, ...]:
    """The configured languages that are installed; ``eng`` (or any installed pack) if none is."""
    installed = installed_languages()
    wanted = tuple(code for code in options.ocr_languages if code in installed)
    if wanted:
        return wanted
    if "eng" in installed:
        return ("eng",)
    return (min(installed),) if installed else ("eng",)


@dataclass(slots=True)
class PdfOcr:
    """What OCR did to a PDF's pages (:func:`read_pdf_pages`), to add to its :class:`Converted`."""

    read: list[int] = field(default_factory=list)  # page indices OCRed, in order
    confidence: list[float | None] = field(default_factory=list)
    languages: tuple[str, ...] = ()
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    from_text_layer: bool = False  # some pages kept their own text layer

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def apply(self, out: Converted) -> None:
        """Record the OCR on the converted PDF: ``metadata["ocr"]``, the converter, the counts."""
        if self.read:
            out.metadata["ocr"] = _record(self.read, self.confidence, self.languages, self.seconds)
            previous = out.metadata.get("converter")
            layer = previous if isinstance(previous, str) and previous else "pypdfium2"
            out.metadata["converter"] = f"{layer}+tesseract" if self.from_text_layer else "tesseract"
        for key, n in self.counts.items():
            out.count(key, n)
        out.warnings.extend(self.warnings)


def _record(
    read: list[int], confidence: list[float | None], languages: Sequence[str], seconds: float
) -> dict[str, Any]:
    return {
        "pages": len(read),
        "page_numbers": [index + 1 for index in read],
        "confidence": [None if c is None else round(c, 1) for c in confidence],
        "lang": "+".join(languages),
        "seconds": round(seconds, 3),
    }


class _Reader:
    """Reads page images in one language choice, changing it after the first page when the
    text's language (or the hint's) asks for another pack."""

    def __init__(self, options: ConvertOptions, hint: str = "") -> None:
        self.options = options
        self.languages = _languages(options)
        self.decided = False
        if len(hint) >= _HINT_CHARS:
            better = language_for(hint, self.languages)
            if better:
                self.languages = better
            self.decided = True

    def read(self, image: bytes, dpi: int | None) -> OcrPage:
        page = read_image(image, self.languages, timeout=self.options.ocr_timeout, dpi=dpi)
        if self.decided or len(page.text) < _DECIDE_CHARS:  # a cover page: the next one decides
            return page
        self.decided = True
        better = language_for(page.text, self.languages)
        if better is None:
            return page
        try:
            again = read_image(image, better, timeout=self.options.ocr_timeout, dpi=dpi)
        except ConversionError:  # the first reading stands
            return page
        if (again.confidence or 0.0) >= (page.confidence or 0.0):
            self.languages = better
            return again._replace(seconds=page.seconds + again.seconds)
        return page._replace(seconds=page.seconds + again.seconds)


def _pgm(buffer: Any, width: int, height: int, stride: int) -> bytes:
    """A grey bitmap as a binary PGM (rows without their padding)."""
    data = bytes(buffer)
    rows = (
        data[: width * height]
        if stride == width
        else b"".join(data[row * stride : row * stride + width] for row in range(height))
    )
    return b"P5\n%d %d\n255\n" % (width, height) + rows


def read_pdf_pages(pdf: Any, pages: list[str], blank: Sequence[int], options: ConvertOptions) -> PdfOcr:
    """OCR a PDFium document's pages, replacing their text in ``pages`` (indices into it): with
    ``ocr = "auto"`` the ``blank`` ones (no text layer), with ``"always"`` all of them, at most
    ``ocr_max_pages``. A page whose OCR fails keeps its text (counted ``ocr/failed/<reason>``);
    Tesseract missing is counted ``convert/skipped/ocr-unavailable`` and changes nothing."""
    result = PdfOcr()
    wanted = list(range(len(pages))) if options.ocr == "always" else sorted(set(blank))
    if not wanted or options.ocr == "never":
        return result
    if not ocr_available():
        result.count("convert/skipped/ocr-unavailable")
        result.warnings.append("OCR needs tesseract, which is not installed (apt install tesseract-ocr)")
        return result
    if len(wanted) > options.ocr_max_pages:
        result.count("ocr/pages-capped")
        result.warnings.append(f"OCR read {options.ocr_max_pages} of {len(wanted)} pages")
        wanted = wanted[: options.ocr_max_pages]
    hint = "\n".join(text for text in pages if text)  # the text layer, before OCR replaces any
    reader = _Reader(options, hint)
    t0 = time.perf_counter()
    for index in wanted:
        try:
            image, dpi = _render(pdf, index)
            page = reader.read(image, dpi)
        except ConversionError as exc:
            result.count(f"ocr/failed/{exc.reason}")
            result.warnings.append(f"page {index + 1}: {exc}")
            if exc.reason == "ocr-unavailable":
                break
            continue
        pages[index] = page.text
        result.read.append(index)
        result.confidence.append(page.confidence)
        result.count("ocr/pages")
    result.languages = reader.languages
    result.seconds = time.perf_counter() - t0
    done = set(result.read)
    result.from_text_layer = any(text for index, text in enumerate(pages) if index not in done)
    return result


def _render(pdf: Any, index: int) -> tuple[bytes, int]:
    """Page ``index`` as a grey PGM at :data:`DPI` (less for a page over :data:`MAX_PIXELS`)."""
    import pypdfium2 as pdfium  # noqa: PLC0415  # the 'convert' extra

    try:
        page = pdf[index]
    except pdfium.PdfiumError as exc:
        raise ConversionError(f"the page could not be loaded: {exc}", "ocr-render") from exc
    try:
        width, height = page.get_size()  # points
        scale = DPI / 72
        pixels = width * scale * height * scale
        if pixels > MAX_PIXELS:
            scale *= math.sqrt(MAX_PIXELS / pixels)
        if width * scale < 1 or height * scale < 1:
            raise ConversionError(f"the page is {width:g} x {height:g} points: nothing to read", "ocr-render")
        bitmap = page.render(scale=scale, grayscale=True)
        try:
            return _pgm(bitmap.buffer, bitmap.width, bitmap.height, bitmap.stride), round(scale * 72)
        finally:
            bitmap.close()
    except pdfium.PdfiumError as exc:
        raise ConversionError(f"the page could not be rendered: {exc}", "ocr-render") from exc
    finally:
        page.close()


def _frames(data: bytes, limit: int) -> Iterator[tuple[bytes, int | None]]:
    """An image's frames (a TIFF's pages; the first frame of anything else) as grey PGM with
    their resolution, at most ``limit``; without Pillow, the bytes as they are."""
    try:
        from PIL import Image  # noqa: PLC0415  # the 'ocr' extra
    except ImportError:
        yield data, None
        return
    try:
        image = Image.open(io.BytesIO(data))
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise ConversionError(
                f"the image is {width} x {height} pixels, over the OCR limit of {MAX_PIXELS:,}",
                "image-too-large",
            )
        if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
            raise ConversionError(
                f"the image is {width} x {height} pixels: too small to hold text", "image-too-small"
            )
        count = getattr(image, "n_frames", 1) if image.format == "TIFF" else 1
        for number in range(min(count, limit)):
            image.seek(number)
            grey = _on_white(image, Image).convert("L")
            dpi = image.info.get("dpi")
            resolution = (
                round(float(dpi[0]))
                if isinstance(dpi, tuple) and dpi and 50 <= float(dpi[0]) <= 2400
                else None
            )
            out = io.BytesIO()
            grey.save(out, format="PPM")
            yield out.getvalue(), resolution
    except ConversionError:
        raise
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as exc:
        raise ConversionError(
            f"not a readable image: {type(exc).__name__}: {exc}"[:500], "image-unreadable"
        ) from exc


def _on_white(image: Any, pil: Any) -> Any:
    """An image with transparency laid on white: dark text on a transparent background (a
    screenshot, a logo) would turn black on black when the alpha is simply dropped."""
    if image.mode not in ("RGBA", "LA", "PA") and "transparency" not in image.info:
        return image
    rgba = image.convert("RGBA")
    white = pil.new("RGBA", rgba.size, (255, 255, 255, 255))
    white.alpha_composite(rgba)
    return white


def _frame_count(data: bytes) -> int:
    try:
        from PIL import Image  # noqa: PLC0415

        with Image.open(io.BytesIO(data)) as image:
            return int(getattr(image, "n_frames", 1)) if image.format == "TIFF" else 1
    except Exception:  # unreadable: _frames says why
        return 1


def convert_image(data: bytes, options: ConvertOptions) -> Converted:
    """An image's text by OCR (module docstring): one ``page`` segment per frame read."""
    if not ocr_available():
        raise ConversionError(
            "OCR needs tesseract, which is not installed (apt install tesseract-ocr)", "ocr-unavailable"
        )
    reader = _Reader(options)
    texts: list[str] = []
    confidence: list[float | None] = []
    t0 = time.perf_counter()
    for image, dpi in _frames(data, options.ocr_max_pages):
        page = reader.read(image, dpi)
        texts.append(page.text)
        confidence.append(page.confidence)
    read = list(range(len(texts)))
    out = Converted(text="\n".join(text for text in texts if text))
    out.segments = segments_of(texts, [(i, "page", i + 1, "") for i in read])
    out.metadata["ocr"] = _record(read, confidence, reader.languages, time.perf_counter() - t0)
    out.metadata["converter"] = "tesseract"
    total = _frame_count(data)
    if total > 1:
        out.metadata["pages"] = total
    if total > len(texts):
        out.count("ocr/pages-capped")
        out.warnings.append(f"OCR read {len(texts)} of {total} pages")
    out.count("ocr/pages", len(texts))
    return out
