"""WARC ``request`` records: what the crawler sent, beside the ``response`` records of what came back
(and ``conversion`` records: a page as headless Chromium rendered it, :mod:`trawl.crawl.render`).

The collection's :class:`~trawl.store.warcfile.WarcFileWriter` writes responses (and resources and
revisits); a crawl also owes the archive its requests (WARC 1.1 §6.5: a ``request`` record holds
the full HTTP request, and ``WARC-Concurrent-To`` ties it to its response). This small writer puts
them in the collection's ``warc/`` directory in files of their own,
``{prefix}-requests-{YYYYmmddHHMMSS}-{serial}.warc.gz``, one gzip member per record, so that any
WARC reader sees the pairs and the collection's readers (which skip request records) are not
slowed down by them.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from trawl.errors import StoreError
from trawl.store.disk import cut_back, disk_error, write_all

__all__ = ["RequestRecorder", "new_record_id"]


def new_record_id() -> str:
    return f"<urn:uuid:{uuid.uuid4()}>"


def _date(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _clean(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")


class RequestRecorder:
    """Appends ``request`` records to a WARC file of its own, rotated at ``max_bytes``."""

    def __init__(
        self, directory: Path, *, prefix: str = "trawl", max_bytes: int = 1 << 30, level: int = 6
    ) -> None:
        self.directory = Path(directory)
        self.prefix = f"{prefix}-requests"
        self.max_bytes = max_bytes
        self.level = level
        self._fh: IO[bytes] | None = None
        self._path = self.directory
        self._size = 0
        self._serial = 0
        self.records = 0
        self.conversions = 0

    def _open(self) -> IO[bytes]:
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
            path = self.directory / f"{self.prefix}-{stamp}-{self._serial:05d}.warc.gz"
            self._serial += 1
            try:
                fh = path.open("xb", buffering=0)  # unbuffered: a refused record is cut off, not kept
            except FileExistsError:
                continue
            self._fh, self._size, self._path = fh, 0, path
            return fh

    def write(
        self,
        url: str,
        method: str,
        headers: list[tuple[str, str]],
        when: datetime,
        *,
        concurrent_to: str | None = None,
        ip: str | None = None,
    ) -> None:
        """One request record for ``method url`` with ``headers``, sent at ``when``."""
        split = url.split("//", 1)[-1]
        slash = split.find("/")
        target = split[slash:] if slash >= 0 else "/"
        head = f"{method} {target} HTTP/1.1\r\n" + "".join(
            f"{_clean(k)}: {_clean(v)}\r\n" for k, v in headers
        )
        block = (head + "\r\n").encode("utf-8")
        fields = [
            ("WARC-Type", "request"),
            ("WARC-Record-ID", new_record_id()),
            ("WARC-Date", _date(when)),
            ("WARC-Target-URI", _clean(url).replace(" ", "%20")),
        ]
        if concurrent_to:
            fields.append(("WARC-Concurrent-To", concurrent_to))
        if ip:
            fields.append(("WARC-IP-Address", ip))
        self._append(fields, "application/http; msgtype=request", block)

    def write_conversion(self, url: str, payload: bytes, when: datetime, *, refers_to: str) -> None:
        """A ``conversion`` record (WARC 1.1 §6.8): the page ``refers_to`` names as a browser
        rendered it (its scripts run), an HTML document in UTF-8."""
        fields = [
            ("WARC-Type", "conversion"),
            ("WARC-Record-ID", new_record_id()),
            ("WARC-Date", _date(when)),
            ("WARC-Target-URI", _clean(url).replace(" ", "%20")),
            ("WARC-Refers-To", refers_to),
        ]
        self._append(fields, "text/html; charset=utf-8", payload, payload_digest=True)
        self.conversions += 1

    def _append(
        self, fields: list[tuple[str, str]], content_type: str, block: bytes, *, payload_digest: bool = False
    ) -> None:
        digest = "sha1:" + base64.b32encode(hashlib.sha1(block).digest()).decode("ascii")
        fields += [
            ("Content-Type", content_type),
            ("Content-Length", str(len(block))),
            ("WARC-Block-Digest", digest),
        ]
        if payload_digest:
            fields.append(("WARC-Payload-Digest", digest))
        record = (
            ("WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields) + "\r\n").encode()
            + block
            + b"\r\n\r\n"
        )
        packer = zlib.compressobj(self.level, zlib.DEFLATED, 31)
        member = packer.compress(record) + packer.flush()
        fh = self._fh
        if fh is None or self._size >= self.max_bytes:
            self.close()
            fh = self._open()
        try:
            write_all(fh, member)
        except OSError as exc:
            if not cut_back(fh, self._size):
                self._size = self.max_bytes  # it could not be cut: the next record starts a new file
            raise disk_error(exc, self._path) or StoreError(
                f"cannot write to WARC file {str(self._path)!r}: {exc.strerror or exc}"
            ) from exc
        self._size += len(member)
        self.records += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
