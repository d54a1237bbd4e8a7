/**
 * Interactive queries during and after task moves (exactly-once). Three instances advertise
 * their HTTP endpoint (applicationServer); while input flows, every key is asked of every
 * live instance, round after round, as tasks move: one instance is SIGKILLed and comes back,
 * then another stops for good. Every answer must be an aggregate the workload can produce
 * and count no more records than the input holds for the key; every instance must answer
 * every key during the moves; once input stops and is committed, every instance must answer
 * every key with its exact final aggregate, computed from the input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../../chaos/support/aggregate-check.ts";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { readWholeTopic } from "../../chaos/support/read-topic.ts";
import { startSlowRebalanceBroker } from "../runtime/slow-rebalance-broker.ts";
import { freePort } from "./support/free-port.ts";
import { HaCluster } from "./support/ha-cluster.ts";
import { KeyQuerier, queryKey } from "./support/key-queries.ts";

let broker: RestartableBroker;
beforeAll(async () => {
  broker = await startSlowRebalanceBroker();
});
afterAll(async () => {
  await broker?.stop();
});

const KEYS = 30;
const keys = Array.from({ length: KEYS }, (_, k) => `k${String(k).padStart(4, "0")}`);

describe("interactive queries across task moves (exactly-once)", () => {
  it("every key answered correctly by every instance during and after a kill -9, a restart and a scale-down", async () => {
    const ports = new Map<string, number>();
    for (const name of ["a", "b", "c"]) ports.set(name, await freePort());
    const cluster = new HaCluster({
      name: "queries across moves", bootstrap: broker.bootstrap, partitions: 6, keys: KEYS, rate: 200,
      extraConfig: (name) => ({ httpPort: ports.get(name), applicationServer: `127.0.0.1:${ports.get(name)}` }),
    });
    const querier = new KeyQuerier(cluster, keys);
    try {
      await cluster.open();
      for (const name of ["a", "b", "c"]) cluster.start(name);
      await cluster.waitBalanced();
      await cluster.waitProgress();
      querier.start();
      const movesFrom = Date.now();
      await cluster.kill("b");
      await cluster.waitBalanced();
      cluster.start("b");
      await cluster.waitBalanced();
      await cluster.stop("c");
      await cluster.waitBalanced();
      await cluster.waitProgress();
      const movesTo = Date.now();
      await querier.stop();

      await cluster.drain();
      const input = await readWholeTopic(broker.bootstrap, cluster.input, true, 60_000);
      const finals = new Map<string, string>();
      for (const records of input.partitions.values()) {
        for (const r of records) {
          const value = r.value!.toString();
          finals.set(r.key!.toString(), step(finals.get(r.key!.toString()), Number(value.slice(value.lastIndexOf(":") + 1))));
        }
      }
      const finalAnswers: Record<string, string[]> = {};
      for (const instance of cluster.live()) {
        const port = ports.get(instance.name)!;
        const wrong: string[] = [];
        for (const key of keys) {
          const { status, value, error } = await queryKey(port, key);
          if (status !== 200 || value !== finals.get(key)) wrong.push(`${key}: ${status} ${value ?? error ?? ""}, want ${finals.get(key)}`);
        }
        finalAnswers[instance.name] = wrong;
      }
      const counted = (value: string | null) => Number((value ?? "0").split(":")[0]);
      const beyondInput = querier.answers.filter((a) => a.status === 200 && counted(a.value) > counted(finals.get(a.key) ?? null));

      const verdict = await cluster.finish();
      console.log(`[ha] queries: ${querier.answers.length} answers during the moves, by status ${JSON.stringify(querier.statuses(movesFrom, movesTo))}\n${JSON.stringify(verdict)}\n[ha] logs: ${cluster.logDir}`);
      expect(querier.wrong.slice(0, 10), "answers that are no aggregate of the workload").toEqual([]);
      expect(beyondInput.slice(0, 5), "answers counting more records than the input holds").toEqual([]);
      for (const name of ["a", "b", "c"]) {
        expect(querier.answeredKeys(name, movesFrom, movesTo).size, `keys ${name} answered during the moves`).toBe(KEYS);
      }
      expect(finalAnswers, "answers after the moves that differ from the final aggregate").toEqual({ a: [], b: [] });
      expectExactlyOnce(verdict);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
    } finally {
      await querier.stop();
      await cluster.close();
    }
  }, 300_000);
});
