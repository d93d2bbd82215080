// The admin page: fills in the ladder's job-slot seconds from /admin/slots, now and every few seconds (the ladder
// rewrites them every 2 s; kept out of the page itself so that the page keeps its ETag while the ladder plays).
"use strict";
(function () {
  const PERIOD_MS = 5000;
  const show = (id, text) => { document.getElementById(id).textContent = text; };
  async function refresh() {
    try {
      const answer = await fetch("/admin/slots", { credentials: "same-origin" });
      if (!answer.ok) return;
      const slots = await answer.json();
      const pct = slots.available_s ? 100 * slots.busy_s / slots.available_s : 0;
      show("busy-pct", pct.toFixed(1));
      show("busy-slot-s", slots.busy_s.toFixed(1));
      show("slot-s", slots.available_s.toFixed(1));
    } catch (e) { /* the server is restarting: asked again at the next period */ }
  }
  refresh();
  setInterval(refresh, PERIOD_MS);
})();
