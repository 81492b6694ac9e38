"""TREC Web: written with a DOCNO index, indexed after the fact, read one document at a time."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trawl.document import Document
from trawl.errors import RecordNotFound, StoreError, TrecFormatError
from trawl.store.trecweb import TrecWebIndex, TrecWebWriter, build_index, read_trec_at

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _docs(n: int) -> list[Document]:
    return [
        Document(
            url=f"http://h{i % 3}.example/p{i}",
            docno=f"WTX-{i:04d}",
            fetched_at=T0,
            status=200,
            http_headers=[("Content-Type", "text/html; charset=windows-1252")],
            raw=f"<html><p>page {i} caf\xe9</p> </DOC> inside a line stays</html>".encode("cp1252"),
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("name", ["out.trec", "out.trec.gz"])
def test_write_index_and_read_each_document_alone(tmp_path: Path, name: str) -> None:
    docs = _docs(50)
    path = tmp_path / name
    with TrecWebWriter(path) as w:
        entries = [w.write(d) for d in docs]
    index = TrecWebIndex(path)
    assert len(index) == 50 and "WTX-0049" in index
    for d, (docno, offset, length) in zip(docs, entries, strict=True):
        back = index.get(docno)
        assert (back.url, back.docno, back.status, back.fetched_at, back.raw) == (
            d.url,
            d.docno,
            200,
            T0,
            d.raw,
        )
        assert back.http_headers == [("Content-Type", "text/html; charset=windows-1252")]
        assert read_trec_at(path, offset, length).raw == d.raw
    if name.endswith(".gz"):  # one valid gzip stream for tools that read it whole
        assert gzip.decompress(path.read_bytes()).count(b"<DOC>\n") == 50
    # the index can be rebuilt from the file alone, with the same entries
    written = (tmp_path / (name + ".idx")).read_text()
    (tmp_path / (name + ".idx")).unlink()
    build_index(path)
    assert (tmp_path / (name + ".idx")).read_text() == written
    with pytest.raises(RecordNotFound, match="no DOCNO"):
        index.get("nope")


def test_the_trec_reader_of_acquire_reads_what_the_writer_wrote(tmp_path: Path) -> None:
    from trawl.acquire.trec import TrecSource
    from trawl.pipeline import RunContext

    docs = _docs(10)
    with TrecWebWriter(tmp_path / "x.trec") as w:
        for d in docs:
            w.write(d)
    read = list(TrecSource([tmp_path / "x.trec"]).read(RunContext()))
    assert [(r.docno, r.url, r.raw) for r in read] == [(d.docno, d.url, d.raw) for d in docs]


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    whole = tmp_path / "whole.trec.gz"
    whole.write_bytes(
        gzip.compress(b"<DOC>\n<DOCNO>a</DOCNO>\nx\n</DOC>\n<DOC>\n<DOCNO>b</DOCNO>\ny\n</DOC>\n")
    )
    with pytest.raises(StoreError, match="one stream"):
        build_index(whole)
    plain = tmp_path / "plain.trec"
    plain.write_bytes(b"<DOC>\n<DOCNO>a</DOCNO>\n<TEXT>hello</TEXT>\n</DOC>\n<DOC>\nno docno\n</DOC>\n")
    with pytest.raises(TrecFormatError, match="without a <DOCNO>"):
        build_index(plain)
    with pytest.raises(TrecFormatError, match="no <DOC>"):
        read_trec_at(plain, 3, 10)
    with pytest.raises(RecordNotFound):
        read_trec_at(tmp_path / "missing.trec", 0, 10)
    with TrecWebWriter(tmp_path / "dup.trec") as w:
        w.write(_docs(1)[0])
        with pytest.raises(StoreError, match="twice"):
            w.write(_docs(1)[0])
        with pytest.raises(StoreError, match="cannot be written"):
            w.write(_docs(1)[0], docno="has space")
