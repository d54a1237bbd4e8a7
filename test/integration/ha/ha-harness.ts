/**
 * Harness of the standby and warm-up suites: ha-worker.ts processes with their report
 * lines, the input, and the exactly-once verifier of the crash suite.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { createKafkaClient, type KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { InputGenerator } from "../../chaos/support/generator.ts";
import { verify, type Verdict } from "../../chaos/support/verifier.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";

export interface Report {
  t: number;
  state: string;
  tasks: string[];
  standby: string[];
  standbySums: Record<string, number>;
  processed: number;
  restored: number;
}

export class HaWorker {
  readonly name: string;
  readonly child: ChildProcess;
  readonly reports: Report[] = [];
  readonly logFile: string;
  store: [string, string][] | null = null;
  standbyStore: [string, string][] | null = null;
  readonly closed: Promise<void>;

  constructor(name: string, env: Record<string, string>, logDir: string) {
    this.name = name;
    this.logFile = join(logDir, `${name}.log`);
    const log = createWriteStream(this.logFile, { flags: "a" });
    this.child = spawn(process.execPath, [resolve(import.meta.dirname, "ha-worker.ts")], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stderr!.pipe(log);
    this.closed = new Promise((done) => this.child.once("close", () => done()));
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if ("standbyStore" in parsed) this.standbyStore = parsed["standbyStore"] as [string, string][];
        else if ("store" in parsed) this.store = parsed["store"] as [string, string][];
        else if ("state" in parsed) this.reports.push(parsed as unknown as Report);
      } catch {
        log.write(`stdout: ${line}\n`);
      }
    });
  }

  latest(): Report | undefined {
    return this.reports.at(-1);
  }

  waitFor(what: string, test: (r: Report) => boolean, timeoutMs = 60_000): Promise<Report> {
    return waitFor(`${this.name}: ${what} (log ${this.logFile})`, () => {
      const r = this.latest();
      return r && test(r) ? r : null;
    }, timeoutMs);
  }

  async dumpStandbyStore(): Promise<[string, string][]> {
    this.standbyStore = null;
    this.child.kill("SIGUSR2");
    return waitFor(`${this.name}: standby store dump`, () => this.standbyStore);
  }

  kill(): Promise<void> {
    this.child.kill("SIGKILL");
    return this.closed;
  }

  async stop(): Promise<void> {
    this.child.kill("SIGTERM");
    await this.closed;
  }
}

/** One application under test: its topics, input generator, workers and verdict. */
export class HaRun {
  readonly applicationId = uniqueName("ha");
  readonly input = uniqueName("ha-in");
  readonly output = uniqueName("ha-out");
  readonly aggregateOutput = uniqueName("ha-agg");
  readonly changelog = `${this.applicationId}-agg-changelog`;
  readonly logDir = mkdtempSync(join(tmpdir(), "sluice-ha-"));
  readonly workers: HaWorker[] = [];
  readonly admin: KafkaAdmin;
  readonly generator: InputGenerator;
  readonly #partitions: number;
  readonly #settings: Record<string, string>;

  constructor(partitions: number, settings: Record<string, string>, keys = 40) {
    this.#partitions = partitions;
    this.#settings = settings;
    this.admin = createKafkaClient({ clientId: uniqueName("ha-admin"), brokers: [bootstrap()] }, silentLogger).admin();
    this.generator = new InputGenerator({ bootstrap: bootstrap(), topic: this.input, keys, rate: 400 });
  }

  async setUp(): Promise<void> {
    await this.admin.connect();
    const partitions = this.#partitions;
    await this.admin.createTopics([this.input, this.output, this.aggregateOutput].map((name) => ({ name, partitions })));
    await this.generator.connect();
  }

  start(name: string): HaWorker {
    const worker = new HaWorker(name, {
      KAFKA_BOOTSTRAP_SERVERS: bootstrap(),
      APP_ID: this.applicationId,
      INPUT: this.input,
      OUTPUT: this.output,
      AGG_OUTPUT: this.aggregateOutput,
      STATE_DIR: join(this.logDir, `state-${name}`),
      ...this.#settings,
    }, this.logDir);
    this.workers.push(worker);
    return worker;
  }

  /** Records in the changelog partition (its high watermark: records plus commit markers). */
  async changelogEnd(partition: number): Promise<number> {
    const rows = await this.admin.offsets(this.changelog);
    return rows.find((r) => r.partition === partition)?.latest ?? 0;
  }

  /** Waits until every input record is processed and committed by the live workers. */
  async drained(): Promise<void> {
    await waitFor("input consumed and committed", async () => {
      const ends = await this.admin.offsets(this.input);
      const committed = new Map((await this.admin.committedOffsets(this.applicationId, [this.input])).map((o) => [o.partition, o.offset]));
      return ends.every((e) => committed.get(e.partition) === e.latest);
    }, 120_000);
  }

  /** Stops the live workers cleanly (their active stores are printed) and verifies the output. */
  async verdict(live: HaWorker[]): Promise<Verdict> {
    await Promise.all(live.map((w) => w.stop()));
    return verify({
      bootstrap: bootstrap(),
      applicationId: this.applicationId,
      input: this.input,
      output: this.output,
      guarantee: "exactly_once",
      aggregateOutput: this.aggregateOutput,
      storeDumps: live.map((w) => (w.store ? { store: w.store, tasks: [] } : null)),
    });
  }

  async tearDown(): Promise<void> {
    await this.generator.close().catch(() => undefined);
    for (const w of this.workers) if (w.child.exitCode === null && w.child.signalCode === null) await w.kill();
    await this.admin.disconnect().catch(() => undefined);
  }
}
