"""The broad model (py3langid's, trained on large real corpora) fused with trawl's own."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from trawl.langid.broad import NO_LANGUAGE, PY3LANGID_VERSION, load_broad
from trawl.langid.identify import DefaultIdentifier, get_identifier

pytest.importorskip("py3langid")

# Ordinary sentences of the kind the web is full of and a declaration of rights is not; trawl's
# UDHR-trained model alone called such English Nigerian Pidgin or Scots.
EVERYDAY = {
    "en": [
        "I don't know what you want from me.",
        "We went to the shop yesterday and bought some bread.",
        "Can you tell me where the station is?",
        "She said she would call me back later tonight.",
    ],
    "es": ["No sé qué quieres de mí.", "Ayer fuimos a la tienda y compramos pan."],
    "de": ["Ich weiß nicht, was du von mir willst.", "Gestern waren wir im Laden und haben Brot gekauft."],
    "fr": ["Je ne sais pas ce que tu veux.", "Hier, nous sommes allés au magasin acheter du pain."],
}


@pytest.fixture(scope="module")
def ident() -> DefaultIdentifier:
    d = get_identifier("default")
    assert isinstance(d, DefaultIdentifier)
    return d


def test_the_pinned_release_is_installed() -> None:
    import importlib.metadata

    assert importlib.metadata.version("py3langid") == PY3LANGID_VERSION


def test_broad_probabilities_sum_to_one_and_merge_labels() -> None:
    broad = load_broad()
    assert broad is not None
    assert len(broad.labels) == len(set(broad.labels))  # sr and uz columns folded into one label each
    assert "nb" in broad.labels and "no" not in broad.labels
    lp = broad.log_probs("This is a sentence in English.")
    assert math.isclose(float(np.exp(lp).sum()), 1.0, rel_tol=1e-9)
    assert broad.labels[int(np.argmax(lp))] == "en"


@pytest.mark.parametrize(("lang", "text"), [(lang, t) for lang, ts in EVERYDAY.items() for t in ts])
def test_everyday_sentences(ident: DefaultIdentifier, lang: str, text: str) -> None:
    assert ident.identify(text).lang == lang


def test_languages_only_the_broad_model_knows(ident: DefaultIdentifier) -> None:
    assert "te" in ident.languages() and NO_LANGUAGE not in ident.languages()
    r = ident.identify("నేను తెలుగు మాట్లాడతాను మరియు నాకు ఇది చాలా ఇష్టం")
    assert (r.lang, r.script) == ("te", "Telugu")
    alone = DefaultIdentifier(use_broad=False)
    assert "te" not in alone.languages()
    assert alone.identify("నేను తెలుగు మాట్లాడతాను").reason == "unknown-script"


def test_variants_only_trawl_knows(ident: DefaultIdentifier) -> None:
    # Cyrillic Azerbaijani: py3langid alone calls it Bashkir
    text = (
        "Бүтүн инсанлар ләјагәт вә һүгугларына ҝөрә азад вә бәрабәр доғулурлар. Онларын шүуру вә виҹданы вар"
    )
    assert ident.identify(text).lang == "az"


def test_long_tail_languages_stay(ident: DefaultIdentifier) -> None:
    # languages py3langid does not know, in their own words (UDHR article 1, a trained half)
    scots = (
        "Aw human sowels is born free and equal in dignity and richts. "
        "Aw childer, whuther born in or oot o wadlock, shal enjoy the samelike social beild."
    )
    assert ident.identify(scots).lang == "sco"


def test_close_relatives_still_ambiguous_when_short(ident: DefaultIdentifier) -> None:
    r = ident.identify("Saya tidak tahu.")
    assert r.lang in ("id", "ms")
    assert set(r.ambiguous) == {"id", "ms"}


def test_without_the_broad_model_the_own_models_decide() -> None:
    alone = DefaultIdentifier(use_broad=False)
    assert alone.broad is None and alone.labels == alone.model.labels
    assert alone.identify("Der schnelle braune Fuchs springt über den faulen Hund.").lang == "de"


def test_compiled_walker_gives_py3langids_scores() -> None:
    broad = load_broad()
    assert broad is not None
    if broad.kernel_status != "ready":
        pytest.skip(f"compiled walker: {broad.kernel_status}")
    odd = [
        "",
        "a",
        "🙂🙂",
        "x" * 5000,
        "Дебиан-тестирање " * 50,
        "中文字符和日本語のテキスト",
        "\x00\xff \ud800",
    ]
    texts = [*(t for ts in EVERYDAY.values() for t in ts), *odd]
    for text in texts:
        data = broad._ident._encode(text)
        want = np.asarray(broad._ident._raw_score(data), dtype=np.float32)
        got = broad.raw(data)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-3), text[:20]
        assert int(np.argmax(got)) == int(np.argmax(want))


def test_the_unpacked_model_is_kept_and_mapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from py3langid import langid

    from trawl.langid.broad import _model_arrays

    monkeypatch.setenv("TRAWL_CACHE_DIR", str(tmp_path / "cache"))
    first = _model_arrays(langid)  # unpacked, then written
    (folder,) = (tmp_path / "cache").iterdir()  # and no staging folder left beside it
    assert folder.name.startswith(f"py3langid-{PY3LANGID_VERSION}-")
    assert (folder / "classes.json").is_file()
    second = _model_arrays(langid)  # mapped from the folder
    assert isinstance(second[0], np.memmap)
    assert list(second[2]) == list(first[2])
    for a, b in zip(first[:2] + first[3:], second[:2] + second[3:], strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    # a damaged folder is unpacked again and rewritten: a garbled file, and an empty one (what a
    # power cut can leave)
    (folder / "pc.npy").write_bytes(b"")
    assert np.array_equal(np.asarray(_model_arrays(langid)[1]), np.asarray(first[1]))
    (folder / "ptc.npy").write_bytes(b"not an array")
    third = _model_arrays(langid)
    assert np.array_equal(np.asarray(third[0]), np.asarray(first[0]))
    assert isinstance(_model_arrays(langid)[0], np.memmap)


def test_without_a_writable_cache_the_model_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from py3langid import langid

    from trawl.langid.broad import _model_arrays

    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("TRAWL_CACHE_DIR", str(blocked / "cache"))
    ptc, *_ = _model_arrays(langid)
    assert np.asarray(ptc).shape[0] > 1000


def test_an_older_install_s_copy_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from py3langid import langid

    from trawl.langid.broad import _model_arrays

    monkeypatch.setenv("TRAWL_CACHE_DIR", str(tmp_path))
    stale = tmp_path / f"py3langid-{PY3LANGID_VERSION}-1-2"
    stale.mkdir()
    (stale / "classes.json").write_text("[]")
    _model_arrays(langid)
    assert not stale.exists() and len(list(tmp_path.iterdir())) == 1
