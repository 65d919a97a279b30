#!/usr/bin/env node
// An arena bot in Node.js: plays Modern Art and Maritime Silk Road legally,
// reading nothing but each decision's `legal` object (docs/protocol.md).
//
//   arena play modern-art -b node=cmd:"node examples/node-bot/bot.js" -b random -b random
//
// One JSON object per line on stdin; one per line on stdout. Answers `start`
// with {"type": "ready"}, each `decide` with an action, and exits when stdin
// closes. Its random choices come from the seed in `start`, so the same seed
// plays the same game again.
"use strict";

const readline = require("readline");

// mulberry32: a small seeded generator (JavaScript's Math.random cannot be seeded).
function generator(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = generator(0);
const between = (low, high) => low + Math.floor(random() * (high - low + 1)); // low..high
const pick = (list) => list[Math.floor(random() * list.length)];
const coin = () => random() < 0.5;

// One function per decision: legal -> action.
const choose = {
  // Modern Art
  play_card: (legal) => ({ card: pick(legal.cards) }),
  add_double: (legal) => ({ card: coin() ? pick(legal.cards) : null }),
  bid: (legal) => ({ bid: coin() ? between(legal.min, Math.min(legal.max, legal.min + 20)) : null }),
  sealed_bid: (legal) => ({ bid: between(legal.min, Math.min(legal.max, 30)) }),
  set_price: (legal) => ({ price: between(legal.min, Math.min(legal.max, legal.min + 30)) }),
  accept_price: () => ({ accept: coin() }),
  flip_phantom: () => ({ flip: coin() }),
  // Maritime Silk Road
  load_ship: (legal) => ({ good: legal.goods[0] }),
  phase1: () => ({ action: "pass" }),
  phase2: (legal) =>
    legal.play.length > 0 && coin()
      ? { action: "play", cards: [pick(legal.play)], slots: [between(0, 5)] }
      : { action: "draw" },
  extra_draw: () => ({ count: 0 }),
};

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    random = generator(Number(BigInt(message.seed) % 4294967296n));
    process.stdout.write('{"type": "ready"}\n');
  } else if (message.type === "decide") {
    const decide = choose[message.decision];
    if (!decide) throw new Error(`unknown decision ${message.decision}`);
    process.stdout.write(JSON.stringify(decide(message.legal)) + "\n");
  }
});
