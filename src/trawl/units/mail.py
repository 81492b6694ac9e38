"""Mail as document units: an mbox's messages, and a message's attachments, documents of their own.

:class:`MailUnits` is the first step of ingest's pipeline (before the type sniffer), so every
unit it makes goes through sniffing, decoding and conversion like any document. For a document
whose bytes sniff as mail (:func:`~trawl.sniff.magic.sniff_mail`, or declared a message and
opening with a header block):

* an **mbox** passes on as the *container* (``metadata["format"] = "mbox"``, ``metadata["units"]``
  = the messages found, and ``units_broken``/``units_capped`` when some were not made units; the
  format converter leaves its text empty, ``convert/container``), followed by one unit per
  message: ``raw`` = the message's bytes with ``>From `` lines unquoted, ``span`` = its bytes in
  the mbox's body (after the envelope line, before the blank line that ends it; the envelope line
  is kept as ``metadata["envelope"]``);
* a **message** (the mbox's, or a file's: ``.eml``, Maildir) is followed by one unit per
  attachment (:func:`~trawl.convert.mail.message_parts`): ``raw`` = the part decoded (base64,
  quoted-printable undone), declared as its ``Content-Type`` (charset included, as an HTTP header
  would be), ``metadata["filename"]`` its file name; an attached message (``message/rfc822``) is
  a message unit again, with attachments of its own, at most ``max_depth`` deep. With
  ``attachments = "fold"`` no attachment units are made: the message converter folds their text
  into the message's.

Every unit carries ``metadata["unit"] = {"parent", "kind", "position", "span", "root"}``: the
parent's URL, ``"message"`` or ``"attachment"``, its position among its parent's units (from 1),
``[start, end]`` in the parent's bytes for an mbox's message (``None`` for a MIME part: the
parser keeps no offsets) and the URL of the file or capture everything was cut from. Its URL is
the parent's with a unit fragment (``#unit=msg-3``, ``#unit=msg-3/att-1``, ``#unit=att-2`` for a
file's own message), its capture time the parent's.

Bad input is counted, never raised: a message the parser cannot read (no header fields, a
multipart whose boundary never occurs: :func:`~trawl.convert.mail.broken`) is dropped with
reason ``units/mail-broken`` and counted ``units/mail/broken``, the rest of its mbox kept; the
bounds (messages per mbox, attachments per message, decoded bytes of one attachment, depth of
attached messages) are counted when hit: ``units/mail/capped/messages``, ``…/attachments``,
``…/bytes``, ``…/depth``. Units made are counted ``units/mail/messages`` and
``units/mail/attachments``; containers ``units/mail/mbox``.
"""

from __future__ import annotations

from collections.abc import Iterator
from email.message import Message
from typing import Any, ClassVar

from trawl.convert.base import ConversionError
from trawl.convert.mail import (
    attachment_name,
    bounded_part_bytes,
    broken,
    mbox_message,
    message_parts,
    parse_message,
    part_spans,
    split_mbox,
)
from trawl.decode.charset import body_of
from trawl.decode.http import DEFAULT_MAX_BYTES, entity_body
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.pipeline.base import FanOutStep
from trawl.sniff.magic import (
    MAIL_TYPES,
    SNIFF_BYTES,
    informative_type,
    looks_like_message,
    sniff_mail,
)
from trawl.urls import unit_root, unit_url

__all__ = ["MailUnits"]

MBOX = "application/mbox"
MESSAGE = "message/rfc822"


class MailUnits(FanOutStep):
    """Splits mail into document units (see the module docstring)."""

    name: ClassVar[str] = "units"

    def __init__(
        self,
        *,
        attachments: str = "units",
        max_messages: int = 100_000,
        max_attachments: int = 100,
        max_part_bytes: int = 50 * 1024 * 1024,
        max_depth: int = 3,
        max_body_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if attachments not in ("units", "fold"):
            raise ConfigError(f"units.mail_attachments = {attachments!r}: choose 'units' or 'fold'")
        if min(max_messages, max_attachments, max_part_bytes, max_body_bytes) < 1 or max_depth < 0:
            raise ConfigError(
                "units: max_messages, max_attachments and max_part_bytes must be at least 1, "
                f"max_depth at least 0 (not {max_messages}, {max_attachments}, {max_part_bytes}, {max_depth})"
            )
        self.fold = attachments == "fold"
        self.max_messages = max_messages
        self.max_attachments = max_attachments
        self.max_part_bytes = max_part_bytes
        self.max_depth = max_depth
        self.max_body_bytes = max_body_bytes

    def kind(self, doc: Document) -> str | None:
        """``application/mbox``, ``message/rfc822`` or ``None``: what the units step makes of ``doc``."""
        if doc.record_type not in ("response", "resource") or not doc.raw:
            return None
        head = entity_body(doc, self.max_body_bytes, limit=SNIFF_BYTES).data
        found = sniff_mail(head)
        if found is not None:
            return found
        declared = informative_type(doc.content_type)
        if declared in MAIL_TYPES and declared != MBOX and looks_like_message(head):
            return MESSAGE
        return None

    def split(self, doc: Document) -> Iterator[Document]:
        """``doc`` and its units; only ``doc`` when it is not mail."""
        kind = self.kind(doc)
        if kind is None:
            yield doc
            return
        data = body_of(doc, self, self.max_body_bytes)
        if kind == MBOX:
            yield from self._mbox(doc, data)
            return
        try:
            msg = parse_message(data)
            why = broken(msg)
        except ConversionError as exc:
            why = str(exc)
        if why is not None:
            self._broken(doc, doc.url, why, data)
            doc.dropped = "units/mail-broken"
            return
        yield doc
        if not self.fold:
            yield from self._attachments(doc, msg, 0, data)

    def _mbox(self, doc: Document, data: bytes) -> Iterator[Document]:
        spans = split_mbox(data)
        root = unit_root(doc.url)
        units: list[Document] = []
        broken_count = 0
        for position, span in enumerate(spans, 1):
            if position > self.max_messages:
                self.count("units/mail/capped/messages")
                doc.metadata["units_capped"] = len(spans) - self.max_messages
                break
            raw = mbox_message(data, span)
            url = unit_url(doc.url, f"msg-{position}")
            try:
                msg = parse_message(raw)
                why = broken(msg)
            except ConversionError as exc:
                why = str(exc)
            if why is not None:
                self._broken(doc, url, why, raw)
                broken_count += 1
                continue
            unit = self._unit(
                doc,
                url,
                raw,
                kind="message",
                position=position,
                span=[span.start, span.end],
                root=root,
                declared=MESSAGE,
            )
            unit.metadata["envelope"] = span.envelope
            self.count("units/mail/messages")
            units.append(unit)
            if not self.fold:
                units.extend(self._attachments(unit, msg, 0))
        doc.metadata["format"] = "mbox"
        doc.metadata["units"] = len(spans)
        if broken_count:
            doc.metadata["units_broken"] = broken_count
        self.count("units/mail/mbox")
        yield doc
        yield from units

    def _attachments(
        self, parent: Document, msg: Message, depth: int, data: bytes | None = None
    ) -> Iterator[Document]:
        """The units of ``msg``'s attachments (``msg`` parsed from ``data``, the parent's bytes,
        which their spans are in: ``parent.raw`` unless given); ``depth`` is how deep ``msg`` is
        attached."""
        root = unit_root(parent.url)
        spans = part_spans(parent.raw if data is None else data, msg)
        for position, part in enumerate(message_parts(msg).attachments, 1):
            where = spans.get(id(part))
            span = list(where) if where is not None else None
            if position > self.max_attachments:
                self.count("units/mail/capped/attachments")
                break
            url = unit_url(parent.url, f"att-{position}")
            attached = part.get_content_maintype() == "message" and part.is_multipart()
            if attached and depth + 1 > self.max_depth:
                self.count("units/mail/capped/depth")
                continue
            raw = bounded_part_bytes(part, self.max_part_bytes)
            if raw is None:
                self.count("units/mail/capped/bytes")
                continue
            if attached:
                inner = part.get_payload(0)
                assert isinstance(inner, Message)
                why = broken(inner)
                if why is None and not raw:  # parsed, but too deeply nested to be written back
                    why = "its bytes cannot be written back from the parse (nested too deep)"
                if why is not None:
                    self._broken(parent, url, why, raw)
                    continue
                unit = self._unit(
                    parent,
                    url,
                    raw,
                    kind="message",
                    position=position,
                    span=span,
                    root=root,
                    declared=MESSAGE,
                )
                unit.metadata["filename"] = attachment_name(part, position)
                self.count("units/mail/messages")
                yield unit
                # its attachments' spans are in its own bytes (regenerated from the parse): read
                # them from those
                yield from self._attachments(unit, parse_message(raw), depth + 1)
                continue
            content_type = str(part.get("content-type") or part.get_content_type())
            unit = self._unit(
                parent,
                url,
                raw,
                kind="attachment",
                position=position,
                span=span,
                root=root,
                declared=part.get_content_type(),
                headers=[("Content-Type", " ".join(content_type.split()))],
            )
            unit.metadata["filename"] = attachment_name(part, position)
            self.count("units/mail/attachments")
            yield unit

    @staticmethod
    def _unit(
        parent: Document,
        url: str,
        raw: bytes,
        *,
        kind: str,
        position: int,
        span: list[int] | None,
        root: str,
        declared: str,
        headers: list[tuple[str, str]] | None = None,
    ) -> Document:
        metadata: dict[str, Any] = {
            "unit": {"parent": parent.url, "kind": kind, "position": position, "span": span, "root": root},
            "size": len(raw),
        }
        for key in ("path", "access"):  # where it came from, and who may read it: its file's
            if key in parent.metadata:
                metadata[key] = parent.metadata[key]
        return Document(
            url=url,
            raw=raw,
            record_type="resource",
            fetched_at=parent.fetched_at,
            source=parent.source,
            declared_type=declared,
            http_headers=headers or [],
            metadata=metadata,
        )

    def _broken(self, parent: Document, url: str, why: str, raw: bytes) -> None:
        self.count("units/mail/broken")
        if self.ctx is not None:
            message = f"{why}; its bytes start {raw[:80]!r}"
            self.ctx.drop(self.name, "units/mail-broken", message, url=url, source=parent.source)
