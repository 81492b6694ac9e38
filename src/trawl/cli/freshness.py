"""``trawl freshness COLLECTION``: how up to date a crawled collection is, per host and overall."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table as RichTable

from trawl.cli.common import bounded, out_console, sentence
from trawl.store.collection import Collection

__all__ = ["HELP", "register", "run"]

HELP = (
    "report a crawled collection's freshness: each page's estimated change rate, the chance it is "
    "unchanged now, its expected age, and the next revisits"
)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "freshness",
        help=HELP,
        description=sentence(HELP) + ". Pages change as Poisson processes whose rates are "
        "estimated from what the crawl's visits saw (Cho & Garcia-Molina's estimator, with a "
        "sitemap's changefreq or the crawl's default as prior); freshness and age are given now "
        "(since each page's last fetch) and under its revisit schedule (crawls run with --revisit).",
    )
    p.add_argument("collection", type=Path, metavar="COLLECTION")
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object: now, overall, hosts (by host: pages, rate_per_day, fresh_now, "
        "age_now_seconds, scheduled, policy_freshness, policy_age_seconds), next (url, due, in_seconds)",
    )
    p.add_argument("--top", type=bounded(int, 1), default=10, metavar="N", help="next revisits listed (10)")
    p.add_argument(
        "--plot",
        type=Path,
        metavar="DIR",
        help="write freshness.png (needs matplotlib) and freshness.json to DIR",
    )
    p.set_defaults(func=run)


def _plot(report: Any, folder: Path) -> Path:
    import matplotlib  # noqa: PLC0415 - only on request

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    folder.mkdir(parents=True, exist_ok=True)
    hosts = sorted(report.by_host().items(), key=lambda kv: -kv[1]["pages"])[:20]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.hist([p.fresh_now for p in report.pages], bins=20, range=(0, 1), color="#4477aa")
    left.set_xlabel("probability a page is unchanged since its last fetch")
    left.set_ylabel("pages")
    left.set_title("freshness now")
    names = [h for h, _ in hosts]
    ages = [float(s["age_now_seconds"] or 0.0) for _, s in hosts]
    unit, size = next(
        (
            (u, n)
            for u, n in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0))
            if max(ages, default=0) >= n
        ),
        ("seconds", 1.0),
    )
    right.barh(names, [a / size for a in ages], color="#cc6677")
    right.invert_yaxis()
    right.set_xlabel(f"expected age now, {unit} (mean of the host's pages)")
    right.set_title("the busiest hosts")
    fig.tight_layout()
    out = folder / "freshness.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    (folder / "freshness.json").write_text(json.dumps(report.as_dict(), indent=1), encoding="utf-8")
    return out


def run(args: argparse.Namespace) -> int:
    from trawl.jobs.freshness import freshness  # noqa: PLC0415 - the command's own import

    with Collection.open(args.collection) as collection:
        report = freshness(collection)
    data = report.as_dict(top=args.top)
    plot = _plot(report, args.plot) if args.plot else None
    if args.json:
        if plot is not None:
            data["plot"] = str(plot)
        print(json.dumps(data, ensure_ascii=False))
        return 0
    out = out_console()

    def row(table: RichTable, name: str, s: dict[str, Any]) -> None:
        table.add_row(
            name,
            f"{s['pages']:,}",
            "-" if s["rate_per_day"] is None else f"{s['rate_per_day']:.3g}",
            "-" if s["fresh_now"] is None else f"{s['fresh_now']:.1%}",
            "-" if s["age_now_seconds"] is None else f"{s['age_now_seconds'] / 3600:.2f} h",
            "-" if s["policy_freshness"] is None else f"{s['policy_freshness']:.1%}",
            "-" if s["policy_age_seconds"] is None else f"{s['policy_age_seconds'] / 3600:.2f} h",
        )

    t = RichTable(title=f"freshness of {args.collection} at {data['now']}", header_style="bold")
    for col in ("", "pages", "changes/day", "fresh now", "age now", "fresh (schedule)", "age (schedule)"):
        t.add_column(col, justify="left" if not col else "right")
    row(t, "[bold]all[/]", data["overall"])
    for host, s in sorted(data["hosts"].items(), key=lambda kv: -kv[1]["pages"])[:20]:
        row(t, host, s)
    out.print(t)
    if data["next"]:
        nxt = RichTable(title="next revisits", header_style="bold")
        nxt.add_column("due")
        nxt.add_column("in", justify="right")
        nxt.add_column("url", overflow="fold")
        for item in data["next"]:
            nxt.add_row(item["due"], f"{item['in_seconds']:,.0f} s", item["url"])
        out.print(nxt)
    if plot is not None:
        out.print(f"plot: {plot}")
    return 0
