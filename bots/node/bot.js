#!/usr/bin/env node
// A Seven Card Draw bot in Node.js, written from protocol/PROTOCOL.md alone.
// Strategy: check when free, call otherwise; in the draw keep pairs (or better)
// and throw the lowest unpaired cards (at most max_discards).
// Install: npm install --ignore-scripts   (zeromq ships prebuilt binaries in its npm package)
// Run:     harness check-bot -- node bots/node/bot.js
// Vectors: node bots/node/vectors.js protocol/vectors (the shared test vectors through handle())
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

// The replies: amount is the "to" total of a bet or raise, 0 otherwise; [] stands pat.
function actionReply(seq, action, amount) {
  return encode({ type: "action", v: VERSION, seq, action, amount: amount || 0 });
}

function discardReply(seq, cards) {
  return encode({ type: "discard", v: VERSION, seq, cards });
}

// One frame from the referee -> { reply: bytes to send or null, exit: true after match_end or a fatal error }.
function isRequestFrame(frame) {
  try {
    const msg = decode(frame);
    return msg !== null && typeof msg === "object" && (msg.type === "act" || msg.type === "draw");
  } catch (err) {
    return false;
  }
}

function handle(frame) {
  let msg;
  try {
    msg = decode(frame);
  } catch (err) {
    log(`ignored an undecodable message: ${err}`);
    return { reply: null, exit: false };
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    log("ignored a message that is not a map");
    return { reply: null, exit: false };
  }
  const isRequest = msg.type === "act" || msg.type === "draw";
  if (isRequest && !(Number.isInteger(msg.seq) || typeof msg.seq === "bigint")) {
    log("ignored a request without a usable seq");
    return { reply: null, exit: false };
  }
  const legal = msg.legal || {};
  const state = msg.state || {};
  switch (msg.type) {
    case "act": {
      const { action, amount } = decide(legal);
      return { reply: actionReply(msg.seq, action, amount), exit: false };
    }
    case "draw":
      return { reply: discardReply(msg.seq, discards(state.cards || [], legal.max_discards || 0)), exit: false };
    case "match_end":
      return { reply: null, exit: true };
    case "error":
      log(`referee error ${msg.reason}: ${msg.message}`);
      return { reply: null, exit: msg.fatal === true };
    case "welcome":
    case "match_start":
    case "hand_start":
    case "hand_end":
      return { reply: null, exit: false };
    default:
      log(`ignored a message of unknown type ${JSON.stringify(msg.type)}`);
      return { reply: null, exit: false };
  }
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
      // A request with another message already queued behind it has timed out (PROTOCOL.md section 8):
      // skip it unanswered, so one slow decision costs one timeout. `readable` is ZMQ_EVENTS's POLLIN.
      if (sock.readable && isRequestFrame(frames[0])) {
        log("skipped a request that timed out (another message is queued behind it)");
        continue;
      }
      const { reply, exit } = handle(frames[0]);
      if (reply) await sock.send(reply);
      if (exit) return 0;
    }
  } finally {
    sock.events.close();
    sock.close();
  }
}

module.exports = { handle, actionReply, discardReply, decode };

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      log(`crashed: ${err && err.stack ? err.stack : err}`);
      process.exit(1);
    },
  );
}
