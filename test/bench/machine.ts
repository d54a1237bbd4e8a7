/** The machine, versions and load a benchmark ran with, for the report's header. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { resolve } from "node:path";
import type { Broker } from "../broker/provider.ts";
import { QUIX_PYTHON } from "./systems.ts";

/** A tool's answer (java -version writes to stderr), or "unknown". */
const quiet = (cmd: string, args: string[]): string => {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return (r.status === 0 && (r.stdout.trim() || r.stderr.trim())) || "unknown";
};

const repo = resolve(import.meta.dirname, "../..");

// Taken when the benchmark starts, which compiles the code it runs: a full run takes hours,
// and a commit made meanwhile must not be named as the code that ran.
export const sluiceCommit = ((): string => {
  const commit = quiet("git", ["-C", repo, "rev-parse", "--short", "HEAD"]);
  const changed = spawnSync("git", ["-C", repo, "status", "--porcelain", "--", "lib", "test/bench", ":!test/bench/results"], { encoding: "utf8" }).stdout?.trim();
  return changed ? `${commit} with uncommitted changes to lib/ or test/bench/` : commit;
})();

/** Cores, processor and memory: "2 cores (Intel(R) Xeon(R) Processor), 24 GiB". */
export function machineName(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${Math.round(totalmem() / 2 ** 30)} GiB`;
}

export function machineReport(broker: Broker): string {
  const java = quiet("java", ["-version"]);
  const javaVersion = /version "([^"]+)"/.exec(java)?.[1] ?? java.split("\n")[0];
  const quix = quiet(QUIX_PYTHON, ["-c", "import warnings; warnings.simplefilter('ignore'); import quixstreams, sys; print(quixstreams.__version__, sys.version.split()[0])"]).split(" ");
  const pom = quiet("sed", ["-n", "s:.*<kafka.version>\\(.*\\)</kafka.version>.*:\\1:p", resolve(import.meta.dirname, "kstreams/pom.xml")]);
  const load = loadavg().map((l) => l.toFixed(1)).join(" ");
  return [
    `- Machine: ${machineName()}; load average at the end ${load}; broker, harness and system under test share it.`,
    `- Broker: Kafka ${broker.version} (${broker.provider}), one node.`,
    `- Sluice: git ${sluiceCommit}, Node ${process.version}; clients kafkajs ${packageVersion("kafkajs")}, @platformatic/kafka ${packageVersion("@platformatic/kafka")}.`,
    `- Kafka Streams ${pom}, Java ${javaVersion}.`,
    `- Quix Streams ${quix[0]}, Python ${quix[1] ?? "?"}.`,
  ].join("\n");
}

/** The installed version of a package, from its package.json under node_modules. */
function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(resolve(repo, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}
