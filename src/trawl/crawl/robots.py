"""robots.txt as RFC 9309 says: groups, longest match, ``*`` and ``$``, and what failures mean.

* Groups: one or more ``user-agent`` lines followed by rules. The crawler obeys the groups whose
  user-agent equals its product token (case-insensitively; all such groups are merged), else the
  ``*`` groups, else nothing restricts it.
* Matching: the rule with the longest pattern (in octets) that matches the path and query wins;
  on a tie ``allow`` wins. ``*`` matches any sequence, a final ``$`` anchors the end. Patterns and
  paths are compared with percent-escapes normalised (upper-case hex, unreserved characters
  decoded), so ``/a%7ebc`` and ``/a~bc`` are one path. ``/robots.txt`` is always allowed.
* Failures (:meth:`RobotsRules.for_status`): a 4xx answer means no restriction; a 5xx answer or a
  network failure means *complete disallow* until the rules are fetched again; redirects are
  followed (at least five hops) by the caller. Only the first :data:`MAX_ROBOTS_BYTES` are parsed
  (the RFC asks for at least 500 KiB); the rest is ignored, so a 10 MB file costs no more.
* ``crawl-delay`` (not in the RFC, widely used) and ``sitemap`` lines are read too.

Malformed lines are skipped and counted (:attr:`RobotsRules.bad_lines`), never fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MAX_ROBOTS_BYTES", "RobotsRules", "parse_robots"]

MAX_ROBOTS_BYTES = 512 * 1024

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def _fix(match: re.Match[str]) -> str:
    byte = int(match.group(1), 16)
    return chr(byte) if byte in _UNRESERVED else "%" + match.group(1).upper()


def _normalize_path(path: str) -> str:
    if "%" in path:
        path = _ESCAPE.sub(_fix, path)
    if not path.isascii():
        path = "".join(c if c.isascii() else "".join(f"%{b:02X}" for b in c.encode()) for c in path)
    return path


@dataclass(slots=True)
class _Rule:
    allow: bool
    pattern: str
    parts: tuple[str, ...] | None  # the pattern split at its stars; None: a plain prefix
    anchored: bool = False  # a final ``$``

    def matches(self, path: str) -> bool:
        parts = self.parts
        if parts is None:
            return path.startswith(self.pattern)
        # Greedy leftmost matching of each star-free part is exact for ``*``-only patterns and
        # never backtracks, where a regex did, exponentially, on ``/a*****b`` (found by bench/fuzz.py).
        first, last = parts[0], parts[-1]
        if not path.startswith(first):
            return False
        if len(parts) == 1:  # no star: only an anchor
            return not self.anchored or len(path) == len(first)
        at = len(first)
        for part in parts[1:-1]:
            found = path.find(part, at)
            if found < 0:
                return False
            at = found + len(part)
        if self.anchored:
            return len(path) - len(last) >= at and path.endswith(last)
        return path.find(last, at) >= 0


def _compile(pattern: str, allow: bool) -> _Rule:
    pattern = _normalize_path(pattern)
    if "*" not in pattern and not pattern.endswith("$"):
        return _Rule(allow, pattern, None)
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    return _Rule(allow, pattern, tuple(body.split("*")), anchored)


@dataclass(slots=True)
class _Group:
    agents: list[str] = field(default_factory=list)
    rules: list[_Rule] = field(default_factory=list)
    crawl_delay: float | None = None


@dataclass(slots=True)
class RobotsRules:
    """The rules one host gives one crawler, ready for :meth:`allowed`."""

    rules: list[_Rule] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: list[str] = field(default_factory=list)
    disallow_all: bool = False
    bad_lines: int = 0
    truncated: bool = False
    source: str = "parsed"  # parsed | 4xx | 5xx | unreachable | none

    @classmethod
    def allow_all(cls, source: str = "none") -> RobotsRules:
        return cls(source=source)

    @classmethod
    def forbid_all(cls, source: str = "5xx") -> RobotsRules:
        return cls(disallow_all=True, source=source)

    @classmethod
    def for_status(cls, status: int, body: bytes, agent: str) -> RobotsRules:
        """The rules implied by a final (post-redirect) answer to ``GET /robots.txt``."""
        if 200 <= status < 300:
            return parse_robots(body, agent)
        if 400 <= status < 500:
            return cls.allow_all("4xx")
        return cls.forbid_all("5xx")

    def allowed(self, path_and_query: str) -> bool:
        """May the crawler fetch this path (with its query)?"""
        if path_and_query == "/robots.txt":
            return True
        if self.disallow_all:
            return False
        if not self.rules:
            return True
        path = _normalize_path(path_and_query or "/")
        best_len = -1
        best_allow = True
        for rule in self.rules:
            n = len(rule.pattern)
            if n < best_len or (n == best_len and best_allow):
                continue
            if rule.matches(path) and (n > best_len or rule.allow):
                best_len, best_allow = n, rule.allow
        return best_allow


def parse_robots(data: bytes, agent: str) -> RobotsRules:
    """Parse a robots.txt body for the crawler whose product token is ``agent``."""
    truncated = len(data) > MAX_ROBOTS_BYTES
    if truncated:
        data = data[:MAX_ROBOTS_BYTES]
        cut = data.rfind(b"\n")
        if cut > 0:
            data = data[:cut]  # a rule cut in half could disallow too much, or too little
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8", "replace")
    groups: list[_Group] = []
    current: _Group | None = None
    in_agents = False
    sitemaps: list[str] = []
    bad = 0
    for raw_line in text.splitlines():
        line = raw_line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            bad += 1
            continue
        key = key.strip().lower().replace("_", "-")
        value = value.strip()
        if key in ("user-agent", "useragent"):
            if current is None or not in_agents:
                current = _Group()
                groups.append(current)
            current.agents.append(value.lower())
            in_agents = True
        elif key in ("allow", "disallow"):
            in_agents = False
            if current is None:
                bad += 1  # a rule before any user-agent line belongs to no group
                continue
            if value:  # an empty disallow restricts nothing
                current.rules.append(_compile(value, key == "allow"))
        elif key == "crawl-delay":
            in_agents = False
            if current is None:
                bad += 1
                continue
            try:
                delay = float(value)
            except ValueError:
                bad += 1
                continue
            if delay >= 0:
                current.crawl_delay = delay
        elif key == "sitemap":
            if value:
                sitemaps.append(value)
        else:
            bad += 1
    token = agent.lower().split("/", 1)[0]
    mine = [g for g in groups if token in g.agents]
    if not mine:
        mine = [g for g in groups if "*" in g.agents]
    rules = [rule for g in mine for rule in g.rules]
    delays = [g.crawl_delay for g in mine if g.crawl_delay is not None]
    return RobotsRules(
        rules=rules,
        crawl_delay=max(delays) if delays else None,
        sitemaps=sitemaps,
        bad_lines=bad,
        truncated=truncated,
    )
