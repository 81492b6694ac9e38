"""Per-passage identification and the pipeline step."""

from __future__ import annotations

import itertools

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


# -- the two passes of the default identifier (broad model per unit, fused identifier per span) ----

ENGLISH_LINES = [
    "Posted by the editors on Monday, 12 March 2024",
    "The council met on Tuesday to discuss the new budget for the city's libraries.",
    "Several members asked why the opening hours had been cut again this year.",
    "Home | News | Sport | Weather",
    "x = f(y); z = g(x); return z;",
    "https://example.org/news/2024/03/12/council-libraries",
    "The mayor said the savings would be spent on the bus service instead.",
    "Residents can comment on the plan until the end of the month.",
    "Share this article: Facebook, Twitter, Email",
    "© 2024 The Daily Example. All rights reserved.",
]


def test_a_monolingual_page_is_one_language() -> None:
    text = "\n".join(ENGLISH_LINES * 3)
    spans = language_spans(text)
    assert {s.lang for s in spans} <= {"en", UND}
    assert dominant(spans)[0] == "en"
    # the code line and the address carry no language: no other language is named for them
    assert sum(s.end - s.start for s in spans if s.lang == "en") > 0.8 * len(text)


def test_a_span_of_a_language_only_trawl_knows() -> None:
    # py3langid does not know Scots: the units' pass sees English, the span's full
    # identification names it
    scots = (
        "Aw human sowels is born free and equal in dignity and richts.\n"
        "Aw childer, whuther born in or oot o wadlock, shal enjoy the samelike social beild.\n"
    )
    spans = language_spans(scots)
    assert [s.lang for s in spans] == ["sco"]


def test_neighbouring_spans_never_share_a_language() -> None:
    # runs the units' pass tells apart (py3langid alternating between relatives, a line of a
    # script) are merged when the full identifier names them alike
    bcms = [
        "Svi ljudi rađaju se slobodni i jednaki u dostojanstvu i pravima.",
        "Oni su obdareni razumom i sviješću i trebaju jedni prema drugima postupati u duhu bratstva.",
        "Svako ima pravo na život, slobodu i ličnu bezbjednost.",
        "Niko ne smije biti držan u ropstvu ili potčinjenosti.",
    ]
    for text in ("\n".join(bcms * 3), ENGLISH_PAPER * 2, HINDI_PAGE + ENGLISH_PAPER):
        spans = language_spans(text)
        assert all(a.lang != b.lang for a, b in itertools.pairwise(spans)), spans
    assert len(language_spans("\n".join([ENGLISH_PAPER.splitlines()[0]] * 4))) == 1


def test_compiled_viterbi_is_numpys() -> None:
    import numpy as np

    from trawl.langid import passages

    if passages._compiled_viterbi is None:
        import pytest

        pytest.skip("the compiled module is not built here")
    rng = np.random.default_rng(0)
    for _ in range(300):
        costs = rng.random((int(rng.integers(1, 40)), int(rng.integers(1, 12)))) * float(
            rng.choice([1, 5, 20])
        )
        if rng.random() < 0.3:
            costs = np.round(costs)  # ties
        assert passages._viterbi(costs, 2.5) == passages._numpy_viterbi(costs, 2.5)


def test_broad_model_many_at_once_is_one_at_a_time() -> None:
    import numpy as np

    from trawl.langid.broad import load_broad

    broad = load_broad()
    assert broad is not None
    texts = [*ENGLISH_LINES, "", "123", HINDI_PAGE, "Alle Menschen sind frei und gleich."]
    many = broad.log_probs_many(texts)
    one = np.array([broad.log_probs(t) for t in texts])
    assert many.shape == one.shape
    assert np.allclose(many, one, rtol=0, atol=1e-12)
