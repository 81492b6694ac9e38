from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from trawl.config import load_config
from trawl.errors import ConfigError


def test_defaults_come_from_the_packaged_file() -> None:
    c = load_config(env={})
    assert c.warc.prefix == "trawl"
    assert c.decode.default_encoding == "windows-1252"
    assert c.origins["warc.prefix"] == "defaults"


def test_layers_default_file_env_cli(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text('[warc]\nprefix = "file"\nmax_file_bytes = 5000000\n[html]\nmax_chars = 10\n')
    c = load_config(
        f,
        env={"TRAWL_WARC_PREFIX": "env", "TRAWL_HTML_MAX_CHARS": "20", "OTHER": "x"},
        overrides=["warc.prefix=cli"],
    )
    assert c.warc.prefix == "cli"  # CLI beats env beats file
    assert c.html.max_chars == 20  # env beats file
    assert c.warc.max_file_bytes == 5_000_000  # file beats default
    assert c.origins["warc.prefix"] == "command line"
    assert c.origins["html.max_chars"] == "$TRAWL_HTML_MAX_CHARS"


def test_values_are_typed() -> None:
    c = load_config(env={"TRAWL_LOCAL_SKIP_HIDDEN": "no", "TRAWL_WARC_MAX_FILE_BYTES": "2e9"})
    assert c.local.skip_hidden is False
    assert c.warc.max_file_bytes == 2_000_000_000
    c = load_config(env={}, overrides={"ingest.record_types": "response,resource"})
    assert c.ingest.record_types == ["response", "resource"]


def test_unknown_and_bad_values_fail_with_the_key() -> None:
    with pytest.raises(ConfigError, match=r"did you mean .warc\.prefix."):
        load_config(env={}, overrides=["warc.prefx=a"])
    with pytest.raises(ConfigError, match=r"html\.max_chars"):
        load_config(env={}, overrides=["html.max_chars=lots"])
    with pytest.raises(ConfigError, match=r"section\.key=value"):
        load_config(env={}, overrides=["nonsense"])


def test_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[warc\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(f, env={})
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml", env={})


def test_contradictions_warn() -> None:
    with pytest.warns(UserWarning, match="very many small WARC files"):
        load_config(env={}, overrides=["warc.max_file_bytes=1000"])


def test_to_toml_round_trips(tmp_path: Path) -> None:
    c = load_config(env={}, overrides=['warc.prefix=x"y'])
    f = tmp_path / "c.toml"
    f.write_text(c.to_toml())
    assert load_config(f, env={}).as_dict() == c.as_dict()


def test_warc_level_is_checked() -> None:
    assert load_config(env={}, overrides=["warc.level=3"]).warc.level == 3
    with pytest.raises(ConfigError, match="zlib level"):
        load_config(env={}, overrides=["warc.level=12"])


def test_the_crawl_and_dedup_sections_give_the_settings_defaults() -> None:
    # [crawl] and [dedup] in defaults.toml, the config dataclasses and the settings' own defaults
    # are three spellings of one set of values: they must agree
    from trawl.cli.dedup import options_from
    from trawl.config import DedupConfig
    from trawl.crawl.crawler import CrawlSettings
    from trawl.dedup.engine import DedupOptions

    config = load_config(env={})
    assert CrawlSettings.from_config(config.crawl) == CrawlSettings()
    flags = argparse.Namespace(method=None, threshold=None, shingle=None, simhash_k=None, modp_p=None)
    assert options_from(flags, config.dedup) == DedupOptions()
    assert DedupConfig(**config.as_dict()["dedup"]) == config.dedup
