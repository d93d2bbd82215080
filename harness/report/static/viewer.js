// The report's hand viewer page (hand.html): loads the hands of hands/<match>.js and shows them with
// the table viewer component (table-viewer.js). URL: hand.html?match=<id>&hand=<n>[&seat=<k>][&q=<search>],
// or hand.html?bot=<name>: every kept hand of that bot's matches, searched with bot:<name>.
(function () {
  "use strict";
  var search = window.location.search;
  // Match ids join bot names with "+": read raw values (URLSearchParams turns "+" into a space).
  function raw(name) {
    var m = new RegExp("[?&]" + name + "=([^&]*)").exec(search);
    return m ? decodeURIComponent(m[1]) : null;
  }
  var index = JSON.parse(document.getElementById("hand-index").textContent);
  var matchId = raw("match"), bot = raw("bot"), handId = raw("hand"), seat = raw("seat"), query = raw("q");
  var wanted = matchId !== null ? [matchId] : Object.keys(index).filter(function (m) {
    return bot !== null && index[m].bots.indexOf(bot) >= 0;
  });
  function missing(text) {
    var p = document.getElementById("hand-missing");
    if (text) p.textContent = text;
    p.hidden = false;
  }
  if (!wanted.length || wanted.some(function (m) { return !index[m]; })) {
    missing(matchId === null && bot === null ? "Open a hand from a match page or a bot page." : undefined);
    return;
  }
  var loaded = 0;
  function done() {
    var hands = [];
    wanted.forEach(function (m) { hands = hands.concat((window.REPORT_HANDS || {})[m] || []); });
    var start = null;
    hands.forEach(function (h, i) { if (matchId !== null && String(h.hand_id) === handId) start = i; });
    if (matchId !== null && handId !== null && start === null) missing();
    if (!hands.length) { missing(); return; }
    var link = document.getElementById("match-link");
    document.getElementById("viewer").hidden = false;
    SevenDrawViewer.mount(document.getElementById("viewer"), {
      hands: hands, hand: start, seat: seat === null || seat === "" ? null : Number(seat),
      query: query !== null ? query : (bot !== null ? "bot:" + bot : ""),
      handHref: function (h) { return "hand.html?match=" + encodeURIComponent(h.match_id) + "&hand=" + h.hand_id; },
      onHand: function (h) {
        link.href = "matches/" + index[h.match_id].file + ".html";
        link.textContent = "match " + h.match_id;
      }
    });
  }
  wanted.forEach(function (m) {
    var script = document.createElement("script");
    script.src = "hands/" + index[m].file + ".js";
    script.onload = function () { loaded += 1; if (loaded === wanted.length) done(); };
    script.onerror = function () { missing(); };
    document.body.appendChild(script);
  });
})();
