"""Benchmark: charset detection accuracy and speed, trawl vs chardet, charset-normalizer, cchardet, chardetng.

    python bench/encoding_detect.py [--data ../shared/data/encoding/chardet-tests] [--failures]

Corpus: chardet's test files, one folder per encoding (``KOI8-R``, ``windows-1251-russian``: a
``-language`` suffix is dropped; folders whose encoding Python has no codec for, EUC-TW, are
left out and counted). Each file is judged whole, and as snippets of 20, 50 and 200 bytes.

A snippet is cut deterministically without splitting a character: the file is decoded with its
true codec, and the snippet is the longest run of whole characters, starting at the first
non-ASCII character at or after the middle of the text (so that it holds evidence; the middle
character if the file is ASCII), whose encoding in the true codec fits in N bytes. Stateful and
BOM-marked encodings are cut in their plain form (UTF-16 → UTF-16LE/BE by the file's BOM,
UTF-8-SIG → UTF-8; an ISO-2022 snippet opens with its own escape sequence).

Judging is lenient, as in the issue: a guess is right when it decodes the bytes to the same text
as the true codec, or is a superset codec of it (gb2312 → gbk/gb18030, big5 → big5hkscs/cp950,
shift_jis → cp932, euc-kr → cp949, iso-8859-1 → windows-1252, tis-620 → cp874), since those
read the file as the standard's author meant. Throughput is the whole-file corpus through each
detector, interleaved, best of ``--repeat`` rounds, on the wall clock ("MB/s (files)") and in the
process's CPU time ("MB/s CPU": what a loaded host does not take away).

``--set udhr-legacy`` judges a second corpus instead, built here: the second half of the UDHR
translation of each language (which trawl's character models do not train on) written in each
legacy encoding real files of that language use (:data:`LEGACY`: every ISO-8859 part, the
windows and DOS code pages, Mac code pages, KOI8, the CJK families, ISO-2022-JP/KR, UTF-16/32
without a BOM); characters the encoding lacks are left out.

``--set tatoeba-legacy`` judges a third corpus, of real conversational text with the punctuation
its writers typed (curly apostrophes, guillemets, dashes where they used them): Tatoeba sentences
(``../shared/data/langid/tatoeba``, licensed for evaluation only: no model trains on them) of
each language in each of its legacy encodings (:data:`TATOEBA`, the same pairs as the UDHR set
where Tatoeba has the language). Each pair gives :data:`TATOEBA_DOCS` documents of
:data:`TATOEBA_SENTENCES` sentences, one a line, from those the encoding can write whole (a
sentence with a character the encoding lacks is left out, as its writer would have typed it
otherwise); DOS documents end their lines with CR LF.
"""

from __future__ import annotations

import argparse
import codecs
import hashlib
import itertools
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.decode.detect import (
    CChardetDetector,
    ChardetDetector,
    ChardetngDetector,
    CharsetNormalizerDetector,
    EncodingDetector,
    ModelDetector,
)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "encoding" / "chardet-tests"
DEFAULT_UDHR = Path(__file__).resolve().parents[2] / "shared" / "data" / "langid" / "udhr2"
DEFAULT_TATOEBA = DEFAULT_UDHR.parent / "tatoeba"

#: Legacy encodings and the UDHR translations (file stems) written in them.
LEGACY: dict[str, list[str]] = {
    "cp1252": [
        "eng",
        "fra",
        "deu",
        "spa",
        "ita",
        "nld",
        "dan",
        "swe",
        "nob",
        "fin",
        "por_PT",
        "cat",
        "eng+typo",
        "fra+typo",
        "deu+typo",
        "nld+typo",
    ],
    "mac_roman": ["eng+typo", "fra+typo"],
    "iso8859_15": ["fra", "deu", "fin", "est", "spa"],
    "mac_roman_": ["fra", "deu", "spa", "ita"],
    "cp437": ["eng", "deu", "spa"],
    "cp850": ["fra", "deu", "spa", "por_PT", "isl"],
    "mac_iceland": ["isl"],
    "iso8859_10": ["isl", "sme", "fao"],
    "iso8859_14": ["cym", "gle", "gla"],
    "cp1250": ["ces", "pol", "hun", "slk", "slv", "hrv"],
    "iso8859_2": ["ces", "pol", "hun", "slk", "slv", "hrv"],
    "cp852": ["ces", "pol", "hun", "slk", "slv"],
    "mac_latin2": ["ces", "pol", "hun", "slk"],
    "iso8859_16": ["ron", "pol", "hun"],
    "iso8859_3": ["mlt", "epo"],
    "iso8859_4": ["lav", "lit", "est"],
    "iso8859_13": ["lav", "lit", "est"],
    "cp1257": ["lav", "lit", "est"],
    "cp775": ["lav", "lit"],
    "cp1254": ["tur"],
    "iso8859_9": ["tur"],
    "cp857": ["tur"],
    "mac_turkish": ["tur"],
    "cp1251": ["rus", "ukr", "bul", "bel", "mkd", "srp_cyrl"],
    "koi8_r": ["rus", "bul"],
    "koi8_u": ["ukr"],
    "iso8859_5": ["rus", "bul", "mkd"],
    "cp866": ["rus", "bel"],
    "mac_cyrillic": ["rus", "bul"],
    "cp855": ["rus", "srp_cyrl"],
    "cp1253": ["ell_monotonic"],
    "iso8859_7": ["ell_monotonic"],
    "cp737": ["ell_monotonic"],
    "mac_greek": ["ell_monotonic"],
    "cp1255": ["heb"],
    "iso8859_8": ["heb"],
    "cp862": ["heb"],
    "cp1256": ["arb", "pes_1", "urd"],
    "iso8859_6": ["arb"],
    "cp874": ["tha"],
    "cp1258": ["vie"],
    "shift_jis": ["jpn"],
    "euc_jp": ["jpn"],
    "iso2022_jp": ["jpn"],
    "gb2312": ["cmn_hans"],
    "gb18030": ["cmn_hans"],
    "big5": ["cmn_hant"],
    "euc_kr": ["kor"],
    "iso2022_kr": ["kor"],
    "utf_16_le": ["eng", "rus", "cmn_hans"],
    "utf_16_be": ["deu", "jpn"],
    "utf_32_le": ["fra", "kor"],
}


_DOS_CODECS = frozenset({"cp437", "cp850", "cp852", "cp775", "cp857", "cp737", "cp862", "cp866", "cp855"})


def _typography(text: str) -> str:
    """Straight quotes made curly, apostrophes typographic, spaced hyphens en dashes, and an
    ellipsis and a euro sign now and then: how text of the web differs from the UDHR's."""
    text = re.sub(r"(\w)'(\w)", "\\1\u2019\\2", text)
    text = re.sub(r'"([^"]*)"', "\u201c\\1\u201d", text)
    text = text.replace(" - ", " \u2013 ").replace("...", "\u2026")
    words = text.split(" ")
    for i in (
        i for i in range(7, len(words), 40) if words[i].isalpha()
    ):  # a quoted word, a possessive, a price
        words[i] = (
            f"\u201c{words[i]}\u201d"
            if i % 3 == 0
            else (f"{words[i]}\u2019s" if i % 3 == 1 else f"\u20ac{i}")
        )
    return " ".join(words)


def _windows_1258(text: str) -> str:
    """Vietnamese as windows-1258 writes it: the letters it has precomposed (ă, ê, ơ, ư...), the
    tone marks combining after them (its five combining marks), as Windows converted NFC text."""
    out = []
    for ch in text:
        try:
            ch.encode("cp1258")
        except UnicodeEncodeError:
            base, *marks = list(unicodedata.normalize("NFD", ch))
            while marks:
                joined = unicodedata.normalize("NFC", base + marks[0])
                if len(joined) != 1 or joined.encode("cp1258", "replace") == b"?":
                    break
                base = joined
                marks.pop(0)
            out.append(base + "".join(marks))
        else:
            out.append(ch)
    return "".join(out)


def load_legacy(root: Path = DEFAULT_UDHR) -> list[Case]:
    """The ``udhr-legacy`` corpus: each :data:`LEGACY` pair as one case (second halves)."""
    from trawl.langid.corpus import split_half  # noqa: PLC0415 -- development-time corpus reader

    cases = []
    for key, stems in LEGACY.items():
        codec = key.rstrip("_")
        name = codecs.lookup(codec).name
        for entry in stems:
            stem, _, variant = entry.partition("+")
            path = root / f"{stem}.txt"
            if not path.is_file():
                continue
            text = split_half(unicodedata.normalize("NFC", path.read_text("utf-8")))[1]
            if variant == "typo":  # the web's typography: curly quotes and apostrophes, dashes
                text = _typography(text)
                stem = entry
            if codec in _DOS_CODECS:  # DOS wrote its line ends as CR LF
                text = text.replace("\n", "\r\n")
            if codec == "cp1258":
                text = _windows_1258(text)
            data = text.encode(codec, "ignore")
            if codec.startswith("iso2022"):  # whole lines, so that each opens its escapes anew
                data = "\n".join(line for line in text.splitlines()).encode(codec, "ignore")
            cases.append(Case(f"{name}-{stem}", name, data))
    return cases


#: Tatoeba's labels for the UDHR file stems of :data:`LEGACY` (Japanese is three labels there).
_TATOEBA_LABELS: dict[str, tuple[str, ...]] = {
    "por_PT": ("por",),
    "ell_monotonic": ("ell",),
    "pes_1": ("pes",),
    "arb": ("ara",),
    "srp_cyrl": ("srp_Cyrl",),
    "cmn_hans": ("cmn_Hans",),
    "cmn_hant": ("cmn_Hant",),
    "kor": ("kor_Hang",),
    "jpn": ("jpn_Hani", "jpn_Hira", "jpn_Kana"),
}
#: The ``tatoeba-legacy`` pairs: :data:`LEGACY`'s, without its synthetic typography (Tatoeba's
#: text has its writers' own) and without the languages Tatoeba lacks (Sami, Slovak).
TATOEBA: dict[str, list[str]] = {
    codec: stems
    for codec, stems in (
        (codec, [s for s in stems if "+" not in s and s not in ("sme", "slk")])
        for codec, stems in LEGACY.items()
    )
    if stems
}
TATOEBA_DOCS = 3
TATOEBA_SENTENCES = 20


def load_tatoeba(root: Path = DEFAULT_TATOEBA) -> list[Case]:
    """The ``tatoeba-legacy`` corpus: :data:`TATOEBA_DOCS` documents for each :data:`TATOEBA` pair."""
    cases = []
    for key, stems in TATOEBA.items():
        codec = key.rstrip("_")
        name = codecs.lookup(codec).name
        dos = codec in _DOS_CODECS
        for stem in stems:
            paths = [root / f"{label}.txt" for label in _TATOEBA_LABELS.get(stem, (stem,))]
            if not all(p.is_file() for p in paths):
                continue
            lines = sorted(
                (line.strip() for p in paths for line in p.read_text("utf-8").splitlines() if line.strip()),
                key=lambda line: hashlib.sha1(f"{key}|{line}".encode()).digest(),  # an order, not a secret
            )
            if codec == "cp1258":
                lines = [_windows_1258(line) for line in lines]
            usable = []
            for line in lines:
                try:
                    line.encode(codec)
                except UnicodeEncodeError:
                    continue
                usable.append(line)
            for k in range(TATOEBA_DOCS):
                block = usable[k * TATOEBA_SENTENCES : (k + 1) * TATOEBA_SENTENCES]
                if len(block) < TATOEBA_SENTENCES:
                    break
                text = ("\r\n" if dos else "\n").join(block) + ("\r\n" if dos else "\n")
                cases.append(Case(f"{name}-{stem}-{k}", name, text.encode(codec)))
    return cases


SNIPPET_SIZES = (20, 50, 200)

_SUPERSETS = {
    "gb2312": {"gbk", "gb18030"},
    "gbk": {"gb18030"},
    "big5": {"big5hkscs", "cp950"},
    "shift_jis": {"cp932"},
    "euc_kr": {"cp949"},
    "latin_1": {"cp1252"},
    "tis_620": {"cp874"},
    "iso8859_9": {"cp1254"},
}


@dataclass(frozen=True, slots=True)
class Case:
    """Bytes with the Python codec they are in; ``label`` is the corpus folder."""

    label: str
    codec: str
    data: bytes


def true_codec(folder: str) -> str | None:
    """The Python codec of a corpus folder (``windows-1250-czech`` → ``cp1250``), or None."""
    parts = folder.split("-")
    for k in range(len(parts), 0, -1):
        try:
            return codecs.lookup("-".join(parts[:k])).name
        except LookupError:
            continue
    return None


def load_corpus(root: Path) -> tuple[list[Case], list[str]]:
    """Whole-file cases, and the folders left out for want of a codec."""
    cases, skipped = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        codec = true_codec(folder.name)
        if codec is None:
            skipped.append(folder.name)
            continue
        for path in sorted(folder.iterdir()):
            cases.append(Case(folder.name, codec, path.read_bytes()))
    return cases, skipped


def _plain_codec(case: Case) -> str:
    if case.codec in ("utf-16", "utf-32"):
        big = case.data.startswith((codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE))
        return f"{case.codec}-{'be' if big else 'le'}"
    return "utf-8" if case.codec == "utf-8-sig" else case.codec


def snippet(case: Case, size: int) -> Case:
    """The ``size``-byte snippet of ``case`` described in the module docstring."""
    codec = _plain_codec(case)
    text = case.data.decode(case.codec, "replace")
    mid = len(text) // 2
    start = next((i for i in range(mid, len(text)) if 127 < ord(text[i]) != 0xFFFD), mid)
    stateful = codec.startswith("iso2022")
    out = b""
    end = start
    while end < len(text):
        try:
            cand = text[start : end + 1].encode(codec) if stateful else out + text[end].encode(codec)
        except UnicodeEncodeError:
            break
        if len(cand) > size:
            break
        out = cand
        end += 1
    return Case(case.label, codec, out)


def is_right(case: Case, guess: str | None) -> bool:
    """Lenient judging: same text as the true codec, or a superset codec of it."""
    if guess is None:
        return False
    try:
        name = codecs.lookup(guess).name
    except LookupError:
        return False
    if name == case.codec or name in _SUPERSETS.get(case.codec, ()):
        return True
    try:
        return case.data.decode(name, "replace") == case.data.decode(case.codec, "replace")
    except LookupError:
        return False


def evaluate(
    detector: EncodingDetector, cases: list[Case], calibration: list[tuple[float, bool]] | None = None
) -> tuple[float, list[tuple[Case, str | None]]]:
    """Accuracy of ``detector`` on ``cases`` and the failures (case, guess).

    Each (confidence, right) pair is appended to ``calibration`` when one is given.
    """
    wrong = []
    for case in cases:
        found = detector.detect(case.data)
        guess = found.encoding if found else None
        right = is_right(case, guess)
        if not right:
            wrong.append((case, guess))
        if calibration is not None:
            calibration.append((found.confidence if found else 0.0, right))
    return 1.0 - len(wrong) / len(cases), wrong


CALIBRATION_BINS = (0.0, 0.5, 0.8, 0.95, 0.99, 1.0000001)


def calibration_error(pairs: list[tuple[float, bool]]) -> float:
    """Expected calibration error over ten equal-width confidence bins (0 = perfectly calibrated)."""
    bins: dict[int, list[tuple[float, bool]]] = {}
    for conf, right in pairs:
        bins.setdefault(min(int(conf * 10), 9), []).append((conf, right))
    return sum(
        abs(sum(c for c, _ in b) / len(b) - sum(r for _, r in b) / len(b)) * len(b) for b in bins.values()
    ) / max(1, len(pairs))


def reliability(pairs: list[tuple[float, bool]]) -> list[str]:
    """A reliability table: for each confidence band, how many guesses and how many were right."""
    lines = ["| confidence | guesses | mean confidence | right |", "|---|---:|---:|---:|"]
    for lo, hi in itertools.pairwise(CALIBRATION_BINS):
        band = [(c, r) for c, r in pairs if lo <= c < hi]
        if band:
            mean = sum(c for c, _ in band) / len(band)
            right = sum(r for _, r in band) / len(band)
            lines.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {len(band)} | {mean:.3f} | {right * 100:.1f} % |")
    return lines


def detectors(names: list[str] | None = None) -> Iterator[EncodingDetector]:
    """trawl's detector and each installed peer."""
    makers: list[Callable[[], EncodingDetector]] = [
        ModelDetector,
        ChardetDetector,
        CharsetNormalizerDetector,
        CChardetDetector,
        ChardetngDetector,
    ]
    for make in makers:
        try:
            det = make()
        except ImportError as exc:
            print(f"skipped: {exc} (pip install 'trawl[bench]')", file=sys.stderr)
            continue
        if names is None or det.name in names:
            yield det


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=2, help="rounds of the throughput run")
    ap.add_argument("--failures", action="store_true", help="list trawl's wrong guesses")
    ap.add_argument("--only", nargs="*", help="detector names to run")
    ap.add_argument("--set", choices=("chardet", "udhr-legacy", "tatoeba-legacy"), default="chardet")
    args = ap.parse_args()

    skipped: list[str] = []
    if args.set == "udhr-legacy":
        cases = load_legacy()
    elif args.set == "tatoeba-legacy":
        cases = load_tatoeba()
    else:
        cases, skipped = load_corpus(args.data)
    sets = {"files": cases} | {f"{n} B": [snippet(c, n) for c in cases] for n in SNIPPET_SIZES}
    sets = {k: [c for c in v if c.data] for k, v in sets.items()}
    total_bytes = sum(len(c.data) for c in cases)
    print(
        f"{len(cases)} files, {total_bytes / 1e6:.1f} MB, {len(set(c.label for c in cases))} folders; "
        f"left out (no Python codec): {', '.join(skipped) or 'none'}"
    )

    dets = list(detectors(args.only))
    best = dict.fromkeys((d.name for d in dets), float("inf"))
    best_cpu = dict(best)
    for rnd in range(args.repeat):
        for i in range(len(dets)):
            det = dets[(i + rnd) % len(dets)]
            t0, c0 = time.perf_counter(), time.process_time()
            for c in cases:
                det.detect(c.data)
            best[det.name] = min(best[det.name], time.perf_counter() - t0)
            best_cpu[det.name] = min(best_cpu[det.name], time.process_time() - c0)

    header = "| detector | " + " | ".join(sets) + " | MB/s (files) | MB/s CPU | calibration error |"
    lines = [header, "|---" + "|---:" * (len(sets) + 3) + "|"]
    trawl_pairs: list[tuple[float, bool]] = []
    for det in dets:
        row = [det.name]
        pairs: list[tuple[float, bool]] = []
        for name, group in sets.items():
            acc, wrong = evaluate(det, group, pairs)
            row.append(f"{acc * 100:.1f} %")
            if args.failures and det.name == "trawl":
                counts = Counter(f"{c.label}→{g}" for c, g in wrong)
                print(f"trawl wrong on {name}: {dict(counts.most_common())}", file=sys.stderr)
        row.append(f"{total_bytes / best[det.name] / 1e6:.2f}")
        row.append(f"{total_bytes / max(best_cpu[det.name], 1e-9) / 1e6:.2f}")
        row.append(f"{calibration_error(pairs):.3f}")
        lines.append("| " + " | ".join(row) + " |")
        if det.name == "trawl":
            trawl_pairs = pairs
    print(f"cases per column: {', '.join(f'{k} {len(v)}' for k, v in sets.items())}")
    print("\n".join(lines))
    if trawl_pairs:
        print("\ntrawl's confidence against its accuracy (all columns pooled):")
        print("\n".join(reliability(trawl_pairs)))


if __name__ == "__main__":
    main()
