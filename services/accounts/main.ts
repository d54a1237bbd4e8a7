/**
 * The accounts service: `node services/accounts/main.ts`, one of two applications over the
 * same event log, chosen by READ_MODEL:
 *
 * - unset (the ledger): commands -> validated events on the log, replies, and the balances
 *   table. GET /accounts/<id> -> 200 { accountId, balanceCents, events } from the balances
 *   store, 404 unknown here, 503 while not queryable.
 * - READ_MODEL=statements: monthly statements derived from the log from its beginning, to
 *   STATEMENTS_TOPIC; GET /accounts/<id> answers with the account's statements. Give it its
 *   own APPLICATION_ID: a new id reprocesses the whole log (the kappa pattern).
 *
 * Env: KAFKA_BOOTSTRAP_SERVERS (required), APPLICATION_ID (default "accounts", or
 * "account-statements" for the statements), STATE_DIR, SLUICE_GROUP_INSTANCE_ID and
 * SESSION_TIMEOUT_MS (group membership: services/group-membership-env.ts), COMMANDS_TOPIC, EVENTS_TOPIC,
 * REPLIES_TOPIC, STATEMENTS_TOPIC (defaults "account-commands", "account-events",
 * "account-replies", "account-statements"), HTTP_PORT (default 8080). Exactly-once always:
 * "two events or none" for a transfer rests on it (PROCESSING_GUARANTEE may only be
 * exactly_once). Stops cleanly on SIGTERM / Ctrl-C.
 */
import { createServer } from "node:http";
import { RetriableError, StreamsApp } from "../../lib/index.ts";
import { groupMembershipFromEnv } from "../group-membership-env.ts";
import { defaultAccountsTopics, type Balance } from "./model.ts";
import { STATEMENTS_STORE, statementsTopology, type Statements } from "./statements.ts";
import { accountsTopology, BALANCES_STORE } from "./topology.ts";

const env = process.env;
const bootstrapServers = env["KAFKA_BOOTSTRAP_SERVERS"];
if (!bootstrapServers) {
  console.error("KAFKA_BOOTSTRAP_SERVERS is not set: give the broker address, e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
  process.exit(2);
}
const guarantee = env["PROCESSING_GUARANTEE"];
if (guarantee !== undefined && guarantee !== "exactly_once") {
  console.error(`PROCESSING_GUARANTEE is "${guarantee}": the accounts service runs exactly-once only: a transfer is two events or none only under it; unset it or set it to exactly_once`);
  process.exit(2);
}
const readModel = env["READ_MODEL"] || "ledger";
if (readModel !== "ledger" && readModel !== "statements") {
  console.error(`READ_MODEL must be unset (the ledger) or "statements", not "${readModel}"`);
  process.exit(2);
}
const topics = defaultAccountsTopics({
  ...(env["COMMANDS_TOPIC"] ? { commands: env["COMMANDS_TOPIC"] } : {}),
  ...(env["EVENTS_TOPIC"] ? { events: env["EVENTS_TOPIC"] } : {}),
  ...(env["REPLIES_TOPIC"] ? { replies: env["REPLIES_TOPIC"] } : {}),
});
const statementsTopic = env["STATEMENTS_TOPIC"] ?? "account-statements";
const statements = readModel === "statements";
const app = new StreamsApp(statements ? statementsTopology({ events: topics.events, statements: statementsTopic }) : accountsTopology(topics), {
  applicationId: env["APPLICATION_ID"] ?? (statements ? "account-statements" : "accounts"),
  bootstrapServers,
  ...(env["STATE_DIR"] ? { stateDir: env["STATE_DIR"] } : {}),
  ...groupMembershipFromEnv(),
  processingGuarantee: "exactly_once",
});

const server = createServer((request, response) => {
  const match = /^\/accounts\/([^/]+)$/.exec(request.url ?? "");
  if (request.method !== "GET" || !match) {
    response.writeHead(404).end();
    return;
  }
  try {
    const accountId = decodeURIComponent(match[1]!);
    const answer = statements
      ? app.store<string, Statements>(STATEMENTS_STORE).get(accountId)
      : (() => {
          const balance = app.store<string, Balance>(BALANCES_STORE).get(accountId);
          return balance && { accountId, ...balance };
        })();
    if (answer === null) response.writeHead(404).end();
    else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  } catch (error) {
    response.writeHead(error instanceof RetriableError ? 503 : 500).end(String((error as Error).message));
  }
});

app.onStateChange((state, previous) => console.log(`accounts service (${readModel}): ${previous} -> ${state}`));
app.onStateChange((state) => {
  if (state === "NOT_RUNNING" || state === "ERROR") server.close();
});
await app.start();
server.listen(Number(env["HTTP_PORT"] ?? 8080), () => {
  const address = server.address();
  console.log(`accounts service (${readModel}): listening on port ${typeof address === "object" && address ? address.port : address}`);
});
