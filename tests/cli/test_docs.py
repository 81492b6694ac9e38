"""Every command has help text and a README entry (sqlite-utils' test_docs idea)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trawl.cli.main import COMMANDS, build_parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
# A module per command; the module detect_encoding is the command `trawl detect-encoding`.
NAMES = [m.__name__.rsplit(".", 1)[1].replace("_", "-") for m in COMMANDS]


@pytest.mark.parametrize("name", NAMES)
def test_command_has_help_and_docs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    with pytest.raises(SystemExit) as info:
        parser.parse_args([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) > 3
    assert f"`trawl {name}" in README, f"README has no entry for trawl {name}"
