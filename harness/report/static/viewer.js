// Hand viewer: steps through one hand of hands/<match>.js (hand views written by harness/report/hands.py).
// URL: hand.html?match=<match id>&hand=<hand id>. Only renders data; the numbers come from the hand record.
(function () {
  "use strict";
  var params = new URLSearchParams(window.location.search);
  // Match ids join bot names with "+": read the raw value (URLSearchParams turns "+" into a space).
  var raw = /[?&]match=([^&]*)/.exec(window.location.search);
  var matchId = raw ? decodeURIComponent(raw[1]) : "";
  var handId = Number(params.get("hand") || "0");
  var safe = matchId.replace(/[^A-Za-z0-9_.+~-]/g, "_");
  var NAMES = {ante: "antes", small_blind: "posts the small blind", big_blind: "posts the big blind",
               fold: "folds", check: "checks", call: "calls", bet: "bets", raise: "raises to"};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function card(text, hidden, fresh) {
    var suit = text.charAt(1);
    var node = el("span", "card " + suit + (hidden ? " hidden" : "") + (fresh ? " new" : ""), hidden ? "??" : text);
    node.dataset.card = hidden ? "" : text;
    return node;
  }
  function missing() { document.getElementById("hand-missing").hidden = false; }

  function show(hand) {
    var n = hand.bots.length, steps = hand.steps, last = steps.length + 1, pos = 0;
    // Views index players 0..n-1 among those dealt in; label them by their match seat.
    function seatOf(i) { return hand.seats && hand.seats.length === n ? hand.seats[i] : i; }
    var holeBox = document.getElementById("show-hole");
    document.getElementById("viewer").hidden = false;
    document.getElementById("hand-title").textContent = "Match " + hand.match_id + ", hand " + hand.hand_id;
    document.getElementById("match-link").href = "matches/" + safe + ".html";
    document.getElementById("match-link").textContent = "match " + hand.match_id;
    var blinds = hand.big_blind ? "blinds " + hand.small_blind + "/" + hand.big_blind : "no blinds";
    document.getElementById("game").textContent = hand.structure + ", " + blinds +
      (hand.ante ? ", ante " + hand.ante : "") + "; button: seat " + seatOf(hand.button) + " (" + hand.bots[hand.button] + ")";
    var list = document.getElementById("actions");
    steps.forEach(function (s, i) {
      var who = "seat " + seatOf(s.seat) + " " + hand.bots[s.seat] + " ";
      var text;
      if (s.action === "draw") {
        text = who + (s.count ? "draws " + s.count : "stands pat");
        if (s.discards && s.discards.length) text += ": discards " + s.discards.join(" ") + ", receives " + s.received.join(" ");
      } else if (s.action === "bet" || s.action === "raise") {
        text = who + NAMES[s.action] + " " + s.to;
      } else if (s.added) {
        text = who + NAMES[s.action] + " " + s.added;
      } else {
        text = who + NAMES[s.action];
      }
      if (s.all_in) text += " (all-in)";
      if (s.by === "fault") text += " (default action after a fault: " + s.fault + ")";
      else if (s.by === "out") text += " (out of the match: not asked)";
      else if (s.by === "unsent") text += " (default action: request too large to send)";
      var item = el("li", "", text);
      item.dataset.step = String(i);
      list.appendChild(item);
    });
    var faults = document.getElementById("hand-faults");
    if (hand.faults.length) {
      faults.appendChild(el("h2", "", "Faults in this hand"));
      var ul = el("ul");
      hand.faults.forEach(function (f) { ul.appendChild(el("li", "", "seat " + seatOf(f.seat) + " " + f.bot + ": " + f.kind + ": " + f.detail)); });
      faults.appendChild(ul);
    }
    var shown = document.getElementById("shown");
    hand.shown.forEach(function (s) {
      var li = el("li", "", "seat " + seatOf(s.seat) + " " + hand.bots[s.seat] + " shows ");
      s.five.forEach(function (c) { li.appendChild(card(c, false, false)); });
      li.appendChild(document.createTextNode(" (" + s.category + ")"));
      shown.appendChild(li);
    });
    var pots = document.getElementById("pots");
    hand.pots.forEach(function (p, i) {
      var winners = p.winners.map(function (w, j) { return hand.bots[w] + " (" + p.shares[j] + ")"; }).join(", ");
      var li = el("li", "pot", (i === 0 ? "main pot" : "side pot " + i) + ": " + p.amount + " chips, seats " +
        p.eligible.map(seatOf).join(", ") + " eligible, won by " + winners);
      li.dataset.amount = String(p.amount);
      pots.appendChild(li);
    });
    hand.returned.forEach(function (r) {
      var li = el("li", "returned", "returned to seat " + seatOf(r.seat) + " " + hand.bots[r.seat] + ": " + r.amount + " (unmatched)");
      pots.appendChild(li);
    });
    document.getElementById("net").textContent = "Net: " + hand.bots.map(function (b, s) {
      return b + " " + (hand.net[s] > 0 ? "+" : "") + hand.net[s];
    }).join(", ");

    function render() {
      var applied = Math.min(pos, steps.length), bets = [], folded = [], drawn = [], phase = "bet1", s, i;
      for (i = 0; i < n; i++) { bets.push(0); folded.push(false); drawn.push(null); }
      for (i = 0; i < applied; i++) {
        s = steps[i];
        if (s.phase !== phase) { phase = s.phase; bets = bets.map(function () { return 0; }); }
        if (s.action === "fold") folded[s.seat] = true;
        else if (s.action === "draw") drawn[s.seat] = s;
        else bets[s.seat] = s.to;
      }
      var stacks = pos === last ? hand.final_stacks : (applied ? steps[applied - 1].stacks : hand.stacks);
      var pot = pos === last ? 0 : (applied ? steps[applied - 1].pot : 0);
      var acting = applied < steps.length && pos < last ? steps[applied].seat : -1;
      var shownSeats = {};
      hand.shown.forEach(function (x) { shownSeats[x.seat] = true; });
      var body = document.querySelector("#seat-table tbody");
      body.innerHTML = "";
      for (i = 0; i < n; i++) {
        var tr = el("tr", (folded[i] ? "folded" : "") + (i === acting ? " acting" : ""));
        tr.dataset.seat = String(i);
        tr.appendChild(el("td", "", String(seatOf(i)) + (i === hand.button ? " (button)" : "")));
        tr.appendChild(el("td", "bot", hand.bots[i]));
        tr.appendChild(el("td", "stack", String(stacks[i])));
        tr.appendChild(el("td", "bet", pos === last ? "" : String(bets[i])));
        var td = el("td", "cards left");
        var cards = drawn[i] ? hand.final[i] : hand.hole[i];
        var fresh = drawn[i] && drawn[i].received ? drawn[i].received : [];
        var hide = !holeBox.checked && !(pos === last && shownSeats[i]);
        cards.forEach(function (c) { td.appendChild(card(c, hide, fresh.indexOf(c) >= 0)); });
        tr.appendChild(td);
        tr.appendChild(el("td", "left", folded[i] ? "folded" : (drawn[i] ? "drew " + drawn[i].count : "")));
        body.appendChild(tr);
      }
      document.getElementById("pot").textContent = String(pot);
      document.querySelectorAll("#actions li").forEach(function (li) {
        var k = Number(li.dataset.step);
        li.className = k === applied - 1 ? "current" : (k >= applied ? "future" : "");
      });
      document.getElementById("result").hidden = pos !== last;
      document.getElementById("step-label").textContent = pos === 0 ? "deal" :
        (pos === last ? "showdown and pots" : "step " + pos + " of " + steps.length);
    }
    function go(p) { pos = Math.max(0, Math.min(last, p)); render(); }
    document.getElementById("first").onclick = function () { go(0); };
    document.getElementById("prev").onclick = function () { go(pos - 1); };
    document.getElementById("next").onclick = function () { go(pos + 1); };
    document.getElementById("last").onclick = function () { go(last); };
    holeBox.onchange = render;
    document.addEventListener("keydown", function (e) {
      if (e.key === "ArrowRight") go(pos + 1);
      if (e.key === "ArrowLeft") go(pos - 1);
    });
    render();
  }

  if (!matchId) { missing(); return; }
  var script = document.createElement("script");
  script.src = "hands/" + safe + ".js";
  script.onload = function () {
    var hands = (window.REPORT_HANDS || {})[matchId] || [];
    var hand = hands.filter(function (h) { return h.hand_id === handId; })[0];
    if (hand) show(hand); else missing();
  };
  script.onerror = missing;
  document.body.appendChild(script);
})();
