"""iWork packages (trawl.convert.iwork): told from plain ZIPs by their members, read from their
iWork '09 XML body or their preview PDF, else skipped with a counted reason.

The packages are built here with the members and XML vocabulary (``sl:``/``key:``/``sf:``) of
iWork '09 files; no Apple application writes them on this machine."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from tests.convert.corpus import build
from trawl.acquire.localdir import LocalDirSource
from trawl.convert.base import ConvertOptions
from trawl.convert.registry import convert_bytes
from trawl.jobs.steps import default_steps
from trawl.pipeline import Pipeline
from trawl.pipeline.base import RunContext

_NS = (
    'xmlns:sl="http://developer.apple.com/namespaces/sl" xmlns:sf="http://developer.apple.com/namespaces/sf" '
    'xmlns:sfa="http://developer.apple.com/namespaces/sfa" xmlns:key="http://developer.apple.com/namespaces/keynote2"'
)
PAGES_XML = (
    f'<?xml version="1.0"?><sl:document {_NS}><sl:metadata><sl:title><sf:string sfa:string="Quay Report"/>'
    '</sl:title><sl:authors><sf:string sfa:string="Marta Lindqvist"/></sl:authors></sl:metadata>'
    "<sf:stylesheet><sf:p>Style sample text</sf:p></sf:stylesheet><sf:text-storage><sf:text-body>"
    "<sf:p>Harbour<sf:tab/>pilot report</sf:p><sf:p>The dredger <sf:span>waited</sf:span> at the quay</sf:p>"
    '<sf:tabular-model><sf:ct sfa:s="Tonnage"/><sf:n sf:v="4200"/></sf:tabular-model>'
    "</sf:text-body></sf:text-storage></sl:document>"
).encode()
KEY_XML = (
    f'<?xml version="1.0"?><key:presentation {_NS}><key:master-slides><key:master-slide>'
    "<sf:p>Double-click to edit</sf:p></key:master-slide></key:master-slides><key:slide-list><key:slide>"
    "<sf:p>Tide tables for spring</sf:p></key:slide></key:slide-list></key:presentation>"
).encode()


def package(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_an_iwork_09_body_is_read() -> None:
    data = package({"index.xml.gz": gzip.compress(PAGES_XML), "QuickLook/Thumbnail.jpg": b"\xff\xd8\xff"})
    conversion = convert_bytes(data, filename="report.pages")
    assert conversion.identity.format == "pages" and conversion.identity.mime == "application/vnd.apple.pages"
    assert not conversion.identity.disagree
    out = conversion.converted
    assert out is not None and out.metadata["converter"] == "iwork-xml"
    assert out.text == "Harbour pilot report\nThe dredger waited at the quay\nTonnage\n4200"
    assert out.title == "Quay Report" and out.metadata["author"] == "Marta Lindqvist"
    # the same members under another name: Numbers; a zipped bundle folder is found too
    assert convert_bytes(data, filename="sheet.numbers").identity.format == "numbers"
    bundle = package({"Report.pages/index.xml": PAGES_XML, "Report.pages/QuickLook/Thumbnail.jpg": b""})
    assert convert_bytes(bundle).identity.format == "pages"


def test_keynote_is_known_by_its_members_and_masters_are_left_out() -> None:
    data = package({"index.apxl.gz": gzip.compress(KEY_XML), "QuickLook/Thumbnail.jpg": b""})
    conversion = convert_bytes(data)  # no file name
    assert conversion.identity.format == "key" and conversion.converted is not None
    assert conversion.converted.text == "Tide tables for spring"


def test_the_preview_pdf_is_read_when_the_body_is_missing_or_broken() -> None:
    pytest.importorskip("reportlab")
    pdf = build("pdf", 1, 3)
    only_preview = package(
        {"QuickLook/Preview.pdf": pdf.data, "QuickLook/Thumbnail.jpg": b"", "index.xml": b"<a/>"}
    )
    out = convert_bytes(only_preview, filename="r.pages").converted
    assert out is not None and out.metadata["converter"] == "iwork-preview"
    assert "Ballast" in out.text
    broken = package({"QuickLook/Preview.pdf": pdf.data, "index.apxl.gz": b"not gzip at all"})
    out = convert_bytes(broken).converted
    assert out is not None and out.metadata["converter"] == "iwork-preview"
    assert out.counts["iwork/preview/iwork-damaged"] == 1 and out.warnings


def test_a_gzipped_body_past_the_limit_is_a_bomb() -> None:
    data = package({"index.xml.gz": gzip.compress(b"<a>" + b" " * (4 << 20) + b"</a>"), "QuickLook/x": b""})
    conversion = convert_bytes(data, filename="x.pages", options=ConvertOptions(max_unzipped_bytes=1 << 20))
    assert conversion.dropped == "zip-bomb"


def test_a_modern_package_is_skipped_and_counted(tmp_path: Path) -> None:
    modern = {"Index/Document.iwa": b"\x00\x10", "Metadata/Properties.plist": b"bplist00", "preview.jpg": b""}
    (tmp_path / "letter.pages").write_bytes(package(modern))
    (tmp_path / "plain.zip").write_bytes(package({"index.xml": b"<a>not iWork</a>"}))
    ctx = RunContext()
    docs = {Path(d.source).name: d for d in Pipeline([LocalDirSource([tmp_path])], default_steps(), ctx)}
    assert set(docs) == {"letter.pages", "plain.zip"}
    assert ctx.stats["convert/skipped/unsupported-iwork-version"] == 1
    assert docs["letter.pages"].metadata["format"] == "pages" and not docs["letter.pages"].text
    assert docs["plain.zip"].metadata["format"] == "zip"
