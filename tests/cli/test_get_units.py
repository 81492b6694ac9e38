"""``trawl ingest`` of a folder of mail, then ``trawl get`` of units, ``--children`` and ``--parent``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.units import mailcorpus
from trawl.cli.main import main

pytest.importorskip("reportlab")
pytest.importorskip("docx")


@pytest.fixture(scope="module")
def mail_collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("units")
    folder = root / "mail"
    (folder / "Maildir" / "cur").mkdir(parents=True)
    (folder / "inbox.mbox").write_bytes(mailcorpus.inbox())
    (folder / "reply.eml").write_bytes(mailcorpus.with_attachments())
    (folder / "Maildir" / "cur" / "1704189600.M1P2.host,S=300:2,S").write_bytes(mailcorpus.forwarded())
    coll = root / "coll"
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress"]) == 0
    return coll, (folder / "inbox.mbox").resolve().as_uri(), (folder / "reply.eml").resolve().as_uri()


def get_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["get", *args, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_units_are_stored_and_fetched_like_any_document(
    mail_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, mbox, _ = mail_collection
    assert main(["show", str(coll), "--json"]) == 0
    counters = json.loads(capsys.readouterr().out)["counters"]
    assert counters["units/mail/broken"] == 2 and counters["drop/units/mail-broken"] == 2
    # the mbox, 4 messages, 6 units under them; reply.eml and 4; the Maildir message and 2
    assert counters["store/records"] == 11 + 5 + 3
    [pdf] = get_json(capsys, str(coll), f"{mbox}#unit=msg-2/att-1")
    assert pdf["surt"].endswith("inbox.mbox#unit=msg-2/att-1")
    meta = pdf["metadata"]
    assert isinstance(meta, dict) and meta["unit"]["parent"] == f"{mbox}#unit=msg-2"
    assert meta["unit"]["root"] == mbox and meta["filename"] == "figures.pdf"
    assert mailcorpus.PDF_TEXT in str(pdf["text"])
    assert main(["get", str(coll), f"{mbox}#unit=msg-3"]) == 1  # the broken one was not stored


def test_a_unit_s_raw_bytes_are_the_decoded_part(
    mail_collection: tuple[Path, str, str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    coll, mbox, _ = mail_collection
    assert main(["get", str(coll), f"{mbox}#unit=msg-2/att-1", "--raw"]) == 0
    assert capsysbinary.readouterr().out == mailcorpus.pdf_bytes()
    assert main(["get", str(coll), f"{mbox}#unit=msg-1", "--raw"]) == 0
    assert capsysbinary.readouterr().out == mailcorpus.alternative()


def test_children_walk_down_in_order(
    mail_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    coll, mbox, eml = mail_collection
    messages = get_json(capsys, str(coll), mbox, "--children")
    assert [m["url"] for m in messages] == [f"{mbox}#unit=msg-{i}" for i in (1, 2, 4, 6)]
    assert [m["title"] for m in messages][:2] == ["Café menu for Friday", "Re: Café menu for Friday"]
    attachments = get_json(capsys, str(coll), f"{mbox}#unit=msg-2", "--children")
    assert [a["metadata"]["filename"] for a in attachments] == [  # type: ignore[index]
        "figures.pdf",
        "minutes.docx",
        "notes.html",
        "latin.txt",
    ]
    assert [a["url"] for a in get_json(capsys, str(coll), eml, "--children")] == [
        f"{eml}#unit=att-{i}" for i in range(1, 5)
    ]
    assert get_json(capsys, str(coll), f"{mbox}#unit=msg-1", "--children") == []
    capsys.readouterr()
    assert main(["get", str(coll), mbox, "--children"]) == 0
    text = capsys.readouterr().out
    assert "4 units" in text and "message" in text and f"{mbox}#unit=msg-6" in text.replace("\n", "")


def test_parent_walks_up(mail_collection: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    coll, mbox, _ = mail_collection
    [message] = get_json(capsys, str(coll), f"{mbox}#unit=msg-4/att-1/att-1", "--parent")
    assert message["url"] == f"{mbox}#unit=msg-4/att-1" and message["title"] == "Tide tables"
    [container] = get_json(capsys, str(coll), f"{mbox}#unit=msg-4", "--parent")
    assert container["url"] == mbox and container["metadata"]["units"] == 6  # type: ignore[index]
    siblings = get_json(capsys, str(coll), f"{mbox}#unit=msg-2/att-3", "--parent", "--children")
    assert len(siblings) == 4
    capsys.readouterr()
    assert main(["get", str(coll), f"{mbox}#unit=msg-1", "--parent", "--text"]) == 0
    assert capsys.readouterr().out.strip() == ""  # the container's text is empty
    assert main(["get", str(coll), mbox, "--parent"]) == 1
    assert "no document unit" in capsys.readouterr().err


def test_children_refuses_what_it_cannot_combine(mail_collection: tuple[Path, str, str]) -> None:
    coll, mbox, _ = mail_collection
    assert main(["get", str(coll), mbox, "--children", "--text"]) != 0


def test_a_deleted_or_shrunk_mbox_takes_its_units_along(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A re-ingest after a message left the mbox tombstones exactly that message's unit (and its
    attachments); after the mbox is deleted, every unit of it is a tombstone too."""
    from trawl.store.collection import Collection

    folder, coll = tmp_path / "mail", tmp_path / "coll"
    folder.mkdir()
    box = folder / "box.mbox"
    messages = [mailcorpus.alternative(), mailcorpus.with_attachments(), mailcorpus.html_only()]
    box.write_bytes(mailcorpus.mbox_bytes(messages))
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress"]) == 0
    url = box.resolve().as_uri()

    def live_units() -> list[str]:
        with Collection.open(coll) as c:
            row = c.find(url).row
            out = []
            for unit_row in c.table.rows(row + "#unit="):
                capture = c.table.get_cell(unit_row, "fetch", "capture")
                if capture and not capture.get("deleted"):
                    out.append(unit_row.partition("#unit=")[2])
            return sorted(out)

    before = live_units()
    assert {"msg-1", "msg-2", "msg-3"} <= set(before) and any(u.startswith("msg-2/") for u in before)
    box.write_bytes(mailcorpus.mbox_bytes([messages[0]]))  # the second and third messages are gone
    capsys.readouterr()
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    after = live_units()
    assert after == [u for u in before if u == "msg-1" or u.startswith("msg-1/")], (before, after)
    assert report["counters"].get("local/units-retired") == len(before) - len(after)
    box.unlink()
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress"]) == 0
    assert live_units() == []


def test_a_chmod_of_an_mbox_reaches_its_units(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Who may read a message is who may read its mbox: a chmod of the file, seen without
    re-reading it, is a new metadata version of the file's row and of each unit's."""
    folder, coll = tmp_path / "mail", tmp_path / "coll"
    folder.mkdir()
    box = folder / "box.mbox"
    box.write_bytes(mailcorpus.mbox_bytes([mailcorpus.alternative(), mailcorpus.with_attachments()]))
    box.chmod(0o644)
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress"]) == 0
    url = box.resolve().as_uri()
    unit = f"{url}#unit=msg-2/att-1"
    assert get_json(capsys, str(coll), unit)[0]["metadata"]["access"]["mode"] == "0644"  # type: ignore[index]
    box.chmod(0o600)
    assert main(["ingest", str(folder), "-o", str(coll), "--no-progress"]) == 0
    for key in (url, f"{url}#unit=msg-1", unit):
        assert get_json(capsys, str(coll), key)[0]["metadata"]["access"]["mode"] == "0600"  # type: ignore[index]
