"""Mail by its first bytes: an mbox and a single message are recognised, conservatively; near misses
(text that starts "From here on…", HTTP headers, YAML, a header-like line or two) stay text."""

from __future__ import annotations

import pytest

from tests.units import mailcorpus
from trawl.document import Document
from trawl.sniff.identify import identify
from trawl.sniff.magic import (
    SNIFF_BYTES,
    effective_type,
    is_textual,
    looks_like_message,
    sniff_type,
    type_family,
    types_disagree,
)

GMAIL_HEAD = (
    b"Delivered-To: ann@example.org\r\n"
    + b"Received: by 2002:a05:6a10:8c0b:b0:4b1 with SMTP id a11csp12345pxb;\r\n"
    + b"        Tue, 2 Jan 2024 02:00:00 -0800 (PST)\r\n" * 40
)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (mailcorpus.inbox(), "application/mbox"),
        (
            b"From - Sat Jan 01 00:00:00 2000\nX-Mozilla-Status: 0001\nFrom: a@b.org\n\nhi\n",
            "application/mbox",
        ),
        (
            b"From 1785@xxx Tue Dec 12 01:39:36 +0000 2023\nX-GM-THRID: 1\nFrom: a@b.org\n\nx",
            "application/mbox",
        ),
        (mailcorpus.alternative(), "message/rfc822"),
        (mailcorpus.with_attachments(), "message/rfc822"),
        (b"Return-Path: <a@b.org>\r\nReceived: from x\r\n\tby y\r\nSubject: s\r\n\r\nbody", "message/rfc822"),
        (GMAIL_HEAD, "message/rfc822"),  # cut off inside a long header block
        # near misses
        (b"From here on, we go our own way.\nThanks for all.\n", "text/plain"),
        (b"From here on at 10:30 in 2024 we meet.\nAgenda: lunch\n\nmore\n", "text/plain"),
        (b"From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n\nno header after the envelope\n", "text/plain"),
        (b"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: nginx\r\n\r\nok", "text/plain"),
        (
            b"Date: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: nginx\r\nContent-Type: text/plain\r\n\r\nok",
            "text/plain",
        ),
        (b"from: me\nto: you\nsubject: a YAML file\ndate: 2024-01-01\n\nkey: value\n", "text/plain"),
        (b"---\nFrom: me\nTo: you\n", "text/plain"),
        (b"From: a@b.org\nTo: c@d.org\n", "text/plain"),  # no blank line: no end of a header block
        (b"Subject: only one mail field\n\nbody\n", "text/plain"),
        (b"Title: notes\nAuthor: me\n\nMarkdown with metadata.\n", "text/plain"),
        (b"Received: from x\n" + b"\tby y with z\n" * 200, "text/plain"),  # one field, however long
    ],
)
def test_sniff_mail(head: bytes, expected: str) -> None:
    assert sniff_type(head[:SNIFF_BYTES]) == expected


def test_mail_is_its_own_family_that_agrees_with_text() -> None:
    assert type_family("message/rfc822") == type_family("application/mbox") == "mail"
    assert not types_disagree("message/rfc822", "text/plain")
    assert not types_disagree("text/plain", "application/mbox")
    assert types_disagree("application/pdf", "message/rfc822")
    assert not is_textual("message/rfc822")  # read part by part by the mail converter, not decoded whole
    doc = Document(url="file:///m/x.eml", raw=b"Subject: s\n\nb", declared_type="message/rfc822")
    doc.sniffed_type = "text/plain"
    assert effective_type(doc) == "message/rfc822"


def test_identify_names_email_and_mbox() -> None:
    eml = identify(mailcorpus.alternative(), None, "note.eml")
    assert (eml.format, eml.mime, eml.disagree) == ("email", "message/rfc822", False)
    mbox = identify(mailcorpus.inbox(), None, "inbox.mbox")
    assert (mbox.format, mbox.mime, mbox.disagree) == ("mbox", "application/mbox", False)
    # declared a message, too quiet for the sniffer: read as one if it opens with a header block
    quiet = identify(b"Subject: only one mail field\n\nbody\n", "message/rfc822")
    assert quiet.sniffed == "text/plain" and quiet.format == "email"
    assert identify(b"just words\n", "message/rfc822").format == "text"
    assert looks_like_message(b"Subject: x\n\n") and not looks_like_message(b"just words\n")


def test_a_long_line_that_starts_like_an_envelope_is_read_in_linear_time() -> None:
    """A body line after a blank line that starts "From " and runs on with times and numbers (a
    pasted log) is tested for an envelope at every such line of an mbox: it must not backtrack
    (the pattern once took 22 s on 10 kB, cubic in the line's length)."""
    import time

    from trawl.convert.mail import split_mbox
    from trawl.sniff.magic import mbox_envelope_end

    line = b"From a " + b"1:11 2222 " * 20_000  # 200 kB of times and years, and no line end
    t0 = time.perf_counter()
    assert mbox_envelope_end(line, 0) is None
    assert mbox_envelope_end(line + b"x", 0, header=False) is None
    mbox = b"From a@b.org Mon Jan  1 00:00:00 2024\nFrom: a@b.org\n\nbody\n\n" + line + b"\nmore\n"
    assert len(split_mbox(mbox)) == 2  # the long line ends with a line end: an envelope after all
    assert time.perf_counter() - t0 < 2
    # what an envelope is, unchanged: a time, then a year, on one line that ends
    assert mbox_envelope_end(b"From a Mon Jan  1 00:00:00 2024\nX: y\n") == 32
    assert mbox_envelope_end(b"From a Mon Jan  1 00:00:00 2024\r\nX: y\n") == 33
    assert mbox_envelope_end(b"From a 2024 Mon Jan  1 00:00\nX: y\n") is None  # no year after the time
    assert mbox_envelope_end(b"From a Mon Jan  1 00:00:00 2024") is None  # no line end
    assert mbox_envelope_end(b"From a Mon Jan  1 00:00:00 2024\rX\nX: y\n") is None
    assert mbox_envelope_end(b"From a Mon Jan  1 00:00:00 2024\n\n", header=False) == 32
