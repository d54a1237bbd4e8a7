/**
 * The orders service: `node services/orders/main.ts`.
 * Env: KAFKA_BOOTSTRAP_SERVERS (required), APPLICATION_ID (default "orders"), STATE_DIR, SLUICE_GROUP_INSTANCE_ID and
 * SESSION_TIMEOUT_MS (group membership: services/group-membership-env.ts),
 * ORDERS_TOPIC, LARGE_TOPIC, REGULAR_TOPIC, DEAD_LETTER_TOPIC, PROCESSING_GUARANTEE,
 * HTTP_PORT (health, status and /metrics; unset: no server), SLUICE_APPLICATION_SERVER.
 * Stops cleanly on SIGTERM / Ctrl-C.
 */
import { StreamsApp } from "../../lib/index.ts";
import { groupMembershipFromEnv } from "../group-membership-env.ts";
import { ordersTopology } from "./topology.ts";

const bootstrapServers = process.env["KAFKA_BOOTSTRAP_SERVERS"];
if (!bootstrapServers) {
  console.error("KAFKA_BOOTSTRAP_SERVERS is not set: give the broker address, e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
  process.exit(2);
}
const topics = {
  orders: process.env["ORDERS_TOPIC"] ?? "orders",
  large: process.env["LARGE_TOPIC"] ?? "orders-large",
  regular: process.env["REGULAR_TOPIC"] ?? "orders-regular",
};
const app = new StreamsApp(ordersTopology(topics), {
  applicationId: process.env["APPLICATION_ID"] ?? "orders",
  bootstrapServers,
  ...(process.env["STATE_DIR"] ? { stateDir: process.env["STATE_DIR"] } : {}),
  ...groupMembershipFromEnv(),
  processingGuarantee: process.env["PROCESSING_GUARANTEE"] === "exactly_once" ? "exactly_once" : "at_least_once",
  ...(process.env["HTTP_PORT"] ? { httpPort: Number(process.env["HTTP_PORT"]) } : {}),
  ...(process.env["SLUICE_APPLICATION_SERVER"] ? { applicationServer: process.env["SLUICE_APPLICATION_SERVER"] } : {}),
  exceptionHandlers: { deserialization: { deadLetterTopic: process.env["DEAD_LETTER_TOPIC"] ?? "orders-dead-letters" } },
});
app.onStateChange((state, previous) => console.log(`orders service: ${previous} -> ${state}`));
await app.start();
