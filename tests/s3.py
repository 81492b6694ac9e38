"""An S3 server on loopback for tests: moto's server mode, in a thread of the test process.

``s3_server`` (session scope) starts one ``moto.server.ThreadedMotoServer`` on 127.0.0.1 (a free
port) with one empty bucket; ``s3`` (per test) points this process at it: fake credentials,
``TRAWL_S3_ENDPOINT``, no AWS configuration files, no proxy, all undone after the test. Child
processes started during the test (a ``trawl`` subprocess, a Ray worker) inherit the same
environment, so they reach the same server. Tests that use either skip, saying why, when
``moto[server]`` or ``s3fs`` is not installed (``pip install -e '.[test,scale]'``).

Each test writes under a prefix of its own (``s3.prefix()``) so tests stay independent while
sharing the server.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["S3Server", "s3", "s3_server"]

_KEY, _SECRET, _REGION = "trawl-test-key", "trawl-test-secret", "us-east-1"


@dataclass
class S3Server:
    """A running moto S3 server: its endpoint, its bucket, and how to put test files there."""

    endpoint: str
    bucket: str
    fs: Any = field(repr=False)  # an s3fs filesystem of its own, with explicit credentials
    _counter: Iterator[int] = field(default_factory=itertools.count, repr=False)

    def url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key.lstrip('/')}"

    def prefix(self, name: str = "t") -> str:
        """A fresh ``s3://bucket/<name>-<n>`` prefix, unused by any other test of the session."""
        return self.url(f"{name}-{next(self._counter)}")

    def upload(self, local: Path, url: str) -> str:
        """Put the local file at ``url``; returns ``url``."""
        self.fs.put_file(str(local), url)
        return url

    def env(self) -> dict[str, str]:
        """The environment that points boto, s3fs and trawl at this server."""
        return {
            "AWS_ACCESS_KEY_ID": _KEY,
            "AWS_SECRET_ACCESS_KEY": _SECRET,
            "AWS_DEFAULT_REGION": _REGION,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
            "TRAWL_S3_ENDPOINT": self.endpoint,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    server_module = pytest.importorskip(
        "moto.server", reason="moto[server] is not installed (pip install -e '.[test]')"
    )
    s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed (pip install -e '.[scale]')")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        fs = s3fs.S3FileSystem(
            key=_KEY,
            secret=_SECRET,
            endpoint_url=endpoint,
            skip_instance_cache=True,
        )
        bucket = "trawl-test"
        fs.mkdir(bucket)
        yield S3Server(endpoint, bucket, fs)
    finally:
        server.stop()


@pytest.fixture
def s3(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    return s3_server
