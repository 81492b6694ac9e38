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
from trawl.convert.legacy import _without_field_codes, convert_ole, decompress_rtf, libreoffice_convert
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


def test_a_body_past_the_part_limit_is_kept_as_far_as_it_goes() -> None:
    body = "Pilot boarding at the outer buoy. " * 200  # 6,800 characters, 13,600 bytes of UTF-16
    out = convert_ole(build_msg(subject="Boarding", body=body), ConvertOptions(mail_max_part_bytes=4001))
    assert out.title == "Boarding" and out.metadata["truncated"] is True
    assert out.counts["msg/body-capped"] == 1
    assert out.text.startswith("Pilot boarding at the outer buoy.") and "\ufffd" not in out.text
    assert 1900 <= len(out.text) <= 2000  # 4,000 bytes: 2,000 characters
    whole = convert_ole(build_msg(subject="Boarding", body=body), ConvertOptions())
    assert "truncated" not in whole.metadata and len(whole.text) > 6000


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


def _word_with_clx(data: bytes, clx: bytes) -> bytes:
    """``data`` (a .doc) with its table stream starting with ``clx`` and the FIB's fcClx/lcbClx on it."""
    import io

    import olefile

    buffer = io.BytesIO(data)
    ole = olefile.OleFileIO(buffer, write_mode=True)
    word = bytearray(ole.openstream("WordDocument").read())
    name = "1Table" if struct.unpack_from("<H", word, 0x0A)[0] & 0x0200 else "0Table"
    table = bytearray(ole.openstream(name).read())
    table[: len(clx)] = clx
    pos = 32 + 2 + 2 * struct.unpack_from("<H", word, 32)[0]
    pos += 2 + 4 * struct.unpack_from("<H", word, pos)[0] + 2
    struct.pack_into("<II", word, pos + 33 * 8, 0, len(clx))
    ole.write_stream("WordDocument", bytes(word))
    ole.write_stream(name, bytes(table))
    return buffer.getvalue()


@pytest.mark.parametrize("size", [-3, -6], ids=["stays", "steps-back"])
def test_a_negative_property_modifier_size_is_damage_not_a_hang(size: int) -> None:
    """A Prc whose cbGrpprl is negative (a signed field) must not keep the piece table reader in
    place or send it backwards: the file is ``doc-damaged`` at once, not cut off by the guard."""
    clx = b"\x01\x00\x00" + b"\x01" + struct.pack("<h", size) + b"\x02" + b"\x00" * 16
    payload = _word_with_clx(fixture("doc")[1], clx)
    with Guard(timeout=3) as short:
        t0 = time.perf_counter()
        conversion = convert_bytes(payload, options=PYTHON_ONLY, guard=short)
    assert conversion.dropped == "doc-damaged", (conversion.dropped, conversion.message)
    assert time.perf_counter() - t0 < 2.5


def _ppt_with_repeated_slide(refs: int, atoms: int) -> bytes:
    """A .ppt whose slide list names one slide container ``refs`` times; the slide holds ``atoms``
    text atoms (``Atom 0`` ...). Records: ``(ver/instance, type, length)`` headers ([MS-PPT])."""

    def record(kind: int, body: bytes, container: bool = False) -> bytes:
        return struct.pack("<HHI", 0x000F if container else 0, kind, len(body)) + body

    slide = record(
        0x03EE, b"".join(record(0x0FA0, f"Atom {i} ".encode("utf-16-le")) for i in range(atoms)), True
    )
    persist_atoms = b"".join(record(0x03F3, struct.pack("<IIiII", 1, 0, 0, 256 + i, 0)) for i in range(refs))
    document = record(0x03E8, record(0x0FF0, persist_atoms, True), True)
    slide_at = len(document)
    directory_at = slide_at + len(slide)
    directory = record(0x1772, struct.pack("<II", 1 | 1 << 20, slide_at))
    edit_at = directory_at + len(directory)
    edit = record(0x0FF5, struct.pack("<IHBBIIIII", 256, 0, 0, 3, 0, directory_at, 1, 1, 0))
    current = record(0x0FF6, struct.pack("<IIIHHBBH", 20, 0xE391C05F, edit_at, 0, 0x03F4, 3, 0, 0))
    return write_cfb({"PowerPoint Document": document + slide + directory + edit, "Current User": current})


def test_a_slide_listed_many_times_is_read_once() -> None:
    """A hostile slide list naming one slide again and again must not repeat its text (nor read
    its records again for every entry: that work grows with entries x the slide's size)."""
    out = convert_ole(_ppt_with_repeated_slide(1, 3), PYTHON_ONLY)
    assert out.text == "Atom 0\nAtom 1\nAtom 2" and out.metadata["slides"] == 1  # the builder works
    t0 = time.perf_counter()
    out = convert_ole(_ppt_with_repeated_slide(3000, 400), PYTHON_ONLY)
    assert out.text.count("Atom 7\n") == 1 and out.text.count("Atom 399") == 1
    assert out.metadata["slides"] == 1 and out.counts.get("ppt/repeated-slides") == 2999
    assert time.perf_counter() - t0 < 1.5


def _ppt_with_shared_notes(slides: int, atoms: int) -> bytes:
    """A .ppt of ``slides`` slides whose slide atoms all name one notes page of ``atoms`` atoms."""

    def record(kind: int, body: bytes, instance: int | None = None) -> bytes:
        head = 0 if instance is None else 0x000F | instance << 4
        return struct.pack("<HHI", head, kind, len(body)) + body

    notes_id = 999
    containers = [
        record(0x03EE, record(0x03EF, struct.pack("<I8sIIHH", 0, b"", 0, notes_id, 0, 0))
               + record(0x0FA0, f"Slide {k}".encode("utf-16-le")), 0)
        for k in range(slides)
    ]  # fmt: skip
    notes = record(0x03F0, b"".join(record(0x0FA0, f"Note {i}".encode("utf-16-le")) for i in range(atoms)), 0)
    slide_list = b"".join(
        record(0x03F3, struct.pack("<IIiII", k + 1, 0, 0, 256 + k, 0)) for k in range(slides)
    )
    notes_list = record(0x03F3, struct.pack("<IIiII", slides + 1, 0, 0, notes_id, 0))
    document = record(0x03E8, record(0x0FF0, slide_list, 0) + record(0x0FF0, notes_list, 2), 0)
    offsets, at = [], len(document)
    for part in (*containers, notes):
        offsets.append(at)
        at += len(part)
    directory = record(0x1772, struct.pack(f"<I{len(offsets)}I", 1 | len(offsets) << 20, *offsets))
    edit_at = at + len(directory)
    edit = record(0x0FF5, struct.pack("<IHBBIIIII", 256, 0, 0, 3, 0, at, 1, len(offsets), 0))
    current = record(0x0FF6, struct.pack("<IIIHHBBH", 20, 0xE391C05F, edit_at, 0, 0x03F4, 3, 0, 0))
    stream = document + b"".join(containers) + notes + directory + edit
    return write_cfb({"PowerPoint Document": stream, "Current User": current})


def test_notes_shared_by_many_slides_are_read_once() -> None:
    out = convert_ole(_ppt_with_shared_notes(2, 2), PYTHON_ONLY)
    assert out.text == "Slide 0\nNote 0\nNote 1\nSlide 1", out.text  # the builder works
    t0 = time.perf_counter()
    out = convert_ole(_ppt_with_shared_notes(2000, 400), PYTHON_ONLY)
    assert out.metadata["slides"] == 2000 and out.text.count("Note 399") == 1
    assert time.perf_counter() - t0 < 1.5


@needs_soffice
def test_the_libreoffice_time_limit_holds_inside_a_shorter_guard() -> None:
    """``libreoffice_timeout`` is LibreOffice's own limit: a guard whose limit is shorter must not
    kill the worker in the middle of the run (the conversion lost, its temporary directory and
    profile left behind, since only the worker's own cleanup removes them)."""
    import tempfile

    def leftovers() -> set[Path]:
        return set(Path(tempfile.gettempdir()).glob("trawl-soffice-*"))

    before = leftovers()
    options = ConvertOptions(libreoffice="always", libreoffice_timeout=20)
    with Guard(timeout=0.5) as short:
        conversion = convert_bytes(fixture("doc")[1], filename="report.doc", options=options, guard=short)
    assert conversion.dropped is None, conversion.message
    assert conversion.converted is not None and conversion.converted.metadata["converter"] == "libreoffice"
    assert leftovers() <= before


def test_a_message_to_many_recipients_does_not_list_the_file_per_recipient() -> None:
    """Each recipient's properties are looked up in its own storage: the file's directory is not
    listed again for every recipient (800 recipients took 1.4 s that way here, 0.25 s without;
    what remains is olefile's own path lookup, linear in a storage's children)."""
    convert_ole(build_msg(subject="S", body="Body", to=[("P", "p@x.example")]), PYTHON_ONLY)  # imports
    data = build_msg(subject="S", body="Body", to=[(f"P{i}", f"p{i}@x.example") for i in range(800)])
    t0 = time.perf_counter()
    out = convert_ole(data, PYTHON_ONLY)
    seconds = time.perf_counter() - t0
    assert len(out.metadata["to"]) == 800 and out.metadata["to"][799] == "P799 <p799@x.example>"
    assert seconds < 0.6


def test_field_codes_are_dropped_in_one_pass() -> None:
    """Unclosed fields (a hostile .doc can hold a million) must not make each later field mark
    rescan every open field: the work stays linear in the text."""
    assert (
        _without_field_codes('a\x13 HYPERLINK "x" \x14b\x15c\x13 PAGE \x14\x13 NUM \x14 7\x15\x15d')
        == "abc 7d"
    )
    text = "\x13 code \x14r" * 20_000 + "tail"  # fields in their result part, never closed
    t0 = time.perf_counter()
    assert _without_field_codes(text) == "r" * 20_000 + "tail"
    assert time.perf_counter() - t0 < 0.5
