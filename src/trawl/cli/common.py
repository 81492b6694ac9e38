"""Options and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from trawl.decode.http import DEFAULT_MAX_BYTES, decode_payload

__all__ = ["add_config_options", "err_console", "human_bytes", "out_console", "read_input_file"]


def add_config_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration (defaults < --config file < TRAWL_* env < --set)")
    group.add_argument("--config", type=Path, metavar="FILE", help="a TOML file of options")
    group.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="override one option (repeatable), e.g. --set warc.max_file_bytes=100e6",
    )


def out_console() -> Console:
    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def err_console() -> Console:
    return Console(file=sys.stderr, highlight=False)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def read_input_file(path: str, row: dict[str, Any], *, stdin: bool = False) -> bytes | None:
    """The bytes of a file named on the command line, gunzipped when they are gzip.

    ``-`` is standard input when ``stdin``. A file that cannot be read sets ``row["error"]`` and
    gives ``None``; problems undoing the gzip (truncation, the size cap) go to ``row["problems"]``.
    """
    try:
        data = sys.stdin.buffer.read() if stdin and path == "-" else Path(path).read_bytes()
    except OSError as exc:
        row["error"] = f"cannot read {path!r}: {exc.strerror or exc}"
        return None
    if data[:2] == b"\x1f\x8b":
        payload = decode_payload(data, None, "gzip", max_bytes=DEFAULT_MAX_BYTES)
        data = payload.data
        if payload.problems:
            row["problems"] = [f"{p.kind}: {p.message}" for p in payload.problems]
    return data
