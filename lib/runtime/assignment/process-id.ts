import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FILE = "sluice-process-metadata";

/**
 * The instance's process id, kept in its state directory (Kafka Streams'
 * kafka-streams-process-metadata): the same directory is the same process across
 * restarts, so the leader recognises it and its local state. A missing or unreadable file
 * gets a new id (the state is then only recognised through its checkpoints).
 */
export function loadProcessId(appDir: string): string {
  const path = join(appDir, FILE);
  try {
    const { processId } = JSON.parse(readFileSync(path, "utf8")) as { processId?: unknown };
    if (typeof processId === "string" && processId.length > 0) return processId;
  } catch {
    // missing or damaged: a new one below
  }
  const processId = randomUUID();
  // Written aside and moved, so a crash never leaves half a file.
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ processId })}\n`);
  renameSync(`${path}.tmp`, path);
  return processId;
}
