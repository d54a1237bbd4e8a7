import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors/index.ts";
import { Topology } from "../topology/index.ts";

/**
 * The module convention of the `sluice` command, shown in its help: what a topology
 * module exports and why importing it must not start anything.
 */
export const moduleConvention = `A topology module is a JavaScript file (or TypeScript, when your Node runs .ts files)
that exports a function without arguments returning the Topology, named "topology",
the default export, or a name ending in "Topology" (or exports the Topology itself).
sluice IMPORTS the module to find it, so importing it must have no side effects: build
the topology inside that function and start the StreamsApp from another file (main.js).`;

/**
 * Imports a module and finds its topology (see moduleConvention): the exports "topology",
 * then default, then any export whose name ends in "Topology", each either a Topology or a
 * function without arguments returning one. Only those are called.
 */
export async function loadTopology(modulePath: string): Promise<Topology> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new ConfigError(`topology module ${modulePath} does not exist (looked at ${file})`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`importing the topology module ${modulePath} failed: ${(error as Error).message}`, { cause: error });
  }
  const names = ["topology", "default", ...Object.keys(module).filter((name) => name.endsWith("Topology"))];
  for (const name of names) {
    const candidate = module[name];
    if (candidate instanceof Topology) return candidate;
    if (typeof candidate === "function" && candidate.length === 0) {
      const built = (candidate as () => unknown)();
      if (built instanceof Topology) return built;
    }
  }
  throw new ConfigError(
    `${modulePath} exports no topology (its exports: ${Object.keys(module).join(", ") || "none"}): export a function without arguments returning the Topology as "topology" or default`,
  );
}
