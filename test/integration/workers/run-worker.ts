import type { StreamsApp } from "../../../lib/index.ts";

/** A setting the test harness must give the worker process. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`worker needs ${name}`);
  return value;
}

/**
 * Starts a worker's app and reports it to the harness: one JSON line on stdout whenever
 * {state, tasks, processed, restored} changes; on a failed start a line {error, name} and
 * exit code 3 (the harness's sign of a refused start, e.g. a locked state directory).
 */
export async function runAndReport(app: StreamsApp): Promise<void> {
  let last = "";
  const report = () => {
    const line = JSON.stringify({ state: app.state, tasks: app.activeTasks(), processed: app.processedRecords, restored: app.restoredRecords });
    if (line !== last) process.stdout.write(line + "\n");
    last = line;
  };
  app.onStateChange(report);
  setInterval(report, 100).unref();
  try {
    await app.start();
  } catch (error) {
    process.stdout.write(JSON.stringify({ error: (error as Error).message, name: (error as Error).name }) + "\n");
    process.exit(3);
  }
}
