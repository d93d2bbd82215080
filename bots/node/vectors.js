#!/usr/bin/env node
// protocol/vectors/ (its README.md) through the Node bot's handle(): node vectors.js DIR
// Prints `reply NAME HEX` per reply and `ok ...`, or `FAIL ...` lines on stderr (exit status 1).
"use strict";

const fs = require("fs");
const path = require("path");
const { handle, actionReply, discardReply, decode } = require("./bot.js");

function same(a, b) {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
  return typeof v === "bigint" ? Number(v) : v;
}

function main(dir) {
  const vectors = JSON.parse(fs.readFileSync(path.join(dir, "messages.json"), "utf8"));
  const bytes = (v) => Buffer.from(v.hex, "hex");
  const failures = [];
  for (const v of vectors.requests) {
    // bot.js reads seq, legal.actions, legal.max_discards and state.cards: those are checked.
    const msg = decode(bytes(v));
    const read = v.read;
    const ok = msg.seq === read.seq && msg.type === read.type && same(msg.state.cards, read.cards) &&
      same(msg.legal.actions, read.actions) && msg.legal.max_discards === read.max_discards;
    const { reply } = handle(bytes(v));
    const answer = reply ? decode(reply) : null;
    const kind = read.type === "act" ? "action" : "discard";
    if (!ok || !answer || answer.type !== kind || answer.seq !== read.seq) failures.push(`request ${v.name}`);
  }
  for (const v of vectors.notifications) {
    const { reply, exit } = handle(bytes(v));
    if (reply || exit !== v.exit) failures.push(`notification ${v.name}`);
  }
  for (const v of vectors.bad_requests) {
    const { reply, exit } = handle(bytes(v));
    if (reply || exit) failures.push(`bad request (not ignored) ${v.name}`);
  }
  for (const v of vectors.replies) {
    const d = v.decision;
    const data = d.cards ? discardReply(d.seq, d.cards) : actionReply(d.seq, d.action, d.amount);
    if (!same(decode(data), v.value)) failures.push(`reply (not the expected map) ${v.name}`);
    process.stdout.write(`reply ${v.name} ${Buffer.from(data).toString("hex")}\n`);
  }
  for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
  if (failures.length) return 1;
  process.stdout.write("ok messages\n");
  return 0;
}

process.exitCode = main(process.argv[2] || path.join(__dirname, "..", "..", "protocol", "vectors"));
