"""Benchmark: reliability — what issue 35 promises, each as a figure.

    python bench/reliability.py                  # the whole run (~25 minutes on 2 cores)
    python bench/reliability.py --quick          # the default suite's sizes (~3 minutes)
    python bench/reliability.py --parts kills,addresses --fuzz-seconds 30

Parts (``--parts``, all by default):

- ``kills``: a crawl of the test web and an ingest of archives SIGKILLed at random moments and
  resumed until they end (50 kills each, 10 with ``--quick``); every page/document stored exactly
  once, judged by the server's request log and by an uninterrupted run; every WARC file read by
  warcio to its end. Reported: kills, runs, pages, lost, stored twice.
- ``fuzz``: ``bench/fuzz.py`` over every parser of untrusted bytes for ``--fuzz-seconds`` each;
  executions, crashes, hangs and peak memory per parser.
- ``hostile``: the hostile servers and inputs of ``docs/hostile.md``, each a test with a counter;
  cases passed of cases.
- ``addresses``: a crawl seeded with every kind of address a crawler must not be sent to
  (loopback, private, link-local and the cloud metadata service, multicast, shared, unspecified,
  IPv4 inside IPv6) and with redirects into them; refused of asked, and requests that reached
  the (loopback) server, which must be none.
- ``faults``: disk full and I/O errors (clean stop, ``--resume`` once space is back) and
  politeness under faults (a slowing, failing or 429/503 host gets fewer requests, from the
  server's own log): tests passed of tests.

The default test suite runs the fast subset of each part (10 kills, the fuzzing regressions,
every hostile case, every address class, every fault); this script runs them at full size and
writes ``bench/out/reliability.json`` beside the table it prints.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.crawl.test_exactly_once import killed_and_resumed as crawl_killed  # noqa: E402
from tests.crawl.test_hostile_matrix import CASES  # noqa: E402
from tests.jobs.test_ingest_kills import killed_ingest as ingest_killed  # noqa: E402

from trawl.crawl.crawler import Crawler, CrawlSettings  # noqa: E402
from trawl.crawl.frontier import Frontier  # noqa: E402
from trawl.testweb import ServerThread, TestWeb  # noqa: E402

OUT = ROOT / "bench" / "out"
PARTS = ("kills", "fuzz", "hostile", "addresses", "faults")


def run_tests(selection: list[str], *, slow: bool = False, keyword: str | None = None) -> dict[str, Any]:
    """Run pytest on ``selection`` (paths or node ids) in a child process; passed, failed and
    skipped tests from its JUnit report, with the names of the failures."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        cmd += ["-m", "slow or not slow"] if slow else []
        cmd += ["-k", keyword] if keyword else []
        t0 = time.monotonic()
        proc = subprocess.run([*cmd, *selection], cwd=ROOT, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - t0
        if not report.exists():
            raise SystemExit(f"pytest did not run: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        passed = failed = skipped = 0
        failures: list[str] = []
        outcomes: dict[str, str] = {}  # "tests/x/test_y.py::name[param]" -> passed/failed/skipped
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name', '')}"
            if case.find("skipped") is not None:
                skipped += 1
                outcomes[name] = "skipped"
            elif case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failures.append(name)
                outcomes[name] = "failed"
            else:
                passed += 1
                outcomes[name] = "passed"
    return {
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "failures": failures,
        "seconds": seconds,
        "outcomes": outcomes,
    }


# -- kills -------------------------------------------------------------------------------------


def part_kills(quick: bool) -> dict[str, Any]:
    """The crawl's and the ingest's kill harnesses (the tests' own), at full size."""
    kills = 10 if quick else 50
    seeds = (1,) if quick else (1, 2)
    out: dict[str, Any] = {"crawl": [], "ingest": []}
    pages = 300 if quick else 1000
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            job = partial(crawl_killed, Path(tmp), kills=kills, seed=seed, pages=40, delay=0.2)
            out["crawl"].append(_guarded(job))
        with tempfile.TemporaryDirectory() as tmp:
            job = partial(
                ingest_killed, Path(tmp), kills=kills, pages=pages, seed=seed, workers=-1, large=not quick
            )
            out["ingest"].append(_guarded(job))
    return out


def _guarded(job: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A harness's figures, or the assertion that failed (a lost or twice-stored page)."""
    t0 = time.monotonic()
    try:
        figures = dict(job())
    except AssertionError as exc:
        figures = {"failed": str(exc)[:500]}
    figures["seconds"] = round(time.monotonic() - t0, 1)
    return figures


# -- fuzzing -----------------------------------------------------------------------------------


def part_fuzz(seconds: float) -> dict[str, Any]:
    """``bench/fuzz.py`` for ``seconds`` a parser (findings kept in ``bench/out/fuzz/``, not
    saved as fixtures: that is for a fuzzing session to decide); its JSON."""
    result = OUT / "reliability-fuzz.json"
    result.unlink(missing_ok=True)  # never a stale run's figures
    cmd = [sys.executable, str(ROOT / "bench" / "fuzz.py"), "--seconds", str(seconds), "--no-save"]
    proc = subprocess.run([*cmd, "--out", str(result)], cwd=ROOT, capture_output=True, text=True, check=False)
    if not result.exists():
        return {"error": f"bench/fuzz.py exited {proc.returncode}: {proc.stderr[-1000:]}"}
    data: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    data["returncode"] = proc.returncode
    return data


# -- hostile servers and inputs ----------------------------------------------------------------


def part_hostile() -> dict[str, Any]:
    """Every case of the hostile matrix (``tests/crawl/test_hostile_matrix.py``'s ``CASES``, the
    rows of ``docs/hostile.md``): its tests run once; a case passes when all of its tests do."""
    tests = sorted({t for case in CASES for t in case.tests})
    run = run_tests(tests)
    outcomes: dict[str, str] = run.pop("outcomes")
    rows = []
    for case in CASES:
        results = [r for t in case.tests for r in _outcomes_of(t, outcomes)]
        ok = bool(results) and all(r == "passed" for r in results)
        rows.append({"case": case.name, "counter": case.counter, "tests": len(results), "passed": ok})
    return {**run, "cases": len(rows), "cases_passed": sum(r["passed"] for r in rows), "rows": rows}


def _outcomes_of(node: str, outcomes: dict[str, str]) -> list[str]:
    """The outcomes of the tests a node id names: a file, a function (every parameter), or one."""
    if "::" not in node:
        return [v for k, v in outcomes.items() if k.split("::", 1)[0] == node]
    if "[" in node:
        return [outcomes[node]] if node in outcomes else []
    return [v for k, v in outcomes.items() if k == node or k.startswith(node + "[")]


# -- addresses ---------------------------------------------------------------------------------

#: (URL template, the class it must be refused as); ``{port}`` is the loopback test web's port,
#: so a guard that let one through would reach a server that answers
ADDRESSES = [
    ("http://127.0.0.1:{port}/", "loopback"),
    ("http://localhost:{port}/p/1.html", "loopback"),
    ("http://[::1]:{port}/", "loopback"),
    ("http://127.8.9.10:{port}/", "loopback"),
    ("http://[::ffff:127.0.0.1]:{port}/", "loopback"),
    ("http://10.0.0.1/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://[fc00::1]/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://224.0.0.251/", "multicast"),
    ("http://100.64.0.1/", "shared"),
    ("http://0.0.0.0:{port}/", "unspecified"),
    ("http://redirects.test/inside", "loopback"),  # a public host redirecting inside
    ("http://redirects.test/metadata", "link-local"),
]


def part_addresses() -> dict[str, Any]:
    rows = []
    with ServerThread(TestWeb(1, hosts=1, pages=3)) as server:
        for template, kind in ADDRESSES:
            url = template.format(port=server.port)
            settings = CrawlSettings(
                min_delay=0.0,
                delay_factor=0.0,
                store=False,
                max_seconds=20,
                connect_timeout=2.0,
                max_retries=0,
                resolve=tuple(server.resolve_rules()),
            )
            before = [e for e in server.log if not e.host.endswith(".test")]
            result = asyncio.run(Crawler(settings, Frontier()).run([url]))
            reached = [e for e in server.log if not e.host.endswith(".test")][len(before) :]
            counters = result.stats.counters
            refused = counters.get(f"drop/address/{kind}", 0)
            rows.append(
                {
                    "url": url,
                    "class": kind,
                    "refused": refused,
                    "reached": len(reached),
                    "pages": result.pages,
                }
            )
    return {
        "asked": len(rows),
        "refused": sum(1 for r in rows if r["refused"] and not r["reached"]),
        "requests_reached": sum(r["reached"] for r in rows),
        "rows": rows,
    }


# -- faults ------------------------------------------------------------------------------------

FAULT_TESTS = [
    "tests/crawl/test_politeness_faults.py",
    "tests/crawl/test_crawl.py::test_politeness_from_the_server_log",
    "tests/crawl/test_disk_full.py",
    "tests/jobs/test_disk_full.py",
    "tests/store/test_disk_full.py",
]


def part_faults() -> dict[str, Any]:
    run = run_tests([t for t in FAULT_TESTS if (ROOT / t.split("::")[0]).exists()], slow=True)
    run.pop("outcomes")
    return run


# -- the report --------------------------------------------------------------------------------


def table(results: dict[str, Any]) -> str:
    lines = ["| part | figure |", "|---|---|"]
    for part, data in results.items():
        if part == "kills":
            for job, rows in data.items():
                for row in rows:
                    if "failed" in row:
                        lines.append(f"| kills, {job} | FAILED: {row['failed']} |")
                        continue
                    items = row.get("items", row.get("documents", 0))
                    unreadable = len(row["torn"]) + len(row.get("unreadable", []))
                    lines.append(
                        f"| kills, {job} | {row['kills']} kills, {row['runs']} runs, {items} "
                        f"{'pages' if job == 'crawl' else 'documents'}: {len(row['lost'])} lost, "
                        f"{len(row['twice'])} stored twice, {unreadable} WARC files unreadable "
                        f"({row['seconds']:.0f} s) |"
                    )
        elif part == "fuzz":
            for name, row in sorted(data.get("targets", {}).items()):
                lines.append(
                    f"| fuzz, {name} ({row['engine']}) | {row['executions']:,} executions, "
                    f"{row['crashes']} crashes, {row['hangs']} hangs, peak {row['max_rss_mb']:.0f} MiB |"
                )
            if "error" in data:
                lines.append(f"| fuzz | FAILED: {data['error']} |")
        elif part == "hostile":
            failed = [r["case"] for r in data["rows"] if not r["passed"]]
            lines.append(
                f"| hostile servers and inputs | {data['cases_passed']} of {data['cases']} cases passed "
                f"({data['passed']} of {data['passed'] + data['failed']} tests)"
                + (f"; failed: {', '.join(failed)}" if failed else "")
                + " |"
            )
        elif part == "addresses":
            lines.append(
                f"| private addresses | {data['refused']} of {data['asked']} refused, "
                f"{data['requests_reached']} requests reached the server |"
            )
        else:
            failed = f" (failed: {', '.join(data['failures'])})" if data["failures"] else ""
            lines.append(
                f"| {part} | {data['passed']} of {data['passed'] + data['failed']} passed, "
                f"{data['skipped']} skipped{failed} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument("--quick", action="store_true", help="the default suite's sizes")
    parser.add_argument("--fuzz-seconds", type=float, default=None, help="per parser (60; 5 with --quick)")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    fuzz_seconds = args.fuzz_seconds if args.fuzz_seconds is not None else (5.0 if args.quick else 60.0)
    results: dict[str, Any] = {}
    for part in parts:
        t0 = time.monotonic()
        print(f"{part}...", file=sys.stderr, flush=True)
        if part == "kills":
            results[part] = part_kills(args.quick)
        elif part == "fuzz":
            results[part] = part_fuzz(fuzz_seconds)
        elif part == "hostile":
            results[part] = part_hostile()
        elif part == "addresses":
            results[part] = part_addresses()
        else:
            results[part] = part_faults()
        print(f"{part}: {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "reliability.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
