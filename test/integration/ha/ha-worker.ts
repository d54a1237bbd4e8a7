/**
 * The application under test of the standby and warm-up suites: eos-worker's topology
 * (pass-through plus a running aggregate "count:sum:last" per key, cache off) with the
 * assignment settings from the environment, in its own process so the harness can kill -9 it.
 *
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, AGG_OUTPUT, STATE_DIR,
 * NUM_STANDBY_REPLICAS, ACCEPTABLE_RECOVERY_LAG, MAX_WARMUP_REPLICAS, PROBING_INTERVAL_MS.
 * stdout: a JSON line whenever the report changes, and at least every second:
 *   {"t","state","tasks","standby","standbySums","processed","restored"}
 *   SIGUSR2: {"standbyStore":[[key,value],...]}: the aggregate store of its standby replicas;
 *   SIGTERM: {"store":[[key,value],...],"tasks":[...]} (its active store), then a clean close.
 */
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { ReadOnlyKeyValueStore } from "../../../lib/state/index.ts";
import { requireEnv } from "../workers/run-worker.ts";

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const builder = new StreamsBuilder();
const input = builder.stream(requireEnv("INPUT"), Consumed.with(Serdes.string(), Serdes.string()));
input.to(requireEnv("OUTPUT"), Produced.with(Serdes.string(), Serdes.string()));
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
  .to(requireEnv("AGG_OUTPUT"), Produced.with(Serdes.string(), Serdes.string()));

const app = new StreamsApp(builder.build(), {
  applicationId: requireEnv("APP_ID"),
  bootstrapServers: requireEnv("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: requireEnv("STATE_DIR"),
  processingGuarantee: "exactly_once",
  commitIntervalMs: 200,
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 1_000,
  cacheMaxBytes: 0,
  numStandbyReplicas: number("NUM_STANDBY_REPLICAS", 0),
  acceptableRecoveryLag: number("ACCEPTABLE_RECOVERY_LAG", 10_000),
  maxWarmupReplicas: number("MAX_WARMUP_REPLICAS", 2),
  probingRebalanceIntervalMs: number("PROBING_INTERVAL_MS", 600_000),
  logger: consoleLogger(`ha-worker-${process.pid}`, "info"),
});

let last = "";
let lastAt = 0;
const report = () => {
  const body = JSON.stringify({
    state: app.state,
    tasks: app.activeTasks(),
    standby: app.standbyTasks(),
    standbySums: app.standbyOffsetSums(),
    processed: app.processedRecords,
    restored: app.restoredRecords,
  });
  const now = Date.now();
  if (body === last && now - lastAt < 1000) return;
  last = body;
  lastAt = now;
  process.stdout.write(`${JSON.stringify({ t: now, ...JSON.parse(body) })}\n`);
};
app.onStateChange(report);
setInterval(report, 100).unref();

process.on("SIGUSR2", () => {
  const entries = (app.standbyStores("agg") as ReadOnlyKeyValueStore<string, string>[]).flatMap((s) => s.all().map((e) => [e.key, e.value]));
  process.stdout.write(`${JSON.stringify({ standbyStore: entries })}\n`);
});
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
