import { readStoredCheckpoints, type StateDirectory } from "../../state/index.ts";

// Task directories are named <sub-topology>_<partition>; others (global, the lock) are not tasks.
const TASK_DIRECTORY = /^\d+_\d+$/;

/**
 * Per task with state in this instance's state directory, the offset sum its stores
 * reached (checkpoint + 1 per changelog partition): what the leader compares with the
 * changelog ends. Tasks whose database is open here report through `live` (a standby
 * knows its position); running active tasks are reported as running instead.
 */
export function localOffsetSums(directory: StateDirectory, live: (taskId: string) => number | undefined, running: ReadonlySet<string>): Record<string, number> {
  const sums: Record<string, number> = {};
  let taskIds: string[];
  try {
    taskIds = directory.taskIds();
  } catch {
    return sums;
  }
  for (const taskId of taskIds) {
    if (!TASK_DIRECTORY.test(taskId) || running.has(taskId)) continue;
    const known = live(taskId);
    if (known !== undefined) {
      sums[taskId] = known;
      continue;
    }
    const checkpoints = readStoredCheckpoints(directory.taskDir(taskId));
    if (checkpoints && checkpoints.length > 0) sums[taskId] = checkpoints.reduce((sum, c) => sum + c.offset + 1, 0);
  }
  return sums;
}
