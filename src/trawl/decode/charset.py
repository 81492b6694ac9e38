"""Bytes to characters: which encoding a page is in, the evidence for it, and the decoded text.

The evidence is taken in the order browsers take it (WHATWG HTML "determining the character
encoding"), first match wins:

1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) — ``bom``;
2. the ``charset`` parameter of the HTTP ``Content-Type`` — ``http``;
3. ``<meta charset>`` or ``<meta http-equiv=content-type content="…charset=…">`` found by the
   standard's *prescan* of the first 1024 bytes — ``meta``;
4. an XML declaration's ``encoding`` (or the UTF-16 pattern of ``<?x`` without a BOM) — ``xml``;
5. UTF-16 without a BOM, by the pattern of NUL bytes that ASCII characters leave (and the
   surrogate bytes of astral ones: the detector's own test, :func:`trawl.decode.detect.nul_pattern`)
   — ``nul-pattern``;
6. UTF-8, when the bytes are valid UTF-8 (a character cut by truncation at the very end is
   forgiven, counted as one error, when earlier multi-byte characters show the page is UTF-8)
   — ``utf8-valid``;
6b. UTF-16 CJK text without a BOM (and so without NULs), by the share of Han, kana and Hangul it
   reads as in one byte order, when the bytes are not valid in a legacy CJK encoding —
   ``utf16-shape``;
7. the statistical detector (:mod:`trawl.decode.detect`) on a bounded sample — ``detector``;
8. windows-1252 — ``default`` (configurable).

Outside HTML (``html=False``), UTF-32 byte-order marks count too (HTML forbids UTF-32).

A declaration (steps 2-4) that the bytes contradict is *overruled*, and the chain goes on from
step 5: a page declared UTF-8 whose invalid sequences are more than a stray byte or two (more
than one per 50 valid multi-byte characters) is not UTF-8 (``declared-utf8-invalid``); a page
declared in a single-byte encoding whose bytes are valid multi-byte UTF-8 is UTF-8
(``declared-single-byte-is-utf8``); a page declared in any ASCII-compatible encoding whose bytes
show the UTF-16 NUL pattern is UTF-16 (``declared-ascii-is-utf16``); any other declaration whose
decoding loses many sequences goes to the detector, which must do better to win
(``declared-lossy``). The declaration is kept in :attr:`Decoded.declared` either way.

Labels are mapped to encodings with the WHATWG Encoding Standard's label table, shipped here as
code, so ``latin1``, ``ascii`` and ``iso-8859-1`` all mean windows-1252 as they do on the web,
``gb2312`` means GBK (decoded as gb18030), ``shift_jis`` means windows-31j and so on. A label that
is not in the table falls through to the next evidence. The "replacement" labels
(``iso-2022-kr``, ``hz-gb-2312``...) fall through too: browsers map them to a decoder that emits
one U+FFFD for a whole page, which protects a browser from script injection but leaves a search
engine with nothing to index.

Decoding always yields text. ``errors`` counts the U+FFFD that decoding *inserted* (undecodable
byte sequences), not those present in the input, using a counting error handler that costs
nothing on clean input. Single-byte windows encodings decode all 256 bytes, as browsers do: the
bytes Python's codecs leave undefined in 0x80-0x9F become the C1 controls U+0080-U+009F.

Each document is decoded once: :func:`decode_document` leaves the entity body in ``doc.body``
and the characters in ``doc.markup`` (transient fields of :class:`~trawl.document.Document`,
never stored), and a later stage that needs them — the converters, the main-content extractor —
gets them from there, without decoding or counting anything a second time. ``doc.text`` is not
the carrier because it holds the final text: a document whose conversion fails or is skipped
must not end up with markup in its text.

:func:`decode_document` then checks the text for mojibake (:mod:`trawl.decode.mojibake`),
repairs it when the check says the repair is safe, and NFC-normalises it.
"""

from __future__ import annotations

import codecs
import re
import threading
import unicodedata
from dataclasses import dataclass
from typing import ClassVar, Literal

from trawl.decode.detect import EncodingDetector, default_detector, nul_pattern, utf16_shape
from trawl.decode.http import DEFAULT_MAX_BYTES, entity_body, file_coding
from trawl.decode.mojibake import check_mojibake
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import Step
from trawl.sniff.magic import effective_type, is_textual

__all__ = [
    "CharsetDecoder",
    "Decoded",
    "body_of",
    "codec_name",
    "decode_document",
    "decode_html",
    "decode_with",
    "http_charset",
    "lookup_label",
    "prescan_meta",
    "xml_declared_encoding",
]

# The WHATWG Encoding Standard's label table (https://encoding.spec.whatwg.org/#names-and-labels),
# encoding name → its labels. Names are kept lower-cased, as trawl reports them.
_LABELS: dict[str, str] = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "ibm866": "866 cp866 csibm866 ibm866",
    "iso-8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    "iso-8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    "iso-8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    "iso-8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 "
    "iso_8859-5:1988",
    "iso-8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 "
    "iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    "iso-8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 "
    "iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso-8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 "
    "iso88598 iso_8859-8 iso_8859-8:1988 visual",
    "iso-8859-8-i": "csiso88598i iso-8859-8-i logical",
    "iso-8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso-8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso-8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso-8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso-8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "macintosh": "csmacintosh mac macintosh x-mac-roman",
    "windows-874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "windows-1250": "cp1250 windows-1250 x-cp1250",
    "windows-1251": "cp1251 windows-1251 x-cp1251",
    "windows-1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
    "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "windows-1253": "cp1253 windows-1253 x-cp1253",
    "windows-1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
    "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    "windows-1255": "cp1255 windows-1255 x-cp1255",
    "windows-1256": "cp1256 windows-1256 x-cp1256",
    "windows-1257": "cp1257 windows-1257 x-cp1257",
    "windows-1258": "cp1258 windows-1258 x-cp1258",
    "x-mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gbk": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
    "gb18030": "gb18030",
    "big5": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc-jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso-2022-jp": "csiso2022jp iso-2022-jp",
    "shift_jis": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "euc-kr": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 "
    "ksc_5601 windows-949",
    "utf-16be": "unicodefffe utf-16be",
    "utf-16le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    "x-user-defined": "x-user-defined",
}

_LABEL_TO_NAME: dict[str, str] = {label: name for name, labels in _LABELS.items() for label in labels.split()}

_COUNT = "trawl.count"  # U+FFFD for each undecodable sequence, counted
_C1 = "trawl.c1"  # as _COUNT, but an undefined byte in 0x80-0x9F is the C1 control of that value

# Encoding name → (Python codec, error handler). Where the web's encoding is a superset of the
# registered one, the superset's codec is used, as the Encoding Standard specifies (GBK is decoded
# by the gb18030 decoder, EUC-KR is windows-949, Shift_JIS is windows-31j, Big5 includes HKSCS).
_CODECS: dict[str, tuple[str, str]] = {
    "utf-8": ("utf-8", _COUNT),
    "ibm866": ("cp866", _COUNT),
    "iso-8859-8-i": ("iso8859_8", _COUNT),
    "koi8-r": ("koi8_r", _COUNT),
    "koi8-u": ("koi8_u", _COUNT),
    "macintosh": ("mac_roman", _COUNT),
    "windows-874": ("cp874", _C1),
    "x-mac-cyrillic": ("mac_cyrillic", _COUNT),
    "gbk": ("gb18030", _COUNT),
    "gb18030": ("gb18030", _COUNT),
    "big5": ("big5hkscs", _COUNT),
    "euc-jp": ("euc_jp", _COUNT),
    "iso-2022-jp": ("iso2022_jp_ext", _COUNT),
    "shift_jis": ("cp932", _COUNT),
    "euc-kr": ("cp949", _COUNT),
    "utf-16be": ("utf-16-be", _COUNT),
    "utf-16le": ("utf-16-le", _COUNT),
    "utf-32be": ("utf-32-be", _COUNT),  # not a web encoding: only by BOM, outside HTML
    "utf-32le": ("utf-32-le", _COUNT),
    "x-user-defined": ("latin-1", _COUNT),  # then mapped to U+F780.. by _X_USER_DEFINED
    **{f"iso-8859-{n}": (f"iso8859_{n}", _COUNT) for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
    **{f"windows-125{n}": (f"cp125{n}", _C1) for n in range(9)},
}

# x-user-defined: bytes 0x80-0xFF are U+F780-U+F7FF (private use), so no byte is ever lost.
_X_USER_DEFINED = {b: 0xF780 + b - 0x80 for b in range(0x80, 0x100)}

_errors = threading.local()


def _count_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _errors.n = getattr(_errors, "n", 0) + 1
    return "\ufffd", exc.end


def _c1_or_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    out = []
    for byte in exc.object[exc.start : exc.end]:
        if 0x80 <= byte <= 0x9F:
            out.append(chr(byte))
        else:
            out.append("\ufffd")
            _errors.n = getattr(_errors, "n", 0) + 1
    return "".join(out), exc.end


codecs.register_error(_COUNT, _count_replace)
codecs.register_error(_C1, _c1_or_replace)


@dataclass(slots=True, frozen=True)
class Decoded:
    """Decoded characters with the encoding used, the evidence for it and the bytes lost."""

    text: str
    encoding: str  # lower-cased WHATWG name (utf-8, windows-1252, shift_jis...) or a Python codec
    source: str  # bom | http | meta | xml | nul-pattern | utf8-valid | utf16-shape | detector | default
    errors: int  # U+FFFD inserted for undecodable byte sequences
    confidence: float | None = None  # 0..1: how sure the chain is of ``encoding``
    declared: str | None = None  # the encoding a declaration named, when there was one
    declared_source: str | None = None  # http | meta | xml
    overruled: str | None = None  # why the declaration lost (see the module docstring)


def lookup_label(label: str | bytes) -> str | None:
    """The encoding a WHATWG label names (``" Latin1 "`` → ``"windows-1252"``), or ``None``."""
    if isinstance(label, bytes):
        label = label.decode("latin-1")
    return _LABEL_TO_NAME.get(label.strip("\t\n\x0c\r ").lower())


def _codec(encoding: str) -> tuple[str, str]:
    found = _CODECS.get(encoding)
    if found is not None:
        return found
    return codecs.lookup(encoding).name, _COUNT  # a Python codec that a detector named


def codec_name(encoding: str) -> str:
    """The Python codec name for an encoding trawl reports (``utf-16le`` → ``utf-16-le``).

    The WHATWG name is kept where Python knows it (``windows-1252``, ``shift_jis``), so that the
    name reads as the web writes it; otherwise the codec trawl decodes with (``x-mac-cyrillic`` →
    ``mac-cyrillic``).
    """
    if encoding in ("utf-16le", "utf-16be", "utf-32le", "utf-32be"):
        return encoding[:6] + "-" + encoding[6:]
    try:
        codecs.lookup(encoding)
    except LookupError:
        return codecs.lookup(_codec(encoding)[0]).name
    return encoding


def decode_with(data: bytes | memoryview, encoding: str) -> tuple[str, int]:
    """Decode with a known encoding name; returns the text and the number of inserted U+FFFD.

    ``encoding`` is a WHATWG name or, failing that, any Python codec name (``LookupError`` if
    neither).
    """
    codec, handler = _codec(encoding)
    _errors.n = 0
    text = str(data, codec, handler)
    if encoding == "x-user-defined":
        text = text.translate(_X_USER_DEFINED)
    return text, _errors.n


_HTTP_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^"';,\s]+)""", re.IGNORECASE)


def http_charset(content_type: str | None) -> str | None:
    """The encoding named by a ``Content-Type`` header's charset parameter, if it is a known label."""
    if not content_type:
        return None
    m = _HTTP_CHARSET.search(content_type)
    return lookup_label(m.group(1)) if m else None


# -- the WHATWG prescan ----------------------------------------------------------------------------

_WS = frozenset(b"\t\n\x0c\r ")
_WS_SLASH = _WS | {0x2F}
_WS_GT = _WS | {0x3E}
_NAME_STOP = _WS | {0x3D, 0x2F, 0x3E}
_LETTERS = frozenset(b"abcdefghijklmnopqrstuvwxyz")


class _EndOfInput(Exception):
    """The prescan ran out of bytes in the middle of a construct: the prescan fails."""


def _get_attribute(s: bytes, pos: int) -> tuple[tuple[bytes, bytes] | None, int]:
    """The standard's "get an attribute" on lower-cased bytes: ((name, value) or None, position)."""
    n = len(s)
    while pos < n and s[pos] in _WS_SLASH:
        pos += 1
    if pos >= n:
        raise _EndOfInput
    if s[pos] == 0x3E:
        return None, pos
    start = pos
    pos += 1  # the first byte starts the name whatever it is, even "="
    while pos < n and s[pos] not in _NAME_STOP:
        pos += 1
    if pos >= n:
        raise _EndOfInput
    name = s[start:pos]
    c = s[pos]
    if c in (0x2F, 0x3E):
        return (name, b""), pos
    if c in _WS:
        while pos < n and s[pos] in _WS:
            pos += 1
        if pos >= n:
            raise _EndOfInput
        if s[pos] != 0x3D:
            return (name, b""), pos
    pos += 1  # past "="
    while pos < n and s[pos] in _WS:
        pos += 1
    if pos >= n:
        raise _EndOfInput
    c = s[pos]
    if c in (0x22, 0x27):
        end = s.find(b'"' if c == 0x22 else b"'", pos + 1)
        if end < 0:
            raise _EndOfInput
        return (name, s[pos + 1 : end]), end + 1
    if c == 0x3E:
        return (name, b""), pos
    start = pos
    while pos < n and s[pos] not in _WS_GT:
        pos += 1
    if pos >= n:
        raise _EndOfInput
    return (name, s[start:pos]), pos


def _charset_from_content(value: bytes) -> str | None:
    """The standard's "extract a character encoding from a meta element" (``content=`` value)."""
    n = len(value)
    pos = 0
    while True:
        i = value.find(b"charset", pos)
        if i < 0:
            return None
        j = i + 7
        while j < n and value[j] in _WS:
            j += 1
        if j >= n or value[j] != 0x3D:
            pos = j
            continue
        j += 1
        while j < n and value[j] in _WS:
            j += 1
        if j >= n:
            return None
        c = value[j]
        if c in (0x22, 0x27):
            end = value.find(bytes((c,)), j + 1)
            return lookup_label(value[j + 1 : end]) if end >= 0 else None
        end = j
        while end < n and value[end] not in _WS and value[end] != 0x3B:
            end += 1
        return lookup_label(value[j:end])


def _meta_charset(s: bytes, pos: int) -> tuple[str | None, int]:
    """Attributes of one ``<meta``: the encoding it declares (or ``None``) and where it ends."""
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: str | None = None
    while True:
        attr, pos = _get_attribute(s, pos)
        if attr is None:
            break
        name, value = attr
        if name in seen:
            continue
        seen.add(name)
        if name == b"http-equiv":
            got_pragma = got_pragma or value == b"content-type"
        elif name == b"content":
            found = _charset_from_content(value)
            if found is not None and charset is None:
                charset, need_pragma = found, True
        elif name == b"charset":
            charset, need_pragma = lookup_label(value) or "", False
    if need_pragma is None or (need_pragma and not got_pragma) or not charset:
        return None, pos
    if charset in ("utf-16le", "utf-16be"):
        charset = "utf-8"  # the page was readable as ASCII, so it cannot be UTF-16
    elif charset == "x-user-defined":
        charset = "windows-1252"
    return charset, pos


def prescan_meta(head: bytes) -> str | None:
    """The WHATWG prescan for a ``<meta>`` encoding declaration in ``head`` (the first 1024 bytes).

    Follows the standard step by step (comments, other tags and their attributes are skipped the
    way a browser skips them, so a ``<meta>`` inside a comment or an attribute value does not
    count); running out of bytes inside a construct is a failure.
    """
    s = head.lower()  # every comparison in the algorithm is ASCII case-insensitive
    if b"<meta" not in s:
        return None
    n = len(s)
    pos = 0
    try:
        while True:
            pos = s.find(b"<", pos)
            if pos < 0 or pos + 1 >= n:
                return None
            if s.startswith(b"<!--", pos):
                end = s.find(b"-->", pos + 2)
                if end < 0:
                    return None
                pos = end + 3
            elif s.startswith(b"<meta", pos) and pos + 5 < n and s[pos + 5] in _WS_SLASH:
                charset, pos = _meta_charset(s, pos + 6)
                if charset is not None:
                    return charset
                pos += 1
            elif s[pos + 1] in _LETTERS or (s[pos + 1] == 0x2F and pos + 2 < n and s[pos + 2] in _LETTERS):
                pos += 2
                while pos < n and s[pos] not in _WS_GT:
                    pos += 1
                while True:
                    attr, pos = _get_attribute(s, pos)
                    if attr is None:
                        break
                pos += 1
            elif s[pos + 1] in (0x21, 0x2F, 0x3F):  # <! </ <?
                end = s.find(b">", pos + 1)
                if end < 0:
                    return None
                pos = end + 1
            else:
                pos += 1
    except _EndOfInput:
        return None


_XML_DECLARATION = re.compile(rb"""<\?xml\s[^>]{0,200}?\sencoding\s*=\s*["']([A-Za-z0-9._:+-]{1,40})["']""")


def xml_declared_encoding(body: bytes) -> str | None:
    """The encoding of an XML declaration at the very start of ``body``, or UTF-16 by its shape."""
    if body.startswith(b"<\x00?\x00x\x00"):
        return "utf-16le"
    if body.startswith(b"\x00<\x00?\x00x"):
        return "utf-16be"
    if not body.startswith(b"<?xml"):
        return None
    m = _XML_DECLARATION.match(body, 0, 256)
    if m is None:
        return None
    found = lookup_label(m.group(1))
    if found in ("utf-16le", "utf-16be"):
        return "utf-8"  # the declaration was readable as ASCII, so the document is not UTF-16
    return found


# -- the evidence chain ----------------------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16be"),
    (codecs.BOM_UTF16_LE, "utf-16le"),
)
# Checked before _BOMS outside HTML: the UTF-32LE BOM begins with the UTF-16LE one.
_BOMS32 = (
    (codecs.BOM_UTF32_LE, "utf-32le"),
    (codecs.BOM_UTF32_BE, "utf-32be"),
)

#: Bytes the detector and the NUL-pattern test look at: enough for a verdict, bounded on 50 MB pages.
SAMPLE_BYTES = 64 << 10

_SINGLE_BYTE = frozenset(
    name for name, (_, handler) in _CODECS.items() if handler == _C1 or name.startswith(("iso-8859", "koi8"))
) | {"ibm866", "macintosh", "x-mac-cyrillic"}
_UTF16 = ("utf-16le", "utf-16be")


def _utf16_by_nuls(body: bytes) -> str | None:
    """``utf-16le``/``utf-16be`` when the NULs sit where UTF-16 puts ASCII's high bytes
    (:func:`~trawl.decode.detect.nul_pattern`; its UTF-32 answers are left to the detector, as
    UTF-32 is no web encoding)."""
    return {"utf-16-le": "utf-16le", "utf-16-be": "utf-16be"}.get(nul_pattern(body) or "")


def _cjk_utf16(body: bytes) -> str | None:
    """``utf-16le``/``utf-16be`` for UTF-16 CJK text with no BOM and no NULs
    (:func:`~trawl.decode.detect.utf16_shape`), else ``None``."""
    return {"utf-16-le": "utf-16le", "utf-16-be": "utf-16be"}.get(utf16_shape(body[:SAMPLE_BYTES]) or "")


def _multibyte(text: str, errors: int = 0) -> int:
    """Characters that took more than one byte in UTF-8, less the ``errors`` U+FFFD decoding inserted."""
    if text.isascii():
        return 0
    return len(text) - len(text.encode("ascii", "ignore")) - errors


def _as_utf8(body: bytes) -> tuple[str, int] | None:
    """Text and errors when ``body`` is valid UTF-8 (or valid but cut inside its last character)."""
    try:
        return body.decode("utf-8"), 0
    except UnicodeDecodeError as exc:
        truncated = exc.end == len(body) and exc.reason == "unexpected end of data"
        if truncated and not body[: exc.start].isascii():
            # Valid UTF-8 cut inside its last character: a truncated capture, not another encoding
            # (provided some multi-byte character before it shows it really is UTF-8).
            return decode_with(body, "utf-8")
    return None


def _trivial_errors(errors: int, text: str) -> bool:
    """A stray bad byte or two, or one per 50 good characters: not evidence against the encoding."""
    return errors <= 2 or errors * 50 <= _multibyte(text, errors)


def _detect(body: bytes, detector: EncodingDetector | None) -> tuple[str, float] | None:
    """The detector's verdict on a sample of ``body`` as (encoding trawl can decode, confidence)."""
    if detector is None or not body:
        return None
    try:
        found = detector.detect(body[:SAMPLE_BYTES])
    except Exception:  # a detector bug must not lose the document: the chain goes on
        return None
    if found is None:
        return None
    name = found.encoding.lower()
    encoding = lookup_label(name) or lookup_label(name.replace("-", "")) or name.replace("_", "-")
    if encoding not in _CODECS:
        try:
            codecs.lookup(name)
        except LookupError:
            return None
        encoding = name
    return encoding, max(0.0, min(1.0, float(found.confidence)))


#: ``detector=`` value meaning the shared :func:`~trawl.decode.detect.default_detector` (``None``: none).
DEFAULT_DETECTOR: Literal["default"] = "default"


def decode_html(
    body: bytes,
    content_type: str | None = None,
    *,
    default: str = "windows-1252",
    html: bool = True,
    detector: EncodingDetector | Literal["default"] | None = DEFAULT_DETECTOR,
) -> Decoded:
    """Decode a page, taking the evidence in the standard's order (see the module docstring).

    ``content_type`` is the HTTP ``Content-Type`` header value, parameters included; ``default``
    is the encoding name used when nothing else decides; ``html=False`` admits UTF-32 BOMs;
    ``detector`` replaces the shared statistical detector (``None``: no detector).
    """
    det = default_detector() if detector == DEFAULT_DETECTOR else detector
    boms = (_BOMS32 + _BOMS) if not html else _BOMS
    for bom, name in boms:
        if body.startswith(bom):
            text, errors = decode_with(memoryview(body)[len(bom) :], name)
            return Decoded(text, name, "bom", errors, 1.0)
    declared: str | None = None
    declared_source: str | None = None
    overruled: str | None = None
    lossy: Decoded | None = None
    for source, found in (
        ("http", http_charset(content_type)),
        ("meta", prescan_meta(body[:1024])),
        ("xml", xml_declared_encoding(body)),
    ):
        if found is None:
            continue
        declared, declared_source = found, source
        if found not in _UTF16 and _utf16_by_nuls(body) is not None:
            overruled = "declared-ascii-is-utf16"
            break
        text, errors = decode_with(body, found)
        if found == "utf-8":
            if _trivial_errors(errors, text):
                return Decoded(text, found, source, errors, 1.0 if not errors else 0.9)
            overruled = "declared-utf8-invalid"
            break
        if found in _SINGLE_BYTE and not body.isascii():
            as_utf8 = _as_utf8(body)
            if as_utf8 is not None and _multibyte(as_utf8[0]) >= (1 if found == "windows-1252" else 2):
                overruled = "declared-single-byte-is-utf8"
                break
        if _trivial_errors(errors, text):
            return Decoded(text, found, source, errors, 0.95 if not errors else 0.8)
        overruled = "declared-lossy"
        lossy = Decoded(text, found, source, errors, 0.5, found, source)
        break

    def chosen(text: str, encoding: str, source: str, errors: int, confidence: float) -> Decoded:
        return Decoded(
            text,
            encoding,
            source,
            errors,
            confidence,
            declared,
            declared_source,
            overruled if encoding != declared else None,
        )

    utf16 = _utf16_by_nuls(body)
    if utf16 is not None:
        text, errors = decode_with(body, utf16)
        return chosen(text, utf16, "nul-pattern", errors, 0.9)
    as_utf8 = _as_utf8(body)
    if as_utf8 is not None:
        # Pure ASCII reads the same in every ASCII-compatible encoding: certain either way.
        return chosen(as_utf8[0], "utf-8", "utf8-valid", as_utf8[1], 1.0 if body.isascii() else 0.99)
    utf16 = _cjk_utf16(body)
    if utf16 is not None:
        text, errors = decode_with(body, utf16)
        return chosen(text, utf16, "utf16-shape", errors, 0.9)
    guess = _detect(body, det)
    if guess is not None:
        encoding, confidence = guess
        text, errors = decode_with(body, encoding)
        if lossy is None or errors < lossy.errors:
            return chosen(text, encoding, "detector", errors, confidence)
    if lossy is not None:
        return lossy
    text, errors = decode_with(body, default)
    return chosen(text, default, "default", errors, 0.0 if errors else 0.1)


#: Texts longer than this are checked for mojibake on their first this-many characters only, and
#: not repaired (the check and the repair are per-character work).
MOJIBAKE_MAX_CHARS = 2 << 20


def _mojibake(doc: Document, step: Step, text: str) -> str:
    """Score ``text`` for mojibake into ``doc``; the repaired text when the check says it is safe."""
    whole = len(text) <= MOJIBAKE_MAX_CHARS
    try:
        report = check_mojibake(text if whole else text[:MOJIBAKE_MAX_CHARS], repair=whole)
    except Exception as exc:  # the check is advisory: the decoded text stands
        step.count(f"error/decode/mojibake/{type(exc).__name__}")
        doc.error(step.name, exc)
        return text
    doc.mojibake_score = float(report.score)
    doc.mojibake = bool(report.detected)
    if not report.detected:
        return text
    step.count("decode/mojibake/detected")
    if report.repaired is not None and report.repaired != text:
        step.count("decode/mojibake/repaired")
        doc.metadata["mojibake_repaired"] = report.how or "repaired"
        return report.repaired
    return text


def body_of(doc: Document, step: Step, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The entity body of ``doc`` (:func:`~trawl.decode.http.entity_body`: its transfer and content
    codings undone), computed once per document and kept in ``doc.body``.

    Payload problems (broken chunking, corrupt or capped compression) are counted through ``step``
    as ``decode/<kind>`` and recorded in ``doc.errors`` when the body is computed, and only then.
    """
    if doc.body is not None:
        return doc.body
    payload = entity_body(doc, max_bytes)
    for problem in payload.problems:
        step.count(f"decode/{problem.kind}")
        if problem.kind == "size-cap" and payload.codings:  # the coding that hit the cap: a bomb's kind
            step.count(f"decode/size-cap/{payload.codings[-1]}")
        doc.error(step.name, f"{problem.kind}: {problem.message}")
    doc.body = payload.data
    return payload.data


def decode_document(
    doc: Document,
    step: Step,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    default: str = "windows-1252",
    detector: EncodingDetector | Literal["default"] | None = DEFAULT_DETECTOR,
) -> str:
    """The decoded characters of ``doc``: decoded now (filling in its decoding fields and counting
    through ``step``), or the ones an earlier stage left in ``doc.markup``.

    Decoding counts ``decode/source/<source>`` and ``decode/encoding/<name>``, plus
    ``decode/lossy`` when bytes were undecodable, ``decode/overruled/<declared>-><chosen>`` when the
    bytes contradicted a declaration, ``decode/mojibake/detected|repaired`` and the payload problems
    of :func:`body_of`. The text is NFC-normalised (``decode/normalized`` when that changed it) and
    kept in ``doc.markup``, so that a document is decoded, and counted, once.
    """
    if doc.markup is not None:
        return doc.markup
    body = body_of(doc, step, max_bytes)
    kind = effective_type(doc)
    html = kind is None or "html" in kind
    decoded = decode_html(body, doc.header("content-type"), default=default, html=html, detector=detector)
    doc.encoding = decoded.encoding
    doc.encoding_source = decoded.source
    doc.encoding_confidence = decoded.confidence
    doc.decode_errors = decoded.errors
    step.count(f"decode/source/{decoded.source}")
    step.count(f"decode/encoding/{decoded.encoding}")
    if decoded.declared is not None:
        doc.metadata["encoding_declared"] = {"encoding": decoded.declared, "source": decoded.declared_source}
    if decoded.overruled is not None:
        doc.metadata["encoding_overruled"] = decoded.overruled
        step.count(f"decode/overruled/{decoded.declared}->{decoded.encoding}")
    if decoded.errors:
        step.count("decode/lossy")
    text = _mojibake(doc, step, decoded.text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
        step.count("decode/normalized")
    doc.markup = text
    return text


class CharsetDecoder(Step):
    """Decodes textual documents into ``doc.markup`` for the converters (see the module docstring).

    Binary formats (PDF, images, archives) are not decoded: they are counted as
    ``decode/skipped/<type>`` and left for their own converters. ``detector=False`` leaves the
    statistical detector out of the chain (undeclared, non-UTF-8 pages get the default).
    """

    name: ClassVar[str] = "decode"

    def __init__(
        self,
        *,
        max_body_bytes: int = DEFAULT_MAX_BYTES,
        default_encoding: str = "windows-1252",
        detector: bool = True,
    ) -> None:
        if max_body_bytes <= 0:
            raise ConfigError(f"decode.max_body_bytes must be positive, not {max_body_bytes}")
        default = lookup_label(default_encoding)
        if default is None or default in ("utf-16le", "utf-16be"):
            raise ConfigError(
                f"decode.default_encoding = {default_encoding!r} is not an ASCII-compatible WHATWG "
                "encoding label; use e.g. 'windows-1252', 'utf-8', 'shift_jis'"
            )
        self.max_body_bytes = max_body_bytes
        self.default_encoding = default
        self.detector: EncodingDetector | Literal["default"] | None = DEFAULT_DETECTOR if detector else None

    def process(self, doc: Document) -> Document:
        kind = effective_type(doc)
        if not is_textual(kind):
            if file_coding(doc) is not None:  # page.html.gz that is still gzip: say why it did not unpack
                body_of(doc, self, self.max_body_bytes)
            self.count(f"decode/skipped/{kind}")
            return doc
        self.decode(doc)
        if doc.rendered is not None:
            # the DOM a browser built from these bytes (its scripts run): what the converters
            # read; the fetched bytes' decoding stays recorded above
            doc.markup = doc.rendered
            self.count("decode/rendered")
        return doc

    def decode(self, doc: Document) -> str:
        """``doc``'s characters with this decoder's settings, whatever its type (``process``
        leaves binary formats alone; ``trawl detect-encoding`` asks for them all the same)."""
        return decode_document(
            doc, self, max_bytes=self.max_body_bytes, default=self.default_encoding, detector=self.detector
        )
