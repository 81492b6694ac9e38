"""The message converter: body chosen over alternatives, charsets, encoded headers, thread metadata,
attachments listed or folded, broken messages refused; and an mbox converted as a whole."""

from __future__ import annotations

import pytest

from tests.units import mailcorpus
from trawl.convert.base import ConversionError, ConvertOptions
from trawl.convert.mail import convert_email
from trawl.convert.registry import REGISTRY, convert_bytes


def test_the_plain_text_alternative_is_the_body_and_headers_are_decoded() -> None:
    out = convert_email(mailcorpus.alternative(), ConvertOptions())
    assert out.text == "The café serves soup and plain bread on Friday."
    assert "lunch" not in out.text  # the HTML alternative is not read
    assert out.title == "Café menu for Friday"  # =?utf-8?q?…?=
    meta = out.metadata
    assert meta["from"] == "Jörg Müller <jm@example.de>"  # =?iso-8859-1?b?…?=
    assert meta["to"] == ["Ann Lee <ann@example.org>", "bob@example.org"]
    assert meta["cc"] == ["Carol <carol@example.org>"]
    assert meta["date"] == "2024-01-02T10:00:00+01:00"
    assert meta["message_id"] == meta["thread"] == "<m1@example.de>"
    assert "in_reply_to" not in meta and "attachments" not in meta


def test_an_html_only_body_is_read_as_a_page_in_its_charset() -> None:
    out = convert_email(mailcorpus.html_only(), ConvertOptions(url="file:///m/inbox.mbox#unit=msg-6"))
    assert out.text == "Newsletter\nBoats \u2013 and more boats."  # windows-1252 0x96
    assert ("https://example.org/boats", "more boats") in out.links
    assert out.title == "Harbour newsletter"


def test_replies_name_their_thread_and_attachments_are_listed() -> None:
    out = convert_email(mailcorpus.with_attachments(), ConvertOptions())
    meta = out.metadata
    assert meta["in_reply_to"] == "<m1@example.de>" and meta["references"] == ["<m1@example.de>"]
    assert meta["thread"] == "<m1@example.de>" and meta["message_id"] == "<m2@example.org>"
    assert [(a["filename"], a["type"]) for a in meta["attachments"]] == [
        ("figures.pdf", "application/pdf"),
        ("minutes.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("notes.html", "text/html"),
        ("latin.txt", "text/plain"),
    ]
    assert meta["attachments"][3]["size"] == len("Déjà vu in Latin-1.\n".encode("iso-8859-1"))
    assert mailcorpus.PDF_TEXT not in out.text  # listed, not folded


def test_an_unknown_charset_is_counted_and_the_text_still_read() -> None:
    out = convert_email(mailcorpus.forwarded(), ConvertOptions())
    assert out.counts["mail/charset/unknown"] == 1
    assert out.text == "Forwarding Dan's tide tables."
    assert out.metadata["thread"] == "<m1@example.de>"
    assert out.metadata["attachments"][0]["type"] == "message/rfc822"


def test_a_lying_charset_is_overruled_and_counted() -> None:
    raw = b"From: a@example.org\nSubject: s\nContent-Type: text/plain; charset=us-ascii\n\n"
    raw += "café olé\n".encode()
    out = convert_email(raw, ConvertOptions())
    assert out.text == "café olé"
    assert out.counts.get("mail/charset/overruled") == 1


@pytest.mark.parametrize("make", [mailcorpus.truncated_multipart, mailcorpus.garbage])
def test_a_broken_message_is_refused_with_a_reason(make: object) -> None:
    assert callable(make)
    with pytest.raises(ConversionError) as info:
        convert_email(make(), ConvertOptions())
    assert info.value.reason == "email-broken"


def test_a_broken_message_file_is_a_drop_and_garbage_no_message() -> None:
    cut = convert_bytes(mailcorpus.truncated_multipart(), filename="cut.eml")
    assert cut.identity.format == "email"
    assert cut.dropped == "email-broken" and "StartBoundaryNotFoundDefect" in cut.message
    junk = convert_bytes(mailcorpus.garbage(), declared="message/rfc822")
    assert junk.identity.format == "binary" and junk.converted is None


def test_fold_converts_each_attachment_by_its_format() -> None:
    pytest.importorskip("reportlab")
    pytest.importorskip("docx")
    options = ConvertOptions(mail_attachments="fold")
    result = convert_bytes(mailcorpus.with_attachments(), filename="reply.eml", options=options)
    assert result.identity.format == "email" and result.converted is not None
    text = result.converted.text
    assert f"figures.pdf\n{mailcorpus.PDF_TEXT}" in text
    assert f"minutes.docx\n{mailcorpus.DOCX_TEXT}" in text
    assert "notes.html\nHarbour notes in HTML." in text
    assert result.converted.counts["mail/fold/attachments"] == 4


def test_fold_follows_attached_messages_only_as_deep_as_allowed() -> None:
    deep = convert_bytes(mailcorpus.forwarded(), options=ConvertOptions(mail_attachments="fold"))
    assert deep.converted is not None
    assert "The tide tables you asked for." in deep.converted.text
    assert "High water 06:12" in deep.converted.text  # the attached message's own attachment
    shallow = convert_bytes(
        mailcorpus.forwarded(), options=ConvertOptions(mail_attachments="fold", mail_max_depth=0)
    )
    assert shallow.converted is not None
    assert "tide tables you asked" not in shallow.converted.text
    assert shallow.converted.counts["mail/capped/depth"] == 1


def test_an_mbox_converted_whole_is_its_messages_text() -> None:
    result = convert_bytes(mailcorpus.inbox(), filename="inbox.mbox")
    assert result.identity.format == "mbox" and result.identity.mime == "application/mbox"
    assert result.converted is not None
    out = result.converted
    assert out.metadata["messages"] == 6 and out.counts["mail/broken"] == 2
    assert out.text.startswith("Café menu for Friday\nThe café serves soup")
    assert "Harbour newsletter\nNewsletter" in out.text
    capped = convert_bytes(mailcorpus.inbox(), options=ConvertOptions(mail_max_messages=1))
    assert capped.converted is not None and capped.converted.counts["mail/capped/messages"] == 1
    assert "Harbour newsletter" not in capped.converted.text


def test_mail_is_isolated_like_other_hostile_formats() -> None:
    assert REGISTRY["email"].isolate and REGISTRY["mbox"].isolate
