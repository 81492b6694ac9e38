"""``trawl stats``: a collection made by ``trawl ingest``, plain files, JSON, CSV, table and plots."""

from __future__ import annotations

import csv
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from trawl.cli.main import main

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "stats" / "inaugural"

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="shared data folder absent")


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("docs")
    for p in sorted(DATA.glob("*.txt"))[:6]:
        shutil.copy(p, src / p.name)
    return src


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_collection_json_contract(
    small_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coll = tmp_path / "coll"
    code, _, err = _run(["ingest", str(small_dir), "-o", str(coll)], capsys)
    assert code == 0, err
    code, out, err = _run(["stats", str(coll), "--json"], capsys)
    assert code == 0, err
    st = json.loads(out)  # exactly one JSON object
    assert {"tokens", "vocabulary", "hapax", "top", "zipf", "heaps"} <= set(st)
    assert {"term", "frequency"} <= set(st["top"][0]) and st["top"][0]["rank"] == 1
    assert st["documents"] == 6 and st["top"][0]["term"] == "the"
    # The collection's stored text counts the same as the files themselves.
    code, out2, _ = _run(["stats", "--files", str(small_dir), "--json", "--no-curves"], capsys)
    files = json.loads(out2)
    assert (files["tokens"], files["vocabulary"], files["hapax"]) == (
        st["tokens"],
        st["vocabulary"],
        st["hapax"],
    )
    assert "curves" in st and "curves" not in files


def test_files_table_csv_and_plots(
    small_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["stats", "--files", str(small_dir), "--top", "10"], capsys)
    assert code == 0
    for label in ("tokens", "vocabulary", "hapax legomena", "Zipf", "Heaps", "Top 10 terms", "Croft"):
        assert label in out
    code, out, _ = _run(["stats", "--files", str(small_dir), "--csv", "--top", "5"], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 5 and list(rows[0]) == ["rank", "term", "frequency", "probability", "r_times_p", "df"]
    assert rows[0]["rank"] == "1" and int(rows[0]["frequency"]) >= int(rows[1]["frequency"])
    plots = tmp_path / "plots"
    vocab = tmp_path / "vocab.tsv"
    code, out, err = _run(
        ["stats", "--files", str(small_dir), "--json", "--plot", str(plots), "--vocabulary", str(vocab)],
        capsys,
    )
    assert code == 0, err
    st = json.loads(out)
    assert sorted(p.name for p in plots.iterdir()) == [
        "heaps.png",
        "heaps.svg",
        "plots.json",
        "zipf.png",
        "zipf.svg",
    ]
    for name in ("zipf.png", "heaps.png"):
        assert (plots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("zipf.svg", "heaps.svg"):
        assert ET.parse(plots / name).getroot().tag.endswith("svg")
    data = json.loads((plots / "plots.json").read_text(encoding="utf-8"))
    assert data["zipf"]["fit"] == st["zipf"] and data["heaps"]["fit"] == st["heaps"]
    assert len(data["heaps"]["points"]) == len(st["curves"]["growth"])
    lines = vocab.read_text(encoding="utf-8").splitlines()
    assert len(lines) == st["vocabulary"] + 1


def test_query_option(small_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["stats", "--files", str(small_dir), "--json", "--query", "fellow citizens"], capsys)
    rows = json.loads(out)["estimates"]["result_sets"]
    assert code == 0 and [r["terms"] for r in rows] == [["fellow", "citizens"]]


def test_bad_invocations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["stats"], capsys)
    assert code == 2 and "COLLECTION" in err
    code, _, err = _run(["stats", str(tmp_path)], capsys)
    assert code == 1 and "not a trawl collection" in err
    code, _, err = _run(["stats", "--files", str(tmp_path / "nope")], capsys)
    assert code == 1 and "does not exist" in err
    code, _, err = _run(["stats", "--files", str(tmp_path), "--top", "0"], capsys)
    assert code == 2 and "--top" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = _run(["stats", "--files", str(empty), "--json"], capsys)
    assert code == 1 and out == "" and "no text file under" in err  # a run that could do nothing says so
