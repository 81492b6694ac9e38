"""``trawl crawl --workers N``: one crawl as N shards (processes, or Ray actors), hosts owned by
consistent hashing, URLs routed through the coordinator, pages budgeted by leases.

Each shard ``i`` crawls into a partition of the collection (``COLLECTION/partitions/crawl-i-of-N/``,
a whole collection: its frontier, WARC files named ``<prefix>-crawl-i-of-N-…``, its table), which
the collection reads as part of itself (:class:`~trawl.store.union.UnionTable`), so ``trawl
show``, ``get``, ``serve`` and ``dedup`` see one collection, during the crawl and after. A host
belongs to the shard the :class:`~trawl.crawl.urlnorm.HashRing` gives it, so one process keeps
its politeness; a URL a shard finds for a host it does not own goes to the coordinator, which
hands it to the owner (and the owner admits it like any link: scope, traps, seen set).

The coordinator (the command's process) talks to every shard the same way, whatever runs it: a
:class:`ShardHost` runs the shard's crawl in a thread and answers :meth:`ShardHost.exchange`
calls, locally over a pipe of its own process (``python -m trawl.jobs.crawl_cluster``), or as a
Ray actor's method. Every exchange carries the URLs for the shard and brings back those it found
for others, its counters, whether it is idle, and its request for more pages.

* **Pages** (``--max-pages``, never passed): the coordinator grants pages in leases of
  :data:`LEASE` at most; a shard reserves a page from its lease before fetching it (as a single
  crawl reserves against ``max_pages``), asks for more when it runs low, and waits meanwhile.
* **The end**: a shard is idle when nothing is queued, due or in flight. The crawl ends when every
  shard was idle in two rounds of exchanges in a row with no URL in transit between them (every URL
  sent was delivered and each shard's count of URLs received is unchanged): then each is told to
  finish, and its crawl ends as a single one does. Any other stop (``--max-time``, Ctrl-C, the
  monitor's stop, a full disk) stops every shard; ``--resume`` continues each one.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from trawl.crawl.crawler import CrawlResult, CrawlSettings
from trawl.errors import ConfigError
from trawl.jobs.executors import RayExecutor
from trawl.pipeline.stats import Stats
from trawl.store.collection import Collection

__all__ = [
    "LEASE",
    "ClusterResult",
    "LinkRouter",
    "PageBudget",
    "ShardHost",
    "crawl_cluster",
    "partition_name",
]

#: pages granted to a shard at a time (at most; never more than are left under --max-pages); a
#: shard asks for the next lease when half of this one is left, so it never waits for pages
LEASE = 100
#: seconds between two rounds of exchanges with the shards
ROUND = 0.05
#: URLs found for a shard after it ended, kept in its partition's frontier folder for its next run
KEPT = "cluster-kept.jsonl"
#: rounds in a row every shard must be idle, with nothing in transit, before the crawl ends
QUIET_ROUNDS = 2


def partition_name(i: int, n: int) -> str:
    return f"crawl-{i}-of-{n}"


class LinkRouter:
    """The router of one shard's crawler (see :mod:`trawl.crawl.route`): URLs for other shards
    kept until the coordinator takes them, URLs from them kept until the crawler takes them; the
    crawl goes on waiting while idle until the coordinator says it is finished."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._out: list[tuple[int, str, int, float, str]] = []
        self._in: deque[tuple[str, int, float, str]] = deque()
        self.received = 0  # URLs the crawler took from other shards (the coordinator's count check)
        self.finished = threading.Event()
        self.idle = False

    # the crawler's side
    def send(self, owner: int, url: str, depth: int, priority: float, anchor: str) -> None:
        with self._lock:
            self._out.append((owner, url, depth, priority, anchor))

    def receive(self) -> list[tuple[str, int, float, str]]:
        with self._lock:
            items = list(self._in)
            self._in.clear()
            self.received += len(items)
        return items

    def flush(self) -> None:
        """Nothing to flush: the coordinator takes what is waiting at its next exchange."""

    def close(self) -> None:
        self.finished.set()

    def done(self, idle: bool) -> bool:
        """The crawler tells whether it is idle; it may end once the coordinator says so."""
        self.idle = idle
        return self.finished.is_set()

    # the coordinator's side (through ShardHost.exchange)
    def take(self) -> list[tuple[int, str, int, float, str]]:
        with self._lock:
            out, self._out = self._out, []
        return out

    def deliver(self, items: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            self._in.extend((str(u), int(d), float(p), str(a)) for u, d, p, a in items)

    def quiet(self) -> bool:
        with self._lock:
            return not self._in and not self._out


@dataclass(slots=True)
class PageBudget:
    """A shard's lease of pages under the crawl's ``--max-pages``: it may reserve pages while
    ``reserved < limit``; ``final`` once the coordinator has no more to give. A shard that runs
    out of work gives back what it did not use (:meth:`release`), for shards that have work."""

    limit: int = 0
    final: bool = False
    wanted: bool = False
    returned: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def grant(self, pages: int, final: bool) -> None:
        with self.lock:
            self.limit += pages
            self.final = self.final or final
            self.wanted = False

    def release(self, used: int) -> None:
        """Called by the crawler, idle (nothing in flight): pages above ``used`` go back."""
        with self.lock:
            if self.limit > used:
                self.returned += self.limit - used
                self.limit = used

    def take_returned(self) -> int:
        with self.lock:
            n, self.returned = self.returned, 0
        return n


@dataclass(slots=True)
class ShardSpec:
    collection: str
    index: int
    shards: int
    settings: dict[str, Any]
    seeds: list[str]
    resume: bool = False
    fresh: bool = False

    def partition(self) -> Path:
        return Path(self.collection) / "partitions" / partition_name(self.index, self.shards)


def _append(src: Path, dst: Path) -> None:
    with src.open("rb") as f, dst.open("ab") as out:
        out.write(f.read())
    src.unlink()


class ShardHost:
    """One shard: its crawl in a thread, steered by the coordinator's exchanges."""

    def __init__(self, spec: str) -> None:
        self.spec = ShardSpec(**json.loads(spec))
        pid = self.spec.partition() / "frontier" / "shard.pid"  # where it runs, for people and tests
        pid.parent.mkdir(parents=True, exist_ok=True)
        pid.write_text(f"{os.getpid()}\n", encoding="utf-8")
        self.router = LinkRouter()
        self.budget: PageBudget | None = PageBudget() if self.spec.settings.get("max_pages") else None
        self.crawler: Any = None
        self.result: CrawlResult | None = None
        self.error = ""
        self._thread = threading.Thread(target=self._run, name=f"trawl-shard-{self.spec.index}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from trawl.jobs.crawl import crawl  # noqa: PLC0415 - the whole crawler, only in a shard

        spec = self.spec
        data = dict(spec.settings)
        # URLs from other shards taken as often as the coordinator brings them
        data.update(shard=spec.index, shards=spec.shards, partition="ring", route_interval=ROUND)
        settings = CrawlSettings.from_dict(data)
        kept = spec.partition() / "frontier" / KEPT
        taken = kept.with_suffix(".taken")
        if kept.exists():  # what other shards found for this one after it ended last time
            kept.replace(taken) if not taken.exists() else _append(kept, taken)
        if taken.exists():
            with taken.open(encoding="utf-8") as f:
                self.router.deliver([json.loads(line) for line in f if line.strip()])
        try:
            with Collection.open(spec.partition()) as part:
                self.result = crawl(
                    spec.seeds,
                    part,
                    settings,
                    resume=spec.resume,
                    fresh=spec.fresh,
                    router=self.router,
                    budget=self.budget,
                    on_crawler=self._hold_crawler,
                )
        except BaseException as exc:  # said to the coordinator, which stops the others
            self.error = f"{type(exc).__name__}: {exc}"
        else:  # admitted into the frontier (or seen): no longer needed
            taken.unlink(missing_ok=True)
        finally:
            self.router.finished.set()

    def _hold_crawler(self, crawler: Any) -> None:
        self.crawler = crawler

    def exchange(
        self, deliver: list[Any], grant: int = 0, final: bool = False, finish: bool = False
    ) -> dict[str, Any]:
        """Hand the shard its URLs and pages; take what it found for others and its state."""
        self.router.deliver(deliver)
        if self.budget is not None and (grant or final):
            self.budget.grant(grant, final)
        if finish:
            self.router.finished.set()
        crawler = self.crawler
        done = not self._thread.is_alive()
        answer: dict[str, Any] = {
            "routed": self.router.take(),
            "received": self.router.received,
            "idle": bool(self.router.idle and self.router.quiet()),
            "ready": crawler is not None,
            "total": int(getattr(crawler, "pages_total", 0)),
            "pages": int(getattr(crawler, "pages_run", 0)),
            "bytes": int(getattr(crawler, "bytes_run", 0)),
            "queued": int(getattr(getattr(crawler, "frontier", None), "queued", 0)),
            "want": self._wants(crawler),
            "returned": self.budget.take_returned() if self.budget is not None else 0,
            "done": done,
            "error": self.error,
        }
        if done and self.result is not None:
            r = self.result
            answer["result"] = {
                "run": r.run,
                "stopped": r.stopped,
                "pages": r.pages,
                "seconds": r.seconds,
                "counters": dict(r.stats.counters),
                "failure": r.failure,
            }
        return answer

    def _wants(self, crawler: Any) -> bool:
        """Whether to ask for pages: out of them with URLs queued, or, with URLs queued, half way
        through the lease (so the next one comes before this one is used up)."""
        budget = self.budget
        if budget is None or budget.final or crawler is None:
            return False
        if budget.wanted:
            return True
        left = budget.limit - (int(crawler.pages_total) + int(getattr(crawler, "_fetching", 0)))
        return bool(crawler.frontier.queued) and left <= LEASE // 2

    def stop(self, reason: str) -> None:
        if self.crawler is not None:
            self.crawler.request_stop(reason)
        self.router.finished.set()


# -- handles: the coordinator's side of a shard, in a process of its own or a Ray actor ------------


def _ended(error: str) -> dict[str, Any]:
    """The answer of a shard that can no longer answer (its process or actor is gone)."""
    return {
        "routed": [],
        "received": 0,
        "idle": True,
        "pages": 0,
        "bytes": 0,
        "queued": 0,
        "want": False,
        "done": True,
        "error": error,
    }


class LocalShard:
    """A shard in a process of its own (``python -m trawl.jobs.crawl_cluster``), over a pipe."""

    def __init__(self, spec: ShardSpec, listener: Listener, authkey: bytes) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        env["TRAWL_SHARD_ADDRESS"] = json.dumps(list(listener.address))
        env["TRAWL_SHARD_KEY"] = authkey.hex()
        env["TRAWL_SHARD_PARENT"] = str(os.getpid())
        log = spec.partition() / "frontier" / "shard.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "trawl.jobs.crawl_cluster", json.dumps(asdict(spec))],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        self.log = log
        self.conn: Connection = listener.accept()

    def exchange(self, **kwargs: Any) -> dict[str, Any]:
        try:
            self.conn.send(("exchange", kwargs))
            answer: dict[str, Any] = self.conn.recv()
        except (EOFError, OSError):
            tail = self.log.read_bytes()[-1500:].decode("utf-8", "replace") if self.log.exists() else ""
            return _ended(f"the shard's process ended: {tail.strip()}")
        return answer

    def stop(self, reason: str) -> None:
        with contextlib.suppress(OSError, EOFError):
            self.conn.send(("stop", reason))
            self.conn.recv()

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError):
            self.conn.send(("close", None))
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.conn.close()


class RayShard:
    """A shard as a Ray actor (the same :class:`ShardHost`)."""

    def __init__(self, spec: ShardSpec, ray: Any) -> None:
        self.ray = ray
        actor = ray.remote(num_cpus=1, max_restarts=0)(ShardHost)
        self.actor = actor.remote(json.dumps(asdict(spec)))

    def exchange(self, **kwargs: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = self.ray.get(self.actor.exchange.remote(**kwargs))
        except Exception as exc:  # the actor died
            return _ended(f"the shard's actor ended: {exc}")
        return answer

    def stop(self, reason: str) -> None:
        with contextlib.suppress(Exception):
            self.ray.get(self.actor.stop.remote(reason))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ray.kill(self.actor)


def serve_shard(spec: str) -> int:
    """A local shard's process: a :class:`ShardHost` answering its coordinator over a pipe."""
    from trawl.subproc import die_with_parent  # noqa: PLC0415

    parent = os.environ.get("TRAWL_SHARD_PARENT", "")
    if parent.isdigit():
        die_with_parent(int(parent))
    address = tuple(json.loads(os.environ["TRAWL_SHARD_ADDRESS"]))
    conn = Client(address, authkey=bytes.fromhex(os.environ["TRAWL_SHARD_KEY"]))
    host = ShardHost(spec)
    while True:
        try:
            what, arg = conn.recv()
        except (EOFError, OSError):
            host.stop("coordinator-gone")
            return 1
        if what == "exchange":
            conn.send(host.exchange(**arg))
        elif what == "stop":
            host.stop(str(arg))
            conn.send(True)
        elif what == "close":
            host._thread.join(timeout=60)
            return 0


@dataclass(slots=True)
class ClusterResult:
    run: str
    stats: Stats
    seconds: float
    pages: int
    stopped: str
    shards: list[dict[str, Any]] = field(default_factory=list)
    failure: str = ""


def crawl_cluster(
    seeds: Sequence[str],
    collection: Collection,
    settings: CrawlSettings,
    workers: int,
    *,
    executor: str = "local",
    address: str | None = None,
    resume: bool = False,
    fresh: bool = False,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    stop: threading.Event | None = None,
) -> ClusterResult:
    """Crawl from ``seeds`` into ``collection`` as ``workers`` shards (see the module docstring)."""
    if workers < 2:
        raise ConfigError("a crawl in shards needs --workers 2 or more (one is the plain crawl)")
    if settings.shards > 1:
        raise ConfigError("--shard I/N and --workers N are two ways to split a crawl: give one")
    t0 = time.perf_counter()
    run, ctx = collection.new_run()
    ctx.audit.close()
    config = collection.path / "trawl.toml"
    prefix = collection.config.warc.prefix
    specs = []
    for i in range(workers):
        spec = ShardSpec(
            str(collection.path.resolve()), i, workers, settings.as_dict(), list(seeds), resume, fresh
        )
        name = partition_name(i, workers)
        Collection.create(
            spec.partition(), config_file=config, overrides=[f"warc.prefix={prefix}-{name}"]
        ).close()
        specs.append(spec)
    others = [
        p
        for p in (collection.path / "partitions").glob("crawl-*-of-*")
        if p.name not in {partition_name(i, workers) for i in range(workers)}
    ]
    if others and resume:
        raise ConfigError(
            f"this collection was crawled by another number of shards ({others[0].name}): "
            "resume it with that many --workers"
        )
    if executor not in ("local", "ray"):
        raise ConfigError(f"no executor {executor!r}: use local or ray")

    def keep(i: int, items: list[Any]) -> None:
        path = specs[i].partition() / "frontier" / KEPT
        with path.open("a", encoding="utf-8") as f:
            f.writelines(json.dumps(list(item)) + "\n" for item in items)

    handles: list[Any] = []
    listener: Listener | None = None
    # Ray, started (or joined) as the task executor does; a local run needs no session
    engine = RayExecutor(workers, address=address) if executor == "ray" else None
    with engine.session() if engine is not None else contextlib.nullcontext():
        try:
            if engine is not None:
                handles = [RayShard(s, engine.ray()) for s in specs]
            else:
                authkey = secrets.token_bytes(32)
                listener = Listener(("127.0.0.1", 0), authkey=authkey)
                handles = [LocalShard(s, listener, authkey) for s in specs]
            shards, stopped = _coordinate(
                handles, settings, ctx.stats, keep=keep, on_progress=on_progress, stop=stop
            )
        finally:
            for h in handles:
                h.close()
            if listener is not None:
                listener.close()
    ctx.stats.finished = time.time()
    collection.save_run(run, ctx.stats)
    pages = sum(s["pages"] for s in shards)
    failure = next((s["error"] for s in shards if s["error"]), "")
    return ClusterResult(run, ctx.stats, time.perf_counter() - t0, pages, stopped, shards, failure)


@dataclass(slots=True)
class _Round:
    """The coordinator's view of the shards between two rounds of exchanges."""

    n: int
    max_pages: int | None
    pending: list[list[Any]] = field(default_factory=list)
    delivered: list[int] = field(default_factory=list)
    grants: list[int] = field(default_factory=list)
    finals: list[bool] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    left: int | None = None  # pages not granted yet (None: no --max-pages)
    quiet: int = 0
    finishing: bool = False
    stopping: str = ""

    def __post_init__(self) -> None:
        self.pending = [[] for _ in range(self.n)]
        self.delivered = [0] * self.n
        self.grants = [0] * self.n
        self.finals = [False] * self.n
        self.answers = [{} for _ in range(self.n)]

    def lease(self, i: int) -> None:
        """Grant shard ``i`` pages: at most :data:`LEASE`, and at most its share of what is left
        (a shard that runs out of work gives its pages back)."""
        if self.left is None:
            self.grants[i] = LEASE
            return
        share = max(1, min(LEASE, -(-self.left // self.n)))
        self.grants[i] = min(share, self.left)
        self.left -= self.grants[i]
        self.finals[i] = self.left == 0


def _coordinate(
    handles: list[Any],
    settings: CrawlSettings,
    stats: Stats,
    *,
    keep: Callable[[int, list[Any]], None],
    on_progress: Callable[[dict[str, Any]], None] | None,
    stop: threading.Event | None,
) -> tuple[list[dict[str, Any]], str]:
    """Rounds of exchanges until every shard has ended; each shard's end, and why it stopped.
    URLs for a shard that has ended go to ``keep`` (its next run takes them)."""
    r = _Round(len(handles), settings.max_pages)
    first = True
    while True:
        if stop is not None and stop.is_set() and not r.stopping:
            r.stopping = "interrupted"
            for h in handles:
                h.stop("interrupted")
        routed_now = 0
        for i, h in enumerate(handles):
            give, r.pending[i] = r.pending[i], []
            r.delivered[i] += len(give)
            a = h.exchange(deliver=give, grant=r.grants[i], final=r.finals[i], finish=r.finishing)
            r.grants[i] = 0
            r.answers[i] = a
            for owner, url, depth, priority, anchor in a["routed"]:
                r.pending[int(owner)].append((url, depth, priority, anchor))
                routed_now += 1
            stats.inc("cluster/routed", len(a["routed"]))
            if a["error"] and not r.stopping:
                r.stopping = f"shard-failed: shard {i}: {a['error']}"
                for other in handles:
                    other.stop("shard-failed")
        for a in r.answers:  # leases idle shards gave back
            if r.left is not None and a.get("returned"):
                r.left += int(a["returned"])
                stats.inc("cluster/pages-returned", int(a["returned"]))
        if first and r.max_pages is not None and all(a.get("ready") or a["done"] for a in r.answers):
            # every shard's crawler is up: what they fetched before counts (a resume)
            r.left = max(0, r.max_pages - sum(int(a.get("total", 0)) for a in r.answers))
            first = False
        for i, a in enumerate(r.answers):
            if r.max_pages is not None and r.left is None:
                break  # no lease before every shard has said what it has
            if a.get("want") and not r.finals[i] and not a["done"]:
                r.lease(i)
            elif a.get("want") and r.left == 0:
                r.finals[i] = True
        if all(a["done"] for a in r.answers):
            break
        for i, a in enumerate(r.answers):  # a shard that ended takes no more: kept for its resume
            if a["done"] and r.pending[i]:
                keep(i, r.pending[i])
                stats.inc("cluster/kept-for-resume", len(r.pending[i]))
                r.pending[i] = []
        in_transit = (
            any(r.pending)
            or routed_now
            or any(int(a.get("received", 0)) < r.delivered[i] for i, a in enumerate(r.answers))
        )
        if all(a["idle"] or a["done"] for a in r.answers) and not in_transit:
            r.quiet += 1
            r.finishing = r.finishing or r.quiet >= QUIET_ROUNDS
        else:
            r.quiet = 0
        if on_progress is not None:
            on_progress(
                {
                    "pages": sum(int(a["pages"]) for a in r.answers),
                    "bytes": sum(int(a["bytes"]) for a in r.answers),
                    "queued": sum(int(a["queued"]) for a in r.answers),
                    "shards": [
                        {"pages": a["pages"], "idle": a["idle"], "done": a["done"]} for a in r.answers
                    ],
                }
            )
        time.sleep(ROUND)
    shards = []
    for i, a in enumerate(r.answers):
        res = a.get("result") or {}
        shards.append(
            {
                "shard": i,
                "stopped": res.get("stopped", "failed"),
                "pages": int(res.get("pages", 0)),
                "run": res.get("run", ""),
                "error": a["error"],
            }
        )
        for k, v in (res.get("counters") or {}).items():
            stats.inc(k, int(v))
    reasons = sorted({s["stopped"] for s in shards} - {"done"})  # a limit is why the crawl ended
    return shards, r.stopping or ",".join(reasons) or "done"


if __name__ == "__main__":
    sys.exit(serve_shard(sys.argv[1]))
