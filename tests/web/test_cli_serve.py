"""``trawl serve`` as a real process on a free loopback port, and its refusals at start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from trawl.cli.main import main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_line(proc: subprocess.Popen[str], needle: str, seconds: float = 30) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + seconds
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(
        f"no {needle!r} in the output: {lines}; stderr: {proc.stderr and proc.stderr.read()}"
    )


def get(url: str, seconds: float = 20) -> tuple[int, bytes, dict[str, str]]:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), {k.lower(): v for k, v in exc.headers.items()}
        except OSError:  # not listening yet: uvicorn binds just after the line is printed
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_serve_answers_pages_and_the_api_then_stops(collection: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "trawl.cli.main", "serve", str(collection), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines = wait_for_line(proc, "serving on")
        assert f"http://127.0.0.1:{port}/" in lines[-1]
        assert any(line.startswith("coll: ") and "documents" in line for line in lines)
        status, body, headers = get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b'href="/c/coll/"' in body
        assert headers["x-content-type-options"] == "nosniff"
        status, body, _ = get(f"http://127.0.0.1:{port}/api/openapi.json")
        assert status == 200 and "/api/c/{name}/docs" in json.loads(body)["paths"]
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/c/coll/reindex", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=5)
        assert refused.value.code == 401
        refused.value.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert proc.returncode in (0, -signal.SIGTERM)
    assert (collection / "web" / "index.sqlite").is_file()


def test_off_loopback_without_a_token_is_refused(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(collection), "--host", "0.0.0.0", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "--token" in err and "0.0.0.0" in err


def test_bad_tokens_and_collections_are_refused(
    collection: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "token"
    empty.write_text("\n")
    assert main(["serve", str(collection), "--token-file", str(empty)]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["serve", str(collection), "--token", "short"]) == 2
    assert "too short" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "nothing"), "--port", str(free_port())]) == 1
    assert "not a trawl collection" in capsys.readouterr().err
    both = ["serve", str(collection), "--token", "x" * 10, "--token-file", str(empty)]
    assert main(both) == 2  # one or the other
