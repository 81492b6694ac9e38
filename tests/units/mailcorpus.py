"""Real-shaped mail for the tests, built with the standard library's ``email`` package.

:func:`inbox` is an mbox (mboxrd quoting) of six messages: a multipart/alternative with encoded
headers; a reply with a PDF (reportlab), a DOCX (python-docx), an HTML and a Latin-1 text
attachment and a body line "From here on" that the mbox quotes; a truncated multipart whose
boundary never occurs (broken); a reply to the reply forwarding a message that has an attachment
of its own, in a charset nobody knows; a message of garbage after its envelope line (broken); and
an HTML-only message. The PDF and DOCX writers are the ``convert-test`` extra's. Each is made once
a run (MIME boundaries and PDF ids are random), so the same bytes come back every time.
"""

from __future__ import annotations

import functools
import io
import re
from email.message import EmailMessage
from email.policy import SMTP

ENVELOPE = b"From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n"
PDF_TEXT = "Quarterly figures for the harbour authority"
DOCX_TEXT = "Minutes of the lighthouse keepers meeting"


@functools.cache
def pdf_bytes(text: str = PDF_TEXT) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    page = canvas.Canvas(buf, pagesize=A4)
    page.drawString(72, 760, text)
    page.showPage()
    page.save()
    return buf.getvalue()


@functools.cache
def docx_bytes(text: str = DOCX_TEXT) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _bytes(msg: EmailMessage) -> bytes:
    return msg.as_bytes(policy=SMTP.clone(linesep="\n"))


@functools.cache
def alternative() -> bytes:
    """Message 1: text and HTML alternatives; RFC 2047 Subject (utf-8, Q) and From (Latin-1, B)."""
    raw = (
        b"From: =?iso-8859-1?b?SvZyZyBN/GxsZXI=?= <jm@example.de>\n"
        b"To: Ann Lee <ann@example.org>, bob@example.org\n"
        b"Cc: Carol <carol@example.org>\n"
        b"Subject: =?utf-8?q?Caf=C3=A9_menu_for_Friday?=\n"
        b"Date: Tue, 02 Jan 2024 10:00:00 +0100\n"
        b"Message-ID: <m1@example.de>\n"
        b"MIME-Version: 1.0\n"
        b'Content-Type: multipart/alternative; boundary="ALT1"\n'
        b"\n"
        b"--ALT1\n"
        b"Content-Type: text/plain; charset=utf-8\n"
        b"Content-Transfer-Encoding: quoted-printable\n"
        b"\n"
        b"The caf=C3=A9 serves soup and plain bread on Friday.\n"
        b"--ALT1\n"
        b"Content-Type: text/html; charset=utf-8\n"
        b"\n"
        b"<html><body><p>The HTML rendering <b>only</b> says lunch.</p></body></html>\n"
        b"--ALT1--\n"
    )
    return raw


@functools.cache
def with_attachments() -> bytes:
    """Message 2: a reply with four attachments in three formats and a quoted "From " line."""
    msg = EmailMessage()
    msg["From"] = "Ann Lee <ann@example.org>"
    msg["To"] = "jm@example.de"
    msg["Subject"] = "Re: Café menu for Friday"
    msg["Date"] = "Tue, 02 Jan 2024 11:30:00 +0000"
    msg["Message-ID"] = "<m2@example.org>"
    msg["In-Reply-To"] = "<m1@example.de>"
    msg["References"] = "<m1@example.de>"
    msg.set_content("Thanks, the figures are attached.\nFrom here on we meet at noon.\n")
    msg.add_attachment(pdf_bytes(), maintype="application", subtype="pdf", filename="figures.pdf")
    msg.add_attachment(
        docx_bytes(),
        maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="minutes.docx",
    )
    msg.add_attachment(
        "<html><head><title>Notes</title></head><body><p>Harbour notes in HTML.</p></body></html>",
        subtype="html",
        filename="notes.html",
    )
    msg.add_attachment(
        "Déjà vu in Latin-1.\n".encode("iso-8859-1"),
        maintype="text",
        subtype="plain",
        filename="latin.txt",
        params={"charset": "iso-8859-1"},
    )
    return _bytes(msg)


@functools.cache
def truncated_multipart() -> bytes:
    """Message 3 (broken): a multipart whose declared boundary never occurs, cut off."""
    return (
        b"From: mallory@example.net\n"
        b"To: ann@example.org\n"
        b"Subject: cut off\n"
        b"Message-ID: <m3@example.net>\n"
        b"MIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="AAA"\n'
        b"\n"
        b"--BBB\n"
        b"Content-Type: text/plain\n"
        b"\n"
        b"half a messa"
    )


@functools.cache
def forwarded() -> bytes:
    """Message 4: a reply to message 2 forwarding a message that has an attachment of its own;
    its body in a charset nobody knows."""
    inner = EmailMessage()
    inner["From"] = "Dan <dan@example.com>"
    inner["To"] = "ann@example.org"
    inner["Subject"] = "Tide tables"
    inner["Message-ID"] = "<inner@example.com>"
    inner.set_content("The tide tables you asked for.\n")
    inner.add_attachment(
        b"High water 06:12, low water 12:25.\n", maintype="text", subtype="plain", filename="tides.txt"
    )
    msg = EmailMessage()
    msg["From"] = "jm@example.de"
    msg["To"] = "Ann Lee <ann@example.org>"
    msg["Subject"] = "Re: Re: Café menu for Friday"
    msg["Date"] = "Wed, 03 Jan 2024 09:00:00 +0100"
    msg["Message-ID"] = "<m4@example.de>"
    msg["In-Reply-To"] = "<m2@example.org>"
    msg["References"] = "<m1@example.de> <m2@example.org>"
    msg.set_content("Forwarding Dan's tide tables.\n")
    msg.add_attachment(inner)
    raw = _bytes(msg)
    # a charset label nobody knows, on the body only
    return raw.replace(b'charset="utf-8"', b'charset="x-no-such-charset"', 1).replace(
        b"charset=utf-8", b"charset=x-no-such-charset", 1
    )


@functools.cache
def garbage() -> bytes:
    """Message 5 (broken): binary garbage where the header fields should be."""
    return b"\x00\x01\x02\x89PNG garbage \xff\xfe no header here\n\x00\x00 more\n"


@functools.cache
def html_only() -> bytes:
    """Message 6: an HTML body and nothing else."""
    return (
        b"From: news@example.org\n"
        b"To: ann@example.org\n"
        b"Subject: Harbour newsletter\n"
        b"Date: Thu, 04 Jan 2024 08:00:00 +0000\n"
        b"Message-ID: <m6@example.org>\n"
        b"Content-Type: text/html; charset=windows-1252\n"
        b"\n"
        b'<html><body><h1>Newsletter</h1><p>Boats \x96 and <a href="https://example.org/boats">more '
        b"boats</a>.</p></body></html>\n"
    )


MESSAGES = (alternative, with_attachments, truncated_multipart, forwarded, garbage, html_only)
BROKEN = (3, 5)  # positions of the broken messages


def mbox_bytes(messages: list[bytes]) -> bytes:
    """An mbox (mboxrd) of ``messages``: an envelope line before each, body "From " lines quoted."""
    out = []
    for message in messages:
        quoted = re.sub(rb"(?m)^(>*From )", rb">\1", message)
        if not quoted.endswith(b"\n"):
            quoted += b"\n"
        out.append(ENVELOPE + quoted + b"\n")
    return b"".join(out)


def inbox() -> bytes:
    """The six messages of :data:`MESSAGES` as an mbox."""
    return mbox_bytes([make() for make in MESSAGES])
