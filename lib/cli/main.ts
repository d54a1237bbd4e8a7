#!/usr/bin/env node
/**
 * The `sluice` command.
 *   sluice reset --application-id ID --bootstrap-servers HOST:PORT [--state-dir DIR] [--dry-run]
 *   sluice describe MODULE [--mermaid]
 */
import { parseArgs } from "node:util";
import { SluiceError } from "../errors/index.ts";
import { createKafkaClient } from "../kafka/index.ts";
import { silentLogger } from "../observability/index.ts";
import { loadTopology } from "./describe.ts";
import { resetApplication } from "./reset.ts";

const usage = `usage:
  sluice reset --application-id ID [--bootstrap-servers HOST:PORT] [--state-dir DIR] [--dry-run]
      delete the app's internal topics and local state and move its input offsets to the
      beginning, so the next start reprocesses everything (refused while instances run)
  sluice describe MODULE [--mermaid]
      print the topology a module exports (text, or a Mermaid diagram)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "reset") {
    const { values } = parseArgs({
      args: rest,
      options: {
        "application-id": { type: "string" },
        "bootstrap-servers": { type: "string", default: process.env["KAFKA_BOOTSTRAP_SERVERS"] ?? "localhost:9092" },
        "state-dir": { type: "string" },
        "dry-run": { type: "boolean", default: false },
      },
    });
    const applicationId = values["application-id"];
    if (!applicationId) return fail("reset needs --application-id");
    const admin = createKafkaClient({ clientId: "sluice-reset", brokers: values["bootstrap-servers"]!.split(",") }, silentLogger).admin();
    await admin.connect();
    try {
      await resetApplication(admin, {
        applicationId,
        ...(values["state-dir"] ? { stateDir: values["state-dir"] } : {}),
        dryRun: values["dry-run"]!,
        log: (line) => console.log(line),
      });
    } finally {
      await admin.disconnect();
    }
    return 0;
  }
  if (command === "describe") {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { mermaid: { type: "boolean", default: false } } });
    if (positionals.length !== 1) return fail("describe needs one module path");
    const description = (await loadTopology(positionals[0]!)).describe();
    console.log(values.mermaid ? description.toMermaid() : description.toString());
    return 0;
  }
  return fail(command ? `unknown command "${command}"` : "no command given");
}

function fail(message: string): number {
  console.error(`sluice: ${message}\n${usage}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sluice: ${error instanceof SluiceError ? error.message : String(error)}`);
    process.exit(1);
  },
);
