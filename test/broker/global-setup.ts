/**
 * Vitest global setup of the integration tier: one real broker per test run, shared by every
 * test file (tests keep apart by unique topic and group names). Tests read its address with
 * `inject("kafkaBootstrap")`; processes they spawn find it in KAFKA_BOOTSTRAP_SERVERS.
 */
import type { TestProject } from "vitest/node";
import { startBroker } from "./provider.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** "host:port" of the test run's broker. */
    kafkaBootstrap: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // No skipping: without a broker the integration tier has nothing to test, so the error
  // thrown here (what is missing and how to fix it) is the run's result.
  const broker = await startBroker();
  const seconds = (broker.readyInMs / 1000).toFixed(1);
  const version = broker.version === "unknown" ? "(version unknown)" : broker.version;
  const source = broker.provider === "env" ? "KAFKA_BOOTSTRAP_SERVERS" : broker.provider;
  console.log(`Kafka ${version} from ${source} at ${broker.bootstrap}` + (broker.readyInMs ? ` (ready in ${seconds} s)` : ""));
  project.provide("kafkaBootstrap", broker.bootstrap);
  const previous = process.env.KAFKA_BOOTSTRAP_SERVERS;
  process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrap;

  return async () => {
    if (previous === undefined) delete process.env.KAFKA_BOOTSTRAP_SERVERS;
    else process.env.KAFKA_BOOTSTRAP_SERVERS = previous;
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
