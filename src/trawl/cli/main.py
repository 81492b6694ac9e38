"""The ``trawl`` command: a thin face over the library.

Each command lives in its own module with ``register(subparsers)`` and ``run(args) -> int``;
this module only builds the parser, dispatches, and turns trawl's errors into one-line messages
with a non-zero exit status.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

from trawl import __version__
from trawl.cli import (
    convert,
    crawl,
    decode_report,
    dedup,
    demo,
    detect_encoding,
    export,
    extract,
    get,
    ingest,
    langid,
    show,
    stats,
    testweb,
)
from trawl.errors import ConfigError, MissingDependency, TrawlError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Every command, in the order ``trawl --help`` lists them.
COMMANDS: tuple[ModuleType, ...] = (
    crawl,
    testweb,
    ingest,
    get,
    export,
    show,
    detect_encoding,
    langid,
    convert,
    extract,
    decode_report,
    dedup,
    stats,
    demo,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trawl",
        description="Turn the web, archives and local files into a clean, randomly accessible "
        "document collection.",
        epilog="Run 'trawl COMMAND --help' for a command's options. Start with: trawl demo",
    )
    parser.add_argument("--version", action="version", version=f"trawl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    warnings.simplefilter("default")
    warnings.formatwarning = lambda msg, cat, *_a, **_k: f"trawl: warning: {msg}\n"
    try:
        code: int = args.func(args)
    except ConfigError as exc:
        print(f"trawl: configuration error: {exc}", file=sys.stderr)
        return 2
    except MissingDependency as exc:
        print(f"trawl: {exc}", file=sys.stderr)
        return 3
    except TrawlError as exc:
        print(f"trawl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("trawl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `trawl get ... | head`: the reader went away, which is fine
        sys.stderr.close()
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
