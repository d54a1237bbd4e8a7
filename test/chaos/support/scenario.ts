/**
 * One crash scenario from start to verdict: topics, a generator writing throughout, 1-3
 * worker processes, the faults the scenario injects, then drain, clean stop and the verifier.
 * A supervisor restarts any worker that exits without being asked (as Kubernetes would
 * restart a pod) and counts it. Every process started here is killed in `finally`.
 * The workers run on `kafkaClient` (SLUICE_KAFKA_CLIENT in their environment); the
 * harness's own admin, generator and verifier stay on the process's default client.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafkaClient, type KafkaAdmin, type KafkaClientName, resolveKafkaClient } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { uniqueName } from "../../integration/support.ts";
import { formatRow, recordRow, type FigureRow } from "./figures.ts";
import { InputGenerator } from "./generator.ts";
import { verify, type Verdict } from "./verifier.ts";
import { WorkerProcess, type WorkerSpec } from "./workers.ts";

export interface ScenarioConfig {
  name: string;
  bootstrap: string;
  guarantee: "exactly_once" | "at_least_once";
  /** passthrough (default), or passthrough plus a running aggregate with a local store. */
  workload?: "passthrough" | "aggregate";
  workers: string[];
  partitions?: number;
  keys?: number;
  /** Input records per second while the scenario runs. */
  rate?: number;
  commitIntervalMs?: number;
  sessionTimeoutMs?: number;
  transactionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  lingerMs?: number;
  /** Generation before the first fault and after the last recovery. */
  warmupMs?: number;
  tailMs?: number;
  /** Extra environment of a worker's first run only (fault points). */
  firstRunEnv?: Record<string, Record<string, string>>;
  /** Whether the row goes into test/chaos/last-run.md (the make-test subset only prints it). */
  recordFigures?: boolean;
  /** The workers' Kafka client; default SLUICE_KAFKA_CLIENT, else kafkajs (`make chaos KAFKA_CLIENT=...`). */
  kafkaClient?: KafkaClientName;
}

interface PendingRecovery {
  at: number;
  snapshot: Map<number, number> | null;
  seconds: number | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Scenario {
  readonly config: Required<Omit<ScenarioConfig, "firstRunEnv">> & Pick<ScenarioConfig, "firstRunEnv">;
  readonly applicationId: string;
  readonly input: string;
  readonly output: string;
  readonly aggregateOutput: string;
  readonly logDir = mkdtempSync(join(tmpdir(), "sluice-chaos-logs-"));
  readonly stateRoot = mkdtempSync(join(tmpdir(), "sluice-chaos-state-"));
  readonly generator: InputGenerator;
  readonly workers = new Map<string, WorkerProcess>();
  readonly all: WorkerProcess[] = [];
  readonly recoveries: PendingRecovery[] = [];
  unplannedExits: string[] = [];
  #admin: KafkaAdmin;
  #timer: NodeJS.Timeout | null = null;
  #busy = false;
  #failedStarts = 0;
  /** Offsets committed right after an armed worker killed itself (it may do so before the fault phase). */
  readonly #offsetsAtCrash = new Map<WorkerProcess, Promise<Map<number, number>>>();
  #broken: string | null = null;

  constructor(config: ScenarioConfig) {
    this.config = {
      partitions: 4, keys: 40, rate: 300, commitIntervalMs: 200, sessionTimeoutMs: 6_000, transactionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000, lingerMs: 100, warmupMs: 3_000, tailMs: 2_000, recordFigures: true, workload: "passthrough", ...config,
      kafkaClient: resolveKafkaClient(config.kafkaClient),
    };
    this.applicationId = uniqueName(`chaos-${config.name.replace(/[^a-z0-9]+/gi, "-")}`);
    this.input = `${this.applicationId}-in`;
    this.output = `${this.applicationId}-out`;
    this.aggregateOutput = `${this.applicationId}-agg`;
    this.generator = new InputGenerator({ bootstrap: config.bootstrap, topic: this.input, keys: this.config.keys, rate: this.config.rate });
    this.#admin = createKafkaClient({ clientId: "chaos-harness", brokers: [config.bootstrap] }, silentLogger).admin();
  }

  spec(name: string): WorkerSpec {
    const c = this.config;
    return {
      name,
      logDir: this.logDir,
      env: {
        KAFKA_BOOTSTRAP_SERVERS: c.bootstrap, APP_ID: this.applicationId, INPUT: this.input, OUTPUT: this.output,
        STATE_DIR: join(this.stateRoot, name), GUARANTEE: c.guarantee, WORKLOAD: c.workload, AGG_OUTPUT: this.aggregateOutput,
        COMMIT_INTERVAL_MS: String(c.commitIntervalMs), SESSION_TIMEOUT_MS: String(c.sessionTimeoutMs),
        TRANSACTION_TIMEOUT_MS: String(c.transactionTimeoutMs), HEARTBEAT_INTERVAL_MS: String(c.heartbeatIntervalMs),
        SLUICE_KAFKA_CLIENT: c.kafkaClient,
        LINGER_MS: String(c.lingerMs),
      },
    };
  }

  worker(name: string): WorkerProcess {
    const w = this.workers.get(name);
    if (!w) throw new Error(`no worker ${name}`);
    return w;
  }

  start(name: string, extraEnv: Record<string, string> = {}): WorkerProcess {
    const w = new WorkerProcess(this.spec(name), extraEnv);
    if (extraEnv["SLUICE_FAULT_POINT"]) this.#offsetsAtCrash.set(w, w.exited.then(() => this.#committed()).catch(() => new Map<number, number>()));
    this.workers.set(name, w);
    this.all.push(w);
    return w;
  }

  /** SIGKILL, then a new process in the same state directory; the kill counts as a fault. */
  async killAndRestart(name: string, beforeRestart?: () => void): Promise<void> {
    this.markFault();
    await this.worker(name).kill();
    beforeRestart?.();
    this.start(name);
  }

  /** A worker armed with a fault point kills itself there: wait for it, count the fault, restart it (armed again if asked). */
  async crashAtFaultPointAndRestart(name: string, restartEnv: Record<string, string> = {}, timeoutMs = 120_000): Promise<void> {
    const w = this.worker(name);
    const timer = setTimeout(() => void w.kill(), timeoutMs);
    const exit = await w.exited;
    clearTimeout(timer);
    if (exit.signal !== "SIGKILL" || w.expectedExit) throw new Error(`worker ${name} did not reach its fault point (exit ${JSON.stringify(exit)})`);
    this.markFault(w.exitedAt, this.#offsetsAtCrash.get(w));
    this.start(name, restartEnv);
  }

  /** Removes a (stopped) worker's state directory: a pod rescheduled without its volume. */
  wipeState(name: string): void {
    rmSync(join(this.stateRoot, name), { recursive: true, force: true });
  }

  /** Starts measuring recovery: seconds until every input partition's committed offset moves past its value now. */
  markFault(at = Date.now(), offsets: Promise<Map<number, number>> = this.#committed()): void {
    const pending: PendingRecovery = { at, snapshot: null, seconds: null };
    this.recoveries.push(pending);
    void offsets.then((m) => (pending.snapshot = m), () => (pending.snapshot = new Map()));
  }

  /** Until every live worker is RUNNING and together they own every task exactly once. */
  async waitRunning(timeoutMs = 120_000): Promise<void> {
    await this.waitRunningWithout(null, timeoutMs);
  }

  /** As waitRunning, ignoring one (paused) worker whose last report is stale. */
  async waitRunningWithout(paused: string | null, timeoutMs = 120_000): Promise<void> {
    const want = Array.from({ length: this.config.partitions }, (_, p) => `0_${p}`).join(",");
    await this.#until(paused ? `the tasks running without ${paused}` : "all tasks running", timeoutMs, () => {
      const live = [...this.workers.entries()].filter(([name, w]) => w.alive && name !== paused).map(([, w]) => w);
      const tasks = live.flatMap((w) => w.progress?.tasks ?? []).sort().join(",");
      // A worker on another client than asked would make the run test the wrong thing.
      const wrong = live.find((w) => w.progress && w.progress.client !== this.config.kafkaClient);
      if (wrong) this.#broken = `worker ${wrong.spec.name} runs Kafka client ${wrong.progress!.client}, not ${this.config.kafkaClient}`;
      return live.length > 0 && live.every((w) => w.running) && tasks === want;
    });
  }

  async waitRecovered(timeoutMs = 180_000): Promise<void> {
    await this.#until("recovery after every fault", timeoutMs, () => this.recoveries.every((r) => r.seconds !== null));
  }

  sleep(ms: number): Promise<void> {
    return sleep(ms);
  }

  async run(faults: (s: Scenario) => Promise<void>): Promise<{ verdict: Verdict; row: FigureRow; table: string }> {
    const c = this.config;
    try {
      await this.#admin.connect();
      const outputs = c.workload === "aggregate" ? [this.output, this.aggregateOutput] : [this.output];
      await this.#admin.createTopics([this.input, ...outputs].map((name) => ({ name, partitions: c.partitions })));
      await this.generator.connect();
      this.generator.start();
      for (const name of c.workers) this.start(name, c.firstRunEnv?.[name] ?? {});
      this.#timer = setInterval(() => void this.#tick(), 250);
      await this.waitRunning();
      await sleep(c.warmupMs);
      await faults(this);
      await this.waitRecovered();
      await sleep(c.tailMs);
      await this.generator.stop();
      await this.#until("committed offsets reach the input's end", 180_000, () => this.#drained());
      // All at once, so each prints the store of the tasks it ran rather than of tasks
      // handed to it by the others' leaving (which it would still be restoring).
      const stopping = [...this.workers.values()];
      const codes = await Promise.all(stopping.map((w) => w.terminate()));
      codes.forEach((code, i) => code !== 0 && this.unplannedExits.push(`${stopping[i]!.spec.name}: exit ${code} on SIGTERM`));
      await this.#until("the group has no members", 60_000, async () => (await this.#admin.describeGroup(this.applicationId)).members.length === 0);
      const verdict = await verify({
        bootstrap: c.bootstrap, applicationId: this.applicationId, input: this.input, output: this.output, guarantee: c.guarantee,
        ...(c.workload === "aggregate" ? { aggregateOutput: this.aggregateOutput, storeDumps: stopping.map((w) => w.storeDump) } : {}),
      });
      const row = this.#row(verdict);
      const table = c.recordFigures ? recordRow(row) : formatRow(row);
      console.log(`[chaos] ${c.name}: ${JSON.stringify(verdict)}\n[chaos] worker logs: ${this.logDir}\n${formatRow(row)}`);
      return { verdict, row, table };
    } catch (error) {
      const tails = this.all.map((w) => `--- worker ${w.spec.name} pid ${w.pid} exit ${JSON.stringify(w.exit)}\n${w.logTail(15)}`).join("\n");
      throw new Error(`${c.name}: ${(error as Error).message}\nlogs in ${this.logDir}\n${tails}`, { cause: error });
    } finally {
      if (this.#timer) clearInterval(this.#timer);
      for (const w of this.all) if (w.alive) await w.kill();
      await this.generator.close();
      await this.#admin.disconnect().catch(() => undefined);
      rmSync(this.stateRoot, { recursive: true, force: true });
    }
  }

  #row(v: Verdict): FigureRow {
    const problems = [
      v.openTransactions.length > 0 ? `open txns in ${v.openTransactions.join(",")}` : "",
      v.offsetMismatches.length > 0 ? `offsets ${v.offsetMismatches.join(" ")}` : "",
      v.misordered.length > 0 ? `order differs in ${v.misordered.join(",")}` : "",
      v.phantoms > 0 ? `${v.phantoms} phantoms` : "",
      v.aggregate?.firstMismatch ? `aggregate ${v.aggregate.firstMismatch}` : "",
      v.aggregate && v.aggregate.storeProblems.length > 0 ? `store ${v.aggregate.storeProblems[0]}` : "",
    ].filter(Boolean);
    return {
      scenario: this.config.name, client: this.config.kafkaClient, guarantee: this.config.guarantee, recordsIn: v.recordsIn, recordsOut: v.recordsOut,
      duplicates: v.duplicates, losses: v.losses, abortedTransactions: v.abortedTransactions, abortedRecords: v.abortedRecords,
      recoverySeconds: this.recoveries.map((r) => r.seconds ?? NaN), unplannedExits: this.unplannedExits.length,
      aggregate: v.aggregate ? `${v.aggregate.mismatches} / ${v.aggregate.storeMismatches}` : "-",
      verdict: problems.length > 0 ? problems.join("; ") : "ok",
    };
  }

  // Supervision and recovery measurement share one timer so the harness stays one loop.
  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const [name, w] of this.workers) {
        if (w.alive || w.expectedExit || w.extraEnv["SLUICE_FAULT_POINT"]) continue;
        this.unplannedExits.push(`${name}: ${JSON.stringify(w.exit)}`);
        // A worker that dies before its first report cannot start at all (a broken build,
        // a bad config): restarting it forever would only hide that.
        if (w.progress === null && ++this.#failedStarts >= 3) {
          this.#broken = `worker ${name} failed to start three times; last log:\n${w.logTail(20)}`;
          return;
        }
        console.log(`[chaos] worker ${name} exited unasked (${JSON.stringify(w.exit)}); restarting it\n${w.logTail(10)}`);
        this.start(name);
      }
      const open = this.recoveries.filter((r) => r.seconds === null && r.snapshot !== null);
      if (open.length === 0) return;
      const now = await this.#committed();
      for (const r of open) {
        const moved = [...Array(this.config.partitions).keys()].every((p) => (now.get(p) ?? 0) > (r.snapshot!.get(p) ?? 0));
        if (moved) r.seconds = (Date.now() - r.at) / 1000;
      }
    } catch {
      // the broker may be away (broker scenarios); try again on the next tick
    } finally {
      this.#busy = false;
    }
  }

  async #committed(): Promise<Map<number, number>> {
    const rows = await this.#admin.committedOffsets(this.applicationId, [this.input]);
    return new Map(rows.map((r) => [r.partition, r.offset]));
  }

  async #drained(): Promise<boolean> {
    const [ends, committed] = await Promise.all([this.#admin.offsets(this.input), this.#committed()]);
    return ends.every((e) => e.latest === e.earliest || committed.get(e.partition) === e.latest);
  }

  async #until(what: string, timeoutMs: number, probe: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.#broken) throw new Error(this.#broken);
      try {
        if (await probe()) return;
      } catch {
        // the broker may be away for a moment
      }
      if (Date.now() > deadline) throw new Error(`safety limit: ${what} did not happen within ${timeoutMs / 1000} s`);
      await sleep(250);
    }
  }
}
