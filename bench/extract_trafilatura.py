"""Benchmark: main content on trafilatura's own evaluation set, trawl against trafilatura.

    python bench/extract_trafilatura.py                    # trawl and trafilatura, all 990 pages
    python bench/extract_trafilatura.py --only trawl --failures 30

The set (``../shared/data/extraction/trafilatura-eval``, see its README) annotates each page
with ``with`` snippets (main text that must appear) and ``without`` snippets (menus, teasers,
comment forms that must not); the metric is upstream's (its ``score.py``: whitespace-normalised
substring tests summed over all pages, then precision, recall, F1). A page is decoded as
``trawl ingest`` decodes it (``decode_html``) and given to each extractor as text. It is a second
annotation convention beside WCXB's full-text truth (``bench/extract.py``): the extractor was
fitted on neither, and what it gets wrong here is what readers' comments, teasers and share bars
look like to it. ``--failures N`` prints the ``without`` snippets trawl kept most often.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trawl.decode.charset import decode_html
from trawl.extract import extract

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction" / "trafilatura-eval"


def scorer() -> ModuleType:
    """Upstream's metric, from the set's own ``score.py``."""
    spec = importlib.util.spec_from_file_location("trafilatura_eval_score", DATA / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(root: Path = DATA) -> list[tuple[dict[str, Any], str]]:
    """Each page's truth and its decoded markup."""
    out = []
    for line in (root / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        page = json.loads(line)
        raw = gzip.decompress((root / "html" / f"{page['id']}.html.gz").read_bytes())
        out.append((page, decode_html(raw).text))
    return out


def trawl_extractor(markup: str, url: str) -> str:
    return extract(markup, url or None, metadata=False).text


def trafilatura_extractor() -> Callable[[str, str], str]:
    import trafilatura  # noqa: PLC0415 -- a bench peer

    def run(markup: str, url: str) -> str:
        return trafilatura.extract(markup, url=url or None) or ""

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=["trawl", "trafilatura"])
    ap.add_argument("--failures", type=int, default=0, help="print the N without-snippets trawl kept most")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"data not found: {DATA} (../shared/data is not checked out)")
    score = scorer()
    pages = load()
    tools: dict[str, Callable[[str, str], str]] = {}
    if "trawl" in args.only:
        tools["trawl"] = trawl_extractor
    if "trafilatura" in args.only:
        tools["trafilatura"] = trafilatura_extractor()
    print(f"# {len(pages)} pages\n")
    print("| extractor | precision | recall | F1 | pages/s |")
    print("|---|---:|---:|---:|---:|")
    kept: dict[str, int] = {}
    for name, run in tools.items():
        totals = [0, 0, 0, 0]
        t0 = time.perf_counter()
        texts = []
        for page, markup in pages:
            try:
                texts.append(run(markup, page.get("url") or ""))
            except Exception:  # a peer's crash is a failed page, as upstream counts it
                texts.append("")
        seconds = time.perf_counter() - t0
        for (page, _), text in zip(pages, texts, strict=True):
            for k, v in enumerate(score.count_page(page, text)):
                totals[k] += v
            if name == "trawl":
                t = score.norm(text)
                for s in page["without"]:
                    if score.norm(s) in t:
                        kept[s[:100]] = kept.get(s[:100], 0) + 1
        p, r, _, f1 = score.scores(*totals)
        print(f"| {name} | {p:.3f} | {r:.3f} | {f1:.3f} | {len(pages) / seconds:.0f} |")
    if args.failures and kept:
        print(f"\n## without-snippets trawl kept ({sum(kept.values())} in all), first {args.failures}\n")
        for s, _ in sorted(kept.items(), key=lambda kv: -kv[1])[: args.failures]:
            print(f"  {s!r}")


if __name__ == "__main__":
    main()
