"""Long documents as units: a PDF's pages or outline sections, slides, sheets and EPUB chapters,
each a document whose text is its span of the parent's, made by ingest's own steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.convert.corpus import build
from tests.units import pagecorpus
from trawl.acquire.localdir import file_document
from trawl.config import load_config
from trawl.convert.base import ConvertOptions, Segment, clip_segments, segments_of
from trawl.convert.registry import SEGMENTS, convert_bytes
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.jobs.procs import run_steps
from trawl.jobs.steps import build_steps
from trawl.pipeline.base import RunContext
from trawl.units.pages import PageUnits

pytest.importorskip("reportlab")


def run(tmp_path: Path, files: dict[str, bytes], *overrides: str) -> tuple[dict[str, Document], RunContext]:
    """``files`` written to ``tmp_path`` and read through ingest's steps (extraction and langid
    off unless asked: they are not what is tested)."""
    config = load_config(overrides=["extract.enabled=false", "langid.enabled=false", *overrides])
    docs = []
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        docs.append(file_document(str(path), data))
    steps = build_steps(config)
    ctx = RunContext()
    try:
        out = run_steps(steps, docs, ctx)
    finally:
        for step in steps:
            step.close()
    return {doc.url: doc for doc in out}, ctx


def units_of(docs: dict[str, Document], parent: str) -> list[Document]:
    return [doc for url, doc in docs.items() if url.startswith(parent + "#unit=")]


def check_spans(parent: Document, units: list[Document]) -> None:
    """Every unit's text is exactly its span of the parent's text, and its raw that text."""
    assert units
    for unit in units:
        meta = unit.metadata["unit"]
        start, end = meta["span"]
        assert unit.text == parent.text[start:end] and unit.text.strip() == unit.text != ""
        assert unit.raw == unit.text.encode("utf-8")
        assert meta["parent"] == parent.url and meta["root"] == parent.url
        assert unit.url == f"{parent.url}#unit={meta['kind']}-{meta['position']}"
        assert unit.record_type == "resource" and unit.fetched_at == parent.fetched_at
        assert unit.declared_type == "text/plain; charset=utf-8" and unit.metadata["size"] == len(unit.raw)
        assert SEGMENTS not in unit.metadata
    assert SEGMENTS not in parent.metadata


def test_a_pdf_becomes_one_unit_per_page_after_its_whole_self(tmp_path: Path) -> None:
    pages = [*pagecorpus.PAGE_LINES[:1], [], *pagecorpus.PAGE_LINES[1:]]  # page 2 is blank
    docs, ctx = run(tmp_path, {"notes.pdf": pagecorpus.pdf_bytes(pages)}, "units.pdf=page")
    url = (tmp_path / "notes.pdf").resolve().as_uri()
    parent = docs[url]
    assert next(iter(docs)) == url  # the parent first, then its pages in order
    units = units_of(docs, url)
    assert [u.url for u in units] == [f"{url}#unit=page-{n}" for n in (1, 3, 4, 5)]  # no blank page
    check_spans(parent, units)
    for unit, lines in zip(units, pagecorpus.PAGE_LINES, strict=True):
        assert unit.text == "\n".join(lines)
        assert unit.metadata["unit"]["kind"] == "page"
    assert units[1].title == "Harbour Notes — page 3"
    assert parent.text == "\n".join(u.text for u in units)  # the parent keeps its whole text
    assert parent.metadata["pages"] == 5 and parent.metadata["format"] == "pdf"
    assert ctx.stats["units/pages/page"] == 4 and ctx.stats["units/pages/documents"] == 1


def test_pdf_sections_follow_the_outline_down_to_the_heading(tmp_path: Path) -> None:
    data = pagecorpus.pdf_bytes(outline=True)
    docs, ctx = run(tmp_path, {"notes.pdf": data}, "units.pdf=section")
    url = (tmp_path / "notes.pdf").resolve().as_uri()
    units = units_of(docs, url)
    assert [u.url.rpartition("#unit=")[2] for u in units] == ["section-1", "section-2", "section-3"]
    assert [u.title for u in units] == ["Tides", "Cargo", "Ledger"]
    check_spans(docs[url], units)
    lines = pagecorpus.PAGE_LINES
    assert units[0].text == "\n".join([*lines[0], *lines[1]])
    assert units[1].text == "\n".join(lines[2][:2])  # from its heading to the next one, same page
    assert units[2].text == "\n".join([*lines[2][2:], *lines[3]])
    assert ctx.stats["units/pages/section"] == 3 and "units/pages/no-outline" not in ctx.stats.counters


def test_a_pdf_without_an_outline_gives_pages_when_sections_are_asked_for(tmp_path: Path) -> None:
    docs, ctx = run(tmp_path, {"plain.pdf": pagecorpus.pdf_bytes()}, "units.pdf=section")
    url = (tmp_path / "plain.pdf").resolve().as_uri()
    assert [u.metadata["unit"]["kind"] for u in units_of(docs, url)] == ["page"] * 4
    assert ctx.stats["units/pages/no-outline"] == 1


def test_units_are_off_by_default_and_leave_nothing_behind(tmp_path: Path) -> None:
    files = {"notes.pdf": pagecorpus.pdf_bytes(outline=True), "deck.pptx": build("pptx", size=9).data}
    docs, ctx = run(tmp_path, files)
    assert len(docs) == 2
    assert all(SEGMENTS not in doc.metadata for doc in docs.values())
    assert not any(key.startswith("units/pages") for key in ctx.stats.counters)
    assert PageUnits not in {type(step) for step in build_steps(load_config())}


def test_slides_sheets_and_chapters(tmp_path: Path) -> None:
    pytest.importorskip("pptx")
    pytest.importorskip("openpyxl")
    pytest.importorskip("odf")
    files = {
        "deck.pptx": build("pptx", size=9).data,
        "deck.odp": build("odp", size=3).data,
        "book.xlsx": build("xlsx", size=4).data,
        "book.ods": build("ods", size=4).data,
        "tales.epub": pagecorpus.epub_bytes(),
        "notes.pdf": pagecorpus.pdf_bytes(),  # pdf = "none": no page units
    }
    docs, ctx = run(tmp_path, files, "units.slides=true", "units.sheets=true", "units.chapters=true")
    url = {name: (tmp_path / name).resolve().as_uri() for name in files}
    slides = units_of(docs, url["deck.pptx"])
    assert slides[0].title == "Harbour Board Annual Review"  # each slide's own title
    assert all(u.title.startswith("Section ") and u.title.endswith(" review") for u in slides[1:])
    assert len(slides) == 4 and [u.metadata["unit"]["position"] for u in slides] == [1, 2, 3, 4]
    assert "Speaker note about" in slides[1].text  # the notes are their slide's
    odp = units_of(docs, url["deck.odp"])
    assert len(odp) == 3 and odp[0].title == "Harbour Board Annual Review — slide 1"
    for name, sheets in (("book.xlsx", ["Tonnage", "Pilotage"]), ("book.ods", ["Berths", "Cranes"])):
        units = units_of(docs, url[name])
        assert [u.title for u in units] == sheets
        assert [u.url.rpartition("#unit=")[2] for u in units] == ["sheet-1", "sheet-2"]
        assert units[1].text.startswith(sheets[1] + "\n") and sheets[0] not in units[1].text
    chapters = units_of(docs, url["tales.epub"])
    # the cover has no text (no unit, but its number); the NCX names one, a heading the other
    assert [(u.url.rpartition("#unit=")[2], u.title) for u in chapters] == [
        ("chapter-2", "Arrival of the Ferry"),
        ("chapter-3", "The Storm Surge"),
    ]
    assert chapters[0].text == "I\nThe ferry docked at dawn.\nGulls circled the pontoon."
    for name in ("deck.pptx", "deck.odp", "book.xlsx", "book.ods", "tales.epub"):
        check_spans(docs[url[name]], units_of(docs, url[name]))
    assert units_of(docs, url["notes.pdf"]) == []
    assert ctx.stats["units/pages/slide"] == 7 and ctx.stats["units/pages/sheet"] == 4
    assert ctx.stats["units/pages/chapter"] == 2 and ctx.stats["units/pages/documents"] == 5


def test_the_bound_keeps_the_first_units_and_is_counted(tmp_path: Path) -> None:
    docs, ctx = run(tmp_path, {"notes.pdf": pagecorpus.pdf_bytes()}, "units.pdf=page", "units.max_segments=2")
    url = (tmp_path / "notes.pdf").resolve().as_uri()
    assert [u.url for u in units_of(docs, url)] == [f"{url}#unit=page-1", f"{url}#unit=page-2"]
    assert ctx.stats["units/pages/capped"] == 1 and docs[url].metadata["units_capped"] == 2


def test_no_units_for_a_failed_conversion_or_a_single_part(tmp_path: Path) -> None:
    broken = pagecorpus.pdf_bytes()[:400]
    single = pagecorpus.pdf_bytes(pagecorpus.PAGE_LINES[:1])
    docs, ctx = run(tmp_path, {"broken.pdf": broken, "single.pdf": single}, "units.pdf=page")
    assert list(docs) == [(tmp_path / "single.pdf").resolve().as_uri()]  # one page: no page-1 copy
    assert ctx.stats["drop/convert/pdf-malformed"] == 1
    assert not any(key.startswith("units/pages") for key in ctx.stats.counters)


def test_a_unit_s_language_is_identified_like_any_document(tmp_path: Path) -> None:
    pages = [
        ["The harbour board met on Tuesday to discuss the new ferry timetable and the dredging work."],
        ["Le conseil du port s'est réuni mardi pour discuter du nouvel horaire du traversier."],
    ]
    docs, _ = run(
        tmp_path, {"mixed.pdf": pagecorpus.pdf_bytes(pages)}, "units.pdf=page", "langid.enabled=true"
    )
    url = (tmp_path / "mixed.pdf").resolve().as_uri()
    assert [u.lang for u in units_of(docs, url)] == ["en", "fr"]


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"units\.pdf"):
        PageUnits(pdf="chapters")
    with pytest.raises(ConfigError, match="max_segments"):
        PageUnits(max_segments=0)


def test_segments_survive_a_cut_text() -> None:
    data = pagecorpus.pdf_bytes()
    whole = convert_bytes(data, filename="a.pdf").converted
    assert whole is not None and [s.position for s in whole.segments] == [1, 2, 3, 4]
    limit = whole.segments[1].start + 50  # inside page 2's second line: cut after its first

    cut = convert_bytes(data, filename="a.pdf", options=ConvertOptions(max_chars=limit)).converted
    assert cut is not None and cut.metadata["truncated"]
    assert [s.position for s in cut.segments] == [1, 2]
    assert cut.segments[-1].end == len(cut.text) <= limit
    assert cut.text[cut.segments[-1].start :] == pagecorpus.PAGE_LINES[1][0]


def test_segments_of_joined_blocks() -> None:
    blocks = ["ab", "", "cd\nef", "", "g"]
    text = "\n".join(b for b in blocks if b)
    marks = [(0, "page", 1, ""), (1, "page", 2, ""), (2, "page", 3, "x"), (4, "page", 5, "")]
    segments = segments_of(blocks, marks)
    assert [text[s.start : s.end] for s in segments] == ["ab", "", "cd\nef", "g"]
    assert segments[2] == Segment("page", 3, "x", 3, 8)
    assert clip_segments(segments, 5) == [segments[0], segments[1], segments[2]._replace(end=5)]
