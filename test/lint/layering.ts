/**
 * Enforces the layering of DESIGN.md over lib/ and services/:
 * - an outside dependency is imported only by the folder that owns it;
 * - a lib folder imports only the folders below it (the table in DESIGN.md);
 * - across folders, only a folder's index.ts is imported, never its internals;
 * - services use the public entries only.
 * Run: node test/lint/layering.ts   (exit 1 with one line per violation)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

const owners: Record<string, string> = {
  kafkajs: "lib/kafka",
  "@platformatic/kafka": "lib/kafka",
  "better-sqlite3": "lib/state/sqlite",
  "@opentelemetry/api": "lib/observability", // and every other @opentelemetry/* package
  "@kubernetes/client-node": "services/autoscaler",
};

// Which top-level lib folders each may import (besides itself).
const allowed: Record<string, string[]> = {
  errors: [],
  observability: [],
  serdes: ["errors"],
  kafka: ["errors", "observability"],
  state: ["errors", "observability"],
  processor: ["state", "serdes", "errors", "observability"],
  topology: ["processor", "state", "serdes", "errors"],
  dsl: ["topology", "processor", "state", "serdes", "errors"],
  runtime: ["dsl", "topology", "processor", "state", "serdes", "errors", "kafka", "observability"],
  query: ["runtime", "state", "serdes", "errors", "observability"],
  testing: ["runtime", "dsl", "topology", "processor", "state", "serdes", "errors", "observability", "kafka"],
  cli: ["runtime", "dsl", "topology", "kafka", "state", "serdes", "errors", "observability"],
};

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules") yield* files(path);
    } else if (path.endsWith(".ts")) yield path;
  }
}

function topFolder(libRelative: string): string {
  const parts = libRelative.split("/");
  return parts.length > 1 ? parts[0]! : "index.ts";
}

const violations: string[] = [];
for (const area of ["lib", "services"]) {
  let entries: Generator<string>;
  try {
    entries = files(join(root, area));
  } catch {
    continue;
  }
  for (const file of entries) {
    const rel = relative(root, file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(importPattern)) {
      const spec = match[1] ?? match[2]!;
      const problem = check(rel, spec);
      if (problem) violations.push(`${rel}: imports "${spec}": ${problem}`);
    }
  }
}

function check(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) {
    const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
    // Every OpenTelemetry package (API, SDKs, exporters) belongs to lib/observability.
    const owner = owners[pkg.startsWith("@opentelemetry/") ? "@opentelemetry/api" : pkg];
    if (owner && !file.startsWith(owner + "/")) return `only ${owner} may import ${pkg}`;
    return null;
  }
  const target = relative(root, resolve(dirname(join(root, file)), spec));
  if (file.startsWith("services/")) {
    if (target.startsWith("lib/") && target !== "lib/index.ts" && target !== "lib/testing/index.ts") {
      return 'services use the public entries only ("lib/index.ts" or "lib/testing/index.ts")';
    }
    return null;
  }
  if (!target.startsWith("lib/")) return "lib imports only lib";
  const from = topFolder(relative("lib", file));
  const to = topFolder(relative("lib", target));
  if (from === "index.ts" || from === to) return null;
  if (to === "index.ts") return "a lib folder must not import the public entry (cycle)";
  if (!(allowed[from] ?? []).includes(to)) return `lib/${from} may not import lib/${to} (see the layer table in DESIGN.md)`;
  if (!target.endsWith("/index.ts")) return `import lib/${to} through its index.ts, not its internals`;
  return null;
}

if (violations.length > 0) {
  console.error(`layering: ${violations.length} violation(s)\n` + violations.join("\n"));
  process.exit(1);
}
console.log("layering: ok");
