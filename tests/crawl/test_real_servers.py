"""The crawler's transports against a real web server (nginx from Debian), over HTTP and HTTPS.

trawl's own HTTP/1.1 client is the default transport; it must behave as aiohttp does on a server
nobody on this project wrote: keep-alive, gzip (chunked, as nginx sends it), 204 and 304 without
bodies, redirects left to the crawler, bodies cut at the cap, slow bodies, a connection closed
without an answer, and TLS verified against a CA (a test CA here, given as the transports' ``ssl_context``).
Skipped where nginx or openssl is not installed (``.ci/run`` installs nginx-light).
"""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.crawl.servers import body, certificates, fetch_all, free_port, installed, start
from trawl.crawl.transport import FetchError, FetchRequest, FetchResponse

NGINX = installed("nginx")
pytestmark = pytest.mark.skipif(
    NGINX is None or shutil.which("openssl") is None, reason="nginx or openssl is not installed"
)

INDEX = ("<html><head><title>Real server</title></head><body>" + "<p>words of a page</p>" * 400).encode()
BIG = os.urandom(1 << 16) * 48  # 3 MiB, not compressible by gzip_types (octet-stream)
SLOW = b"<p>slow</p>" * 6000  # ~66 KB at 64 KB/s


@pytest.fixture(scope="module")
def nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("nginx")
    www = root / "www"
    (www / "slow").mkdir(parents=True)
    (www / "index.html").write_bytes(INDEX)
    (www / "big.bin").write_bytes(BIG)
    (www / "slow" / "page.html").write_bytes(SLOW)
    ca, cert, key = certificates(root)
    http, https = free_port(), free_port()
    temp = root / "temp"
    temp.mkdir()
    conf = root / "nginx.conf"
    conf.write_text(
        f"""
daemon off; master_process off; worker_processes 1;
pid {root}/nginx.pid; error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
  log_format conns '$connection $connection_requests $status $request_uri';
  access_log {root}/access.log conns;
  client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy; fastcgi_temp_path {temp}/fcgi;
  uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
  types {{ text/html html; application/octet-stream bin; }}
  default_type application/octet-stream;
  gzip on; gzip_types text/html; gzip_min_length 256;
  keepalive_timeout 30s; keepalive_requests 1000;
  server {{
    listen 127.0.0.1:{http}; listen 127.0.0.1:{https} ssl;
    server_name site.test;
    ssl_certificate {cert}; ssl_certificate_key {key};
    root {www}; etag on;
    location = /redirect {{ return 301 /index.html; }}
    location = /empty {{ return 204; }}
    location = /reset {{ return 444; }}
    location /slow/ {{ limit_rate 64k; gzip off; }}
  }}
}}
"""
    )
    assert NGINX is not None
    proc = start([NGINX, "-c", str(conf), "-p", str(root)], http, root / "error.log")
    try:
        yield {"http": http, "https": https, "ca": ca, "log": root / "access.log"}
    finally:
        proc.terminate()
        proc.wait(10)


def test_both_transports_read_a_real_server_the_same(
    nginx: dict[str, Any],
) -> None:
    base = f"http://site.test:{nginx['http']}"
    requests = [
        FetchRequest(f"{base}/index.html"),  # gzip, chunked
        FetchRequest(f"{base}/empty"),  # 204
        FetchRequest(f"{base}/redirect"),  # 301, not followed by the transport
        FetchRequest(f"{base}/big.bin"),  # 3 MiB
        FetchRequest(f"{base}/big.bin", max_bytes=1 << 20),  # cut at the cap
        FetchRequest(f"{base}/slow/page.html"),  # 64 KB/s
        FetchRequest(f"{base}/missing.html"),  # 404
        FetchRequest(f"https://site.test:{nginx['https']}/index.html"),  # TLS, the test CA
    ]
    results = asyncio.run(fetch_all(nginx["ca"], requests))
    for name, got in results.items():
        index, empty, redirect, big, cut, slow, missing, tls = got
        assert isinstance(index, FetchResponse) and index.status == 200, (name, index)
        assert index.header("Content-Encoding") == "gzip" and body(index) == INDEX, name
        assert isinstance(empty, FetchResponse) and (empty.status, empty.body) == (204, b""), name
        assert isinstance(redirect, FetchResponse) and redirect.status == 301, name
        assert (redirect.header("Location") or "").endswith("/index.html"), name
        assert isinstance(big, FetchResponse) and big.body == BIG and not big.truncated, name
        assert isinstance(cut, FetchResponse) and cut.truncated and 0 < len(cut.body) <= 1 << 20, name
        assert isinstance(slow, FetchResponse) and body(slow) == SLOW and slow.seconds > 0.5, name
        assert isinstance(missing, FetchResponse) and missing.status == 404, name
        assert isinstance(tls, FetchResponse) and tls.status == 200 and body(tls) == INDEX, name
    assert gzip.decompress(results["trawl"][0].body) == INDEX  # the body as captured: still coded


def test_conditional_get_keep_alive_and_a_closed_connection(
    nginx: dict[str, Any],
) -> None:
    base = f"http://site.test:{nginx['http']}"
    first = asyncio.run(fetch_all(nginx["ca"], [FetchRequest(f"{base}/index.html")]))
    first_resp = first["trawl"][0]
    assert isinstance(first_resp, FetchResponse)
    etag = first_resp.header("ETag")
    modified = first_resp.header("Last-Modified")
    assert etag and modified
    log: Path = nginx["log"]
    log.write_text("")  # nginx appends; only this test's lines from here
    requests = [
        FetchRequest(f"{base}/index.html", headers=[("If-None-Match", etag)]),
        FetchRequest(f"{base}/index.html", headers=[("If-Modified-Since", modified)]),
        *(FetchRequest(f"{base}/index.html") for _ in range(3)),
        FetchRequest(f"{base}/reset"),  # nginx closes without a word
        FetchRequest(f"{base}/index.html"),  # and the next request still gets through
    ]
    results = asyncio.run(fetch_all(nginx["ca"], requests))
    for name, got in results.items():
        not_modified = [r for r in got[:2] if isinstance(r, FetchResponse)]
        assert [(r.status, r.body) for r in not_modified] == [(304, b""), (304, b"")], name
        assert all(isinstance(r, FetchResponse) and r.status == 200 for r in got[2:5]), name
        assert isinstance(got[5], FetchError), (name, got[5])
        assert isinstance(got[6], FetchResponse) and got[6].status == 200, name
    # keep-alive: trawl's seven requests (the reset one is nginx's 444) went over few connections
    lines = [line.split() for line in log.read_text().splitlines() if line.strip()]
    trawl_lines = lines[: len(requests)]
    connections = {conn for conn, *_ in trawl_lines}
    assert len(connections) <= 3, trawl_lines
    assert max(int(n) for _, n, *_ in trawl_lines) >= 4, trawl_lines
