/**
 * A windowed app in its own process, for crash tests: per key, one-second windows with
 * 300 ms grace over the record timestamps. OUTPUT gets one final result per window
 * (emitStrategy onWindowClose) holding the window's values in arrival order; OUTPUT_SUPPRESSED
 * gets the final count per window through suppress(untilWindowCloses); LATE gets the records
 * too late for their window. Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT,
 * OUTPUT_SUPPRESSED, LATE, STATE_DIR. Prints a JSON
 * line per change: {"state","tasks","processed"}.
 */
import {
  BufferConfig,
  Consumed,
  EmitStrategy,
  Materialized,
  Serdes,
  StreamsApp,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
} from "../../../lib/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { requireEnv as env, runAndReport } from "../workers/run-worker.ts";

const builder = new StreamsBuilder();
const grouped = builder.stream(env("INPUT"), Consumed.with(Serdes.string(), Serdes.string())).groupByKey();
const windows = TimeWindows.ofSizeAndGrace(1000, 300);
grouped
  .windowedBy(windows)
  .emitStrategy(EmitStrategy.onWindowClose())
  .withLateRecordsTopic(env("LATE"))
  .aggregate(() => "", (key, value, values) => `${values}${value},`, Materialized.as<string, string>("window-values").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()))
  .toStream()
  .to(env("OUTPUT"));
grouped
  .windowedBy(windows)
  .count(Materialized.as("window-counts"))
  .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("final-counts"))
  .toStream()
  .to(env("OUTPUT_SUPPRESSED"));

const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  processingGuarantee: "exactly_once",
  commitIntervalMs: 100,
  sessionTimeoutMs: 6_000,
  logger: silentLogger,
});

await runAndReport(app);
