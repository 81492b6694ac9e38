from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar, Literal

import pytest

from trawl.document import Document
from trawl.errors import MissingDependency
from trawl.pipeline import Filter, Pipeline, RunContext, Source, Step, Verdict


class ListSource(Source):
    name: ClassVar[str] = "list"

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls

    def read(self, ctx: RunContext) -> Iterator[Document]:
        for url in self.urls:
            ctx.stats.inc("read/records")
            yield Document(url=url, raw=url.encode())


class Upper(Step):
    name: ClassVar[str] = "upper"

    def process(self, doc: Document) -> Document:
        if "boom" in doc.url:
            raise ValueError(f"cannot handle {doc.url}")
        doc.text = doc.url.upper()
        self.count("upper/done")
        return doc


class DropShort(Filter):
    name: ClassVar[str] = "short"

    def verdict(self, doc: Document) -> Verdict:
        return Verdict.drop("short/too-short") if len(doc.url) < 12 else Verdict.ok()


def test_steps_run_in_order_and_count() -> None:
    p = Pipeline([ListSource(["http://a.example/1", "http://b.example/2"])], [Upper()])
    docs = list(p)
    assert [d.text for d in docs] == ["HTTP://A.EXAMPLE/1", "HTTP://B.EXAMPLE/2"]
    assert p.ctx.stats["read/records"] == 2
    assert p.ctx.stats["upper/done"] == 2
    assert "upper" in p.ctx.stats.timings


def test_a_failing_document_is_counted_recorded_and_the_run_goes_on() -> None:
    urls = ["http://a.example/1", "http://a.example/boom", "http://a.example/3"]
    p = Pipeline([ListSource(urls)], [Upper()])
    docs = list(p)
    assert [d.url for d in docs] == urls  # on_error = keep: the failed doc goes on, marked
    assert docs[1].errors == ["upper: ValueError: cannot handle http://a.example/boom"]
    assert p.ctx.stats["error/upper/ValueError"] == 1
    (entry,) = p.ctx.audit.entries
    assert entry.kind == "error" and entry.stage == "upper" and "boom" in entry.message


def test_filter_drops_with_reason_and_counts() -> None:
    p = Pipeline([ListSource(["http://x/", "http://a.example/long"])], [DropShort()])
    docs = list(p)
    assert [d.url for d in docs] == ["http://a.example/long"]
    assert p.ctx.stats["drop/short/too-short"] == 1
    assert p.ctx.stats["filter/short/kept"] == 1
    assert p.ctx.audit.entries[0].reason == "short/too-short"


def test_missing_extra_fails_when_the_pipeline_is_built() -> None:
    class NeedsMissing(Step):
        requires: ClassVar[tuple[tuple[str, str], ...]] = (("no_such_module_xyz", "magic"),)

    with pytest.raises(MissingDependency) as info:
        Pipeline([ListSource([])], [NeedsMissing()])
    assert "pip install 'trawl[magic]'" in str(info.value)
    assert "no_such_module_xyz" in str(info.value)


def test_audit_writes_jsonl(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from trawl.pipeline import Audit

    ctx = RunContext(audit=Audit(tmp_path / "drops.jsonl"))
    p = Pipeline([ListSource(["http://x/"])], [DropShort()], ctx)
    p.run()
    lines = (tmp_path / "drops.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["reason"] == "short/too-short"


def test_a_filter_that_fails_drops_with_a_reason() -> None:
    class Broken(Filter):
        name: ClassVar[str] = "broken"

        def verdict(self, doc: Document) -> Verdict:
            if "bad" in doc.url:
                raise RuntimeError("cannot judge")
            return Verdict.ok()

    p = Pipeline([ListSource(["http://a.example/bad", "http://a.example/good"])], [Broken()])
    assert [d.url for d in p] == ["http://a.example/good"]
    assert p.ctx.stats["error/broken/RuntimeError"] == 1
    assert p.ctx.stats["drop/broken/error"] == 1
    assert p.ctx.stats["filter/broken/kept"] == 1


def test_a_step_may_drop_on_error() -> None:
    class Strict(Upper):
        on_error: ClassVar[Literal["keep", "drop"]] = "drop"

    p = Pipeline([ListSource(["http://a.example/boom", "http://a.example/1"])], [Strict()])
    assert [d.url for d in p] == ["http://a.example/1"]
    assert p.ctx.stats["error/upper/ValueError"] == 1


def test_tasks_of_a_sharded_run_read_each_document_once(tmp_path: Path) -> None:
    import gzip as _gzip

    from trawl.acquire.localdir import LocalDirSource
    from trawl.acquire.warc import WarcSource

    folder = tmp_path / "files"
    folder.mkdir()
    for i in range(11):
        (folder / f"f{i:02d}.txt").write_text(f"file {i}")
    warcs = []
    for k in range(3):
        records = b"".join(
            _gzip.compress(
                (
                    f"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{k}-{i}>\r\n"
                    f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://x.test/{k}/{i}\r\n"
                    f"Content-Type: text/plain\r\nContent-Length: 1\r\n\r\nx\r\n\r\n"
                ).encode()
            )
            for i in range(4)
        )
        path = tmp_path / f"part{k}.warc.gz"
        path.write_bytes(records)
        warcs.append(path)
    for make in (lambda: LocalDirSource([folder]), lambda: WarcSource(warcs), lambda: WarcSource(warcs[:1])):
        everything = sorted(d.url for d in Pipeline([make()]))
        for world in (1, 2, 3, 5):
            parts = [
                sorted(d.url for d in Pipeline([make()], rank=r, world_size=world)) for r in range(world)
            ]
            assert sorted(u for p in parts for u in p) == everything, (world, parts)
            assert sum(map(len, parts)) == len(everything)
    with pytest.raises(ValueError, match="rank"):
        Pipeline([LocalDirSource([folder])], rank=2, world_size=2)
