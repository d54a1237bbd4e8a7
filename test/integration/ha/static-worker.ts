/**
 * The application of the static-membership tests in its own process: the crash suite's
 * workload (pass-through plus a running "count:sum:last" aggregate per key, so the
 * verifier of test/chaos/support can check output and stores exactly), with an optional
 * group instance id.
 *
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, AGG_OUTPUT, STATE_DIR,
 * GROUP_INSTANCE_ID (unset: a dynamic member), SESSION_TIMEOUT_MS.
 * stdout: {"state":..,"tasks":[..],"processed":n} whenever that changes; on SIGTERM, before
 * closing, {"store":[[key,value],...],"tasks":[..]}. stderr: the library's JSON log lines
 * (the harness reads "joined the consumer group" from them).
 * Exit code 0 after SIGTERM, 1 when the app stopped on an unrecoverable error.
 */
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { requireEnv } from "../workers/run-worker.ts";

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

const groupInstanceId = process.env["GROUP_INSTANCE_ID"];
const app = new StreamsApp(builder.build(), {
  applicationId: requireEnv("APP_ID"),
  bootstrapServers: requireEnv("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: requireEnv("STATE_DIR"),
  processingGuarantee: "exactly_once",
  commitIntervalMs: 200,
  sessionTimeoutMs: Number(requireEnv("SESSION_TIMEOUT_MS")),
  heartbeatIntervalMs: 1_000,
  cacheMaxBytes: 0,
  ...(groupInstanceId ? { groupInstanceId } : {}),
  logger: consoleLogger(`worker-${groupInstanceId ?? process.pid}`, "info"),
});

let last = "";
const report = () => {
  const line = JSON.stringify({ state: app.state, tasks: app.activeTasks(), processed: app.processedRecords });
  if (line !== last) process.stdout.write(line + "\n");
  last = line;
};
app.onStateChange(report);
setInterval(report, 100).unref();

process.once("SIGTERM", () => {
  try {
    const entries = app.store<string, string>("agg").all().map((e) => [e.key, e.value]);
    process.stdout.write(`${JSON.stringify({ store: entries, tasks: app.activeTasks() })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ storeError: (error as Error).message, tasks: app.activeTasks() })}\n`);
  }
  void app.close();
});
// Without an uncaughtExceptionHandler an unrecoverable error after start ends the process with code 1.
await app.start({ handleSignals: false });
