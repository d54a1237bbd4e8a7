/**
 * The application under test of the exactly-once crash suite (test/chaos, test/integration/eos):
 * a StreamsApp in its own process, so the harness can SIGKILL, SIGSTOP and restart it.
 *
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, STATE_DIR, GUARANTEE (exactly_once |
 * at_least_once), WORKLOAD (passthrough | aggregate), AGG_OUTPUT (for aggregate),
 * COMMIT_INTERVAL_MS, SESSION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, and
 * SLUICE_KAFKA_CLIENT (the Kafka client; default kafkajs), which every progress line names
 * so the harness can check that the worker runs the client it was started for.
 * The fault points of lib/runtime/fault-points.ts are armed by their own variables
 * (SLUICE_FAULT_POINT, SLUICE_FAULT_AFTER).
 *
 * stdout: one JSON progress line whenever something changes, and at least every second:
 *   {"t":<epoch ms>,"pid":..,"client":"kafkajs","state":"RUNNING","tasks":["0_0"],"processed":123}
 *   on SIGTERM under WORKLOAD=aggregate, before closing: {"store":[[key,value],...],"tasks":[...]}
 * stderr: the library's JSON log lines (kept by the harness for reproductions).
 * Exit code 0 after SIGTERM (graceful close), 3 when the app entered ERROR.
 */
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { resolveKafkaClient } from "../../../lib/kafka/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`eos-worker needs ${name}`);
  return value;
};
const number = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`eos-worker: ${name} must be a positive number`);
  return value;
};

const workload = process.env["WORKLOAD"] ?? "passthrough";
if (workload !== "passthrough" && workload !== "aggregate") throw new Error(`eos-worker: unknown WORKLOAD ${workload}`);
const builder = new StreamsBuilder();
// Same key in and out, so the default partitioner puts each output record in the
// partition its input came from: the verifier compares the two partition by partition.
const input = builder.stream(env("INPUT"), Consumed.with(Serdes.string(), Serdes.string()));
input.to(env("OUTPUT"), Produced.with(Serdes.string(), Serdes.string()));
if (workload === "aggregate") {
  // Per key: count, sum of the sequence numbers, last sequence number, as "count:sum:last".
  // The generator's values "<key>:<seq>" make every intermediate aggregate known in closed form.
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
}

const guarantee = env("GUARANTEE");
if (guarantee !== "exactly_once" && guarantee !== "at_least_once") throw new Error(`eos-worker: GUARANTEE must be exactly_once or at_least_once`);

const kafkaClient = resolveKafkaClient(undefined);
const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  processingGuarantee: guarantee,
  commitIntervalMs: number("COMMIT_INTERVAL_MS", 200),
  sessionTimeoutMs: number("SESSION_TIMEOUT_MS", 6_000),
  transactionTimeoutMs: number("TRANSACTION_TIMEOUT_MS", 10_000),
  heartbeatIntervalMs: number("HEARTBEAT_INTERVAL_MS", 1_000),
  lingerMs: number("LINGER_MS", 100),
  kafkaClient,
  // No write-back cache: every update of the aggregate reaches the output, as in Kafka Streams' EOS test client.
  cacheMaxBytes: 0,
  logger: consoleLogger(`worker-${process.pid}`, "info"),
});

let last = "";
let lastAt = 0;
const report = () => {
  const body = JSON.stringify({ state: app.state, tasks: app.activeTasks(), processed: app.processedRecords });
  const now = Date.now();
  // A heartbeat line every second lets the harness tell a stopped process from an idle one.
  if (body === last && now - lastAt < 1000) return;
  last = body;
  lastAt = now;
  process.stdout.write(`${JSON.stringify({ t: now, pid: process.pid, client: kafkaClient, ...JSON.parse(body) })}\n`);
};
app.onStateChange((state) => {
  report();
  if (state === "ERROR") {
    process.stderr.write(`${JSON.stringify({ level: "error", message: "worker exits: app in ERROR", error: app.error?.message })}\n`);
    // Leave like a crashed pod: the exit code tells the harness this was no clean stop,
    // and the timer makes sure the process goes even if a client keeps a handle open.
    process.exitCode = 3;
    setTimeout(() => process.exit(3), 2_000);
  }
});
setInterval(report, 100).unref();

// SIGTERM: print this instance's part of the store (the verifier compares it with the
// oracle; the harness stops workers only after the input is drained and committed), then
// close cleanly. A member still rebalancing (the group was settling after a crash when the
// harness asked) cannot be queried yet, so the aggregate workload waits up to 20 s for
// RUNNING first; the query's own error is printed if it never comes.
process.once("SIGTERM", async () => {
  if (workload === "aggregate") {
    const deadline = Date.now() + 20_000;
    while (app.state !== "RUNNING" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    try {
      const entries = app.store<string, string>("agg").all().map((e) => [e.key, e.value]);
      process.stdout.write(`${JSON.stringify({ store: entries, tasks: app.activeTasks() })}\n`);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ storeError: (error as Error).message, tasks: app.activeTasks() })}\n`);
    }
  }
  void app.close();
});
await app.start({ handleSignals: false });
