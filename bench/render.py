"""Pages only scripts show: what rendering finds and what Chromium costs a page.

Crawls the test web's ``script.test`` (navigation and text built by a script from JSON) and
``--hosts`` ordinary hosts (plain HTML, no scripts) into a collection, every stage on, with
``--render never``, ``auto`` and ``always``, and reports pages found, pages rendered, the wall
time of a render (Chromium's cost per page), the crawl's pages a second, the CPU a page of the whole
command (trawl, its store workers, Playwright's driver and Chromium: all its descendants) and the
browser's largest memory (proportional set size of all its processes).

    python bench/render.py                  # 1 ordinary host of 40 pages, ~1 minute
    python bench/render.py --hosts 4 --pages 60
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.crawl.render import find_browser
from trawl.testweb import ServerThread, TestWeb


def crawl(
    server: ServerThread, mode: str, seeds: list[str], hosts: tuple[str, ...], out: Path
) -> dict[str, float]:
    """``trawl crawl`` as a user runs it (every stage on, the collection written), timed."""
    cmd = [sys.executable, "-m", "trawl.cli.main", "crawl", *seeds, "-o", str(out), "--render", mode,
           "--delay", "0", "--json", *(f"--host={h}" for h in hosts),
           *(f"--resolve={r}" for r in server.resolve_rules())]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    st = report["counters"]
    pages = report["pages"]
    rendered = st.get("render/pages", 0)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)  # trawl's, not Chromium's
    return {
        "pages": pages,
        "rendered": rendered,
        "ms_per_render": st.get("render/ms", 0) / rendered if rendered else 0.0,
        "pages_per_s": pages / wall,
        "cpu_ms_per_page": 1000 * cpu / max(pages, 1),
        "browser_mib": st.get("render/browser-peak-mib", 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1, help="ordinary hosts beside script.test")
    ap.add_argument("--pages", type=int, default=40, help="pages of each ordinary host")
    args = ap.parse_args()
    if find_browser() is None:
        sys.exit("bench/render.py needs Chromium (Debian's chromium package) and Playwright (trawl[render])")
    web = TestWeb(1, hosts=args.hosts, pages=args.pages)
    names = (*(f"h{i}.test" for i in range(args.hosts)), "script.test")
    seeds = [f"http://{h}/" for h in names]
    rows = []
    with ServerThread(web) as server, tempfile.TemporaryDirectory() as tmp:
        for mode in ("never", "auto", "always"):
            row = crawl(server, mode, seeds, names, Path(tmp) / mode)
            rows.append((mode, row))
            print(f"  {mode} done", file=sys.stderr, flush=True)
    print(f"script.test ({web.SCRIPT_PAGES + 1} pages a script builds) and {args.hosts} ordinary host(s) of "
          f"{args.pages} pages, every stage on\n")  # fmt: skip
    print("| --render | pages found | rendered | ms a render | pages/s | CPU ms/page | browser MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, r in rows:
        print(f"| {mode} | {r['pages']:.0f} | {r['rendered']:.0f} | {r['ms_per_render']:.0f} | "
              f"{r['pages_per_s']:.1f} | {r['cpu_ms_per_page']:.1f} | {r['browser_mib']:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
