#!/usr/bin/env node
// A Seven Card Draw bot in Node.js, written from protocol/PROTOCOL.md alone.
// Strategy: check when free, call otherwise; in the draw keep pairs (or better)
// and throw the lowest unpaired cards (at most max_discards).
// Install: npm install --ignore-scripts   (zeromq ships prebuilt binaries in its npm package)
// Run:     harness check-bot -- node bots/node/bot.js
"use strict";

const zmq = require("zeromq");
const { encode, decode } = require("@msgpack/msgpack");

const VERSION = 1;
const POLL_MS = 1000; // wake up this often to check that the referee is still there
const IDLE_LIMIT_MS = 600000; // exit after this long without any message
const RANKS = "23456789TJQKA";

function log(text) {
  process.stderr.write(`[node-bot] ${text}\n`);
}

function decide(legal) {
  if (legal.actions.includes("check")) return { action: "check" };
  return { action: "call" };
}

function discards(cards, maxDiscards) {
  const count = {};
  for (const c of cards) count[c[0]] = (count[c[0]] || 0) + 1;
  return cards
    .filter((c) => count[c[0]] === 1)
    .sort((a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]))
    .slice(0, maxDiscards);
}

async function main() {
  const endpoint = process.env.HARNESS_ENDPOINT;
  if (!endpoint) {
    log("HARNESS_ENDPOINT is not set: start me with `harness check-bot -- node bots/node/bot.js`");
    return 2;
  }
  const sock = new zmq.Dealer({ linger: 0, receiveTimeout: POLL_MS });
  // The referee is gone when an established connection drops.
  let connected = false;
  let gone = false;
  sock.events.on("connect", () => {
    connected = true;
  });
  sock.events.on("disconnect", () => {
    if (connected) gone = true;
  });
  sock.connect(endpoint);
  await sock.send(
    encode({
      type: "hello",
      v: VERSION,
      secret: process.env.HARNESS_SECRET || "",
      name: process.env.HARNESS_BOT_NAME || "node-bot",
    }),
  );
  const parent = process.ppid;
  let lastSeen = Date.now();
  try {
    for (;;) {
      let frames;
      try {
        frames = await sock.receive();
      } catch (err) {
        if (err.code !== "EAGAIN") throw err;
        if (gone) {
          log("the referee closed the connection; exiting");
          return 0;
        }
        if (process.ppid !== parent) {
          log("parent process gone; exiting");
          return 0;
        }
        if (Date.now() - lastSeen > IDLE_LIMIT_MS) {
          log("referee silent for too long; exiting");
          return 0;
        }
        continue;
      }
      lastSeen = Date.now();
      let msg;
      try {
        msg = decode(frames[0]);
      } catch (err) {
        log(`ignored an undecodable message: ${err}`);
        continue;
      }
      switch (msg.type) {
        case "act": {
          const reply = decide(msg.legal);
          await sock.send(encode({ type: "action", v: VERSION, seq: msg.seq, ...reply }));
          break;
        }
        case "draw": {
          const cards = discards(msg.state.cards, msg.legal.max_discards);
          await sock.send(encode({ type: "discard", v: VERSION, seq: msg.seq, cards }));
          break;
        }
        case "hand_end":
          break;
        case "match_end":
          return 0;
        case "error":
          log(`referee error ${msg.reason}: ${msg.message}`);
          if (msg.fatal) return 1;
          break;
        default:
          break; // welcome, match_start, hand_start: nothing to do
      }
    }
  } finally {
    sock.events.close();
    sock.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`crashed: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);
