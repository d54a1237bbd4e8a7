/**
 * Fault injection for the crash suite. A named point in the commit cycle kills the process
 * with SIGKILL when the environment asks for it:
 *   SLUICE_FAULT_POINT=<name>   which point (see FaultPoint)
 *   SLUICE_FAULT_AFTER=<n>      kill on the n-th time the point is reached (default 1)
 * Without the variable a point costs one comparison.
 */
export type FaultPoint =
  /** Exactly-once: output and offsets are in the open transaction, commit not yet sent. */
  | "eos.before-commit"
  /** Exactly-once: the Kafka transaction committed, local state not yet committed. */
  | "eos.after-kafka-commit"
  /** At-least-once: output flushed, offsets not yet committed. */
  | "alos.after-flush";

const armed = process.env["SLUICE_FAULT_POINT"] ?? null;
let remaining = Number(process.env["SLUICE_FAULT_AFTER"] ?? 1);

export function faultPoint(name: FaultPoint): void {
  if (armed !== name) return;
  if (--remaining > 0) return;
  process.stderr.write(`fault point ${name} reached: killing process ${process.pid}\n`);
  process.kill(process.pid, "SIGKILL");
}
