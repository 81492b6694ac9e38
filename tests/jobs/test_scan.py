"""Sharded jobs over a stored collection (``trawl stats --workers``, ``trawl export --workers``):
the same report and the same records as one process, parts on a folder or on S3, resumable."""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.s3 import S3Server
from trawl.cli.main import main
from trawl.errors import TrawlError
from trawl.jobs.executors import LocalExecutor, RayExecutor
from trawl.jobs.ingest import ingest
from trawl.jobs.scan import Share, host_boundary, key_ranges, run_scan
from trawl.jobs.sharded_export import sharded_export
from trawl.jobs.sharded_stats import sharded_stats
from trawl.store.collection import Collection
from trawl.textstats import collection_documents, text_stats

WORDS = [f"{a}{b}{c}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in "nrstlmkx"]


def _warc(path: Path, hosts: int = 24, seed: int = 5) -> None:
    """Pages of ``hosts`` hosts (1 to 30 pages each, Zipf-like words, a footer line per host that
    trawl stats calls boilerplate, a few with mojibake), one host far larger than the rest."""
    rng = random.Random(seed)
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for h in range(hosts):
            pages = 60 if h == 3 else rng.randint(1, 30)
            footer = f"copyright host{h} {rng.choice(WORDS)} {rng.choice(WORDS)} all rights reserved"
            for p in range(pages):
                words = [WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] for _ in range(120)]
                text = " ".join(words) + ("\ncaf\ufffd d\ufffdj\ufffd vu" if (h + p) % 17 == 0 else "")
                head = f"<html><head><title>{words[0]} {p}</title></head>"
                body = f"{head}<body><p>{text}</p><p>{footer}</p></body></html>"
                http = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
                )
                record = writer.create_warc_record(
                    f"http://host{h}.example/page{p}.html",
                    "response",
                    payload=io.BytesIO(body.encode("utf-8")),
                    http_headers=http,
                )
                writer.write_record(record)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scan")
    _warc(root / "pages.warc.gz")
    with Collection.create(root / "c") as coll:
        ingest([root / "pages.warc.gz"], coll, incremental=False)
    return root / "c"


def test_key_ranges_cut_at_hosts_where_it_costs_little(collection: Path) -> None:
    with Collection.open(collection) as coll:
        rows = list(coll.table.rows())
        plain = key_ranges(coll.table, 5)
        ranges = key_ranges(coll.table, 5, hosts=True)
    assert len(plain) == 5 and plain[0][0] == "" and plain[-1][1] is None
    assert ranges[0][0] == "" and ranges[-1][1] is None
    for (_, end), (start, _) in itertools.pairwise(ranges):
        assert end == start and start in rows
    cut_hosts = 0
    for _, end in ranges[:-1]:
        assert end is not None
        first_of_host = host_boundary(rows[rows.index(end) - 1]) != host_boundary(end)
        assert first_of_host or "host3)" in end  # the big host (60 of ~490 pages) may be cut
        cut_hosts += first_of_host
    assert cut_hosts >= 3


def _stats_json(collection: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["stats", str(collection), "--json", *flags]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    out.pop("memory")
    return out


def test_sharded_stats_equal_one_process(collection: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _stats_json(collection, capsys)
    many = _stats_json(collection, capsys, "--workers", "2", "--tasks", "5")
    assert (
        one["documents"] > 300
        and one["anomalies"]["boilerplate"]
        and one["anomalies"]["encoding"]["documents"]
    )
    assert one["estimates"]["result_sets"]  # the automatic query pairs, counted by a second pass
    assert many == one


def test_sharded_stats_with_queries_spills_and_vocabulary(collection: Path, tmp_path: Path) -> None:
    with Collection.open(collection) as coll:
        docs = list(collection_documents(coll))
        out = io.StringIO()
        one = text_stats(docs, queries=["bak dun", "fet"], max_terms=40, vocabulary_out=out)
        vocab = io.StringIO()
        many, run = sharded_stats(
            coll,
            LocalExecutor(2),
            queries=[("bak dun",), ("fet",)],
            max_terms=40,
            vocabulary_out=vocab,
            tasks=4,
        )
    assert run["tasks"] == 4 and many.memory["runs_spilled"] > 0
    assert vocab.getvalue() == out.getvalue()
    a, b = one.as_dict(), many.as_dict()
    a.pop("memory"), b.pop("memory")
    assert a == b


def test_a_finished_task_is_not_run_again_and_a_failed_one_fails_the_job(
    collection: Path, tmp_path: Path
) -> None:
    with Collection.open(collection) as coll:
        job = run_scan(
            coll, "probe", "tests.jobs.test_scan:probe_part", {"fail": False}, LocalExecutor(2), tasks=3
        )
        assert [r["rows"] > 0 for r in job.results] == [True, True, True] and job.resumed == 0
        pids = [r["pid"] for r in job.results]
        again = run_scan(
            coll, "probe", "tests.jobs.test_scan:probe_part", {"fail": False}, LocalExecutor(2), tasks=3
        )
        assert again.resumed == 3 and [r["pid"] for r in again.results] == pids  # markers, not runs
        again.close()
        with pytest.raises(TrawlError, match="probe task"):
            run_scan(
                coll, "probe", "tests.jobs.test_scan:probe_part", {"fail": True}, LocalExecutor(1, 0), tasks=2
            )
        assert (
            sum(1 for _ in (coll.path / "tasks" / "probe").glob("job-*/done/*.json")) == 1
        )  # the good one kept


def probe_part(coll: Collection, share: Share, options: dict[str, Any]) -> dict[str, Any]:
    """A task for the test above: counts its rows; with ``fail``, the last range raises."""
    if options["fail"] and share.end is None:
        raise RuntimeError("this task fails")
    (share.out / "x").write_text("x", encoding="utf-8")
    return {"rows": sum(1 for _ in coll.records(start=share.start, end=share.end))}


@pytest.mark.parametrize("fmt", ["jsonl", "trec", "parquet", "warc"])
def test_sharded_export_parts_hold_the_one_file_export(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    one = tmp_path / f"one.{fmt}"
    assert main(["export", str(collection), "-f", fmt, "-o", str(one)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "export",
                str(collection),
                "-f",
                fmt,
                "-o",
                str(tmp_path / "parts"),
                "--workers",
                "2",
                "--tasks",
                "3",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    manifest = json.loads((tmp_path / "parts" / "_manifest.json").read_text(encoding="utf-8"))
    parts = [tmp_path / "parts" / p for p in summary["parts"]]
    assert summary["tasks"] == 3 and [p["part"] for p in manifest["parts"]] == summary["parts"]
    assert summary["records"] == manifest["records"] == sum(p["records"] for p in manifest["parts"]) > 300
    if fmt == "jsonl":
        assert b"".join(p.read_bytes() for p in parts) == one.read_bytes()
    elif fmt == "trec":
        docnos = [line.split("\t")[0] for p in parts for line in Path(f"{p}.idx").read_text().splitlines()]
        assert docnos == [line.split("\t")[0] for line in Path(f"{one}.idx").read_text().splitlines()]
    elif fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        rows = [r for p in parts for r in pq.read_table(p).drop(["warc_filename"]).to_pylist()]
        assert rows == pq.read_table(one).drop(["warc_filename"]).to_pylist()
    else:
        from warcio.archiveiterator import ArchiveIterator

        def uris(path: Path) -> list[str]:
            with path.open("rb") as fh:
                return [
                    f"{r.rec_type} {r.rec_headers.get_header('WARC-Target-URI')}"
                    for r in ArchiveIterator(fh)
                    if r.rec_type != "warcinfo"  # one per file
                ]

        assert sorted(u for p in parts for u in uris(p)) == sorted(uris(one))


def test_sharded_export_to_s3(s3: S3Server, collection: Path, tmp_path: Path) -> None:
    base = s3.prefix("export")
    with Collection.open(collection) as coll:
        run = sharded_export(coll, "jsonl", base, LocalExecutor(2), tasks=3)
    assert run.tasks == 3
    names = sorted(Path(p).name for p in s3.fs.ls(base))
    assert names == ["_manifest.json", "part-00000.jsonl", "part-00001.jsonl", "part-00002.jsonl"]
    lines = b"".join(s3.fs.cat_file(f"{base}/part-0000{i}.jsonl") for i in range(3)).splitlines()
    assert (
        len(lines) == run.counts["records"] == json.loads(s3.fs.cat_file(f"{base}/_manifest.json"))["records"]
    )
    assert not (collection / "tasks" / "export").exists()  # the job's folder removed once done


def test_sharded_options_are_checked(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(collection), "-f", "jsonl", "-o", "s3://b/x"]) == 2
    assert "add --workers" in capsys.readouterr().err
    assert main(["stats", str(collection), "--tasks", "3"]) == 2
    assert main(["stats", "--files", str(tmp_path), "--workers", "2"]) == 2
    assert main(["export", str(collection), "-f", "jsonl", "-o", "-", "--workers", "2"]) == 2


@pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="Ray is not installed (pip install 'trawl[scale]')"
)
def test_ray_tasks_count_and_export_the_same(collection: Path, tmp_path: Path) -> None:
    with Collection.open(collection) as coll:
        one = text_stats(lambda: collection_documents(coll)).as_dict()
        executor = RayExecutor(2)
        with executor.session():  # one local Ray for both jobs
            many, run = sharded_stats(coll, executor, tasks=3)
            export = sharded_export(coll, "jsonl", str(tmp_path / "parts"), executor, tasks=3)
    one.pop("memory")
    got = many.as_dict()
    got.pop("memory")
    assert run["executor"] == "ray" and got == one
    assert export.executor == "ray" and export.counts["records"] == one["documents"]
