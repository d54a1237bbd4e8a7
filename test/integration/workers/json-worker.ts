/**
 * A service as a user writes it: JSON in, JSON out, the default "fail" handlers, the
 * default logger (JSON lines on stderr) and no uncaught-exception handler, so a poison
 * record must end the process with a non-zero exit code after a clean close.
 * Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, STATE_DIR.
 */
import { Consumed, Produced, Serdes, StreamsApp, StreamsBuilder } from "../../../lib/index.ts";
import { requireEnv as env } from "./run-worker.ts";

type Payment = { amount: number };
const builder = new StreamsBuilder();
builder
  .stream(env("INPUT"), Consumed.with(Serdes.string(), Serdes.json<Payment>()))
  .mapValues((payment) => ({ amount: (payment?.amount ?? 0) * 100 }))
  .to(env("OUTPUT"), Produced.with(Serdes.string(), Serdes.json<Payment>()));
const app = new StreamsApp(builder.build(), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  commitIntervalMs: 100,
});
await app.start();
