"""Legacy Office files (OLE compound files): Word 97+ ``.doc``, Excel ``.xls``, PowerPoint ``.ppt``
and Outlook ``.msg``, read in Python, with LibreOffice as the fallback.

An OLE file is a little file system of *streams*; which streams it holds says what it is
(:func:`ole_kind`): ``WordDocument`` a Word document, ``Workbook`` (or BIFF5's ``Book``) a
workbook, ``PowerPoint Document`` a presentation, ``__substg1.0_*`` property streams an Outlook
message. The container is read with olefile (BSD); then

* ``.doc``: the File Information Block gives the piece table (``Clx`` in the ``0Table`` or
  ``1Table`` stream); each piece is 8-bit cp1252 ("compressed") or UTF-16LE text in the
  ``WordDocument`` stream. The main text, footnotes, endnotes and text boxes are read in that order;
  field codes (``HYPERLINK "..."``) are dropped and their results kept; paragraph, cell and row marks
  become line ends. Word 95 and older files have no piece table: LibreOffice reads those;
* ``.xls``: xlrd (BSD) on the ``Workbook`` stream olefile read (xlrd's own container reader can
  loop forever on a cyclic sector chain), as XLSX is read: each sheet's name, then one line per
  row of its cells; dates as ISO 8601;
* ``.ppt``: the record tree of the ``PowerPoint Document`` stream. Text atoms (``TextCharsAtom``
  UTF-16, ``TextBytesAtom`` cp1252) are found in the slide list (``SlideListWithText``, where
  PowerPoint writes them) and in each slide's drawing (where LibreOffice does); the persist
  directory (``Current User`` → ``UserEditAtom`` → ``PersistDirectoryAtom``) says which slide
  container is which slide, so slides come in presentation order with their notes; masters are
  left out. Each slide is a segment titled by its title placeholder;
* ``.msg``: the message's property streams: subject, sender, recipients, the delivery (or
  submit) time, the plain body (``PR_BODY``), else the HTML body through the page reader, else the
  compressed RTF body (LZFu, [MS-OXRTFCP]) through the RTF converter; attachments are listed in
  ``metadata["attachments"]`` as a message's are (:mod:`trawl.convert.mail`), and with
  ``mail_attachments = "fold"`` converted and added under their names (attached ``.msg``
  messages read in place, at most ``mail_max_depth`` deep).

Title, author, subject, keywords and dates come from the ``SummaryInformation`` stream.
``metadata["converter"]`` names what read the file (``word97``, ``xlrd``, ``ppt-records``,
``msg-properties``, or ``libreoffice``) and ``metadata["ole_kind"]`` what it is.

LibreOffice (``soffice --headless``, called as a separate program: it is MPL, never imported) is
the fallback when the Python reader fails on a file or cannot read its kind (Word 95, an Excel
chart, a Visio drawing...): :func:`libreoffice_convert` turns the file into its modern twin
(DOCX, XLSX, PPTX) in a private temporary directory with its own user profile, under a time limit
(``libreoffice_timeout``) and an address-space limit (``libreoffice_max_memory``), killed with
its whole process group when it overruns; the modern converter then reads the result.
``libreoffice = "never"`` turns it off (and an absent ``soffice`` is the same), ``"always"`` prefers
it to the Python readers for ``.doc``, ``.xls`` and ``.ppt``. An encrypted file
is refused (``encrypted``); an OLE file of a kind nothing here reads is skipped, counted
``convert/skipped/unsupported-ole-kind``.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import io
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trawl.convert.base import ConversionError, Converted, ConvertOptions, collapse, join_lines, segments_of
from trawl.errors import MissingDependency

__all__ = [
    "LIBREOFFICE_TARGETS",
    "PartConverter",
    "convert_ole",
    "decompress_rtf",
    "libreoffice_available",
    "libreoffice_convert",
    "msg_attachments",
    "ole_kind",
]

#: ``(data, declared type, file name, options) -> (converted or None, why not)``: how attachments
#: are converted when folded (the registry's, as for mail).
PartConverter = Callable[[bytes, str | None, str | None, ConvertOptions], tuple[Converted | None, str]]

#: What LibreOffice converts each kind to (``--convert-to``), and the file suffix it needs.
LIBREOFFICE_TARGETS: dict[str, tuple[str, str]] = {
    "doc": (".doc", "docx"),
    "xls": (".xls", "xlsx"),
    "ppt": (".ppt", "pptx"),
}


#: What olefile, xlrd and the record readers raise on damaged bytes (a bad offset, size, count,
#: code page or type): such a file is ``<kind>-damaged``, not a converter failure.
_DAMAGE = (
    OSError, ValueError, IndexError, KeyError, TypeError, OverflowError, LookupError, AssertionError,
    struct.error,
    RecursionError,  # olefile walks its directory tree recursively: a deep or looping one (fuzzing)
)  # fmt: skip


def _olefile() -> Any:
    try:
        import olefile  # noqa: PLC0415  # optional: the "convert" extra
    except ImportError as exc:
        raise MissingDependency("olefile", "convert", "reading legacy Office files") from exc
    return olefile


#: each open file's size in bytes: no stream in it can be larger (a stream claiming more is damage)
_FILE_SIZES: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _open(data: bytes) -> Any:
    olefile = _olefile()
    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except _DAMAGE as exc:
        raise ConversionError(f"not a readable OLE compound file: {exc}", "ole-damaged") from exc
    _FILE_SIZES[ole] = len(data)
    return ole


def ole_kind(names: list[list[str]]) -> str:
    """``doc``, ``xls``, ``ppt``, ``msg`` or ``ole`` (something else) from an OLE file's stream paths."""
    top = {path[0] for path in names if path}
    if "WordDocument" in top:
        return "doc"
    if "Workbook" in top or "Book" in top:
        return "xls"
    if "PowerPoint Document" in top:
        return "ppt"
    if any(name.startswith(("__substg1.0_", "__properties_version1.0")) for name in top):
        return "msg"
    return "ole"


def _stream(ole: Any, name: str | list[str]) -> bytes:
    try:
        data: bytes = ole.openstream(name).read()
    except (OSError, ValueError, IndexError, TypeError, struct.error) as exc:  # TypeError: a storage
        raise ConversionError(f"stream {name!r} cannot be read: {exc}", "ole-damaged") from exc
    return data


def _codec(codepage: int | None) -> str:
    page = (codepage or 1252) & 0xFFFF
    if page == 65001:
        return "utf-8"
    if page == 1200:
        return "utf-16-le"
    return f"cp{page}"


def _text(value: Any, codec: str) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode(codec, "replace").strip("\x00").strip()
        except LookupError:
            return value.decode("cp1252", "replace").strip("\x00").strip()
    return str(value).strip() if value else ""


# SummaryInformation property ids, and DocumentSummaryInformation's company (PIDDSI_COMPANY)
_SUMMARY_TEXT = {
    2: "title",
    3: "subject",
    4: "author",
    5: "keywords",
    6: "description",
    8: "last_modified_by",
}
_SUMMARY_TIME = {12: "created", 13: "modified"}
_VT_I2, _VT_LPSTR, _VT_LPWSTR, _VT_FILETIME = 2, 30, 31, 64


def _property_set(raw: bytes, wanted: frozenset[int]) -> dict[int, Any]:
    """The ``wanted`` properties of the first section of a property-set stream ([MS-OLEPS]): text,
    FILETIME (as an aware datetime) and the code page (1). Written here rather than olefile's
    ``get_metadata``, which loops as many times as a vector's (attacker-chosen) count says."""
    out: dict[int, Any] = {}
    if len(raw) < 48:
        return out
    section = _u32(raw, 44)
    if section + 8 > len(raw):
        return out
    count = min(_u32(raw, section + 4), 1000, (len(raw) - section - 8) // 8)
    values: dict[int, tuple[int, int]] = {}
    for i in range(count):
        pid, offset = struct.unpack_from("<II", raw, section + 8 + 8 * i)
        if pid in wanted or pid == 1:
            at = section + offset
            if at + 8 <= len(raw):
                values[pid] = (_u32(raw, at) & 0xFFFF, at + 4)
    codepage = values.get(1)
    codec = _codec(_u16(raw, codepage[1]) if codepage and codepage[0] == _VT_I2 else None)
    for pid, (kind, at) in values.items():
        if pid == 1:
            continue
        if kind in (_VT_LPSTR, _VT_LPWSTR):
            size = _u32(raw, at)
            data = raw[at + 4 : at + 4 + (2 * size if kind == _VT_LPWSTR else size)]
            out[pid] = _text(data, "utf-16-le" if kind == _VT_LPWSTR else codec)
        elif kind == _VT_FILETIME and at + 8 <= len(raw):
            ticks = struct.unpack_from("<Q", raw, at)[0]
            with contextlib.suppress(OverflowError):
                out[pid] = dt.datetime(1601, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=ticks // 10)
    return out


def _summary(ole: Any) -> dict[str, Any]:
    """Title, author, subject, keywords, description and dates from ``SummaryInformation``, the
    company from ``DocumentSummaryInformation``."""
    meta: dict[str, Any] = {}
    wanted = frozenset(_SUMMARY_TEXT) | frozenset(_SUMMARY_TIME)
    for name, keys in (
        ("\x05SummaryInformation", wanted),
        ("\x05DocumentSummaryInformation", frozenset({15})),
    ):
        if not ole.exists(name) or ole.get_type(name) != 2 or ole.get_size(name) > 1 << 20:  # 2: a stream
            continue
        try:
            props = _property_set(_stream(ole, name), keys)
        except (ConversionError, struct.error):  # a damaged property set leaves the text readable
            continue
        for pid, value in props.items():
            if isinstance(value, dt.datetime):
                if value.year > 1601 and pid in _SUMMARY_TIME:
                    meta[_SUMMARY_TIME[pid]] = value.isoformat()
            elif value:
                meta["company" if keys == {15} else _SUMMARY_TEXT.get(pid, "")] = value
    meta.pop("", None)
    return meta


# --- Word 97+ -------------------------------------------------------------------------------------

# Control characters of Word's text: paragraph, cell/row, line, page and column marks end lines;
# special characters (pictures, footnote marks, annotation marks...) are dropped.
_WORD_CHARS = {0x0D: "\n", 0x07: "\n", 0x0B: "\n", 0x0C: "\n", 0x0E: "\n", 0x1E: "-", 0x09: "\t"}
_WORD_TABLE = {c: _WORD_CHARS.get(c) for c in range(0x20) if c not in (0x13, 0x14, 0x15)}
_WORD_TABLE[0x0A] = "\n"
_WORD_TABLE[0xA0] = " "


def _without_field_codes(text: str) -> str:
    """``text`` with each field's code (from U+0013 to U+0014) left out and its result kept."""
    if "\x13" not in text:
        return text
    out: list[str] = []
    stack: list[bool] = []  # per open field: still in its code part
    coding = 0  # how many of them are (kept as a count: rescanning the stack is quadratic)
    start = 0
    for i, ch in enumerate(text):
        if ch not in "\x13\x14\x15":
            continue
        if not coding:
            out.append(text[start:i])
        if ch == "\x13":
            stack.append(True)
            coding += 1
        elif stack:
            if ch == "\x14":
                coding -= stack[-1]
                stack[-1] = False
            else:
                coding -= stack.pop()
        start = i + 1
    if not coding:
        out.append(text[start:])
    return "".join(out)


def _u16(data: bytes, at: int) -> int:
    value: int = struct.unpack_from("<H", data, at)[0]
    return value


def _u32(data: bytes, at: int) -> int:
    value: int = struct.unpack_from("<I", data, at)[0]
    return value


def _word_pieces(word: bytes, table: bytes, fc_clx: int, lcb_clx: int, limit: int) -> str:
    """The document's characters in CP order, from the piece table (at most ``limit``)."""
    clx = table[fc_clx : fc_clx + lcb_clx]
    i = 0
    while i + 3 <= len(clx) and clx[i] == 0x01:  # Prc: property modifiers, skipped
        size = struct.unpack_from("<h", clx, i + 1)[0]
        if size < 0:  # a signed field: negative would stay in place or step back, for ever
            raise ConversionError("the piece table (Clx) has a negative modifier size", "doc-damaged")
        i += 3 + size
    if i + 5 > len(clx) or clx[i] != 0x02:
        raise ConversionError("the piece table (Clx) is missing or damaged", "doc-damaged")
    lcb = _u32(clx, i + 1)
    plc = clx[i + 5 : i + 5 + lcb]
    n = (len(plc) - 4) // 12
    if n <= 0:
        raise ConversionError("the piece table has no pieces", "doc-damaged")
    cps = struct.unpack_from(f"<{n + 1}I", plc, 0)
    parts: list[str] = []
    total = 0
    for k in range(n):
        count = cps[k + 1] - cps[k]
        if count <= 0:
            continue
        fc = _u32(plc, 4 * (n + 1) + 8 * k + 2)
        if fc & 0x40000000:  # "compressed": one cp1252 byte per character
            at = (fc & 0x3FFFFFFF) // 2
            piece = word[at : at + count].decode("cp1252", "replace")
        else:
            piece = word[fc : fc + 2 * count].decode("utf-16-le", "replace")
        parts.append(piece)
        total += len(piece)
        if total >= limit:
            break
    return "".join(parts)


def _read_doc(ole: Any, options: ConvertOptions, out: Converted) -> None:
    word = _stream(ole, "WordDocument")
    if len(word) < 0x200 or _u16(word, 0) != 0xA5EC:
        raise ConversionError("WordDocument has no Word 97 File Information Block", "doc-damaged")
    nfib, flags = _u16(word, 2), _u16(word, 0x0A)
    if flags & 0x0100:
        raise ConversionError("the document is encrypted", "encrypted")
    if nfib < 0xC1:
        raise ConversionError(f"a Word 95 or older document (nFib {nfib:#x})", "doc-old-version")
    pos = 32
    csw = _u16(word, pos)
    pos += 2 + 2 * csw
    cslw = _u16(word, pos)
    lw = pos + 2
    pos = lw + 4 * cslw
    fclcb = pos + 2
    if cslw < 11 or _u16(word, pos) < 34 or fclcb + 34 * 8 > len(word):
        raise ConversionError("the File Information Block is too short", "doc-damaged")
    # ccpText, ccpFtn, ccpHdd, ccpMcr, ccpAtn, ccpEdn, ccpTxbx, ccpHdrTxbx: the parts in CP order
    ccp = [_u32(word, lw + 4 * i) for i in range(3, 11)]
    fc_clx, lcb_clx = _u32(word, fclcb + 33 * 8), _u32(word, fclcb + 33 * 8 + 4)
    table = _stream(ole, "1Table" if flags & 0x0200 else "0Table")
    chars = _word_pieces(word, table, fc_clx, lcb_clx, sum(ccp) + 1)
    starts = [sum(ccp[:i]) for i in range(len(ccp))]
    # main text, footnotes, endnotes, text boxes (headers and comments stay out, as in DOCX)
    wanted = [0, 1, 5, 6]
    texts = [chars[starts[i] : starts[i] + ccp[i]] for i in wanted]
    text = _without_field_codes("\n".join(texts)).translate(_WORD_TABLE)
    out.text = join_lines(text.split("\n"))
    out.metadata["converter"] = "word97"


# --- Excel ----------------------------------------------------------------------------------------


def _read_xls(ole: Any, options: ConvertOptions, out: Converted) -> None:
    try:
        import xlrd  # noqa: PLC0415  # optional: the "convert" extra
    except ImportError as exc:
        raise MissingDependency("xlrd", "convert", "reading .xls workbooks") from exc
    # xlrd is given the workbook stream, not the file: olefile follows sector chains with loop
    # checks, where xlrd's own container reader can loop forever on a chain that cycles
    workbook = _stream(ole, "Workbook" if ole.exists("Workbook") else "Book")
    try:
        book = xlrd.open_workbook(
            file_contents=workbook, on_demand=True, logfile=io.StringIO(), formatting_info=False
        )
    except (xlrd.biffh.XLRDError, xlrd.compdoc.CompDocError) as exc:
        if "encrypt" in str(exc).lower():
            raise ConversionError("the workbook is encrypted", "encrypted") from exc
        raise ConversionError(f"xlrd cannot read the workbook: {exc}", "xls-damaged") from exc
    lines: list[str] = []
    marks: list[tuple[int, str, int, str]] = []
    names: list[str] = []
    cells = 0
    capped = False
    try:
        for index in range(book.nsheets):
            sheet = book.get_sheet(index)
            name = collapse(sheet.name)
            names.append(name)
            marks.append((len(lines), "sheet", index + 1, name[:1000]))
            lines.append(name)
            for r in range(sheet.nrows):
                values = []
                for cell in sheet.row(r):
                    cells += 1
                    value = _xls_cell(cell, book.datemode, xlrd)
                    if value:
                        values.append(value)
                if values:
                    lines.append("\t".join(values))
                if cells >= options.max_cells:
                    capped = True
                    break
            book.unload_sheet(index)
            if capped:
                break
    except (xlrd.biffh.XLRDError, xlrd.compdoc.CompDocError) as exc:  # a sheet's records damaged
        raise ConversionError(f"xlrd cannot read the workbook: {exc}", "xls-damaged") from exc
    finally:
        book.release_resources()
    out.text = "\n".join(lines)
    out.segments = segments_of(lines, marks)
    out.metadata["sheets"] = names
    if names:
        out.metadata["headings"] = [{"level": 2, "text": n} for n in names]
    out.metadata["converter"] = "xlrd"
    if capped:
        out.count("xls/cells-capped")
        out.warnings.append(f"stopped after {options.max_cells} cells")


def _xls_cell(cell: Any, datemode: int, xlrd: Any) -> str:
    kind, value = cell.ctype, cell.value
    if kind == xlrd.XL_CELL_TEXT:
        return collapse(value)
    if kind == xlrd.XL_CELL_NUMBER:
        return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)
    if kind == xlrd.XL_CELL_DATE:
        try:
            stamp = xlrd.xldate_as_datetime(value, datemode)
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return repr(value)
        return str(stamp.date().isoformat() if stamp.time() == dt.time() else stamp.isoformat())
    if kind == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if value else "FALSE"
    return ""


# --- PowerPoint -----------------------------------------------------------------------------------

_PPT_DOCUMENT = 0x03E8
_PPT_SLIDE = 0x03EE
_PPT_SLIDE_ATOM = 0x03EF
_PPT_NOTES = 0x03F0
_PPT_PERSIST = 0x03F3  # SlidePersistAtom
_PPT_MAIN_MASTER = 0x03F8
_PPT_TEXT_HEADER = 0x0F9F
_PPT_TEXT_CHARS = 0x0FA0
_PPT_TEXT_BYTES = 0x0FA8
_PPT_SLWT = 0x0FF0  # SlideListWithText
_PPT_USER_EDIT = 0x0FF5
_PPT_PERSIST_DIR = 0x1772
_PPT_TITLE_TYPES = frozenset({0, 6})  # Tx_TYPE_TITLE, Tx_TYPE_CENTERTITLE
_PPT_MAX_DEPTH = 32


def _ppt_texts(data: bytes, start: int, end: int, depth: int = 0) -> list[tuple[int, str]]:
    """The text atoms under the records in ``data[start:end]``: ``(text type, text)`` in order."""
    found: list[tuple[int, str]] = []
    kind = -1
    pos = start
    while pos + 8 <= end:
        head, rec, length = struct.unpack_from("<HHI", data, pos)
        body = pos + 8
        stop = min(body + length, end)
        if rec == _PPT_TEXT_HEADER and stop - body >= 4:
            kind = _u32(data, body)
        elif rec == _PPT_TEXT_CHARS:
            found.append((kind, data[body:stop].decode("utf-16-le", "replace")))
        elif rec == _PPT_TEXT_BYTES:
            found.append((kind, data[body:stop].decode("cp1252", "replace")))
        elif head & 0x0F == 0x0F and rec != _PPT_MAIN_MASTER and depth < _PPT_MAX_DEPTH:
            found.extend(_ppt_texts(data, body, stop, depth + 1))
        pos = body + length
    return found


def _ppt_records(data: bytes, start: int, end: int) -> list[tuple[int, int, int, int]]:
    """The records directly in ``data[start:end]``: ``(type, instance, body start, body end)``."""
    out = []
    pos = start
    while pos + 8 <= end:
        head, rec, length = struct.unpack_from("<HHI", data, pos)
        out.append((rec, head >> 4, pos + 8, min(pos + 8 + length, end)))
        pos += 8 + length
    return out


def _ppt_persist(ole: Any, data: bytes) -> dict[int, int]:
    """Persist object id → stream offset, from the newest edit back (empty if unreadable)."""
    try:
        current = _stream(ole, "Current User")
        edit = _u32(current, 16)  # CurrentUserAtom.offsetToCurrentEdit
    except (ConversionError, struct.error):
        return {}
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    while 0 < edit < len(data) - 8 and edit not in seen:
        seen.add(edit)
        try:
            if _u16(data, edit + 2) != _PPT_USER_EDIT:
                break
            last, directory = _u32(data, edit + 16), _u32(data, edit + 20)
            if _u16(data, directory + 2) != _PPT_PERSIST_DIR:
                break
            end = min(directory + 8 + _u32(data, directory + 4), len(data))
            pos = directory + 8
            while pos + 4 <= end:
                entry = _u32(data, pos)
                first, count = entry & 0xFFFFF, entry >> 20
                for k in range(count):
                    offsets.setdefault(first + k, _u32(data, pos + 4 + 4 * k))
                pos += 4 + 4 * count
        except struct.error:
            break
        edit = last
    return offsets


def _read_ppt(ole: Any, options: ConvertOptions, out: Converted) -> None:
    data = _stream(ole, "PowerPoint Document")
    persist = _ppt_persist(ole, data)
    top = _ppt_records(data, 0, len(data))
    # The slide list: (slide id, persist id of the slide container, texts written in the list)
    slides: list[tuple[int, int, list[tuple[int, str]]]] = []
    notes_by_id: dict[int, int] = {}  # notes id → container offset
    document = next((r for r in top if r[0] == _PPT_DOCUMENT), None)
    if document is not None:
        for rec, instance, body, end in _ppt_records(data, document[2], document[3]):
            if rec != _PPT_SLWT or instance not in (0, 2):
                continue
            for rec2, _inst, b2, e2 in _ppt_records(data, body, end):
                if rec2 == _PPT_PERSIST and e2 - b2 >= 16:
                    ref, ident = _u32(data, b2), _u32(data, b2 + 12)
                    if instance == 0:
                        slides.append((ident, ref, []))
                    elif ref in persist:
                        notes_by_id[ident] = persist[ref]
                elif instance == 0 and slides:
                    slides[-1][2].extend(_ppt_texts(data, b2 - 8, e2))
    containers = {body - 8: (rec, body, end) for rec, _i, body, end in top if rec in (_PPT_SLIDE, _PPT_NOTES)}
    order: list[tuple[list[tuple[int, str]], int | None]] = []  # (texts, slide container offset)
    if slides and all(persist.get(ref) in containers for _i, ref, _t in slides):
        # A slide container is read once, however often a (hostile) list names it: its text is
        # not repeated, nor its records walked again per entry. The entries' own texts are kept.
        listed_at: dict[int, list[tuple[int, str]]] = {}
        for _i, ref, texts in slides:
            listed_at.setdefault(persist[ref], []).extend(texts)
        if len(listed_at) < len(slides):
            out.count("ppt/repeated-slides", len(slides) - len(listed_at))
        order = [(texts, at) for at, texts in listed_at.items()]
    else:  # no usable persist directory: the slide containers in stream order
        out.count("ppt/stream-order")
        order = [([], at) for at, (rec, _b, _e) in sorted(containers.items()) if rec == _PPT_SLIDE]
    blocks: list[str] = []
    marks: list[tuple[int, str, int, str]] = []
    notes_total = 0
    notes_read: set[int] = set()
    for number, (listed, at) in enumerate(order, 1):
        texts = list(listed)
        notes: list[tuple[int, str]] = []
        if at is not None:
            _rec, body, end = containers[at]
            texts.extend(_ppt_texts(data, body, end))
            atom = next((r for r in _ppt_records(data, body, end) if r[0] == _PPT_SLIDE_ATOM), None)
            if atom is not None and atom[3] - atom[2] >= 20:
                notes_at = notes_by_id.get(_u32(data, atom[2] + 16))
                if notes_at is not None and notes_at in containers and notes_at not in notes_read:
                    notes_read.add(notes_at)  # with its first slide only: a shared page is not repeated
                    _r, nb, ne = containers[notes_at]
                    notes = _ppt_texts(data, nb, ne)
        title = next((collapse(t) for kind, t in texts if kind in _PPT_TITLE_TYPES and collapse(t)), "")
        marks.append((len(blocks), "slide", number, title[:1000]))
        for _kind, text in texts + notes:
            cleaned = join_lines(text.replace("\x0b", "\r").split("\r"))
            if cleaned and cleaned != "*":  # "*": a date, footer or slide-number field's placeholder
                blocks.append(cleaned)
        notes_total += bool(notes)
    if not order:
        raise ConversionError("no slides found in the PowerPoint Document stream", "ppt-no-slides")
    out.text = "\n".join(blocks)
    out.segments = segments_of(blocks, marks)
    out.metadata["slides"] = len(order)
    headings = [{"level": 2, "text": m[3]} for m in marks if m[3]]
    if headings:
        out.metadata["headings"] = headings
    out.metadata["converter"] = "ppt-records"


# --- Outlook messages -----------------------------------------------------------------------------

_PT_UNICODE, _PT_STRING8, _PT_BINARY, _PT_SYSTIME, _PT_LONG = 0x001F, 0x001E, 0x0102, 0x0040, 0x0003
_PR_SUBJECT, _PR_BODY, _PR_HTML, _PR_RTF = 0x0037, 0x1000, 0x1013, 0x1009
_PR_SENDER_NAME, _PR_SENDER_EMAIL, _PR_SENDER_SMTP = 0x0C1A, 0x0C1F, 0x5D01
_PR_DISPLAY_TO, _PR_DISPLAY_CC = 0x0E04, 0x0E03
_PR_DELIVERY_TIME, _PR_SUBMIT_TIME = 0x0E06, 0x0039
_PR_HEADERS, _PR_MESSAGE_ID, _PR_CODEPAGE, _PR_INTERNET_CPID = 0x007D, 0x1035, 0x3FFD, 0x3FDE
_PR_RECIP_NAME, _PR_RECIP_EMAIL, _PR_RECIP_SMTP, _PR_RECIP_TYPE = 0x3001, 0x3003, 0x39FE, 0x0C15
_PR_ATTACH_DATA, _PR_ATTACH_LONG_NAME, _PR_ATTACH_NAME, _PR_ATTACH_MIME = 0x3701, 0x3707, 0x3704, 0x370E
_PR_ATTACH_SIZE = 0x0E20


#: Each open OLE file's streams by the storage that holds them, listed once per file: a message's
#: recipients and attachments each look up their own (listing the file each time is quadratic).
_LISTINGS: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], list[list[str]]]] = (
    weakref.WeakKeyDictionary()
)


def _streams_in(ole: Any, prefix: list[str]) -> list[list[str]]:
    index = _LISTINGS.get(ole)
    if index is None:
        index = {}
        for path in ole.listdir(streams=True, storages=False):
            index.setdefault(tuple(path[:-1]), []).append(path)
        _LISTINGS[ole] = index
    return index.get(tuple(prefix), [])


class _Props:
    """The properties of one message, recipient or attachment storage (``prefix``)."""

    def __init__(self, ole: Any, prefix: list[str], header: int) -> None:
        self.ole = ole
        self.prefix = prefix
        self.streams: dict[int, tuple[int, list[str]]] = {}  # id → (type, stream path)
        for path in _streams_in(ole, prefix):
            name = path[-1]
            if name.startswith("__substg1.0_") and len(name) == 20:
                with contextlib.suppress(ValueError):
                    self.streams[int(name[12:16], 16)] = (int(name[16:20], 16), path)
        self.fixed: dict[int, tuple[int, bytes]] = {}
        fixed_path = [*prefix, "__properties_version1.0"]
        if ole.exists(fixed_path):
            raw = _stream(ole, fixed_path)
            for pos in range(header, len(raw) - 15, 16):
                tag = _u32(raw, pos)
                self.fixed[tag >> 16] = (tag & 0xFFFF, raw[pos + 8 : pos + 16])
        cp = self.long(_PR_INTERNET_CPID) or self.long(_PR_CODEPAGE)
        self.codec = _codec(cp)
        self.cut: set[int] = set()  # properties read only up to their limit
        self.damaged: set[int] = set()  # text properties that claim more bytes than their file has

    def long(self, prop: int) -> int | None:
        found = self.fixed.get(prop)
        return _u32(found[1], 0) if found is not None and found[0] == _PT_LONG else None

    def time(self, prop: int) -> dt.datetime | None:
        found = self.fixed.get(prop)
        if found is None or found[0] != _PT_SYSTIME:
            return None
        ticks = struct.unpack("<Q", found[1])[0]
        if not ticks:
            return None
        try:
            return dt.datetime(1601, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None

    def raw(self, prop: int, limit: int, *, cut: bool = False) -> bytes | None:
        """A property's bytes; one larger than ``limit`` is refused (``msg-capped``), or with
        ``cut`` read up to ``limit`` bytes (an even number: UTF-16 stays whole) and noted."""
        found = self.streams.get(prop)
        if found is None:
            return None
        size = self.ole.get_size(found[1])
        if size > _FILE_SIZES.get(self.ole, size):  # olefile would build the whole claimed stream
            if cut:  # a text property: the message reads on without it
                self.damaged.add(prop)
                return None
            raise ConversionError(f"property {prop:#06x} claims {size} bytes, past its file", "msg-damaged")
        if size > limit:
            if not cut:
                raise ConversionError(f"property {prop:#06x} is larger than {limit} bytes", "msg-capped")
            self.cut.add(prop)
            try:
                head: bytes = self.ole.openstream(found[1]).read(limit - limit % 2)
            except (OSError, ValueError, IndexError, TypeError, struct.error) as exc:
                raise ConversionError(f"stream {found[1]!r} cannot be read: {exc}", "ole-damaged") from exc
            return head
        return _stream(self.ole, found[1])

    def text(self, prop: int, limit: int = 50 * 1024 * 1024) -> str:
        """A text property, cut at ``limit`` bytes (noted in :attr:`cut`)."""
        found = self.streams.get(prop)
        data = self.raw(prop, limit, cut=True)
        if found is None or data is None:
            return ""
        if found[0] == _PT_UNICODE:
            return data.decode("utf-16-le", "replace").rstrip("\x00")
        try:
            return data.decode(self.codec, "replace").rstrip("\x00")
        except LookupError:
            return data.decode("cp1252", "replace").rstrip("\x00")


# [MS-OXRTFCP] 2.1.3.1.1: the dictionary every compressed RTF stream starts from.
_LZFU_PREBUF = (
    b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript "
    b"\\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
    b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx"
)


def decompress_rtf(data: bytes, limit: int) -> bytes:
    """The RTF of a compressed-RTF (LZFu, or uncompressed MELA) property, at most ``limit`` bytes."""
    if len(data) < 16:
        raise ConversionError("compressed RTF shorter than its header", "msg-damaged")
    comp_size, raw_size, magic = struct.unpack_from("<III", data, 0)
    if magic == 0x414C454D:  # "MELA": stored as it is
        return data[16 : 16 + min(raw_size, limit)]
    if magic != 0x75465A4C:  # "LZFu"
        raise ConversionError(f"compressed RTF of unknown kind {magic:#x}", "msg-damaged")
    window = bytearray(4096)
    window[: len(_LZFU_PREBUF)] = _LZFU_PREBUF
    write = len(_LZFU_PREBUF)
    out = bytearray()
    pos, end = 16, min(len(data), comp_size + 4)
    cap = min(raw_size, limit)
    while pos < end and len(out) < cap:
        control = data[pos]
        pos += 1
        for bit in range(8):
            if pos >= end or len(out) >= cap:
                break
            if control & (1 << bit):
                if pos + 2 > end:
                    break
                ref = data[pos] << 8 | data[pos + 1]
                pos += 2
                offset, length = ref >> 4, (ref & 0x0F) + 2
                if offset == write:  # the end marker
                    return bytes(out)
                for k in range(length):
                    byte = window[(offset + k) & 0xFFF]
                    out.append(byte)
                    window[write] = byte
                    write = (write + 1) & 0xFFF
            else:
                byte = data[pos]
                pos += 1
                out.append(byte)
                window[write] = byte
                write = (write + 1) & 0xFFF
    return bytes(out[:cap])


def _filetime_iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _storages(ole: Any, prefix: list[str], start: str) -> list[list[str]]:
    """The storages directly under ``prefix`` whose names start with ``start``, in name order."""
    found = {
        tuple(path[: len(prefix) + 1])
        for path in ole.listdir(streams=True, storages=True)
        if len(path) > len(prefix) and path[: len(prefix)] == prefix and path[len(prefix)].startswith(start)
    }
    return [list(p) for p in sorted(found)]


def _read_msg(
    ole: Any,
    prefix: list[str],
    *,
    options: ConvertOptions,
    out: Converted,
    convert: PartConverter | None,
    depth: int,
) -> list[str]:
    """One message's text blocks; its metadata into ``out`` when it is the top message."""
    props = _Props(ole, prefix, 32 if not prefix else 24)
    top = depth == 0
    subject = collapse(props.text(_PR_SUBJECT, 1 << 20))
    texts: list[str] = []
    body = props.text(_PR_BODY, options.mail_max_part_bytes)
    if body.strip():
        texts.append(join_lines(body.replace("\r\n", "\n").split("\n")))
        method = "plain"
    elif (html := props.raw(_PR_HTML, options.mail_max_part_bytes, cut=True)) is not None:
        from trawl.decode.charset import decode_html  # noqa: PLC0415  # the page reader's stack
        from trawl.html.page import read_page  # noqa: PLC0415

        decoded = decode_html(html, None, html=True)
        page = read_page(decoded.text, options.url or "about:blank", max_chars=options.max_chars)
        texts.append(page.text)
        if top:
            out.links.extend((link.url, link.text) for link in page.links[: options.max_links])
        method = "html"
    elif (rtf := props.raw(_PR_RTF, options.mail_max_part_bytes)) is not None:
        from trawl.convert.rtf import convert_rtf  # noqa: PLC0415

        texts.append(convert_rtf(decompress_rtf(rtf, options.mail_max_part_bytes), options).text)
        method = "rtf"
    else:
        method = "none"
    if props.cut & {_PR_BODY, _PR_HTML}:  # a body past mail_max_part_bytes: kept as far as that
        out.count("msg/body-capped")
        out.metadata["truncated"] = True
    if top:
        out.title = subject
        meta = out.metadata
        sender = collapse(props.text(_PR_SENDER_NAME, 1 << 16))
        address = collapse(props.text(_PR_SENDER_SMTP, 1 << 16) or props.text(_PR_SENDER_EMAIL, 1 << 16))
        if sender or address:
            meta["from"] = f"{sender} <{address}>" if sender and "@" in address else sender or address
        to, cc = _recipients(ole, prefix)
        to = to or [a.strip() for a in props.text(_PR_DISPLAY_TO, 1 << 16).split(";") if a.strip()]
        cc = cc or [a.strip() for a in props.text(_PR_DISPLAY_CC, 1 << 16).split(";") if a.strip()]
        if to:
            meta["to"] = to
        if cc:
            meta["cc"] = cc
        when = props.time(_PR_DELIVERY_TIME) or props.time(_PR_SUBMIT_TIME)
        if when is not None:
            meta["date"] = _filetime_iso(when)
        message_id = collapse(props.text(_PR_MESSAGE_ID, 4096))
        if message_id:
            meta["message_id"] = message_id
        meta["body"] = method
    attachments = _storages(ole, prefix, "__attach_version1.0_#")
    if len(attachments) > options.mail_max_attachments:
        out.count("mail/capped/attachments")
        if top:
            out.metadata["attachments_total"] = len(attachments)
        attachments = attachments[: options.mail_max_attachments]
    entries: list[dict[str, Any]] = []
    for position, storage in enumerate(attachments, 1):
        entry, text = _attachment(
            ole, storage, position=position, options=options, out=out, convert=convert, depth=depth
        )
        entries.append(entry)
        if text:
            texts.append(f"{entry['filename']}\n{text}")
    if top and entries:
        out.metadata["attachments"] = entries
    if not top and subject:
        texts.insert(0, subject)
    if props.damaged:
        out.count("msg/damaged-properties", len(props.damaged))
    return texts


def _recipients(ole: Any, prefix: list[str]) -> tuple[list[str], list[str]]:
    to: list[str] = []
    cc: list[str] = []
    for storage in _storages(ole, prefix, "__recip_version1.0_#"):
        props = _Props(ole, storage, 8)
        name = collapse(props.text(_PR_RECIP_NAME, 1 << 16))
        address = collapse(props.text(_PR_RECIP_SMTP, 1 << 16) or props.text(_PR_RECIP_EMAIL, 1 << 16))
        shown = f"{name} <{address}>" if name and "@" in address and name != address else name or address
        if shown:
            (cc if props.long(_PR_RECIP_TYPE) == 2 else to).append(shown)
    return to, cc


def _attachment(
    ole: Any,
    storage: list[str],
    *,
    position: int,
    options: ConvertOptions,
    out: Converted,
    convert: PartConverter | None,
    depth: int,
) -> tuple[dict[str, Any], str]:
    """An attachment's entry (``filename``, ``type``, ``size``) and, when folded, its text."""
    props = _Props(ole, storage, 8)
    name = collapse(props.text(_PR_ATTACH_LONG_NAME, 4096) or props.text(_PR_ATTACH_NAME, 4096))
    kind = collapse(props.text(_PR_ATTACH_MIME, 4096)) or "application/octet-stream"
    inner = [*storage, f"__substg1.0_{_PR_ATTACH_DATA:04X}000D"]
    embedded = ole.exists(inner) and ole.get_type(inner) == 1  # STGTY_STORAGE: an attached message
    fold = options.mail_attachments == "fold"
    if embedded:
        entry: dict[str, Any] = {
            "filename": name or f"message-{position}.msg",
            "type": "application/vnd.ms-outlook",
        }
        if not fold:
            return entry, ""
        if depth + 1 > options.mail_max_depth:
            out.count("mail/capped/depth")
            return entry, ""
        out.count("mail/fold/attachments")
        texts = _read_msg(ole, inner, options=options, out=out, convert=convert, depth=depth + 1)
        return entry, "\n".join(texts)
    found = props.streams.get(_PR_ATTACH_DATA)
    size = ole.get_size(found[1]) if found is not None else 0
    entry = {"filename": name or f"attachment-{position}", "type": kind, "size": int(size)}
    if not fold or convert is None or found is None:
        return entry, ""
    if size > options.mail_max_part_bytes:
        out.count("mail/capped/bytes")
        return entry, ""
    data = _stream(ole, found[1])
    converted, why = convert(data, kind, str(entry["filename"]), options)
    if converted is None:
        out.count(f"mail/fold/{why or 'nothing'}")
        return entry, ""
    for key, n in converted.counts.items():
        out.count(key, n)
    out.count("mail/fold/attachments")
    return entry, converted.text.strip()


def msg_attachments(data: bytes, options: ConvertOptions) -> list[tuple[str, bytes, int]]:
    """An Outlook message's attached files, ``(name, bytes, size)``, for the embedded-files units
    (:mod:`trawl.convert.embedded`): at most one more than ``embedded_max_objects`` (so that the
    cap can be counted), one over ``embedded_max_bytes`` without its bytes (to be counted). An
    attached message (a storage, not a file) is read as the message's own text when folded, and
    is not a file here. An OLE file that is no message has none."""
    ole = _open(data)
    try:
        try:
            if ole_kind(ole.listdir(streams=True, storages=True)) != "msg":
                return []
        except _DAMAGE as exc:
            raise ConversionError(f"the OLE directory cannot be read: {exc}", "ole-damaged") from exc
        out: list[tuple[str, bytes, int]] = []
        for position, storage in enumerate(_storages(ole, [], "__attach_version1.0_#"), 1):
            if len(out) > options.embedded_max_objects:
                break
            props = _Props(ole, storage, 8)
            found = props.streams.get(_PR_ATTACH_DATA)
            if found is None:
                continue  # an attached message, or an attachment without data
            name = collapse(props.text(_PR_ATTACH_LONG_NAME, 4096) or props.text(_PR_ATTACH_NAME, 4096))
            size = int(ole.get_size(found[1]))
            blob = _stream(ole, found[1]) if size <= options.embedded_max_bytes else b""
            out.append((name or f"attachment-{position}", blob, size))
        return out
    finally:
        ole.close()


# --- LibreOffice ----------------------------------------------------------------------------------


def libreoffice_available() -> str | None:
    """The ``soffice`` program's path, or ``None`` when LibreOffice is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def _child_limits(max_memory: int) -> Callable[[], None]:
    def limit() -> None:  # runs in the child between fork and exec
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # die with the caller
        if max_memory > 0:
            with contextlib.suppress(ImportError, ValueError, OSError):
                import resource  # noqa: PLC0415  # POSIX only

                _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                cap = max_memory if hard == resource.RLIM_INFINITY else min(max_memory, hard)
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

    return limit


def libreoffice_convert(data: bytes, suffix: str, target: str, options: ConvertOptions) -> bytes:
    """``data`` (a file ending ``suffix``) converted by LibreOffice to ``target`` (``docx``, ``txt``...).

    Runs ``soffice --headless --convert-to`` in a temporary directory with a profile of its own,
    in a process group of its own, under ``options.libreoffice_timeout`` seconds and
    ``options.libreoffice_max_memory`` bytes of address space; the group is killed when it
    overruns (``libreoffice-timeout``) and after every run (LibreOffice leaves helpers behind).
    """
    program = libreoffice_available()
    if program is None:
        raise ConversionError("LibreOffice (soffice) is not installed", "libreoffice-missing")
    with tempfile.TemporaryDirectory(prefix="trawl-soffice-") as tmp:
        folder = Path(tmp)
        source = folder / f"input{suffix}"
        source.write_bytes(data)
        outdir = folder / "out"
        cmd = [
            program,
            "--headless",
            "--norestore",
            "--nolockcheck",
            "--nodefault",
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--convert-to",
            target,
            "--outdir",
            str(outdir),
            str(source),
        ]
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env["HOME"] = tmp  # nothing of the user's profile is read or written
        process = subprocess.Popen(  # a fixed program, with a file it wrote
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp,
            start_new_session=True,
            preexec_fn=_child_limits(options.libreoffice_max_memory),  # noqa: PLW1509  # one-threaded caller
        )
        try:
            _out, err = process.communicate(timeout=options.libreoffice_timeout)
        except subprocess.TimeoutExpired as exc:
            raise ConversionError(
                f"LibreOffice took longer than {options.libreoffice_timeout:g} s: stopped",
                "libreoffice-timeout",
            ) from exc
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        results = sorted(outdir.glob("input.*")) if outdir.is_dir() else []
        if not results:
            message = err.decode("utf-8", "replace").strip().splitlines()[-1:] if err else []
            raise ConversionError(
                f"LibreOffice made nothing of the file (exit {process.returncode}"
                f"{': ' + message[0][:300] if message else ''})",
                "libreoffice-failed",
            )
        return results[0].read_bytes()


def _through_libreoffice(data: bytes, kind: str, options: ConvertOptions) -> Converted:
    from trawl.convert.office import convert_docx, convert_pptx, convert_xlsx  # noqa: PLC0415

    suffix, target = LIBREOFFICE_TARGETS[kind]
    modern = libreoffice_convert(data, suffix, target, options)
    reader = {"docx": convert_docx, "xlsx": convert_xlsx, "pptx": convert_pptx}[target]
    out = reader(modern, options)
    out.metadata["converter"] = "libreoffice"
    return out


# --- the converter --------------------------------------------------------------------------------


def convert_ole(data: bytes, options: ConvertOptions, convert: PartConverter | None = None) -> Converted:
    """A legacy Office file or Outlook message to text (see the module docstring).

    ``convert`` converts a message's attachments when ``options.mail_attachments`` is ``"fold"``.
    """
    ole = _open(data)
    try:
        try:
            kind = ole_kind(ole.listdir(streams=True, storages=False))
        except _DAMAGE as exc:
            raise ConversionError(f"the OLE directory cannot be read: {exc}", "ole-damaged") from exc
        out = Converted()
        meta = _summary(ole)
        failure: ConversionError | None = None
        try:
            if options.libreoffice == "always" and kind in LIBREOFFICE_TARGETS and libreoffice_available():
                raise ConversionError("libreoffice = 'always'", "preferred")
            if kind == "doc":
                _read_doc(ole, options, out)
            elif kind == "xls":
                _read_xls(ole, options, out)
            elif kind == "ppt":
                _read_ppt(ole, options, out)
            elif kind == "msg":
                texts = _read_msg(ole, [], options=options, out=out, convert=convert, depth=0)
                out.text = "\n\n".join(t for t in texts if t)
                out.metadata["converter"] = "msg-properties"
            else:
                raise ConversionError(
                    "an OLE compound file of a kind trawl does not read", "unsupported-ole-kind"
                )
        except ConversionError as exc:
            failure = exc
        except _DAMAGE as exc:
            failure = ConversionError(f"{type(exc).__name__}: {exc}"[:500], f"{kind}-damaged")
    finally:
        ole.close()
    if failure is not None:
        if failure.reason == "encrypted" or kind not in LIBREOFFICE_TARGETS:
            raise failure
        if options.libreoffice == "never" or libreoffice_available() is None:
            raise failure
        out = _through_libreoffice(data, kind, options)
        out.count(f"{kind}/libreoffice/{failure.reason}")
        if failure.reason != "preferred":
            out.warnings.append(f"read by LibreOffice: {failure}")
    for key, value in meta.items():
        out.metadata.setdefault(key, value)
    out.metadata["ole_kind"] = kind
    if not out.title and kind != "msg":
        out.title = str(meta.get("title", ""))
    return out
