"""The crawler's transports against a second real web server, lighttpd from Debian.

Beside nginx (``test_real_servers.py``): lighttpd compresses static files with a length, streams
CGI output chunked, and passes a CGI's interim responses on, so this is where the transports meet
real ``100 Continue`` and ``103 Early Hints`` responses before the final one (nginx sends none).
Keep-alive is read from lighttpd's own access log (``%k``: the request's number on its
connection). Skipped where lighttpd or openssl is not installed (``.ci/run`` installs lighttpd).
"""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.crawl.servers import body, certificates, fetch_all, free_port, installed, start
from trawl.crawl.transport import FetchRequest, FetchResponse

LIGHTTPD = installed("lighttpd")
pytestmark = pytest.mark.skipif(
    LIGHTTPD is None or shutil.which("openssl") is None, reason="lighttpd or openssl is not installed"
)

INDEX = ("<html><head><title>lighttpd</title></head><body>" + "<p>words of a page</p>" * 400).encode()
BIG = os.urandom(1 << 16) * 48  # 3 MiB
PIECE = b"<p>a streamed piece of the page</p>\n" * 50

# CGI programs (Python, run by lighttpd's mod_cgi): interim responses, streamed and slow bodies.
CGI = {
    "hints.py": f"""
out.write(b"Status: 100 Continue\\r\\n\\r\\n"); out.flush()
out.write(b"Status: 103 Early Hints\\r\\nLink: </style.css>; rel=preload\\r\\n\\r\\n"); out.flush()
out.write(b"Status: 200 OK\\r\\nContent-Type: text/html\\r\\n\\r\\n"); out.flush()
for _ in range(4):
    out.write({PIECE!r}); out.flush(); time.sleep(0.05)
""",
    "slow.py": f"""
out.write(b"Content-Type: text/plain\\r\\n\\r\\n"); out.flush()
for _ in range(6):
    out.write({PIECE!r}); out.flush(); time.sleep(0.12)
""",
    "empty.py": 'out.write(b"Status: 204 No Content\\r\\n\\r\\n")\n',
}


@pytest.fixture(scope="module")
def lighttpd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("lighttpd")
    www = root / "www"
    (www / "cgi").mkdir(parents=True)
    (www / "index.html").write_bytes(INDEX)
    (www / "keep.html").write_bytes(INDEX)  # only the keep-alive test asks for these two
    (www / "big.bin").write_bytes(BIG)
    for name, code in {**CGI, "keep.py": CGI["hints.py"]}.items():
        script = www / "cgi" / name
        script.write_text(f"#!{sys.executable}\nimport sys, time\nout = sys.stdout.buffer\n{code}")
        script.chmod(0o755)
    ca, cert, key = certificates(root)
    http, https = free_port(), free_port()
    conf = root / "lighttpd.conf"
    conf.write_text(
        f"""
server.document-root = "{www}"
server.bind = "127.0.0.1"
server.port = {http}
server.modules = ("mod_redirect", "mod_cgi", "mod_deflate", "mod_accesslog", "mod_openssl")
server.errorlog = "{root}/error.log"
accesslog.filename = "{root}/access.log"
accesslog.format = "%k %s %U"
server.stream-response-body = 2
server.feature-flags += ("server.h1-discard-backend-1xx" => "disable")
server.max-keep-alive-requests = 1000
mimetype.assign = (".html" => "text/html", ".bin" => "application/octet-stream")
deflate.mimetypes = ("text/html")
deflate.allowed-encodings = ("gzip")
cgi.assign = (".py" => "")
url.redirect = ("^/redirect$" => "/index.html")
$SERVER["socket"] == "127.0.0.1:{https}" {{
  ssl.engine = "enable"
  ssl.pemfile = "{cert}"
  ssl.privkey = "{key}"
}}
"""
    )
    assert LIGHTTPD is not None
    proc = start([LIGHTTPD, "-D", "-f", str(conf)], http, root / "error.log")
    try:
        yield {"http": http, "https": https, "ca": ca, "log": root / "access.log"}
    finally:
        proc.terminate()
        proc.wait(10)


def test_both_transports_read_lighttpd_the_same(lighttpd: dict[str, Any]) -> None:
    base = f"http://site.test:{lighttpd['http']}"
    requests = [
        FetchRequest(f"{base}/index.html"),  # gzip with a Content-Length
        FetchRequest(f"{base}/cgi/hints.py"),  # 100, 103, then 200, chunked
        FetchRequest(f"{base}/cgi/slow.py"),  # chunked, written over ~0.7 s
        FetchRequest(f"{base}/cgi/empty.py"),  # 204
        FetchRequest(f"{base}/redirect"),  # 301, not followed by the transport
        FetchRequest(f"{base}/big.bin"),  # 3 MiB
        FetchRequest(f"{base}/big.bin", max_bytes=1 << 20),  # cut at the cap
        FetchRequest(f"{base}/missing.html"),  # 404
        FetchRequest(f"https://site.test:{lighttpd['https']}/cgi/hints.py"),  # interim answers over TLS
        FetchRequest(f"https://site.test:{lighttpd['https']}/index.html"),
    ]
    results = asyncio.run(fetch_all(lighttpd["ca"], requests))
    for name, got in results.items():
        index, hints, slow, empty, redirect, big, cut, missing, tls_hints, tls = got
        assert isinstance(index, FetchResponse) and index.status == 200, (name, index)
        assert index.header("Content-Encoding") == "gzip" and body(index) == INDEX, name
        for interim in (hints, tls_hints):  # the interim responses are passed over, not taken as the answer
            assert isinstance(interim, FetchResponse) and interim.status == 200, (name, interim)
            assert body(interim) == PIECE * 4, name  # sent chunked, stored de-chunked
            assert interim.header("Transfer-Encoding") is None and interim.header("Content-Length") is None
            assert interim.header("Link") is None, name  # 103's header is not the final response's
        assert isinstance(slow, FetchResponse) and body(slow) == PIECE * 6 and slow.seconds > 0.5, name
        assert isinstance(empty, FetchResponse) and (empty.status, empty.body) == (204, b""), name
        assert isinstance(redirect, FetchResponse) and redirect.status == 301, name
        assert (redirect.header("Location") or "").endswith("/index.html"), name
        assert isinstance(big, FetchResponse) and big.body == BIG and not big.truncated, name
        assert isinstance(cut, FetchResponse) and cut.truncated and 0 < len(cut.body) <= 1 << 20, name
        assert isinstance(missing, FetchResponse) and missing.status == 404, name
        assert isinstance(tls, FetchResponse) and tls.status == 200 and body(tls) == INDEX, name
    assert gzip.decompress(results["trawl"][0].body) == INDEX  # the body as captured: still coded


def test_conditional_get_and_keep_alive(lighttpd: dict[str, Any]) -> None:
    base = f"http://site.test:{lighttpd['http']}"
    first = asyncio.run(fetch_all(lighttpd["ca"], [FetchRequest(f"{base}/keep.html")]))
    first_resp = first["trawl"][0]
    assert isinstance(first_resp, FetchResponse)
    etag, modified = first_resp.header("ETag"), first_resp.header("Last-Modified")
    assert etag and modified
    log: Path = lighttpd["log"]
    requests = [
        FetchRequest(f"{base}/keep.html", headers=[("If-None-Match", etag)]),
        FetchRequest(f"{base}/keep.html", headers=[("If-Modified-Since", modified)]),
        FetchRequest(f"{base}/cgi/keep.py"),  # interim answers do not spoil the connection
        *(FetchRequest(f"{base}/keep.html") for _ in range(3)),
    ]
    results = asyncio.run(fetch_all(lighttpd["ca"], requests))
    for name, got in results.items():
        not_modified = [r for r in got[:2] if isinstance(r, FetchResponse)]
        assert [(r.status, r.body) for r in not_modified] == [(304, b""), (304, b"")], name
        assert all(isinstance(r, FetchResponse) and r.status == 200 for r in got[2:]), name
    # keep-alive: trawl's six requests went over one connection (numbers 0..5 on it; its first
    # request above had one of its own); lighttpd writes its access log in blocks: wait for it
    deadline = time.monotonic() + 10
    lines: list[list[str]] = []
    while len(lines) < 2 * (len(requests) + 1) and time.monotonic() < deadline:
        time.sleep(0.2)
        lines = [line.split() for line in log.read_text().splitlines() if "/keep." in line]
    trawl_lines = lines[2 : 2 + len(requests)]
    assert [int(n) for n, *_ in trawl_lines] == list(range(len(requests))), trawl_lines
