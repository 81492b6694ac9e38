"""A small collection for the web tests: local HTML files (a script-tag title, exact twins) and
a WARC of HTTP responses, deduplicated; built once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")

from trawl.cli.main import main
from trawl.jobs.ingest import ingest
from trawl.store.collection import Collection

EVIL_TITLE = "<script>alert(1)</script>"
TWIN_TEXT = (
    "The quick brown fox jumps over the lazy dog while the cat watches from the warm windowsill "
    "all afternoon long."
)


def write_pages(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in (1, 2):
        (folder / f"twin{i}.html").write_text(
            f"<html><head><title>Twin {i}</title></head><body><p>{TWIN_TEXT}</p></body></html>"
        )
    (folder / "evil.html").write_text(
        f"<html><head><title>{EVIL_TITLE}</title></head><body><p>A page whose title is a script "
        "tag, with enough words of text to be kept.</p></body></html>"
    )
    (folder / "cats.html").write_text(
        "<html><head><title>About cats</title></head><body><p>Cats sleep most of the day and "
        "hunt at dusk; zebrafish are not their usual prey.</p></body></html>"
    )


def build(path: Path, pages: Path, warc: Path | None) -> Path:
    write_pages(pages)
    with Collection.create(path) as coll:
        ingest([pages] + ([warc] if warc else []), coll)
    return path


@pytest.fixture(scope="session")
def collection(tmp_path_factory: pytest.TempPathFactory, test_data: Path) -> Path:
    root = tmp_path_factory.mktemp("web")
    path = build(root / "coll", root / "pages", test_data / "warc" / "good.warc.gz")
    assert main(["dedup", str(path)]) == 0
    return path
