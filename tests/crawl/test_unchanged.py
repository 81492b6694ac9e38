"""An unchanged revisit (a 304) is a new version of the capture and a WARC revisit record
(profile server-not-modified) referring to the stored response; the version keeps the page's
text, and ``trawl get`` of the revisit's FILE@OFFSET returns exactly that capture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trawl.crawl.crawler import CrawlSettings
from trawl.testweb import ServerThread, TestWeb


def test_a_304_is_a_version_and_a_revisit_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from warcio.archiveiterator import ArchiveIterator

    from trawl.cli.main import main
    from trawl.jobs.crawl import crawl
    from trawl.store.collection import Collection
    from trawl.store.warcfile import SERVER_NOT_MODIFIED

    web = TestWeb(3, hosts=1, pages=3, special=False, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, revisit=True, revisit_min=0.3, revisit_max=0.6,
            max_seconds=3.0, sitemaps=False, include=(r"/p/0\.html$",),
            resolve=tuple(server.resolve_rules()),
        )  # fmt: skip
        with Collection.create(tmp_path / "c") as coll:
            result = crawl(["http://h0.test/p/0.html"], coll, settings)
        not_modified = [e for e in server.log if e.target == "/p/0.html" and e.status == 304]
    assert result.stats.get("fetch/not-modified") >= 2 and len(not_modified) >= 2
    url = "http://h0.test/p/0.html"
    responses: dict[str, str] = {}
    revisits = []
    for path in sorted((tmp_path / "c" / "warc").glob("*.warc.gz")):
        with path.open("rb") as fh:
            it = ArchiveIterator(fh, check_digests=True)
            for rec in it:
                if rec.rec_headers.get_header("WARC-Target-URI") != url:
                    continue
                if rec.rec_type == "response":
                    responses[rec.rec_headers.get_header("WARC-Record-ID")] = url
                elif rec.rec_type == "revisit":
                    revisits.append((path.name, it.get_record_offset(), rec.rec_headers, rec.http_headers))
    assert len(responses) == 1 and len(revisits) == result.stats.get("fetch/not-modified")
    name, offset, head, http = revisits[-1]
    assert head.get_header("WARC-Profile") == SERVER_NOT_MODIFIED
    assert head.get_header("WARC-Refers-To") in responses  # the one stored response, never a revisit
    assert head.get_header("WARC-Refers-To-Date") and http.get_statuscode() == "304"
    with Collection.open(tmp_path / "c") as coll:
        versions = coll.versions(url)
        assert len(versions) == 1 + len(revisits)
        first, last = versions[0].as_dict(), versions[-1].as_dict()
        assert first["status"] == 200 and last["status"] == 304 and last["record_type"] == "revisit"
        assert first["text"] and last["text"] == first["text"] and last["title"] == first["title"]
        assert last["revisit_of"]["record_id"] == head.get_header("WARC-Refers-To")
    assert main(["get", str(tmp_path / "c"), f"{name}@{offset}", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == 304 and got["text"] == first["text"]
    assert result.stats.get("store/unchanged/get") == len(revisits)
