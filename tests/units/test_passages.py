"""Passages as document units: windows and paragraphs of a document's main-content text, each the
exact slice its span names, with a language of its own, made after extraction by ingest's steps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trawl.acquire.localdir import file_document
from trawl.config import load_config
from trawl.document import Document
from trawl.errors import ConfigError
from trawl.jobs.procs import run_steps
from trawl.jobs.steps import build_steps, text_unit_steps
from trawl.pipeline.base import RunContext
from trawl.units.passages import PassageUnits, paragraph_spans, window_spans

ENGLISH = (
    "The harbour opens at six in the morning. Boats leave for the islands every hour, weather "
    "permitting. Tickets are sold at the kiosk beside the pier, and children under five travel "
    "free. In winter the timetable is reduced to four crossings a day. "
)
FRENCH = (
    "Le port ouvre à six heures du matin. Les bateaux partent vers les îles toutes les heures, si "
    "le temps le permet. Les billets sont vendus au kiosque à côté de la jetée, et les enfants de "
    "moins de cinq ans voyagent gratuitement. "
)


ENGLISH_MORE = (
    "Bicycles may be taken on board for a small fee, but dogs must stay on a lead. The cafe on the "
    "upper deck serves tea, soup and sandwiches until the last crossing. Lost property is kept at "
    "the harbour office for three months. Timetables are posted on the notice board by the gate. ",
    "During storms the crossings stop without notice, and a flag on the pier shows when they do. "
    "Season tickets pay for themselves after twelve return journeys. Islanders travel at half "
    "price all year, on showing a card from the council. Cars are not carried in summer. ",
)
FRENCH_MORE = (
    "Les vélos sont acceptés à bord moyennant un petit supplément, mais les chiens doivent rester "
    "en laisse. Le café du pont supérieur sert du thé, de la soupe et des sandwichs jusqu'à la "
    "dernière traversée. Les objets trouvés sont gardés au bureau du port pendant trois mois. ",
    "Pendant les tempêtes, les traversées s'arrêtent sans préavis, et un drapeau sur la jetée le "
    "signale. L'abonnement est rentabilisé après douze allers-retours. Les insulaires voyagent à "
    "moitié prix toute l'année, sur présentation d'une carte de la mairie. ",
)


def bilingual_page() -> bytes:
    english = "".join(f"<p>{t}</p>" for t in (ENGLISH, *ENGLISH_MORE))
    french = "".join(f"<p>{t}</p>" for t in (FRENCH, *FRENCH_MORE))
    return (
        "<html><head><title>Ferry times</title></head><body><nav><a href='/'>Home</a> "
        "<a href='/about'>About</a></nav><article><h1>Ferry times</h1>"
        f"{english}<h2>Horaires</h2>{french}</article><footer>© Harbour board</footer></body></html>"
    ).encode()


def run(docs: list[Document], *overrides: str) -> tuple[list[Document], RunContext]:
    config = load_config(overrides=list(overrides))
    steps = build_steps(config)
    ctx = RunContext()
    try:
        return run_steps(steps, docs, ctx), ctx
    finally:
        for step in steps:
            step.close()


def check_windows(text: str, spans: list[tuple[int, int]], size: int, overlap: int) -> None:
    """Every window holds text, at most ``size`` characters, no space at either end; they move on;
    consecutive ones share at most ``overlap``; together they cover every non-space character."""
    covered = [False] * len(text)
    for i, (s, e) in enumerate(spans):
        assert 0 < e - s <= size
        assert not text[s].isspace() and not text[e - 1].isspace()
        if i:
            ps, pe = spans[i - 1]
            assert s > ps and e > pe
            assert pe - s <= overlap
        for k in range(s, e):
            covered[k] = True
    assert all(covered[k] or text[k].isspace() for k in range(len(text)))


def test_windows_end_at_sentences_and_overlap() -> None:
    text = ENGLISH * 12
    spans = window_spans(text, 300, 80)
    check_windows(text, spans, 300, 80)
    assert len(spans) > 5
    for s, e in spans[:-1]:
        assert text[e - 1] == "."  # a sentence's end, each time
        assert text[s].isupper()  # and a sentence's start
    shared = [spans[i][1] - spans[i + 1][0] for i in range(len(spans) - 1)]
    assert all(n > 0 for n in shared)  # a sentence cut by one window's end is whole in the next


def test_windows_fall_back_to_words_then_characters() -> None:
    words = " ".join(f"word{i}" for i in range(400))  # no sentence ends
    spans = window_spans(words, 100, 20)
    check_windows(words, spans, 100, 20)
    for s, e in spans:
        assert re.fullmatch(r"word\d+( word\d+)*", words[s:e])
    cjk = "港口早上六点开门" * 100  # no spaces at all: cut at the size
    spans = window_spans(cjk, 120, 30)
    check_windows(cjk, spans, 120, 30)
    assert all(e - s == 120 for s, e in spans[:-1])
    full_stops = "港口早上六点开门。船每小时开往岛屿。" * 30
    spans = window_spans(full_stops, 100, 20)
    check_windows(full_stops, spans, 100, 20)
    assert all(full_stops[e - 1] == "。" for s, e in spans[:-1])


@pytest.mark.parametrize(
    "text",
    ["", "   \n\n  ", "x", "  a  ", "a" * 5000, "one two" + " " * 3000 + "three", "\n\n".join(["p"] * 500)],
)
def test_windows_of_odd_texts(text: str) -> None:
    spans = window_spans(text, 50, 10)
    check_windows(text, spans, 50, 10)
    assert (spans == []) == (text.strip() == "")


def test_paragraphs_merge_small_and_split_large() -> None:
    heading, small, big = "Timetable", "Open daily.", ENGLISH * 6
    text = f"{heading}\n\n{ENGLISH}\n\n{small}\n\n{big}\n\n{ENGLISH}\n\nEnd."
    spans = paragraph_spans(text, 400, 50, 100)
    pieces = [text[s:e] for s, e in spans]
    # a heading joins its first paragraph; a short one that the next cannot join, the one before
    assert pieces[0] == f"{heading}\n\n{ENGLISH}\n\n{small}"
    assert big.startswith(pieces[1]) and len(pieces) > 4  # cut: over the size
    assert all(len(p) <= 400 for p in pieces)
    assert pieces[-1] == f"{ENGLISH}\n\nEnd."  # a short last one joins the one before
    # a text without blank lines: every line is a paragraph
    lines = "\n".join(ENGLISH.strip() for _ in range(3))
    assert len(paragraph_spans(lines, 1000, 0, 50)) == 3


def test_passages_of_a_bilingual_page_slice_its_main_content_and_differ_in_language(tmp_path: Path) -> None:
    path = tmp_path / "ferry.html"
    path.write_bytes(bilingual_page())
    out, ctx = run(
        [file_document(str(path), path.read_bytes())],
        "units.passages=window",
        "units.passage_chars=400",
        "units.passage_overlap=100",
    )
    parent, units = out[0], out[1:]
    url = path.resolve().as_uri()
    assert parent.url == url and "Home" not in parent.text  # the main content, not the page
    assert [u.url for u in units] == [f"{url}#unit=p-{i}" for i in range(1, len(units) + 1)]
    assert len(units) >= 3
    for i, unit in enumerate(units, 1):
        meta = unit.metadata["unit"]
        assert meta == {"parent": url, "kind": "passage", "position": i, "span": meta["span"], "root": url}
        start, end = meta["span"]
        assert unit.text == parent.text[start:end]
        assert unit.raw == unit.text.encode() and unit.title == parent.title
        assert unit.fetched_at == parent.fetched_at
        assert unit.content_method is None  # never extracted
    langs = {u.lang for u in units}
    assert langs == {"en", "fr"}
    assert units[0].lang == "en" and units[-1].lang == "fr"
    assert ctx.stats["units/passages/documents"] == 1
    assert ctx.stats["units/passages/made"] == len(units)
    assert ctx.stats["langid/lang/fr"] >= 1
    assert ctx.stats["convert/html"] == 1 and ctx.stats["convert/text"] == 0  # units: never converted


def test_paragraph_passages_of_a_text_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    paragraphs = [ENGLISH.strip(), "Short.", FRENCH.strip() * 8, ENGLISH.strip()]
    path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    out, _ = run(
        [file_document(str(path), path.read_bytes())],
        "units.passages=paragraph",
        "units.passage_chars=600",
        "units.passage_overlap=100",
        "units.passage_min_chars=100",
    )
    parent, units = out[0], out[1:]
    assert units[0].text == f"{paragraphs[0]}\n\n{paragraphs[1]}"  # "Short." merged
    for unit in units:
        start, end = unit.metadata["unit"]["span"]
        assert unit.text == parent.text[start:end] and len(unit.text) <= 600
    assert units[-1].text == paragraphs[-1]


def test_the_bound_is_counted_and_passages_are_not_cut_again(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text(ENGLISH * 40, encoding="utf-8")
    out, ctx = run(
        [file_document(str(path), path.read_bytes())],
        "units.passages=window",
        "units.passage_chars=200",
        "units.passage_overlap=0",
        "units.max_passages=3",
    )
    assert len(out) == 4
    assert ctx.stats["units/passages/capped"] == 1
    assert out[0].metadata["passages_capped"] > 0
    # a passage (in the pipeline, or read back from its WARC record without metadata) is no parent
    again, ctx2 = run(
        [out[1], Document(url=out[2].url, raw=out[2].raw, record_type="resource")], "units.passages=window"
    )
    assert [d.url for d in again] == [out[1].url, out[2].url]
    assert ctx2.stats["units/passages/made"] == 0


def test_parts_of_long_documents_and_empty_texts_get_none() -> None:
    step = PassageUnits(mode="window", size=100, overlap=10)
    page = Document(url="file:///b.pdf#unit=page-2", text=ENGLISH, metadata={"unit": {"kind": "page"}})
    message = Document(url="file:///m.mbox#unit=msg-1", text=ENGLISH, metadata={"unit": {"kind": "message"}})
    blank = Document(url="file:///blank.txt", text=" \n\n ")
    ctx = RunContext()
    out = list(step.run([page, message, blank], ctx))
    assert [d.url for d in out][:2] == [page.url, message.url]
    assert out[2].url == "file:///m.mbox#unit=msg-1/p-1"  # a message's passages are its own
    assert out[-1] is blank and len(out) == 2 + len(window_spans(ENGLISH, 100, 10)) + 1


def test_a_failure_is_counted_and_the_document_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: PassageUnits, text: str) -> list[tuple[int, int]]:
        raise RuntimeError("cannot cut")

    monkeypatch.setattr(PassageUnits, "spans", broken)
    ctx = RunContext()
    doc = Document(url="file:///a.txt", text=ENGLISH)
    assert list(PassageUnits().run([doc], ctx)) == [doc]
    assert ctx.stats["error/passages/RuntimeError"] == 1
    assert doc.errors and "cannot cut" in doc.errors[0]


def test_off_by_default_and_bad_options_refused() -> None:
    assert text_unit_steps(load_config(env={})) == []
    for bad in (
        ["units.passages=sentence"],
        ["units.passages=window", "units.passage_overlap=1000"],
        ["units.passage_chars=0"],
        ["units.passage_min_chars=-1"],
        ["units.max_passages=0"],
    ):
        with pytest.raises(ConfigError, match="units"):
            load_config(overrides=bad, env={})
    with pytest.raises(ConfigError, match="sentence"):
        PassageUnits(mode="sentence")
