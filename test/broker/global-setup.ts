/**
 * Vitest global setup of the broker tiers: one real broker per project and test run, shared
 * by the project's test files (tests keep apart by unique topic and group names). Tests read
 * its address with `inject("kafkaBootstrap")`.
 * - integration and chaos: the local JVM broker (or KAFKA_BOOTSTRAP_SERVERS); processes the
 *   tests spawn also find it in KAFKA_BOOTSTRAP_SERVERS.
 * - testcontainers (SLUICE_TESTCONTAINERS=1): the container engine and image are prepared
 *   (container-setup.ts) and the broker is a container started by testcontainers.
 */
import type { TestProject } from "vitest/node";
import { prepareContainerEngine } from "./container-setup.ts";
import { startBroker, type Broker } from "./provider.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** "host:port" of the project's broker. */
    kafkaBootstrap: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // No skipping: without a broker the tier has nothing to test, so the error thrown here
  // (what is missing and how to fix it) is the run's result.
  const inContainer = project.name === "testcontainers";
  let broker: Broker;
  if (inContainer) {
    const { engineMs, imageMs } = prepareContainerEngine();
    console.log(`Container engine ready in ${(engineMs / 1000).toFixed(1)} s, Kafka image in ${(imageMs / 1000).toFixed(1)} s`);
    broker = await startBroker({ provider: "testcontainers" });
  } else {
    broker = await startBroker();
  }
  const seconds = (broker.readyInMs / 1000).toFixed(1);
  const version = broker.version === "unknown" ? "(version unknown)" : broker.version;
  const source = broker.provider === "env" ? "KAFKA_BOOTSTRAP_SERVERS" : broker.provider;
  console.log(`[${project.name}] Kafka ${version} from ${source} at ${broker.bootstrap}` + (broker.readyInMs ? ` (ready in ${seconds} s)` : ""));
  project.provide("kafkaBootstrap", broker.bootstrap);
  // Only one broker can be the environment's; the container tier's tests pass theirs explicitly.
  const previous = process.env.KAFKA_BOOTSTRAP_SERVERS;
  if (!inContainer) process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrap;

  return async () => {
    if (!inContainer) {
      if (previous === undefined) delete process.env.KAFKA_BOOTSTRAP_SERVERS;
      else process.env.KAFKA_BOOTSTRAP_SERVERS = previous;
    }
    const keep = process.env.SLUICE_KEEP_BROKER_LOGS === "1" || runFailed(project);
    await broker.stop(keep);
  };
}

/** Whether any test or test file of the run failed; the state API is experimental, so doubt keeps the logs. */
function runFailed(project: TestProject): boolean {
  try {
    const state = project.vitest.state;
    return state.getCountOfFailedTests() > 0 || state.getFailedFilepaths().length > 0 || state.errorsSet.size > 0;
  } catch {
    return true;
  }
}
