"""Serve a :class:`~trawl.testweb.site.TestWeb` over HTTP/1.1 on loopback, and log every request.

One listening socket (``127.0.0.1``, port 0 by default) serves every host by its ``Host`` header
(or an absolute-form request target, as proxies receive), so thousands of hosts cost one port;
the crawler's resolver maps the ``*.test`` names to it. The server is a plain
:class:`asyncio.Protocol` rather than a framework, because it must misbehave on purpose (garbage
instead of HTTP, lying lengths, bodies that drip or never end) and stay fast enough that a
benchmark measures the crawler, not the server.

Every request is logged as a :class:`LogEntry` (host, target, status, bytes, when it arrived
and when its answer was written), in memory and optionally as JSON lines: politeness is checked
from the server's side, as a webmaster would check it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, cast

from trawl.crawl.aio import new_event_loop
from trawl.testweb.site import Reply, TestWeb

__all__ = ["LogEntry", "ServerThread", "TestWebServer"]

_REASONS = {
    200: "OK",
    202: "Accepted",
    204: "No Content",
    301: "Moved Permanently",
    302: "Found",
    304: "Not Modified",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    421: "Misdirected Request",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
_MAX_HEAD = 65536
_MAX_BODY = 1 << 20  # a request body (hub.test's forms): more closes the connection


@dataclass(slots=True)
class LogEntry:
    """One request as the server saw it (times from :func:`time.monotonic`, seconds)."""

    host: str
    target: str
    status: int
    bytes: int
    start: float
    end: float
    conn: int
    #: bytes on the wire, head and body (0 where not counted: drips and endless bodies)
    wire: int = 0
    method: str = "GET"


def _head(reply: Reply, length: int | None, keep_alive: bool) -> bytes:
    lines = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
    names = set()
    for name, value in reply.headers:
        lines.append(f"{name}: {value}")
        names.add(name.lower())
    if length is not None and "content-length" not in names:
        lines.append(f"Content-Length: {length}")
    lines.append("Server: trawl-testweb")
    if not keep_alive:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class _Connection(asyncio.Protocol):
    def __init__(self, server: TestWebServer, conn_id: int) -> None:
        self.server = server
        self.conn_id = conn_id
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.pending: deque[tuple[str, str, dict[str, str], str, bytes]] = deque()
        #: a request whose body is still arriving: method, target, headers, Content-Length
        self.waiting: tuple[str, str, dict[str, str], int] | None = None
        self.busy = False
        self.closed = False
        self.gone: asyncio.Future[None] | None = None  # set when the client leaves (mode "hang")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.gone is not None and not self.gone.done():
            self.gone.set_result(None)
        self.server._connections.discard(self)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            if self.waiting is not None:  # hub.test's POSTs: the body, by its Content-Length
                method, target, headers, length = self.waiting
                if len(self.buffer) < length:
                    return
                body, self.buffer = self.buffer[:length], self.buffer[length:]
                self.waiting = None
                self.pending.append((method, target, headers, headers.get("host", ""), body))
                if not self.busy:
                    self._next()
                continue
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > _MAX_HEAD:
                    self._close()
                return
            head = self.buffer[:end].decode("latin-1")
            self.buffer = self.buffer[end + 4 :]
            lines = head.split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3:
                self._close()
                return
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            declared = headers.get("content-length", "0")
            if not declared.isdigit() or int(declared) > _MAX_BODY:
                self._close()
                return
            if int(declared):
                self.waiting = (parts[0], parts[1], headers, int(declared))
                continue
            self.pending.append((parts[0], parts[1], headers, headers.get("host", ""), b""))
            if not self.busy:
                self._next()

    def _close(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.close()
        self.closed = True

    def _next(self) -> None:
        while self.pending and not self.busy and not self.closed:
            method, target, headers, host, body = self.pending.popleft()
            start = time.monotonic()
            reply = self.server.web.respond(host, target, headers, self.server.clock(), method, body=body)
            keep_alive = headers.get("connection", "").lower() != "close"
            if reply.delay <= 0 and reply.mode == "normal":
                self._write(method, host, target, reply, start=start, keep_alive=keep_alive)
            else:
                self.busy = True
                task = asyncio.get_running_loop().create_task(
                    self._slow(method, host, target, reply, start=start, keep_alive=keep_alive)
                )
                self.server._tasks.add(task)
                task.add_done_callback(self.server._tasks.discard)

    def _write(
        self, method: str, host: str, target: str, reply: Reply, *, start: float, keep_alive: bool
    ) -> None:
        assert self.transport is not None
        body = b"" if method == "HEAD" or reply.status == 304 else reply.body
        if reply.wire is not None and keep_alive and method == "GET":
            data = reply.wire  # a cached page: its answer was built before
        else:
            data = _head(reply, len(reply.body) if reply.status != 304 else None, keep_alive) + body
            if keep_alive and method == "GET" and reply.status == 200:
                reply.wire = data
        self.transport.write(data)
        self.server._log(
            LogEntry(
                host,
                target,
                reply.status,
                len(body),
                start,
                time.monotonic(),
                self.conn_id,
                len(data),
                method,
            )
        )
        if not keep_alive:
            self._close()

    async def _slow(
        self, method: str, host: str, target: str, reply: Reply, *, start: float, keep_alive: bool
    ) -> None:
        assert self.transport is not None
        sent = 0
        try:
            if reply.delay > 0:
                await asyncio.sleep(reply.delay)
            if self.closed:
                return
            if reply.mode == "normal":
                self._write(method, host, target, reply, start=start, keep_alive=keep_alive)
                return
            if reply.mode == "hang":  # nothing: the request ends when the client gives up
                self.gone = asyncio.get_running_loop().create_future()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(self.gone), 60)
                self._close()
            elif reply.mode == "reset":  # SO_LINGER 0: the close sends a TCP RST
                sock = self.transport.get_extra_info("socket")
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.transport.abort()
                self.closed = True
            elif reply.mode == "garbage":
                self.transport.write(reply.body)
                sent = len(reply.body)
                self._close()
            elif reply.mode == "short":
                self.transport.write(_head(reply, None, True) + reply.body)
                sent = len(reply.body)
                self._close()
            elif reply.mode == "drip":
                self.transport.write(_head(reply, None, True))
                deadline = time.monotonic() + 60
                while not self.closed and time.monotonic() < deadline:
                    self.transport.write(b"x")
                    sent += 1
                    await asyncio.sleep(0.2)
                self._close()
            elif reply.mode == "stream":
                headers = [*reply.headers, ("Transfer-Encoding", "chunked")]
                self.transport.write(_head(Reply(reply.status, headers), None, True))
                chunk = f"{len(reply.body):x}\r\n".encode() + reply.body + b"\r\n"
                while not self.closed and sent < (1 << 30):
                    if self.transport.get_write_buffer_size() > (1 << 20):
                        await asyncio.sleep(0.005)
                        continue
                    self.transport.write(chunk)
                    sent += len(reply.body)
                    await asyncio.sleep(0)
                self._close()
            self.server._log(
                LogEntry(
                    host, target, reply.status, sent, start, time.monotonic(), self.conn_id, method=method
                )
            )
        finally:
            self.busy = False
            if not self.closed:
                self._next()


class TestWebServer:
    """Serves a :class:`TestWeb` on ``address:port`` (port 0: any free port) in the running loop."""

    __test__ = False

    def __init__(
        self, web: TestWeb, address: str = "127.0.0.1", port: int = 0, log_path: Path | None = None
    ) -> None:
        self.web = web
        self.address = address
        self.requested_port = port
        self.port = 0
        self.log: list[LogEntry] = []
        self.keep_log = True
        self.requests = 0
        self._log_path = log_path
        self._log_file: IO[str] | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._conn_ids = 0
        self._t0 = time.monotonic()

    def clock(self) -> float:
        """Server time: seconds since the server started (the web's change processes run on it)."""
        return time.monotonic() - self._t0

    @property
    def started(self) -> float:
        """When the server's clock began (:func:`time.monotonic`): a log entry's ``start`` less
        this is the server time its request was answered at."""
        return self._t0

    def _log(self, entry: LogEntry) -> None:
        self.requests += 1
        if self.keep_log:
            self.log.append(entry)
        if self._log_file is not None:
            self._log_file.write(json.dumps(asdict(entry)) + "\n")

    def _factory(self) -> _Connection:
        self._conn_ids += 1
        return _Connection(self, self._conn_ids)

    async def start(self) -> int:
        loop = asyncio.get_running_loop()
        self.web.warm()
        if self._log_path is not None:
            self._log_file = self._log_path.open("a", encoding="utf-8", buffering=1)
        self._server = await loop.create_server(
            self._factory, self.address, self.requested_port, backlog=1024
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._t0 = time.monotonic()
        return self.port

    def resolve_rules(self) -> list[str]:
        return self.web.resolve_rules(self.port, self.address)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for conn in list(self._connections):
                conn._close()
            for task in list(self._tasks):
                task.cancel()
            await self._server.wait_closed()
            self._server = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    async def __aenter__(self) -> TestWebServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class ServerThread:
    """A :class:`TestWebServer` running in its own thread and event loop (for tests and the CLI)."""

    def __init__(
        self, web: TestWeb, address: str = "127.0.0.1", port: int = 0, log_path: Path | None = None
    ) -> None:
        self.server = TestWebServer(web, address, port, log_path)
        self._loop = new_event_loop()  # uvloop when installed
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="testweb", daemon=True)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self.server.start())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self.server.close())
        self._loop.close()

    def start(self) -> ServerThread:
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def log(self) -> list[LogEntry]:
        return self.server.log

    def resolve_rules(self) -> list[str]:
        return self.server.resolve_rules()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
