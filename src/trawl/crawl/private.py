"""Private sites a user may enter: per-host headers, cookies and HTTP basic authentication.

A crawl reads them from a TOML file of its own (``[crawl] private_sites``, ``trawl crawl
--private-sites FILE``), never from the collection's configuration: the collection keeps the
file's path, not its secrets. One ``[[site]]`` table a host::

    [[site]]
    host = "intranet.example.org"      # or "*.example.org": the domain and every host under it
    user = "alice"                     # HTTP basic authentication ...
    password_env = "INTRANET_PASSWORD" # ... the password from the environment (or password = "…")
    cookies = { session = "abc123" }   # a Cookie header
    headers = { "X-Api-Key" = "k" }    # any other header
    record = false                     # true: the WARC request records keep these headers

The headers go with every request to a matching host (robots.txt included) and to no other, so
a redirect to another host does not carry them. They are never written to the log, and the WARC
request records show their names with the value ``[withheld]`` unless the site says ``record =
true``.
"""

from __future__ import annotations

import base64
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trawl.errors import ConfigError

__all__ = ["WITHHELD", "PrivateSite", "PrivateSites", "load_private_sites"]

#: what a request record shows instead of a private header's value
WITHHELD = "[withheld]"
_KEYS = {"host", "user", "password", "password_env", "cookies", "headers", "record"}


@dataclass(frozen=True, slots=True)
class PrivateSite:
    """What to send to the hosts ``host`` names."""

    host: str
    headers: tuple[tuple[str, str], ...]
    record: bool = False

    def matches(self, host: str) -> bool:
        host = host.split(":", 1)[0].lower().rstrip(".")
        if self.host.startswith("*."):
            domain = self.host[2:]
            return host == domain or host.endswith("." + domain)
        return host == self.host


class PrivateSites:
    """The sites of one file; the headers for a host (the first site that matches)."""

    def __init__(self, sites: list[PrivateSite]) -> None:
        self.sites = sites
        self._memo: dict[str, PrivateSite | None] = {}

    def site_for(self, host: str) -> PrivateSite | None:
        if host not in self._memo:
            self._memo[host] = next((s for s in self.sites if s.matches(host)), None)
        return self._memo[host]

    def headers_for(self, host: str) -> list[tuple[str, str]]:
        site = self.site_for(host)
        return list(site.headers) if site is not None else []

    def for_record(self, host: str, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """``headers`` as sent, with the private ones' values withheld (unless recorded)."""
        site = self.site_for(host)
        if site is None or site.record:
            return headers
        private = {name.lower() for name, _ in site.headers}
        return [(k, WITHHELD if k.lower() in private else v) for k, v in headers]


def _text(path: Path, n: int, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value or any(c in value for c in "\r\n"):
        raise ConfigError(f"private sites {str(path)!r}: site {n}: {key} must be one line of text")
    return value


def load_private_sites(path: Path | str) -> PrivateSites:
    """The sites of the TOML file at ``path`` (see the module docstring); a clear error for a
    file that cannot be read or a site that does not make sense. Secrets are never quoted."""
    path = Path(path).expanduser()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read private sites {str(path)!r}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"private sites {str(path)!r} is not valid TOML: {exc}") from exc
    entries = data.get("site", [])
    if set(data) - {"site"} or not isinstance(entries, list):
        raise ConfigError(f"private sites {str(path)!r}: write one [[site]] table a host, nothing else")
    sites = []
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise ConfigError(f"private sites {str(path)!r}: site {n} is not a table")
        unknown = set(entry) - _KEYS
        if unknown:
            raise ConfigError(f"private sites {str(path)!r}: site {n}: unknown keys {sorted(unknown)}")
        host = _text(path, n, "host", entry.get("host")).lower().rstrip(".")
        headers: list[tuple[str, str]] = []
        user = entry.get("user")
        if user is not None or "password" in entry or "password_env" in entry:
            user = _text(path, n, "user", user)
            if "password_env" in entry:
                name = _text(path, n, "password_env", entry["password_env"])
                password = os.environ.get(name)
                if password is None:
                    raise ConfigError(
                        f"private sites {str(path)!r}: site {n} ({host}): the environment has no {name}"
                    )
            else:
                password = _text(path, n, "password", entry.get("password"))
            token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            headers.append(("Authorization", f"Basic {token}"))
        cookies = entry.get("cookies", {})
        if not isinstance(cookies, dict):
            raise ConfigError(f"private sites {str(path)!r}: site {n}: cookies must be a table")
        if cookies:
            pairs = [
                f"{_text(path, n, 'cookie name', k)}={_text(path, n, 'cookie', v)}"
                for k, v in cookies.items()
            ]
            headers.append(("Cookie", "; ".join(pairs)))
        extra = entry.get("headers", {})
        if not isinstance(extra, dict):
            raise ConfigError(f"private sites {str(path)!r}: site {n}: headers must be a table")
        for k, v in extra.items():
            headers.append((_text(path, n, "header name", k), _text(path, n, "header", v)))
        if not headers:
            raise ConfigError(f"private sites {str(path)!r}: site {n} ({host}) sends nothing")
        record = entry.get("record", False)
        if not isinstance(record, bool):
            raise ConfigError(f"private sites {str(path)!r}: site {n}: record is true or false")
        sites.append(PrivateSite(host, tuple(headers), record))
    return PrivateSites(sites)
