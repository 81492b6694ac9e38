"""``trawl ingest`` on a disk that fills up (or fails): it stops with one clear line and exit 1,
keeps what it stored, and the same command run again once there is room stores the rest, each
document exactly once.

The faults are real write errors (``tests/faults/enospc.c`` preloaded into the CLI), on the WARC
files or on the table, after a given number of writes went through.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.faults import build_shim, fault_env
from trawl.document import Document
from trawl.store.collection import Collection
from trawl.store.warcfile import WarcFileWriter, payload_digest

PLAIN = ["extract.enabled=false", "langid.enabled=false"]
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
DOCS = 120


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shim(tmp_path_factory.mktemp("shim"))


def _body(i: int) -> bytes:
    words = " ".join(f"word{(i * 7 + k) % 97}" for k in range(60))
    return f"<html><title>Doc {i}</title><p>Document {i}: {words}</p></html>".encode()


def _folder(root: Path) -> tuple[list[str], dict[str, str]]:
    folder = root / "docs"
    folder.mkdir()
    for i in range(DOCS):
        (folder / f"d{i:03d}.html").write_bytes(_body(i))
    return [str(folder)], {
        (folder / f"d{i:03d}.html").as_uri(): payload_digest(_body(i)) for i in range(DOCS)
    }


def _warc(root: Path) -> tuple[list[str], dict[str, str]]:
    with WarcFileWriter(root / "in", prefix="in") as writer:
        for i in range(DOCS):
            writer.write(
                Document(
                    url=f"http://site{i % 4}.example/p/{i}",
                    fetched_at=T0 + timedelta(seconds=i),
                    status=200,
                    http_headers=[("Content-Type", "text/html; charset=utf-8")],
                    raw=_body(i),
                )
            )
    inputs = [str(p) for p in sorted((root / "in").iterdir())]
    return inputs, {f"http://site{i % 4}.example/p/{i}": payload_digest(_body(i)) for i in range(DOCS)}


def _ingest(inputs: list[str], out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "import sys; from trawl.cli.main import main; sys.exit(main())", "ingest"]
    cmd += [*inputs, "-o", str(out), "--no-progress", "--json"]
    for option in PLAIN:
        cmd += ["--set", option]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=False)


def _stored(out: Path) -> dict[str, list[str]]:
    """URL -> the payload digest of each capture version its row holds."""
    with Collection.open(out) as coll:
        return {
            r.url: [v["payload_digest"] for _, v in coll.table.versions_of(r.row, "fetch", "capture")]
            for r in coll.records()
            if r.capture
        }


def _stop_and_run_again(
    tmp_path: Path,
    shim: Path,
    sources: list[str],
    expected: dict[str, str],
    *,
    match: str,
    errno: str,
    after: int,
    line: str,
) -> None:
    from warcio.archiveiterator import ArchiveIterator

    out, flag = tmp_path / "coll", tmp_path / "disk-full"
    flag.touch()
    env = fault_env(shim, out, flag, match=match, errno=errno, after=after, short=match == ".warc")
    r = _ingest(sources, out, env)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert re.fullmatch(
        rf"trawl ingest: {line}; stopped after \d+ records; .* run the same command again.*", lines[0]
    )
    report = json.loads(r.stdout)
    assert report["failure"] in lines[0]
    assert report["counters"][f"store/error/{errno.lower()}"] == 1
    first = _stored(out)
    assert 0 < len(first) < DOCS  # some stored, then the disk was full
    assert all(len(v) == 1 and v[0] == expected[u] for u, v in first.items())

    flag.unlink()  # room again: the same command
    r = _ingest(sources, out, env)
    assert r.returncode == 0, r.stderr
    stored = _stored(out)
    assert {u: v[0] for u, v in stored.items()} == expected  # every document, its own bytes
    assert all(len(v) == 1 for v in stored.values()), {u: len(v) for u, v in stored.items() if len(v) != 1}
    with Collection.open(out) as coll:
        files = coll.warc_files()
    for path in files:  # the refused record was cut off: every file reads to its end
        with path.open("rb") as fh:
            for _rec in ArchiveIterator(fh, check_digests=True):
                pass


def test_folder_ingest_fills_the_warc_files(tmp_path: Path, shim: Path) -> None:
    sources, expected = _folder(tmp_path)
    line = r"disk full writing \S+\.warc\.gz \(No space left on device\)"
    _stop_and_run_again(tmp_path, shim, sources, expected, match=".warc", errno="ENOSPC", after=30, line=line)


def test_warc_ingest_meets_an_io_error_on_the_table(tmp_path: Path, shim: Path) -> None:
    sources, expected = _warc(tmp_path)
    line = r"I/O error writing \S+/table/\S+ \(Input/output error\)"
    _stop_and_run_again(tmp_path, shim, sources, expected, match="/table/", errno="EIO", after=150, line=line)
