/**
 * A multi-process deployment of one stateful app for the high-availability scenarios: its
 * topics, the crash suite's keyed input generator writing throughout (values "<key>:<seq>"),
 * named instances of ha-worker.ts started, stopped and SIGKILLed at will (a restarted name
 * keeps its state directory, as a pod keeps its volume), the progress probe, and at the end
 * drain, a clean stop of every instance and the crash suite's verifier (no loss, no
 * duplicate, output in input order, every running aggregate and stored value exact).
 * Every process it started is killed in close().
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafkaClient, type KafkaAdmin } from "../../../../lib/kafka/index.ts";
import { silentLogger } from "../../../../lib/observability/index.ts";
import { InputGenerator } from "../../../chaos/support/generator.ts";
import { verify, type Verdict } from "../../../chaos/support/verifier.ts";
import { uniqueName } from "../../support.ts";
import { Instance } from "./instance.ts";
import { ProgressProbe } from "./progress-probe.ts";

export interface ClusterConfig {
  name: string;
  bootstrap: string;
  guarantee?: "exactly_once" | "at_least_once";
  partitions?: number;
  keys?: number;
  /** Input records per second while the generator runs. */
  rate?: number;
  commitIntervalMs?: number;
  sessionTimeoutMs?: number;
  /** Further StreamsConfig settings of an instance (standbys, static membership, ...), by name. */
  extraConfig?: (name: string) => Record<string, unknown>;
}

/** Something the scenario did, for the figures (what happened at `t`). */
export interface ClusterEvent {
  t: number;
  kind: "start" | "stop" | "kill";
  name: string;
  /** Kill only: committed input offsets once the process was gone (it can commit nothing more). */
  committedAfter?: Map<number, number>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class HaCluster {
  readonly config: Required<ClusterConfig>;
  readonly applicationId: string;
  readonly input: string;
  readonly output: string;
  readonly aggregateOutput: string;
  readonly logDir = mkdtempSync(join(tmpdir(), "sluice-ha-logs-"));
  readonly stateRoot = mkdtempSync(join(tmpdir(), "sluice-ha-state-"));
  readonly generator: InputGenerator;
  readonly admin: KafkaAdmin;
  readonly probe: ProgressProbe;
  /** The current process of each name, and every process ever started. */
  readonly instances = new Map<string, Instance>();
  readonly all: Instance[] = [];
  readonly events: ClusterEvent[] = [];

  constructor(config: ClusterConfig) {
    this.config = {
      guarantee: "exactly_once", partitions: 6, keys: 60, rate: 300, commitIntervalMs: 100, sessionTimeoutMs: 6_000, extraConfig: () => ({}), ...config,
    };
    this.applicationId = uniqueName(`ha-${config.name.replace(/[^a-z0-9]+/gi, "-")}`.slice(0, 60));
    this.input = `${this.applicationId}-in`;
    this.output = `${this.applicationId}-out`;
    this.aggregateOutput = `${this.applicationId}-agg`;
    this.generator = new InputGenerator({ bootstrap: config.bootstrap, topic: this.input, keys: this.config.keys, rate: this.config.rate });
    this.admin = createKafkaClient({ clientId: "ha-harness", brokers: [config.bootstrap] }, silentLogger).admin();
    this.probe = new ProgressProbe(this.admin, this.applicationId, this.input);
  }

  /** Topics, then input starts flowing and the probe starts watching. */
  async open(): Promise<void> {
    await this.admin.connect();
    await this.admin.createTopics([this.input, this.output, this.aggregateOutput].map((name) => ({ name, partitions: this.config.partitions })));
    await this.generator.connect();
    this.generator.start();
    this.probe.start();
  }

  get taskIds(): string[] {
    return Array.from({ length: this.config.partitions }, (_, p) => `0_${p}`);
  }

  instance(name: string): Instance {
    const found = this.instances.get(name);
    if (!found) throw new Error(`no instance ${name}`);
    return found;
  }

  live(): Instance[] {
    return [...this.instances.values()].filter((i) => i.alive);
  }

  start(name: string, env: Record<string, string> = {}): Instance {
    const c = this.config;
    const instance = new Instance(name, {
      KAFKA_BOOTSTRAP_SERVERS: c.bootstrap, APP_ID: this.applicationId, INPUT: this.input, OUTPUT: this.output, AGG_OUTPUT: this.aggregateOutput,
      STATE_DIR: join(this.stateRoot, name), GUARANTEE: c.guarantee, COMMIT_INTERVAL_MS: String(c.commitIntervalMs),
      SESSION_TIMEOUT_MS: String(c.sessionTimeoutMs), EXTRA_CONFIG: JSON.stringify(c.extraConfig(name)), ...env,
    }, this.logDir);
    this.instances.set(name, instance);
    this.all.push(instance);
    this.events.push({ t: instance.startedAt, kind: "start", name });
    return instance;
  }

  /** A clean stop (SIGTERM: commit, leave the group); fails when the instance does not exit with 0. */
  async stop(name: string): Promise<void> {
    const t = Date.now();
    const code = await this.instance(name).terminate();
    this.events.push({ t, kind: "stop", name });
    if (code !== 0) throw new Error(`instance ${name} exited with ${code} on SIGTERM\n${this.instance(name).logTail()}`);
  }

  /** SIGKILL: no commit, no leave-group; the group notices after the session timeout. */
  async kill(name: string): Promise<void> {
    const t = Date.now();
    await this.instance(name).kill();
    const committedAfter = new Map((await this.admin.committedOffsets(this.applicationId, [this.input])).map((o) => [o.partition, o.offset]));
    this.events.push({ t, kind: "kill", name, committedAfter });
  }

  /** Until every live instance is RUNNING, restores nothing, and together they run every task exactly once. */
  async waitBalanced(timeoutMs = 120_000): Promise<void> {
    const want = this.taskIds.join(",");
    await this.until("every task running exactly once on the live instances", timeoutMs, () => {
      const live = this.live();
      const tasks = live.flatMap((i) => i.tasks).sort().join(",");
      return live.length > 0 && live.every((i) => i.running && (i.latest?.restoring.length ?? 0) === 0) && tasks === want;
    });
  }

  /** Until every partition's committed offset moved past what it was when this was called. */
  async waitProgress(timeoutMs = 120_000): Promise<void> {
    const snapshot = this.probe.committed();
    await this.until("progress on every partition", timeoutMs, () => this.probe.movedPast(snapshot, this.config.partitions));
  }

  /** Who ran `task` at time `t`, by the instances' own reports. */
  ownerAt(task: string, t: number): Instance | null {
    return this.all.find((i) => i.startedAt <= t && (i.exitedAt === 0 || i.exitedAt > t) && (i.at(t)?.tasks ?? []).includes(task)) ?? null;
  }

  /** Stops input and waits until every input record is committed. */
  async drain(): Promise<void> {
    await this.generator.stop();
    await this.until("committed offsets reach the input's end", 180_000, async () => {
      const ends = await this.admin.offsets(this.input);
      const committed = this.probe.committed();
      return ends.every((e) => e.latest === e.earliest || committed.get(e.partition) === e.latest);
    });
  }

  /**
   * Drains, stops every instance at once (each prints the store of the tasks it ran) and runs
   * the verifier.
   */
  async finish(): Promise<Verdict> {
    await this.drain();
    const stopping = this.live();
    const codes = await Promise.all(stopping.map((i) => i.terminate()));
    const failed = stopping.flatMap((i, n) => (codes[n] === 0 ? [] : [`${i.name}: exit ${codes[n]}`]));
    if (failed.length > 0) throw new Error(`instances that did not stop cleanly: ${failed.join(", ")}`);
    await this.until("the group has no members", 60_000, async () => (await this.admin.describeGroup(this.applicationId)).members.length === 0);
    this.probe.stop();
    const unasked = this.all.filter((i) => !i.expectedExit).map((i) => `${i.name} pid ${i.child.pid}: ${JSON.stringify(i.exit)}`);
    if (unasked.length > 0) throw new Error(`instances that exited unasked: ${unasked.join(", ")}`);
    return verify({
      bootstrap: this.config.bootstrap, applicationId: this.applicationId, input: this.input, output: this.output, guarantee: this.config.guarantee,
      aggregateOutput: this.aggregateOutput, storeDumps: stopping.map((i) => i.storeDump),
    });
  }

  /** The instances' log tails, for a failure message. */
  logs(): string {
    return this.all.map((i) => `--- ${i.name} pid ${i.child.pid} exit ${JSON.stringify(i.exit)} (${i.logFile})\n${i.logTail(10)}`).join("\n");
  }

  async close(): Promise<void> {
    this.probe.stop();
    for (const i of this.all) if (i.alive) await i.kill();
    await this.generator.close();
    await this.admin.disconnect().catch(() => undefined);
    rmSync(this.stateRoot, { recursive: true, force: true });
  }

  async until(what: string, timeoutMs: number, probe: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const crashed = this.all.find((i) => !i.alive && !i.expectedExit);
      if (crashed) throw new Error(`instance ${crashed.name} exited unasked (${JSON.stringify(crashed.exit)}) while waiting for ${what}\n${crashed.logTail()}`);
      try {
        if (await probe()) return;
      } catch {
        // the broker may be busy for a moment
      }
      if (Date.now() > deadline) throw new Error(`safety limit: ${what} did not happen within ${timeoutMs / 1000} s`);
      await sleep(200);
    }
  }
}
