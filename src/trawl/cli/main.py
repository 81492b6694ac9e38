"""The ``trawl`` command: a thin face over the library.

Each command lives in its own module with ``register(subparsers)`` and ``run(args) -> int``;
this module only builds the parser (importing only the module of the command being run),
dispatches, and turns trawl's errors into one-line messages with a non-zero exit status.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

from trawl import __version__
from trawl.errors import ConfigError, DiskError, MissingDependency, TrawlError

__all__ = ["COMMAND_MODULES", "build_parser", "command_modules", "main"]

#: Every command's module under ``trawl.cli``, in the order ``trawl --help`` lists them; the
#: command's name is the module's with ``-`` for ``_``. Only the module of the command being run
#: is imported: importing them all (the crawler, the converters and their libraries) took about a
#: second before any command started.
COMMAND_MODULES: tuple[str, ...] = (
    "crawl",
    "testweb",
    "ingest",
    "get",
    "export",
    "show",
    "detect_encoding",
    "langid",
    "convert",
    "extract",
    "decode_report",
    "dedup",
    "stats",
    "freshness",
    "serve",
    "demo",
)


_MODULE_OF = {name.replace("_", "-"): name for name in COMMAND_MODULES}


def command_modules(names: Sequence[str] = COMMAND_MODULES) -> tuple[ModuleType, ...]:
    """The command modules ``names`` (default: every command's), imported."""
    return tuple(importlib.import_module(f"trawl.cli.{name}") for name in names)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (its name, as typed) when it is one."""
    parser = argparse.ArgumentParser(
        prog="trawl",
        description="Turn the web, archives and local files into a clean, randomly accessible "
        "document collection.",
        epilog="Run 'trawl COMMAND --help' for a command's options. Start with: trawl demo",
    )
    parser.add_argument("--version", action="version", version=f"trawl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    module = _MODULE_OF.get(command or "")
    for loaded in command_modules([module] if module else COMMAND_MODULES):
        loaded.register(sub)
    return parser


def _command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subcommand's own parser (for its usage line), or the top one."""
    for action in parser._actions:  # argparse keeps its subparsers here, and only here
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub: argparse.ArgumentParser = action.choices[command]
            return sub
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The first word that is not an option names the command (trawl's own options take no value).
    parser = build_parser(next((a for a in argv if not a.startswith("-")), None))
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # an option the command does not know: its usage, not trawl's
            _command_parser(parser, getattr(args, "command", None)).error(
                f"unrecognized arguments: {' '.join(extra)}"
            )
    except SystemExit as exc:  # a usage error (2) or --help (0), already printed: the exit status
        return exc.code if isinstance(exc.code, int) else 2
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
    except DiskError as exc:  # before a run got going (creating the collection, its state)
        from trawl.store.disk import advice  # noqa: PLC0415 - only on this path

        again = "run again with --resume" if args.command == "crawl" else "run it again"
        print(f"trawl {args.command}: {exc}; {advice(exc, again)}", file=sys.stderr)
        return 1
    except TrawlError as exc:
        print(f"trawl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("trawl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `trawl get ... | head`: the reader went away, which is fine
        sys.stderr.close()
        return 0
    except OSError as exc:  # the machine said no: a port in use, a missing or unwritable file
        if os.environ.get("TRAWL_DEBUG"):
            raise
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"trawl: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    except ValueError as exc:  # a value a library refused; TRAWL_DEBUG=1 shows the traceback
        if os.environ.get("TRAWL_DEBUG"):
            raise
        print(f"trawl: error: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
