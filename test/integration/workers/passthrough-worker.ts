/**
 * A StreamsApp in its own process, for tests that need several instances or kill -9.
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, STATE_DIR, GUARANTEE.
 * Prints one JSON line per change of its task set: {"tasks":[...],"state":"..."}.
 */
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`worker needs ${name}`);
  return value;
};

const builder = new StreamsBuilder();
builder.stream(env("INPUT"), Consumed.with(Serdes.bytes(), Serdes.bytes())).to(env("OUTPUT"), Produced.with(Serdes.bytes(), Serdes.bytes()));
const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  processingGuarantee: process.env["GUARANTEE"] === "exactly_once" ? "exactly_once" : "at_least_once",
  commitIntervalMs: 100,
  sessionTimeoutMs: 6_000,
  logger: silentLogger,
});

let last = "";
const report = () => {
  const line = JSON.stringify({ state: app.state, tasks: app.activeTasks(), processed: app.processedRecords });
  if (line !== last) process.stdout.write(line + "\n");
  last = line;
};
app.onStateChange(report);
setInterval(report, 100).unref();
await app.start();
