"""``hub.test``: a small WebSub hub (W3C WebSub; PubSubHubbub 0.4), for the crawler's push feeds.

It serves the topics of ``news.test/push/`` (see :meth:`~trawl.testweb.site.TestWeb.push_feed`).
A subscriber's form ``POST`` (``hub.mode=subscribe|unsubscribe``, ``hub.topic``,
``hub.callback``, ``hub.secret``, ``hub.lease_seconds``) is answered ``202`` at once; a thread then
verifies the intent with a ``GET`` to the callback (``hub.challenge``; the lease granted is at most
:attr:`Hub.max_lease`) and, for a subscription, pushes the topic's feed right away, signed
``X-Hub-Signature: sha256=…`` with the subscriber's secret, with ``Link`` headers naming the hub
and the topic. :meth:`Hub.publish` (or a publisher's ``POST hub.mode=publish&hub.url=TOPIC``) adds
an entry to a topic and pushes it to every subscriber. The calls out go through :mod:`urllib` on
loopback from their own threads (the test web's server loop never waits on them).

``http://hub.test/hostile`` is the same hub gone bad: after verifying a subscription it pushes with
a wrong signature, with none, a body over 2 MiB, sends a verification for a topic never asked for
and an unsubscription never asked for, pushes to a callback it made up, and then, once, a proper
push. ``http://hub.test/refuse`` answers every subscription with 403. Everything it did and the
status it got back is in :attr:`Hub.events`, for tests to judge.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

__all__ = ["Hub", "HubEvent"]

HUB_URL = "http://hub.test/"
#: what a hostile push pads its body to (over the crawler's 1 MiB default cap)
OVERSIZED = 2 << 20


@dataclass(slots=True)
class HubEvent:
    """One thing the hub did: ``kind`` (``subscribe``, ``verify``, ``push``, ``hostile/…``), the
    topic, the callback, the status the other side answered (0: no answer) and a detail."""

    kind: str
    topic: str
    callback: str
    status: int
    detail: str = ""
    at: float = 0.0  # time.monotonic()


@dataclass(slots=True)
class _Subscription:
    topic: str
    callback: str
    secret: str
    lease: float
    hostile: bool


class Hub:
    """The hub behind ``hub.test`` (see the module docstring)."""

    def __init__(
        self, topic_body: Callable[[str], tuple[bytes, str] | None], publish: Callable[[str], str]
    ) -> None:
        """``topic_body(topic)``: the topic's feed now (body, media type), None if no such topic;
        ``publish(topic)``: add an entry to it, returning the entry's URL."""
        self.topic_body = topic_body
        self._publish = publish
        self.max_lease = 86400.0
        self.events: list[HubEvent] = []
        self.subscriptions: dict[tuple[str, str], _Subscription] = {}
        self._lock = threading.Lock()
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    # -- what the server asks ----------------------------------------------------------------------

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        """The hub's answer to ``method path`` with a form ``body``: (status, text)."""
        if path not in ("/", "/hostile", "/refuse"):
            return 404, b"not found\n"
        if method != "POST":
            return 200, b"a WebSub hub: POST hub.mode=subscribe|unsubscribe|publish\n"
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), max_num_fields=20).items()}
        mode = form.get("hub.mode", "")
        if mode == "publish":
            topic = form.get("hub.url") or form.get("hub.topic") or ""
            if self.topic_body(topic) is None:
                return 400, b"hub.url: no such topic\n"
            self.publish(topic)
            return 204, b""
        topic, callback = form.get("hub.topic", ""), form.get("hub.callback", "")
        if mode not in ("subscribe", "unsubscribe"):
            return 400, b"hub.mode: subscribe, unsubscribe or publish\n"
        if urlsplit(callback).scheme not in ("http", "https") or self.topic_body(topic) is None:
            return 400, b"hub.callback must be an http(s) URL and hub.topic a topic of this hub\n"
        self._event(mode, topic, callback, 0, path)
        if path == "/refuse":
            return 403, b"subscriptions are closed\n"
        lease = float(form["hub.lease_seconds"]) if form.get("hub.lease_seconds", "").isdigit() else 86400.0
        sub = _Subscription(
            topic, callback, form.get("hub.secret", ""), min(lease, self.max_lease), path == "/hostile"
        )
        self._start(self._verify, sub, mode)
        return 202, b""

    def publish(self, topic: str) -> str:
        """Add an entry to ``topic`` and push the feed to its subscribers (in a thread); the
        new entry's URL."""
        url = self._publish(topic)
        with self._lock:
            subs = [s for s in self.subscriptions.values() if s.topic == topic]
        for sub in subs:
            self._start(self._push, sub)
        return url

    def verified(self, topic: str) -> bool:
        """Is a subscription to ``topic`` verified (and not unsubscribed)?"""
        with self._lock:
            return any(s.topic == topic for s in self.subscriptions.values())

    def of(self, kind: str) -> list[HubEvent]:
        with self._lock:
            return [e for e in self.events if e.kind == kind]

    # -- calling out -------------------------------------------------------------------------------

    def _event(self, kind: str, topic: str, callback: str, status: int, detail: str = "") -> None:
        with self._lock:
            self.events.append(HubEvent(kind, topic, callback, status, detail, time.monotonic()))

    def _start(self, target: Callable[..., object], *args: object) -> None:
        threading.Thread(target=target, args=args, name="testweb-hub", daemon=True).start()

    def _call(
        self, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        request = urllib.request.Request(
            url, data=body, headers=headers or {}, method="POST" if body else "GET"
        )
        try:
            with self._opener.open(request, timeout=5.0) as resp:
                return int(resp.status), resp.read(4096)
        except urllib.error.HTTPError as exc:
            return int(exc.code), b""
        except (OSError, ValueError):  # refused, reset (a body it would not read), timed out
            return 0, b""

    def _ask(self, callback: str, params: dict[str, str]) -> tuple[int, bytes]:
        return self._call(callback + ("&" if "?" in callback else "?") + urlencode(params))

    def _verify(self, sub: _Subscription, mode: str) -> None:
        challenge = secrets.token_urlsafe(12)
        params = {"hub.mode": mode, "hub.topic": sub.topic, "hub.challenge": challenge}
        if mode == "subscribe":
            params["hub.lease_seconds"] = str(int(sub.lease))
        status, answer = self._ask(sub.callback, params)
        ok = 200 <= status < 300 and answer == challenge.encode()
        self._event(
            "verify", sub.topic, sub.callback, status, f"{mode} {'confirmed' if ok else 'not confirmed'}"
        )
        key = (sub.topic, sub.callback)
        if not ok:
            return
        with self._lock:
            if mode == "unsubscribe":
                self.subscriptions.pop(key, None)
                return
            self.subscriptions[key] = sub
        if sub.hostile:
            self._hostile(sub)
        else:
            self._push(sub)  # the content right after the verification

    def _push(
        self, sub: _Subscription, kind: str = "push", body: bytes | None = None, key: str | None = None
    ) -> int:
        content = self.topic_body(sub.topic)
        if content is None:
            return 0
        data = content[0] if body is None else body
        headers = {
            "Content-Type": content[1],
            "Link": f'<{HUB_URL}>; rel="hub", <{sub.topic}>; rel="self"',
        }
        if key != "":  # "": no signature at all
            digest = hmac.new((sub.secret if key is None else key).encode(), data, hashlib.sha256).hexdigest()
            headers["X-Hub-Signature"] = f"sha256={digest}"
        status, _ = self._call(sub.callback, data, headers)
        self._event(kind, sub.topic, sub.callback, status, f"{len(data)} bytes")
        return status

    def _hostile(self, sub: _Subscription) -> None:
        evil = (
            '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Evil</title>'
            '<entry><title>Evil {n}</title><link href="http://news.test/push/evil/{n}.html"/></entry>{pad}</feed>'
        )
        self._push(sub, "hostile/bad-signature", evil.format(n=1, pad="").encode(), key="not the secret")
        self._push(sub, "hostile/no-signature", evil.format(n=2, pad="").encode(), key="")
        self._push(sub, "hostile/oversized", evil.format(n=3, pad=" " * OVERSIZED).encode())
        never = "http://news.test/push/never.xml"
        asked = {
            "hub.mode": "subscribe",
            "hub.topic": never,
            "hub.challenge": "gotcha",
            "hub.lease_seconds": "60",
        }
        status, _ = self._ask(sub.callback, asked)
        self._event("hostile/unsolicited-verify", never, sub.callback, status)
        status, _ = self._ask(
            sub.callback, {"hub.mode": "unsubscribe", "hub.topic": sub.topic, "hub.challenge": "bye"}
        )
        self._event("hostile/unsolicited-unsubscribe", sub.topic, sub.callback, status)
        forged = _Subscription(sub.topic, sub.callback.rsplit("/", 1)[0] + "/forged", sub.secret, 60.0, True)
        self._push(forged, "hostile/forged-callback")
        self._push(sub, "push")  # and, once, a proper one: the subscription still works
