/**
 * A stateful app in its own process: counts records per key in a changelogged store
 * ("counts") and writes each new count to OUTPUT. Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID,
 * INPUT, OUTPUT, STATE_DIR, GUARANTEE. Prints a JSON line per change:
 * {"state","tasks","processed","restored"}; on SIGUSR2 prints {"store": {key: count}}.
 */
import { Consumed, Produced, Serdes, StreamsApp, StreamsBuilder, Stores, StreamRecord } from "../../../lib/index.ts";
import type { KeyValueStore, Processor, ProcessorContext } from "../../../lib/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { requireEnv as env, runAndReport } from "./run-worker.ts";

class CountPerKey implements Processor<string | null, string | null, string, number> {
  #context!: ProcessorContext<string, number>;
  #counts!: KeyValueStore<string, number>;
  init(context: ProcessorContext<string, number>): void {
    this.#context = context;
    this.#counts = context.getStateStore<KeyValueStore<string, number>>("counts");
  }
  process(record: StreamRecord<string | null, string | null>): void {
    if (record.key === null) return;
    const count = (this.#counts.get(record.key) ?? 0) + 1;
    this.#counts.put(record.key, count);
    this.#context.forward(record.withKeyValue(record.key, count));
  }
}

const builder = new StreamsBuilder();
builder.addStateStore(Stores.keyValueStoreBuilder("counts", Serdes.string(), Serdes.int32()));
builder
  .stream(env("INPUT"), Consumed.with(Serdes.string(), Serdes.string()))
  .process(() => new CountPerKey(), "counts")
  .to(env("OUTPUT"), Produced.with(Serdes.string(), Serdes.int32()));
const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  processingGuarantee: process.env["GUARANTEE"] === "at_least_once" ? "at_least_once" : "exactly_once",
  commitIntervalMs: 100,
  sessionTimeoutMs: 6_000,
  logger: silentLogger,
});

process.on("SIGUSR2", () => {
  const entries = app.store<string, number>("counts").all();
  process.stdout.write(JSON.stringify({ store: Object.fromEntries(entries.map((e) => [e.key, e.value])) }) + "\n");
});
await runAndReport(app);
