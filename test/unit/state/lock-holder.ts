// Run by state-directory-lock.test.ts in a separate process: locks a state directory,
// reports it on stdout, and keeps the lock until it is killed.
import { StateDirectory } from "../../../lib/state/index.ts";

const [stateDir, applicationId] = process.argv.slice(2);
if (stateDir === undefined || applicationId === undefined) throw new Error("usage: lock-holder.ts <stateDir> <applicationId>");
// The reference is dropped on purpose and garbage collected (--expose-gc): the lock must
// survive that, since a collected connection is closed and its fcntl lock released.
StateDirectory.lock(stateDir, applicationId);
const gc = (globalThis as { gc?: () => void }).gc;
for (let i = 0; i < 3; i++) gc?.();
process.stdout.write("locked\n");
setInterval(() => {}, 60_000);
