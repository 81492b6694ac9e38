"""Private sites: per-host headers, cookies and basic auth, withheld from the WARC request records;
forms counted and left alone."""

from __future__ import annotations

import base64
import gzip
from pathlib import Path

import pytest

from trawl.crawl.crawler import CrawlSettings
from trawl.crawl.private import WITHHELD, load_private_sites
from trawl.errors import ConfigError
from trawl.jobs.crawl import crawl
from trawl.store.collection import Collection
from trawl.testweb import ServerThread, TestWeb

SECRET = base64.b64encode(b"alice:secret").decode()


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "private.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_sites_give_their_headers_to_their_hosts_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTRA_PW", "s3cret")
    sites = load_private_sites(
        _write(
            tmp_path,
            """
[[site]]
host = "private.test"
user = "alice"
password = "secret"

[[site]]
host = "*.example.org"
user = "bob"
password_env = "INTRA_PW"
cookies = { session = "abc", lang = "en" }
headers = { "X-Api-Key" = "k1" }
record = true
""",
        )
    )
    assert sites.headers_for("private.test:8080") == [("Authorization", f"Basic {SECRET}")]
    bob = dict(sites.headers_for("wiki.example.org"))
    assert bob["Authorization"] == "Basic " + base64.b64encode(b"bob:s3cret").decode()
    assert bob["Cookie"] == "session=abc; lang=en" and bob["X-Api-Key"] == "k1"
    assert sites.headers_for("example.org") and not sites.headers_for("example.org.evil.test")
    assert sites.headers_for("other.test") == []
    sent = [("User-Agent", "trawl"), ("authorization", f"Basic {SECRET}")]
    assert sites.for_record("private.test", sent) == [("User-Agent", "trawl"), ("authorization", WITHHELD)]
    assert sites.for_record("wiki.example.org", sent) == sent  # record = true


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[site]]\nhost = 'a.test'\n", "sends nothing"),
        ("[[site]]\nuser = 'x'\npassword = 'y'\n", "host"),
        (
            "[[site]]\nhost = 'a.test'\nuser = 'x'\npassword_env = 'NO_SUCH_VARIABLE_X'\n",
            "NO_SUCH_VARIABLE_X",
        ),
        ("[[site]]\nhost = 'a.test'\ntoken = 'x'\n", "unknown keys"),
        ('[[site]]\nhost = "a.test"\nheaders = { X = "a\\nb" }\n', "one line"),
        ("site = 3\n", "one [[site]] table"),
        ("not toml at all [", "not valid TOML"),
    ],
)
def test_a_bad_file_is_a_clear_error_that_quotes_no_secret(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=r"private sites|cannot read") as info:
        load_private_sites(_write(tmp_path, text))
    assert message in str(info.value) and "'y'" not in str(info.value)
    with pytest.raises(ConfigError, match="cannot read"):
        load_private_sites(tmp_path / "missing.toml")


def _crawl(tmp_path: Path, name: str, private: str = "") -> tuple[dict[str, int], set[str], bytes]:
    web = TestWeb(2, hosts=1, pages=2, special=True, change_rates=(0.0,))
    with ServerThread(web) as server:
        settings = CrawlSettings(
            min_delay=0.0, delay_factor=0.0, concurrency=4, hosts=("private.test",), store_workers=0,
            resolve=tuple(server.resolve_rules()), private_sites=private,
        )  # fmt: skip
        with Collection.create(tmp_path / name) as coll:
            result = crawl(["http://private.test/"], coll, settings)
            pages = {r.url for r in coll.records() if r.capture.get("status") == 200}
    warc = b"".join(gzip.decompress(p.read_bytes()) for p in (tmp_path / name / "warc").glob("*.warc.gz"))
    return result.stats.counters, pages, warc


def test_a_private_site_is_entered_with_its_credentials_and_they_stay_out_of_the_warc(tmp_path: Path) -> None:
    counters, pages, _ = _crawl(tmp_path, "outside")
    assert counters.get("fetch/status/401", 0) == 1 and not pages
    basic = _write(tmp_path, "[[site]]\nhost = 'private.test'\nuser = 'alice'\npassword = 'secret'\n")
    counters, pages, warc = _crawl(tmp_path, "inside", str(basic))
    assert len(pages) == 6 and counters["fetch/private"] >= 6  # the home page and five letters
    assert b"Authorization: " + WITHHELD.encode() in warc and SECRET.encode() not in warc
    assert counters.get("discover/form-skipped", 0) >= 6  # the search form on every page: left alone
    cookie = tmp_path / "cookie.toml"
    cookie.write_text("[[site]]\nhost = 'private.test'\ncookies = { session = 'letmein' }\nrecord = true\n")
    counters, pages, warc = _crawl(tmp_path, "cookie", str(cookie))
    assert len(pages) == 6 and b"Cookie: session=letmein" in warc  # record = true keeps it
