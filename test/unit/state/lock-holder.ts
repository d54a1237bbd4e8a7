// Run by state-directory-lock.test.ts in a separate process: locks a state directory,
// reports it on stdout, and keeps the lock until it is killed.
import { StateDirectory } from "../../../lib/state/index.ts";

const [stateDir, applicationId] = process.argv.slice(2);
if (stateDir === undefined || applicationId === undefined) throw new Error("usage: lock-holder.ts <stateDir> <applicationId>");
StateDirectory.lock(stateDir, applicationId);
process.stdout.write("locked\n");
setInterval(() => {}, 60_000);
