"""Typed configuration, layered: packaged defaults < config file < environment < command line.

The defaults, each documented, live in ``defaults.toml`` inside the package. A value is checked
against the type of its default when it is loaded, so a typo fails at start-up with a message
naming the key, not halfway through a crawl. Environment variables are ``TRAWL_<SECTION>_<KEY>``
(upper case); command-line overrides are ``section.key=value`` strings.
"""

from __future__ import annotations

import difflib
import os
import tomllib
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from trawl.errors import ConfigError

__all__ = [
    "Config",
    "ConvertConfig",
    "CrawlConfig",
    "DecodeConfig",
    "DedupConfig",
    "ExtractConfig",
    "HtmlConfig",
    "IngestConfig",
    "LangidConfig",
    "LocalConfig",
    "TableConfig",
    "UnitsConfig",
    "WarcConfig",
    "load_config",
]


@dataclass(slots=True)
class IngestConfig:
    record_types: list[str] = field(default_factory=list)
    max_record_bytes: int = 0
    content_types: list[str] = field(default_factory=list)
    workers: int = -1


@dataclass(slots=True)
class DecodeConfig:
    max_body_bytes: int = 0
    default_encoding: str = ""
    detector: bool = True


@dataclass(slots=True)
class HtmlConfig:
    max_chars: int = 0


@dataclass(slots=True)
class ConvertConfig:
    """Format conversion (``trawl.convert``; see ``defaults.toml``)."""

    markdown: bool = False
    ocr: str = "auto"
    ocr_max_pages: int = 50
    ocr_timeout: float = 60.0
    ocr_languages: list[str] = field(default_factory=list)
    libreoffice: str = "auto"
    libreoffice_timeout: float = 20.0
    pdf_layout: bool = True


@dataclass(slots=True)
class LocalConfig:
    max_file_bytes: int = 0
    skip_hidden: bool = True
    follow_symlinks: bool = False
    skip_system: bool = True
    system_folders: list[str] = field(default_factory=list)
    ignore_files: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    record_access: bool = True
    incremental: bool = True
    max_files_per_second: float = 0.0
    max_mb_per_second: float = 0.0
    low_priority: bool = False
    pause_on_battery: bool = False
    watch_backend: str = "auto"
    poll_interval: float = 1.0


@dataclass(slots=True)
class WarcConfig:
    max_file_bytes: int = 0
    prefix: str = ""
    compress: bool = True
    codec: str = "gzip"
    zstd_level: int = 9
    level: int = 6


@dataclass(slots=True)
class CrawlConfig:
    """``trawl crawl``'s defaults (see ``defaults.toml``); the command's flags override them.

    0 means "no limit" for ``max_pages``, ``max_seconds`` and ``max_bytes``, -1 for ``max_depth``
    (0 there means the seeds only).
    """

    user_agent: str = ""
    agent_token: str = ""
    concurrency: int = 64
    min_delay: float = 1.0
    delay_factor: float = 2.0
    max_crawl_delay: float = 10.0
    max_retry_after: float = 120.0
    max_retries: int = 2
    backoff_base: float = 1.0
    max_backoff: float = 120.0
    max_host_faults: int = 10
    connect_timeout: float = 10.0
    read_timeout: float = 15.0
    total_timeout: float = 60.0
    max_body_bytes: int = 0
    accept_types: list[str] = field(default_factory=list)
    max_redirects: int = 5
    max_pages: int = 0
    max_depth: int = -1
    max_seconds: float = 0.0
    max_bytes: int = 0
    max_pages_per_host: int = 2000
    max_path_depth: int = 12
    max_segment_repeat: int = 2
    max_url_length: int = 1024
    hosts: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    robots: bool = True
    robots_ttl: float = 86400.0
    sitemaps: bool = True
    max_sitemap_depth: int = 2
    max_sitemap_bytes: int = 50 << 20
    max_sitemap_urls: int = 50000
    feeds: bool = True
    max_feed_bytes: int = 10 << 20
    max_feed_entries: int = 1000
    conditional: bool = True
    head_checks: bool = True
    head_trust: int = 3
    head_audit: int = 10
    revisit: bool = False
    revisit_min: float = 60.0
    revisit_max: float = 86400.0
    policy: str = "adaptive"
    budget: float = 0.0
    policy_metric: str = "freshness"
    policy_weights: str = "none"
    focus: list[str] = field(default_factory=list)
    focus_examples: str = ""
    focus_threshold: float = 0.0
    focus_tunnel: int = 2
    private_sites: str = ""
    allow_private: bool = False
    render: str = "never"
    render_browser: str = ""
    render_timeout: float = 15.0
    render_max_requests: int = 60
    render_max_bytes: int = 8 << 20
    render_memory_mb: int = 1024
    render_concurrency: int = 2
    render_min_links: int = 3
    resolve: list[str] = field(default_factory=list)
    transport: str = "http"
    store_workers: int = 2
    websub: bool = False
    websub_listen: str = "127.0.0.1:0"
    websub_public_url: str = ""
    websub_lease: float = 86400.0
    websub_max_bytes: int = 1 << 20
    websub_max_subscriptions: int = 1000


@dataclass(slots=True)
class DedupConfig:
    """``trawl dedup``'s defaults (see ``defaults.toml``); the command's flags override them."""

    methods: list[str] = field(default_factory=list)
    threshold: float = 0.8
    shingle: int = 5
    num_perm: int = 128
    bands: int = 0
    rows: int = 0
    simhash_k: int = 9
    simhash_weighting: str = "tf"
    simhash_features: str = "shingles"
    winnow_window: int = 4
    modp_p: int = 4
    max_run: int = 64
    max_df: int = 1000
    seed: int = 1
    limit: int = 100


@dataclass(slots=True)
class TableConfig:
    engine: str = ""
    store_text: bool = True
    tablets: bool = True


@dataclass(slots=True)
class ExtractConfig:
    enabled: bool = True
    method: str = ""
    format: str = ""
    comments: bool = False


@dataclass(slots=True)
class LangidConfig:
    enabled: bool = True
    method: str = ""
    max_chars: int = 0


@dataclass(slots=True)
class UnitsConfig:
    """Document units (``trawl.units``; see ``defaults.toml``)."""

    mail: bool = True
    mail_attachments: str = "units"
    max_messages: int = 100_000
    max_attachments: int = 100
    max_part_bytes: int = 50 << 20
    max_depth: int = 3
    embedded: str = "units"
    embedded_max_objects: int = 100
    embedded_max_bytes: int = 50 << 20
    embedded_max_depth: int = 2
    pdf: str = "none"
    slides: bool = False
    sheets: bool = False
    chapters: bool = False
    max_segments: int = 2000
    passages: str = "none"
    passage_chars: int = 1000
    passage_overlap: int = 200
    passage_min_chars: int = 200
    max_passages: int = 1000
    faq: bool = False
    max_faq_pairs: int = 200


_SECTIONS: dict[str, type[Any]] = {
    "ingest": IngestConfig,
    "decode": DecodeConfig,
    "html": HtmlConfig,
    "convert": ConvertConfig,
    "local": LocalConfig,
    "warc": WarcConfig,
    "table": TableConfig,
    "extract": ExtractConfig,
    "langid": LangidConfig,
    "crawl": CrawlConfig,
    "dedup": DedupConfig,
    "units": UnitsConfig,
}


@dataclass(slots=True)
class Config:
    """All of trawl's options, one typed section per component."""

    ingest: IngestConfig
    decode: DecodeConfig
    html: HtmlConfig
    convert: ConvertConfig
    local: LocalConfig
    warc: WarcConfig
    table: TableConfig
    extract: ExtractConfig
    langid: LangidConfig
    crawl: CrawlConfig
    dedup: DedupConfig
    units: UnitsConfig
    origins: dict[str, str] = field(default_factory=dict)  # "section.key" -> where its value came from

    def as_dict(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in _SECTIONS:
            section = getattr(self, name)
            out[name] = {f.name: getattr(section, f.name) for f in fields(section)}
        return out

    def to_toml(self) -> str:
        """The configuration as TOML, for a collection's ``trawl.toml``."""
        lines: list[str] = []
        for name, values in self.as_dict().items():
            lines.append(f"[{name}]")
            for key, value in values.items():
                lines.append(f"{key} = {_toml_value(value)}")
            lines.append("")
        return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"cannot write {value!r} as TOML")


def _defaults() -> dict[str, dict[str, Any]]:
    text = resources.files("trawl").joinpath("defaults.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _coerce(key: str, value: Any, default: Any, origin: str) -> Any:
    """Convert ``value`` to the type of ``default``; strings (env, CLI) are parsed."""
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in {"1", "true", "yes", "on"}:
                return True
            if isinstance(value, str) and value.strip().lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError("expected true or false")
        if isinstance(default, float):
            if isinstance(value, bool):
                raise ValueError("expected a number")
            if isinstance(value, int | float):
                return float(value)
            if isinstance(value, str):
                return float(value.replace("_", ""))
            raise ValueError("expected a number")
        if isinstance(default, int):
            if isinstance(value, bool):
                raise ValueError("expected an integer")
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if isinstance(value, str):
                number = float(value.replace("_", "")) if any(c in value for c in ".eE") else int(value, 0)
                if isinstance(number, float) and not number.is_integer():
                    raise ValueError("expected an integer")
                return int(number)
            raise ValueError("expected an integer")
        if isinstance(default, str):
            if not isinstance(value, str):
                raise ValueError("expected a string")
            return value
        if isinstance(default, list):
            if isinstance(value, str):
                return [v.strip() for v in value.split(",") if v.strip()]
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return list(value)
            raise ValueError("expected a list of strings")
    except ValueError as exc:
        raise ConfigError(f"{key} = {value!r} (from {origin}): {exc}") from exc
    raise ConfigError(f"{key}: unsupported option type {type(default).__name__}")


def _unknown(key: str, known: Iterable[str]) -> ConfigError:
    near = difflib.get_close_matches(key, list(known), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return ConfigError(f"unknown option {key!r}{hint} (all options are listed in trawl/defaults.toml)")


def load_config(
    file: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Iterable[str] | Mapping[str, Any] = (),
) -> Config:
    """Build the configuration from the four layers.

    ``overrides`` are ``"section.key=value"`` strings (or a mapping of ``"section.key"`` to
    values) from the command line. Unknown keys and ill-typed values raise :class:`ConfigError`.
    """
    values = _defaults()
    origins = {f"{s}.{k}": "defaults" for s, sec in values.items() for k in sec}
    known = list(origins)

    def put(key: str, value: Any, origin: str) -> None:
        if key not in origins:
            raise _unknown(key, known)
        section, name = key.split(".", 1)
        values[section][name] = _coerce(key, value, values[section][name], origin)
        origins[key] = origin

    if file is not None:
        try:
            data = tomllib.loads(Path(file).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read config file {str(file)!r}: {exc.strerror or exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {str(file)!r} is not valid TOML: {exc}") from exc
        for section, entries in data.items():
            if not isinstance(entries, dict):
                raise ConfigError(f"{file}: {section!r} must be a [section] table")
            for name, value in entries.items():
                put(f"{section}.{name}", value, str(file))

    environ = os.environ if env is None else env
    for var, value in environ.items():
        if not var.startswith("TRAWL_"):
            continue
        rest = var[len("TRAWL_") :].lower()
        section, _, name = rest.partition("_")
        if section in _SECTIONS and name:
            put(f"{section}.{name}", value, f"${var}")

    items = overrides.items() if isinstance(overrides, Mapping) else (_split(o) for o in overrides)
    for key, value in items:
        put(key, value, "command line")

    config = Config(
        **{name: cls(**values[name]) for name, cls in _SECTIONS.items()},
        origins=origins,
    )
    _warn_contradictions(config)
    return config


def _split(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or "." not in key:
        raise ConfigError(f"expected section.key=value, got {item!r}")
    return key.strip(), value.strip()


def _warn_contradictions(config: Config) -> None:
    if config.warc.max_file_bytes < 1 << 20:
        warnings.warn(
            f"warc.max_file_bytes = {config.warc.max_file_bytes} is under 1 MiB: "
            "the collection will rotate into very many small WARC files",
            stacklevel=3,
        )
    if config.ingest.max_record_bytes > config.decode.max_body_bytes:
        warnings.warn(
            "ingest.max_record_bytes is larger than decode.max_body_bytes: large records will be "
            "stored but their text cut at decode.max_body_bytes",
            stacklevel=3,
        )
    if config.ingest.workers < -1:
        raise ConfigError(f"ingest.workers = {config.ingest.workers}: -1 (automatic), 0 (none) or a count")
    if not 0 <= config.warc.level <= 9:
        raise ConfigError(f"warc.level = {config.warc.level}: a zlib level is 0 (store) to 9 (smallest)")
    if config.extract.method not in {"auto", "dom", "bte", "slope"}:
        raise ConfigError(
            f"extract.method = {config.extract.method!r}: choose 'auto', 'dom', 'bte' or 'slope'"
        )
    if config.extract.format not in {"text", "markdown"}:
        raise ConfigError(f"extract.format = {config.extract.format!r}: choose 'text' or 'markdown'")
    if config.langid.method not in {"default", "cavnar-trenkle"}:
        raise ConfigError(f"langid.method = {config.langid.method!r}: choose 'default' or 'cavnar-trenkle'")
    crawl = config.crawl
    if crawl.store_workers not in (0, 1, 2):
        raise ConfigError(f"crawl.store_workers = {crawl.store_workers}: 0, 1 or 2")
    if crawl.transport not in {"http", "aiohttp"}:
        raise ConfigError(f"crawl.transport = {crawl.transport!r}: choose 'http' or 'aiohttp'")
    if crawl.concurrency < 1 or crawl.min_delay < 0 or crawl.delay_factor < 0:
        raise ConfigError("crawl: concurrency must be at least 1 and the delays not negative")
    dedup = config.dedup
    if not 0.0 < dedup.threshold < 1.0:
        raise ConfigError(f"dedup.threshold = {dedup.threshold}: a Jaccard threshold between 0 and 1")
    if dedup.shingle < 1 or dedup.modp_p < 1 or dedup.num_perm < 1 or dedup.limit < 1:
        raise ConfigError("dedup: shingle, modp_p, num_perm and limit must be at least 1")
    if dedup.simhash_weighting not in {"tf", "tfidf"} or dedup.simhash_features not in {"words", "shingles"}:
        raise ConfigError(
            "dedup.simhash_weighting is 'tf' or 'tfidf'; dedup.simhash_features 'words' or 'shingles'"
        )
    units = config.units
    if units.mail_attachments not in {"units", "fold"}:
        raise ConfigError(f"units.mail_attachments = {units.mail_attachments!r}: choose 'units' or 'fold'")
    if min(units.max_messages, units.max_attachments, units.max_part_bytes) < 1 or units.max_depth < 0:
        raise ConfigError(
            "units: max_messages, max_attachments and max_part_bytes must be at least 1, max_depth at least 0"
        )
    if units.embedded not in {"units", "fold", "none"}:
        raise ConfigError(f"units.embedded = {units.embedded!r}: choose 'units', 'fold' or 'none'")
    if min(units.embedded_max_objects, units.embedded_max_bytes) < 1 or units.embedded_max_depth < 0:
        raise ConfigError(
            "units: embedded_max_objects and embedded_max_bytes must be at least 1, "
            "embedded_max_depth at least 0"
        )
    _check_passages(units)
    convert = config.convert
    if convert.ocr not in {"auto", "never", "always"}:
        raise ConfigError(f"convert.ocr = {convert.ocr!r}: choose 'auto', 'never' or 'always'")
    if convert.libreoffice not in {"auto", "never", "always"}:
        raise ConfigError(
            f"convert.libreoffice = {convert.libreoffice!r}: choose 'auto', 'never' or 'always'"
        )
    if convert.libreoffice_timeout <= 0:
        raise ConfigError(f"convert.libreoffice_timeout = {convert.libreoffice_timeout}: must be positive")
    if convert.ocr_max_pages < 1 or convert.ocr_timeout <= 0:
        raise ConfigError(
            f"convert.ocr_max_pages = {convert.ocr_max_pages}, ocr_timeout = {convert.ocr_timeout}: "
            "both must be positive"
        )
    if config.table.engine not in {"rocksdb"}:
        raise ConfigError(f"table.engine = {config.table.engine!r}: the only engine is 'rocksdb'")


def _check_passages(units: UnitsConfig) -> None:
    """Passage and FAQ units' options (``[units]``): refused when they cannot cut a text."""
    if units.passages not in {"none", "window", "paragraph"}:
        raise ConfigError(f"units.passages = {units.passages!r}: choose 'none', 'window' or 'paragraph'")
    if units.passage_chars < 1 or not 0 <= units.passage_overlap < units.passage_chars:
        raise ConfigError(
            f"units.passage_chars = {units.passage_chars}, passage_overlap = {units.passage_overlap}: "
            "passage_chars must be at least 1 and the overlap at least 0 and below it"
        )
    if units.passage_min_chars < 0:
        raise ConfigError(f"units.passage_min_chars = {units.passage_min_chars}: at least 0")
    if units.max_passages < 1 or units.max_faq_pairs < 1:
        raise ConfigError("units: max_passages and max_faq_pairs must be at least 1")
