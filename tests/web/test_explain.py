"""The explain pages of ``trawl serve``: the course's worked examples, through the app (TestClient)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from trawl.web.app import create_app
from trawl.web.explain import EXAMPLES, EXPLAINERS, MAX_TEXT

BOOK_TEXT = (
    "Tropical fish include fish found in tropical environments around the world, "
    "including both freshwater and salt water species"
)
BOOK_HASHES = {
    "tropical": "01100001",
    "fish": "10101011",
    "include": "11100110",
    "found": "00011110",
    "environments": "00101101",
    "around": "10001011",
    "world": "00101010",
    "including": "11000000",
    "both": "10101110",
    "freshwater": "00111111",
    "salt": "10110101",
    "water": "00100101",
    "species": "11101110",
}


@pytest.fixture(scope="module")
def client(collection: Path) -> Iterator[TestClient]:
    with TestClient(create_app([collection])) as c:
        yield c


def api(client: TestClient, name: str, **params: Any) -> dict[str, Any]:
    r = client.get(f"/api/explain/{name}", params=params)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def book_params() -> dict[str, str]:
    return {"text": BOOK_TEXT, "bits": "8", "hashes": ",".join(f"{w}:{h}" for w, h in BOOK_HASHES.items())}


def by_hand(hashes: dict[str, str], weights: dict[str, int]) -> list[int]:
    """V of Croft et al.'s example computed independently of trawl's simhash module."""
    return [sum(weights[w] * (1 if h[i] == "1" else -1) for w, h in hashes.items()) for i in range(8)]


def test_simhash_reproduces_the_textbook_example(client: TestClient) -> None:
    weights = {w: 2 if w in ("tropical", "fish") else 1 for w in BOOK_HASHES}
    assert by_hand(BOOK_HASHES, weights) == [1, -5, 9, -9, 3, 1, 3, 3]
    data = api(client, "simhash", **book_params())
    assert data["v"] == [1, -5, 9, -9, 3, 1, 3, 3]
    assert data["fingerprint"] == "10101111"
    assert sorted(data["skipped"]) == ["and", "in", "the"]
    steps = {s["word"]: s for s in data["steps"]}
    assert {w: s["weight"] for w, s in steps.items()} == weights
    assert steps["tropical"]["hash"] == "01100001" and steps["tropical"]["v"] == [-2, 2, 2, -2, -2, -2, -2, 2]
    assert data["steps"][-1]["v"] == data["v"]
    page = client.get("/explain/simhash", params=book_params())
    assert page.status_code == 200
    assert '<pre class="bits" id="simhash-v">1 -5 9 -9 3 1 3 3</pre>' in page.text
    assert '<pre class="bits" id="simhash-bits">10101111</pre>' in page.text
    assert client.get("/explain/simhash").text.count("10101111") >= 1  # the example is the default


def test_simhash_with_trawl_hashes_and_bad_parameters(client: TestClient) -> None:
    data = api(client, "simhash", text="one two two", bits="16")
    assert [s["word"] for s in data["steps"]] == ["one", "two"]
    assert [s["weight"] for s in data["steps"]] == [1, 2]
    assert all(len(s["hash"]) == 16 for s in data["steps"]) and len(data["fingerprint"]) == 16
    for params in ({"bits": "0"}, {"bits": "x"}, {"hashes": "one:012"}, {"hashes": "one"}):
        r = client.get("/api/explain/simhash", params={"text": "one two", **params})
        assert r.status_code == 400 and r.json()["detail"], params
    assert client.get("/explain/simhash", params={"text": "one", "bits": "99"}).status_code == 400


def test_utf8_bits_of_each_character(client: TestClient) -> None:
    rows = api(client, "utf8", text="aé€")["rows"]
    assert [r["bits"] for r in rows] == ["01100001", "11000011 10101001", "11100010 10000010 10101100"]
    assert [r["codepoint"] for r in rows] == ["U+0061", "U+00E9", "U+20AC"]
    assert [b["prefix"] for b in rows[2]["bytes"]] == ["1110", "10", "10"]
    assert int(rows[2]["payload"], 2) == ord("€")
    page = client.get("/explain/utf8", params={"text": "é"}).text
    assert '<strong class="prefix">110</strong>00011 <strong class="prefix">10</strong>101001' in page


def test_fingerprint_keeps_exactly_the_hashes_divisible_by_p(client: TestClient) -> None:
    text = "the cat sat on the mat and the dog sat on the log while the bird sang in the tree all day"
    for p in (2, 4, 7):
        data = api(client, "fingerprint", text=text, n="3", p=str(p))
        rows = data["rows"]
        assert len(rows) == len(text.split()) - 2
        assert rows[0]["ngram"] == "the cat sat"
        assert [r["kept_mod_p"] for r in rows] == [r["hash"] % p == 0 for r in rows]
        assert set(data["mod_p"]) == {f"{r['hash']:016x}" for r in rows if r["hash"] % p == 0}
    winnowed = [r["position"] for r in rows if r["kept_winnow"]]
    assert winnowed and all(b - a <= 4 for a, b in zip([-1, *winnowed], winnowed, strict=False))


def test_cavnar_ranks_the_language_of_the_text_first(client: TestClient) -> None:
    english = api(client, "cavnar", **EXAMPLES["cavnar"])
    assert english["best"] == "en" and english["ranking"][0]["lang"] == "en"
    distances = [r["distance"] for r in english["ranking"]]
    assert distances == sorted(distances)
    assert english["best_total"] == distances[0]
    german = "Der schnelle braune Fuchs springt über den faulen Hund und läuft dann in den dunklen Wald."
    data = api(client, "cavnar", text=german, top="20")
    assert data["best"] == "de" and len(data["rows"]) == 20
    row = data["rows"][0]
    assert row["adds"] == (300 if row["lang_rank"] is None else abs(row["lang_rank"] - row["text_rank"]))


def test_bte_picks_the_content_span(client: TestClient) -> None:
    data = api(client, "bte", **EXAMPLES["bte"])
    assert data["text"].startswith("The main article text is long")
    assert "Home" not in data["text"] and "Terms" not in data["text"]
    start, end = data["span"]
    seq = [int(b) for b in data["sequence"]]
    assert len(seq) == data["tokens"] and sum(seq) == data["tags"]

    def objective(i: int, j: int) -> int:  # Finn et al.'s, by brute force over every span
        return sum(seq[:i]) + seq[i:j].count(0) + sum(seq[j:])

    best = max(objective(i, j) for i in range(len(seq)) for j in range(i + 1, len(seq) + 1))
    assert objective(start, end) == best == sum(data["objective"].values())
    page = client.get("/explain/bte").text
    assert "<svg" in page and 'class="span-bte"' in page


def test_text_is_escaped(client: TestClient) -> None:
    for name in EXPLAINERS:
        page = client.get(f"/explain/{name}", params={"text": "<script>alert(1)</script> words here"})
        assert "<script>alert" not in page.text, name
        assert "&lt;script&gt;" in page.text, name


def test_every_explain_page_loads_with_no_external_url(client: TestClient) -> None:
    index = client.get("/explain/")
    assert index.status_code == 200
    assert "/explain/" in client.get("/").text
    for name in EXPLAINERS:
        assert f'href="/explain/{name}"' in index.text
        page = client.get(f"/explain/{name}")
        assert page.status_code == 200, name
        assert "<caption" in page.text
        assert not re.search(r"(https?:)?//(?!www\.w3\.org/2000/svg)", page.text), name
    assert client.get("/explain/nope").status_code == 404
    assert [p["name"] for p in client.get("/api/explain").json()["pages"]] == list(EXPLAINERS)


def test_bounds_give_a_clear_400(client: TestClient) -> None:
    r = client.get("/api/explain/utf8", params={"text": "x" * (MAX_TEXT + 1)})
    assert r.status_code == 400 and "at most" in r.json()["detail"]
    assert client.get("/api/explain/utf8", params={"text": "  "}).status_code == 400
    assert client.get("/api/explain/fingerprint", params={"text": "a b c", "p": "0"}).status_code == 400
    assert client.get("/api/explain/bte", params={"text": "<script>x</script>"}).status_code == 400
