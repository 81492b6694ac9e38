"""``trawl ingest`` of long documents with page and slide units, then ``trawl get`` of a page,
``--children`` and ``--parent``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.convert.corpus import build
from tests.units import pagecorpus
from trawl.cli.main import main

pytest.importorskip("reportlab")
pytest.importorskip("pptx")


@pytest.fixture(scope="module")
def page_collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("pages")
    folder = root / "docs"
    folder.mkdir()
    (folder / "notes.pdf").write_bytes(pagecorpus.pdf_bytes(pagecorpus.PAGE_LINES[:3]))
    (folder / "deck.pptx").write_bytes(build("pptx", size=9).data)
    (folder / "page.html").write_text("<html><title>Quay</title><p>Moorings are let by the year.</p></html>")
    coll = root / "coll"
    args = ["ingest", str(folder), "-o", str(coll), "--no-progress"]
    assert (
        main(
            [*args, "--set", "units.pdf=page", "--set", "units.slides=true", "--set", "units.max_segments=3"]
        )
        == 0
    )
    return coll, (folder / "notes.pdf").resolve().as_uri(), (folder / "deck.pptx").resolve().as_uri()


def get_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["get", *args, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_a_page_is_fetched_with_its_own_text_only(
    page_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, pdf, _ = page_collection
    [page] = get_json(capsys, str(coll), f"{pdf}#unit=page-2")
    assert page["text"] == "\n".join(pagecorpus.PAGE_LINES[1])
    meta = page["metadata"]
    assert isinstance(meta, dict) and meta["unit"]["kind"] == "page" and meta["unit"]["position"] == 2
    assert page["title"] == "Harbour Notes — page 2" and page["surt"].endswith("notes.pdf#unit=page-2")  # type: ignore[union-attr]
    [parent] = get_json(capsys, str(coll), pdf)
    start, end = meta["unit"]["span"]
    assert str(parent["text"])[start:end] == page["text"]
    assert "_segments" not in parent["metadata"]  # type: ignore[operator]


def test_a_page_s_raw_bytes_are_its_text(
    page_collection: tuple[Path, str, str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    coll, pdf, _ = page_collection
    assert main(["get", str(coll), f"{pdf}#unit=page-1", "--raw"]) == 0
    assert capsysbinary.readouterr().out == "\n".join(pagecorpus.PAGE_LINES[0]).encode()


def test_children_list_the_pages_in_order_and_parent_walks_back(
    page_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, pdf, deck = page_collection
    pages = get_json(capsys, str(coll), pdf, "--children")
    assert [p["url"] for p in pages] == [f"{pdf}#unit=page-{n}" for n in (1, 2, 3)]
    [parent] = get_json(capsys, str(coll), f"{pdf}#unit=page-3", "--parent")
    assert parent["url"] == pdf and parent["metadata"]["pages"] == 3  # type: ignore[index]
    slides = get_json(capsys, str(coll), deck, "--children")
    assert [s["url"] for s in slides] == [f"{deck}#unit=slide-{n}" for n in (1, 2, 3)]  # the bound
    assert slides[0]["title"] == "Harbour Board Annual Review"
    capsys.readouterr()
    assert main(["get", str(coll), pdf, "--children"]) == 0
    out = capsys.readouterr().out
    assert "3 units" in out and "page" in out


def test_the_bound_and_the_units_are_counted(
    page_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, _, _ = page_collection
    capsys.readouterr()
    assert main(["show", str(coll), "--json"]) == 0
    counters = json.loads(capsys.readouterr().out)["counters"]
    assert counters["units/pages/page"] == 3 and counters["units/pages/slide"] == 3
    assert counters["units/pages/capped"] == 1  # the deck has four slides
    assert counters["store/records"] == 3 + 3 + 3
