import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../errors/index.ts";
import { Topology } from "../topology/index.ts";

/**
 * Loads a module and finds its topology: a default or `topology` export that is a
 * Topology, or a function returning one (called without arguments).
 */
export async function loadTopology(modulePath: string): Promise<Topology> {
  const url = pathToFileURL(resolve(modulePath)).href;
  const module = (await import(url)) as Record<string, unknown>;
  for (const name of ["topology", "default", ...Object.keys(module)]) {
    const candidate = module[name];
    if (candidate instanceof Topology) return candidate;
    if (typeof candidate === "function" && candidate.length === 0) {
      const built = (candidate as () => unknown)();
      if (built instanceof Topology) return built;
    }
  }
  throw new ConfigError(`${modulePath} exports no topology: export a Topology (or a function without arguments returning one) as "topology" or default`);
}
