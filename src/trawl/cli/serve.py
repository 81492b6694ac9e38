"""``trawl serve COLLECTION…``: browse collections in a web browser (and their JSON API)."""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import sys
from pathlib import Path
from typing import Any

from trawl.cli.common import bounded, sentence
from trawl.errors import ConfigError, MissingDependency

HELP = "serve a web interface to browse and search collections, with a JSON API"
DEFAULT_PORT = 8642


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help=HELP,
        description=sentence(HELP) + ". Read-only and on loopback by default; any other --host "
        "needs --token or --token-file, and then every page asks for the token.",
    )
    p.add_argument("collections", type=Path, nargs="+", metavar="COLLECTION")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=bounded(int, 1, 65535), default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT})")
    token = p.add_mutually_exclusive_group()
    token.add_argument("--token", help="the token writes (and, off loopback, every page) require")
    token.add_argument("--token-file", type=Path, metavar="FILE", help="read the token from FILE")
    p.set_defaults(func=run)


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file is not None:
        token = args.token_file.read_text(encoding="utf-8").strip()
        if not token:
            raise ConfigError(f"the token file {str(args.token_file)!r} is empty")
        return str(token)
    return str(args.token) if args.token else None


def run(args: argparse.Namespace) -> int:
    for module, name in (("starlette", "starlette"), ("uvicorn", "uvicorn"), ("jinja2", "jinja2")):
        if importlib.util.find_spec(module) is None:
            raise MissingDependency(name, "web", "trawl serve")
    token = _token(args)
    local = is_loopback(args.host)
    if not local and token is None:
        raise ConfigError(
            f"--host {args.host} lets other machines connect: give a token with --token or "
            "--token-file (or serve on 127.0.0.1)"
        )
    if token is not None and len(token) < 8:
        raise ConfigError(
            "the token is too short: use at least 8 characters (e.g. from: openssl rand -hex 16)"
        )
    import uvicorn  # noqa: PLC0415 - the web extra, loaded only by this command

    from trawl.web.app import create_app  # noqa: PLC0415 - same

    app = create_app(args.collections, token, token_for_reads=not local)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    for name, served in app.state.served.items():
        print(f"{name}: {served.path} ({served.index.count():,} documents)")
    print(f"serving on http://{shown}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", server_header=False)
    sys.stdout.flush()
    return 0
