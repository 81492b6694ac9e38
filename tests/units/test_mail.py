"""Mail as document units: an mbox's messages and a message's attachments, each a document with its
parent, position and span, run through ingest's own steps."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.units import mailcorpus
from trawl.acquire.localdir import file_document
from trawl.config import load_config
from trawl.convert.mail import mbox_message, split_mbox
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.jobs.procs import run_steps
from trawl.jobs.steps import build_steps
from trawl.pipeline.base import RunContext
from trawl.units.mail import MailUnits

pytest.importorskip("reportlab")
pytest.importorskip("docx")

ATTACHMENTS_OF_2 = ["figures.pdf", "minutes.docx", "notes.html", "latin.txt"]


def run(docs: list[Document], *overrides: str) -> tuple[dict[str, Document], RunContext]:
    """``docs`` through ingest's steps (extraction and langid off: they are not what is tested)."""
    config = load_config(overrides=["extract.enabled=false", "langid.enabled=false", *overrides])
    steps = build_steps(config)
    ctx = RunContext()
    try:
        out = run_steps(steps, docs, ctx)
    finally:
        for step in steps:
            step.close()
    return {doc.url: doc for doc in out}, ctx


@pytest.fixture(scope="module")
def inbox_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mail") / "inbox.mbox"
    path.write_bytes(mailcorpus.inbox())
    return path


@pytest.fixture(scope="module")
def inbox(inbox_file: Path) -> Iterator[tuple[str, dict[str, Document], RunContext]]:
    url = inbox_file.resolve().as_uri()
    docs, ctx = run([file_document(str(inbox_file), inbox_file.read_bytes())])
    yield url, docs, ctx


def test_an_mbox_is_a_container_of_message_units(inbox: tuple[str, dict[str, Document], RunContext]) -> None:
    url, docs, ctx = inbox
    container = docs[url]
    assert container.metadata["format"] == "mbox"
    assert container.metadata["units"] == 6
    assert container.metadata["units_broken"] == 2
    assert container.text == ""
    assert container.sniffed_type == "application/mbox"
    messages = [u for u in docs if u.startswith(url + "#unit=msg-") and "/" not in u.split("#unit=")[1]]
    assert sorted(messages) == [f"{url}#unit=msg-{i}" for i in (1, 2, 4, 6)]
    # the order of the stream: the container, then each message followed by its own units
    assert list(docs)[:2] == [url, f"{url}#unit=msg-1"]
    for i in (1, 2, 4, 6):
        unit = docs[f"{url}#unit=msg-{i}"].metadata["unit"]
        assert unit["parent"] == url and unit["root"] == url
        assert unit["kind"] == "message" and unit["position"] == i
    assert ctx.stats["units/mail/mbox"] == 1
    assert ctx.stats["units/mail/messages"] == 5  # four messages and one attached message
    assert ctx.stats["convert/container"] == 1


def test_a_message_s_span_is_its_bytes_in_the_mbox(
    inbox: tuple[str, dict[str, Document], RunContext],
) -> None:
    url, docs, _ = inbox
    data = mailcorpus.inbox()
    for i, make in enumerate(mailcorpus.MESSAGES, 1):
        if i in mailcorpus.BROKEN:
            continue
        doc = docs[f"{url}#unit=msg-{i}"]
        start, end = doc.metadata["unit"]["span"]
        original = make()
        assert doc.raw == (original if original.endswith(b"\n") else original + b"\n")
        assert data[start:end].replace(b">From ", b"From ") == doc.raw
        assert doc.metadata["envelope"] == mailcorpus.ENVELOPE.decode().rstrip("\n")
    quoted = docs[f"{url}#unit=msg-2"]
    start, end = quoted.metadata["unit"]["span"]
    assert b"\n>From here on" in data[start:end]  # mboxrd-quoted in the file ...
    assert b"\nFrom here on" in quoted.raw  # ... and unquoted in the unit
    assert "From here on we meet at noon." in quoted.text


def test_the_broken_messages_are_counted_recorded_and_the_rest_kept(
    inbox: tuple[str, dict[str, Document], RunContext],
) -> None:
    url, docs, ctx = inbox
    assert ctx.stats["units/mail/broken"] == 2
    assert ctx.stats["drop/units/mail-broken"] == 2
    dropped = {e.url: e for e in ctx.audit.entries if e.reason == "units/mail-broken"}
    assert set(dropped) == {f"{url}#unit=msg-3", f"{url}#unit=msg-5"}
    assert "StartBoundaryNotFoundDefect" in dropped[f"{url}#unit=msg-3"].message
    assert "no header fields" in dropped[f"{url}#unit=msg-5"].message
    assert f"{url}#unit=msg-3" not in docs and f"{url}#unit=msg-6" in docs


def test_attachments_are_units_converted_by_their_format(
    inbox: tuple[str, dict[str, Document], RunContext],
) -> None:
    url, docs, ctx = inbox
    message = f"{url}#unit=msg-2"
    listed = docs[message].metadata["attachments"]
    assert [a["filename"] for a in listed] == ATTACHMENTS_OF_2
    assert listed[0]["type"] == "application/pdf" and listed[0]["size"] == len(mailcorpus.pdf_bytes())
    units = [docs[f"{message}/att-{i}"] for i in range(1, 5)]
    for i, unit in enumerate(units, 1):
        span = unit.metadata["unit"]["span"]
        assert unit.metadata["unit"] == {
            "parent": message,
            "kind": "attachment",
            "position": i,
            "span": span,
            "root": url,
        }
        assert unit.metadata["filename"] == ATTACHMENTS_OF_2[i - 1]
        # the span is the MIME part in the message's bytes: its headers and its encoded body
        start, end = span
        part = email.message_from_bytes(docs[message].raw[start:end], policy=email.policy.default)
        assert part.get_filename() == ATTACHMENTS_OF_2[i - 1]
        assert part.get_payload(decode=True) == unit.raw
    pdf, docx, html, latin = units
    assert pdf.raw == mailcorpus.pdf_bytes() and pdf.metadata["format"] == "pdf"
    assert mailcorpus.PDF_TEXT in pdf.text
    assert docx.metadata["format"] == "docx" and mailcorpus.DOCX_TEXT in docx.text
    assert html.title == "Notes" and "Harbour notes in HTML." in html.text
    assert latin.text.strip() == "Déjà vu in Latin-1." and latin.encoding == "windows-1252"
    assert ctx.stats["units/mail/attachments"] == 5
    assert ctx.stats["convert/pdf"] == 1 and ctx.stats["convert/docx"] == 1


def test_an_attached_message_is_a_message_with_units_of_its_own(
    inbox: tuple[str, dict[str, Document], RunContext],
) -> None:
    url, docs, _ = inbox
    forwarded = docs[f"{url}#unit=msg-4/att-1"]
    assert forwarded.metadata["unit"]["kind"] == "message"
    assert forwarded.metadata["unit"]["parent"] == f"{url}#unit=msg-4"
    assert forwarded.title == "Tide tables"
    tides = docs[f"{url}#unit=msg-4/att-1/att-1"]
    assert tides.metadata["unit"]["parent"] == forwarded.url
    assert tides.metadata["unit"]["root"] == url
    assert "High water 06:12" in tides.text


def test_messages_carry_their_thread(inbox: tuple[str, dict[str, Document], RunContext]) -> None:
    url, docs, ctx = inbox
    first, reply, second_reply = (docs[f"{url}#unit=msg-{i}"] for i in (1, 2, 4))
    assert first.title == "Café menu for Friday"
    assert first.metadata["from"] == "Jörg Müller <jm@example.de>"
    assert first.text == "The café serves soup and plain bread on Friday."
    assert reply.metadata["in_reply_to"] == "<m1@example.de>"
    assert {d.metadata["thread"] for d in (first, reply, second_reply)} == {"<m1@example.de>"}
    assert second_reply.metadata["references"] == ["<m1@example.de>", "<m2@example.org>"]
    assert ctx.stats["mail/charset/unknown"] == 1  # msg-4's body
    assert second_reply.text == "Forwarding Dan's tide tables."


def test_eml_and_maildir_files_are_messages_with_attachment_units(tmp_path: Path) -> None:
    eml = tmp_path / "reply.eml"
    eml.write_bytes(mailcorpus.with_attachments())
    maildir = tmp_path / "Maildir" / "cur"
    maildir.mkdir(parents=True)
    delivered = maildir / "1704189600.M1P2.host,S=300:2,S"
    delivered.write_bytes(mailcorpus.alternative())
    docs, _ = run([file_document(str(p), p.read_bytes()) for p in (eml, delivered)])
    eml_url, md_url = eml.resolve().as_uri(), delivered.resolve().as_uri()
    assert docs[eml_url].sniffed_type == "message/rfc822" and docs[eml_url].metadata["format"] == "email"
    assert docs[eml_url].title == "Re: Café menu for Friday"
    assert "unit" not in docs[eml_url].metadata  # the file itself is no unit
    assert [docs[f"{eml_url}#unit=att-{i}"].metadata["filename"] for i in range(1, 5)] == ATTACHMENTS_OF_2
    assert docs[f"{eml_url}#unit=att-1"].metadata["unit"]["parent"] == eml_url
    assert docs[md_url].metadata["format"] == "email" and docs[md_url].title == "Café menu for Friday"
    assert [u for u in docs if u.startswith(md_url + "#")] == []


def test_a_broken_eml_file_is_a_counted_drop(tmp_path: Path) -> None:
    path = tmp_path / "cut.eml"
    path.write_bytes(mailcorpus.truncated_multipart())
    docs, ctx = run([file_document(str(path), path.read_bytes())])
    assert docs == {}
    assert ctx.stats["units/mail/broken"] == 1 and ctx.stats["drop/units/mail-broken"] == 1


def test_fold_puts_the_attachments_text_in_the_message(tmp_path: Path) -> None:
    path = tmp_path / "reply.eml"
    path.write_bytes(mailcorpus.with_attachments())
    docs, ctx = run([file_document(str(path), path.read_bytes())], "units.mail_attachments=fold")
    assert list(docs) == [path.resolve().as_uri()]
    text = docs[path.resolve().as_uri()].text
    assert text.startswith("Thanks, the figures are attached.")
    assert f"figures.pdf\n{mailcorpus.PDF_TEXT}" in text
    assert f"minutes.docx\n{mailcorpus.DOCX_TEXT}" in text
    assert "Harbour notes in HTML." in text and "Déjà vu in Latin-1." in text
    assert ctx.stats["mail/fold/attachments"] == 4
    assert ctx.stats["units/mail/attachments"] == 0


def test_without_mail_units_an_mbox_is_one_document_of_its_messages(inbox_file: Path) -> None:
    docs, ctx = run([file_document(str(inbox_file), inbox_file.read_bytes())], "units.mail=false")
    assert list(docs) == [inbox_file.resolve().as_uri()]
    doc = docs[inbox_file.resolve().as_uri()]
    assert doc.metadata["format"] == "mbox" and doc.metadata["messages"] == 6
    assert "The café serves soup" in doc.text and "Harbour newsletter" in doc.text
    assert ctx.stats["mail/broken"] == 2


@pytest.mark.parametrize(
    ("overrides", "counter", "absent"),
    [
        (["units.max_messages=2"], "units/mail/capped/messages", "#unit=msg-4"),
        (["units.max_attachments=2"], "units/mail/capped/attachments", "#unit=msg-2/att-3"),
        (["units.max_part_bytes=1000"], "units/mail/capped/bytes", "#unit=msg-2/att-2"),
        (["units.max_depth=0"], "units/mail/capped/depth", "#unit=msg-4/att-1"),
    ],
)
def test_each_bound_is_counted_when_hit(
    inbox_file: Path, overrides: list[str], counter: str, absent: str
) -> None:
    docs, ctx = run([file_document(str(inbox_file), inbox_file.read_bytes())], *overrides)
    url = inbox_file.resolve().as_uri()
    assert ctx.stats[counter] >= 1
    assert url + absent not in docs
    assert f"{url}#unit=msg-1" in docs  # the rest is kept
    if counter.endswith("messages"):
        assert docs[url].metadata["units_capped"] == 4


def test_crlf_mbox_and_mboxrd_quoting() -> None:
    one = b"From: a@example.org\r\nSubject: one\r\n\r\nbody\r\n>From here\r\n>>From there\r\n"
    two = b"From: b@example.org\r\nSubject: two\r\n\r\nsecond\r\n"
    envelope = b"From a@example.org Mon Jan  1 00:00:00 2024\r\n"
    data = envelope + one + b"\r\n" + envelope + two + b"\r\n"
    spans = split_mbox(data)
    assert len(spans) == 2
    assert mbox_message(data, spans[0]) == one.replace(b">From here", b"From here").replace(
        b">>From there", b">From there"
    )
    assert mbox_message(data, spans[1]) == two
    assert split_mbox(b"From here on we talk.\n\nFrom: a\n") == []


def test_the_step_refuses_bad_settings() -> None:
    with pytest.raises(ConfigError, match="fold"):
        MailUnits(attachments="inline")
    with pytest.raises(ConfigError, match="max_depth"):
        MailUnits(max_depth=-1)
    with pytest.raises(ConfigError, match="mail_attachments"):
        load_config(overrides=["units.mail_attachments=inline"])


def test_a_document_that_is_not_mail_passes_untouched() -> None:
    doc = Document(url="file:///x/notes.txt", raw=b"From here on, we meet at 10:30 in 2024.\nThanks\n")
    ctx = RunContext()
    out = list(MailUnits().run([doc], ctx))
    assert out == [doc] and not ctx.stats.prefix("units/")


def test_an_attached_message_whose_bytes_cannot_be_written_back_is_counted_broken() -> None:
    """A forward of a forward of … (150 deep) parses, but writing the attached message's bytes
    back out runs past Python's recursion limit: that unit would be empty, its own attachments
    silently lost. It is a counted, recorded broken message instead."""
    head = b"From: a@b.org\nTo: c@d.org\nSubject: s\nMIME-Version: 1.0\n"
    inner = head + b"Content-Type: text/plain\n\ninner\n"
    for i in range(150):
        inner = (
            head
            + b'Content-Type: multipart/mixed; boundary="f%d"\n\n--f%d\nContent-Type: text/plain\n\nbody\n'
            % (i, i)
            + b"--f%d\nContent-Type: message/rfc822\n\n" % i
            + inner
            + b"\n--f%d--\n" % i
        )
    doc = file_document("/m/deep.eml", inner)
    ctx = RunContext()
    out = list(MailUnits().run([doc], ctx))
    assert all(unit.raw for unit in out)
    assert ctx.stats["units/mail/broken"] == 1
    assert [d.reason for d in ctx.audit.entries] == ["units/mail-broken"]
