"""Fuzz every parser of untrusted bytes for a bounded time each (issue 35).

Usage::

    python bench/fuzz.py                          # every target, 60 s each
    python bench/fuzz.py --seconds 120 --targets warc,html,http11
    python bench/fuzz.py --engine hypothesis      # without Atheris

The targets are in ``tests/fuzz/targets.py`` (one per parser, with the errors its callers handle
and its seeds from the committed fixtures). Each target runs in child processes of its own, so a
segfault in compiled code (the HTML walk, PDFium), a hang or a memory blow-up is seen from outside:

* the engine is Atheris (libFuzzer, coverage-guided over trawl's Python code; ZIP packages get a
  mutator that edits their members) when it is installed (``pip install 'trawl[fuzz]'``), else
  Hypothesis drawing mutations of the seeds (``tests.fuzz.targets.mutations``);
* an input that runs longer than ``--hang`` seconds is a hang; the child's address space is bounded
  (``RLIMIT_AS``, ``--memory-mb``) and so is its resident size (libFuzzer's ``-rss_limit_mb``);
* the child writes the count of executions and the input it is working on to a shared page, so an
  input that kills the process (a signal, a hang in C) is known; after a finding the target is
  restarted for the time it has left.

The first input of each bug (its kind, error type and innermost frame; later inputs of the same bug
are counted as ``repeats``) is saved as ``tests/data/fuzz/<target>/<sha1>``, replayed by
``tests/fuzz/test_fuzz_regressions.py`` (``--no-save`` keeps it in ``bench/out/fuzz/`` only).
Output: a table, and ``bench/out/fuzz.json``::

    {"engine": "atheris" | "hypothesis", "seconds_per_target": float, "date": "YYYY-MM-DD",
     "targets": {name: {"engine": str, "executions": int, "crashes": int, "hangs": int,
                        "ooms": int, "max_rss_mb": float, "seconds": float, "seeds": int,
                        "repeats": int (findings of a bug already kept),
                        "findings": [{"kind": "crash" | "hang" | "oom", "fixture": path,
                                      "error": str}]}},
     "totals": {"executions": int, "crashes": int, "hangs": int, "ooms": int}}

The exit status is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mmap
import os
import random
import re
import resource
import signal
import struct
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
WORK = OUT / "fuzz"
HEADER = struct.Struct("<QI")  # executions so far, length of the input being run
STARTUP_SLACK = 90.0  # seconds a child may take to import and instrument before it fuzzes


def _atheris_available() -> bool:
    try:
        import atheris  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


# --- the child: one target, one engine ---------------------------------------------------------


class _Hang(Exception):
    """One input ran past the hang bound (Python code only; a hang in C is seen by the parent)."""


class _Shared:
    """The page the child writes and the parent reads: executions, and the current input."""

    def __init__(self, path: Path, max_len: int, *, create: bool) -> None:
        size = HEADER.size + max_len
        if create:
            path.write_bytes(b"\0" * size)
        self._file = path.open("r+b")
        self.map = mmap.mmap(self._file.fileno(), size)
        self.executions = 0

    def enter(self, data: bytes) -> None:
        self.executions += 1
        self.map[HEADER.size : HEADER.size + len(data)] = data
        self.map[: HEADER.size] = HEADER.pack(self.executions, len(data))

    def read(self) -> tuple[int, bytes]:
        executions, length = HEADER.unpack(self.map[: HEADER.size])
        return executions, bytes(self.map[HEADER.size : HEADER.size + length])


def _finding(work: Path, kind: str, data: bytes, error: str) -> None:
    (work / "artifacts").mkdir(exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()
    (work / "artifacts" / digest).write_bytes(data)
    with (work / "findings.jsonl").open("a") as fh:
        fh.write(json.dumps({"kind": kind, "sha1": digest, "error": error[-2000:]}) + "\n")


def _child_atheris(name: str, work: Path, seconds: float, hang: float, memory_mb: int) -> None:
    import atheris  # noqa: PLC0415

    with atheris.instrument_imports(include=["trawl", "tests.fuzz", "email", "zipfile"]):
        from tests.fuzz import targets  # noqa: PLC0415

        target = targets.TARGETS[name]
        for seed in target.seeds():  # imports what the target uses, inside the instrumentation
            target.run(seed)
    shared = _Shared(work / "shared", targets.MAX_LEN, create=False)

    def one(data: bytes) -> None:
        shared.enter(data)
        target.run(data)

    def zip_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.6:
            edited = targets.mutate_zip(data, rng, lambda body: atheris.Mutate(body, len(body) + 256))
            return edited[:max_size]
        return bytes(atheris.Mutate(data, max_size))

    argv = [
        sys.argv[0],
        str(work / "corpus"),
        f"-max_total_time={max(1, int(seconds))}",
        f"-timeout={max(1, int(hang))}",
        f"-rss_limit_mb={memory_mb}",
        f"-malloc_limit_mb={memory_mb}",
        f"-max_len={targets.MAX_LEN}",
        "-len_control=0",  # inputs up to max_len at once: a ZIP package is not grown byte by byte
        f"-artifact_prefix={work / 'artifacts'}/",
        "-print_final_stats=1",
    ]
    (work / "artifacts").mkdir(exist_ok=True)
    atheris.Setup(argv, one, custom_mutator=zip_mutator if target.zip_members else None)
    atheris.Fuzz()


def _child_hypothesis(name: str, work: Path, seconds: float, hang: float) -> None:
    import traceback  # noqa: PLC0415

    from hypothesis import HealthCheck, Phase, given, settings  # noqa: PLC0415
    from hypothesis import seed as seed_with  # noqa: PLC0415
    from tests.fuzz import targets  # noqa: PLC0415

    target = targets.TARGETS[name]
    shared = _Shared(work / "shared", targets.MAX_LEN, create=False)
    deadline = time.monotonic() + seconds

    def alarm(_signum: int, _frame: Any) -> None:
        raise _Hang(f"one input ran longer than {hang} s")

    signal.signal(signal.SIGALRM, alarm)

    class _TimeUp(Exception):
        pass

    def one(data: bytes) -> None:
        if time.monotonic() > deadline:
            raise _TimeUp
        shared.enter(data)
        signal.setitimer(signal.ITIMER_REAL, hang)
        try:
            target.run(data)
        except _Hang:
            _finding(work, "hang", data, traceback.format_exc())
        except MemoryError:
            _finding(work, "oom", data, traceback.format_exc())
        except Exception:
            _finding(work, "crash", data, traceback.format_exc())
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    config = settings(
        max_examples=500,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    batch = 0
    while time.monotonic() < deadline:
        batch += 1
        run = seed_with(os.getpid() * 1000 + batch)(config(given(targets.mutations(target))(one)))
        try:
            run()
        except _TimeUp:
            break


def child(args: argparse.Namespace) -> None:
    # The address space is bounded at twice the resident bound: numpy, PDFium and libFuzzer map far
    # more than they touch. Past it an allocation fails (MemoryError: an OOM finding).
    limit = max(args.memory_mb, 1024) * 2 << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "src"))
    work = Path(args.work)
    if args.engine == "atheris":
        _child_atheris(args.child, work, args.seconds, args.hang, args.memory_mb)
    else:
        _child_hypothesis(args.child, work, args.seconds, args.hang)


# --- the parent --------------------------------------------------------------------------------


def _error_of(log: str) -> str:
    """The part of a libFuzzer/atheris log that says what went wrong."""
    for marker in ("=== Uncaught Python exception: ===", "==ERROR: libFuzzer:", "ALARM:", "Fatal Python"):
        at = log.find(marker)
        if at >= 0:
            return log[at : at + 2000]
    return log[-1500:]


def _headline(error: str) -> str:
    """The line of a finding's error that names it."""
    lines = [line.strip() for line in error.strip().splitlines()]
    for pattern in (r"[\w.]+(Error|Exception|Exit|Hang)\b|killed", r"ALARM|==\d+== ERROR"):
        for line in reversed(lines):
            if re.match(pattern, line):
                return line[:200]
    return lines[-1][:200] if lines else ""


def _signature(kind: str, error: str) -> str:
    """What tells one bug from another: the kind, the error's type and the innermost frame."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', error)
    where = ":".join(frames[-1]) if frames else ""
    return f"{kind} {_headline(error).split(':')[0]} {where}"


def fuzz_target(name: str, args: argparse.Namespace, engine: str) -> dict[str, Any]:
    """Fuzz one target for ``args.seconds``, restarting it after each finding."""
    sys.path.insert(0, str(ROOT))
    from tests.fuzz import targets  # noqa: PLC0415

    target = targets.TARGETS[name]
    work = WORK / name
    for sub in ("corpus", "artifacts"):
        folder = work / sub
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
    (work / "findings.jsonl").unlink(missing_ok=True)
    seeds = target.seeds()
    for seed in seeds:
        (work / "corpus" / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    shared = _Shared(work / "shared", targets.MAX_LEN, create=True)
    result: dict[str, Any] = {
        "engine": engine,
        "executions": 0,
        "crashes": 0,
        "hangs": 0,
        "ooms": 0,
        "max_rss_mb": 0.0,
        "seconds": 0.0,
        "seeds": len(seeds),
        "repeats": 0,
        "findings": [],
    }
    began = time.monotonic()
    deadline = began + args.seconds
    restarts = 0
    seen: set[str] = set()
    while restarts <= args.max_restarts:
        left = deadline - time.monotonic()
        if restarts and left < 2:
            break
        left = max(left, 1.0)
        shared.map[: HEADER.size] = HEADER.pack(0, 0)
        command = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--work", str(work)]
        command += ["--engine", engine, "--seconds", f"{left:.1f}", "--hang", str(args.hang)]
        command += ["--memory-mb", str(args.memory_mb)]
        log_path = work / f"log-{restarts}.txt"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, process_group=0)
            killed = False
            limit_at = time.monotonic() + left + args.hang + STARTUP_SLACK
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > limit_at:
                    os.killpg(proc.pid, signal.SIGKILL)  # a hang the child could not report (in C)
                    killed = True
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.2)
            proc.returncode = os.waitstatus_to_exitcode(status)
        result["max_rss_mb"] = max(result["max_rss_mb"], round(usage.ru_maxrss / 1024, 1))
        executions, last = shared.read()
        result["executions"] += executions
        log_text = log_path.read_text("utf-8", "replace")
        found: list[tuple[str, bytes, str]] = []
        findings = work / "findings.jsonl"
        if findings.exists():  # the Hypothesis child's own reports
            for line in findings.read_text().splitlines():
                item = json.loads(line)
                found.append((item["kind"], (work / "artifacts" / item["sha1"]).read_bytes(), item["error"]))
            findings.unlink()
        if killed:
            found.append(("hang", last, f"killed after {left + args.hang:.0f} s: a hang in compiled code?"))
        elif proc.returncode != 0:
            if executions == 0:
                raise SystemExit(f"fuzz target {name} did not start:\n{log_text[-3000:]}")
            error = _error_of(log_text)
            kind = "oom" if "out-of-memory" in error or "MemoryError" in error else "crash"
            kind = "hang" if "ALARM:" in error or "libFuzzer: timeout" in error else kind
            if proc.returncode < 0:
                error = f"killed by signal {-proc.returncode}\n" + error
            found.append((kind, last, error))
        if engine == "atheris" and not found:
            stats = [
                line for line in log_text.splitlines() if line.startswith("stat::number_of_executed_units")
            ]
            if stats:
                result["executions"] += int(stats[-1].split(":")[-1]) - executions  # libFuzzer's own count
        for kind, data, error in found:
            result[{"crash": "crashes", "hang": "hangs", "oom": "ooms"}[kind]] += 1
            digest = hashlib.sha1(data).hexdigest()
            bug = _signature(kind, error)
            if bug in seen:  # the same bug again (another input): counted, not kept
                result["repeats"] += 1
                continue
            seen.add(bug)
            where = work / "artifacts" / digest
            if not args.no_save:
                where = targets.FUZZ_FIXTURES / name / digest
                where.parent.mkdir(parents=True, exist_ok=True)
            where.write_bytes(data)
            result["findings"].append({"kind": kind, "fixture": str(where.relative_to(ROOT)), "error": error})
            print(f"  {name}: {kind} -> {where.relative_to(ROOT)}\n    {_headline(error)}", flush=True)
        if not found:
            break
        restarts += 1
    result["seconds"] = round(time.monotonic() - began, 1)
    return result


def table(results: dict[str, dict[str, Any]]) -> str:
    rows = [
        "| parser | engine | seeds | executions | exec/s | crashes | hangs | OOMs | max RSS MiB | seconds |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        rate = r["executions"] / r["seconds"] if r["seconds"] else 0.0
        rows.append(
            f"| {name} | {r['engine']} | {r['seeds']} | {r['executions']:,} | {rate:,.0f} | {r['crashes']} "
            f"| {r['hangs']} | {r['ooms']} | {r['max_rss_mb']:.0f} | {r['seconds']:.0f} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="fuzzing time per target")
    parser.add_argument("--targets", default="", help="comma-separated target names (default: all)")
    parser.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    parser.add_argument("--hang", type=float, default=10.0, help="seconds one input may take")
    parser.add_argument("--memory-mb", type=int, default=2048, help="resident memory bound of a child")
    parser.add_argument("--max-restarts", type=int, default=20, help="findings before a target is given up")
    parser.add_argument("--no-save", action="store_true", help="keep findings out of tests/data/fuzz")
    parser.add_argument("--out", default=str(OUT / "fuzz.json"))
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(ROOT))
    from tests.fuzz.targets import TARGETS  # noqa: PLC0415

    if args.list:
        for target in TARGETS.values():
            print(f"{target.name:10} {target.about}")
        return
    names = [n.strip() for n in args.targets.split(",") if n.strip()] or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {', '.join(TARGETS)}")
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if _atheris_available() else "hypothesis"
    elif engine == "atheris" and not _atheris_available():
        parser.error("Atheris is not installed: pip install 'trawl[fuzz]' (or --engine hypothesis)")
    results: dict[str, dict[str, Any]] = {}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for name in names:
        print(f"{name}: {engine}, {args.seconds:.0f} s", flush=True)
        results[name] = fuzz_target(name, args, engine)
        totals = {k: sum(r[k] for r in results.values()) for k in ("executions", "crashes", "hangs", "ooms")}
        report = {
            "engine": engine,
            "seconds_per_target": args.seconds,
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "targets": results,
            "totals": totals,
        }
        out.write_text(json.dumps(report, indent=1) + "\n")  # after each target: a partial run reports too
    print(table(results))
    print(f"written {out}")
    if any(r["crashes"] or r["hangs"] or r["ooms"] for r in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
