/**
 * The library's logger: structured lines on stderr by default, replaceable by the user.
 * Fields are plain data; secrets are never passed here (see lib/kafka/config.ts redaction).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function levelFromEnv(): LogLevel {
  const level = process.env["SLUICE_LOG_LEVEL"];
  return level === "debug" || level === "info" || level === "warn" || level === "error" ? level : "info";
}

/** A logger writing one JSON line per event to stderr, at or above `minLevel`. */
export function consoleLogger(name = "sluice", minLevel: LogLevel = levelFromEnv()): Logger {
  const write = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (rank[level] < rank[minLevel]) return;
    const line = { time: new Date().toISOString(), level, logger: name, message, ...fields };
    process.stderr.write(JSON.stringify(line, errorReplacer) + "\n");
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** A logger that drops everything; for tests that assert on behaviour, not on log lines. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
