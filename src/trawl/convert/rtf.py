"""RTF to text and document properties, with a small tokenizer and no dependency.

RTF is a stream of groups ``{…}``, control words (``\\par``, ``\\u8364``, ``\\'e9``) and text.
The reader keeps a stack of group states (skipped or not, the ``\\ucN`` count of fallback
characters after a ``\\uN``) and:

* emits text for ordinary groups, a newline for ``\\par``/``\\line``/``\\row``/``\\sect``/``\\page``,
  a tab for ``\\tab``/``\\cell``, and the characters of ``\\'hh`` in the document's code page
  (``\\ansicpg``, windows-1252 when absent) and of ``\\uN`` (skipping the ``\\ucN`` fallback);
* skips destinations that are not text: font, colour and style tables, pictures, fields'
  instructions, ``\\*`` unknown destinations, headers and footers;
* reads ``{\\info …}`` for ``\\title``, ``\\author``, ``\\subject``, ``\\keywords``, ``\\creatim``
  and ``\\revtim`` (as ISO dates).

Work is linear in the input; nesting deeper than :data:`MAX_DEPTH` is refused.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from datetime import datetime
from typing import Any

from trawl.convert.base import ConversionError, Converted, ConvertOptions, cut_text

__all__ = ["MAX_DEPTH", "convert_rtf"]

MAX_DEPTH = 500

_TOKEN = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\([^a-zA-Z])|([{}])|([^\\{}\r\n]+)|[\r\n]+"
)
_SKIP_DESTINATIONS = frozenset(
    {
        "fonttbl", "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl", "rsidtbl",
        "pict", "object", "fldinst", "header", "headerl", "headerr", "headerf", "footer", "footerl",
        "footerr", "footerf", "themedata", "colorschememapping", "datastore", "latentstyles",
        "generator", "xmlnstbl", "mmathPr", "filetbl", "pgdsctbl", "bkmkstart", "bkmkend", "nonshppict",
        "shppict", "blipuid", "wgrffmtfilter", "operator", "company", "doccomm", "hlinkbase", "comment",
        "version", "vern", "edmins", "nofpages", "nofwords", "nofchars", "nofcharsws", "id", "printim",
        "buptim",
    }
)  # fmt: skip
_INFO_TEXT = {"title": "title", "author": "author", "subject": "subject", "keywords": "keywords",
              "operator": "last_modified_by"}  # fmt: skip
_INFO_DATES = {"creatim": "created", "revtim": "modified"}
_NEWLINES = frozenset({"par", "line", "row", "sect", "page", "outlinelevel"})
_SPECIALS = {"tab": "\t", "cell": "\t", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
             "lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d",
             "emspace": " ", "enspace": " ", "qmspace": " "}  # fmt: skip


class _State:
    __slots__ = ("dest", "skip", "uc")

    def __init__(self, skip: bool = False, uc: int = 1, dest: str = "") -> None:
        self.skip = skip
        self.uc = uc
        self.dest = dest


def convert_rtf(data: bytes, options: ConvertOptions) -> Converted:
    """RTF text and its ``\\info`` properties (see the module docstring)."""
    if not data.lstrip()[:5] == b"{\\rtf":
        raise ConversionError("not RTF: it does not start with '{\\rtf'", "rtf-malformed")
    codec = "cp1252"
    out: list[str] = []
    info_parts: dict[str, list[str]] = {}
    info_dates: dict[str, dict[str, int]] = {}
    stack: list[_State] = []
    state = _State()
    pending_skip = 0  # fallback characters still to skip after a \uN
    new_group = False
    hex_bytes = bytearray()

    def flush_hex() -> None:
        if hex_bytes:
            emit(codecs.decode(bytes(hex_bytes), codec, "replace"))
            hex_bytes.clear()

    def emit(text: str) -> None:
        if state.skip:
            return
        if state.dest in _INFO_TEXT:
            info_parts.setdefault(state.dest, []).append(text)
        elif state.dest == "":
            out.append(text)

    for m in _TOKEN.finditer(data):
        word, arg, hexa, symbol, brace, text = m.groups()
        if hexa is not None:
            if pending_skip:
                pending_skip -= 1
                continue
            hex_bytes.append(int(hexa, 16))
            new_group = False
            continue
        flush_hex()
        if brace is not None:
            pending_skip = 0
            if brace == b"{":
                if len(stack) >= MAX_DEPTH:
                    raise ConversionError(f"groups nested deeper than {MAX_DEPTH}", "rtf-too-deep")
                stack.append(state)
                state = _State(state.skip, state.uc, state.dest)
                new_group = True
            else:
                state = stack.pop() if stack else _State()
                new_group = False
            continue
        if word is not None:
            name = word.decode("ascii")
            first = new_group
            new_group = False
            if first and (name in _SKIP_DESTINATIONS or name in ("info", *_INFO_TEXT, *_INFO_DATES)):
                if name in _INFO_TEXT or name in _INFO_DATES:
                    state.dest = name
                    state.skip = False
                elif name == "info":
                    state.dest = "info"
                else:
                    state.skip = True
                if name in _INFO_DATES:
                    info_dates[_INFO_DATES[name]] = {}
                continue
            value = int(arg) if arg is not None else None
            if state.dest in _INFO_DATES and value is not None:
                info_dates[_INFO_DATES[state.dest]][name] = value
            elif name == "ansicpg" and value is not None:
                with contextlib.suppress(LookupError):
                    codec = codecs.lookup(f"cp{value}").name
            elif name == "uc" and value is not None:
                state.uc = max(0, value)
            elif name == "u" and value is not None:
                emit(chr(value % 65536 if value >= 0 else value + 65536))
                pending_skip = state.uc
            elif name in _NEWLINES:
                emit("\n")
            elif name in _SPECIALS:
                emit(_SPECIALS[name])
            continue
        if symbol is not None:
            sym = symbol.decode("latin-1")
            if sym == "*" and new_group:
                state.skip = True  # an ignorable destination this reader does not know
            elif sym in "\\{}":
                emit(sym)
            elif sym == "~":
                emit("\u00a0")
            elif sym == "-":
                pass  # optional hyphen
            elif sym == "_":
                emit("\u2011")
            elif sym in "\r\n":
                emit("\n")
            new_group = False
            continue
        if text is not None:
            new_group = False
            if pending_skip:
                skip = min(pending_skip, len(text))
                text = text[skip:]
                pending_skip -= skip
            if text:
                emit(text.decode(codec, "replace"))
    flush_hex()
    lines = [" ".join(line.split()) for line in "".join(out).split("\n")]
    result = Converted(text="\n".join(line for line in lines if line))
    meta: dict[str, Any] = {key: " ".join("".join(parts).split()) for key, parts in
                            ((_INFO_TEXT[k], v) for k, v in info_parts.items())}  # fmt: skip
    for key, fields in info_dates.items():
        try:
            meta[key] = datetime(fields["yr"], fields.get("mo", 1), fields.get("dy", 1), fields.get("hr", 0),
                                 fields.get("min", 0)).isoformat()  # fmt: skip
        except (KeyError, ValueError):
            continue
    result.metadata = {k: v for k, v in meta.items() if v}
    result.title = str(result.metadata.get("title", ""))
    result.text, capped = cut_text(result.text, options.max_chars)
    if capped:
        result.count("convert/capped")
        result.metadata["truncated"] = True
    return result
