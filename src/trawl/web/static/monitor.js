// trawl serve's crawl monitor: follows /api/c/<name>/crawl/events (server-sent events) and
// redraws the counters, the pages/s sparkline, the hosts and the recent fetches. The page
// works without it (a snapshot; reload for a new one).
(() => {
  const root = document.getElementById("monitor");
  if (!root || typeof EventSource === "undefined") return;
  const byId = (id) => document.getElementById(id);
  const num = (n) => Number(n || 0).toLocaleString("en");
  const size = (n) => {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let v = Number(n || 0);
    let u = 0;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; u += 1; }
    return `${v.toFixed(u ? 1 : 0)} ${units[u]}`;
  };
  const text = (id, value) => { const el = byId(id); if (el) el.textContent = value; };
  const rows = (id, cells, words = 1) => {
    const body = byId(id);
    if (!body) return;
    body.replaceChildren(...cells.map((row) => {
      const tr = document.createElement("tr");
      row.forEach((value, i) => {
        const td = document.createElement("td");
        if (i >= words) td.className = "num";
        td.textContent = String(value);
        tr.append(td);
      });
      return tr;
    }));
  };
  const spark = (series) => {
    const line = document.querySelector("#m-spark polyline");
    if (!line || !series || series.length < 2) return;
    const rates = series.map((s) => Number(s[1]));
    const top = Math.max(...rates) || 1;
    const step = 240 / (rates.length - 1);
    line.setAttribute("points", rates.map((r, i) => `${(i * step).toFixed(1)},${(40 - (r / top) * 40).toFixed(1)}`).join(" "));
  };
  const draw = (s) => {
    text("m-state", s.stopped ? `${s.state} (${s.stopped})` : s.state);
    text("m-pages", num(s.pages));
    text("m-requests", num(s.requests));
    text("m-bytes", size(s.bytes));
    text("m-pages-per-s", String(s.pages_per_s || 0));
    text("m-bytes-per-s", size(s.bytes_per_s));
    const f = s.frontier || {};
    text("m-queued", num(f.queued));
    text("m-in-flight", num(f.in_flight));
    const h = s.hosts || {};
    text("m-hosts", `${h.active || 0} / ${h.waiting || 0}`);
    spark(s.series);
    rows("m-status", Object.entries(s.status_classes || {}));
    rows("m-errors", Object.entries(s.errors || {}));
    rows("m-robots", Object.entries(s.robots || {}));
    rows("m-host-rows", (h.top || []).map((x) => [
      x.given_up ? `${x.host} (given up)` : x.host, x.queued, x.busy, x.fetched, x.errors, x.delay, x.next_in,
    ]));
    rows("m-recent", (s.recent || []).map((r) => [r.url, r.status || "error", r.bytes, r.ms]));
    const shards = s.shards || [];
    const section = byId("m-shards-section");
    if (section) section.hidden = shards.length < 2;
    rows("m-shards", shards.map((x) => [
      x.name, x.stopped ? `${x.state} (${x.stopped})` : x.state, num(x.pages), x.pages_per_s, num(x.queued),
    ]), 2);
  };
  const events = new EventSource(root.dataset.events);
  events.addEventListener("state", (event) => {
    const s = JSON.parse(event.data);
    draw(s);
    if (["finished", "gone", "none"].includes(s.state)) events.close();
  });
})();
