"""Regenerate the small WARC/ARC fixtures in this folder (deterministic: same bytes every run).

    python tests/data/warc/make_fixtures.py

Each broken file is a good file with one problem put in the middle (or at the end), so that a
test can check both the drop and that the records around it survive. Records are numbered:
``http://example.com/N`` is record N; the tests name the numbers they expect.
"""

from __future__ import annotations

import bz2
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def record(
    n: int,
    *,
    rtype: str = "response",
    block: bytes | None = None,
    length: int | None = None,
    extra: str = "",
    ctype: str | None = None,
) -> bytes:
    """WARC/1.1 record number ``n``; ``length`` overrides the true Content-Length (to lie)."""
    if block is None:
        if rtype == "response":
            body = f"<html><title>page {n}</title><p>Body of record {n}.</p></html>\n".encode()
            block = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
        elif rtype == "request":
            block = f"GET /{n} HTTP/1.1\r\nHost: example.com\r\n\r\n".encode()
        else:
            block = f"plain text of record {n}\n".encode()
    if ctype is None:
        ctype = {
            "response": "application/http; msgtype=response",
            "request": "application/http; msgtype=request",
        }.get(rtype, "text/plain")
    head = (
        f"WARC/1.1\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012d}>\r\n"
        f"WARC-Date: 2024-01-02T03:04:{n % 60:02d}Z\r\nWARC-Target-URI: http://example.com/{n}\r\n"
        f"WARC-TREC-ID: DOC-{n:03d}\r\n{extra}Content-Type: {ctype}\r\n"
        f"Content-Length: {len(block) if length is None else length}\r\n\r\n"
    )
    return head.encode() + block + b"\r\n\r\n"


_BODY = b"<p>odd headers</p>\n"
#: HTTP blocks with unusual header lines; the tests expect the first one's fields unfolded,
#: the bad lines skipped (and reported), LF-only lines read as lines
ODD_HTTP_HEADS = [
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Folded: a\r\n  b\r\n\tc\r\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nBad Name: v\r\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nthis line has no colon\r\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\nContent-Type: text/html\nServer: s\n\n" + _BODY,
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nBad\tName: v\r\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n: no name\r\nServer: s\r\n\r\n" + _BODY,
    b"HTTP/1.1 200 OK\r\n  folded before any field\r\nContent-Type: text/html\r\nServer: s\r\n\r\n" + _BODY,
]


def warcinfo() -> bytes:
    info = b"software: trawl fixtures\r\nformat: WARC File Format 1.1\r\n"
    return (
        b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-999999999999>\r\n"
        b"WARC-Date: 2024-01-02T03:04:05Z\r\nContent-Type: application/warc-fields\r\n"
        + f"Content-Length: {len(info)}\r\n\r\n".encode()
        + info
        + b"\r\n\r\n"
    )


def gz(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def members(records: list[bytes]) -> bytes:
    return b"".join(gz(r) for r in records)


def good(n: int = 6) -> list[bytes]:
    """warcinfo, then records 1..n: a request before every second response, a resource at 3."""
    out = [warcinfo()]
    for i in range(1, n + 1):
        if i % 2 == 0:
            out.append(record(100 + i, rtype="request"))
        out.append(record(i, rtype="resource" if i == 3 else "response"))
    return out


def arc_v1() -> list[bytes]:
    desc = b"1 0 trawl fixtures\nURL IP-address Archive-date Content-type Archive-length\n\n"
    out = [b"filedesc://fixture.arc 0.0.0.0 20240102030405 text/plain %d\n" % len(desc) + desc + b"\n"]
    for n in range(1, 4):
        body = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>arc record %d</p>\n" % n
        if n == 2:
            body = b"plain dns-ish answer for record 2\n"
        ctype = b"text/html" if n != 2 else b"text/dns"
        out.append(
            b"http://example.com/%d 192.0.2.%d 2024010203040%d %s %d\n" % (n, n, n, ctype, len(body))
            + body
            + b"\n"
        )
    return out


def main() -> None:
    g = good()  # [info, 1, req102, 2, 3, req104, 4, 5, req106, 6]
    files: dict[str, bytes] = {
        "good.warc.gz": members(g),
        "good.warc": b"".join(g),
        "whole.warc.gz": gz(b"".join(g)),
        "good.warc.bz2": bz2.compress(b"".join(g)),
        "empty.warc": b"",
        "not-warc.png": PNG,
        "not-warc.txt": b"Dear reader,\nthis is a letter, not a web archive.\n" * 3,
        "arc-v1.arc": b"".join(arc_v1()),
        "arc-v1.arc.gz": members(arc_v1()),
    }
    # truncated gzip member: record 2 (index 3) cut in half, mid-file; and the last member cut
    parts = [gz(r) for r in g]
    files["truncated-mid.warc.gz"] = b"".join([*parts[:3], parts[3][: len(parts[3]) // 2], *parts[4:]])
    files["truncated-end.warc.gz"] = b"".join([*parts[:-1], parts[-1][: len(parts[-1]) // 2]])
    # Content-Length that lies: record 4 (index 6) too short and too long
    short = [*g[:6], record(4, length=40), *g[7:]]
    long_ = [*g[:6], record(4, length=400), *g[7:]]
    files["length-short.warc"] = b"".join(short)
    files["length-long.warc"] = b"".join(long_)
    files["length-short.warc.gz"] = members(short)
    files["length-long.warc.gz"] = members(long_)
    # garbage between records 2 and 3 (plain), and non-gzip bytes between members (gzip)
    junk = b"<<junk that a broken writer left between records>>\r\n" * 2
    files["garbage.warc"] = b"".join(g[:4]) + junk + b"".join(g[4:])
    files["garbage.warc.gz"] = b"".join(parts[:4]) + junk + b"".join(parts[4:])
    # a header line that is not "Name: value" in record 5 (index 7)
    bad = [*g[:7], record(5, extra="this line is not a header\r\n"), *g[8:]]
    files["bad-header.warc"] = b"".join(bad)
    files["bad-header.warc.gz"] = members(bad)
    # unusual HTTP header blocks (RFC 9112): records 1..8 are each kept, bad lines skipped; a
    # plain record 9 last, as the fast path leaves a file's last record to the recovering reader
    odd = [warcinfo(), *(record(n, block=block) for n, block in enumerate(ODD_HTTP_HEADS, 1)), record(9)]
    files["odd-http-headers.warc"] = b"".join(odd)
    files["odd-http-headers.warc.gz"] = members(odd)
    for name, data in files.items():
        (HERE / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
