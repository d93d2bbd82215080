// harness watch: plays back each finished hand of DIR, frame by frame, as the server sends it (/events).
// Hole cards are drawn only at a hand's end (data-complete="true"); until then every seat shows card backs.
"use strict";
const SUITS = { h: ["♥", true], d: ["♦", true], c: ["♣", false], s: ["♠", false] };
const queue = [];          // hands waiting to be shown
let current = null;        // {hand, frame}
let paused = false;
let speed = 1;
let timer = null;
const nets = {};           // match_id -> [{bot: net}] for the chip graph
let standings = [];
const params = new URLSearchParams(location.search);
let present = params.get("present") === "1";

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

function drawFrame(hand, k) {
  const complete = k >= hand.frames.length;
  const felt = document.getElementById("felt");
  felt.dataset.complete = complete ? "true" : "false";
  felt.dataset.hand = hand.index;
  const f = complete ? hand.frames[hand.frames.length - 1] : hand.frames[k];
  document.getElementById("match").textContent = `${hand.match_id} · hand ${hand.hand_id + 1} of ${hand.hands}`;
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  const end = hand.end;
  f.seats.forEach((s, i) => {
    const box = el("div", "seat" + (s.folded ? " folded" : "") + (!complete && f.acting === s.seat ? " acting" : ""));
    const name = el("div", "name", s.name);
    if (s.seat === hand.button) name.appendChild(el("span", "dealer", "D"));
    box.appendChild(name);
    const p = end.players[i];
    let chips = `stack ${complete ? p.stack : s.stack}`;
    if (!complete && s.bet) chips += ` · bet ${s.bet}`;
    if (s.drew !== null) chips += ` · drew ${s.drew}`;
    box.appendChild(el("div", "chips", chips));
    if (complete) box.appendChild(el("div", "last", `${p.net > 0 ? "+" : ""}${p.net}`));
    const cards = el("div", "cards");
    const shown = end.shown.find(x => x.seat === s.seat);
    if (complete) (shown ? shown.five : p.cards).forEach(c => cards.appendChild(cardEl(c)));
    else Array(7).fill(null).forEach(c => cards.appendChild(cardEl(c)));
    box.appendChild(cards);
    if (complete && shown) box.appendChild(el("div", "category", shown.category));
    seats.appendChild(box);
  });
  let pot = `pot ${f.pot}`;
  if (complete) pot = end.pots.map((p, i) => `${i ? "side pot " + i : "pot"} ${p.chips}: ${p.winners.join(", ")}`).join(" · ");
  document.getElementById("pot").textContent = pot;
  document.getElementById("action").textContent = complete ? (end.faults.join("; ") || "") : f.text;
  const log = document.getElementById("log");
  log.replaceChildren(...hand.frames.slice(0, Math.min(k + 1, hand.frames.length)).map(x => el("li", "", x.text)));
}

function drawGraph(matchId) {
  const rows = nets[matchId] || [];
  const bots = rows.length ? Object.keys(rows[0]) : [];
  const traces = bots.map(b => {
    let total = 0;
    const y = rows.map(r => (total += (r[b] || 0)));
    return { x: y.map((_, i) => i + 1), y, name: b, mode: "lines", type: "scatter" };
  });
  Plotly.react("graph", traces, {
    title: { text: `${matchId}: chips won`, font: { color: "#eee" } }, paper_bgcolor: "#162019", plot_bgcolor: "#162019",
    font: { color: "#ddd" }, margin: { l: 50, r: 10, t: 40, b: 40 }, height: 260,
    xaxis: { title: "hand", dtick: Math.max(1, Math.ceil(rows.length / 10)) },
  }, { displayModeBar: false, responsive: true });
}

function drawStandings() {
  const rows = standings.map(r => {
    const tr = el("tr");
    [r.bot, String(r.hands), r.bb100.toFixed(1)].forEach(v => tr.appendChild(el("td", "", v)));
    return tr;
  });
  document.querySelector("#standings tbody").replaceChildren(...rows);
  document.querySelector("#slide tbody").replaceChildren(...rows.map(r => r.cloneNode(true)));
}

function status() {
  const q = queue.length;
  document.getElementById("queue").textContent = q ? `${q} hand(s) waiting` : "live";
  document.getElementById("status").textContent = current ? `hand ${current.hand.index + 1} watched` : "waiting for a hand";
}

function delay() {
  if (!current) return 300;
  const last = current.frame >= current.hand.frames.length;
  return (last ? 2500 : 800) / speed / (present ? 0.8 : 1);
}

function advance() {
  timer = null;
  if (current && current.frame < current.hand.frames.length) {
    current.frame += 1;
  } else if (queue.length) {
    const next = queue.shift();
    const newMatch = current && current.hand.match_id !== next.match_id;
    current = { hand: next, frame: 0 };
    (nets[next.match_id] = nets[next.match_id] || []).push(next.nets);
    if (newMatch && present) { showSlide(); }
    drawGraph(next.match_id);
  } else {
    status();
    return;  // nothing to show: wait for the next hand
  }
  drawFrame(current.hand, current.frame);
  status();
  schedule();
}

function showSlide() {
  const slide = document.getElementById("slide");
  slide.hidden = false;
  setTimeout(() => { slide.hidden = true; }, 5000 / speed);
}

function schedule() {
  if (!paused && !timer) timer = setTimeout(advance, delay());
}

document.getElementById("pause").addEventListener("click", e => {
  paused = !paused;
  e.target.textContent = paused ? "play" : "pause";
  if (paused && timer) { clearTimeout(timer); timer = null; }
  schedule();
});
document.getElementById("step").addEventListener("click", () => {
  if (timer) { clearTimeout(timer); timer = null; }
  const was = paused; paused = true; advance(); paused = was; schedule();
});
document.getElementById("speed").addEventListener("change", e => { speed = Number(e.target.value); });
function setPresent(on) {
  present = on;
  document.body.classList.toggle("present", on);
  if (on && document.fullscreenEnabled && !document.fullscreenElement) document.documentElement.requestFullscreen().catch(() => {});
}
document.getElementById("present").addEventListener("click", () => setPresent(!present));

const source = new EventSource("/events");
source.addEventListener("hello", e => {
  const h = JSON.parse(e.data);
  standings = h.standings;
  if (h.present) present = true;
  document.body.classList.toggle("present", present);
  drawStandings();
  if (h.graph.length) nets.__backlog = h.graph;
});
source.addEventListener("hand", e => {
  const hand = JSON.parse(e.data);
  if (nets.__backlog && !nets[hand.match_id]) { nets[hand.match_id] = nets.__backlog; delete nets.__backlog; }
  queue.push(hand);
  status();
  if (!timer && !paused) advance();
});
source.addEventListener("standings", e => { standings = JSON.parse(e.data); drawStandings(); });
source.onerror = () => { document.getElementById("status").textContent = "connection lost; retrying"; };
