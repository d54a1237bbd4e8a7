import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * The Java side: Kafka Streams' TopologyTestDriver running every scenario in one JVM.
 * `make setup` resolves the jars with Maven into a classpath file; here the sources are
 * compiled with javac into a folder named by the hash of the sources and that classpath, so
 * an unchanged tree is never rebuilt and concurrent runs never share a half-written build.
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const JAVA_DIR = join(ROOT, "test", "parity", "java");
// Inside the worktree (ignored by git): .tools may be shared with other checkouts.
const BUILD_DIR = join(JAVA_DIR, "target");
const CLASSPATH_FILE = join(BUILD_DIR, "classpath.txt");

export function runJavaOracle(scenariosFile: string, resultsFile: string): void {
  const classes = compile();
  const classpath = `${classes}:${readFileSync(CLASSPATH_FILE, "utf8").trim()}`;
  // The scenarios' RocksDB state directories go to memory where the machine has a tmpfs: it
  // halves the run on a busy disk. The JIT flags suit a short run: start fast, compile little.
  const tmpdir = existsSync("/dev/shm") ? ["-Djava.io.tmpdir=/dev/shm"] : [];
  const jvm = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", ...tmpdir];
  run("java", [...jvm, "-cp", classpath, "dev.sluice.parity.Main", scenariosFile, resultsFile], "running the Kafka Streams scenarios");
}

function compile(): string {
  if (!existsSync(CLASSPATH_FILE)) resolveClasspath();
  const sources = javaSources(join(JAVA_DIR, "src"));
  const hash = createHash("sha256");
  hash.update(readFileSync(CLASSPATH_FILE));
  for (const file of sources) hash.update(relative(JAVA_DIR, file)).update(readFileSync(file));
  const classes = join(BUILD_DIR, `classes-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(classes)) return classes;
  const partial = `${classes}.partial-${process.pid}`;
  run("javac", ["--release", "17", "-encoding", "UTF-8", "-d", partial, "-cp", readFileSync(CLASSPATH_FILE, "utf8").trim(), ...sources], "compiling test/parity/java");
  try {
    renameSync(partial, classes);
  } catch (error) {
    // A concurrent run compiled the same sources first; its build is as good as ours.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(classes)) throw error;
  }
  removeStaleBuilds(classes);
  return classes;
}

function resolveClasspath(): void {
  mkdirSync(BUILD_DIR, { recursive: true });
  run("mvn", ["-B", "-q", "-f", join(JAVA_DIR, "pom.xml"), "dependency:build-classpath", `-Dmdep.outputFile=${CLASSPATH_FILE}`], "resolving Kafka Streams from Maven Central (make setup does this)");
}

/** Builds of older sources, left by earlier runs; an hour's grace spares a run still using one. */
function removeStaleBuilds(current: string): void {
  for (const name of readdirSync(BUILD_DIR)) {
    const path = join(BUILD_DIR, name);
    if (name.startsWith("classes-") && path !== current && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

function javaSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".java"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function run(command: string, args: string[], what: string): void {
  // Ten minutes is far beyond any run (seconds); it only keeps a hung JVM or Maven from hanging the suite.
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    const hint = command === "mvn" ? "apt-get install maven" : "apt-get install openjdk-17-jdk-headless";
    throw new Error(`The parity suite needs ${command} for ${what}, and it is not installed (${hint}).`);
  }
  if (result.error || result.signal) throw new Error(`${what} did not finish (${result.error?.message ?? `${command} stopped by ${result.signal}`}):\n${result.stderr}`);
  if (result.status !== 0) throw new Error(`${what} failed (${command} exited with ${result.status}):\n${result.stderr}${result.stdout}`);
}
