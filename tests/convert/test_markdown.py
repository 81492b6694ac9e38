"""Markdown renderings: headings, list items, table cells and links kept, for every format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.convert.corpus import BUILDERS, build
from tests.convert.structured import structured
from trawl.cli.main import main
from trawl.convert.base import ConvertOptions
from trawl.convert.markdown import MarkdownWriter, escape, table, text_markdown
from trawl.convert.registry import convert_bytes

MD = ConvertOptions(markdown=True)


def _markdown(data: bytes, name: str) -> str:
    conversion = convert_bytes(data, filename=name, options=MD)
    assert conversion.converted is not None, conversion.message
    markdown = conversion.converted.metadata["markdown"]
    assert isinstance(markdown, str)
    return markdown


def _headings(markdown: str) -> list[str]:
    return [m[2] for m in re.finditer(r"(?m)^(#{1,6}) (.+)$", markdown)]


def _items(markdown: str) -> list[str]:
    return [m[1] for m in re.finditer(r"(?m)^\s*(?:-|\d+\.) (.+)$", markdown)]


def _cells(markdown: str) -> list[str]:
    return [
        c.strip()
        for line in markdown.splitlines()
        if line.startswith("| ")
        for c in line.strip("|").split(" | ")
    ]


@pytest.mark.parametrize("fmt", ["docx", "pptx", "odt"])
def test_structure_is_kept(fmt: str) -> None:
    pytest.importorskip({"docx": "docx", "pptx": "pptx", "odt": "odf"}[fmt])
    sample = structured(fmt)
    markdown = _markdown(sample.data, sample.name)
    assert _headings(markdown) == sample.headings
    assert _items(markdown) == sample.items
    assert [c.strip() for c in _cells(markdown)] == sample.cells
    for url, text in sample.links:
        assert f"[{text}]({url})" in markdown


def test_docx_lists_are_bulleted_or_numbered_and_tables_have_a_header() -> None:
    pytest.importorskip("docx")
    markdown = _markdown(structured("docx").data, "report.docx")
    assert "- Bullet dredge point 0\n1. Step minutes number 0" in markdown
    assert re.search(r"(?m)^\| .+ \|\n\|---\|---\|---\|$", markdown)


def test_sheets_are_tables_with_cells_in_their_columns() -> None:
    pytest.importorskip("openpyxl")
    sample = build("xlsx", size=3)
    markdown = _markdown(sample.data, sample.name)
    assert _headings(markdown) == sample.headings
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert rows[0] == "| Quay | Vessel | Cargo | Tonnes |"
    assert all(line.count(" | ") == 3 for line in rows)  # four columns in every row


def test_slides_are_headings_with_nested_bullets() -> None:
    pytest.importorskip("pptx")
    markdown = _markdown(structured("pptx").data, "charts.pptx")
    assert "## Quarterly tonnage\n\n- Ballast" in markdown
    assert "\n  - Permit mooring" in markdown  # a second-level bullet


@pytest.mark.parametrize("fmt", sorted(BUILDERS))
def test_every_format_has_markdown_with_its_words(fmt: str) -> None:
    pytest.importorskip(
        {"docx": "docx", "xlsx": "openpyxl", "pptx": "pptx", "pdf": "reportlab"}.get(fmt, "re")
    )
    if fmt in ("odt", "ods", "odp"):
        pytest.importorskip("odf")
    sample = build(fmt, size=4)
    markdown = _markdown(sample.data, sample.name)
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", sample.text)}
    found = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", markdown)}
    assert len(words & found) >= 0.95 * len(words), sorted(words - found)[:10]


def test_markdown_is_off_by_default() -> None:
    pytest.importorskip("docx")
    conversion = convert_bytes(build("docx").data, filename="a.docx")
    assert conversion.converted is not None and "markdown" not in conversion.converted.metadata


def test_escaping_and_tables() -> None:
    assert escape("# not a heading") == "\\# not a heading"
    assert escape("- not an item") == "\\- not an item"
    assert escape("12. not a number") == "12\\. not a number"
    assert escape("-5 degrees") == "-5 degrees"
    assert table([["a|b", "c"], ["d"]]) == "| a\\|b | c |\n|---|---|\n| d |  |"
    assert (
        text_markdown("Title\nbody\n# hash", [{"level": 1, "text": "Title"}]) == "# Title\n\nbody\n\n\\# hash"
    )
    writer = MarkdownWriter()
    writer.item("one")
    writer.item("two", 1, ordered=True)
    writer.paragraph("after")
    assert writer.render() == "- one\n  1. two\n\nafter"


def test_cli_format_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("docx")
    path = tmp_path / "report.docx"
    path.write_bytes(structured("docx").data)
    html = tmp_path / "page.html"
    html.write_bytes(build("html", size=2).data)
    assert main(["convert", "--format", "markdown", "--no-isolate", str(path), str(html)]) == 0
    out = capsys.readouterr().out
    assert f"<!-- {path}: docx -->" in out and "# Harbour operations" in out
    assert "| Ballast cell 00 |" in out and "# Harbour page" in out
    assert main(["convert", "--no-isolate", str(path)]) == 0
    assert "# Harbour operations" not in capsys.readouterr().out  # text stays the default


HTML = (
    b"<html><head><title>T</title></head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
    b"<article><h1>Harbour dues</h1><p>The dues are set by the <a href='https://harbour.example.org/board'>"
    b"harbour board</a> every year, and are published with the tide tables for every vessel.</p>"
    b"<ul><li>Pilotage for every vessel over forty metres</li><li>Berthing<ol><li>first hour free</li>"
    b"</ol></li></ul><table><tr><th>Vessel</th><th>Due</th></tr><tr><td><p>Ferry</p></td><td>12</td></tr>"
    b"</table><pre>due = tonnage * rate</pre></article></body></html>"
)


def test_html_keeps_nested_lists_tables_and_links() -> None:
    markdown = _markdown(HTML, "dues.html")
    assert "# Harbour dues" in markdown
    assert "[harbour board](https://harbour.example.org/board)" in markdown
    assert "- Pilotage for every vessel over forty metres\n- Berthing\n  1. first hour free" in markdown
    assert "| Vessel | Due |\n|---|---|\n| Ferry | 12 |" in markdown
    assert "```\ndue = tonnage * rate\n```" in markdown


def test_ingest_stores_the_main_content_s_markdown(tmp_path: Path) -> None:
    from trawl.acquire.localdir import file_document
    from trawl.config import load_config
    from trawl.jobs.procs import run_steps
    from trawl.jobs.steps import build_steps
    from trawl.pipeline.base import RunContext

    path = tmp_path / "dues.html"
    path.write_bytes(HTML)
    for markdown in (True, False):
        config = load_config(overrides=["langid.enabled=false", f"convert.markdown={str(markdown).lower()}"])
        steps = build_steps(config)
        try:
            (doc,) = run_steps(steps, [file_document(str(path), HTML)], RunContext())
        finally:
            for step in steps:
                step.close()
        if markdown:
            stored = doc.metadata["markdown"]
            assert stored.startswith("# Harbour dues") and "| Ferry | 12 |" in stored
            assert "About" not in stored  # the navigation is not main content
        else:
            assert "markdown" not in doc.metadata


def test_pdf_outline_titles_are_headings() -> None:
    pytest.importorskip("reportlab")
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    for i, (heading, body) in enumerate(
        [("Introduction", "The first page."), ("Methods", "The second page.")]
    ):
        pdf.drawString(72, 760, heading)
        pdf.bookmarkPage(f"p{i}")
        pdf.addOutlineEntry(heading, f"p{i}", level=0)
        pdf.drawString(72, 730, body)
        pdf.showPage()
    pdf.save()
    markdown = _markdown(buf.getvalue(), "paper.pdf")
    assert markdown == "# Introduction\n\nThe first page.\n\n# Methods\n\nThe second page."


def test_plain_lines_stay_paragraphs_under_a_commonmark_reader() -> None:
    """Lines that CommonMark would read as a code fence (swallowing every line after it), a
    thematic break or an HTML block come back from a real Markdown reader as the same text."""
    import html

    markdown_it = pytest.importorskip("markdown_it")
    lines = [
        "```python",
        "after the fence",
        "~~~",
        "---",
        "* * *",
        "___",
        "<!-- a note",
        "<div>",
        "# hash",
        "+ plus",
        "3) three",
        "-5 degrees",
    ]
    rendered = markdown_it.MarkdownIt("commonmark").render(text_markdown("\n".join(lines)))
    assert rendered == "".join(f"<p>{html.escape(line, quote=False)}</p>\n" for line in lines)


def test_a_link_text_inside_a_longer_one_links_its_own_occurrence() -> None:
    page = (
        b"<html><head><title>T</title></head><body><article><h1>Guides</h1><p>Start with "
        b"<a href='https://a.example/rtd'>Read the Docs</a> first, then the <a href='https://b.example/docs'>"
        b"Docs</a> index for every vessel that comes into the harbour.</p></article></body></html>"
    )
    markdown = _markdown(page, "guides.html")
    assert "[Read the Docs](https://a.example/rtd) first, then the [Docs](https://b.example/docs) index" in (
        markdown
    )


def test_two_links_with_the_same_text_in_one_docx_paragraph() -> None:
    """Links are written into the paragraph where they stand: the second ``here`` links the
    second occurrence, not the inside of the first link."""
    docx = pytest.importorskip("docx")
    import io

    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml

    document = docx.Document()
    para = document.add_paragraph("Rules are ")
    for url, after in [("https://a.example/rules", " and fees are "), ("https://b.example/fees", ".")]:
        rid = para.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        para._p.append(
            parse_xml(
                '<w:hyperlink xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
                f'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="{rid}">'
                "<w:r><w:t>here</w:t></w:r></w:hyperlink>"
            )
        )
        para.add_run(after)
    buf = io.BytesIO()
    document.save(buf)
    markdown = _markdown(buf.getvalue(), "rules.docx")
    expected = "Rules are [here](https://a.example/rules) and fees are [here](https://b.example/fees)."
    assert expected in markdown
