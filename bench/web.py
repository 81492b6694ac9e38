"""``trawl serve``'s page render times on a collection of 100,000 documents (issue 36: p95 < 300 ms).

The side index of an empty collection is filled with synthetic rows (500 hosts, five languages,
three formats, 300 words of text each, in FTS5) and marked current, so the application serves
them without a rescan; then each page and JSON endpoint is requested through the whole ASGI stack
(Starlette's ``TestClient``: routing, middleware, SQLite, Jinja2) and timed.

    python bench/web.py                     # 100,000 documents, 30 requests per page
    python bench/web.py --docs 20000 --requests 50
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from trawl.store.collection import Collection
from trawl.web.app import create_app
from trawl.web.index import COLUMNS, DocIndex, generation_marker

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
]


def fill(path: Path, docs: int, seed: int = 1) -> None:
    rnd = random.Random(seed)
    index = DocIndex(path)
    names = ", ".join((*COLUMNS[:1], "row", *COLUMNS[1:], "sig"))
    with index.connect() as db:
        for i in range(docs):
            host = f"h{i % 500}.test"
            values = (
                f"{i:016x}",
                f"test,h{i % 500})/p{i}",
                f"http://{host}/p{i}",
                host,
                f"Title {rnd.choice(WORDS)} {i}",
                rnd.choice(["en", "de", "fr", "ja", ""]),
                rnd.choice(["text/html", "application/pdf", "text/plain"]),
                rnd.choice([200, 200, 200, 404, None]),
                f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00+00:00",
                rnd.randint(100, 100_000),
                f"http://h{i % 500}.test/p{i - i % 3}" if i % 10 == 0 else "",
                3 if i % 10 == 0 else 1,
                "synthetic",
            )
            cur = db.execute(f"INSERT INTO docs({names}) VALUES ({', '.join('?' * len(values))})", values)
            db.execute(
                "INSERT INTO fts(rowid, title, body) VALUES (?, ?, ?)",
                (cur.lastrowid, values[4], " ".join(rnd.choices(WORDS, k=300))),
            )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('marker', ?)", (generation_marker(path),))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=30, help="requests per page")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c"
        Collection.create(path).close()
        t0 = time.perf_counter()
        fill(path, args.docs)
        print(f"index of {args.docs:,} documents filled in {time.perf_counter() - t0:.1f} s")
        pages = [
            "/",
            "/c/c/",
            "/api/c/c",
            "/c/c/docs",
            "/c/c/docs?page=1000",
            "/c/c/docs?host=h7.test",
            "/c/c/docs?lang=de&format=application/pdf",
            "/c/c/docs?from=2026-03-01&to=2026-03-31",
            "/c/c/docs?dup=any",
            "/c/c/docs?q=alpha+beta",
            "/api/c/c/docs?q=alpha+beta",
            "/c/c/docs?q=Title+4242",
        ]
        worst = 0.0
        with TestClient(create_app([path], refresh=False)) as client:
            print(f"{'page':45} {'p50 ms':>8} {'p95 ms':>8}")
            for url in pages:
                times = []
                for _ in range(args.requests):
                    t = time.perf_counter()
                    r = client.get(url)
                    times.append(time.perf_counter() - t)
                    assert r.status_code == 200, (url, r.status_code)
                times.sort()
                p95 = times[max(0, int(len(times) * 0.95) - 1)]
                worst = max(worst, p95)
                print(f"{url:45} {statistics.median(times) * 1000:8.1f} {p95 * 1000:8.1f}")
        print(f"worst p95: {worst * 1000:.1f} ms ({'within' if worst < 0.3 else 'over'} the 300 ms target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
