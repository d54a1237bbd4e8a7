/**
 * `make bench-docs` (or `make bench BENCH_DOCS=1`): copies test/bench/results/latest.md into
 * docs/benchmarks.md between its "bench-compare" markers, so the docs show the last run.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const START = "<!-- bench-compare:start -->";
const END = "<!-- bench-compare:end -->";
const docsPath = resolve(import.meta.dirname, "../../docs/benchmarks.md");
const latest = readFileSync(resolve(import.meta.dirname, "results/latest.md"), "utf8")
  // The report's own title becomes a sub-heading of the docs page.
  .replace(/^# .*\n/, "")
  .trim();
const docs = readFileSync(docsPath, "utf8");
const from = docs.indexOf(START);
const to = docs.indexOf(END);
if (from < 0 || to < from) {
  console.error(`docs/benchmarks.md has no ${START} … ${END} section to fill; add the two markers where the table belongs.`);
  process.exit(1);
}
writeFileSync(docsPath, `${docs.slice(0, from + START.length)}\n${latest}\n${docs.slice(to)}`);
console.error("docs/benchmarks.md: the side-by-side section now shows test/bench/results/latest.md");
