"""Input sniffing and Source building: formats come from the bytes, never from the names."""

from __future__ import annotations

import bz2
import gzip
import os
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from trawl.acquire.detect import kind_of, open_source, sniff_input, sources_for
from trawl.acquire.localdir import LocalDirSource
from trawl.acquire.trec import TrecSource
from trawl.config import load_config
from trawl.document import Document
from trawl.errors import ConfigError, InputError
from trawl.pipeline.base import Pipeline, RunContext, Source

TREC = b"<DOC>\n<DOCNO>X-1</DOCNO>\n<DOCHDR>\nhttp://x.example/\n</DOCHDR>\nhello\n</DOC>\n"
WARC = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"
ARC = b"filedesc://crawl.arc 0.0.0.0 20050614070144 text/plain 77\n1 0 Internet Archive\n"


class FakeWarcSource(Source):
    """Stands in for trawl.acquire.warc.WarcSource, written in parallel, to test the wiring."""

    name: ClassVar[str] = "warc"

    def __init__(self, inputs: Sequence[Any], **filters: Any) -> None:
        self.inputs = list(inputs)
        self.filters = filters

    def read(self, ctx: RunContext) -> Iterator[Document]:
        yield from ()


@pytest.fixture()
def fake_warc(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("trawl.acquire.warc")
    module.WarcSource = FakeWarcSource  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "trawl.acquire.warc", module)


@pytest.fixture()
def inputs(tmp_path: Path) -> dict[str, Path]:
    files = {
        "a.data": gzip.compress(TREC),
        "b.data": b"\xef\xbb\xbf\n\n  " + TREC,
        "c.warc.gz": gzip.compress(WARC),
        "d.bin": WARC,
        "e.txt": ARC,
        "f.trec": bz2.compress(TREC),
        "page.trec": b"<html>not trec, whatever the name says</html>",
        "empty": b"",
        "empty.warc.gz": b"",
        "empty.trec": b"",
        "bad.gz": gzip.compress(TREC * 50)[:30],
    }
    out = {}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        out[name] = tmp_path / name
    out["dir"] = tmp_path / "dir"
    out["dir"].mkdir()
    (out["dir"] / "note.txt").write_text("hello\n")
    return out


def test_sniff_by_bytes(inputs: dict[str, Path]) -> None:
    assert sniff_input(inputs["a.data"]) == "trec"
    assert sniff_input(inputs["b.data"]) == "trec"  # BOM and blank lines first
    assert sniff_input(inputs["f.trec"]) == "trec"
    assert sniff_input(inputs["c.warc.gz"]) == "warc"
    assert sniff_input(inputs["d.bin"]) == "warc"
    assert sniff_input(inputs["e.txt"]) == "arc"
    assert sniff_input(inputs["page.trec"]) == "file"
    assert sniff_input(inputs["empty"]) == "file"
    # An empty file has no bytes to sniff: its name is the only evidence left.
    assert sniff_input(inputs["empty.warc.gz"]) == "warc"
    assert sniff_input(inputs["empty.trec"]) == "trec"
    assert sniff_input(str(inputs["dir"])) == "directory"
    # A truncated gzip still tells its kind by the bytes that came out before the damage.
    assert sniff_input(inputs["bad.gz"]) == "trec"


def test_kind_of() -> None:
    assert kind_of(b"WARC/1.0\r\n") == "warc"
    assert kind_of(b"WARC/0.17\r\n") == "file"
    assert kind_of(b"filedesc://x") == "arc"
    assert kind_of(b" \r\n\t<DOC>") == "trec"
    assert kind_of(b"<DOCNO>") == "file"
    assert kind_of(b"") == "file"


@pytest.mark.timeout(10)
def test_a_fifo_is_a_file_and_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert sniff_input(tmp_path / "pipe") == "file"
    source = open_source(tmp_path / "pipe")
    ctx = RunContext()
    assert list(source.read(ctx)) == []
    assert [e.reason for e in ctx.audit.entries] == ["local/not-regular"]


def test_missing_and_unreadable_inputs_raise_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InputError, match=r"'.*missing\.warc' does not exist"):
        sniff_input(tmp_path / "missing.warc")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="broken symlink"):
        sniff_input(tmp_path / "dangling")

    locked = tmp_path / "locked.trec"
    locked.write_bytes(TREC)
    real_open = Path.open

    def deny(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", deny)
    with pytest.raises(InputError, match=r"locked\.trec.*Permission denied"):
        sniff_input(locked)
    with pytest.raises(InputError) as info:
        sources_for([str(tmp_path / "missing.warc")])
    assert "\n" not in str(info.value)


def test_open_source_builds_the_right_reader(inputs: dict[str, Path], fake_warc: None) -> None:
    trec = open_source(inputs["a.data"], max_doc_bytes=1234)
    assert isinstance(trec, TrecSource) and trec.max_doc_bytes == 1234
    assert isinstance(open_source(inputs["dir"]), LocalDirSource)
    single = open_source(inputs["page.trec"])
    assert isinstance(single, LocalDirSource) and single.roots == [inputs["page.trec"]]
    warc = open_source(inputs["c.warc.gz"], record_types=["response"])
    assert isinstance(warc, FakeWarcSource)
    assert warc.inputs == [inputs["c.warc.gz"]] and warc.filters == {"record_types": ["response"]}
    assert isinstance(open_source(inputs["e.txt"]), FakeWarcSource)  # ARC shares the WARC reader


def test_missing_warc_reader_is_an_input_error(
    inputs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "trawl.acquire.warc", None)  # makes the import fail
    with pytest.raises(InputError, match="WARC reader cannot be loaded"):
        open_source(inputs["d.bin"])


def test_sources_for_groups_consecutive_inputs(inputs: dict[str, Path], fake_warc: None) -> None:
    order = ["a.data", "b.data", "dir", "page.trec", "f.trec", "c.warc.gz", "e.txt", "d.bin"]
    sources = sources_for([str(inputs[n]) for n in order])
    assert [type(s).__name__ for s in sources] == [
        "TrecSource",
        "LocalDirSource",
        "TrecSource",
        "FakeWarcSource",
    ]
    first, local, second, warc = sources
    assert isinstance(first, TrecSource) and len(first.inputs) == 2
    assert isinstance(local, LocalDirSource) and [p.name for p in local.roots] == ["dir", "page.trec"]
    assert isinstance(second, TrecSource) and len(second.inputs) == 1
    assert isinstance(warc, FakeWarcSource) and len(warc.inputs) == 3


def test_sources_for_takes_options_from_config(inputs: dict[str, Path], fake_warc: None) -> None:
    config = load_config()
    config.local.follow_symlinks = True
    sources = sources_for([str(inputs["a.data"]), str(inputs["dir"]), str(inputs["d.bin"])], config=config)
    trec, local, warc = sources
    assert isinstance(trec, TrecSource) and trec.max_doc_bytes == config.ingest.max_record_bytes
    assert isinstance(local, LocalDirSource)
    assert local.max_file_bytes == config.local.max_file_bytes and local.follow_symlinks
    assert isinstance(warc, FakeWarcSource)
    assert warc.filters == {
        "record_types": config.ingest.record_types,
        "content_types": None,  # the default, an empty list, keeps every type
        "max_length": config.ingest.max_record_bytes,
    }
    (local2,) = sources_for([str(inputs["dir"])], config=config, options={"local": {"include": ["*.md"]}})
    assert isinstance(local2, LocalDirSource) and local2.include == ("*.md",)
    with pytest.raises(ConfigError, match="no reader called 'pdf'"):
        sources_for([str(inputs["dir"])], options={"pdf": {}})


def test_sniffed_sources_read_end_to_end(inputs: dict[str, Path]) -> None:
    paths = [str(inputs[n]) for n in ("a.data", "b.data", "f.trec", "dir", "page.trec")]
    pipeline = Pipeline(sources_for(paths))
    docs = list(pipeline)
    assert [d.docno for d in docs] == ["X-1", "X-1", "X-1", None, None]
    assert docs[3].raw == b"hello\n" and docs[4].url.endswith("/page.trec")
    assert pipeline.ctx.stats["read/records"] == 5
    assert pipeline.ctx.audit.entries == []


def test_a_directory_of_archives_is_read_as_archives(tmp_path: Path) -> None:
    from trawl.acquire.detect import archive_directory

    arch = tmp_path / "crawl"
    (arch / "sub").mkdir(parents=True)
    (arch / "b.trec.gz").write_bytes(gzip.compress(TREC))
    (arch / "sub" / "a.data").write_bytes(TREC)
    (arch / ".hidden").write_bytes(b"ignored")
    found = [(arch / "b.trec.gz", "trec"), (arch / "sub" / "a.data", "trec")]
    assert archive_directory(arch) == (found, False)
    (trec,) = sources_for([str(arch)])
    assert isinstance(trec, TrecSource) and len(trec.inputs) == 2
    # anything else beside them: the archives are still read as archives, the rest as files
    (arch / "README").write_text("what these archives are")
    assert archive_directory(arch)[1] is True
    trec, local = sources_for([str(arch)])
    assert isinstance(trec, TrecSource) and len(trec.inputs) == 2
    assert isinstance(local, LocalDirSource)
    docs = list(Pipeline([trec, local]))
    assert sorted(d.docno or Path(d.source or "").name for d in docs) == sorted(
        [*(d.docno for d in Pipeline([TrecSource([arch / "b.trec.gz"])])), *(d.docno for d in
          Pipeline([TrecSource([arch / "sub" / "a.data"])])), "README"]
    )  # fmt: skip
