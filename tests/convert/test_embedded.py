"""Embedded objects: images' alt text and charts in the text, embedded files folded in or listed,
within their bounds."""

from __future__ import annotations

import io
import time
import zipfile

import pytest

from tests.convert.corpus import build
from tests.convert.structured import chart_pptx, docx_with_objects, pdf_with_attachment
from trawl.convert.base import ConvertOptions
from trawl.convert.embedded import embedded_files
from trawl.convert.registry import convert_bytes

FOLD = ConvertOptions(embedded="fold")


def test_alt_text_and_charts_are_text() -> None:
    pytest.importorskip("pptx")
    conversion = convert_bytes(chart_pptx().data, filename="charts.pptx")
    converted = conversion.converted
    assert converted is not None
    lines = converted.text.split("\n")
    for line in ("Tonnage by quay", "Imports", "Exports", "Map of the harbour approaches"):
        assert line in lines
    assert converted.counts["office/charts"] == 1 and converted.counts["office/alt-text"] == 1
    # the chart's own workbook is its data, not an embedded document
    assert embedded_files(chart_pptx().data, "pptx", FOLD).files == []


def test_docx_image_alt_text() -> None:
    pytest.importorskip("docx")
    converted = convert_bytes(docx_with_objects().data, filename="report.docx").converted
    assert converted is not None
    assert "Aerial photograph of the northern quay" in converted.text.split("\n")
    assert "Tonnage" not in converted.text  # units (the default): the workbook is not folded in


def test_fold_adds_the_embedded_workbook_under_its_name() -> None:
    pytest.importorskip("docx")
    pytest.importorskip("openpyxl")
    workbook = build("xlsx", seed=1, size=2)
    conversion = convert_bytes(docx_with_objects().data, filename="report.docx", options=FOLD)
    converted = conversion.converted
    assert converted is not None
    text = converted.text
    assert "\nMicrosoft_Excel_Worksheet.xlsx\nTonnage\n" in text
    for line in workbook.text.split("\n"):
        assert line.replace(" ", "\t") in text or line in text
    assert converted.metadata["embedded"] == [
        {
            "name": "Microsoft_Excel_Worksheet.xlsx",
            "type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "size": len(workbook.data),
            "format": "xlsx",
        }
    ]
    assert converted.counts["embedded/folded"] == 1


def test_pdf_attachments_are_found_and_folded() -> None:
    pytest.importorskip("reportlab")
    pytest.importorskip("pypdf")
    pytest.importorskip("docx")
    pdf, attached = pdf_with_attachment()
    found = embedded_files(pdf, "pdf", FOLD)
    assert [(f.name, f.data) for f in found.files] == [("minutes.docx", attached)]
    converted = convert_bytes(pdf, filename="review.pdf", options=FOLD).converted
    assert converted is not None and "\nminutes.docx\nHarbour Board Annual Review\n" in converted.text
    plain = build("pdf", seed=1, size=4).data
    assert embedded_files(plain, "pdf", FOLD).files == []  # no /EmbeddedFile: not even opened


def test_bounds_are_counted() -> None:
    pytest.importorskip("docx")
    data = docx_with_objects().data
    small = embedded_files(data, "docx", ConvertOptions(embedded_max_bytes=100))
    assert small.files == [] and small.counts == {"embedded/capped/bytes": 1}
    few = embedded_files(data, "docx", ConvertOptions(embedded_max_objects=0))
    assert few.files == [] and few.counts == {"embedded/capped/objects": 1}
    shallow = convert_bytes(
        data, filename="r.docx", options=ConvertOptions(embedded="fold", embedded_max_depth=0)
    )
    assert shallow.converted is not None and shallow.converted.counts["embedded/capped/depth"] == 1
    assert "Pilotage" not in shallow.converted.text


def test_a_broken_embedded_file_is_counted_and_the_document_kept() -> None:
    pytest.importorskip("docx")
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(build("docx", size=2).data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info.filename))
        dst.writestr("word/embeddings/broken.docx", b"PK\x03\x04 not really a package")
    conversion = convert_bytes(buf.getvalue(), filename="r.docx", options=FOLD)
    converted = conversion.converted
    assert converted is not None and conversion.dropped is None
    assert converted.metadata["embedded"][0]["name"] == "broken.docx"
    assert converted.metadata["embedded"][0]["dropped"]
    assert any(key.startswith("embedded/failed/") for key in converted.counts)


def test_odf_sub_documents_are_repacked() -> None:
    pytest.importorskip("odf")
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    inner = build("ods", size=2)
    outer = OpenDocumentText()
    outer.text.addElement(P(text="Outer text"))
    buf = io.BytesIO()
    outer.write(buf)
    rebuilt = io.BytesIO()
    with (
        zipfile.ZipFile(buf) as src,
        zipfile.ZipFile(inner_zip := io.BytesIO(inner.data)) as sub,
        zipfile.ZipFile(rebuilt, "w") as dst,
    ):
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "META-INF/manifest.xml":
                data = data.replace(
                    b"</manifest:manifest>",
                    b'<manifest:file-entry manifest:full-path="Object 1/" '
                    b'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>',
                )
            dst.writestr(info, data)
        for name in ("content.xml", "meta.xml", "styles.xml"):
            dst.writestr(f"Object 1/{name}", sub.read(name))
    del inner_zip
    found = embedded_files(rebuilt.getvalue(), "odt", FOLD)
    assert [f.name for f in found.files] == ["Object_1.ods"]
    converted = convert_bytes(found.files[0].data, filename="Object_1.ods").converted
    assert converted is not None and converted.metadata["sheets"] == ["Berths", "Cranes"]


def test_xlsx_charts_and_their_series_are_text() -> None:
    pytest.importorskip("openpyxl")
    import openpyxl
    from openpyxl.chart import BarChart, Reference

    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Tonnage"
    for row in (["Quay", "Imports", "Exports"], ["North", 120, 60], ["South", 80, 95]):
        ws.append(row)
    chart = BarChart()
    chart.title = "Tonnage by quay"
    chart.add_data(Reference(ws, min_col=2, max_col=3, min_row=1, max_row=3), titles_from_data=True)
    ws.add_chart(chart, "E2")
    buf = io.BytesIO()
    wb.save(buf)
    converted = convert_bytes(buf.getvalue(), filename="t.xlsx").converted
    assert converted is not None
    lines = converted.text.split("\n")
    # after the sheet's rows, in its segment (openpyxl writes series names as bare cell references,
    # without the cached text a series name is read from: the cells themselves are the sheet's text)
    assert lines[-2:] == ["South\t80\t95", "Tonnage by quay"]
    assert converted.segments[-1].end == len(converted.text)
    assert converted.counts["office/charts"] == 1


def test_odf_chart_objects_are_text() -> None:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:chart="urn:oasis:names:tc:opendocument:xmlns:chart:1.0" '
        'xmlns:xlink="http://www.w3.org/1999/xlink"'
    )
    content = (
        f"<office:document-content {ns}><office:body><office:text><text:p>Before the chart</text:p>"
        '<text:p><draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></text:p>'
        "<text:p>After the chart</text:p></office:text></office:body></office:document-content>"
    )
    chart = (
        f"<office:document-content {ns}><office:body><office:chart><chart:chart>"
        "<chart:title><text:p>Tide heights</text:p></chart:title><table:table><table:table-header-rows>"
        "<table:table-row><table:table-cell/><table:table-cell><text:p>Spring</text:p></table:table-cell>"
        "<table:table-cell><text:p>Neap</text:p></table:table-cell></table:table-row>"
        "</table:table-header-rows></table:table></chart:chart></office:chart></office:body></office:document-content>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        zf.writestr("content.xml", content)
        zf.writestr("Object 1/content.xml", chart)
    converted = convert_bytes(buf.getvalue(), filename="c.odt").converted
    assert converted is not None
    assert converted.text.split("\n") == [
        "Before the chart",
        "Tide heights",
        "Spring",
        "Neap",
        "After the chart",
    ]
    assert embedded_files(buf.getvalue(), "odt", FOLD).files == []  # a chart is no embedded document


def test_a_file_name_is_no_alt_text() -> None:
    pptx = pytest.importorskip("pptx")
    from pptx.util import Inches

    from tests.convert.structured import png_bytes

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_picture(io.BytesIO(png_bytes()), Inches(1), Inches(1))  # descr="image.png", as written
    buf = io.BytesIO()
    prs.save(buf)
    converted = convert_bytes(buf.getvalue(), filename="p.pptx").converted
    assert converted is not None and "image.png" not in converted.text
    assert "office/alt-text" not in converted.counts


def _odt_listing(entries: list[str], members: dict[str, bytes]) -> bytes:
    """A bare ODT package whose manifest lists ``entries`` as spreadsheet sub-documents."""
    listed = "".join(
        f'<manifest:file-entry manifest:full-path="{path}" '
        'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        for path in entries
    )
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="/" '
        'manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        f"{listed}</manifest:manifest>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        zf.writestr("META-INF/manifest.xml", manifest)
        zf.writestr("content.xml", "<office:document-content/>")
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_an_odf_sub_document_listed_twice_is_one_file() -> None:
    data = _odt_listing(["Object 1/", "Object 1/"], {"Object 1/content.xml": b"<x/>"})
    found = embedded_files(data, "odt", FOLD)
    assert [f.name for f in found.files] == ["Object_1.ods"], found.counts


def test_a_manifest_listing_a_large_sub_document_again_and_again_is_bounded() -> None:
    """Embedded files are looked for in the parent process, unguarded: a manifest that names an
    over-size sub-document thousands of times, in a package of thousands of members, must not
    cost entries x members (each entry lists the members under its path)."""
    members = {f"filler/{i}": b"" for i in range(4000)}
    members["Object 2/content.xml"] = b"x" * 2000
    data = _odt_listing(["Object 2/"] * 4000, members)
    options = ConvertOptions(embedded="fold", embedded_max_bytes=1000)
    t0 = time.perf_counter()
    found = embedded_files(data, "odt", options)
    assert time.perf_counter() - t0 < 0.5
    assert found.files == [] and found.counts["embedded/capped/bytes"] == 1
