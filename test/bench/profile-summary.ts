/**
 * Prints where a `node --cpu-prof` profile spent its time: the top functions by self time,
 * and self time grouped by source area (lib/state, kafkajs, better-sqlite3, GC, ...).
 * Usage: node test/bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topText] = process.argv.slice(2);
if (!file) throw new Error("usage: node test/bench/profile-summary.ts <file.cpuprofile> [top]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const functions = new Map<string, number>();
const areas = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === "(idle)") {
    idle += micros;
    continue;
  }
  total += micros;
  const where = frame.url.replace(/^file:\/\//, "").replace(/.*\/(node_modules|lib|test)\//, "$1/");
  const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + micros);
  areas.set(area(frame), (areas.get(area(frame)) ?? 0) + micros);
}

const percent = (micros: number) => `${((micros / total) * 100).toFixed(1)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle`);
console.log("\nself time by area:");
for (const [name, micros] of [...areas].sort((a, b) => b[1] - a[1])) console.log(`  ${percent(micros).padStart(6)}  ${name}`);
console.log(`\ntop ${Number(topText ?? 25)} functions by self time:`);
for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(topText ?? 25))) {
  console.log(`  ${percent(micros).padStart(6)}  ${name}`);
}

function area(frame: ProfileNode["callFrame"]): string {
  const url = frame.url;
  if (frame.functionName === "(garbage collector)") return "garbage collection";
  if (frame.functionName === "(program)") return "(program: native, outside JS)";
  if (url.includes("node_modules/kafkajs")) return "kafkajs";
  if (url.includes("node_modules/better-sqlite3")) return "better-sqlite3 (JS side)";
  const lib = /\/lib\/([^/]+)\//.exec(url);
  if (lib) return `lib/${lib[1]}`;
  if (url.startsWith("node:")) return "node core";
  if (url === "") return `native: ${frame.functionName}`;
  return "other";
}
