"""Every command has help text and a README entry (sqlite-utils' test_docs idea)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trawl.cli.main import COMMAND_MODULES, build_parser, command_modules

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
# A module per command; the module detect_encoding is the command `trawl detect-encoding`.
NAMES = [m.__name__.rsplit(".", 1)[1].replace("_", "-") for m in command_modules()]


@pytest.mark.parametrize("name", NAMES)
def test_command_has_help_and_docs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    with pytest.raises(SystemExit) as info:
        parser.parse_args([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) > 3
    assert f"`trawl {name}" in README, f"README has no entry for trawl {name}"


def test_a_command_imports_only_its_own_module() -> None:
    # In a fresh interpreter: the parser of one command leaves the other commands (and the
    # crawler, the converters) unimported; the full parser lists every command in order.
    code = (
        "import json, sys; from trawl.cli.main import COMMAND_MODULES, build_parser; "
        "build_parser('detect-encoding'); "
        "print(json.dumps([[m for m in COMMAND_MODULES if 'trawl.cli.' + m in sys.modules], "
        "'trawl.crawl.crawler' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [["detect_encoding"], False]
    choices = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(choices) == [m.replace("_", "-") for m in COMMAND_MODULES]


INAUGURAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "stats" / "inaugural"


@pytest.mark.skipif(not INAUGURAL.is_dir(), reason="shared data folder absent")
def test_the_readme_s_inaugural_figures_are_what_the_tool_prints() -> None:
    import re

    from trawl.textstats import file_documents, text_stats

    line = next(x for x in README.splitlines() if x.startswith("On the inaugural addresses"))
    m = re.search(r"([\d,]+) tokens, ([\d,]+) terms, ([\d,]+) hapax", line)
    assert m is not None
    stats = text_stats(lambda: file_documents([INAUGURAL]))
    assert (stats.tokens, stats.vocabulary, stats.hapax) == tuple(int(g.replace(",", "")) for g in m.groups())
