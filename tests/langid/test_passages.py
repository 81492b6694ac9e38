"""Per-passage identification and the pipeline step."""

from __future__ import annotations

from trawl.document import Document
from trawl.langid.codes import UND
from trawl.langid.passages import LanguageTagger, dominant, language_spans, units
from trawl.pipeline.base import Pipeline, RunContext, Source

ENGLISH_PAPER = (
    "The Universal Declaration of Human Rights was adopted by the General Assembly in 1948.\n"
    "Its first article is often quoted in the original languages of its translators.\n"
    "In the German translation the first article reads:\n"
    "Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft "
    "und Gewissen begabt und sollen einander im Geist der Brüderlichkeit begegnen.\n"
    "This sentence has shaped constitutions and treaties across the world ever since.\n"
    "Scholars still debate how faithfully each translation renders the original text.\n"
)

NAVIGATION = "Home | About us | Contact | Privacy policy | Terms of use"
HINDI_PAGE = (
    NAVIGATION + "\n"
    "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है। "
    "उन्हें बुद्धि और अन्तरात्मा की देन प्राप्त है और परस्पर उन्हें भाईचारे के भाव से बर्ताव करना चाहिए।\n"
    "प्रत्येक व्यक्ति को इस घोषणा में सन्निहित सभी अधिकारों और स्वतन्त्रताओं को प्राप्त करने का हक़ है।\n"
)


def test_english_paper_quoting_german() -> None:
    spans = language_spans(ENGLISH_PAPER)
    assert [s.lang for s in spans] == ["en", "de", "en"]
    german = spans[1]
    assert ENGLISH_PAPER[german.start : german.end].startswith("Alle Menschen")
    assert ENGLISH_PAPER[german.start : german.end].endswith("begegnen.")
    assert dominant(spans)[0] == "en"


def test_hindi_page_with_english_navigation() -> None:
    spans = language_spans(HINDI_PAGE)
    assert spans[0].lang == "en"
    assert HINDI_PAGE[spans[0].start : spans[0].end] == NAVIGATION
    assert {s.lang for s in spans[1:]} == {"hi"}
    assert dominant(spans)[0] == "hi"


def test_units_skip_blank_lines_and_cut_long_lines() -> None:
    text = "a.\n\n" + ("Word word word. " * 60) + "\nlast"
    pieces = units(text)
    assert pieces[0] == (0, 3)
    assert all(b - a <= 450 for a, b in pieces)
    assert text[pieces[-1][0] : pieces[-1][1]] == "last"


class _Docs(Source):
    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def read(self, ctx: RunContext):  # type: ignore[no-untyped-def]
        for i, t in enumerate(self.texts):
            yield Document(url=f"http://example.org/{i}", text=t)


def test_step_fills_document_and_counts() -> None:
    pipe = Pipeline([_Docs([ENGLISH_PAPER, HINDI_PAGE, "", "12345"])], [LanguageTagger()])
    docs = list(pipe)
    assert [d.lang for d in docs] == ["en", "hi", UND, UND]
    assert docs[0].lang_score is not None and docs[0].lang_score > 0.5
    assert [p["lang"] for p in docs[0].passages] == ["en", "de", "en"]
    assert docs[2].lang_score == 0.0
    counters = pipe.ctx.stats
    assert counters["langid/lang/en"] == 1
    assert counters["langid/mixed"] == 2
    assert counters["langid/und/empty"] == 1
