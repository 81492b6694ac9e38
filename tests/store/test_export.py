"""Exports (Parquet URL index queried by DuckDB, JSONL, TREC Web) and the get/export commands."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trawl.cli.main import main
from trawl.document import Document, Link
from trawl.pipeline import Pipeline, RunContext, Source
from trawl.store.collection import Collection
from trawl.store.export import CC_COLUMNS
from trawl.store.trecweb import TrecWebIndex

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class Docs(Source):
    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
        yield from self.docs


def _collection(path: Path) -> list[Document]:
    docs = [
        Document(
            url=f"https://www.h{i % 4}.example.co.uk:8443/dir/p{i}.html?q={i}"
            if i % 5 == 0
            else f"http://h{i % 4}.example.org/p{i}",
            docno=f"D-{i:03d}",
            fetched_at=T0,
            status=200 if i % 7 else 404,
            http_headers=[("Content-Type", "text/html; charset=utf-8")],
            declared_type="text/html",
            raw=f"<html><title>Page {i}</title>text {i}</html>".encode(),
            title=f"Page {i}",
            text=f"text {i}",
            encoding="utf-8",
            links=[Link(f"http://h0.example.org/p{(i + 1) % 30}", f"to page {(i + 1) % 30}")],
        )
        for i in range(30)
    ]
    docs.append(Document(url="http://copy.example.org/", fetched_at=T0, status=200, raw=docs[3].raw))
    with Collection.create(path) as coll:
        Pipeline([Docs(docs)], [coll.writer()]).run()
    return docs


def test_parquet_index_has_common_crawl_columns_and_duckdb_queries_it(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    _collection(tmp_path / "c")
    out = tmp_path / "index.parquet"
    assert main(["export", str(tmp_path / "c"), "--format", "parquet", "-o", str(out), "--json"]) == 0
    con = duckdb.connect()
    columns = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM '{out}'").fetchall()]
    assert columns[: len(CC_COLUMNS)] == [name for name, _ in CC_COLUMNS]
    # a Common Crawl style query: pages per host with status 200, and where one record lies
    rows = con.execute(
        f"SELECT url_host_name, count(*) FROM '{out}' WHERE fetch_status = 200 "
        "GROUP BY url_host_name ORDER BY url_host_name"
    ).fetchall()
    assert ("h1.example.org", 5) in rows and sum(n for _, n in rows) == 31 - 5
    one = con.execute(
        "SELECT url, url_surtkey, url_port, url_host_tld, url_path, url_query, content_mime_type,"
        " content_charset, fetch_time, warc_filename, warc_record_offset, warc_record_length,"
        " docno, warc_record_type"
        f" FROM '{out}' WHERE docno = 'D-005'"
    ).fetchone()
    assert one[0] == "https://www.h1.example.co.uk:8443/dir/p5.html?q=5"
    assert one[1] == "uk,co,example,h1:8443)/dir/p5.html?q=5" and one[2:6] == (
        8443,
        "uk",
        "/dir/p5.html",
        "q=5",
    )
    assert one[6:8] == ("text/html", "utf-8") and one[8].year == 2024 and one[13] == "response"
    with Collection.open(tmp_path / "c") as coll:  # the pointer in the index reads the record
        assert coll.read_at(one[9], one[10], one[11]).url == one[0]
    assert con.execute(f"SELECT count(*) FROM '{out}' WHERE warc_record_type = 'revisit'").fetchone() == (1,)


def test_jsonl_and_trec_exports_round_trip(tmp_path: Path) -> None:
    docs = _collection(tmp_path / "c")
    jsonl = tmp_path / "out.jsonl"
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", str(jsonl)]) == 0
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert len(lines) == 31 and {x["docno"] for x in lines if x["docno"]} == {
        d.docno for d in docs if d.docno
    }
    assert next(x for x in lines if x["docno"] == "D-008")["anchors"] == [
        {"from": "http://h3.example.org/p7", "text": "to page 8"}
    ]
    trec = tmp_path / "out.trec"
    assert main(["export", str(tmp_path / "c"), "-f", "trec", "-o", str(trec)]) == 0
    index = TrecWebIndex(trec)
    assert len(index) == 31
    for d in docs[:30]:
        assert index.get(d.docno or "").raw == d.raw
    # the duplicate is exported with its original's bytes (its revisit record is followed)
    copy = [n for n in index.docnos() if n.startswith("trawl-")]
    assert len(copy) == 1 and index.get(copy[0]).raw == docs[3].raw
    # importing the TREC export gives the same pages back, by DOCNO
    assert main(["ingest", str(trec), "-o", str(tmp_path / "again"), "--no-progress"]) == 0
    with Collection.open(tmp_path / "again") as coll:
        assert coll.read(coll.find("D-007")).raw == docs[7].raw


def test_get_shows_anchor_text_and_finds_by_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _collection(tmp_path / "c")
    assert main(["get", str(tmp_path / "c"), "http://h0.example.org/p8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["anchors"] == [{"from": "http://h3.example.org/p7", "text": "to page 8"}]
    assert main(["get", str(tmp_path / "c"), "http://h0.example.org/p8"]) == 0
    assert "to page 8" in capsys.readouterr().out
    assert main(["get", str(tmp_path / "c"), "--anchor", "page 8"]) == 0
    assert "http://h0.example.org/p8" in capsys.readouterr().out
    assert main(["get", str(tmp_path / "c"), "--anchor", "no such words"]) == 1
    capsys.readouterr()
    with Collection.open(tmp_path / "c") as coll:
        p = coll.find("D-002").pointer
    assert main(["get", str(tmp_path / "c"), f"{p.file}@{p.offset}", "--raw"]) == 0
    assert capsys.readouterr().out == "<html><title>Page 2</title>text 2</html>"
    assert main(["get", str(tmp_path / "c"), "D-002", "--text", "--as-of", "2020-01-01"]) == 1
    assert main(["get", str(tmp_path / "c"), "D-002", "--text", "--as-of", "2030-01-01T00:00:00Z"]) == 0
    assert main(["get", str(tmp_path / "c"), "D-002", "--as-of", "yesterday"]) == 2


def _recaptured(path: Path) -> list[Document]:
    """One URL captured three times (changed, then unchanged: a revisit), beside another page."""

    def capture(k: int, body: str) -> Document:
        return Document(
            url="http://news.example.org/front",
            fetched_at=T0 + timedelta(days=k),
            status=200,
            http_headers=[("Content-Type", "text/html; charset=utf-8")],
            raw=f"<html><title>{body}</title>{body}</html>".encode(),
            title=body,
            text=body,
        )

    docs = [capture(0, "first edition"), capture(1, "second edition"), capture(2, "second edition")]
    other = Document(url="http://news.example.org/about", fetched_at=T0, status=200, raw=b"<p>about us")
    with Collection.create(path) as coll:
        Pipeline([Docs([*docs, other])], [coll.writer()]).run()
    return docs


def test_every_capture_is_exported_in_every_format(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    docs = _recaptured(tmp_path / "c")
    front = "http://news.example.org/front"
    # JSONL: every capture with its own title and text, oldest first
    jsonl = tmp_path / "out.jsonl"
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", str(jsonl)]) == 0
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    mine = [x for x in lines if x["url"] == front]
    assert [x["title"] for x in mine] == ["first edition", "second edition", "second edition"]
    assert [x["revisit_of"] is not None for x in mine] == [False, False, True]  # stored as a revisit
    assert len(lines) == 4
    # WARC: the revisit's original is in the file, before it
    warc = tmp_path / "out.warc.gz"
    assert main(["export", str(tmp_path / "c"), "-f", "warc", "-o", str(warc)]) == 0
    seen: list[tuple[str, str, str | None]] = []
    with warc.open("rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_headers.get_header("WARC-Target-URI") == front:
                seen.append(
                    (
                        rec.rec_type,
                        rec.rec_headers.get_header("WARC-Record-ID"),
                        rec.rec_headers.get_header("WARC-Refers-To"),
                    )
                )
    assert [kind for kind, _, _ in seen] == ["response", "response", "revisit"]
    assert seen[2][2] == seen[1][1]
    # TREC Web: three documents with three DOCNOs, each with its own bytes
    trec = tmp_path / "out.trec"
    assert main(["export", str(tmp_path / "c"), "-f", "trec", "-o", str(trec)]) == 0
    index = TrecWebIndex(trec)
    assert len(index) == 4 and len(set(index.docnos())) == 4
    assert sorted(index.get(n).raw for n in index.docnos() if index.get(n).url == front) == sorted(
        d.raw for d in docs
    )


def test_every_capture_is_in_the_parquet_index(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    _recaptured(tmp_path / "c")
    out = tmp_path / "index.parquet"
    assert main(["export", str(tmp_path / "c"), "-f", "parquet", "-o", str(out)]) == 0
    table = pq.read_table(out).to_pylist()
    front = [r for r in table if r["url"] == "http://news.example.org/front"]
    assert [r["fetch_time"].day for r in front] == [1, 2, 3]
    assert [r["warc_record_type"] for r in front] == ["response", "response", "revisit"]
    assert len({(r["warc_filename"], r["warc_record_offset"]) for r in front}) == 3


def test_get_by_file_at_offset_returns_that_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _recaptured(tmp_path / "c")
    with Collection.open(tmp_path / "c") as coll:
        first = next(r for r in coll.captures() if r.title == "first edition")
        key = f"{first.pointer.file}@{first.pointer.offset}"
        found = coll.find(key)
        assert found.title == "first edition" and found.text == "first edition"
        assert coll.read(found).raw == b"<html><title>first edition</title>first edition</html>"
        assert coll.find(found.url).title == "second edition"  # by URL: the newest
        older = coll.find(found.url, as_of=T0 + timedelta(hours=1))  # each capture keeps its own cells
        assert (older.title, older.text, older.pointer) == ("first edition", "first edition", first.pointer)
    assert main(["get", str(tmp_path / "c"), key, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "first edition"


def test_output_goes_through_links_to_stdout_and_into_pipes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _recaptured(tmp_path / "c")
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)  # the link stays, its target is written
    assert len(real.read_text().splitlines()) == 4
    capsysbinary.readouterr()
    # "-" is standard output (the summary goes to standard error)
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", "-", "--json"]) == 0
    out, err = capsysbinary.readouterr()
    assert [json.loads(line)["url"] for line in out.splitlines()][-1] == "http://news.example.org/front"
    assert json.loads(err)["records"] == 4 and not (Path.cwd() / "-").exists()
    # a named pipe is written into, not replaced
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert main(["export", str(tmp_path / "c"), "-f", "warc", "-o", str(fifo)]) == 0
    reader.join(10)
    assert fifo.is_fifo() and got and got[0][:2] == b"\x1f\x8b"


def test_output_to_a_missing_folder_or_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _recaptured(tmp_path / "c")
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", str(tmp_path / "no" / "x.jsonl")]) == 1
    assert "does not exist" in capsys.readouterr().err
    folder = tmp_path / "out"
    folder.mkdir()
    assert main(["export", str(tmp_path / "c"), "-f", "jsonl", "-o", str(folder)]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert list(folder.iterdir()) == [] and not list(tmp_path.glob("*.tmp"))


def test_reingesting_a_warc_export_resolves_its_revisits(tmp_path: Path) -> None:
    docs = _recaptured(tmp_path / "c")
    # and a copy of the first edition under another URL: an identical payload, stored as a revisit
    copy = Document(url="http://aaa.example.org/mirror", fetched_at=T0, status=200, raw=docs[0].raw)
    with Collection.open(tmp_path / "c") as coll:
        Pipeline([Docs([copy])], [coll.writer()]).run()
    warc = tmp_path / "out.warc.gz"
    assert main(["export", str(tmp_path / "c"), "-f", "warc", "-o", str(warc)]) == 0
    assert main(["ingest", str(warc), "-o", str(tmp_path / "again"), "--no-progress"]) == 0
    with Collection.open(tmp_path / "again") as coll:
        captures = list(coll.captures())
        assert len(captures) == 5
        for record in captures:  # every capture, revisits included, has its page and its text
            assert coll.read(record).raw, record.url
            assert record.text, record.url
        mirror = coll.find("http://aaa.example.org/mirror")
        assert coll.read(mirror).raw == docs[0].raw and "first edition" in mirror.text
        counters = next(iter(s for _, s in coll.runs())).counters
    assert counters["read/revisits/resolved"] == 2 and "read/revisits/unresolved" not in counters


def test_a_revisit_whose_original_is_elsewhere_says_so(tmp_path: Path) -> None:
    from trawl.acquire.warc import WarcSource
    from trawl.store.warcfile import WarcFileWriter

    original = Document(
        url="http://x.example/", fetched_at=T0, status=200, raw=b"<p>payload", record_id="<urn:uuid:1>"
    )
    revisit = Document(
        url="http://x.example/",
        fetched_at=T0 + timedelta(days=1),
        status=200,
        record_type="revisit",
        raw=b"",
        warc_headers=[("WARC-Refers-To", "<urn:uuid:elsewhere>")],
    )
    with WarcFileWriter(tmp_path / "w", prefix="t", codec="gzip") as writer:
        writer.write(original)
        writer.write(revisit)
        files = writer.files
    ctx = RunContext()
    got = list(WarcSource([tmp_path / "w" / files[0]]).read(ctx))
    assert [d.record_type for d in got] == ["response", "revisit"]
    assert got[1].raw == b"" and any("not earlier in this input" in e for e in got[1].errors)
    assert ctx.stats["read/revisits/unresolved"] == 1


def test_as_of_before_the_first_capture_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _recaptured(tmp_path / "c")
    url = "http://news.example.org/front"
    assert main(["get", str(tmp_path / "c"), url, "--as-of", "2020-01-01T00:00:00Z"]) == 1
    err = capsys.readouterr().err
    assert "first captured at 2024-05-01" in err and "after the time asked" in err
    assert main(["get", str(tmp_path / "c"), "http://news.example.org/nowhere", "--as-of", "2020-01-01"]) == 1
    assert "no record for" in capsys.readouterr().err


def test_show_counts_urls_and_captures_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _recaptured(tmp_path / "c")
    assert main(["show", str(tmp_path / "c"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["urls"], info["captures"], info["documents"]) == (2, 4, 2)
    assert main(["show", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    assert "URLs" in out and "captures" in out and "ingest runs" not in out


def test_get_versions_lists_every_capture_and_a_docno_names_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _recaptured(tmp_path / "c")
    url = "http://news.example.org/front"
    assert main(["get", str(tmp_path / "c"), url, "--versions", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["title"] for r in rows] == ["first edition", "second edition", "second edition"]
    assert [r["revisit_of"] is not None for r in rows] == [False, False, True]
    assert [r["fetched_at"][:10] for r in rows] == ["2024-05-01", "2024-05-02", "2024-05-03"]
    assert main(["get", str(tmp_path / "c"), url, "--versions"]) == 0
    out = capsys.readouterr().out
    assert "3 captures, oldest first" in out and "revisit (unchanged)" in out
    assert main(["get", str(tmp_path / "c"), url, "--versions", "--raw"]) == 2
    # a DOCNO names its own capture, not the row's newest
    docs = [
        Document(
            url="http://trec.example/d",
            docno=f"DOC-{k}",
            fetched_at=T0 + timedelta(days=k),
            status=200,
            raw=f"<title>v{k}</title><p>version {k}".encode(),
            title=f"v{k}",
            text=f"version {k}",
        )
        for k in range(2)
    ]
    with Collection.create(tmp_path / "d") as coll:
        Pipeline([Docs(docs)], [coll.writer()]).run()
        assert coll.find("DOC-0").title == "v0" and coll.find("DOC-1").title == "v1"


def test_parquet_content_languages_are_iso639_3_like_common_crawl(tmp_path: Path) -> None:
    """The document's language first, then its passages' other languages by the characters they
    cover (Common Crawl's ``content_languages``: ``eng,fra``), from what ingest's tagger stored."""
    pq = pytest.importorskip("pyarrow.parquet")
    docs = [
        Document(url="http://a.example/en", fetched_at=T0, status=200, raw=b"x", text="x", lang="en",
                 lang_score=0.9, passages=[{"start": 0, "end": 80, "lang": "en", "chars": 80},
                                           {"start": 80, "end": 100, "lang": "fr", "chars": 20},
                                           {"start": 100, "end": 130, "lang": "zh", "chars": 30},
                                           {"start": 130, "end": 140, "lang": "und", "chars": 10}]),
        Document(url="http://a.example/none", fetched_at=T0, status=200, raw=b"y", text="y", lang="und",
                 lang_score=0.0, passages=[]),
        Document(url="http://a.example/sco", fetched_at=T0, status=200, raw=b"z", text="z", lang="sco",
                 lang_score=0.8, passages=[]),
    ]  # fmt: skip
    with Collection.create(tmp_path / "c") as coll:
        Pipeline([Docs(docs)], [coll.writer()]).run()
    out = tmp_path / "index.parquet"
    assert main(["export", str(tmp_path / "c"), "-f", "parquet", "-o", str(out)]) == 0
    table = pq.read_table(out, columns=["url", "content_languages"]).to_pylist()
    got = {row["url"]: row["content_languages"] for row in table}
    assert got == {
        "http://a.example/en": "eng,zho,fra",
        "http://a.example/none": None,
        "http://a.example/sco": "sco",
    }
