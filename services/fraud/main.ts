/**
 * The fraud service: `node services/fraud/main.ts`. Exactly-once is always on: an alert is
 * written once, and the risk state and spend profiles move with the offsets they reflect.
 * Env: KAFKA_BOOTSTRAP_SERVERS (required), APPLICATION_ID (default "fraud"), STATE_DIR, SLUICE_GROUP_INSTANCE_ID and
 * SESSION_TIMEOUT_MS (group membership: services/group-membership-env.ts),
 * PAYMENTS_TOPIC, CARDS_TOPIC, CUSTOMERS_TOPIC, ALERTS_TOPIC (defaults "payments", "cards",
 * "customers", "fraud-alerts"), HTTP_PORT (default 8080), COMMIT_INTERVAL_MS (default 1000);
 * PROCESSING_GUARANTEE may only be exactly_once (the chart's default).
 * Stops cleanly on SIGTERM / Ctrl-C.
 *
 *   GET /cards/<card id>  ->  200 { cardId, card, risk, profile }: the card with its customer,
 *                             its risk state (alerts per rule, score, level, last alert) and
 *                             spend profile; 404 for a card this instance knows nothing of;
 *                             503 while the stores are not queryable here
 */
import { createServer } from "node:http";
import { RetriableError, StreamsApp } from "../../lib/index.ts";
import { groupMembershipFromEnv } from "../group-membership-env.ts";
import { defaultFraudConfig } from "./config.ts";
import { cardRisk } from "./queries.ts";
import { fraudTopology } from "./topology.ts";

const env = process.env;
const bootstrapServers = env["KAFKA_BOOTSTRAP_SERVERS"];
if (!bootstrapServers) {
  console.error("KAFKA_BOOTSTRAP_SERVERS is not set: give the broker address, e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
  process.exit(2);
}
const guarantee = env["PROCESSING_GUARANTEE"];
if (guarantee !== undefined && guarantee !== "exactly_once") {
  console.error(`PROCESSING_GUARANTEE is "${guarantee}": the fraud service runs exactly-once only, so that each alert is written once and the risk state moves with the offsets it reflects; unset it or set it to exactly_once`);
  process.exit(2);
}
const config = defaultFraudConfig({
  ...(env["PAYMENTS_TOPIC"] ? { payments: env["PAYMENTS_TOPIC"] } : {}),
  ...(env["CARDS_TOPIC"] ? { cards: env["CARDS_TOPIC"] } : {}),
  ...(env["CUSTOMERS_TOPIC"] ? { customers: env["CUSTOMERS_TOPIC"] } : {}),
  ...(env["ALERTS_TOPIC"] ? { alerts: env["ALERTS_TOPIC"] } : {}),
});
const app = new StreamsApp(fraudTopology(config), {
  applicationId: env["APPLICATION_ID"] ?? "fraud",
  bootstrapServers,
  ...(env["STATE_DIR"] ? { stateDir: env["STATE_DIR"] } : {}),
  ...groupMembershipFromEnv(),
  processingGuarantee: "exactly_once",
  commitIntervalMs: Number(env["COMMIT_INTERVAL_MS"] ?? 1000),
});

const server = createServer((request, response) => {
  const match = /^\/cards\/([^/]+)$/.exec(request.url ?? "");
  if (request.method !== "GET" || !match) {
    response.writeHead(404).end();
    return;
  }
  try {
    // Interactive query: with several instances, a card's rows live on the instance that owns its partition.
    const answer = cardRisk(app, decodeURIComponent(match[1]!));
    if (answer === null) response.writeHead(404).end();
    else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  } catch (error) {
    response.writeHead(error instanceof RetriableError ? 503 : 500).end(String((error as Error).message));
  }
});

app.onStateChange((state, previous) => console.log(`fraud service: ${previous} -> ${state}`));
app.onStateChange((state) => {
  if (state === "NOT_RUNNING" || state === "ERROR") server.close();
});
await app.start();
server.listen(Number(env["HTTP_PORT"] ?? 8080), () => {
  const address = server.address();
  console.log(`fraud service: listening on port ${typeof address === "object" && address ? address.port : address}`);
});
