/**
 * A producer's coordinators, found once and kept. kafkajs' transaction manager asks the
 * cluster for the transaction coordinator before AddPartitionsToTxn, AddOffsetsToTxn and
 * EndTxn, and for the group coordinator before TxnOffsetCommit, and the cluster sends a
 * FindCoordinator request every time: four of the nine round trips of each exactly-once
 * commit, waited for one after another. The Java client keeps a coordinator until a request
 * to it says it is not the coordinator or gets no answer; so does this, and it asks again
 * once the broker's connection is down.
 *
 * It stands between kafkajs' transaction manager and the cluster it is given (installed in
 * ./kafkajs.ts), so consumers and admin clients look coordinators up as before.
 */

type Args = Record<string, unknown>;

/** The calls kafkajs' transaction manager makes on a coordinator it found. */
const COORDINATOR_CALLS = ["initProducerId", "addPartitionsToTxn", "addOffsetsToTxn", "txnOffsetCommit", "endTxn"] as const;
type CoordinatorCall = (typeof COORDINATOR_CALLS)[number];

export interface CoordinatorBroker extends Record<CoordinatorCall, (args: Args) => Promise<unknown>> {
  isConnected(): boolean;
}

/** What kafkajs' transaction manager uses of its cluster. */
export interface EosCluster {
  retry: unknown;
  refreshMetadataIfNecessary(): Promise<unknown>;
  findControllerBroker(): Promise<unknown>;
  findGroupCoordinator(args: { groupId: string; coordinatorType?: number }): Promise<CoordinatorBroker>;
}

/** A coordinator call sent another way than the broker object's own method. */
export type CoordinatorOverrides = Partial<Record<CoordinatorCall, (broker: CoordinatorBroker, args: Args) => Promise<unknown>>>;

export function withKeptCoordinators(cluster: EosCluster, overrides: CoordinatorOverrides = {}): EosCluster {
  const kept = new Map<string, { broker: CoordinatorBroker; calls: CoordinatorBroker }>();
  return {
    retry: cluster.retry,
    refreshMetadataIfNecessary: () => cluster.refreshMetadataIfNecessary(),
    findControllerBroker: () => cluster.findControllerBroker(),
    async findGroupCoordinator(args) {
      const key = `${args.coordinatorType ?? 0}:${args.groupId}`;
      const known = kept.get(key);
      if (known && known.broker.isConnected()) return known.calls;
      const broker = await cluster.findGroupCoordinator(args);
      const calls = forgettingOnFailure(broker, overrides, () => {
        if (kept.get(key)?.broker === broker) kept.delete(key);
      });
      kept.set(key, { broker, calls });
      return calls;
    },
  };
}

// Errors that say the broker is not (or no longer) the coordinator, by kafkajs' names.
const NOT_THE_COORDINATOR = new Set(["NOT_COORDINATOR", "NOT_COORDINATOR_FOR_GROUP", "COORDINATOR_NOT_AVAILABLE", "GROUP_COORDINATOR_NOT_AVAILABLE"]);

// A request that failed on one of those, or without the broker's answer (a timeout, a
// dropped connection), drops the coordinator, so kafkajs' own retry, which looks it up
// again, finds the new one. Other answers (CONCURRENT_TRANSACTIONS while the previous
// transaction's markers are written) came from the coordinator and keep it.
function forgettingOnFailure(broker: CoordinatorBroker, overrides: CoordinatorOverrides, forget: () => void): CoordinatorBroker {
  const calls = { isConnected: () => broker.isConnected() } as CoordinatorBroker;
  for (const name of COORDINATOR_CALLS) {
    const override = overrides[name];
    calls[name] = async (args: Args) => {
      try {
        return await (override ? override(broker, args) : broker[name](args));
      } catch (error) {
        const { name: errorName, type } = error as { name?: string; type?: string };
        if (errorName !== "KafkaJSProtocolError" || NOT_THE_COORDINATOR.has(type ?? "")) forget();
        throw error;
      }
    };
  }
  return calls;
}
