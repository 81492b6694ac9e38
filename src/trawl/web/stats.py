"""The statistics pages of ``trawl serve``: what ``trawl stats`` and ``trawl freshness`` compute.

Nothing is computed here that the library does not compute: term statistics come from
:func:`trawl.textstats.text_stats` over :func:`trawl.textstats.collection_documents` (Zipf's and
Heaps' fits, hapax legomena, the top terms, per-host boilerplate hints), and freshness from
:func:`trawl.jobs.freshness.freshness`, evaluated at a series of times to draw freshness and
expected age over time. This module adds the bounds, the cache and the plots (:mod:`.svg`).

Cost: counting terms reads every stored text, so the result is cached per collection and
*generation* (:func:`trawl.web.index.generation_marker`: it changes when a run changes the
collection), computed once, by one thread, while other requests for it wait. A collection of more
than :data:`SAMPLE_DOCUMENTS` documents is sampled: every k-th document in SURT order (so every
host is represented), said on the page. The store is held (RocksDB's one opener per process) only
while the texts are read; a collection a running crawl or ingest holds answers 503, as document
pages do.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trawl.errors import InputError
from trawl.store.collection import Collection, StoredRecord
from trawl.textstats import DocText, collection_documents, text_stats
from trawl.textstats.sources import host_of
from trawl.web.index import DocIndex, generation_marker
from trawl.web.svg import Series, plot

__all__ = ["SAMPLE_DOCUMENTS", "StatsCache", "freshness_stats", "text_statistics"]

#: the most documents whose text is counted; a larger collection is sampled evenly
SAMPLE_DOCUMENTS = 20_000
#: hosts listed in the per-host boilerplate table
TOP_HOSTS = 20
#: terms in the top terms table
TOP_TERMS = 50
#: points of the freshness-over-time curves
FRESHNESS_POINTS = 25


def _hostname(surt_host: str) -> str:
    """``com,example`` → ``example.com`` (``file:`` stays)."""
    return surt_host if surt_host.endswith(":") else ".".join(reversed(surt_host.split(",")))


def text_statistics(coll: Collection, index: DocIndex, *, sample: int = SAMPLE_DOCUMENTS) -> dict[str, Any]:
    """``trawl stats``' report of ``coll`` (at most ``sample`` documents, every k-th), with the
    plots and a per-host table: documents, payload bytes, stored text bytes (the share of the
    payload that extraction kept) and the boilerplate terms ``trawl stats`` flags on the host."""
    with index.connect() as db:
        listed = db.execute("SELECT url, host, size, row FROM docs ORDER BY row").fetchall()
    sizes = {url: (host, int(size)) for url, host, size, _row in listed}
    total = len(sizes)
    step = max(1, math.ceil(total / sample)) if sample > 0 else 1
    hosts: dict[str, dict[str, Any]] = {}
    # sampled: the k-th rows read one by one (~0.06 ms each), not a scan of every row that keeps
    # one in k (8 s at 100,000 rows, bench/web.py --real); the index's rows are the store's
    picked = (
        collection_documents(coll) if step == 1 else _rows_documents(coll, [r[3] for r in listed[::step]])
    )

    def documents() -> Iterator[DocText]:
        for doc in picked:
            host, size = sizes.get(doc.name, (_hostname(doc.host), 0))
            h = hosts.setdefault(host, {"host": host, "documents": 0, "payload_bytes": 0, "text_bytes": 0})
            h["documents"] += 1
            h["payload_bytes"] += size
            h["text_bytes"] += len(doc.text.encode("utf-8", "replace"))
            yield doc

    stats = text_stats(documents(), top=TOP_TERMS, auto_queries=False)
    data = stats.as_dict(curves=True)
    boiler: dict[str, list[dict[str, Any]]] = {}
    for hint in stats.anomalies["boilerplate"]:
        boiler.setdefault(_hostname(str(hint["host"])), []).append(hint)
    table = sorted(hosts.values(), key=lambda h: (-h["documents"], h["host"]))[:TOP_HOSTS]
    for h in table:
        payload = h["payload_bytes"]
        h["kept_share"] = round(min(1.0, h["text_bytes"] / payload), 4) if payload else None
        h["removed_share"] = None if h["kept_share"] is None else round(1 - h["kept_share"], 4)
        h["boilerplate_terms"] = [b["term"] for b in boiler.get(h["host"], [])]
    data["hosts"] = table
    data["hosts_total"] = len(hosts)
    data["sample"] = {"documents_in_collection": total, "every": step, "bound": sample, "sampled": step > 1}
    data["plots"] = _text_plots(stats.rank_frequency, stats.growth, data)
    return data


def _rows_documents(coll: Collection, rows: list[str]) -> Iterator[DocText]:
    """:func:`~trawl.textstats.collection_documents` of the stored records of ``rows`` only."""
    for row in rows:
        record = StoredRecord(row, coll.table.get_row(row, families=("fetch", "text")))
        capture = record.cells.get("fetch", {}).get("capture")
        if not capture or capture.get("deleted"):  # gone since it was indexed
            continue
        text, title = record.text, record.title
        if title and not text.lstrip().startswith(title):  # as collection_documents counts it
            text = title + "\n" + text
        yield DocText(record.url or row, host_of(row), text)


def _text_plots(
    rank_frequency: list[tuple[int, int]], growth: list[tuple[int, int]], data: dict[str, Any]
) -> dict[str, str]:
    tokens = max(1, int(data["tokens"]))
    zipf_pts = [(float(r), f / tokens) for r, f in rank_frequency]
    series = [Series("observed P_r", zipf_pts, "points")]
    z = data["zipf"]
    if z:
        lo, hi = int(z["head_bend"]), int(z["tail_bend"])
        series.append(
            Series(
                f"fit: P_r = {z['c']:.3g}·r^-{z['exponent']:.3f}",
                [(float(r), z["c"] * r ** -z["exponent"]) for r in (lo, hi)],
            )
        )
    heaps = [Series("vocabulary", [(float(n), float(v)) for n, v in growth])]
    h = data["heaps"]
    if h and growth:
        ns = [float(n) for n, _ in growth if n >= h["min_tokens"]]
        heaps.append(
            Series(f"fit: V = {h['k']:.3g}·n^{h['beta']:.3f}", [(n, h["k"] * n ** h["beta"]) for n in ns])
        )
    return {
        "zipf": plot(
            series, title="Zipf: rank vs probability", x_label="rank r", y_label="P_r", log_x=True, log_y=True
        ),
        "heaps": plot(
            heaps,
            title="Heaps: vocabulary vs tokens",
            x_label="tokens n",
            y_label="vocabulary V",
            log_x=True,
            log_y=True,
        ),
    }


def freshness_stats(path: Path, *, points: int = FRESHNESS_POINTS) -> dict[str, Any]:
    """``trawl freshness``' report, and its overall freshness and expected age at ``points``
    times from the crawl's last fetch to a horizon ahead (as if nothing were fetched again: how
    the copy decays), beside the revisit schedule's long-run values. ``revisits`` is False (with
    ``reason``) for a collection without a crawl frontier or whose crawl revisits nothing."""
    from trawl.jobs.freshness import freshness  # noqa: PLC0415 - as trawl freshness imports it

    coll = Collection.open(path)  # the frontier is SQLite: the store itself is not opened
    try:
        try:
            report = freshness(coll)
        except InputError as exc:
            return {"revisits": False, "reason": f"no revisits in this collection: {exc}"}
        except sqlite3.Error as exc:  # a frontier of another kind (a desktop crawl's): no revisits
            return {
                "revisits": False,
                "reason": f"no revisits in this collection: its frontier is not a web crawl's ({exc})",
            }
        data = report.as_dict(top=10)
        busiest = sorted(data["hosts"].items(), key=lambda kv: (-kv[1]["pages"], kv[0]))[:TOP_HOSTS]
        data["host_rows"] = [{"host": host, **summary} for host, summary in busiest]
        if not report.pages or not data["overall"]["scheduled"]:
            return {
                "revisits": False,
                "reason": "no revisits in this collection: its crawl schedules no page for a second visit "
                "(crawl with --revisit)",
                **data,
            }
        now = report.now
        last = now - min(p.since for p in report.pages)
        rates = [p.rate for p in report.pages if p.rate > 0]
        intervals = [p.interval for p in report.pages if p.interval]
        # long enough to see the copies decay: three revisit intervals, or three mean change times
        mean_change = len(rates) / sum(rates) if rates else 0.0
        horizon = min(max(3 * max(intervals, default=0.0), 3 * mean_change, 1.0), 3 * 365 * 86400.0)
        times = [last + horizon * i / (points - 1) for i in range(points)]
        series: list[dict[str, Any]] = [
            {"seconds": round(t - last, 3), "fresh": fresh, "age_seconds": age}
            for t, (fresh, age) in zip(times, report.decay(times), strict=True)
        ]
    finally:
        coll.close()
    data["revisits"] = True
    data["series"] = series
    data["series_from"] = "the crawl's last fetch"
    policy = data["overall"]["policy_freshness"]
    policy_age = data["overall"]["policy_age_seconds"]
    span = [float(p["seconds"]) for p in series]
    unit, size = next(
        ((u, n) for u, n in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)) if span[-1] >= 3 * n),
        ("seconds", 1.0),
    )
    span = [t / size for t in span]
    ends = (span[0], span[-1])
    fresh_series = [Series("no more fetches", [(t, p["fresh"]) for t, p in zip(span, series, strict=True)])]
    age_series = [
        Series("no more fetches", [(t, p["age_seconds"]) for t, p in zip(span, series, strict=True)])
    ]
    if policy is not None:
        fresh_series.append(Series("under the revisit schedule", [(t, policy) for t in ends]))
    if policy_age is not None:
        age_series.append(Series("under the revisit schedule", [(t, policy_age) for t in ends]))
    data["plots"] = {
        "freshness": plot(
            fresh_series,
            title="Freshness over time",
            x_label=f"{unit} since the last fetch",
            y_label="share of pages unchanged",
        ),
        "age": plot(
            age_series,
            title="Expected age over time",
            x_label=f"{unit} since the last fetch",
            y_label="expected age, seconds",
        ),
    }
    return data


@dataclass(slots=True)
class _Entry:
    marker: str = ""
    made: float = 0.0
    data: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: the computation under way (one at a time), and the error the last one ended with
    worker: threading.Thread | None = None
    error: BaseException | None = None


class StatsCache:
    """Computed statistics per (collection, kind), kept while the collection's generation holds.

    A computation runs in a thread of its own, once at a time whoever asks; :meth:`get` waits
    for it ``wait`` seconds at most (``None``: to its end), so a page never takes the seconds a
    large collection's statistics take: it says they are being computed and asks again.
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[Path, str], _Entry] = {}
        self._lock = threading.Lock()

    def get(
        self,
        path: Path,
        kind: str,
        compute: Callable[[], dict[str, Any]],
        *,
        max_age: float | None = None,
        wait: float | None = None,
    ) -> dict[str, Any] | None:
        """The result for ``path``'s current generation (younger than ``max_age`` seconds), else
        a computation started (or joined) and waited for ``wait`` seconds: its result, or the last
        one while it runs (None when there is none yet). A computation's error is raised to the
        caller that finds it ended so, once."""
        with self._lock:
            entry = self._entries.setdefault((path, kind), _Entry())
        marker = generation_marker(path)
        with entry.lock:
            old = max_age is not None and time.monotonic() - entry.made > max_age
            if entry.data is not None and entry.marker == marker and not old:
                return entry.data
            if entry.worker is None:
                entry.worker = threading.Thread(
                    target=self._compute, args=(entry, compute, marker), name=f"trawl-web-{kind}", daemon=True
                )
                entry.worker.start()
            worker = entry.worker
        worker.join(wait)
        with entry.lock:
            if entry.error is not None and entry.worker is None:
                error, entry.error = entry.error, None
                raise error
            return entry.data

    @staticmethod
    def _compute(entry: _Entry, compute: Callable[[], dict[str, Any]], marker: str) -> None:
        try:
            data = compute()
        except BaseException as exc:  # handed to the caller that finds it
            with entry.lock:
                entry.error, entry.worker = exc, None
            return
        with entry.lock:
            entry.data, entry.marker, entry.made, entry.worker = data, marker, time.monotonic(), None
