"""Exports of a collection: a Parquet URL index in Common Crawl's columnar layout, JSONL, TREC Web.

The Parquet index has Common Crawl's column names and types (``url_surtkey``, ``url``,
``url_host_name``, ``fetch_time``, ``fetch_status``, ``content_mime_type``, ``content_charset``,
``content_languages``, ``warc_filename``, ``warc_record_offset``, ``warc_record_length``...), so the
queries written for CC's index run on it, with DuckDB or Spark, and a row's (file, offset, length)
fetches the record with one ranged read, as on CC. Host-part columns are split on dots; trawl
carries no public-suffix list, so ``url_host_registry_suffix`` is the last label and
``url_host_registered_domain`` the last two (wrong for ``co.uk``-style suffixes).

Every export holds every kept capture (:meth:`~trawl.store.collection.Collection.captures`: a URL
captured twice is two records, its older capture first, so a revisit follows its original), and
counts what it wrote and what it could not read (a corrupt or missing WARC member costs that
record, not the export).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from trawl.errors import MissingDependency, StoreError, TrawlError
from trawl.langid.codes import UND, to_iso639_3
from trawl.store.collection import Collection, StoredRecord
from trawl.store.trecweb import TrecWebWriter
from trawl.urls import url_hash

__all__ = [
    "CC_COLUMNS",
    "EXTRA_COLUMNS",
    "FORMATS",
    "export_collection",
    "export_jsonl",
    "export_parquet",
    "export_trec",
    "export_warc",
    "index_row",
]

FORMATS = ("parquet", "trec", "jsonl", "warc")

#: Common Crawl's columnar URL index columns, in its order, and the Arrow type of each
CC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("url_surtkey", "string"),
    ("url", "string"),
    ("url_host_name", "string"),
    ("url_host_tld", "string"),
    ("url_host_2nd_last_part", "string"),
    ("url_host_3rd_last_part", "string"),
    ("url_host_4th_last_part", "string"),
    ("url_host_5th_last_part", "string"),
    ("url_host_registry_suffix", "string"),
    ("url_host_registered_domain", "string"),
    ("url_host_private_suffix", "string"),
    ("url_host_private_domain", "string"),
    ("url_host_name_reversed", "string"),
    ("url_protocol", "string"),
    ("url_port", "int32"),
    ("url_path", "string"),
    ("url_query", "string"),
    ("fetch_time", "timestamp"),
    ("fetch_status", "int16"),
    ("fetch_redirect", "string"),
    ("content_digest", "string"),
    ("content_mime_type", "string"),
    ("content_mime_detected", "string"),
    ("content_charset", "string"),
    ("content_languages", "string"),
    ("content_truncated", "string"),
    ("warc_filename", "string"),
    ("warc_record_offset", "int32"),
    ("warc_record_length", "int32"),
    ("warc_segment", "string"),
    ("crawl", "string"),
    ("subset", "string"),
)
#: trawl's own columns after Common Crawl's
EXTRA_COLUMNS: tuple[tuple[str, str], ...] = (
    ("docno", "string"),
    ("url_hash", "string"),
    ("warc_record_type", "string"),
    ("title", "string"),
)


def _host_parts(host: str) -> dict[str, Any]:
    labels = host.split(".") if host else []
    row: dict[str, Any] = {"url_host_name": host or None}
    for i, name in enumerate(("tld", "2nd_last_part", "3rd_last_part", "4th_last_part", "5th_last_part")):
        row[f"url_host_{name}"] = labels[-1 - i] if len(labels) > i else None
    row["url_host_registry_suffix"] = labels[-1] if labels else None
    row["url_host_registered_domain"] = ".".join(labels[-2:]) if len(labels) >= 2 else None
    row["url_host_private_suffix"] = row["url_host_registry_suffix"]
    row["url_host_private_domain"] = row["url_host_registered_domain"]
    row["url_host_name_reversed"] = ".".join(reversed(labels)) if labels else None
    return row


def _languages(record: StoredRecord) -> str | None:
    """The record's languages as Common Crawl's index writes them: ISO 639-3 codes, the
    document's language first, then the other languages of its passages by the characters they
    cover, at most three, comma-separated (None: no language identified)."""
    doc = record.cells.get("lang", {}).get("doc", {})
    order: list[str] = []
    if doc.get("lang") and doc["lang"] != UND:
        order.append(str(doc["lang"]))
    covered: dict[str, int] = {}
    for span in doc.get("passages") or []:
        lang = span.get("lang") if isinstance(span, dict) else None
        if lang and lang != UND:
            covered[str(lang)] = covered.get(str(lang), 0) + int(span.get("chars") or 0)
    order += [lang for lang, _ in sorted(covered.items(), key=lambda kv: -kv[1]) if lang not in order]
    if not order:  # a format that names its language (a DOCX's dc:language, an HTML lang=)
        declared = record.cells.get("meta", {}).get("metadata", {}).get("language")
        return str(declared) if declared else None
    return ",".join(to_iso639_3(lang) for lang in order[:3])


def index_row(record: StoredRecord, crawl: str) -> dict[str, Any]:
    """One record as a row of the Common Crawl columnar index (plus trawl's columns)."""
    cap = record.capture
    url = str(cap.get("url") or "")
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    pointer = cap.get("pointer") or {}
    fetched = cap.get("fetched_at")
    digest = cap.get("payload_digest")
    decode = record.cells.get("meta", {}).get("decode", {})
    row: dict[str, Any] = {
        "url_surtkey": record.row,
        "url": url,
        **_host_parts(parts.hostname or ""),
        "url_protocol": parts.scheme or None,
        "url_port": port,
        "url_path": parts.path or None,
        "url_query": parts.query or None,
        "fetch_time": datetime.fromisoformat(fetched) if fetched else None,
        "fetch_status": cap.get("status"),
        "fetch_redirect": None,
        "content_digest": digest.split(":", 1)[-1] if digest else None,
        "content_mime_type": (cap.get("declared_type") or "").split(";")[0].strip() or None,
        "content_mime_detected": cap.get("sniffed_type"),
        "content_charset": decode.get("encoding"),
        "content_languages": _languages(record),
        "content_truncated": None,
        "warc_filename": pointer.get("file"),
        "warc_record_offset": pointer.get("offset"),
        "warc_record_length": pointer.get("length"),
        "warc_segment": None,
        "crawl": crawl,
        "subset": "warc",
        "docno": cap.get("docno"),
        "url_hash": url_hash(url) if url else None,
        "warc_record_type": "revisit" if cap.get("revisit_of") else cap.get("record_type"),
        "title": record.title or None,
    }
    return row


def _arrow_schema() -> Any:
    try:
        import pyarrow as pa  # noqa: PLC0415 - optional: only the Parquet export needs it
    except ImportError as exc:
        raise MissingDependency("pyarrow", "export", "trawl export --format parquet") from exc
    types = {
        "string": pa.string(),
        "int16": pa.int16(),
        "int32": pa.int32(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([(name, types[kind]) for name, kind in (*CC_COLUMNS, *EXTRA_COLUMNS)])


def export_parquet(
    collection: Collection, path: Path, *, batch_rows: int = 50_000, start: str = "", end: str | None = None
) -> dict[str, int]:
    """Write the URL index of ``collection`` to the Parquet file ``path`` (zstd, row groups by SURT);
    ``start``/``end``: only the rows of that key range (a sharded export's share), as in every export."""
    schema = _arrow_schema()
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    crawl = collection.path.name
    counts = {"records": 0}
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    try:
        with pq.ParquetWriter(str(tmp), schema, compression="zstd") as writer:
            batch: list[dict[str, Any]] = []
            for record in collection.captures(start=start, end=end):
                batch.append(index_row(record, crawl))
                if len(batch) >= batch_rows:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    counts["records"] += len(batch)
                    batch = []
            if batch or counts["records"] == 0:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                counts["records"] += len(batch)
    except (OSError, pa.ArrowException) as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {str(path)!r}: {exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return counts


def export_jsonl(
    collection: Collection, path: Path, *, start: str = "", end: str | None = None
) -> dict[str, int]:
    """One JSON object per record (what ``trawl get --json`` prints), text included."""
    counts = {"records": 0}
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    try:
        with tmp.open("wb") as fh:
            for record in collection.captures(start=start, end=end):
                fh.write(orjson.dumps(record.as_dict(), option=orjson.OPT_APPEND_NEWLINE))
                counts["records"] += 1
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return counts


def _readable(
    records: Iterable[StoredRecord], collection: Collection, counts: dict[str, int], errors: list[str]
) -> Iterator[tuple[StoredRecord, Any]]:
    for record in records:
        try:
            yield record, collection.read(record)
        except TrawlError as exc:  # a corrupt or missing WARC member: that record only
            counts["skipped"] += 1
            errors.append(f"{record.row}: {exc}")


def export_trec(
    collection: Collection, path: Path, *, start: str = "", end: str | None = None
) -> dict[str, int]:
    """Every record's captured bytes as TREC Web, with its DOCNO index (``PATH.idx``).

    DOCNOs are the records' own, or ``trawl-<url hash>`` for those without one; a URL's later
    captures add their capture time (``trawl-<url hash>-20240502120000``), so every DOCNO is
    unique. A record whose WARC member cannot be read is skipped and counted (``skipped``).
    """
    counts = {"records": 0, "skipped": 0}
    errors: list[str] = []
    path = Path(path)
    if path.exists():
        path.unlink()
    seen: set[str] = set()
    with TrecWebWriter(path) as writer:
        for record, doc in _readable(collection.captures(start=start, end=end), collection, counts, errors):
            docno = record.capture.get("docno") or f"trawl-{url_hash(record.url)}"
            if docno in seen:  # a later capture of the same URL: its DOCNO names its time too
                when = str(record.capture.get("fetched_at") or "")
                stamp = "".join(ch for ch in when[:19] if ch.isdigit()) or str(len(seen))
                docno = f"{docno}-{stamp}"
                k = 1
                while docno in seen:
                    k += 1
                    docno = f"{docno.rsplit('~', 1)[0]}~{k}"
            seen.add(docno)
            doc.url = record.url
            writer.write(doc, docno=docno)
            counts["records"] += 1
    if errors:
        Path(str(path) + ".errors").write_text("\n".join(errors) + "\n", encoding="utf-8")
    return counts


def export_warc(
    collection: Collection, path: Path, *, start: str = "", end: str | None = None
) -> dict[str, int]:
    """Every record as standard WARC/1.1, one gzip member per record, in one file at ``path``:
    the records with a payload in SURT order, then the revisits (so each original comes first).

    What any WARC tool reads, whatever the collection's own codec (a ``zstd`` collection's frames
    need trawl, for their sites' references). A record that cannot be read is skipped and counted.
    """
    import shutil  # noqa: PLC0415

    from trawl.store.warcfile import WarcFileWriter  # noqa: PLC0415

    counts = {"records": 0, "skipped": 0}
    errors: list[str] = []
    path = Path(path)
    tmpdir = path.with_name(path.name + ".tmpdir")
    shutil.rmtree(tmpdir, ignore_errors=True)
    try:
        with WarcFileWriter(tmpdir, prefix="export", max_bytes=1 << 62, codec="gzip") as writer:
            # every original before the revisits that refer to it: first the captures with their
            # payload, then the revisits, so a reader of the file finds each original first
            for revisits in (False, True):
                wanted = (
                    r
                    for r in collection.captures(start=start, end=end)
                    if (r.revisit_of is not None) is revisits
                )
                for _, doc in _readable(wanted, collection, counts, errors):
                    writer.write(doc)
                    counts["records"] += 1
            files = writer.files
        if files:
            os.replace(tmpdir / files[0], path)
        else:
            path.write_bytes(b"")
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    if errors:
        Path(str(path) + ".errors").write_text("\n".join(errors) + "\n", encoding="utf-8")
    return counts


def export_collection(
    collection: Collection, fmt: str, path: Path, *, start: str = "", end: str | None = None
) -> dict[str, int]:
    """Export in one of :data:`FORMATS` (the rows of ``[start, end)``: all by default)."""
    if fmt == "parquet":
        return export_parquet(collection, path, start=start, end=end)
    if fmt == "jsonl":
        return export_jsonl(collection, path, start=start, end=end)
    if fmt == "trec":
        return export_trec(collection, path, start=start, end=end)
    if fmt == "warc":
        return export_warc(collection, path, start=start, end=end)
    raise StoreError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
