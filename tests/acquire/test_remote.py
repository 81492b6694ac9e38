"""Inputs named by s3:// URLs: sniffed, read and stored as their local copies are, against a real S3
server on loopback (moto, tests/s3.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.s3 import S3Server
from trawl.acquire.detect import sniff_input, sources_for
from trawl.acquire.remote import RemoteFileSource
from trawl.cli.main import main
from trawl.document import Document
from trawl.errors import InputError
from trawl.pipeline.base import Audit, RunContext
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection
from trawl.store.warcfile import WarcFileWriter

DATA = Path(__file__).resolve().parents[1] / "data"


def _ingest(sources: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["ingest", *sources, "-o", str(out), "--no-progress", "--json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def _stored(out: Path) -> dict[str, tuple[str, str, str]]:
    """Each stored record's URL → (title, text, source)."""
    with Collection.open(out) as coll:
        return {r.url: (r.title, r.text, r.capture["source"]) for r in coll.records()}


def test_sniff_remote_inputs(s3: S3Server) -> None:
    base = s3.prefix("sniff")
    for name, kind in [
        ("warc/good.warc.gz", "warc"),
        ("warc/good.warc.bz2", "warc"),
        ("warc/arc-v1.arc.gz", "arc"),
        ("trec/gov2-sample.trec.gz", "trec"),
        ("trec/wt10g-sample.trec", "trec"),
        ("warc/not-warc.txt", "file"),
        ("warc/empty.warc", "warc"),  # no bytes: the name is the only evidence
    ]:
        url = s3.upload(DATA / name, f"{base}/{name}")
        assert sniff_input(url) == kind, name
    assert sniff_input(f"{base}/trec") == "directory"
    with pytest.raises(InputError, match=r"s3://trawl-test/sniff-\d+/missing\.warc\.gz' does not exist"):
        sniff_input(f"{base}/missing.warc.gz")


def test_ingest_s3_warcs_stores_what_the_local_copies_store(
    s3: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the committed WARC fixtures (good and damaged ones) and a larger WARC read by the fast path
    local = sorted((DATA / "warc").glob("*.warc.gz"))
    with WarcFileWriter(tmp_path / "big", prefix="big") as writer:
        for i in range(60):
            body = f"<html><title>Page {i}</title><p>{'words ' * 400}{i}</p></html>".encode()
            writer.write(
                Document(
                    url=f"http://big.example/{i}",
                    raw=body,
                    status=200,
                    http_headers=[("Content-Type", "text/html; charset=utf-8")],
                )
            )
    local += sorted((tmp_path / "big").glob("*.warc.gz"))
    local.sort(key=lambda p: p.name)  # the glob's order, so both runs read the same sequence
    base = s3.prefix("ingest")
    for path in local:
        s3.upload(path, f"{base}/{path.name}")
    by_local = _ingest([str(p) for p in local], tmp_path / "local", capsys)
    by_s3 = _ingest([f"{base}/*.warc.gz"], tmp_path / "s3", capsys)

    here, there = _stored(tmp_path / "local"), _stored(tmp_path / "s3")
    assert len(here) > 60 and sorted(here) == sorted(there)
    for url, (title, text, source) in here.items():
        s3_title, s3_text, s3_source = there[url]
        assert (s3_title, s3_text) == (title, text)
        # provenance keeps the full URL, at the same offset
        name, offset = source.rsplit("@", 1)
        assert s3_source == f"{base}/{Path(name).name}@{offset}"
    counts = by_local["counters"]
    assert counts["read/files"] == len(local) and sum(v for k, v in counts.items() if k.startswith("drop/"))
    same = {k: v for k, v in counts.items() if k.startswith(("read/", "drop/", "store/records"))}
    assert {k: by_s3["counters"].get(k) for k in same} == same


def test_ingest_s3_trec_and_loose_files(
    s3: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = s3.prefix("mixed")
    trec = s3.upload(DATA / "trec" / "gov2-sample.trec.gz", f"{base}/gov2-sample.trec.gz")
    page = tmp_path / "report.html"
    page.write_bytes(
        b"<html><head><title>Quarterly report</title></head><body><p>Tides rose.</p></body></html>"
    )
    html = s3.upload(page, f"{base}/docs/report.html")
    note = tmp_path / "note.txt"
    note.write_text("A note in plain text.\n", encoding="utf-8")
    s3.upload(note, f"{base}/docs/note.txt")

    counters = _ingest([trec, html, f"{base}/docs/"], tmp_path / "s3", capsys)["counters"]
    stored = _stored(tmp_path / "s3")
    trec_records = _ingest([str(DATA / "trec" / "gov2-sample.trec.gz")], tmp_path / "trec", capsys)
    local = _stored_after(
        [str(DATA / "trec" / "gov2-sample.trec.gz"), str(page), str(note)], tmp_path / "local", capsys
    )
    trec_urls = {u for u, (_, _, src) in local.items() if "gov2-sample" in src}
    assert trec_urls and trec_urls <= set(stored)
    for url in trec_urls:
        assert stored[url][:2] == local[url][:2]
        assert stored[url][2].startswith(f"{trec}@")
    # a loose file is one document at its URL, read in full (given alone and found in the folder)
    assert stored[html] == ("Quarterly report", local[page.resolve().as_uri()][1], html)
    assert stored[f"{base}/docs/note.txt"][1] == local[note.resolve().as_uri()][1]
    assert local[note.resolve().as_uri()][1] == "A note in plain text.\n"
    # the TREC file's records, report.html twice (given, and in the folder), note.txt
    assert counters["read/records"] == trec_records["counters"]["read/records"] + 3


def _stored_after(sources: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    _ingest(sources, out, capsys)
    return _stored(out)


def test_missing_remote_input_fails_before_reading(
    s3: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = s3.prefix("gone")
    good = s3.upload(DATA / "warc" / "good.warc.gz", f"{base}/good.warc.gz")
    assert main(["ingest", good, f"{base}/absent.warc.gz", "-o", str(tmp_path / "c"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert f"{base}/absent.warc.gz" in err and "does not exist" in err and "\n" not in err
    assert main(["ingest", f"{base}/*.arc", "-o", str(tmp_path / "c"), "--no-progress"]) == 1
    assert f"{base}/*.arc' matches no file" in capsys.readouterr().err


def test_remote_file_source_drops_with_reasons(s3: S3Server, tmp_path: Path) -> None:
    base = s3.prefix("drops")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 2000)
    urls = [s3.upload(empty, f"{base}/empty.txt"), s3.upload(big, f"{base}/big.txt"), f"{base}/vanished.txt"]
    ctx = RunContext(Stats(), Audit(None))
    docs = list(RemoteFileSource(urls, max_file_bytes=1000).read(ctx))
    assert docs == []
    assert ctx.stats.get("drop/remote/empty-file") == 1
    assert ctx.stats.get("drop/remote/too-large") == 1
    assert ctx.stats.get("drop/remote/unreadable") == 1
    reasons = {d.reason: d.message for d in ctx.audit.entries}
    assert f"{base}/vanished.txt" in reasons["remote/unreadable"]
    # the folder reader's options are taken for the remote files: one source, the config's bound
    (source,) = sources_for([f"{base}/big.txt"], options={"remote": {"max_file_bytes": 10}})
    assert isinstance(source, RemoteFileSource) and source.max_file_bytes == 10


def test_watch_refuses_a_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # no server needed: refused before any input is touched
    assert main(["ingest", "s3://bucket/crawl/", "-o", str(tmp_path / "c"), "--watch", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--watch follows local folders" in err and "'s3://bucket/crawl/'" in err
