/**
 * The application under test of the high-availability scenarios (test/integration/ha): the
 * crash suite's aggregate workload (pass-through to OUTPUT plus a running "count:sum:last"
 * per key in the changelogged store "agg", written to AGG_OUTPUT), in its own process so the
 * harness can start, stop and SIGKILL instances, and reporting what the harness measures.
 *
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, AGG_OUTPUT, STATE_DIR, GUARANTEE
 * (exactly_once | at_least_once), COMMIT_INTERVAL_MS, SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS,
 * TRANSACTION_TIMEOUT_MS; EXTRA_CONFIG: a JSON object of further StreamsConfig settings
 * (numStandbyReplicas, groupInstanceId, httpPort, applicationServer, ...), passed as is so a
 * scenario can name settings without this file knowing them. Fault points of
 * lib/runtime/fault-points.ts are armed by their own variables.
 *
 * stdout: one JSON line whenever the report changes, and at least every second:
 *   {"t","pid","state","tasks","standby","restoring","processed","restored","lastCommit","httpPort","standbyOffsets"}
 *   (standbyOffsets: per standby task, the next changelog offset its stores hold, where the
 *   app can say it; with one store per task that is the standby's position in its changelog)
 *   on SIGTERM, before closing: {"store":[[key,value],...],"tasks":[...]} (the verifier's store dump)
 * stderr: the library's JSON log lines. Exit code 0 after SIGTERM, 3 when the app entered ERROR.
 */
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { StreamsApp, type StreamsConfig } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { requireEnv as env } from "./run-worker.ts";

const number = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`ha-worker: ${name} must be a positive number, got ${process.env[name]}`);
  return value;
};
const extra = JSON.parse(process.env["EXTRA_CONFIG"] ?? "{}") as Partial<StreamsConfig>;
if (typeof extra !== "object" || extra === null || Array.isArray(extra)) throw new Error("ha-worker: EXTRA_CONFIG must be a JSON object of StreamsConfig settings");
const guarantee = process.env["GUARANTEE"] ?? "exactly_once";
if (guarantee !== "exactly_once" && guarantee !== "at_least_once") throw new Error(`ha-worker: GUARANTEE must be exactly_once or at_least_once, got ${guarantee}`);

const builder = new StreamsBuilder();
// Same key in and out: each output record lands in the partition its input came from, so the
// verifier compares input and output partition by partition.
const input = builder.stream(env("INPUT"), Consumed.with(Serdes.string(), Serdes.string()));
input.to(env("OUTPUT"), Produced.with(Serdes.string(), Serdes.string()));
input
  .groupByKey()
  .aggregate(
    () => "0:0:-1",
    (_key, value, aggregate) => {
      const seq = Number(value!.slice(value!.lastIndexOf(":") + 1));
      const [count, sum] = aggregate.split(":").map(Number) as [number, number];
      return `${count + 1}:${sum + seq}:${seq}`;
    },
    Materialized.as<string, string>("agg").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()).withCachingDisabled(),
  )
  .toStream()
  .to(env("AGG_OUTPUT"), Produced.with(Serdes.string(), Serdes.string()));

const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  processingGuarantee: guarantee,
  commitIntervalMs: number("COMMIT_INTERVAL_MS", 100),
  sessionTimeoutMs: number("SESSION_TIMEOUT_MS", 6_000),
  heartbeatIntervalMs: number("HEARTBEAT_INTERVAL_MS", 1_000),
  transactionTimeoutMs: number("TRANSACTION_TIMEOUT_MS", 10_000),
  // Every update of the aggregate reaches the output, as in Kafka Streams' EOS test client.
  cacheMaxBytes: 0,
  logger: consoleLogger(`worker-${process.pid}`, "info"),
  ...extra,
});

// Optional: only an app with standby replicas can say which it has and where they stand.
const standbyView = app as unknown as { standbyTasks?: () => string[]; standbyOffsetSums?: () => Record<string, number> };
const standbyOffsets = (): Record<string, number> => standbyView.standbyOffsetSums?.() ?? {};

let last = "";
let lastAt = 0;
const report = () => {
  const s = app.status();
  const body = JSON.stringify({
    state: app.state, tasks: app.activeTasks(), standby: standbyView.standbyTasks?.() ?? s.tasks.standby, restoring: s.tasks.restoring,
    processed: app.processedRecords, restored: app.restoredRecords, lastCommit: s.lastCommit ? Date.parse(s.lastCommit) : null, httpPort: app.httpPort,
    standbyOffsets: standbyOffsets(),
  });
  const now = Date.now();
  // A line at least every second lets the harness tell a stopped process from an idle one.
  if (body === last && now - lastAt < 1000) return;
  last = body;
  lastAt = now;
  process.stdout.write(`${JSON.stringify({ t: now, pid: process.pid, ...JSON.parse(body) })}\n`);
};
app.onStateChange((state) => {
  report();
  if (state === "ERROR") {
    process.stderr.write(`${JSON.stringify({ level: "error", message: "worker exits: app in ERROR", error: app.error?.message })}\n`);
    process.exitCode = 3;
    setTimeout(() => process.exit(3), 2_000);
  }
});
setInterval(report, 50).unref();

// SIGTERM: print this instance's part of the store for the verifier, then close cleanly.
process.once("SIGTERM", () => {
  try {
    const entries = app.store<string, string>("agg").all().map((e) => [e.key, e.value]);
    process.stdout.write(`${JSON.stringify({ store: entries, tasks: app.activeTasks() })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ storeError: (error as Error).message, tasks: app.activeTasks() })}\n`);
  }
  void app.close();
});
await app.start({ handleSignals: false });
