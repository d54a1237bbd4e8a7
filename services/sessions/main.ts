/**
 * The sessions service: `node services/sessions/main.ts`.
 * Env: KAFKA_BOOTSTRAP_SERVERS (required), APPLICATION_ID (default "sessions"), STATE_DIR, SLUICE_GROUP_INSTANCE_ID and
 * SESSION_TIMEOUT_MS (group membership: services/group-membership-env.ts),
 * PAGE_VIEWS_TOPIC (default "page-views"), SESSIONS_TOPIC (default "sessions"),
 * INACTIVITY_GAP_MS and GRACE_MS (default 30 min each), PROCESSING_GUARANTEE (default
 * exactly_once, so each final session is written once). Stops cleanly on SIGTERM / Ctrl-C.
 */
import { StreamsApp } from "../../lib/index.ts";
import { groupMembershipFromEnv } from "../group-membership-env.ts";
import { defaultSessionsConfig, sessionsTopology } from "./topology.ts";

const env = process.env;
const bootstrapServers = env["KAFKA_BOOTSTRAP_SERVERS"];
if (!bootstrapServers) {
  console.error("KAFKA_BOOTSTRAP_SERVERS is not set: give the broker address, e.g. KAFKA_BOOTSTRAP_SERVERS=localhost:9092");
  process.exit(2);
}
function milliseconds(name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`${name} must be a whole number of milliseconds >= 0, not "${env[name]}"`);
    process.exit(2);
  }
  return value;
}
const defaults = defaultSessionsConfig({
  ...(env["PAGE_VIEWS_TOPIC"] ? { pageViews: env["PAGE_VIEWS_TOPIC"] } : {}),
  ...(env["SESSIONS_TOPIC"] ? { sessions: env["SESSIONS_TOPIC"] } : {}),
});
const config = { ...defaults, inactivityGapMs: milliseconds("INACTIVITY_GAP_MS", defaults.inactivityGapMs), graceMs: milliseconds("GRACE_MS", defaults.graceMs) };
const app = new StreamsApp(sessionsTopology(config), {
  applicationId: env["APPLICATION_ID"] ?? "sessions",
  bootstrapServers,
  ...(env["STATE_DIR"] ? { stateDir: env["STATE_DIR"] } : {}),
  ...groupMembershipFromEnv(),
  processingGuarantee: env["PROCESSING_GUARANTEE"] === "at_least_once" ? "at_least_once" : "exactly_once",
});
app.onStateChange((state, previous) => console.log(`sessions service: ${previous} -> ${state}`));
await app.start();
