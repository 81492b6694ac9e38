"""trawl.fsio: local paths and s3:// URLs behind one small API, against a real S3 server on
loopback (moto, tests/s3.py) for the remote half."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.s3 import S3Server
from trawl import fsio
from trawl.errors import InputError, MissingDependency

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize(
    ("path", "remote"),
    [
        ("s3://bucket/key.warc.gz", True),
        ("S3://bucket/crawl/", True),
        ("gs://bucket/k", True),
        ("file:///tmp/x.warc", False),
        ("/tmp/s3://odd", False),
        ("crawl.warc.gz", False),
        ("C://Users/me/crawl.warc", False),  # a drive letter, not a scheme
        ("C:\\Users\\me\\crawl.warc", False),
        (Path("s3://bucket/key"), False),  # a Path has already lost the URL's second slash
    ],
)
def test_is_remote(path: str | Path, remote: bool) -> None:
    assert fsio.is_remote(path) is remote


def test_local_paths_round_trip(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "marker.json"
    fsio.write_bytes(target, b"first")
    fsio.write_bytes(target, b"second, longer")
    assert target.read_bytes() == b"second, longer"
    assert os.listdir(target.parent) == ["marker.json"]  # no temporary file left behind
    assert fsio.read_bytes(target, start=8, end=12) == b"long"
    assert fsio.size(target) == 14 and fsio.exists(target) and fsio.info(target).modified is not None
    assert fsio.listdir(tmp_path / "a" / "b") == [str(target)]
    assert fsio.listdir(tmp_path / "nothing-here") == []
    with fsio.open_input(f"file://{target}") as fh:
        assert fh.read() == b"second, longer"
    fsio.get_file(target, tmp_path / "copy")
    assert (tmp_path / "copy").read_bytes() == b"second, longer"
    fsio.remove(target)
    fsio.remove(target)  # gone already: no error
    assert not fsio.exists(target)
    assert fsio.expand([str(tmp_path), "x/*.warc"]) == [str(tmp_path), "x/*.warc"]  # local: as given
    assert fsio.join(str(tmp_path), "a", "b") == str(tmp_path / "a" / "b")
    assert fsio.join("s3://b/run/", "/done", "0.json") == "s3://b/run/done/0.json"
    with pytest.raises(InputError, match=r"missing\.warc"):
        fsio.open_input(tmp_path / "missing.warc")


def test_unknown_scheme_is_an_input_error() -> None:
    pytest.importorskip("fsspec")
    with pytest.raises(InputError, match=r"nosuchfs://bucket/x"):
        fsio.open_input("nosuchfs://bucket/x")


def test_s3_without_s3fs_names_the_extra() -> None:
    pytest.importorskip("fsspec")
    code = (
        "import sys; sys.modules['s3fs'] = None\n"  # an install without s3fs
        "from trawl import fsio\n"
        "from trawl.errors import MissingDependency\n"
        "try:\n"
        "    fsio.open_input('s3://bucket/crawl.warc.gz')\n"
        "except MissingDependency as exc:\n"
        "    print(exc.module, exc.extra, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("s3fs scale ")
    assert "s3://bucket/crawl.warc.gz" in out and "pip install 'trawl[scale]'" in out
    assert issubclass(MissingDependency, Exception)


def test_expand_globs_and_prefixes(s3: S3Server) -> None:
    base = s3.prefix("expand")
    for name in ("b.warc.gz", "a.warc.gz", "notes.txt", "deep/c.warc.gz"):
        s3.upload(DATA / "warc" / "good.warc.gz", f"{base}/{name}")
    assert fsio.expand([f"{base}/*.warc.gz"]) == [f"{base}/a.warc.gz", f"{base}/b.warc.gz"]
    assert fsio.expand([f"{base}/**/*.warc.gz"]) == [
        f"{base}/a.warc.gz",
        f"{base}/b.warc.gz",
        f"{base}/deep/c.warc.gz",
    ]
    everything = [f"{base}/{n}" for n in ("a.warc.gz", "b.warc.gz", "deep/c.warc.gz", "notes.txt")]
    assert fsio.expand([base]) == everything
    assert fsio.expand([base + "/"]) == everything
    # a file as given, and local paths untouched, in the order given
    assert fsio.expand(["local.warc", f"{base}/notes.txt"]) == ["local.warc", f"{base}/notes.txt"]
    with pytest.raises(InputError, match=r"s3://.*/expand-\d+/\*\.arc' matches no file"):
        fsio.expand([f"{base}/*.arc"])
    with pytest.raises(InputError, match=r"s3://.*/nothing.warc' does not exist"):
        fsio.expand([f"{base}/nothing.warc"])


def test_open_input_reads_exact_bytes(s3: S3Server, tmp_path: Path) -> None:
    data = random.Random(7).randbytes(300_000)
    local = tmp_path / "blob.bin"
    local.write_bytes(data)
    url = s3.upload(local, f"{s3.prefix('open')}/blob.bin")
    assert fsio.size(url) == len(data) and fsio.exists(url)
    info = fsio.info(url)
    assert (info.size, info.is_dir) == (len(data), False) and info.modified is not None
    # small blocks: several ranged requests, read-ahead, and seeks back and forth
    with fsio.open_input(url, block_size=64 << 10) as fh:
        assert fh.seekable()
        assert fh.read(10) == data[:10]
        assert fh.read() == data[10:]
        fh.seek(123_456)
        assert fh.tell() == 123_456
        assert fh.read(70_000) == data[123_456:193_456]
        fh.seek(5)
        assert fh.read(5) == data[5:10]
    assert fsio.read_bytes(url) == data
    assert fsio.read_bytes(url, start=1000, end=1010) == data[1000:1010]
    assert fsio.read_bytes(url, end=16) == data[:16]


def test_missing_object_is_an_input_error_naming_it(s3: S3Server) -> None:
    url = f"{s3.prefix('missing')}/gone.warc.gz"
    for call in (fsio.open_input, fsio.size, fsio.read_bytes, fsio.info):
        with pytest.raises(InputError, match=r"s3://trawl-test/missing-\d+/gone\.warc\.gz"):
            call(url)
    assert not fsio.exists(url)
    with pytest.raises(InputError, match="s3://no-such-bucket/x"):
        fsio.read_bytes("s3://no-such-bucket/x")


def test_put_get_listdir_remove(s3: S3Server, tmp_path: Path) -> None:
    base = s3.prefix("rt")
    assert fsio.listdir(base) == []  # an S3 prefix exists only once it holds something
    fsio.write_bytes(fsio.join(base, "done", "0.json"), b'{"rank": 0}')
    local = tmp_path / "part.bin"
    local.write_bytes(b"x" * 5000)
    fsio.put_file(local, fsio.join(base, "part.bin"))
    assert fsio.listdir(base) == [f"{base}/done", f"{base}/part.bin"]
    assert fsio.listdir(f"{base}/done") == [f"{base}/done/0.json"]
    assert fsio.read_bytes(f"{base}/done/0.json") == b'{"rank": 0}'
    fsio.get_file(f"{base}/part.bin", tmp_path / "back" / "part.bin")
    assert (tmp_path / "back" / "part.bin").read_bytes() == b"x" * 5000
    fsio.write_bytes(f"{base}/done/0.json", b"{}")  # overwritten whole
    assert fsio.read_bytes(f"{base}/done/0.json") == b"{}"
    fsio.remove(f"{base}/part.bin")
    fsio.remove(f"{base}/part.bin")  # gone already: no error
    assert not fsio.exists(f"{base}/part.bin")
    assert fsio.listdir(base) == [f"{base}/done"]
    with pytest.raises(InputError, match="does not exist"):
        fsio.get_file(f"{base}/part.bin", tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_local_inputs_never_import_fsspec() -> None:
    # the default path costs what open() costs: sniffing and reading a local WARC leaves fsspec
    # (and boto) unimported
    code = (
        "import sys\n"
        "from trawl.acquire.detect import sources_for\n"
        "from trawl.pipeline.base import RunContext\n"
        f"(source,) = sources_for([{str(DATA / 'warc' / 'good.warc.gz')!r}])\n"
        "docs = list(source.read(RunContext()))\n"
        "print(len(docs), 'fsspec' in sys.modules, 'botocore' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    count, fsspec_loaded, boto_loaded = out.split()
    assert int(count) > 0 and (fsspec_loaded, boto_loaded) == ("False", "False")
