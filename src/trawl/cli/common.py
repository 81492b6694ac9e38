"""Options and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

__all__ = ["add_config_options", "err_console", "human_bytes", "out_console"]


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
