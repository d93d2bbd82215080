// harness play --web: draws the table the server sends (/events) and posts the person's decisions (/answer).
"use strict";
// Where this table's routes are: "/" for harness play --web, "/play/ID/" on the contest server.
const BASE = document.body.dataset.base || "/";
const SUITS = { h: ["♥", true], d: ["♦", true], c: ["♣", false], s: ["♠", false] };
let table = null;
let picked = new Set();
let pendingSeq = null;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cardEl(card) {
  if (!card) return el("div", "card back");
  const [symbol, red] = SUITS[card[1]];
  const c = el("div", "card" + (red ? " red" : ""));
  c.dataset.card = card;
  c.appendChild(el("span", "rank", card[0] === "T" ? "10" : card[0]));
  c.appendChild(el("span", "suit", symbol));
  return c;
}

function drawSeats(t) {
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  t.seats.forEach((s, k) => {
    const box = el("div", "seat" + (s.me ? " me" : "") + (s.folded ? " folded" : ""));
    box.dataset.seat = k;
    const name = el("div", "name", s.name + (s.me && s.name !== "you" ? " (you)" : ""));
    if (k === t.button) name.appendChild(el("span", "dealer", "D"));
    box.appendChild(name);
    let chips = `stack ${s.stack}`;
    if (s.bet) chips += ` · bet ${s.bet}`;
    if (s.drew !== null) chips += ` · drew ${s.drew}`;
    box.appendChild(el("div", "chips", chips));
    let last = s.folded ? "folded" : s.last;
    if (s.all_in) last += " · all-in";
    if (s.net !== null) last += ` · ${s.net > 0 ? "+" : ""}${s.net}`;
    box.appendChild(el("div", "last", last));
    const cards = el("div", "cards");
    const shown = s.five.length ? s.five : s.me ? [] : (s.folded ? [] : Array(7).fill(null));
    shown.forEach(c => cards.appendChild(cardEl(c)));
    box.appendChild(cards);
    if (s.category) box.appendChild(el("div", "category", s.category));
    seats.appendChild(box);
  });
  let pot = `pot ${t.pot}`;
  if (t.pots.length > 1) pot += " (" + t.pots.map((p, i) => `${i ? "side " + i : "main"} ${p.chips}`).join(", ") + ")";
  if (t.won.length) pot = t.won.map(w => `${w.name} ${w.chips}: ${w.winners}`).join(" · ");
  document.getElementById("pot").textContent = pot;
}

function drawHand(t) {
  const me = t.seats[t.me];
  const hand = document.getElementById("hand");
  hand.replaceChildren();
  const drawing = t.legal && t.legal.kind === "draw";
  hand.classList.toggle("drawing", !!drawing);
  if (!me) return;
  me.cards.forEach(c => {
    const e = cardEl(c);
    if (picked.has(c)) e.classList.add("picked");
    if (drawing) e.addEventListener("click", () => toggle(c, e));
    hand.appendChild(e);
  });
  document.getElementById("best").textContent = t.best.category ? `best five: ${t.best.category}` : "";
}

function toggle(card, e) {
  const max = table.legal.max_discards;
  if (picked.has(card)) picked.delete(card);
  else if (picked.size < max) picked.add(card);
  else { say(`you may discard at most ${max} cards`); return; }
  e.classList.toggle("picked", picked.has(card));
  drawControls(table);
}

function say(text) { document.getElementById("error").textContent = text || ""; }

function button(label, cls, answer) {
  const b = el("button", cls, label);
  b.addEventListener("click", () => send(answer()));
  return b;
}

function drawControls(t) {
  const box = document.getElementById("controls");
  box.replaceChildren();
  const legal = t.legal;
  if (t.over) { box.appendChild(el("span", "", "")).id = "over"; document.getElementById("over").textContent = "match over"; return; }
  if (!legal) { box.appendChild(el("span", "", "waiting for the others…")); return; }
  const seq = legal.seq;
  if (legal.kind === "draw") {
    const n = picked.size;
    box.appendChild(button(n ? `Discard ${n}` : "Stand pat", "passive", () => ({ seq, discard: [...picked] })));
    box.appendChild(el("span", "", `click up to ${legal.max_discards} cards to discard`));
    return;
  }
  const a = legal.actions;
  if (a.includes("fold")) box.appendChild(button("Fold", "fold", () => ({ seq, action: "fold" })));
  if (a.includes("check")) box.appendChild(button("Check", "passive", () => ({ seq, action: "check" })));
  if (a.includes("call")) box.appendChild(button(`Call ${legal.call_amount}`, "passive", () => ({ seq, action: "call" })));
  const kind = a.includes("bet") ? "bet" : a.includes("raise") ? "raise" : null;
  if (kind) {
    const slider = el("input");
    Object.assign(slider, { type: "range", min: legal.min_to, max: legal.max_to, step: 1, value: legal.min_to });
    slider.id = "amount";
    const label = kind === "bet" ? "Bet" : "Raise to";
    const go = button(`${label} ${legal.min_to}`, "aggressive", () => ({ seq, action: kind, amount: Number(slider.value) }));
    go.id = "wager";
    // Snap to a legal amount: a whole number of chips from min_to to max_to.
    slider.addEventListener("input", () => {
      const v = Math.min(legal.max_to, Math.max(legal.min_to, Math.round(Number(slider.value))));
      slider.value = v; go.textContent = `${label} ${v}`;
    });
    box.appendChild(slider);
    box.appendChild(go);
    box.appendChild(button("All-in", "aggressive", () => ({ seq, action: kind, amount: legal.max_to })));
  }
}

function drawSide(t) {
  const log = document.getElementById("log");
  log.replaceChildren(...t.log.map(line => el("li", "", line)));
  const body = document.querySelector("#totals tbody");
  body.replaceChildren(...Object.entries(t.totals).map(([name, net]) => {
    const tr = el("tr"); tr.appendChild(el("td", "", name)); tr.appendChild(el("td", "", String(net))); return tr;
  }));
  let status = t.hand_id === null ? "waiting for the first hand" : `hand ${t.hand_id + 1} of ${t.hands} · ${t.phase}`;
  if (t.over) status = "match over";
  document.getElementById("status").textContent = status;
}

function draw(t) {
  const seq = t.legal ? t.legal.seq : null;
  if (seq !== pendingSeq) { picked = new Set(); pendingSeq = seq; }
  table = t;
  if (t.notice) say(t.notice);
  drawSeats(t); drawHand(t); drawControls(t); drawSide(t);
}

async function send(answer) {
  say("");
  const r = await fetch(BASE + "answer", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(answer) });
  const body = await r.json();
  if (!r.ok) say(body.error);
}

const source = new EventSource(BASE + "events");
source.addEventListener("table", e => {
  const t = JSON.parse(e.data);
  draw(t);
  if (t.over) source.close();
});
source.onerror = () => { if (!table || !table.over) document.getElementById("status").textContent = "connection lost"; };
