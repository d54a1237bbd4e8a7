/**
 * The Sluice side of `make bench`, driven by the harness (test/bench/systems.ts) over stdin:
 * "run APP_ID OUTPUT" starts the workload under that application id and prints
 * "running APP_ID" once it is RUNNING (tasks assigned, stores restored); "stop" closes it and
 * prints "stopped RESTORED_RECORDS". Settings come from the environment: BOOTSTRAP, WORKLOAD,
 * INPUT, TABLE, LEFT, RIGHT, GUARANTEE, COMMIT_INTERVAL_MS, STATE_DIR, and SLUICE_KAFKA_CLIENT
 * (the Kafka client; required, so a run never measures a client it was not asked for).
 */
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type KafkaClientName, resolveKafkaClient } from "../../lib/kafka/index.ts";
import { consoleLogger, silentLogger } from "../../lib/observability/index.ts";
import { StreamsApp } from "../../lib/runtime/index.ts";
import { peerWorkload } from "./peer-workloads.ts";

const env = (name: string) => process.env[name] ?? (() => { throw new Error(`the Sluice bench runner needs the environment variable ${name}`); })();
const workload = peerWorkload(env("WORKLOAD"));
const optional = (name: string) => (process.env[name] ? { [name.toLowerCase()]: process.env[name]! } : {});
const topics = { input: env("INPUT"), ...optional("TABLE"), ...optional("LEFT"), ...optional("RIGHT") };
// Checked here, at start, so a misspelt client fails the runner before its first run.
const kafkaClient: KafkaClientName = resolveKafkaClient(env("SLUICE_KAFKA_CLIENT"));

let app: StreamsApp | null = null;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, applicationId, output] = line.trim().split(" ");
  if (command === "run") {
    app = new StreamsApp(workload.sluice(topics, output!), {
      applicationId: applicationId!,
      bootstrapServers: env("BOOTSTRAP"),
      stateDir: join(env("STATE_DIR"), applicationId!),
      processingGuarantee: env("GUARANTEE") === "exactly_once" ? "exactly_once" : "at_least_once",
      commitIntervalMs: Number(env("COMMIT_INTERVAL_MS")),
      kafkaClient,
      // BENCH_APP_LOG=1 shows the app's own log lines (debugging a run).
      logger: process.env["BENCH_APP_LOG"] === "1" ? consoleLogger("bench-app") : silentLogger,
    });
    const started = app;
    started.onStateChange((state) => {
      if (state === "ERROR") {
        console.error(`workload ${workload.name} failed: ${started.error?.message}`);
        process.exit(1);
      }
    });
    await started.start({ handleSignals: false });
    while (started.state !== "RUNNING") await new Promise((r) => setTimeout(r, 5));
    console.log(`running ${applicationId}`);
  } else if (command === "stop" && app) {
    const restored = app.restoredRecords;
    await app.close();
    app = null;
    console.log(`stopped ${restored}`);
  }
}
await app?.close();
process.exit(0);
