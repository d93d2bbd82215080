// The leaderboard page: replaces both tables' rows with each "leaderboard" event of /events (text only).
"use strict";
(function () {
  const body = document.querySelector("#board tbody");
  const waiting = document.querySelector("#unranked tbody");
  const fmt = (x) => (x === null || x === undefined) ? "–" : x.toFixed(2);
  // the order of app.fault_text: put out first, the protocol's faults, slow last
  const ORDER = ["out", "timeout", "crash", "failed_start", "disconnected", "malformed", "illegal", "oversized", "slow"];
  function faults(f) {
    const rank = (k) => { const i = ORDER.indexOf(k); return i < 0 ? 50 : i; };
    const shown = Object.entries(f || {}).filter(([, n]) => n)
      .sort((a, b) => rank(a[0]) - rank(b[0]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([k, n]) => k + " " + n);
    return shown.length ? shown.join(" · ") : "–";
  }
  function cell(text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; }
  function student(r) {
    const st = cell("", "left");
    if (r.student) { const a = document.createElement("a"); a.href = "/students/" + encodeURIComponent(r.student); a.textContent = r.student; st.append(a); }
    return st;
  }
  const status = (r) => r.status + (r.paused ? " (paused)" : "");
  const place = (k) => (k === null || k === undefined) ? "–" : String(k);
  const source = new EventSource("/events");
  source.addEventListener("leaderboard", (event) => {
    const rows = JSON.parse(event.data);
    const shown = rows.filter((r) => r.blocks || r.status === "inactive");
    body.replaceChildren(...shown.map((r) => {
      const tr = document.createElement("tr"); tr.dataset.bot = r.bot;
      tr.append(cell(place(r.rank), "rank"), cell(r.bot, "bot"), student(r), cell(String(r.hands), "hands"),
                cell(String(r.blocks)), cell(fmt(r.rating) + " ± " + fmt(r.rating_sigma), "rating"), cell(fmt(r.bb_per_100)),
                cell(r.ci95_low === null ? "–" : fmt(r.ci95_low) + " .. " + fmt(r.ci95_high)),
                cell(place(r.bb_rank), "bb-rank"), cell(status(r), "left"), cell(faults(r.faults), "left faults"));
      return tr;
    }));
    waiting.replaceChildren(...rows.filter((r) => !r.blocks && r.status !== "inactive").map((r) => {
      const tr = document.createElement("tr"); tr.dataset.bot = r.bot;
      tr.append(cell(r.bot, "bot"), student(r), cell(status(r), "left"));
      return tr;
    }));
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  });
})();
