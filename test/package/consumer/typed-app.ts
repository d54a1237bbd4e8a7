// A TypeScript user's app: type-checked with strict and module nodenext against the
// installed declarations (no skipLibCheck), then run from its emitted JavaScript.
import {
  Consumed,
  PoisonRecordError,
  Produced,
  Serdes,
  StreamsApp,
  StreamsBuilder,
  type KStream,
  type StreamsConfig,
  type Topology,
  type UncaughtExceptionResponse,
} from "sluice";
import { TopologyTestDriver, type TestRecord } from "sluice/testing";

type Order = { id: string; amount: number };

function largeOrders(): Topology {
  const builder = new StreamsBuilder();
  const orders: KStream<string | null, Order | null> = builder.stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()));
  orders
    .filter((_, order): order is Order => order !== null && order.amount >= 100)
    .mapValues((order): number => order.amount)
    .to("large-orders", Produced.with(Serdes.string(), Serdes.double()));
  return builder.build();
}

// Only type-checked: how a service would configure, start and watch a StreamsApp.
const config: StreamsConfig = {
  applicationId: "orders",
  bootstrapServers: "localhost:9092",
  processingGuarantee: "exactly_once",
  uncaughtExceptionHandler: (error: Error): UncaughtExceptionResponse => (error instanceof PoisonRecordError ? "EXIT_PROCESS" : "SHUTDOWN_CLIENT"),
};
export async function runService(topology: Topology): Promise<void> {
  const app = new StreamsApp(topology, config);
  await app.start();
  await app.whenStopped();
}

const driver = new TopologyTestDriver(largeOrders());
const input = driver.createInputTopic("orders", Serdes.string(), Serdes.json<Order>());
const output = driver.createOutputTopic("large-orders", Serdes.string(), Serdes.double());
input.pipeInput("a", { id: "a", amount: 250 });
input.pipeInput("b", { id: "b", amount: 20 });
input.pipeInput("c", null);
const records: TestRecord<string | null, number | null>[] = output.readRecordsToList();
driver.close();
const got = records.map((r) => [r.key, r.value]);
if (JSON.stringify(got) !== JSON.stringify([["a", 250]])) {
  console.error(`unexpected output ${JSON.stringify(got)}`);
  process.exit(1);
}
console.log(JSON.stringify({ largeOrders: got }));
