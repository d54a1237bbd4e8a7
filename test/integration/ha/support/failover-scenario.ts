/**
 * The failover scenario shared by failover.test.ts (no standby) and failover-standby.test.ts
 * (one standby): two instances under continuous load, exactly-once; the one running half the
 * tasks is SIGKILLed (no commit, no leave-group: the group notices after the session timeout)
 * and the survivor takes its tasks; then the victim comes back in its old state directory.
 * Returns the verdict, the figures of both moves and what the survivor restored for the
 * victim's tasks, with the standby's lag on them when the victim died.
 */
import type { Verdict } from "../../../chaos/support/verifier.ts";
import { moveFigures, type MoveFigures } from "./figures.ts";
import { HaCluster } from "./ha-cluster.ts";

export interface FailoverResult {
  verdict: Verdict;
  figures: MoveFigures[];
  /** Tasks the victim ran when it was killed. */
  moved: string[];
  /** The survivor's standby tasks just before the kill. */
  standbysBefore: string[];
  /** Changelog records the survivor replayed in the failover (its restored count's growth). */
  restoredByNewOwner: number;
  /** Changelog records of the moved tasks past the survivor's standby positions when the victim died (its lag). */
  standbyLag: number | null;
  /** Changelog records of the moved tasks when the victim died (their high watermarks). */
  movedChangelog: number;
  survivorTasks: string[];
  logDir: string;
}

export async function runFailover(bootstrap: string, name: string, standbys: number): Promise<FailoverResult> {
  const cluster = new HaCluster({
    name, bootstrap, partitions: 4, rate: 300,
    extraConfig: () => (standbys > 0 ? { numStandbyReplicas: standbys } : {}),
  });
  const figures: MoveFigures[] = [];
  try {
    await cluster.open();
    cluster.start("a");
    cluster.start("b");
    await cluster.waitBalanced();
    if (standbys > 0) {
      // Each instance keeps a standby of every task the other runs.
      await cluster.until("standbys of the other's tasks on both instances", 120_000, () =>
        ["a", "b"].every((n) => {
          const other = cluster.instance(n === "a" ? "b" : "a");
          return [...(cluster.instance(n).latest?.standby ?? [])].sort().join() === [...other.tasks].sort().join();
        }));
    }
    // State to restore: a few thousand changelog records spread over the tasks.
    await cluster.until("3,000 records committed", 120_000, () => [...cluster.probe.committed().values()].reduce((a, b) => a + b, 0) >= 3_000);
    const survivor = cluster.instance("b");
    const moved = cluster.instance("a").tasks;
    const last = survivor.latest!;

    await cluster.kill("a");
    // With the victim gone its changelogs can only lose an open transaction (aborted, never
    // restored): their high watermarks bound what a standby can lack.
    const changelog = `${cluster.applicationId}-agg-changelog`;
    const ends = new Map((await cluster.admin.offsets(changelog)).map((o) => [o.partition, o.latest]));
    const standbyLag = standbys > 0
      ? moved.reduce((sum, t) => sum + (ends.get(Number(t.split("_")[1])) ?? 0) - (last.standbyOffsets?.[t] ?? 0), 0)
      : null;
    const movedChangelog = moved.reduce((sum, t) => sum + (ends.get(Number(t.split("_")[1])) ?? 0), 0);
    await cluster.waitBalanced();
    await cluster.waitProgress();
    figures.push(moveFigures(cluster, "kill -9 a, b takes over", cluster.events.at(-1)!, Date.now()));
    const restoredByNewOwner = survivor.latest!.restored - last.restored;
    const survivorTasks = survivor.tasks;

    const back = cluster.events.length;
    cluster.start("a");
    await cluster.waitBalanced();
    await cluster.waitProgress();
    figures.push(moveFigures(cluster, "a restarts (old state dir)", cluster.events[back]!, Date.now()));

    const verdict = await cluster.finish();
    return { verdict, figures, moved, standbysBefore: last.standby, restoredByNewOwner, standbyLag, movedChangelog, survivorTasks, logDir: cluster.logDir };
  } catch (error) {
    throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
  } finally {
    await cluster.close();
  }
}
