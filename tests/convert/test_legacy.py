"""Legacy Office files and Outlook messages (trawl.convert.legacy): the Python readers on committed
LibreOffice-made fixtures, LibreOffice itself where it is installed, and .msg files written here."""

from __future__ import annotations

import datetime as dt
import os
import random
import struct
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.convert.cfb import write_cfb
from tests.convert.corpus import AUTHOR, TITLE, tokens
from tests.convert.legacy_corpus import build_legacy, build_msg, compress_rtf, fixture, soffice
from trawl.acquire.localdir import LocalDirSource
from trawl.convert.base import ConversionError, ConvertOptions
from trawl.convert.guard import Guard
from trawl.convert.legacy import convert_ole, decompress_rtf, libreoffice_convert
from trawl.convert.registry import convert_bytes
from trawl.jobs.steps import default_steps
from trawl.pipeline import Pipeline
from trawl.pipeline.base import RunContext

pytest.importorskip("olefile")
pytest.importorskip("xlrd")

CONVERTERS = {"doc": "word97", "xls": "xlrd", "ppt": "ppt-records"}
NAMES = {"doc": "report.doc", "xls": "tonnage.xls", "ppt": "review.ppt"}
PYTHON_ONLY = ConvertOptions(libreoffice="never")
needs_soffice = pytest.mark.skipif(soffice() is None, reason="LibreOffice (soffice) is not installed")


def recall(expected: str, got: str) -> float:
    """The share of the expected words (with their counts) that ``got`` has."""
    want, have = tokens(expected), tokens(got)
    return sum((want & have).values()) / max(1, sum(want.values()))


@pytest.fixture(scope="module")
def guard() -> Iterator[Guard]:
    with Guard(timeout=30) as shared:
        yield shared


# The .doc twin loses the DOCX's text box ("Sidebar lighthouse keeper"): LibreOffice's Word 97
# export drops that drawing, so its words are nowhere in the file (checked with strings(1)).
MIN_RECALL = {"doc": 0.97, "xls": 1.0, "ppt": 1.0}


@pytest.mark.parametrize("fmt", ["doc", "xls", "ppt"])
def test_the_python_readers_recover_the_modern_twins_words(fmt: str, guard: Guard) -> None:
    sample, data = fixture(fmt)
    conversion = convert_bytes(data, filename=NAMES[fmt], options=PYTHON_ONLY, guard=guard)
    assert conversion.identity.format == "ole" and conversion.dropped is None, conversion.message
    out = conversion.converted
    assert out is not None
    assert out.metadata["converter"] == CONVERTERS[fmt] and out.metadata["ole_kind"] == fmt
    assert out.title == TITLE and out.metadata["author"] == AUTHOR
    assert recall(sample.text, out.text) >= MIN_RECALL[fmt]
    assert not tokens(out.text) - tokens(sample.text)  # nothing invented (no field codes, masters)


def test_xls_sheets_and_ppt_slides_are_segments() -> None:
    sample, data = fixture("xls")
    out = convert_ole(data, PYTHON_ONLY)
    assert out.metadata["sheets"] == sample.extra["sheets"] == [s.title for s in out.segments]
    assert out.text[out.segments[1].start :].startswith("Pilotage\nQuay\tVessel\tCargo\tTonnes")
    sample, data = fixture("ppt")
    out = convert_ole(data, PYTHON_ONLY)
    assert "ppt/stream-order" not in out.counts  # slides placed by the persist directory
    assert [s.position for s in out.segments] == list(range(1, out.metadata["slides"] + 1))
    assert out.segments[0].title == TITLE and out.segments[1].title.startswith("Section ")
    second = out.text[out.segments[1].start : out.segments[1].end]
    assert "Speaker note about" in second  # a slide's notes are its own
    assert "Click to edit" not in out.text  # masters are left out


def test_word_field_codes_are_dropped_and_their_results_kept() -> None:
    _sample, data = fixture("doc")
    out = convert_ole(data, PYTHON_ONLY)
    assert "See the published accounts" in out.text and "HYPERLINK" not in out.text
    assert "Pilot hours\nTonnage landed" in out.text  # table cells, one a line


def test_an_outlook_message() -> None:
    data = build_msg(
        subject="Dredging schedule",
        body="Pilot boats wait at the quay.\r\nThe sluice opens at noon.",
        to=[("Ann Berg", "ann@harbour.example.org")],
        cc=[("Bo Ek", "bo@harbour.example.org")],
        when=dt.datetime(2024, 3, 5, 9, 30, tzinfo=dt.UTC),
        attachments=[("notes.txt", "text/plain", b"Sluice gate inspection notes")],
        attached_message=("Earlier note", "Ballast survey findings"),
    )
    conversion = convert_bytes(data, filename="schedule.msg")
    out = conversion.converted
    assert out is not None and conversion.identity.format == "ole"
    assert out.title == "Dredging schedule"
    assert out.text == "Pilot boats wait at the quay.\nThe sluice opens at noon."
    meta = out.metadata
    assert meta["ole_kind"] == "msg" and meta["converter"] == "msg-properties" and meta["body"] == "plain"
    assert meta["from"] == "Marta Lindqvist <marta@harbour.example.org>"
    assert meta["to"] == ["Ann Berg <ann@harbour.example.org>"] and meta["cc"] == [
        "Bo Ek <bo@harbour.example.org>"
    ]
    assert meta["date"] == "2024-03-05T09:30:00+00:00"
    assert meta["attachments"] == [
        {"filename": "notes.txt", "type": "text/plain", "size": 28},
        {"filename": "Earlier note.msg", "type": "application/vnd.ms-outlook"},
    ]
    folded = convert_bytes(data, options=ConvertOptions(mail_attachments="fold")).converted
    assert folded is not None and folded.counts["mail/fold/attachments"] == 2
    assert folded.text.endswith(
        "notes.txt\nSluice gate inspection notes\n\nEarlier note.msg\nEarlier note\nBallast survey findings"
    )
    bounded = ConvertOptions(mail_attachments="fold", mail_max_attachments=1)
    capped = convert_bytes(data, options=bounded).converted
    assert capped is not None and capped.metadata["attachments_total"] == 2
    assert capped.counts["mail/capped/attachments"] == 1
    assert "Ballast" not in capped.text and "Sluice gate inspection" in capped.text
    shallow = convert_bytes(data, options=ConvertOptions(mail_attachments="fold", mail_max_depth=0)).converted
    assert shallow is not None and shallow.counts["mail/capped/depth"] == 1 and "Ballast" not in shallow.text


def test_a_message_with_only_an_html_or_rtf_body() -> None:
    html = build_msg(
        subject="Tides", html=b'<html><body><p>Read the <a href="https://x.org/t">tables</a></p>'
    )
    out = convert_ole(html, ConvertOptions())
    assert out.text == "Read the tables" and out.links == [("https://x.org/t", "tables")]
    assert out.metadata["body"] == "html"
    rtf = b"{\\rtf1\\ansi\\deff0{\\fonttbl;}\\pard Harbour dues rise in spring; harbour dues rise again\\par}"
    out = convert_ole(build_msg(subject="Dues", rtf=rtf), ConvertOptions())
    assert (
        out.text == "Harbour dues rise in spring; harbour dues rise again" and out.metadata["body"] == "rtf"
    )


def test_compressed_rtf_round_trips_through_references() -> None:
    rtf = b"{\\rtf1\\ansi " + b"pilot vessel quay " * 40 + b"}"
    packed = compress_rtf(rtf)
    assert len(packed) < len(rtf) // 2  # back references were used
    assert decompress_rtf(packed, 1 << 20) == rtf
    assert decompress_rtf(packed, 100) == rtf[:100]  # the output cap holds
    with pytest.raises(ConversionError) as caught:
        decompress_rtf(b"\x00" * 12 + b"ABCD", 100)
    assert caught.value.reason == "msg-damaged"


def test_an_ole_file_of_another_kind_is_kept_and_counted(tmp_path: Path) -> None:
    (tmp_path / "Thumbs.db").write_bytes(write_cfb({"Catalog": b"\x00" * 40, "256_1": b"\xff\xd8\xff" * 9}))
    conversion = convert_bytes((tmp_path / "Thumbs.db").read_bytes())
    assert conversion.skipped and conversion.skip_reason == "unsupported-ole-kind"
    ctx = RunContext()
    docs = list(Pipeline([LocalDirSource([tmp_path])], default_steps(), ctx))
    assert len(docs) == 1 and ctx.stats["convert/skipped/unsupported-ole-kind"] == 1


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(lambda: fixture("doc")[1][:6000], id="truncated-doc"),
        pytest.param(lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + os.urandom(3000), id="garbage"),
        pytest.param(lambda: _damaged_word(fixture("doc")[1]), id="no-piece-table"),
    ],
)
def test_damaged_ole_files_are_recorded_drops(data: object, guard: Guard) -> None:
    payload = data()  # type: ignore[operator]
    conversion = convert_bytes(payload, options=PYTHON_ONLY, guard=guard)
    assert conversion.converted is None and conversion.dropped in {"ole-damaged", "doc-damaged"}
    assert conversion.message


@pytest.mark.parametrize("fmt", ["doc", "xls", "ppt", "msg"])
def test_mutated_files_give_text_or_a_named_reason(fmt: str) -> None:
    """Bytes changed at random (a fixed seed): every outcome is text or one of the readers' own
    reasons, never a library's exception passed through (``ole-failed``), and each is quick."""
    if fmt == "msg":
        data = build_msg(subject="S", body="Body", attachments=[("a.txt", "text/plain", b"x" * 99)])
    else:
        data = fixture(fmt)[1]
    rng = random.Random(38)
    outcomes: Counter[str] = Counter()
    for _ in range(60):
        mutated = bytearray(data)
        for _ in range(rng.choice([1, 4, 16, 64])):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        t0 = time.perf_counter()
        conversion = convert_bytes(bytes(mutated), options=PYTHON_ONLY)
        assert time.perf_counter() - t0 < 2
        outcomes[conversion.dropped or conversion.skip_reason or "kept"] += 1
    assert "ole-failed" not in outcomes, outcomes
    assert set(outcomes) <= {"kept", "ole-damaged", f"{fmt}-damaged", "unsupported-ole-kind", "ppt-no-slides",
                             "msg-capped", "encrypted", "doc-old-version"}, outcomes  # fmt: skip
    assert outcomes["kept"] > 0


def _damaged_word(data: bytes) -> bytes:
    """``data`` (a .doc) with its piece table's offset (FIB fcClx) pointed past the table stream."""
    import io

    import olefile

    buffer = io.BytesIO(data)
    ole = olefile.OleFileIO(buffer, write_mode=True)
    word = bytearray(ole.openstream("WordDocument").read())
    pos = 32 + 2 + 2 * struct.unpack_from("<H", word, 32)[0]
    pos += 2 + 4 * struct.unpack_from("<H", word, pos)[0] + 2
    struct.pack_into("<I", word, pos + 33 * 8, 0x7FFFFF00)
    ole.write_stream("WordDocument", bytes(word))
    return buffer.getvalue()


# --- with LibreOffice -----------------------------------------------------------------------------


@pytest.mark.slow  # three LibreOffice runs (cached under the temporary directory after the first)
@needs_soffice
@pytest.mark.parametrize("fmt", ["doc", "xls", "ppt"])
def test_freshly_made_legacy_files_read_in_python(fmt: str) -> None:
    made = build_legacy(fmt, seed=7, size=10)
    assert made is not None
    sample, data = made
    out = convert_ole(data, PYTHON_ONLY)
    assert out.metadata["converter"] == CONVERTERS[fmt]
    assert recall(sample.text, out.text) >= max(MIN_RECALL[fmt], 0.98 if fmt == "doc" else 1.0)


@needs_soffice
def test_libreoffice_always_and_as_the_fallback(guard: Guard) -> None:
    sample, data = fixture("xls")
    conversion = convert_bytes(data, options=ConvertOptions(libreoffice="always"), guard=guard)
    out = conversion.converted  # soffice started from the guarded worker, under its limits
    assert out is not None, conversion.message
    assert out.metadata["converter"] == "libreoffice" and out.metadata["ole_kind"] == "xls"
    assert recall(sample.text, out.text) == 1.0 and out.title == TITLE
    damaged = _damaged_word(fixture("doc")[1])
    out = convert_ole(damaged, ConvertOptions())
    assert out.metadata["converter"] == "libreoffice"
    assert out.counts == Counter({"doc/libreoffice/doc-damaged": 1}) and out.warnings


@needs_soffice
def test_a_libreoffice_run_past_its_time_is_killed_with_its_helpers() -> None:
    _sample, data = fixture("doc")
    with pytest.raises(ConversionError) as caught:
        libreoffice_convert(data, ".doc", "docx", ConvertOptions(libreoffice_timeout=0.05))
    assert caught.value.reason == "libreoffice-timeout"
    deadline = time.monotonic() + 10  # SIGKILL is sent; the kernel takes a moment to end them
    while _live_soffice() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live_soffice()


def _live_soffice() -> list[bytes]:
    """The command lines of LibreOffice processes working in a trawl temporary directory (a
    zombie has none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"trawl-soffice-" in cmdline:
                found.append(cmdline)
    return found
