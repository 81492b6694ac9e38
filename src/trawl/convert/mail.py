"""Mail: one message (RFC 5322 with MIME parts) or an mbox of them, to text and metadata.

A message is read with the standard library's parser (``email.policy.default``), which decodes
RFC 2047 encoded words in headers (``=?utf-8?q?…?=``) and never gives up on bad input: it records
*defects*. :func:`broken` says which defects leave nothing to read (no header fields, a multipart
whose boundary never occurs); every other defect is counted (``mail/defect/<kind>``) and the
message read as far as it goes.

The text of a message is its body: of a ``multipart/alternative`` the plain text rather than the
HTML, the HTML through trawl's page reader (:func:`~trawl.html.page.read_page`) when it is the
only body, and other inline text parts after it. Each text part is decoded by the charset its
``Content-Type`` names, through the same evidence chain as a web page
(:func:`~trawl.decode.charset.decode_html`): a charset nobody knows is counted
(``mail/charset/unknown``) and the bytes decoded by the evidence they give; a declaration the
bytes contradict is overruled (``mail/charset/overruled``); bytes no encoding reads become
U+FFFD (``mail/charset/lossy``). The title is the Subject; the metadata holds ``from``, ``to``,
``cc`` (addresses as written, encoded words decoded), ``date`` (ISO 8601), ``message_id``,
``in_reply_to``, ``references``, ``thread`` (the Message-ID of the thread's first message: the
first of References, else In-Reply-To, else the message's own) and ``attachments`` (``filename``,
``type``, ``size`` in decoded bytes).

Attachments are the parts a reader opens separately: a part marked ``attachment``, one with a file
name, an attached message, and any part that is not text, image, audio or video (an inline picture
without a name is neither text nor attachment). With ``mail_attachments = "units"`` (the default)
they are listed, and the units step (:mod:`trawl.units.mail`) makes each a document of its own;
with ``"fold"`` the converter converts each like any document of its format (through the
``convert`` function the registry hands it: PDF, DOCX, HTML, text, attached messages again, at
most ``mail_max_depth`` deep) and adds its text after the body, under its file name.

An mbox (:func:`split_mbox`) opens with a ``From `` envelope line (a sender, a time, a year)
followed by a header field, and is cut at each envelope line that follows a blank line; a body
line quoted as ``>From `` (mboxo, mboxrd) is unquoted (:func:`mbox_message`). Converted as a
whole (when the units step did not split it), its text is its messages' texts one after another.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email import errors as email_errors
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from typing import Any

from trawl.convert.base import ConversionError, Converted, ConvertOptions
from trawl.convert.meta import parse_date
from trawl.convert.text import normalize_text
from trawl.decode.charset import decode_html, lookup_label
from trawl.html.page import read_page
from trawl.sniff.magic import mbox_envelope_end

__all__ = [
    "MboxSpan",
    "MessageParts",
    "PartConverter",
    "attachment_name",
    "broken",
    "convert_email",
    "convert_mbox",
    "mbox_message",
    "message_bytes",
    "message_parts",
    "parse_message",
    "part_bytes",
    "size_estimate",
    "split_mbox",
]

#: Converts one attachment's bytes (declared type, file name, options) to a result and, when
#: there is none, the reason (``pdf-encrypted``, ``skipped``); the registry supplies it.
PartConverter = Callable[[bytes, str | None, str | None, ConvertOptions], tuple[Converted | None, str]]

# Regenerating an attached message's bytes: headers as they were parsed, not refolded.
_GENERATE = policy.default.clone(refold_source="none")
# Defects after which a message has nothing to read: a multipart whose parts cannot be found.
_FATAL = (
    email_errors.StartBoundaryNotFoundDefect,
    email_errors.NoBoundaryInMultipartDefect,
    email_errors.MultipartInvariantViolationDefect,
)
_MAIL_FIELDS = frozenset({"from", "to", "cc", "subject", "date", "message-id", "received", "return-path"})
_MSG_ID = re.compile(r"<[^<>\s]+>")
_MBOX_SEPARATOR = re.compile(rb"\n\r?\nFrom ")
_QUOTED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)
_NOT_ATTACHED = frozenset({"text/plain", "text/html"})
_INLINE_MEDIA = frozenset({"image", "audio", "video"})


def parse_message(data: bytes) -> EmailMessage:
    """``data`` as a message (``email.policy.default``); the parser records defects rather than
    raising, but a pathological input (nesting too deep for it) raises :class:`ConversionError`."""
    try:
        msg = BytesParser(policy=policy.default).parsebytes(data)
    except (RecursionError, MemoryError) as exc:
        raise ConversionError(
            f"a message too deeply nested to parse: {type(exc).__name__}", "email-broken"
        ) from exc
    assert isinstance(msg, EmailMessage)  # policy.default makes EmailMessage objects
    return msg


def broken(msg: Message) -> str | None:
    """Why ``msg`` cannot be read as a message (see the module docstring), or ``None``."""
    names = [str(k).lower() for k in msg]
    if not names:
        head = msg.get_payload()
        shown = head[:60] if isinstance(head, str) else ""
        return f"no header fields (it starts {shown!r})"
    if not _MAIL_FIELDS.intersection(names):
        return f"no mail header field among {sorted(set(names))[:8]}"
    for part in _own_parts(msg):
        for defect in part.defects:
            if isinstance(defect, _FATAL):
                return f"{type(defect).__name__} in its {part.get_content_type()} part"
    return None


def _own_parts(msg: Message) -> Iterator[Message]:
    """``msg`` and its parts, not descending into attached messages (they are read on their own)."""
    yield msg
    if msg.get_content_maintype() == "multipart" and msg.is_multipart():
        for sub in msg.get_payload():
            if isinstance(sub, Message):
                yield from _own_parts(sub)


@dataclass(slots=True)
class MessageParts:
    """A message's text parts (in reading order) and its attachments."""

    bodies: list[Message] = field(default_factory=list)
    attachments: list[Message] = field(default_factory=list)


def _is_attachment(part: Message) -> bool:
    ctype = part.get_content_type()
    if part.get_content_disposition() == "attachment" or part.get_content_maintype() == "message":
        return True
    if _filename(part):
        return True
    return ctype not in _NOT_ATTACHED and part.get_content_maintype() not in _INLINE_MEDIA


def _filename(part: Message) -> str | None:
    try:
        name = part.get_filename()
    except Exception:  # a malformed parameter is no name, not a failure
        return None
    if not name:
        return None
    return " ".join(name.split()) or None


def attachment_name(part: Message, position: int) -> str:
    """An attachment's file name, or ``attachment-<position>`` when it has none."""
    return _filename(part) or f"attachment-{position}"


_HEADER_END = re.compile(rb"\r?\n\r?\n")


def part_spans(data: bytes, msg: Message) -> dict[int, tuple[int, int]]:
    """Where each MIME part of ``msg`` (parsed from ``data``) lies in ``data``: ``id(part)`` →
    ``(start, end)``, its header lines and encoded body, found by the multipart boundaries (the
    parser keeps no offsets). A multipart whose delimiters do not match its parts (a broken
    message) gives its parts none."""
    spans: dict[int, tuple[int, int]] = {}

    def visit(part: Message, start: int, end: int, depth: int) -> None:
        spans[id(part)] = (start, end)
        if depth > 50:
            return
        head = _HEADER_END.search(data, start, end)
        body = head.end() if head is not None else end
        if part.get_content_maintype() == "message" and part.is_multipart():
            inner = part.get_payload(0)
            if isinstance(inner, Message):
                visit(inner, body, end, depth + 1)
            return
        if part.get_content_maintype() != "multipart" or not part.is_multipart():
            return
        boundary = part.get_boundary()
        children = [c for c in part.get_payload() if isinstance(c, Message)]
        if not boundary or not children:
            return
        delimiter = re.compile(
            rb"(?m)^--" + re.escape(boundary.encode("ascii", "replace")) + rb"(--)?[ \t]*\r?$"
        )
        lines = list(delimiter.finditer(data, body, end))
        if len(lines) < len(children) + 1:
            return
        for child, (opening, closing) in zip(children, itertools.pairwise(lines), strict=False):
            child_start = opening.end() + (2 if data[opening.end() : opening.end() + 2] == b"\r\n" else 1)
            child_end = closing.start()
            child_end -= 2 if data[child_end - 2 : child_end] == b"\r\n" else 1  # the CRLF is the delimiter's
            if child_start <= child_end:
                visit(child, child_start, max(child_start, child_end), depth + 1)

    visit(msg, 0, len(data), 0)
    return spans


def message_parts(msg: Message) -> MessageParts:
    """The text parts and the attachments of ``msg`` (see the module docstring)."""
    out = MessageParts()
    _walk(msg, out)
    return out


def _walk(part: Message, out: MessageParts) -> None:
    if part.get_content_maintype() == "multipart" and part.is_multipart():
        subs = [s for s in part.get_payload() if isinstance(s, Message)]
        if part.get_content_subtype() == "alternative" and subs:
            _walk(_choose(subs), out)
            return
        for sub in subs:
            _walk(sub, out)
        return
    if _is_attachment(part):
        out.attachments.append(part)
    elif part.get_content_type() in _NOT_ATTACHED:
        out.bodies.append(part)


def _choose(alternatives: list[Message]) -> Message:
    """The alternative read: plain text, else HTML, else a multipart holding them, else the last."""
    for wanted in ("text/plain", "text/html"):
        for sub in alternatives:
            if sub.get_content_type() == wanted and not _is_attachment(sub):
                return sub
    for sub in alternatives:
        if sub.get_content_maintype() == "multipart":
            return sub
    return alternatives[-1]


def part_bytes(part: Message) -> bytes:
    """A leaf part's content with its transfer encoding (base64, quoted-printable) undone; an
    attached message's bytes (:func:`message_bytes`)."""
    if part.get_content_maintype() == "message" and part.is_multipart():
        return message_bytes(part)
    try:
        data = part.get_payload(decode=True)
    except Exception:  # the parser's decoders record defects; this is belt and braces
        return b""
    return data if isinstance(data, bytes) else b""


def bounded_part_bytes(part: Message, max_bytes: int) -> bytes | None:
    """:func:`part_bytes`, or ``None`` when the part is over ``max_bytes`` (by its encoded size,
    before decoding it, or decoded)."""
    if size_estimate(part) > max_bytes:
        return None
    data = part_bytes(part)
    return None if len(data) > max_bytes else data


def message_bytes(part: Message) -> bytes:
    """The bytes of the message attached as ``part`` (``message/rfc822``), regenerated from its
    parse with the headers as they were; ``b""`` when there is none or it cannot be written."""
    inner = part.get_payload(0) if part.is_multipart() else None
    if not isinstance(inner, Message):
        payload = part.get_payload(decode=True)
        return payload if isinstance(payload, bytes) else b""
    try:
        return inner.as_bytes(policy=_GENERATE)
    except Exception:  # the generator refuses some headers the parser let through
        try:
            return inner.as_bytes(policy=policy.compat32)
        except Exception:
            return b""


def size_estimate(part: Message) -> int:
    """About how many bytes a leaf part decodes to, without decoding it."""
    raw = part.get_payload()
    if not isinstance(raw, str):
        return 0
    if str(part.get("content-transfer-encoding", "")).strip().lower() == "base64":
        return len(raw) * 3 // 4
    return len(raw)


# -- headers -----------------------------------------------------------------------------------


def _collapse(text: str) -> str:
    if not text.isascii():  # raw 8-bit bytes in a header come as surrogates: read them as UTF-8
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return " ".join(text.split())


def _raw_header(msg: Message, name: str) -> str | None:
    """A header's value decoded by hand, for one the policy's parser failed on."""
    for key, value in msg.raw_items():
        if str(key).lower() == name.lower():
            try:
                return _collapse(str(make_header(decode_header(str(value)))))
            except Exception:  # a bad encoded word: the value as written
                return _collapse(str(value))
    return None


def _header(msg: Message, name: str, counts: Converted) -> str | None:
    try:
        value = msg.get(name)
        return None if value is None else _collapse(str(value))
    except Exception:  # the header parser of email has crashed on odd input
        counts.count("mail/header-unparsed")
        return _raw_header(msg, name)


def _addresses(msg: Message, name: str, counts: Converted) -> list[str]:
    try:
        out: list[str] = []
        for value in msg.get_all(name) or []:
            found = getattr(value, "addresses", None)
            if found:
                out.extend(_collapse(str(a)) for a in found)
            elif _collapse(str(value)):
                out.append(_collapse(str(value)))
        return out
    except Exception:
        counts.count("mail/header-unparsed")
        raw = _raw_header(msg, name)
        return [raw] if raw else []


def _ids(value: str | None) -> list[str]:
    if not value:
        return []
    found = _MSG_ID.findall(value)
    return found or value.split()


def header_metadata(msg: Message, counts: Converted) -> dict[str, Any]:
    """The metadata a message's headers give (see the module docstring)."""
    meta: dict[str, Any] = {}
    sender = _addresses(msg, "from", counts)
    if sender:
        meta["from"] = ", ".join(sender)
    for name in ("to", "cc"):
        found = _addresses(msg, name, counts)
        if found:
            meta[name] = found
    date_value = _header(msg, "date", counts)
    if date_value:
        when = parse_date(date_value)
        if when is None:
            counts.count("mail/bad-date")
        else:
            meta["date"] = when.isoformat()
    own = _ids(_header(msg, "message-id", counts))
    replied = _ids(_header(msg, "in-reply-to", counts))
    references = _ids(_header(msg, "references", counts))
    if own:
        meta["message_id"] = own[0]
    if replied:
        meta["in_reply_to"] = replied[0]
    if references:
        meta["references"] = references
    thread = references or replied or own
    if thread:
        meta["thread"] = thread[0]
    return meta


# -- bodies ------------------------------------------------------------------------------------


def _charset(part: Message, counts: Converted) -> str | None:
    try:
        label = part.get_content_charset()
    except Exception:
        label = None
    if not label:
        return None
    if lookup_label(label) is not None:
        return label
    try:
        codecs.lookup(label)
    except (LookupError, ValueError):
        counts.count("mail/charset/unknown")
        return None
    return label


def part_text(part: Message, options: ConvertOptions, counts: Converted) -> tuple[str, list[tuple[str, str]]]:
    """A text part's characters (HTML read as a page), and its links."""
    data = part_bytes(part)
    html = part.get_content_subtype() == "html"
    charset = _charset(part, counts)
    declared = f"{part.get_content_type()}; charset={charset}" if charset else None
    decoded = decode_html(data, declared, html=html)
    if decoded.overruled:
        counts.count("mail/charset/overruled")
    if decoded.errors:
        counts.count("mail/charset/lossy")
    if not html:
        return normalize_text(decoded.text).strip(), []
    page = read_page(
        decoded.text, options.url or "about:blank", max_chars=options.max_chars, max_links=options.max_links
    )
    return page.text, [(link.url, link.text) for link in page.links]


def _attachment_entry(part: Message, position: int) -> dict[str, Any]:
    return {
        "filename": attachment_name(part, position),
        "type": part.get_content_type(),
        "size": len(part_bytes(part)),
    }


def convert_email(data: bytes, options: ConvertOptions, convert: PartConverter | None = None) -> Converted:
    """One message to text, title (its Subject) and metadata (see the module docstring);
    ``convert`` converts attachments when ``options.mail_attachments`` is ``"fold"``."""
    msg = parse_message(data)
    why = broken(msg)
    if why is not None:
        raise ConversionError(f"not a readable message: {why}", "email-broken")
    out = Converted()
    for part in _own_parts(msg):
        for defect in part.defects:
            out.count(f"mail/defect/{type(defect).__name__}")
    out.metadata.update(header_metadata(msg, out))
    out.title = _header(msg, "subject", out) or ""
    parts = message_parts(msg)
    texts: list[str] = []
    for part in parts.bodies:
        text, links = part_text(part, options, out)
        if text:
            texts.append(text)
        out.links.extend(links)
    attachments = parts.attachments
    if len(attachments) > options.mail_max_attachments:
        out.count("mail/capped/attachments")
        out.metadata["attachments_total"] = len(attachments)
        attachments = attachments[: options.mail_max_attachments]
    if attachments:
        out.metadata["attachments"] = [_attachment_entry(p, i) for i, p in enumerate(attachments, 1)]
    if options.mail_attachments == "fold" and convert is not None:
        texts.extend(_fold(attachments, options, convert, out))
    out.text = "\n\n".join(texts)
    return out


def _fold(
    attachments: list[Message], options: ConvertOptions, convert: PartConverter, out: Converted
) -> Iterator[str]:
    """The text of each attachment, under its file name, for ``mail_attachments = "fold"``."""
    for position, part in enumerate(attachments, 1):
        name = attachment_name(part, position)
        if part.get_content_maintype() == "message" and options.mail_depth + 1 > options.mail_max_depth:
            out.count("mail/capped/depth")
            continue
        data = bounded_part_bytes(part, options.mail_max_part_bytes)
        if data is None:
            out.count("mail/capped/bytes")
            continue
        inner = ConvertOptions(
            url=options.url,
            max_chars=options.max_chars,
            max_pages=options.max_pages,
            mail_attachments=options.mail_attachments,
            mail_max_attachments=options.mail_max_attachments,
            mail_max_messages=options.mail_max_messages,
            mail_max_part_bytes=options.mail_max_part_bytes,
            mail_max_depth=options.mail_max_depth,
            mail_depth=options.mail_depth + 1,
        )
        declared = part.get_content_type()
        converted, why = convert(data, declared, name, inner)
        if converted is None:
            out.count(f"mail/fold/{why or 'nothing'}")
            continue
        for key, n in converted.counts.items():
            out.count(key, n)
        out.count("mail/fold/attachments")
        text = converted.text.strip()
        if text:
            yield f"{name}\n{text}"


# -- mbox --------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class MboxSpan:
    """One message of an mbox: its envelope line and the span of its bytes after it."""

    envelope: str
    start: int
    end: int


def split_mbox(data: bytes) -> list[MboxSpan]:
    """The messages of an mbox, in order (see the module docstring); none if ``data`` does not
    open with an envelope line."""
    first = mbox_envelope_end(data, 0)
    if first is None:
        return []
    bounds: list[tuple[int, int]] = [(0, first)]  # (envelope start, envelope end)
    for m in _MBOX_SEPARATOR.finditer(data, first):
        at = m.end() - 5
        # after a blank line an envelope line starts a message, whatever follows it (garbage
        # there makes a broken message, counted, not a longer previous one)
        end = mbox_envelope_end(data, at, header=False)
        if end is not None:
            bounds.append((at, end))
    spans: list[MboxSpan] = []
    for i, (at, start) in enumerate(bounds):
        if i + 1 < len(bounds):
            nxt = bounds[i + 1][0]
            end = data.rfind(b"\n", start, nxt - 1) + 1  # keep the body's last line end, not the blank line
            end = max(end, start)
        else:
            end = len(data)
            if data.endswith(b"\r\n\r\n"):
                end -= 2
            elif data.endswith(b"\n\n"):
                end -= 1
        envelope = data[at:start].rstrip(b"\r\n").decode("latin-1")
        spans.append(MboxSpan(envelope, start, end))
    return spans


def mbox_message(data: bytes, span: MboxSpan) -> bytes:
    """The bytes of one message of an mbox, its ``>From `` lines unquoted (mboxo, mboxrd)."""
    chunk = data[span.start : span.end]
    if b">From " in chunk:
        chunk = _QUOTED_FROM.sub(rb"\1", chunk)
    return chunk


def convert_mbox(data: bytes, options: ConvertOptions, convert: PartConverter | None = None) -> Converted:
    """An mbox as one document: its messages' titles and texts, one after another (what an mbox
    becomes when the units step does not split it); ``metadata["messages"]`` counts them."""
    spans = split_mbox(data)
    out = Converted()
    out.metadata["messages"] = len(spans)
    texts: list[str] = []
    size = 0
    for i, span in enumerate(spans):
        if i >= options.mail_max_messages:
            out.count("mail/capped/messages")
            break
        if size > options.max_chars:
            break  # the rest would be cut anyway
        try:
            message = convert_email(mbox_message(data, span), options, convert)
        except ConversionError:
            out.count("mail/broken")
            continue
        for key, n in message.counts.items():
            out.count(key, n)
        block = "\n".join(x for x in (message.title, message.text) if x)
        texts.append(block)
        size += len(block)
    out.text = "\n\n".join(texts)
    return out
