/**
 * The autoscaler's log: one JSON line per event on stdout, in the shape of Sluice's own log
 * lines (the public entry does not export its logger), so one log pipeline reads both.
 */
import type { StreamsConfig } from "../../lib/index.ts";

export type Logger = NonNullable<StreamsConfig["logger"]>;

export function jsonLogger(name: string, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    write(JSON.stringify({ time: new Date().toISOString(), level, logger: name, message, ...fields }, errorsAsText) + "\n");
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}
