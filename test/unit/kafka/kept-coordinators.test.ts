import { describe, expect, it } from "vitest";
import { type CoordinatorBroker, type EosCluster, withKeptCoordinators } from "../../../lib/kafka/kept-coordinators.ts";

/** A cluster whose coordinator lookups are counted; each lookup answers the broker `next` names. */
function cluster() {
  const lookups: string[] = [];
  const brokers = new Map<string, CoordinatorBroker & { connected: boolean; failNext: boolean; failWith: string; calls: string[] }>();
  const broker = (name: string) => {
    const b = {
      connected: true,
      failNext: false,
      failWith: "NOT_COORDINATOR",
      calls: [] as string[],
      isConnected: () => b.connected,
    } as CoordinatorBroker & { connected: boolean; failNext: boolean; failWith: string; calls: string[] };
    for (const call of ["initProducerId", "addPartitionsToTxn", "addOffsetsToTxn", "txnOffsetCommit", "endTxn"] as const) {
      b[call] = async () => {
        b.calls.push(call);
        if (b.failNext) {
          b.failNext = false;
          throw Object.assign(new Error(`${name}: ${b.failWith}`), { name: "KafkaJSProtocolError", type: b.failWith });
        }
        return { from: name };
      };
    }
    brokers.set(name, b);
    return b;
  };
  let next = "b1";
  const inner: EosCluster = {
    retry: { retries: 3 },
    refreshMetadataIfNecessary: async () => undefined,
    findControllerBroker: async () => "controller",
    findGroupCoordinator: async ({ groupId, coordinatorType }) => {
      lookups.push(`${coordinatorType ?? 0}:${groupId}`);
      return brokers.get(next) ?? broker(next);
    },
  };
  return { inner, lookups, brokers, broker, moveTo: (name: string) => (next = name) };
}

describe("kept coordinators", () => {
  it("looks each coordinator up once and passes the rest through", async () => {
    const c = cluster();
    const kept = withKeptCoordinators(c.inner);
    for (let i = 0; i < 5; i++) {
      await (await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).addPartitionsToTxn({});
      await (await kept.findGroupCoordinator({ groupId: "app", coordinatorType: 0 })).txnOffsetCommit({});
      await (await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).endTxn({});
    }
    expect(c.lookups).toEqual(["1:txn-1", "0:app"]);
    expect(c.brokers.get("b1")!.calls).toHaveLength(15);
    expect(kept.retry).toBe(c.inner.retry);
    expect(await kept.findControllerBroker()).toBe("controller");
  });

  it("forgets a coordinator a request failed on, so the next lookup finds the new one", async () => {
    const c = cluster();
    const kept = withKeptCoordinators(c.inner);
    const first = await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 });
    c.brokers.get("b1")!.failNext = true;
    c.moveTo("b2");
    await expect(first.endTxn({})).rejects.toThrow(/NOT_COORDINATOR/);
    expect(await (await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).endTxn({})).toEqual({ from: "b2" });
    expect(c.lookups).toEqual(["1:txn-1", "1:txn-1"]);
  });

  it("keeps a coordinator through its other answers, and drops it when a request got none", async () => {
    const c = cluster();
    const kept = withKeptCoordinators(c.inner);
    const b1 = c.broker("b1");
    b1.failNext = true;
    b1.failWith = "CONCURRENT_TRANSACTIONS";
    await expect((await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).addPartitionsToTxn({})).rejects.toThrow(/CONCURRENT/);
    await (await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).addPartitionsToTxn({});
    expect(c.lookups).toHaveLength(1);
    b1.addOffsetsToTxn = async () => {
      throw Object.assign(new Error("Request AddOffsetsToTxn timed out"), { name: "KafkaJSRequestTimeoutError" });
    };
    await expect((await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).addOffsetsToTxn({})).rejects.toThrow(/timed out/);
    await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 });
    expect(c.lookups).toHaveLength(2);
  });

  it("looks up again once the kept coordinator's connection is down", async () => {
    const c = cluster();
    const kept = withKeptCoordinators(c.inner);
    await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 });
    c.brokers.get("b1")!.connected = false;
    c.moveTo("b3");
    expect(await (await kept.findGroupCoordinator({ groupId: "txn-1", coordinatorType: 1 })).initProducerId({})).toEqual({ from: "b3" });
    expect(c.lookups).toHaveLength(2);
  });
});
