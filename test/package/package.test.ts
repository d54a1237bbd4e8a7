/**
 * The package as a user gets it: `npm pack` of a fresh build, installed into a new project
 * outside the repo, used from plain JavaScript, from strict TypeScript, through its
 * command and as a service on the test run's broker. Prints the package's figures.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestKafka } from "../../lib/testing/test-kafka.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../integration/support.ts";
import { buildAndPack, installConsumer, repoRoot, run, type ConsumerProject, type PackedPackage } from "./consumer-project.ts";
import { importedPackages } from "./imported-packages.ts";

const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
const bin = (name: string) => join(repoRoot, "node_modules/.bin", name);
const lines = ["the quick brown fox", "The lazy dog", "the end", "Fox jumps over the dog"];

/** The oracle: how often each (lower-cased) word occurs, by word. */
function wordCounts(input: string[]): Record<string, string> {
  const counts = new Map<string, number>();
  for (const word of input.flatMap((line) => line.split(/\s+/).filter(Boolean))) counts.set(word.toLowerCase(), (counts.get(word.toLowerCase()) ?? 0) + 1);
  return Object.fromEntries([...counts].sort().map(([word, n]) => [word, String(n)]));
}

let packDir: string;
let packed: PackedPackage;
let project: ConsumerProject;

beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), "sluice-pack-"));
  packed = await buildAndPack(packDir);
  const installStarted = performance.now();
  project = await installConsumer(packed.tarball);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `package: build of dist/ ${(packed.buildMs / 1000).toFixed(1)} s; tarball ${(packed.tarballBytes / 1024).toFixed(0)} kB, ${packed.files.length} files; ` +
      `user project: install ${((performance.now() - installStarted) / 1000).toFixed(1)} s, node_modules ${mb(project.nodeModulesBytes)}`,
  );
}, 300_000);

afterAll(() => {
  project?.remove();
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});

describe("the npm package", () => {
  it("ships the compiled library, its declarations, README and LICENSE, nothing else", () => {
    const outsideDist = packed.files.filter((f) => !f.startsWith("dist/"));
    expect(outsideDist).toEqual(["LICENSE", "README.md", "package.json"]);
    expect(packed.files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    for (const entry of ["dist/index.js", "dist/index.d.ts", "dist/testing/index.js", "dist/testing/index.d.ts", "dist/cli/main.js"]) {
      expect(packed.files).toContain(entry);
    }
  });

  it("depends at run time on exactly the packages lib/ imports", () => {
    const manifest = JSON.parse(readFileSync(join(project.dir, "node_modules/sluice/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    // Optional peers (testcontainers, which only startKafka() loads, lazily) are the user's to install.
    const optionalPeers = Object.keys(manifest.peerDependenciesMeta).filter((name) => manifest.peerDependenciesMeta[name]!.optional);
    expect(optionalPeers).toEqual(["testcontainers"]);
    // Type-only imports count through their @types package: the declarations name them.
    const needed = importedPackages(join(repoRoot, "lib"))
      .filter((name) => !optionalPeers.includes(name))
      .map((name) => (name === "better-sqlite3" ? [name, "@types/better-sqlite3"] : [name]))
      .flat();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(needed.sort());
    const installed = readdirSync(join(project.dir, "node_modules"));
    expect(installed).not.toContain("testcontainers"); // an optional peer: only who uses startKafka() installs it
  });

  it("passes publint and arethetypeswrong", async () => {
    const publint = await run(bin("publint"), ["--strict", packed.tarball], { cwd: packDir });
    expect(publint.code, publint.stdout + publint.stderr).toBe(0);
    // ESM only (Node >= 22 can require() it too): CommonJS resolution is not a target.
    const attw = await run(bin("attw"), ["--profile", "esm-only", packed.tarball], { cwd: packDir });
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  });

  it("runs a plain JavaScript app through sluice/testing's TopologyTestDriver", async () => {
    const result = await run("node", ["driver-app.js"], { cwd: project.dir });
    // The app asserts each emitted count and the store against its own count of the words.
    expect(result.code, result.stderr).toBe(0);
    const { emitted, words } = JSON.parse(result.stdout) as { emitted: number; words: number };
    expect(words).toBeGreaterThan(0);
    expect(emitted).toBeGreaterThan(words); // some words occur more than once: one update each
  });

  it("type-checks a strict nodenext TypeScript app against its declarations and runs the output", async () => {
    const check = await run("node", [tsc, "-p", "tsconfig.json"], { cwd: project.dir });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const result = await run("node", ["out/typed-app.js"], { cwd: project.dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ largeOrders: [["a", 250]] });
  });

  it("installs the sluice command: --help and describe of the app's topology module", async () => {
    const sluice = join(project.dir, "node_modules/.bin/sluice");
    const help = await run(sluice, ["--help"], { cwd: project.dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^\s+reset\b/m);
    expect(help.stdout).toMatch(/^\s+describe\b/m);
    const describe = await run(sluice, ["describe", "topology.js"], { cwd: project.dir });
    expect(describe.code, describe.stderr).toBe(0);
    for (const name of ["lines", "word-counts", "counts-per-word"]) expect(describe.stdout).toContain(name);
  });

  it("runs a StreamsApp from the installed package on the broker", async () => {
    const input = uniqueName("pkg-lines");
    const output = uniqueName("pkg-counts");
    const kafka = new TestKafka(bootstrap());
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-pkg-state-"));
    const child = spawn("node", ["streams-app.js"], {
      cwd: project.dir,
      env: { ...process.env, APP_ID: uniqueName("pkg-app"), INPUT: input, OUTPUT: output, STATE_DIR: stateDir, KAFKA_BOOTSTRAP_SERVERS: bootstrap() },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const reports: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("{")) reports.push(JSON.parse(line) as Record<string, unknown>);
    });
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    try {
      await kafka.createTopics([{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      await kafka.produce(input, lines.map((line, i) => ({ key: `line-${i}`, value: line })));
      await waitFor("the app running", () => reports.some((r) => r["state"] === "RUNNING"), 60_000);
      expect(reports[0]).toEqual({ kafkajsFixes: { groupMessagesPerPartition: true, filterAbortedMessages: true } });

      // The last count per word on the output topic must be the word's count in the input.
      const expected = JSON.stringify(wordCounts(lines));
      const latest = async () => {
        const counts: Record<string, string> = {};
        for (const record of await readTopic(output)) counts[record.key!.toString()] = String(record.value!.readBigInt64BE());
        return JSON.stringify(Object.fromEntries(Object.entries(counts).sort()));
      };
      await waitFor("every word's final count on the output topic", async () => (await latest()) === expected, 60_000);

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await kafka.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
