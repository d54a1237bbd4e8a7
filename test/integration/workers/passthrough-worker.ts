/**
 * A StreamsApp in its own process, for tests that need several instances or kill -9.
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, STATE_DIR, GUARANTEE.
 * Reports through run-worker.ts: a JSON line per change of {state, tasks, processed, restored}.
 */
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { requireEnv as env, runAndReport } from "./run-worker.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

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

await runAndReport(app);
