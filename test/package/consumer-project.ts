/**
 * Builds the package the way a release would (dist/ by `npm run build`, then `npm pack`)
 * and installs the tarball into a new project in a temporary folder outside the repo, as a
 * user would: dependencies come from the registry (through the local npm cache when it has
 * them, so a warm machine needs no network).
 */
import { execFile, type ExecFileOptions } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../..");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws on a non-zero exit (the caller asserts on it). */
export function run(command: string, args: string[], options: ExecFileOptions & { cwd: string }): Promise<RunResult> {
  // npm and node of the running Node first on PATH, whatever the caller's shell had.
  const path = [dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter);
  return new Promise((done) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024, ...options, env: { ...process.env, PATH: path, ...options.env } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function runOrThrow(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, { cwd });
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

export interface PackedPackage {
  tarball: string;
  tarballBytes: number;
  files: string[];
  buildMs: number;
}

/** `npm run build` (timed) then `npm pack` of the repo into `destination`. */
export async function buildAndPack(destination: string): Promise<PackedPackage> {
  const started = performance.now();
  await runOrThrow("npm", ["run", "--silent", "build"], repoRoot);
  const buildMs = performance.now() - started;
  // --ignore-scripts: prepack would build dist/ a second time.
  const [report] = JSON.parse(await runOrThrow("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], repoRoot)) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  return { tarball: join(destination, report!.filename), tarballBytes: report!.size, files: report!.files.map((f) => f.path).sort(), buildMs };
}

export interface ConsumerProject {
  dir: string;
  nodeModulesBytes: number;
  remove(): void;
}

/**
 * A new npm project with the tarball installed, the app files of test/package/consumer
 * copied in, and @types/node (the repo's version) for the TypeScript app.
 */
export async function installConsumer(tarball: string): Promise<ConsumerProject> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-consumer-"));
  cpSync(join(import.meta.dirname, "consumer"), dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "sluice-consumer", private: true, type: "module" }, null, 2));
  const typesNode = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies["@types/node"];
  await runOrThrow("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `@types/node@${typesNode}`], dir);
  return { dir, nodeModulesBytes: folderBytes(join(dir, "node_modules")), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function folderBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += folderBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}
