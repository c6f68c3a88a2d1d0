// Test-only oracle: roll formulas with @dice-roller/rpg-dice-roller (pinned in
// package.json / package-lock.json) and print the totals.
// Input (stdin, JSON): {"seed": 123, "n": 2000, "formulas": ["4d6kh3", ...]}
// Output (stdout, JSON): {"version": "...", "results": {"4d6kh3": [totals...] | {"error": "..."}}}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { DiceRoll, NumberGenerator } from "@dice-roller/rpg-dice-roller";

const require = createRequire(import.meta.url);
const version = require("@dice-roller/rpg-dice-roller/package.json").version;
const input = JSON.parse(readFileSync(0, "utf8"));
const engine = NumberGenerator.engines.MersenneTwister19937.seed(input.seed);
NumberGenerator.generator.engine = engine;
const results = {};
for (const formula of input.formulas) {
  try {
    const totals = new Array(input.n);
    const roll = new DiceRoll(formula);  // parsed once; roll() rolls it afresh
    totals[0] = roll.total;
    for (let i = 1; i < input.n; i++) {
      roll.roll();
      totals[i] = roll.total;
    }
    results[formula] = totals;
  } catch (e) {
    results[formula] = { error: String(e && e.message ? e.message : e) };
  }
}
process.stdout.write(JSON.stringify({ version, results }));
