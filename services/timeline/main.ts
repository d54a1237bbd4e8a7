/**
 * The timeline service: `node services/timeline/main.ts`.
 * Env: KAFKA_BOOTSTRAP_SERVERS (required), APPLICATION_ID (default "timeline"), STATE_DIR, SLUICE_GROUP_INSTANCE_ID and
 * SESSION_TIMEOUT_MS (group membership: services/group-membership-env.ts),
 * TWEETS_TOPIC (default "tweets"), FOLLOWS_TOPIC (default "follows"), HTTP_PORT (default 8080),
 * COMMIT_INTERVAL_MS (default 1000), PROCESSING_GUARANTEE. Stops cleanly on SIGTERM / Ctrl-C.
 *
 * Freshness: the view's stores cache updates until a commit, and a change passes three
 * cached stages (tweets by author, sources per follower, timelines), so a timeline shows a
 * tweet within about three commit intervals; hence 1 s rather than the 30 s default.
 *
 *   GET /timeline/<user>  ->  200 [{ id, author, text, at }, ...] newest first, 404 unknown user,
 *                             503 while the store is not queryable here (restoring, rebalancing)
 */
import { createServer } from "node:http";
import { RetriableError, StreamsApp } from "../../lib/index.ts";
import { groupMembershipFromEnv } from "../group-membership-env.ts";
import { TIMELINE_STORE, timelineTopology, type TimelineEntry } from "./topology.ts";

const bootstrapServers = process.env["KAFKA_BOOTSTRAP_SERVERS"];
if (!bootstrapServers) {
  console.error("KAFKA_BOOTSTRAP_SERVERS is not set: give the broker address, e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
  process.exit(2);
}
const app = new StreamsApp(
  timelineTopology({ tweets: process.env["TWEETS_TOPIC"] ?? "tweets", follows: process.env["FOLLOWS_TOPIC"] ?? "follows" }),
  {
    applicationId: process.env["APPLICATION_ID"] ?? "timeline",
    bootstrapServers,
    ...(process.env["STATE_DIR"] ? { stateDir: process.env["STATE_DIR"] } : {}),
    ...groupMembershipFromEnv(),
    processingGuarantee: process.env["PROCESSING_GUARANTEE"] === "exactly_once" ? "exactly_once" : "at_least_once",
    commitIntervalMs: Number(process.env["COMMIT_INTERVAL_MS"] ?? 1000),
  },
);

const server = createServer((request, response) => {
  const match = /^\/timeline\/([^/]+)$/.exec(request.url ?? "");
  if (request.method !== "GET" || !match) {
    response.writeHead(404).end();
    return;
  }
  try {
    // Interactive query: the local store across this instance's tasks. With several
    // instances, a user's row lives on the instance that owns its partition.
    const timeline = app.store<string, TimelineEntry[]>(TIMELINE_STORE).get(decodeURIComponent(match[1]!));
    if (timeline === null) response.writeHead(404).end();
    else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(timeline));
  } catch (error) {
    response.writeHead(error instanceof RetriableError ? 503 : 500).end(String((error as Error).message));
  }
});

app.onStateChange((state, previous) => console.log(`timeline service: ${previous} -> ${state}`));
app.onStateChange((state) => {
  if (state === "NOT_RUNNING" || state === "ERROR") server.close();
});
await app.start();
server.listen(Number(process.env["HTTP_PORT"] ?? 8080));
