#!/usr/bin/env node
/**
 * The `sluice` command. Exit codes: 0 done, 1 the command failed (the message says why),
 * 2 wrong usage (unknown command or option, missing argument).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { SluiceError } from "../errors/index.ts";
import { connectAdmin } from "./broker.ts";
import { loadTopology, moduleConvention } from "./describe.ts";
import { resetApplication } from "./reset.ts";

class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

interface Command {
  summary: string;
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run(values: Values, positionals: string[]): Promise<void>;
}

const brokerOption = { type: "string", default: process.env["KAFKA_BOOTSTRAP_SERVERS"] ?? "localhost:9092" } as const;

const commands: Record<string, Command> = {
  describe: {
    summary: "print the topology a module builds (text, or a Mermaid diagram)",
    help: `usage: sluice describe MODULE [--mermaid]

Imports MODULE, takes its topology and prints its sub-topologies, sources, processors,
stores and sinks.

options:
  --mermaid   print a Mermaid flowchart instead of text
  --help      show this help

${moduleConvention}`,
    options: { mermaid: { type: "boolean", default: false } },
    async run(values, positionals) {
      if (positionals.length !== 1) throw new UsageError("describe needs exactly one MODULE");
      const description = (await loadTopology(positionals[0]!)).describe();
      console.log(values["mermaid"] ? description.toMermaid() : description.toString());
    },
  },
  reset: {
    summary: "make an application reprocess its input from the beginning",
    help: `usage: sluice reset --application-id ID [MODULE | --module MODULE] [options]

Deletes the application's internal topics (changelogs, repartition topics), moves its
consumer group's committed input offsets to the earliest offsets and deletes its local
state under --state-dir, so the next start reprocesses everything. Refused while any
instance of the application runs. Stop every instance first.

With MODULE (imported to take its topology), exactly that topology's internal topics
are deleted. Without it they are found by name (ID-...-changelog, ID-...-repartition);
that is refused when another consumer group's name shares the prefix (resetting "pv"
while "pv-v2" exists), since only the topology can tell whose topics they are.

options:
  --application-id ID          the application's applicationId (its consumer group)
  --module MODULE              the application's topology module (or give it as MODULE)
  --bootstrap-servers H:P,...  default: $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092
  --state-dir DIR              also delete DIR/ID on this machine
  --dry-run                    print what would be done, change nothing
  --help                       show this help

${moduleConvention}`,
    options: {
      "application-id": { type: "string" },
      module: { type: "string" },
      "bootstrap-servers": brokerOption,
      "state-dir": { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
    async run(values, positionals) {
      const applicationId = values["application-id"] as string | undefined;
      if (!applicationId) throw new UsageError("reset needs --application-id ID");
      if (positionals.length > 1 || (positionals.length === 1 && values["module"])) throw new UsageError("reset takes one MODULE, as --module or as an argument");
      const modulePath = (values["module"] as string | undefined) ?? positionals[0];
      const topology = modulePath ? await loadTopology(modulePath) : undefined;
      const admin = await connectAdmin(values["bootstrap-servers"] as string, "sluice-reset");
      try {
        await resetApplication(admin, {
          applicationId,
          ...(topology ? { topology } : {}),
          ...(values["state-dir"] ? { stateDir: values["state-dir"] as string } : {}),
          dryRun: values["dry-run"] === true,
          log: (line) => console.log(line),
        });
      } finally {
        await admin.disconnect();
      }
    },
  },
};

const usage = `usage: sluice <command> [options]

commands:
${Object.entries(commands)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`)
  .join("\n")}

"sluice <command> --help" shows a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) return usageError("no command given", usage);
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(`sluice: tools for Sluice stream-processing applications\n\n${usage}`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) return usageError(`unknown command "${name}"`, usage);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: { ...command.options, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return usageError((error as Error).message, `"sluice ${name} --help" lists its options`);
  }
  if (parsed.values["help"]) {
    console.log(command.help);
    return 0;
  }
  try {
    await command.run(parsed.values, parsed.positionals);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message, `"sluice ${name} --help" shows its usage`);
    throw error;
  }
}

function usageError(message: string, hint: string): number {
  console.error(`sluice: ${message}\n${hint}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A SluiceError's message says what is wrong and how to fix it; anything else is a bug.
    console.error(`sluice: ${error instanceof SluiceError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
