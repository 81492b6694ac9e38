"""Helpers for the tests against real web servers (nginx, lighttpd): ports, a test CA, both
transports, and fetching a list of requests with each of them."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from trawl.crawl.http11 import HttpTransport
from trawl.crawl.transport import AiohttpTransport, FetchError, FetchRequest, FetchResponse, Transport
from trawl.decode.http import decode_payload

__all__ = ["body", "certificates", "fetch_all", "free_port", "installed", "start", "transports"]


def installed(name: str) -> str | None:
    """The path of the Debian-packaged server ``name`` (on ``PATH`` or in ``/usr/sbin``), or None."""
    found = shutil.which(name)
    if found is None and Path(f"/usr/sbin/{name}").exists():
        found = f"/usr/sbin/{name}"
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and a certificate for ``site.test`` signed by it: (ca.pem, site.pem, site.key)."""

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=trawl test CA")  # fmt: skip
    (folder / "san.ext").write_text("subjectAltName=DNS:site.test\nbasicConstraints=CA:FALSE\n")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "site.key", "-out", "site.csr",
        "-subj", "/CN=site.test")  # fmt: skip
    run("x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "site.pem", "-days", "2", "-extfile", "san.ext")  # fmt: skip
    return folder / "ca.pem", folder / "site.pem", folder / "site.key"


def start(command: list[str], port: int, error_log: Path) -> subprocess.Popen[bytes]:
    """Start a server in the foreground and wait until it listens on ``port`` (fail if it doesn't)."""
    proc = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    errors = error_log.read_text() if error_log.exists() else ""
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    pytest.fail(f"{command[0]} did not start: {errors}{stderr}")


def transports(ca: Path) -> list[tuple[str, Transport]]:
    """trawl's own client and aiohttp, resolving ``site.test`` to loopback, trusting only ``ca``."""
    rules = ["site.test=127.0.0.1"]
    context = ssl.create_default_context(cafile=str(ca))  # the test CA, and only it
    return [
        ("trawl", HttpTransport(resolve=rules, ssl_context=context)),
        ("aiohttp", AiohttpTransport(resolve=rules, ssl_context=context)),
    ]


def body(resp: FetchResponse) -> bytes:
    """The entity body, transfer and content codings undone."""
    return decode_payload(resp.body, resp.header("Transfer-Encoding"), resp.header("Content-Encoding")).data


async def fetch_all(ca: Path, requests: list[FetchRequest]) -> dict[str, list[FetchResponse | FetchError]]:
    """Each transport's answers to ``requests``, in order, one transport after the other."""
    out: dict[str, list[FetchResponse | FetchError]] = {}
    for name, transport in transports(ca):
        got: list[FetchResponse | FetchError] = []
        try:
            for request in requests:
                try:
                    got.append(await transport.fetch(request))
                except FetchError as exc:
                    got.append(exc)
        finally:
            await transport.close()
        out[name] = got
    return out
