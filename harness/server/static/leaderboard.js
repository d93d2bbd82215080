// The leaderboard page: replaces the table's rows with each "leaderboard" event of /events (text only).
"use strict";
(function () {
  const body = document.querySelector("#board tbody");
  const fmt = (x) => (x === null || x === undefined) ? "–" : x.toFixed(2);
  function cell(text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; }
  const source = new EventSource("/events");
  source.addEventListener("leaderboard", (event) => {
    const rows = JSON.parse(event.data);
    body.replaceChildren(...rows.map((r, i) => {
      const tr = document.createElement("tr"); tr.dataset.bot = r.bot;
      tr.append(cell(String(i + 1)), cell(r.bot, "bot"));
      const st = cell("", "left");
      if (r.student) { const a = document.createElement("a"); a.href = "/students/" + encodeURIComponent(r.student); a.textContent = r.student; st.append(a); }
      tr.append(st, cell(String(r.hands), "hands"), cell(String(r.blocks)), cell(fmt(r.bb_per_100)),
                cell(r.ci95_low === null ? "–" : fmt(r.ci95_low) + " .. " + fmt(r.ci95_high)),
                cell(fmt(r.rating) + " ± " + fmt(r.rating_sigma)), cell(r.status, "left"));
      return tr;
    }));
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  });
})();
