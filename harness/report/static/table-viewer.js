// The Seven Card Draw table viewer: one component for every page that shows hands (the report's
// hand viewer, the single-file replay of `harness replay --html`, a live page).
//
//   var viewer = SevenDrawViewer.mount(element, {hands: [hand view, ...], hand: index, seat: null|k,
//                                                speed: 1..10, query: "", handHref: function (hand) {...}});
//   viewer.show(i); viewer.play(); viewer.pause(); viewer.go(step); viewer.setSeat(k); viewer.search(text);
//   viewer.setHands(hands)   // a live page: replace (or extend) the list, keeping the hand shown
//   viewer.showHand(i)       // show hands[i] (clearing a search that hides it)
//   options.onRender(state)  // called after every drawing with viewer.state()
//   options.everyoneLabel    // the "seen from" choice of every card the page was given ("everyone (all cards)")
//   options.oneMatch         // every hand is of one match: the list says "hand 3", not "<match id> #3"
//
// A hand view is what harness/report/hands.py writes (its module docstring has every field), plus
// "categories": the category of each player's best five after the draw. The component only renders
// data: every text goes in with textContent, never as HTML (bot names are untrusted). A card given
// as null is not known to the page (a live spectator's view) and is drawn face down.
// Styles: table-viewer.css (classes tv-*).
(function (global) {
  "use strict";
  var NAMES = {ante: "antes", small_blind: "posts the small blind", big_blind: "posts the big blind",
               fold: "folds", check: "checks", call: "calls", bet: "bets", raise: "raises to"};
  var SUITS = {c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660"};
  var BASE_MS = 1200;  // one step at x1; x10 is ten times faster

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function card(text, hidden, fresh) {
    text = text || "";
    var node = el("span", "tv-card" + (hidden ? " tv-back" : " tv-" + text.charAt(1)) + (fresh ? " tv-new" : ""));
    node.dataset.card = hidden ? "" : text;
    if (!hidden) {
      node.appendChild(el("span", "tv-rank", text.charAt(0) === "T" ? "10" : text.charAt(0)));
      node.appendChild(el("span", "tv-suit", SUITS[text.charAt(1)] || text.charAt(1)));
      node.title = text;
    }
    return node;
  }
  function seatOf(hand, i) { return hand.seats && hand.seats.length === hand.bots.length ? hand.seats[i] : i; }
  function potOf(hand) { return hand.pots.reduce(function (a, p) { return a + p.amount; }, 0); }

  // What the search box understands: words, e.g. "pot>500 showdown bot:solid flush #12 fault".
  function matcher(text) {
    var words = text.toLowerCase().trim().split(/\s+/).filter(Boolean), tests = [], bot = null, rest = [];
    words.forEach(function (w) {
      var m;
      if ((m = /^pot(>=|<=|>|<|=)(\d+)$/.exec(w))) {
        var op = m[1], n = Number(m[2]);
        tests.push(function (h) {
          var p = potOf(h);
          return op === ">" ? p > n : op === "<" ? p < n : op === ">=" ? p >= n : op === "<=" ? p <= n : p === n;
        });
      } else if ((m = /^bot:(.+)$/.exec(w))) { bot = m[1]; }
      else if (w === "showdown") { tests.push(function (h) { return h.shown.length > 0; }); }
      else if (w === "fault" || w === "faults") { tests.push(function (h) { return h.faults.length > 0; }); }
      else if ((m = /^#?(\d+)$/.exec(w))) { var id = Number(m[1]); tests.push(function (h) { return h.hand_id === id; }); }
      else rest.push(w);
    });
    var category = rest.join(" ").replace(/-/g, " ");
    return function (h) {
      var seats = [];
      h.bots.forEach(function (b, i) { if (bot === null || b.toLowerCase() === bot) seats.push(i); });
      if (!seats.length) return false;
      if (category) {
        var cats = h.categories || [];
        if (!seats.some(function (i) { return (cats[i] || "").indexOf(category) === 0; })) return false;
      }
      return tests.every(function (t) { return t(h); });
    };
  }

  function mount(root, options) {
    options = options || {};
    var hands = options.hands || [], shown = [], index = 0, pos = 0, timer = null;
    var speed = Math.max(1, Math.min(10, Number(options.speed) || 1));
    var seat = options.seat === undefined ? null : options.seat;  // null: every card (the organiser's view)
    root.classList.add("tv");
    root.textContent = "";
    var side = el("div", "tv-side"), stage = el("div", "tv-stage");
    root.appendChild(side);
    root.appendChild(stage);
    var search = el("input", "tv-search");
    search.type = "search";
    search.placeholder = "search: pot>500 showdown fault bot:NAME flush #12";
    search.setAttribute("aria-label", "search the hands");
    var count = el("p", "tv-count"), list = el("ol", "tv-list");
    side.appendChild(search);
    side.appendChild(count);
    side.appendChild(list);

    var title = el("h2", "tv-title"), game = el("p", "tv-game");
    var controls = el("div", "tv-controls");
    function button(cls, text, label) {
      var b = el("button", cls, text);
      b.type = "button";
      b.title = label;
      b.setAttribute("aria-label", label);
      controls.appendChild(b);
      return b;
    }
    var bFirst = button("tv-first", "\u00AB", "start of the hand");
    var bPrev = button("tv-prev", "\u25C0", "back one step");
    var bPlay = button("tv-play", "\u25B6 play", "play / pause (space)");
    var bNext = button("tv-next", "\u25B6", "next step");
    var bLast = button("tv-last", "\u00BB", "end of the hand");
    var speedBox = el("label", "tv-speed-label", "speed ");
    var speedSel = el("select", "tv-speed");
    for (var x = 1; x <= 10; x++) {
      var o = el("option", "", "x" + x);
      o.value = String(x);
      speedSel.appendChild(o);
    }
    speedSel.value = String(speed);
    speedBox.appendChild(speedSel);
    controls.appendChild(speedBox);
    var seenBox = el("label", "tv-seen-label", "seen from ");
    var seenSel = el("select", "tv-seen");
    seenBox.appendChild(seenSel);
    controls.appendChild(seenBox);
    var scrub = el("input", "tv-scrub");
    scrub.type = "range";
    scrub.min = "0";
    scrub.setAttribute("aria-label", "step of the hand");
    var label = el("span", "tv-step");
    var felt = el("div", "tv-table"), center = el("div", "tv-center"), log = el("ol", "tv-log");
    var result = el("div", "tv-result");
    felt.appendChild(center);
    [title, game, controls, scrub, label, felt, result, log].forEach(function (n) { stage.appendChild(n); });

    function hand() { return shown.length ? hands[shown[index]] : null; }
    function last() { var h = hand(); return h ? h.steps.length + 1 : 0; }

    function fillSeats() {
      var h = hand(), keep = seenSel.value;
      seenSel.textContent = "";
      var all = el("option", "", options.everyoneLabel || "everyone (all cards)");
      all.value = "";
      seenSel.appendChild(all);
      if (h) h.bots.forEach(function (b, i) {
        var opt = el("option", "", "seat " + seatOf(h, i) + " " + b);
        opt.value = String(seatOf(h, i));
        seenSel.appendChild(opt);
      });
      seenSel.value = seat === null ? "" : String(seat);
      if (seenSel.value !== (seat === null ? "" : String(seat))) seenSel.value = keep || "";
    }

    function refreshList() {
      var test = matcher(search.value), current = hand();
      shown = [];
      hands.forEach(function (h, i) { if (test(h)) shown.push(i); });
      list.textContent = "";
      count.textContent = shown.length + " of " + hands.length + " hands";
      shown.forEach(function (i, k) {
        var h = hands[i], li = el("li", "tv-item");
        // One match's page (oneMatch): "hand 3"; hands of many matches: "r0-t1 #3".
        var a = el("a", "", options.oneMatch ? "hand " + h.hand_id
                                             : (h.match_id ? h.match_id + " " : "") + "#" + h.hand_id);
        a.href = options.handHref ? options.handHref(h) : "#";
        a.addEventListener("click", function (e) { e.preventDefault(); show(k); });
        li.appendChild(a);
        var tags = "pot " + potOf(h) + (h.shown.length ? " \u00B7 showdown" : "") + (h.faults.length ? " \u00B7 fault" : "");
        li.appendChild(el("span", "tv-tags", tags));
        li.dataset.hand = String(h.hand_id);
        li.dataset.match = h.match_id || "";
        list.appendChild(li);
      });
      var again = current ? shown.indexOf(hands.indexOf(current)) : -1;
      index = again >= 0 ? again : 0;
    }

    function stepText(h, s, mine) {
      var who = "seat " + seatOf(h, s.seat) + " " + h.bots[s.seat] + " ", text;
      if (s.action === "draw") {
        text = who + (s.count ? "draws " + s.count : "stands pat");
        if (mine && s.discards && s.discards.length) text += ": discards " + s.discards.join(" ") + ", receives " + s.received.join(" ");
      } else if (s.action === "bet" || s.action === "raise") text = who + NAMES[s.action] + " " + s.to;
      else if (s.added) text = who + NAMES[s.action] + " " + s.added;
      else text = who + (NAMES[s.action] || s.action);
      if (s.all_in) text += " (all-in)";
      if (s.by === "fault") text += " (default action after a fault: " + s.fault + ")";
      else if (s.by === "out") text += " (out of the match: not asked)";
      else if (s.by === "unsent") text += " (default action: request too large to send)";
      return text;
    }

    function render() {
      var h = hand();
      felt.querySelectorAll(".tv-seat, .tv-bet").forEach(function (n) { n.remove(); });
      log.textContent = "";
      result.textContent = "";
      list.querySelectorAll(".tv-item").forEach(function (li, k) { li.classList.toggle("tv-current", k === index); });
      if (!h) {
        title.textContent = "No hand matches the search";
        game.textContent = "";
        center.textContent = "";
        label.textContent = "";
        return;
      }
      var n = h.bots.length, steps = h.steps, end = last(), applied = Math.min(pos, steps.length), i, s;
      var me = null;  // the position of the seat it is seen from
      for (i = 0; i < n; i++) if (seat !== null && seatOf(h, i) === seat) me = i;
      title.textContent = (h.match_id ? "Match " + h.match_id + ", " : "") + "hand " + h.hand_id;
      var blinds = h.big_blind ? "blinds " + h.small_blind + "/" + h.big_blind : "no blinds";
      game.textContent = (h.game && h.game !== "seven-card-draw" ? h.game + ", " : "") + h.structure + ", " + blinds + (h.ante ? ", ante " + h.ante : "") + "; button: seat " +
        seatOf(h, h.button) + " (" + h.bots[h.button] + ")" + (seat !== null && me === null ? "; seat " + seat + " is not in this hand" : "");
      scrub.max = String(end);
      scrub.value = String(pos);
      var bets = [], folded = [], drawn = [], phase = "bet1";
      for (i = 0; i < n; i++) { bets.push(0); folded.push(false); drawn.push(null); }
      for (i = 0; i < applied; i++) {
        s = steps[i];
        if (s.phase !== phase) { phase = s.phase; bets = bets.map(function () { return 0; }); }
        if (s.action === "fold") folded[s.seat] = true;
        else if (s.action === "draw") drawn[s.seat] = s;
        else if (s.action !== "ante") bets[s.seat] = s.to;
      }
      var atEnd = pos === end;
      var stacks = atEnd ? h.final_stacks : (applied ? steps[applied - 1].stacks : h.stacks);
      var pot = applied ? steps[applied - 1].pot : 0;
      var acting = applied < steps.length && !atEnd ? steps[applied].seat : -1;
      var showdown = {};
      h.shown.forEach(function (x) { showdown[x.seat] = x; });
      for (i = 0; i < n; i++) {
        // Seats around an ellipse, the first after the button at the bottom left, clockwise.
        var angle = Math.PI / 2 + 2 * Math.PI * ((i - h.button + n) % n) / n;
        var left = 50 + 42 * Math.cos(angle), top = 50 + 40 * Math.sin(angle);
        var box = el("div", "tv-seat" + (folded[i] ? " tv-folded" : "") + (i === acting ? " tv-acting" : "") +
          (i === me ? " tv-me" : ""));
        box.dataset.seat = String(seatOf(h, i));
        box.style.left = left + "%";
        box.style.top = top + "%";
        var head = el("div", "tv-name", "seat " + seatOf(h, i) + " " + h.bots[i]);
        if (i === h.button) head.appendChild(el("span", "tv-button", "D"));
        box.appendChild(head);
        box.appendChild(el("div", "tv-stack", String(stacks[i])));
        var cardsBox = el("div", "tv-cards");
        var cards = drawn[i] ? h.final[i] : h.hole[i];
        var fresh = drawn[i] && drawn[i].received ? drawn[i].received : [];
        var five = atEnd && showdown[i] ? showdown[i].five : null;
        // Cards the page was not given (null) but shown down: the five, then face-down slots.
        if (five !== null && (cards || []).some(function (c) { return !c; })) {
          cards = five.concat(cards.slice(five.length).map(function () { return null; }));
        }
        (cards || []).forEach(function (c) {
          // Seen from a seat: its own cards, and at the end the five cards each player showed down.
          var visible = !!c && (seat === null || i === me || (five !== null && five.indexOf(c) >= 0));
          cardsBox.appendChild(card(c, !visible, visible && fresh.indexOf(c) >= 0));
        });
        box.appendChild(cardsBox);
        var state = folded[i] ? "folded" : drawn[i] ? (drawn[i].count ? "drew " + drawn[i].count : "stood pat") : "";
        if (five !== null) state = showdown[i].category;
        box.appendChild(el("div", "tv-state", state));
        if (atEnd) box.appendChild(el("div", "tv-net", (h.net[i] > 0 ? "+" : "") + h.net[i]));
        felt.appendChild(box);
        if (!atEnd && bets[i]) {
          var chip = el("div", "tv-bet", String(bets[i]));
          chip.dataset.seat = String(seatOf(h, i));
          chip.style.left = (50 + 24 * Math.cos(angle)) + "%";
          chip.style.top = (50 + 22 * Math.sin(angle)) + "%";
          felt.appendChild(chip);
        }
      }
      center.textContent = "";
      // The middle holds what earlier rounds (and antes) collected; this round's bets lie in front of the players.
      var inFront = bets.reduce(function (a, b) { return a + b; }, 0);
      var total = atEnd ? potOf(h) : pot - inFront;
      var potBox = el("div", "tv-pot", (atEnd ? "pots " : "pot ") + total);
      potBox.dataset.amount = String(total);
      potBox.dataset.total = String(atEnd ? potOf(h) : pot);
      center.appendChild(potBox);
      if (atEnd) {
        h.pots.forEach(function (p, k) {
          var winners = p.winners.map(function (w, j) { return h.bots[w] + " " + p.shares[j]; }).join(", ");
          var line = el("div", "tv-pot-line", (k === 0 ? "main pot " : "side pot " + k + " ") + p.amount + ": " + winners);
          line.dataset.amount = String(p.amount);
          center.appendChild(line);
        });
        h.returned.forEach(function (r) {
          center.appendChild(el("div", "tv-returned", r.amount + " returned to " + h.bots[r.seat] + " (unmatched)"));
        });
        result.appendChild(el("p", "tv-nets", "Net: " + h.bots.map(function (b, k) {
          return b + " " + (h.net[k] > 0 ? "+" : "") + h.net[k];
        }).join(", ")));
        if (h.faults.length) {
          var ul = el("ul", "tv-faults");
          h.faults.forEach(function (f) { ul.appendChild(el("li", "", "fault: seat " + seatOf(h, f.seat) + " " + f.bot + ": " + f.kind + ": " + f.detail)); });
          result.appendChild(ul);
        }
      }
      steps.forEach(function (st, k) {
        var li = el("li", k === applied - 1 ? "tv-now" : (k >= applied ? "tv-later" : ""), stepText(h, st, seat === null || st.seat === me));
        li.dataset.step = String(k);
        li.addEventListener("click", function () { go(k + 1); });
        log.appendChild(li);
      });
      label.textContent = pos === 0 ? "deal" : (atEnd ? (h.shown.length ? "showdown and pots" : "pots") :
        "step " + pos + " of " + steps.length);
      bPlay.textContent = timer ? "\u25A0 pause" : "\u25B6 play";
      root.dataset.pos = String(pos);
      root.dataset.end = String(end);
      root.dataset.playing = timer ? "1" : "";
      if (options.onRender) options.onRender(snapshot());
    }
    function snapshot() { return {hand: hand(), pos: pos, end: last(), playing: !!timer, speed: speed, seat: seat}; }

    function go(p) { pos = Math.max(0, Math.min(last(), p)); render(); }
    function tick() { go(pos + 1); if (pos >= last()) pause(); }
    function play() {
      if (!hand()) return;
      if (pos >= last()) pos = 0;
      pause();
      timer = setInterval(tick, BASE_MS / speed);
      render();
    }
    function pause() { if (timer) { clearInterval(timer); timer = null; } render(); }
    function show(k) {
      pause();
      index = Math.max(0, Math.min(shown.length - 1, k));
      pos = 0;
      fillSeats();
      render();
      if (options.onHand && hand()) options.onHand(hand());
    }
    function setSeat(k) { seat = k === null || k === "" ? null : Number(k); fillSeats(); render(); }

    bFirst.addEventListener("click", function () { pause(); go(0); });
    bPrev.addEventListener("click", function () { pause(); go(pos - 1); });
    bNext.addEventListener("click", function () { pause(); go(pos + 1); });
    bLast.addEventListener("click", function () { pause(); go(last()); });
    bPlay.addEventListener("click", function () { if (timer) pause(); else play(); });
    speedSel.addEventListener("change", function () {
      speed = Number(speedSel.value);
      if (timer) play();
    });
    seenSel.addEventListener("change", function () { setSeat(seenSel.value); });
    scrub.addEventListener("input", function () { pause(); go(Number(scrub.value)); });
    search.addEventListener("input", function () { refreshList(); show(0); });
    root.tabIndex = 0;
    root.addEventListener("keydown", function (e) {
      if (e.target === search) return;
      if (e.key === "ArrowRight") { pause(); go(pos + 1); }
      else if (e.key === "ArrowLeft") { pause(); go(pos - 1); }
      else if (e.key === " ") { e.preventDefault(); if (timer) pause(); else play(); }
    });

    search.value = options.query || "";
    refreshList();
    var start = 0;
    if (options.hand !== undefined && options.hand !== null) {
      var want = shown.indexOf(options.hand);
      start = want >= 0 ? want : 0;
    }
    show(start);
    return {
      show: show, play: play, pause: pause, go: go, setSeat: setSeat,
      search: function (text) { search.value = text; refreshList(); show(0); },
      setHands: function (more) { hands = more; refreshList(); fillSeats(); render(); },
      showHand: function (i) {
        if (shown.indexOf(i) < 0) { search.value = ""; refreshList(); }
        show(Math.max(0, shown.indexOf(i)));
      },
      state: snapshot
    };
  }

  global.SevenDrawViewer = {mount: mount, matcher: matcher};
})(window);
