// harness watch: plays back each finished hand of DIR as the server sends it (/events), with the report's
// table viewer (table-viewer.js). A hand comes as two views: "public" (no card at all: the server took them
// out) is played step by step; "end" (the whole hand) replaces it once the playback reaches the hand's end.
// #felt says where the playback is: data-complete="false" while the hand being played is not revealed yet.
"use strict";
const queue = [];          // hands waiting to be shown
const revealed = [];       // the whole views of the hands already played to their end
let current = null;        // the hand being played: {script, done}
let paused = false;
let timer = null;          // the pause between two hands
let starting = false;      // a hand is being put in the viewer (it is drawn at its deal just after)
const KEEP = 300;          // hands kept in the viewer's list (a tournament plays thousands)
const nets = {};           // match_id -> [{bot: net}] for the chip graph
let standings = [];
const params = new URLSearchParams(location.search);
let present = params.get("present") === "1";
const felt = document.getElementById("felt");

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function rendered(state) {
  const h = state.hand;
  if (!h) return;
  felt.dataset.hand = h.index;
  const live = current && h.index === current.script.index;
  felt.dataset.complete = live && !current.done ? "false" : "true";  // the hand being played is not revealed yet
  document.getElementById("match").textContent = `${h.match_id} · #${h.hand_id}` +
    (current && current.script.index === h.index ? ` (hand ${h.hand_id + 1} of ${current.script.hands})` : "");
  if (live && !starting && !current.done && state.pos === state.end) {
    reveal(state.playing);
  }
}

const viewer = SevenDrawViewer.mount(document.getElementById("viewer"), {
  hands: [], speed: 1, onRender: rendered, everyoneLabel: "the table (cards once the hand is over)",
});

function reveal(wasPlaying) {
  current.done = true;
  revealed.push(current.script.end);
  viewer.setHands(revealed.slice());  // the same place in the list, now with the cards
  status();
  if (wasPlaying && !paused) schedule(2500);
}

function speed() { return viewer.state().speed; }

function schedule(ms) {
  if (timer) clearTimeout(timer);
  timer = setTimeout(nextHand, ms / speed() / (present ? 0.8 : 1));
}

function nextHand() {
  timer = null;
  if (!queue.length) { status(); return; }  // nothing to show: the next hand starts when it comes
  const next = queue.shift();
  const newMatch = current && current.script.match_id !== next.match_id;
  current = { script: next, done: false };
  (nets[next.match_id] = nets[next.match_id] || []).push(next.nets);
  if (newMatch && present) showSlide();
  drawGraph(next.match_id);
  revealed.splice(0, Math.max(0, revealed.length - KEEP));
  starting = true;
  try {
    viewer.setHands(revealed.concat([next.public]));
    viewer.showHand(revealed.length);
  } finally {
    starting = false;
  }
  if (!paused) viewer.play();
  status();
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
  document.getElementById("status").textContent = current ? `hand ${current.script.index + 1} watched` : "waiting for a hand";
}

function showSlide() {
  const slide = document.getElementById("slide");
  slide.hidden = false;
  setTimeout(() => { slide.hidden = true; }, 5000 / speed());
}

const pauseButton = document.getElementById("pause");
function setPaused(on) {
  paused = on;
  pauseButton.textContent = paused ? "play" : "pause";
  if (paused) {
    if (timer) { clearTimeout(timer); timer = null; }
    viewer.pause();
  }
}
pauseButton.addEventListener("click", () => {
  setPaused(!paused);
  if (paused) return;
  if (current && !current.done) viewer.play();
  else nextHand();
});
// One step of the hand shown; at its end, the next hand (paused at its deal).
document.getElementById("step").addEventListener("click", () => {
  setPaused(true);
  const state = viewer.state();
  if (current && !current.done) viewer.go(state.pos + 1);
  else nextHand();
});
function setPresent(on) {
  present = on;
  document.body.classList.toggle("present", on);
  if (on && document.fullscreenEnabled && !document.fullscreenElement) document.documentElement.requestFullscreen().catch(() => {});
}
document.getElementById("present").addEventListener("click", () => setPresent(!present));

// A damaged line of a history (file, line, what is wrong), said once by the server.
function addNotice(text) {
  const list = document.getElementById("notices");
  list.hidden = false;
  list.append(el("li", "notice", text));
}

const source = new EventSource("events");  // relative: the page is at /SECRET/
source.addEventListener("hello", e => {
  const h = JSON.parse(e.data);
  standings = h.standings;
  if (h.present) present = true;
  document.body.classList.toggle("present", present);
  drawStandings();
  if (h.graph.length) nets.__backlog = h.graph;
  const notices = document.getElementById("notices");
  notices.replaceChildren();
  notices.hidden = true;
  (h.notices || []).forEach(addNotice);
  status();
});
source.addEventListener("notice", e => addNotice(JSON.parse(e.data)));
source.addEventListener("hand", e => {
  const hand = JSON.parse(e.data);
  if (nets.__backlog && !nets[hand.match_id]) { nets[hand.match_id] = nets.__backlog; delete nets.__backlog; }
  queue.push(hand);
  status();
  if ((!current || current.done) && !timer && !paused) nextHand();
});
source.addEventListener("standings", e => { standings = JSON.parse(e.data); drawStandings(); });
source.onerror = () => { document.getElementById("status").textContent = "connection lost; retrying"; };
