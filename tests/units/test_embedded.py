"""Embedded files as document units: an office document's embedded workbook, a PDF's attachment,
each a document of its own, run through ingest's own steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.convert.structured import docx_with_objects, pdf_with_attachment
from trawl.acquire.localdir import file_document
from trawl.config import load_config
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.jobs.procs import run_steps
from trawl.jobs.steps import build_steps
from trawl.pipeline.base import RunContext
from trawl.units.embedded import EmbeddedUnits

pytest.importorskip("docx")
pytest.importorskip("openpyxl")


def run(path: Path, *overrides: str) -> tuple[dict[str, Document], RunContext]:
    config = load_config(overrides=["extract.enabled=false", "langid.enabled=false", *overrides])
    steps = build_steps(config)
    ctx = RunContext()
    try:
        out = run_steps(steps, [file_document(str(path), path.read_bytes())], ctx)
    finally:
        for step in steps:
            step.close()
    return {doc.url: doc for doc in out}, ctx


def test_an_embedded_workbook_is_a_unit(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    path.write_bytes(docx_with_objects().data)
    docs, ctx = run(path)
    url = path.resolve().as_uri()
    assert list(docs) == [url, url + "#unit=emb-1"]
    parent, unit = docs[url], docs[url + "#unit=emb-1"]
    assert parent.metadata["embedded"] == [
        {
            "name": "Microsoft_Excel_Worksheet.xlsx",
            "type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "size": len(unit.raw),
            "unit": unit.url,
        }
    ]
    assert "Tonnage" not in parent.text
    assert unit.metadata["format"] == "xlsx" and unit.metadata["sheets"] == ["Tonnage", "Pilotage"]
    assert unit.metadata["filename"] == "Microsoft_Excel_Worksheet.xlsx"
    assert unit.metadata["unit"] == {
        "parent": url,
        "kind": "embedded",
        "position": 1,
        "span": None,
        "root": url,
    }
    assert ctx.stats.counters["units/embedded/objects"] == 1


def test_fold_and_none_make_no_units(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    path.write_bytes(docx_with_objects().data)
    folded, _ = run(path, "units.embedded=fold")
    assert len(folded) == 1 and "Pilotage" in next(iter(folded.values())).text
    none, _ = run(path, "units.embedded=none")
    assert len(none) == 1 and "Pilotage" not in next(iter(none.values())).text


def test_a_pdf_attachment_is_a_unit_and_its_depth_bounded(tmp_path: Path) -> None:
    pytest.importorskip("reportlab")
    pytest.importorskip("pypdf")
    path = tmp_path / "review.pdf"
    pdf, attached = pdf_with_attachment()
    path.write_bytes(pdf)
    docs, _ = run(path)
    unit = docs[path.resolve().as_uri() + "#unit=emb-1"]
    assert unit.raw == attached and unit.metadata["format"] == "docx"
    assert "Sidebar lighthouse keeper" in unit.text
    docs, ctx = run(path, "units.embedded_max_depth=0")
    assert len(docs) == 1 and ctx.stats.counters["units/embedded/capped/depth"] == 1


def test_an_outlook_messages_attachments_are_units_unless_folded(tmp_path: Path) -> None:
    pytest.importorskip("olefile")
    from tests.convert.legacy_corpus import build_msg

    path = tmp_path / "tides.msg"
    path.write_bytes(
        build_msg(
            subject="Tide tables",
            body="See the attached tables.",
            attachments=[("tides.txt", "text/plain", b"High water 06:12, low water 12:31")],
            attached_message=("Pilot roster", "Pilots on duty this week"),
        )
    )
    docs, _ = run(path)
    url = path.resolve().as_uri()
    assert list(docs) == [url, url + "#unit=emb-1"]  # the attached message is no file: its text folds
    unit = docs[url + "#unit=emb-1"]
    assert unit.metadata["filename"] == "tides.txt" and "High water 06:12" in unit.text
    assert "High water" not in docs[url].text and docs[url].title == "Tide tables"
    folded, _ = run(path, "units.mail_attachments=fold")
    assert len(folded) == 1 and "High water 06:12" in folded[url].text
    assert folded[url].text.count("High water 06:12") == 1
    both, _ = run(path, "units.mail_attachments=fold", "units.embedded=fold")
    assert both[url].text.count("High water 06:12") == 1  # folded once, not by both


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ConfigError):
        EmbeddedUnits(max_objects=0)
    with pytest.raises(ConfigError):
        load_config(overrides=["units.embedded=maybe"])


def test_an_unreadable_container_is_counted_and_the_run_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /EmbeddedFile /Length 99 >> stream\nnot a pdf at all")
    docs, ctx = run(path)
    assert ctx.stats.counters["units/embedded/unreadable"] == 1
    assert all("#unit=" not in url for url in docs)
