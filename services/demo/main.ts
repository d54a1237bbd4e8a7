/**
 * `make demo`: a real pipeline on a local Kafka broker. Starts a broker (or uses
 * KAFKA_BOOTSTRAP_SERVERS), creates the topics, feeds the orders service from a generator,
 * runs the service, and prints live results and throughput until Ctrl-C.
 * DEMO_SECONDS=n stops it by itself after n seconds (used by the tests).
 */
import { StreamsApp } from "../../lib/index.ts";
import { TestKafka } from "../../lib/testing/index.ts";
import { startBroker } from "../../test/broker/provider.ts";
import { orderGenerator } from "../orders/generator.ts";
import { ordersTopology, type PricedOrder } from "../orders/topology.ts";

const ratePerSecond = Number(process.env["DEMO_RATE"] ?? 2000);
const stopAfterSeconds = Number(process.env["DEMO_SECONDS"] ?? 0);

const broker = await startBroker();
console.log(`Kafka ${broker.version} (${broker.provider}) at ${broker.bootstrap}`);
const kafka = new TestKafka(broker.bootstrap);
const run = Date.now();
const topics = { orders: `orders-${run}`, large: `orders-large-${run}`, regular: `orders-regular-${run}` };
const deadLetters = `orders-dead-letters-${run}`;
await kafka.createTopics([topics.orders, topics.large, topics.regular, deadLetters].map((name) => ({ name, partitions: 3 })));

const app = new StreamsApp(ordersTopology(topics), {
  applicationId: `orders-demo-${run}`,
  bootstrapServers: broker.bootstrap,
  commitIntervalMs: 500,
  // Dead letters are counted in the report line instead of logged one by one.
  exceptionHandlers: { deserialization: { deadLetterTopic: deadLetters }, logger: { warn() {}, error: (m) => console.error(m) } },
  logger: { debug() {}, info() {}, warn: (m) => console.warn(`warn: ${m}`), error: (m) => console.error(`error: ${m}`) },
});
app.onStateChange((state) => console.log(`service state: ${state}`));
await app.start({ handleSignals: false });

// The generator sends one batch every 100 ms; one record in 500 is not JSON, to show dead letters.
const next = orderGenerator();
let produced = 0;
const feeding = setInterval(() => {
  const batch = Array.from({ length: Math.max(1, Math.round(ratePerSecond / 10)) }, () => {
    const order = next();
    produced++;
    return { key: order.customerId, value: produced % 500 === 0 ? "{broken json" : JSON.stringify(order) };
  });
  kafka.produce(topics.orders, batch).catch((error) => console.error(`generator: ${(error as Error).message}`));
}, 100);

let lastProcessed = 0;
let lastTime = Date.now();
const report = setInterval(async () => {
  const [large, regular, dead] = await Promise.all([kafka.size(topics.large), kafka.size(topics.regular), kafka.size(deadLetters)]);
  const now = Date.now();
  const rate = ((app.processedRecords - lastProcessed) / (now - lastTime)) * 1000;
  lastProcessed = app.processedRecords;
  lastTime = now;
  console.log(
    `produced ${produced}  processed ${app.processedRecords}  (${Math.round(rate)} records/s)  ` +
      `-> large ${large}, regular ${regular}, dead letters ${dead}  [tasks ${app.activeTasks().join(",")}]`,
  );
}, 1000);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(feeding);
  clearInterval(report);
  console.log("stopping: finishing in-flight records and committing...");
  await app.close();
  const sample = await kafka.read(topics.large, { count: 1, timeoutMs: 5_000 }).catch(() => []);
  if (sample[0]) {
    const order = JSON.parse(sample[0].value!.toString()) as PricedOrder;
    console.log(`a large order: ${order.orderId} for ${order.customerId} in ${order.region}, total ${order.total}`);
  }
  await kafka.close();
  await broker.stop();
  console.log(`done: ${app.processedRecords} records processed`);
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (stopAfterSeconds > 0) setTimeout(() => void stop(), stopAfterSeconds * 1000);
