"""Archives others wrote: trawl keeps every document that warcio (the reference reader) recovers.

For each archive of warcio's own test suite (``../shared/data/warc/warcio-tests/``, read in
place; skipped where ``../shared`` is absent) and of trawl's fixtures (``tests/data/warc/``),
the documents warcio 1.8's ``ArchiveIterator(arc2warc=True)`` yields (response, resource,
revisit and conversion records) are matched against what ``WarcSource`` keeps:

* by target URI: warcio rewrites spaces as ``%20`` and trawl keeps the URI as recorded, so
  both are compared with spaces as ``%20`` and wget's ``<...>`` removed;
* by payload: warcio's payload must be a prefix of trawl's (equal, or trawl recovered more: a
  block whose Content-Length was short, a body in the next gzip member that warcio does not
  read) or, where trawl reads a non-HTTP block (an ARC record that is not HTTP), a suffix of
  it (warcio took the first line for an HTTP head); or trawl's a prefix of warcio's where trawl
  cut the block at a record that starts inside it and that warcio reads as part of it (a
  Content-Length that is too long).

What warcio yields without a URL is no document: junk it read as an ARC line
(``garbage.warc``) or a header cut before its URL ended (``truncated-end.warc.gz``). Documents
warcio yields before it fails on a file are still counted.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

from trawl.acquire.warc import WarcSource
from trawl.document import Document
from trawl.pipeline.base import RunContext

warcio_iterator = pytest.importorskip("warcio.archiveiterator")

KINDS = frozenset({"response", "resource", "revisit", "conversion"})
FIXTURES = Path(__file__).resolve().parent.parent / "data" / "warc"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_NEXT = re.compile(rb"\nWARC/1\.|\n[A-Za-z][A-Za-z0-9+.\-]*:[^\n]* \d{12,18} ")

#: documents trawl keeps from each of warcio's test archives (warcio's own count in the README)
WARCIO_TESTS = {
    "bad.arc": 3,  # 3: a -1 and an "abc" Archive-length, 18-digit dates
    "example-bad-non-chunked.warc.gz": 2,  # warcio fails: one gzip member for the whole file
    "example-digest.warc": 0,  # 0: request and metadata records only
    "example-iana.org-chunked.warc": 1,
    "example-resource.warc.gz": 1,
    "example-space-in-target-uri.warc.gz": 1,
    "example-space-in-url.arc": 1,  # 1: spaces in the ARC URL; the record is cut 12 bytes short
    "example-trunc.warc": 1,  # 1: Content-Length 2 bytes short of the block
    "example-wget-bad-target-uri.warc.gz": 3,
    "example-wrong-chunks.warc.gz": 1,  # warcio fails: body in its own member, length 1 short
    "example.arc": 1,
    "example.arc.gz": 1,
    "example.warc": 2,
    "example.warc.gz": 2,
    "post-test.warc.gz": 3,
}


def _uri(value: str) -> str:
    value = value.strip()
    if value[:1] == "<" and value[-1:] == ">":
        value = value[1:-1]
    return value.replace(" ", "%20")


def warcio_documents(path: Path) -> list[tuple[str, bytes]]:
    """(URI, raw payload) of the documents warcio yields, up to where it fails, if it does."""
    out: list[tuple[str, bytes]] = []
    with path.open("rb") as fh:
        try:
            for record in warcio_iterator.ArchiveIterator(fh, arc2warc=True):
                if record.rec_type not in KINDS:
                    continue
                uri = _uri(record.rec_headers.get_header("WARC-Target-URI") or "")
                if _SCHEME.match(uri):
                    out.append((uri, record.raw_stream.read()))
        except Exception:  # warcio gives up on some files; what it read before counts
            pass
    return out


def trawl_documents(path: Path) -> tuple[list[Document], RunContext]:
    ctx = RunContext()
    return list(WarcSource([path]).read(ctx)), ctx


def _covers(doc: Document, payload: bytes) -> bool:
    raw = doc.raw or b""
    if raw.startswith(payload):
        return True
    if doc.metadata.get("truncated") and payload.startswith(raw):
        rest = payload[len(raw) :]
        # warcio read on through the record end, or into the next record, which trawl keeps
        return not rest.strip(b"\r\n") or _NEXT.search(rest) is not None
    return doc.status is None and not doc.http_headers and raw.endswith(payload)


def assert_keeps_what_warcio_recovers(path: Path) -> list[Document]:
    docs, ctx = trawl_documents(path)
    unmatched = list(docs)
    for uri, payload in warcio_documents(path):
        match = next((d for d in unmatched if _uri(d.url) == uri and _covers(d, payload)), None)
        assert match is not None, (
            f"{path.name}: warcio recovers {uri} ({len(payload)} payload bytes), trawl does not; "
            f"kept {[(d.url, len(d.raw or b'')) for d in docs]}, drops {ctx.audit.entries}"
        )
        unmatched.remove(match)
    assert ctx.stats["read/records"] == len(docs)
    return docs


@pytest.mark.parametrize("name", sorted(WARCIO_TESTS))
def test_warcio_test_archives(name: str, shared_data: Path) -> None:
    path = shared_data / "warc" / "warcio-tests" / name
    docs = assert_keeps_what_warcio_recovers(path)
    assert len(docs) == WARCIO_TESTS[name]


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".warc", ".arc", ".gz", ".bz2")),
)
def test_trawl_fixtures(name: str) -> None:
    assert_keeps_what_warcio_recovers(FIXTURES / name)


def test_the_four_documents_once_lost(shared_data: Path) -> None:
    """The documents trawl 0.x dropped, now kept, each saying what was repaired."""
    root = shared_data / "warc" / "warcio-tests"
    (spaced,) = trawl_documents(root / "example-space-in-url.arc")[0]
    assert spaced.url.endswith("EmailTitle=Examples From The Live Web&IsPopUp=False")
    assert spaced.status == 200 and spaced.metadata["truncated"] is True  # the file ends 12 bytes early

    bad, ctx = trawl_documents(root / "bad.arc")
    assert [d.raw for d in bad] == [b"", b"\n", b""]
    assert [str(d.fetched_at)[:10] for d in bad] == ["2014-04-01", "2014-01-02", "2014-04-01"]
    assert "content-length: Content-Length is not a number: b'-1'" in bad[0].metadata["repaired"][1]
    assert ctx.stats["read/repaired/arc-date"] == 2
    assert ctx.audit.entries == []

    (trunc,) = trawl_documents(root / "example-trunc.warc")[0]
    body = trunc.raw or b""
    assert len(body) == 606 and zlib.decompress(body, 31).startswith(b"<!doctype html>")
    # Content-Length says 973, the block is 975: read to the record end, the gzip body is whole
    assert trunc.metadata["repaired"][0].startswith("content-length: the block of Content-Length 973")
