"""What a payload really is, by its first bytes, and which type the pipeline acts on.

Servers lie about types (PDFs served as ``text/html``, HTML as ``application/octet-stream``, error
pages as ``image/png``), so every document is sniffed by magic number and markup patterns
(:func:`sniff_type`), and the declared and sniffed types are reconciled by
:func:`effective_type`: a binary signature (``%PDF-``, ``PK``, PNG...) always wins, markup found in
the bytes wins over a vaguer declaration, and for plain or unrecognised bytes the server's
declaration is trusted. The *families* of types (markup and text, PDF, zip containers, OLE
containers, gzip, images, RTF, mail) decide whether two types disagree: ``text/html`` vs
``application/xhtml+xml`` vs ``text/plain`` is no disagreement, ``text/html`` vs PDF bytes is.

Mail is recognised conservatively (:func:`sniff_mail`): an mbox (``application/mbox``) opens with
a ``From `` envelope line that carries a time and a year, followed by header fields; one message
(``message/rfc822``: an ``.eml``, a Maildir file) opens with a block of RFC 5322 header fields,
at least two of them ones every mail has (From, To, Subject, Date, Message-ID, Received,
Return-Path, MIME-Version, or fields only mail transport writes: Delivered-To, DKIM-Signature,
ARC-Seal…; named as mail software writes them, a capital first), ended by a blank line (or by the
end of the sniffed head). Text that starts "From here on…", HTTP headers after a status line or
a YAML file of ``key: value`` lines is none of these.

Pure functions of bytes and types, below every stage: the decoder, the converters and the
extractor ask :func:`effective_type` which type they act on; the
:class:`~trawl.convert.sniff.TypeSniffer` step reads only the head of the entity body
(:data:`SNIFF_BYTES`), decompressing no more of a gzip body than that.
"""

from __future__ import annotations

import re

from trawl.document import Document

__all__ = [
    "MAIL_TYPES",
    "SNIFF_BYTES",
    "effective_type",
    "informative_type",
    "is_html",
    "is_plain_text",
    "is_textual",
    "looks_like_message",
    "mbox_envelope_end",
    "sniff_mail",
    "sniff_type",
    "type_family",
    "types_disagree",
]

#: How much of the body is sniffed: the WHATWG MIME Sniffing Standard's resource header size.
SNIFF_BYTES = 1445

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x1f\x8b", "application/gzip"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"II*\x00", "image/tiff"),  # little-endian TIFF (scanners' multi-page output)
    (b"MM\x00*", "image/tiff"),
    (b"{\\rtf", "application/rtf"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),  # .doc .xls .ppt .msg
    (b"PK\x05\x06", "application/zip"),  # an empty archive
    # single-file compressors (gzip above): the bzip2 magic with its block-size digit and block magic
    (b"\x1f\x9d", "application/x-compress"),
    *((b"BZh%d1AY&SY" % level, "application/x-bzip2") for level in range(1, 10)),
    (b"\xfd7zXZ\x00", "application/x-xz"),
    (b"\x28\xb5\x2f\xfd", "application/zstd"),
    (b"\x04\x22\x4d\x18", "application/x-lz4"),
)

# WHATWG "identifying a resource with an unknown MIME type": these, after leading whitespace and
# followed by a space or ">", make a resource HTML.
_HTML_STARTS = tuple(
    b"<" + tag
    for tag in (
        b"!doctype html", b"html", b"head", b"script", b"iframe", b"h1", b"div", b"font", b"table",
        b"a", b"style", b"title", b"b", b"body", b"br", b"p", b"!--",
    )
)  # fmt: skip
_HTML_ANYWHERE = re.compile(rb"<(?:!doctype\s+html|html|head|body)[\s>]")
_WS = b"\t\n\x0c\r "
_XML_PROLOG = re.compile(
    rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!doctype\s+(html)?[^\[>]*(?:\[.*?\])?\s*>)", re.DOTALL
)
_XML_ROOT = re.compile(rb"\s*<(?:[a-z_][\w.-]*:)?([a-z_][\w.-]*)[\s>/]")
# WHATWG "binary data bytes": control characters that never occur in text.
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
_ODF = re.compile(rb"mimetype(application/(?:vnd\.oasis\.opendocument\.[a-z.-]+|epub\+zip))")
_OOXML = (
    (b"word/", "wordprocessingml.document"),
    (b"xl/", "spreadsheetml.sheet"),
    (b"ppt/", "presentationml.presentation"),
)


def _sniff_zip(head: bytes) -> str:
    """A zip archive, or the office format inside it when its first entries say so."""
    m = _ODF.match(head, 30)
    if m:
        return m.group(1).decode("ascii")
    if head[30:49] == b"[Content_Types].xml" or head[30:41] == b"_rels/.rels":
        for folder, kind in _OOXML:
            if folder in head[30:]:
                return f"application/vnd.openxmlformats-officedocument.{kind}"
    return "application/zip"


def _sniff_markup(lower: bytes) -> str | None:
    """HTML, XHTML or XML by the start of lower-cased, whitespace-stripped text."""
    if lower.startswith(b"<?xml"):
        # The root element decides: an XML archive or feed may well have <body> or <head> elements.
        pos = 0
        while (m := _XML_PROLOG.match(lower, pos)) is not None and m.end() > pos:
            if m.group(1) is not None:
                return "application/xhtml+xml"  # <!DOCTYPE html ...>
            pos = m.end()
        root = _XML_ROOT.match(lower, pos)
        if root is None:  # the head ends inside the prolog: guess from what is there
            if _HTML_ANYWHERE.search(lower):
                return "application/xhtml+xml"
            return "image/svg+xml" if b"<svg" in lower else "application/xml"
        name = root.group(1)
        if name == b"html":
            return "application/xhtml+xml"
        return "image/svg+xml" if name == b"svg" else "application/xml"
    for start in _HTML_STARTS:
        if lower.startswith(start) and lower[len(start) : len(start) + 1] in (b" ", b">"):
            return "text/html"
    if lower.startswith(b"<svg"):
        return "image/svg+xml"
    if _HTML_ANYWHERE.search(lower):  # pages that open with text, a comment or a stray tag
        return "text/html"
    return None


# An mbox's envelope line: "From " sender, then a date with a time and a year in any of the
# forms writers use ("Mon Jan  1 00:00:00 2024", "Tue Dec 12 01:39:36 +0000 2023", "- Sat ..."),
# then a line end. Three patterns searched in turn (:func:`_envelope_end`), not one with two lazy
# gaps: that one backtracked cubically on a long body line of times and numbers (22 s for 10 kB).
_ENVELOPE_START = re.compile(rb"From \S+ +")
_ENVELOPE_TIME = re.compile(rb"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_ENVELOPE_YEAR = re.compile(rb"\b\d{4}\b")
_LINE_BREAK = re.compile(rb"[\r\n]")
# One header field's first line: a name of printable ASCII but the colon, then the colon.
_FIELD = re.compile(rb"([!-9;-~]{1,76}):[^\r\n]*(?:\r?\n|$)")
_CONTINUATION = re.compile(rb"[ \t][^\r\n]*(?:\r?\n|$)")
_BLANK = re.compile(rb"\r?\n")
# Fields every real message has some of, as mail software spells them (a YAML file's "from:" and
# "to:" keys are lower case; an HTTP response shares only Date), and fields only mail transport
# writes (a Gmail message's first kilobytes are Received, ARC and DKIM lines).
_MAIL_FIELDS = frozenset(
    {
        b"from", b"to", b"subject", b"date", b"message-id", b"received", b"return-path", b"mime-version",
        b"cc", b"reply-to", b"in-reply-to", b"references", b"delivered-to", b"x-received",
        b"dkim-signature", b"arc-seal", b"authentication-results", b"received-spf", b"x-original-to",
    }
)  # fmt: skip


def _header_block(head: bytes, pos: int, *, need: int) -> bool:
    """Whether ``head[pos:]`` opens with header fields, ``need`` of them distinct mail fields with a
    capital first letter, ended by a blank line or cut off by the end of ``head``."""
    known: set[bytes] = set()
    fields = 0
    end = len(head)
    while pos < end:
        if end >= SNIFF_BYTES and head.find(b"\n", pos) < 0:
            break  # the head was cut inside this line
        m = _FIELD.match(head, pos)
        if m is not None:
            name = m.group(1)
            if name[:1].isupper() and name.lower() in _MAIL_FIELDS:
                known.add(name.lower())
            fields += 1
            pos = m.end()
            continue
        if fields and (c := _CONTINUATION.match(head, pos)) is not None:
            pos = c.end()
            continue
        blank = _BLANK.match(head, pos)
        return blank is not None and fields > 0 and len(known) >= need
    # the head ends inside the header block (long Received chains): judge what was seen
    return end >= SNIFF_BYTES and len(known) >= need


def _envelope_end(data: bytes, pos: int) -> int | None:
    """Where the envelope line at ``pos`` ends (after its ``\\n`` or ``\\r\\n``), or None."""
    start = _ENVELOPE_START.match(data, pos)
    if start is None:
        return None
    brk = _LINE_BREAK.search(data, start.end())
    if brk is None:
        return None
    stop = brk.start()
    if data.startswith(b"\r\n", stop):
        end = stop + 2
    elif data.startswith(b"\n", stop):
        end = stop + 1
    else:
        return None  # a lone CR
    when = _ENVELOPE_TIME.search(data, start.end(), stop)
    if when is None or _ENVELOPE_YEAR.search(data, when.end(), stop) is None:
        return None
    return end


def sniff_mail(head: bytes) -> str | None:
    """``application/mbox``, ``message/rfc822`` or ``None``: mail by its first bytes (see the
    module docstring); ``head`` is what :func:`sniff_type` sees (a kilobyte or two)."""
    if head.startswith(b"From "):
        envelope = _envelope_end(head, 0)
        if envelope is not None and _header_block(head, envelope, need=1):
            return "application/mbox"
        return None
    if _FIELD.match(head) is not None and _header_block(head, 0, need=2):
        return "message/rfc822"
    return None


def mbox_envelope_end(data: bytes, pos: int = 0, *, header: bool = True) -> int | None:
    """Where the mbox envelope line (``From sender date``) at ``pos`` ends, if one is there (and,
    with ``header``, a header field follows it); ``None`` otherwise (a body line "From here on…"
    is no envelope)."""
    envelope = _envelope_end(data, pos)
    if envelope is None or (header and _FIELD.match(data, envelope) is None):
        return None
    return envelope


def looks_like_message(head: bytes) -> bool:
    """A header block with at least one mail field: enough for bytes *declared* a message (a unit
    cut from an mbox, a part of type ``message/rfc822``) to be read as one."""
    return _FIELD.match(head) is not None and _header_block(head, 0, need=1)


def sniff_type(head: bytes) -> str:
    """The media type of a payload that starts with ``head`` (a kilobyte or two is enough).

    Empty input is ``application/x-empty``; bytes with no signature and no markup are
    ``text/plain`` when they contain no binary control bytes and ``application/octet-stream``
    otherwise.
    """
    if not head:
        return "application/x-empty"
    for magic, kind in _SIGNATURES:
        if head.startswith(magic):
            return kind
    if head.startswith(b"PK\x03\x04"):
        return _sniff_zip(head)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    text = head
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: look for markup in its characters
        codec = "utf-16-le" if head[0] == 0xFF else "utf-16-be"
        text = head[2 : len(head) & ~1].decode(codec, "replace").encode("utf-8", "replace")
    elif head.startswith(b"\xef\xbb\xbf"):
        text = head[3:]
    stripped = text.lstrip(_WS)
    if stripped.startswith(b"%PDF-"):
        return "application/pdf"
    if text is head and (mail := sniff_mail(head)) is not None:
        return mail  # before markup: a message's HTML body may be in the head
    markup = _sniff_markup(stripped[:SNIFF_BYTES].lower())
    if markup is not None:
        return markup
    if text is not head:
        return "text/plain"  # a byte-order mark is text by definition
    return "application/octet-stream" if _BINARY.search(head) else "text/plain"


_HTML = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_APPLICATION = frozenset(
    {
        "application/json", "application/javascript", "application/x-javascript", "application/ecmascript",
        "application/yaml", "application/x-yaml", "application/toml", "application/jsonl",
        "application/x-ndjson", "application/x-sh", "application/sql", "application/x-tex",
        "application/csv", "application/x-subrip",
    }
)  # fmt: skip
_ZIP = frozenset(
    {"application/zip", "application/x-zip", "application/x-zip-compressed", "application/java-archive",
     "application/vnd.apple.pages", "application/vnd.apple.numbers", "application/vnd.apple.keynote"}
)  # fmt: skip
_OFFICE_ZIP_PREFIXES = (
    "application/vnd.openxmlformats-officedocument.",
    "application/vnd.oasis.opendocument.",
)
_OLE = frozenset(
    {
        "application/x-ole-storage", "application/msword", "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint", "application/vnd.ms-office", "application/vnd.ms-outlook",
    }
)  # fmt: skip
_UNINFORMATIVE = frozenset(
    {
        "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown",
        "application/x-unknown", "*/*", "application/force-download", "application/x-download",
        "application/download", "application/binary",
    }
)  # fmt: skip
_MARKUP_AND_TEXT = frozenset({"html", "xml", "text"})
#: Mail: one message, or an mbox of them (text, but read by the mail converter, part by part).
MAIL_TYPES = frozenset({"message/rfc822", "message/global", "message/news", "application/mbox"})


def type_family(kind: str | None) -> str | None:
    """The family a media type belongs to: html, xml, text, rtf, pdf, zip, ole, gzip, image,
    mail, binary (unrecognised bytes), empty, or other (a type trawl knows nothing about)."""
    if kind is None:
        return None
    if kind in MAIL_TYPES:
        return "mail"
    if kind in _HTML:
        return "html"
    if kind in ("application/rtf", "text/rtf"):
        return "rtf"
    if kind in ("application/xml", "text/xml") or kind.endswith("+xml"):
        return "xml"
    if kind.startswith("text/") or kind.endswith("+json") or kind in _TEXT_APPLICATION:
        return "text"
    if kind in ("application/pdf", "application/x-pdf"):
        return "pdf"
    if kind in _ZIP or kind.endswith("+zip") or kind.startswith(_OFFICE_ZIP_PREFIXES):
        return "zip"
    if kind in _OLE:
        return "ole"
    if kind in ("application/gzip", "application/x-gzip"):
        return "gzip"
    if kind.startswith("image/"):
        return "image"
    if kind == "application/octet-stream":
        return "binary"
    if kind == "application/x-empty":
        return "empty"
    return "other"


def informative_type(kind: str | None) -> str | None:
    """A declared type, or ``None`` when it says nothing (``application/octet-stream``, junk)."""
    if not kind or "/" not in kind or kind in _UNINFORMATIVE:
        return None
    return kind


def types_disagree(declared: str | None, sniffed: str | None) -> bool:
    """Whether a declared and a sniffed type belong to different families.

    HTML, XML and plain text are one family for this purpose, and mail agrees with plain text (a
    message is text; the sniffer only calls it mail when it is sure). Unrecognised binary bytes disagree
    only with a textual declaration (trawl does not know every binary format), and an empty
    body disagrees with nothing.
    """
    declared = informative_type(declared)
    if declared is None or sniffed is None:
        return False
    sniffed_family = type_family(sniffed)
    declared_family = type_family(declared)
    if sniffed_family == "empty":
        return False
    if sniffed_family == "binary":
        return declared_family in _MARKUP_AND_TEXT
    if declared_family in _MARKUP_AND_TEXT and sniffed_family in _MARKUP_AND_TEXT:
        return False
    if {declared_family, sniffed_family} == {"mail", "text"}:
        return False
    return declared_family != sniffed_family


def effective_type(doc: Document) -> str | None:
    """The type the pipeline treats ``doc`` as, reconciling declared and sniffed types.

    A binary signature wins; markup found in the bytes wins, except that XML bytes keep a declared
    (X)HTML or XML type (it is the more specific); plain-text bytes take a recognised declared
    type (``text/css``, ``application/pdf``) and are ``text/plain`` otherwise; unrecognised bytes
    take the declared type. ``None`` means nothing is known (no sniffer ran and nothing was declared).
    """
    sniffed = doc.sniffed_type
    declared = informative_type(doc.content_type)
    if sniffed is None:
        return declared
    family = type_family(sniffed)
    if family == "xml" and type_family(declared) in ("html", "xml"):
        return declared  # XHTML, or the XML format the server names (RSS, Atom, SVG...)
    if family == "text":
        return declared if type_family(declared) not in (None, "other") else sniffed
    if family in ("binary", "empty"):
        return declared or sniffed
    if sniffed == "application/zip" and type_family(declared) == "zip":
        return declared  # the declaration names the format inside (docx, epub...)
    return sniffed


def is_html(kind: str | None) -> bool:
    """HTML or XHTML: what the HTML converter handles."""
    return type_family(kind) == "html"


def is_plain_text(kind: str | None) -> bool:
    """Plain or other non-markup text, or unknown: what the text converter handles."""
    return kind is None or type_family(kind) == "text"


def is_textual(kind: str | None) -> bool:
    """Characters rather than a binary format: worth decoding (markup, XML and text)."""
    return kind is None or type_family(kind) in _MARKUP_AND_TEXT
