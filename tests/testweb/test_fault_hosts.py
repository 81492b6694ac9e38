"""The fault hosts of the test web (``KIND.fault.test``, :data:`trawl.testweb.FAULT_KINDS`):
healthy for their first ``fault_after`` page requests, then faulty each in its own way."""

from __future__ import annotations

import asyncio
import socket

import pytest

from trawl.testweb import FAULT_KINDS, SPECIAL_HOSTS, TestWeb, TestWebServer


def _statuses(web: TestWeb, kind: str, n: int) -> list[int]:
    return [web.respond(f"{kind}.fault.test", f"/p/{i}.html", {}, 0.0).status for i in range(n)]


@pytest.mark.parametrize(
    ("kind", "fault"),
    [("500", 500), ("502", 502), ("504", 504), ("503", 503), ("503-retry", 503), ("429", 429)],
)
def test_a_fault_host_answers_well_then_fails_for_good(kind: str, fault: int) -> None:
    web = TestWeb(1, hosts=1, fault_after=3)
    assert web.respond(f"{kind}.fault.test", "/robots.txt", {}, 0.0).status == 404  # not counted
    assert _statuses(web, kind, 8) == [200] * 3 + [fault] * 5
    retry = dict(web.respond(f"{kind}.fault.test", "/", {}, 0.0).headers).get("Retry-After")
    assert retry == ("1" if kind.endswith("-retry") else None)


def test_flaky_blip_slow_hang_and_reset() -> None:
    web = TestWeb(1, hosts=1, fault_after=2, fault_blip=2, slow_seconds=0.3)
    assert _statuses(web, "flaky", 7) == [200, 200, 500, 200, 500, 200, 500]
    assert _statuses(web, "blip", 7) == [200, 200, 500, 500, 200, 200, 200]
    slow = [web.respond("slow.fault.test", "/", {}, 0.0) for _ in range(3)]
    assert [r.delay for r in slow] == [0.0, 0.0, 0.3] and slow[2].status == 200
    hang = [web.respond("hang.fault.test", "/", {}, 0.0) for _ in range(3)]
    assert [r.mode for r in hang] == ["normal", "normal", "hang"]
    reset = [web.respond("reset.fault.test", "/", {}, 0.0) for _ in range(3)]
    assert [r.mode for r in reset] == ["normal", "normal", "reset"]
    assert ("Connection", "close") in reset[0].headers


def test_which_fault_hosts_exist() -> None:
    web = TestWeb(1, hosts=1)
    assert "fault.test" in SPECIAL_HOSTS and web.exists("fault.test")
    assert all(web.exists(f"{kind}.fault.test") for kind in FAULT_KINDS)
    assert not web.exists("nope.fault.test")
    assert web.respond("nope.fault.test", "/", {}, 0.0).status == 421
    assert not TestWeb(1, hosts=1, special=False).exists("500.fault.test")
    index = web.respond("fault.test", "/", {}, 0.0)
    assert index.status == 200 and b"429-retry.fault.test" in index.body
    with pytest.raises(ValueError, match="fault_after"):
        TestWeb(1, fault_after=-1)


def test_the_server_resets_and_logs_hung_requests_when_the_client_leaves() -> None:
    web = TestWeb(1, hosts=1, fault_after=0)

    async def main() -> tuple[bytes, list[tuple[str, int, float]]]:
        loop = asyncio.get_running_loop()
        async with TestWebServer(web) as server:

            def ask(host: str, hold: float) -> bytes:
                with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
                    sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
                    if hold:
                        sock.settimeout(hold)
                        with pytest.raises(TimeoutError):
                            sock.recv(100)  # nothing comes
                        return b""
                    try:
                        return sock.recv(100)
                    except ConnectionResetError:
                        return b"RST"

            answer = await loop.run_in_executor(None, ask, "reset.fault.test", 0.0)
            await loop.run_in_executor(None, ask, "hang.fault.test", 0.3)
            await asyncio.sleep(0.1)  # the server sees the client leave
            return answer, [(e.host, e.status, e.end - e.start) for e in server.log]

    answer, log = asyncio.run(main())
    assert answer in (b"", b"RST")  # no answer: closed, or reset
    assert [(host, status) for host, status, _ in log] == [("reset.fault.test", 0), ("hang.fault.test", 0)]
    assert log[1][2] >= 0.3 - 0.01  # logged when the client left, not before
