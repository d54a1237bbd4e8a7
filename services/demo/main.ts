/**
 * `make demo`: the fraud-detection service (services/fraud) under exactly-once on a local
 * Kafka broker, fed by a traffic generator, with a live page. Starts a broker (or uses
 * KAFKA_BOOTSTRAP_SERVERS), creates the topics, loads customers and cards, then sends
 * payments with out-of-order and late ones, CDC updates and deletes, fraud patterns and a
 * few undecodable records (to a dead-letter topic), and serves the page until Ctrl-C.
 *
 * Env: DEMO_SECONDS=n stops after n seconds; DEMO_RATE payments per second (default 200);
 * DEMO_PAYMENTS=n stops generating after about n payments (the service goes on until it has
 * processed them all); DEMO_PORT (default 8080, 0 for any free port).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RetriableError, StreamsApp } from "../../lib/index.ts";
import { TestKafka } from "../../lib/testing/index.ts";
import { startBroker } from "../../test/broker/provider.ts";
import { defaultFraudConfig } from "../fraud/config.ts";
import type { CardProfile } from "../fraud/model.ts";
import { cardRisk } from "../fraud/queries.ts";
import { CARD_PROFILE_STORE, fraudTopology } from "../fraud/topology.ts";
import { accounts, serviceCounts, type Accounts } from "./accounting.ts";
import { Downstream } from "./downstream.ts";
import { demoServer } from "./server.ts";
import { Traffic, type TrafficRecord } from "./traffic.ts";

const env = process.env;
const ratePerSecond = Number(env["DEMO_RATE"] ?? 200);
const stopAfterSeconds = Number(env["DEMO_SECONDS"] ?? 0);
const paymentLimit = Number(env["DEMO_PAYMENTS"] ?? 0);
const port = Number(env["DEMO_PORT"] ?? 8080);
const SPEED = 60; // one wall-clock second is one minute of event time
const DAY = 86_400_000;

// Ctrl-C works from the first moment: whatever has started by then is closed, newest first.
const closers: { name: string; close: () => Promise<unknown> | void }[] = [];
let stopping = false;
let summary = () => "done";
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log("stopping: finishing in-flight records and committing...");
  for (const { name, close } of closers.reverse()) {
    await Promise.resolve(close()).catch((error) => console.error(`stopping ${name}: ${(error as Error).message}`));
  }
  console.log(summary());
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (stopAfterSeconds > 0) setTimeout(() => void stop(), stopAfterSeconds * 1000);

const broker = await startBroker();
closers.push({ name: "the broker", close: () => broker.stop() });
console.log(`Kafka ${broker.version} (${broker.provider}) at ${broker.bootstrap}`);
const kafka = new TestKafka(broker.bootstrap);
closers.push({ name: "the generator's client", close: () => kafka.close() });
const run = Date.now();
const topics = { payments: `payments-${run}`, cards: `cards-${run}`, customers: `customers-${run}`, alerts: `fraud-alerts-${run}` };
const deadLetterTopic = `payments-dead-letters-${run}`;
const lateTopic = `payments-late-${run}`;
await kafka.createTopics([
  { name: topics.payments, partitions: 3 },
  { name: topics.cards, partitions: 3, configs: { "cleanup.policy": "compact" } },
  { name: topics.customers, partitions: 2, configs: { "cleanup.policy": "compact" } },
  { name: topics.alerts, partitions: 2 },
  { name: deadLetterTopic, partitions: 1 },
  { name: lateTopic, partitions: 1 },
]);

const quiet = { debug() {}, info() {}, warn: (m: string) => console.warn(`warn: ${m}`), error: (m: string) => console.error(`error: ${m}`) };
const defaults = defaultFraudConfig(topics);
// Late payments also go to their own topic, so the accounting counts the committed ones.
const config = { ...defaults, velocity: { ...defaults.velocity, lateRecordsTopic: lateTopic } };
const topology = fraudTopology(config);
const applicationId = `fraud-demo-${run}`;
const stateDir = mkdtempSync(join(tmpdir(), "sluice-demo-"));
closers.push({ name: "the state directory", close: () => rmSync(stateDir, { recursive: true, force: true }) });

const serviceConfig = {
  applicationId,
  bootstrapServers: broker.bootstrap,
  stateDir,
  processingGuarantee: "exactly_once",
  commitIntervalMs: 500,
  // Undecodable payments go to the dead-letter topic in the same transaction (the page counts them, so no log line each).
  exceptionHandlers: { deserialization: { deadLetterTopic }, logger: { warn() {}, error: quiet.error } },
  logger: quiet,
} as const;

// Downstream of the service: what it committed to the alerts, dead-letter and late-records topics.
const downstream = new Downstream({ alerts: topics.alerts, deadLetters: deadLetterTopic, lateRecords: lateTopic });

/**
 * A broker that has just started may refuse the first topic creations (its metadata still
 * settling); start() then fails, and a fresh instance tries again.
 */
async function started(make: () => StreamsApp, name: string): Promise<StreamsApp> {
  for (let attempt = 1; ; attempt++) {
    const instance = make();
    try {
      await instance.start({ handleSignals: false });
      return instance;
    } catch (error) {
      if (!(error instanceof RetriableError) || attempt === 3) throw error;
      console.warn(`${name}: start failed (${(error as Error).message.slice(0, 120)}...); trying again`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
const app = await started(() => {
  const instance = new StreamsApp(topology, serviceConfig);
  instance.onStateChange((state) => console.log(`fraud service: ${state}`));
  return instance;
}, "fraud service");
closers.push({ name: "the fraud service", close: () => app.close() });
const downstreamApp = await started(() => new StreamsApp(downstream.topology(), { applicationId: `${applicationId}-downstream`, bootstrapServers: broker.bootstrap, stateDir, processingGuarantee: "exactly_once", commitIntervalMs: 500, logger: quiet }), "downstream reader");
closers.push({ name: "the downstream reader", close: () => downstreamApp.close() });

const hasProfile = (cardId: string) => {
  try {
    return app.store<string, CardProfile>(CARD_PROFILE_STORE).get(cardId) !== null;
  } catch (error) {
    if (error instanceof RetriableError) return false;
    throw error;
  }
};
const traffic = new Traffic({ customers: 1500, cards: 2500, startMs: Math.floor((Date.now() - 6 * DAY) / DAY) * DAY, speed: SPEED, hasProfile });
const toKafka = (records: TrafficRecord[]) => records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp }));

let phase = "loading customers and cards";
const population = traffic.population();
await kafka.produce(topics.customers, toKafka(population.customers));
await kafka.produce(topics.cards, toKafka(population.cards));

// One sample a second: the equation and the rates behind the charts.
const series = { t: [] as number[], generated: [] as number[], processed: [] as number[], lag: [] as number[] };
let latest: Accounts | null = null;
let previous: { at: number; generated: number; processed: number } | null = null;
async function sample(): Promise<void> {
  let service;
  try {
    service = serviceCounts(app, downstream);
  } catch (error) {
    if (error instanceof RetriableError) return; // restoring or rebalancing: no sample this second
    throw error;
  }
  const inKafka = await kafka.size(topics.payments);
  latest = accounts(service, inKafka, traffic.stats.payments);
  const now = Date.now();
  const processed = latest.generated - latest.notYetProcessed;
  if (previous) {
    const seconds = (now - previous.at) / 1000;
    series.t.push(now / 1000);
    series.generated.push(Math.round((latest.generated - previous.generated) / seconds));
    series.processed.push(Math.round((processed - previous.processed) / seconds));
    series.lag.push(latest.lag);
    for (const list of Object.values(series)) if (list.length > 300) list.shift();
  }
  previous = { at: now, generated: latest.generated, processed };
}
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const started = Date.now();
    await sample().catch((error) => console.error(`sampling: ${(error as Error).message}`));
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
  }
})();
closers.push({ name: "the sampler", close: () => ((sampling = false), sampler) });
const report = setInterval(() => {
  if (latest) console.log(describe(latest));
}, 5000);
function describe(a: Accounts): string {
  return `generated ${a.generated} = in results ${a.inResults} + dropped late ${a.droppedLate} + dead-lettered ${a.deadLettered} + not yet processed ${a.notYetProcessed}  |  alerts ${downstream.alerts}  lag ${a.lag}`;
}

summary = () => (latest ? `done: ${describe(latest)}` : "done");
const mermaid = topology.describe().toMermaid();
const server = demoServer({
  state: () => ({
    phase,
    applicationId,
    eventTimeMs: traffic.nowMs(),
    speed: SPEED,
    ratePerSecond,
    accounts: latest,
    series,
    traffic: traffic.stats,
    alerts: { total: downstream.alerts, byRule: downstream.byRule, recent: downstream.recentAlerts },
    deadLetters: { topic: deadLetterTopic, recent: downstream.recentDeadLetters },
    topics: { ...topics, deadLetters: deadLetterTopic, lateRecords: lateTopic },
    sampleCards: [...new Set([...downstream.recentAlerts.map((a) => a.cardId), ...traffic.activeCardIds().slice(0, 3)])].slice(0, 8),
    mermaid,
  }),
  card: (cardId) => cardRisk(app, cardId),
});
await new Promise<void>((r) => server.listen(port, r));
closers.push({ name: "the page", close: () => (clearInterval(report), server.close(), server.closeAllConnections()) });
const address = server.address();
console.log(`demo page: http://localhost:${typeof address === "object" && address ? address.port : port}/`);

// Payments only once the service has joined every card with its customer, so each payment is scored.
const activeCards = traffic.activeCardIds();
while (!stopping && !activeCards.every(hasProfile)) await new Promise((r) => setTimeout(r, 200));

async function generate(): Promise<void> {
  phase = "generating";
  let last = Date.now();
  while (!stopping) {
    const now = Date.now();
    const batch = traffic.next(Math.round((ratePerSecond * (now - last)) / 1000));
    last = now;
    const sentBefore = traffic.stats.payments - batch.payments.length;
    try {
      if (batch.customers.length) await kafka.produce(topics.customers, toKafka(batch.customers));
      if (batch.cards.length) await kafka.produce(topics.cards, toKafka(batch.cards));
      if (batch.payments.length) await kafka.produce(topics.payments, toKafka(batch.payments));
    } catch (error) {
      // A failed send (a time-out, say) may still have been written: the payments topic says
      // whether it was, since only this generator writes to it.
      const inKafka = await kafka.size(topics.payments).catch(() => -1);
      if (inKafka === sentBefore) traffic.unsent(batch);
      console.error(`generator: ${(error as Error).message} (${inKafka === sentBefore ? "not written" : inKafka === traffic.stats.payments ? "written all the same" : `the payments topic holds ${inKafka} records, ${traffic.stats.payments} were sent`})`);
    }
    if (paymentLimit > 0 && traffic.stats.payments >= paymentLimit) {
      phase = "generator finished";
      console.log(`generator: finished after ${traffic.stats.payments} payments`);
      return;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - now))));
  }
}
const generating = generate();
closers.push({ name: "the generator", close: () => generating });
