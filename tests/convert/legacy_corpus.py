"""Legacy test files: ``.doc``/``.xls``/``.ppt`` twins of the corpus, and Outlook ``.msg`` messages.

* :func:`build_legacy` converts a corpus sample (:mod:`tests.convert.corpus`: DOCX, XLSX, PPTX)
  to its legacy twin with LibreOffice, once: the result is cached under the temporary directory,
  keyed by the modern file's digest. ``None`` when ``soffice`` is not installed.
* :func:`write_fixtures` makes the small committed files under ``tests/data/convert/legacy/``,
  which test the Python readers where LibreOffice is absent (the PowerPoint one with its 580 KB
  thumbnail zeroed and gzipped: LibreOffice always writes one).
* :func:`build_msg` writes an Outlook message (:mod:`tests.convert.cfb`) with a plain, HTML or
  compressed-RTF body (:func:`compress_rtf`), recipients, attachments and an attached message.
* :func:`msg_sample` and :func:`iwork_sample` are the corpus builders of ``ole`` (a message) and
  ``pages``, ``numbers``, ``key`` (iWork '09 packages): they need nothing but Python.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import random
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.convert.cfb import Tree, write_cfb
from tests.convert.corpus import _WORDS, AUTHOR, TITLE, Sample, build, paragraphs

__all__ = [
    "FIXTURES",
    "TWINS",
    "build_legacy",
    "build_msg",
    "compress_rtf",
    "fixture",
    "iwork_sample",
    "msg_sample",
    "soffice",
    "write_fixtures",
]

#: Each legacy format and the modern one LibreOffice makes it from.
TWINS = {"doc": "docx", "xls": "xlsx", "ppt": "pptx"}
#: The committed fixtures: made by :func:`write_fixtures` from these corpus samples (seed 1, size 4).
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "convert" / "legacy"
_FIXTURE_NAMES = {"doc": "report.doc", "xls": "tonnage.xls", "ppt": "review.ppt.gz"}


def soffice() -> str | None:
    return shutil.which("soffice")


def _convert(data: bytes, suffix: str, target: str, folder: Path) -> bytes:
    source = folder / f"input{suffix}"
    source.write_bytes(data)
    subprocess.run(
        [
            str(soffice()), "--headless", "--norestore",
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--convert-to", target, "--outdir", str(folder / "out"), str(source),
        ],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return (folder / "out" / f"input.{target}").read_bytes()


def build_legacy(fmt: str, seed: int = 1, size: int = 4) -> tuple[Sample, bytes] | None:
    """The modern corpus sample and its legacy twin's bytes (``doc``, ``xls``, ``ppt``)."""
    if soffice() is None:
        return None
    modern = build(TWINS[fmt], seed, size)
    cache = Path(tempfile.gettempdir()) / "trawl-legacy-corpus"
    cache.mkdir(exist_ok=True)
    path = cache / f"{hashlib.sha256(modern.data).hexdigest()[:24]}.{fmt}"
    if not path.exists():
        with tempfile.TemporaryDirectory() as tmp:
            data = _convert(modern.data, f".{TWINS[fmt]}", fmt, Path(tmp))
        partial = path.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(path)
    return modern, path.read_bytes()


def _zero_thumbnail(data: bytes) -> bytes:
    """``data`` (an OLE file) with the thumbnail in its SummaryInformation zeroed, sizes unchanged."""
    import olefile

    with tempfile.NamedTemporaryFile(suffix=".ole") as tmp:
        Path(tmp.name).write_bytes(data)
        ole = olefile.OleFileIO(tmp.name, write_mode=True)
        stream = bytearray(ole.openstream("\x05SummaryInformation").read())
        section = struct.unpack_from("<I", stream, 44)[0]
        count = struct.unpack_from("<I", stream, section + 4)[0]
        for i in range(count):
            pid, offset = struct.unpack_from("<II", stream, section + 8 + 8 * i)
            if pid == 17:  # PIDSI_THUMBNAIL: VT_CF → VT_EMPTY, its bytes zero
                at = section + offset
                length = struct.unpack_from("<I", stream, at + 4)[0]
                stream[at : at + 8 + length] = bytes(8 + length)
        ole.write_stream("\x05SummaryInformation", bytes(stream))
        ole.close()
        return Path(tmp.name).read_bytes()


def write_fixtures(folder: Path = FIXTURES) -> None:
    """(Re)make the committed fixtures (needs LibreOffice)."""
    folder.mkdir(parents=True, exist_ok=True)
    for fmt, name in _FIXTURE_NAMES.items():
        made = build_legacy(fmt, 1, 4)
        if made is None:
            raise RuntimeError("LibreOffice (soffice) is needed to make the fixtures")
        data = made[1]
        if name.endswith(".gz"):
            data = gzip.compress(_zero_thumbnail(data), mtime=0)
        (folder / name).write_bytes(data)


def fixture(fmt: str) -> tuple[Sample, bytes]:
    """A committed legacy fixture and the corpus sample it was made from."""
    data = (FIXTURES / _FIXTURE_NAMES[fmt]).read_bytes()
    if _FIXTURE_NAMES[fmt].endswith(".gz"):
        data = gzip.decompress(data)
    return build(TWINS[fmt], 1, 4), data


# --- Outlook messages -----------------------------------------------------------------------------

_PREBUF = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript "
    b"\\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
    b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)


def compress_rtf(rtf: bytes) -> bytes:
    """``rtf`` as an LZFu compressed-RTF property ([MS-OXRTFCP]): greedy matches in the 4 KiB window."""
    window = bytearray(4096)
    window[: len(_PREBUF)] = _PREBUF
    write = len(_PREBUF)
    out = bytearray()
    pos = 0
    done = False
    while not done:
        control = 0
        chunk = bytearray()
        for bit in range(8):
            if pos >= len(rtf):  # the end marker: a reference to the write position
                control |= 1 << bit
                chunk += struct.pack(">H", write << 4)
                done = True
                break
            best, best_len = 0, 0
            for start in range(4096):
                if start == write:
                    continue
                length = 0
                while (
                    length < 17
                    and pos + length < len(rtf)
                    and (start + length) & 0xFFF != write
                    and window[(start + length) & 0xFFF] == rtf[pos + length]
                ):
                    length += 1
                if length > best_len:
                    best, best_len = start, length
            if best_len >= 2:
                control |= 1 << bit
                chunk += struct.pack(">H", best << 4 | (best_len - 2))
                taken = rtf[pos : pos + best_len]
            else:
                chunk.append(rtf[pos])
                taken = rtf[pos : pos + 1]
            for byte in taken:
                window[write] = byte
                write = (write + 1) & 0xFFF
            pos += len(taken)
        out.append(control)
        out += chunk
    body = bytes(out)
    return struct.pack("<IIII", len(body) + 12, len(rtf), 0x75465A4C, 0) + body


def _unicode(prop: int, text: str) -> tuple[str, bytes]:
    return f"__substg1.0_{prop:04X}001F", text.encode("utf-16-le")


def _fixed(header: int, props: list[tuple[int, int, bytes]]) -> bytes:
    """A ``__properties_version1.0`` stream: ``header`` bytes, then (id, type, 8-byte value) entries."""
    out = bytearray(header)
    for prop, kind, value in props:
        out += struct.pack("<II", prop << 16 | kind, 6) + value.ljust(8, b"\x00")
    return bytes(out)


def _filetime(when: dt.datetime) -> bytes:
    ticks = (when - dt.datetime(1601, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1) * 10
    return struct.pack("<Q", ticks)


def build_msg(
    *,
    subject: str,
    body: str = "",
    html: bytes | None = None,
    rtf: bytes | None = None,
    sender: tuple[str, str] = ("Marta Lindqvist", "marta@harbour.example.org"),
    to: list[tuple[str, str]] | None = None,
    cc: list[tuple[str, str]] | None = None,
    when: dt.datetime | None = None,
    attachments: list[tuple[str, str, bytes]] | None = None,
    attached_message: tuple[str, str] | None = None,
) -> bytes:
    """An Outlook message (see the module docstring); ``attachments`` are (name, type, bytes),
    ``attached_message`` (subject, body) of a message attached to this one."""
    tree: Tree = {}
    tree.update([_unicode(0x0037, subject), _unicode(0x0C1A, sender[0]), _unicode(0x5D01, sender[1])])
    if body:
        tree.update([_unicode(0x1000, body)])
    if html is not None:
        tree["__substg1.0_10130102"] = html
    if rtf is not None:
        tree["__substg1.0_10090102"] = compress_rtf(rtf)
    recipients = [(n, a, 1) for n, a in to or []] + [(n, a, 2) for n, a in cc or []]
    for i, (name, address, kind) in enumerate(recipients):
        tree[f"__recip_version1.0_#{i:08X}"] = {
            "__properties_version1.0": _fixed(8, [(0x0C15, 0x0003, struct.pack("<I", kind))]),
            **dict([_unicode(0x3001, name), _unicode(0x39FE, address)]),
        }
    files = attachments or []
    for i, (name, kind, data) in enumerate(files):
        tree[f"__attach_version1.0_#{i:08X}"] = {
            "__properties_version1.0": _fixed(8, [(0x3705, 0x0003, struct.pack("<I", 1))]),
            "__substg1.0_37010102": data,
            **dict([_unicode(0x3707, name), _unicode(0x370E, kind)]),
        }
    if attached_message is not None:
        inner: Tree = {"__properties_version1.0": _fixed(24, [])}
        inner.update([_unicode(0x0037, attached_message[0]), _unicode(0x1000, attached_message[1])])
        tree[f"__attach_version1.0_#{len(files):08X}"] = {
            "__properties_version1.0": _fixed(8, [(0x3705, 0x0003, struct.pack("<I", 5))]),
            "__substg1.0_3701000D": inner,
            **dict([_unicode(0x3707, f"{attached_message[0]}.msg")]),
        }
    fixed = [(0x0E06, 0x0040, _filetime(when))] if when is not None else []
    header = struct.pack("<8xIIII8x", len(recipients), len(files), len(recipients), len(files) + 1)
    tree["__properties_version1.0"] = header + _fixed(0, fixed)
    tree["__nameid_version1.0"] = {}
    return write_cfb(tree)


# --- corpus samples (registered in tests.convert.corpus.BUILDERS) ----------------------------------


def msg_sample(seed: int, size: int) -> Sample:
    """An Outlook message of known text: the subject is its title, the paragraphs its body."""
    body = paragraphs(seed, size)
    data = build_msg(
        subject=TITLE,
        body="\r\n".join(body),
        to=[("Ann Berg", "ann@harbour.example.org")],
        when=dt.datetime(2024, 3, 5, 9, 30, tzinfo=dt.UTC),
        attachments=[("tides.txt", "text/plain", b"High water 06:12")],
    )
    return Sample("notice.msg", "ole", data, "\n".join(body), TITLE)


_IWORK_NS = " ".join(
    f'xmlns:{prefix}="http://developer.apple.com/namespaces/{name}"'
    for prefix, name in (("sl", "sl"), ("ls", "ls"), ("sf", "sf"), ("sfa", "sfa"), ("key", "keynote2"))
)


def _iwork_metadata(prefix: str) -> str:
    return (
        f'<{prefix}:metadata><{prefix}:title><sf:string sfa:string="{TITLE}"/></{prefix}:title>'
        f'<{prefix}:authors><sf:string sfa:string="{AUTHOR}"/></{prefix}:authors></{prefix}:metadata>'
    )


def _iwork_package(body_name: str, xml: str) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(body_name, gzip.compress(xml.encode("utf-8"), mtime=0))
        zf.writestr("QuickLook/Thumbnail.jpg", b"\xff\xd8\xff\xe0")
        zf.writestr("buildVersionHistory.plist", b"<plist/>")
    return buffer.getvalue()


def iwork_sample(kind: str) -> Callable[[int, int], Sample]:
    """A builder of iWork '09 packages (``pages``, ``numbers``, ``key``) of known text, written with
    the XML vocabulary of those files: paragraphs ``sf:p``, cells ``sf:ct``/``sf:n``, and style
    sheets and master slides whose sample text must stay out."""

    def make(seed: int, size: int) -> Sample:
        texts = paragraphs(seed, size)
        junk = "<sf:stylesheet><sf:p>Style sample text</sf:p></sf:stylesheet>"
        if kind == "pages":
            body = "".join(f"<sf:p>{p}</sf:p>" for p in texts)
            xml = (
                f"<sl:document {_IWORK_NS}>{_iwork_metadata('sl')}{junk}"
                f"<sf:text-body>{body}</sf:text-body></sl:document>"
            )
            return Sample(
                "report.pages", "pages", _iwork_package("index.xml.gz", xml), "\n".join(texts), TITLE, AUTHOR
            )
        if kind == "numbers":
            rng = random.Random(seed)
            cells = [[rng.choice(_WORDS), str(rng.randint(1, 9999))] for _ in range(size * 3)]
            model = "".join(f'<sf:ct sfa:s="{w}"/><sf:n sf:v="{n}"/>' for w, n in cells)
            xml = (
                f"<ls:document {_IWORK_NS}>{_iwork_metadata('ls')}{junk}"
                f"<sf:tabular-model>{model}</sf:tabular-model></ls:document>"
            )
            text = "\n".join(f"{w}\n{n}" for w, n in cells)
            return Sample(
                "tonnage.numbers", "numbers", _iwork_package("index.xml.gz", xml), text, TITLE, AUTHOR
            )
        masters = (
            "<key:master-slides><key:master-slide><sf:p>Double-click to edit</sf:p>"
            "</key:master-slide></key:master-slides>"
        )
        slides = "".join(f"<key:slide><sf:p>{p}</sf:p></key:slide>" for p in texts)
        xml = (
            f"<key:presentation {_IWORK_NS}>{_iwork_metadata('key')}{masters}"
            f"<key:slide-list>{slides}</key:slide-list></key:presentation>"
        )
        return Sample(
            "review.key", "key", _iwork_package("index.apxl.gz", xml), "\n".join(texts), TITLE, AUTHOR
        )

    return make
