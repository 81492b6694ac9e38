"""The entity body as the server meant it: HTTP transfer and content codings undone, with bounds.

``Document.raw`` keeps the payload exactly as it was captured, because that is what the WARC
stores and what its digests cover. What a parser wants is the *entity body*: ``raw`` with
``Transfer-Encoding: chunked`` undone and then each ``Content-Encoding`` (gzip, deflate, br,
zstd, and for files the single-file compressors: compress (LZW, ``.Z``), bzip2, xz, lz4) undone in
reverse order of application.

Design: this is a pure function, :func:`entity_body`, not a pipeline step. A step would have to
put the decoded bytes somewhere on the document, and the only places are ``raw`` (which must
stay as captured) or ``metadata`` (which is serialised with the record). The callers are few and
each needs the body at a different depth: the type sniffer needs only its first kilobyte
(``limit=`` decodes just that much, so a 50 MiB gzip body costs microseconds to sniff) and the
charset decoder needs all of it, once. For the common identity-coded body, ``entity_body`` returns
``raw`` itself, without a copy.

Every anomaly is reported as a :class:`PayloadProblem` with a counter name (``decode/<kind>``)
instead of an exception, because a broken body still has a usable prefix: a truncated gzip stream
keeps what inflated, a chunked body with a lying size keeps the chunks before it, and a
decompression bomb is cut at ``max_bytes`` (``decode/size-cap``). Bodies whose headers claim a
coding they do not have (a crawler that decompressed or de-chunked but kept the header) are
detected by their first bytes and passed through, reported as ``*-absent``.
"""

from __future__ import annotations

import bz2
import importlib
import io
import lzma
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trawl.document import Document

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FILE_CODINGS",
    "Payload",
    "PayloadProblem",
    "dechunk",
    "decode_payload",
    "entity_body",
    "file_coding",
]

#: Decompressed bodies are cut at this size unless told otherwise (``decode.max_body_bytes``).
DEFAULT_MAX_BYTES = 50 << 20

_HEX = frozenset(b"0123456789abcdefABCDEF")


@dataclass(slots=True, frozen=True)
class PayloadProblem:
    """One anomaly met while decoding a body: ``kind`` names the counter ``decode/<kind>``."""

    kind: str
    message: str


@dataclass(slots=True, frozen=True)
class Payload:
    """A decoded entity body, the codings that were undone, and what went wrong on the way."""

    data: bytes
    codings: tuple[str, ...] = ()
    problems: tuple[PayloadProblem, ...] = ()


def _header_tokens(value: str | None) -> list[str]:
    """``"gzip, br"`` → ``["gzip", "br"]``: lower-cased, parameters and ``identity`` dropped."""
    if not value:
        return []
    tokens = []
    for part in value.split(","):
        token = part.split(";", 1)[0].strip().lower()
        if token and token != "identity":
            tokens.append(token)
    return tokens


def dechunk(data: bytes, limit: int | None = None) -> tuple[bytes, PayloadProblem | None]:
    """Undo ``Transfer-Encoding: chunked``, keeping every chunk that can be read.

    Returns the body and the first problem met. A body whose first line is not a chunk size was
    never chunked (the capture tool de-chunked it but kept the header): it comes back unchanged
    with a ``chunked-absent`` problem. Bad sizes, short chunks and a missing last chunk end the
    body where the damage starts (``chunked-error``). ``limit`` stops after that many output bytes
    (for sniffing a head), which is not a problem.
    """
    out: list[bytes] = []
    total = 0
    pos = 0
    end = len(data)
    first = True
    while True:
        eol = data.find(b"\n", pos)
        if eol < 0:
            if first:
                return data, PayloadProblem("chunked-absent", "Transfer-Encoding: chunked, but no size line")
            return b"".join(out), PayloadProblem(
                "chunked-error", f"no last chunk: body ends inside a chunk-size line at byte {pos}"
            )
        line = data[pos:eol].split(b";", 1)[0].strip()
        if not line or len(line) > 16 or not _HEX.issuperset(line):
            if first:
                return data, PayloadProblem(
                    "chunked-absent", f"Transfer-Encoding: chunked, but the body starts {data[:20]!r}"
                )
            return b"".join(out), PayloadProblem(
                "chunked-error", f"bad chunk size {data[pos:eol][:20]!r} at byte {pos}"
            )
        first = False
        size = int(line, 16)
        if size == 0:
            return b"".join(out), None  # trailers, if any, are not part of the body
        start = eol + 1
        stop = start + size
        if limit is not None and total + size >= limit:
            out.append(data[start : start + (limit - total)])
            return b"".join(out), None
        if stop > end:
            out.append(data[start:])
            return b"".join(out), PayloadProblem(
                "chunked-error", f"chunk of {size} bytes at byte {start} is cut short at {end}"
            )
        out.append(data[start:stop])
        total += size
        pos = stop
        if data.startswith(b"\r\n", pos):
            pos += 2
        elif data.startswith(b"\n", pos):
            pos += 1
        if pos >= end:
            return b"".join(out), PayloadProblem("chunked-error", "no last (zero-size) chunk")


class _Capped(Exception):
    """Raised inside a decoder when its output passes the cap; carries what was decoded."""

    def __init__(self, data: bytes) -> None:
        super().__init__("output cap reached")
        self.data = data


def _inflate(data: bytes, wbits: int, cap: int, multi_member: bool) -> tuple[bytes, str | None]:
    """Inflate zlib/gzip/raw-deflate ``data`` to at most ``cap`` bytes (:class:`_Capped` past it).

    Returns the output and an error message if the stream is corrupt or truncated; in both cases
    the output is what inflated before the damage. Concatenated gzip members are all inflated, as
    ``gzip -d`` does.
    """
    out = bytearray()
    d = zlib.decompressobj(wbits)
    buf = data
    while True:
        try:
            out += d.decompress(buf, cap + 1 - len(out))
            if not d.unconsumed_tail and not d.eof:
                out += d.flush()  # all input is in: collect what zlib still holds back
        except zlib.error as exc:
            return bytes(out), f"corrupt stream after {len(out)} bytes: {exc}"
        if len(out) > cap:
            raise _Capped(bytes(out[:cap]))
        if d.eof:
            rest = d.unused_data
            if multi_member and rest[:2] == b"\x1f\x8b":
                d = zlib.decompressobj(wbits)
                buf = rest
                continue
            return bytes(out), None
        buf = d.unconsumed_tail
        if not buf:
            return bytes(out), f"truncated stream: ended after {len(out)} bytes without its end marker"


def _gunzip(data: bytes, cap: int) -> tuple[bytes, str | None]:
    return _inflate(data, 31, cap, multi_member=True)


def _deflate(data: bytes, cap: int) -> tuple[bytes, str | None]:
    # RFC 9110 says zlib-wrapped, but servers have sent raw deflate for decades; the zlib header
    # (CMF/FLG check bits) tells them apart.
    zlib_header = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
    return _inflate(data, 15 if zlib_header else -15, cap, multi_member=False)


def _optional(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def _unbrotli(data: bytes, cap: int) -> tuple[bytes, str | None]:
    brotli = _optional("brotli")
    if brotli is None:
        raise LookupError("br needs the Python module 'brotli': pip install 'trawl[brotli]'")
    d = brotli.Decompressor()
    try:
        # output_buffer_limit (brotli >= 1.2) is what makes a bounded read possible at all: a few
        # hundred bytes of brotli can expand to gigabytes, so feeding the input in slices is no bound.
        out = d.process(data, output_buffer_limit=cap + 1)
        while len(out) <= cap and not d.is_finished() and not d.can_accept_more_data():
            out += d.process(b"", output_buffer_limit=cap + 1 - len(out))
    except TypeError as exc:
        raise LookupError("br needs brotli >= 1.2 for a bounded read: pip install -U brotli") from exc
    except brotli.error as exc:
        return b"", f"corrupt brotli stream: {exc}"
    if len(out) > cap:
        raise _Capped(out[:cap])
    if not d.is_finished():
        return out, f"truncated brotli stream: ended after {len(out)} bytes"
    return out, None


def _unzstd(data: bytes, cap: int) -> tuple[bytes, str | None]:
    zstandard = _optional("zstandard")
    if zstandard is None:
        raise LookupError("zstd needs the Python module 'zstandard': pip install 'trawl[zstd]'")
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    out = bytearray()
    try:
        while len(out) <= cap:
            piece = reader.read(min(1 << 20, cap + 1 - len(out)))
            if not piece:
                break
            out += piece
    except zstandard.ZstdError as exc:
        return bytes(out), f"corrupt zstd stream after {len(out)} bytes: {exc}"
    if len(out) > cap:
        raise _Capped(bytes(out[:cap]))
    return bytes(out), None


def _unstream(decompressor: Any, data: bytes, cap: int, name: str) -> tuple[bytes, str | None]:
    """``data`` through a bz2/lzma/lz4 decompressor object (``max_length`` bounds each step),
    concatenated streams too (``bzip2 -d`` reads them all), to at most ``cap`` bytes."""
    make = type(decompressor)
    d = decompressor
    out = bytearray()
    buf = data
    while True:
        try:
            out += d.decompress(buf, cap + 1 - len(out))
            while len(out) <= cap and not d.eof and not d.needs_input:
                out += d.decompress(b"", cap + 1 - len(out))
        except (OSError, EOFError, ValueError, RuntimeError, lzma.LZMAError) as exc:
            return bytes(out), f"corrupt {name} stream after {len(out)} bytes: {exc}"
        if len(out) > cap:
            raise _Capped(bytes(out[:cap]))
        if not d.eof:
            return bytes(out), f"truncated {name} stream: ended after {len(out)} bytes"
        buf = d.unused_data or b""  # lz4 has None
        if not buf.strip(b"\x00"):  # xz pads streams with zeros
            return bytes(out), None
        d = make()


def _bunzip2(data: bytes, cap: int) -> tuple[bytes, str | None]:
    return _unstream(bz2.BZ2Decompressor(), data, cap, "bzip2")


def _unxz(data: bytes, cap: int) -> tuple[bytes, str | None]:
    return _unstream(lzma.LZMADecompressor(), data, cap, "xz")


def _unlz4(data: bytes, cap: int) -> tuple[bytes, str | None]:
    lz4_frame = _optional("lz4.frame")
    if lz4_frame is None:
        raise LookupError("lz4 needs the Python module 'lz4': pip install 'trawl[compress]'")
    return _unstream(lz4_frame.LZ4FrameDecompressor(), data, cap, "lz4")


class _CappedSink(io.RawIOBase):
    """Keeps the first ``cap + 1`` bytes a decompressor writes; ``full`` once it has them. It never
    raises: an exception thrown into ncompress's C++ from its final flush aborts the process."""

    def __init__(self, cap: int) -> None:
        self.out = bytearray()
        self.cap = cap
        self.full = False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if not self.full:
            self.out += bytes(data)[: self.cap + 1 - len(self.out)]
            self.full = len(self.out) > self.cap
        return len(data)


class _Feed(io.RawIOBase):
    """``data`` in small reads, ending early (as if the file ended) once ``sink`` is full: that is
    what bounds the work on an LZW bomb, 256 input bytes at a time."""

    def __init__(self, data: bytes, sink: _CappedSink) -> None:
        self.data = memoryview(data)
        self.pos = 0
        self.sink = sink

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.sink.full:
            return 0
        n = min(len(buffer), 256, len(self.data) - self.pos)
        buffer[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def _uncompress(data: bytes, cap: int) -> tuple[bytes, str | None]:
    """``compress`` (LZW, ``.Z``) through ncompress (public domain), fed until the sink is full."""
    ncompress = _optional("ncompress")
    if ncompress is None:
        raise LookupError("compress (.Z) needs the Python module 'ncompress': pip install 'trawl[compress]'")
    sink = _CappedSink(cap)
    try:
        ncompress.decompress(io.BufferedReader(_Feed(data, sink), 256), sink)
    except (ValueError, OSError, RuntimeError) as exc:
        return bytes(sink.out[:cap]), f"corrupt compress (LZW) stream after {len(sink.out)} bytes: {exc}"
    if sink.full:
        raise _Capped(bytes(sink.out[:cap]))
    return bytes(sink.out), None


_DECODERS = {
    "gzip": _gunzip,
    "x-gzip": _gunzip,
    "deflate": _deflate,
    "br": _unbrotli,
    "zstd": _unzstd,
    "compress": _uncompress,
    "x-compress": _uncompress,
    "bzip2": _bunzip2,
    "xz": _unxz,
    "lz4": _unlz4,
}

#: The magic numbers of the single-file compressors, by the coding that undoes them.
FILE_CODINGS: dict[str, bytes] = {
    "gzip": b"\x1f\x8b",
    "compress": b"\x1f\x9d",
    "bzip2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
    "lz4": b"\x04\x22\x4d\x18",
}


def decode_payload(
    raw: bytes,
    transfer_encoding: str | None = None,
    content_encoding: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    limit: int | None = None,
) -> Payload:
    """Undo the transfer and content codings named by the two header values.

    ``max_bytes`` bounds every decompression (a longer output is cut there and reported as
    ``size-cap``); ``limit`` asks for only the first ``limit`` bytes, for sniffing, and is never
    a problem. Codings that cannot be undone (unknown, or an optional module missing) leave the
    bytes as they are and are reported as ``content-encoding-unsupported``.
    """
    problems: list[PayloadProblem] = []
    undone: list[str] = []

    def problem(kind: str, message: str) -> None:
        problems.append(PayloadProblem(kind, message))

    data = raw
    cap = max_bytes if limit is None else min(limit, max_bytes)
    transfer = _header_tokens(transfer_encoding)
    # A transfer coding other than chunked (rare: "gzip, chunked") was applied after the content
    # codings, so it is undone first, right after de-chunking.
    codings = _header_tokens(content_encoding) + [t for t in transfer if t != "chunked"]
    if "chunked" in transfer:
        # With a coding to undo after it, the whole chunked body is needed even for a head.
        data, trouble = dechunk(data, limit=None if codings else cap)
        if trouble is not None:
            problems.append(trouble)
        if trouble is None or trouble.kind != "chunked-absent":
            undone.append("chunked")
    for i, coding in enumerate(reversed(codings)):
        decoder = _DECODERS.get(coding)
        if decoder is None:
            problem("content-encoding-unsupported", f"Content-Encoding {coding!r} is not supported")
            break
        if coding in ("gzip", "x-gzip") and data[:2] != b"\x1f\x8b":
            problem("content-encoding-absent", f"Content-Encoding {coding}, but the body starts {data[:8]!r}")
            continue
        # Only the innermost coding may stop at a head's limit: the ones before it must deliver
        # all their output for it to be decodable.
        step_cap = cap if i == len(codings) - 1 else max_bytes
        try:
            decoded, error = decoder(data, step_cap)
        except _Capped as capped:
            data = capped.data
            undone.append(coding)
            if step_cap == max_bytes:
                problem("size-cap", f"{coding} body is larger than {max_bytes} bytes; cut there")
            break
        except LookupError as exc:
            problem("content-encoding-unsupported", str(exc))
            break
        if error is not None and not decoded:
            # Nothing inflated at all: the body was most likely never encoded; keep it as it is.
            problem("content-encoding-error", f"{coding}: {error}; body kept as captured")
            break
        if error is not None and limit is None:
            problem("content-encoding-error", f"{coding}: {error}")
        data = decoded
        undone.append(coding)
    if limit is not None and len(data) > limit:
        data = data[:limit]
    return Payload(data, tuple(undone), tuple(problems))


def entity_body(doc: Document, max_bytes: int = DEFAULT_MAX_BYTES, *, limit: int | None = None) -> Payload:
    """The entity body of ``doc``: its ``raw`` bytes with the codings its headers name undone.

    Documents without HTTP headers (local files, resource records) have nothing to undo, except
    a file that is a compressed document (``page.html.gz``, ``notes.txt.bz2``: :func:`file_coding`).
    """
    if not doc.http_headers:
        coding = file_coding(doc)
        if coding is None:
            return Payload(doc.raw if limit is None else doc.raw[:limit])
        return decode_payload(doc.raw, None, coding, max_bytes=max_bytes, limit=limit)
    return decode_payload(
        doc.raw,
        _joined(doc.http_headers, "transfer-encoding"),
        _joined(doc.http_headers, "content-encoding"),
        max_bytes=max_bytes,
        limit=limit,
    )


def file_coding(doc: Document) -> str | None:
    """The coding (``"gzip"``, ``"bzip2"``...) of a file that is a compressed document, by its
    bytes and its inner type.

    A desktop crawl reads ``page.html.gz`` as it is (``raw`` is the compressed file, declared
    ``application/gzip``); its name says what is inside (``metadata["compressed_type"]``), and
    the magic number says what the bytes really are (:data:`FILE_CODINGS`: gzip, compress (``.Z``),
    bzip2, xz, zstd, lz4). Then the compression is a content coding, as ``Content-Encoding:
    gzip`` is for an HTTP response.
    """
    if not doc.metadata.get("compressed_type"):
        return None
    head = doc.raw[:6]
    for coding, magic in FILE_CODINGS.items():
        if head.startswith(magic):
            return coding
    return None


def _joined(headers: Sequence[tuple[str, str]], name: str) -> str | None:
    """All values of a repeatable header, comma-joined as RFC 9110 allows (``None`` if absent)."""
    values = [value for key, value in headers if key.lower() == name]
    return ", ".join(values) if values else None
