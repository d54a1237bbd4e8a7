/**
 * Where the test run's (or the demo's) broker comes from, first match wins:
 *   1. KAFKA_BOOTSTRAP_SERVERS: a broker someone already runs (CI service, `make kafka-up`);
 *   2. testcontainers, when a Docker engine answers;
 *   3. the local JVM broker built from Maven-resolved jars (local-broker.ts).
 * SLUICE_BROKER_PROVIDER=env|testcontainers|local-jvm forces one, e.g. local-jvm on a
 * machine with Docker to test the exact KAFKA_VERSION line.
 */
import { startLocalBroker } from "./local-broker.ts";
import { canConnect } from "./process.ts";
import { describeBrokers } from "./ready.ts";

export type BrokerProvider = "env" | "testcontainers" | "local-jvm";

export interface Broker {
  /** "host:port[,host:port]" as clients take it. */
  bootstrap: string;
  provider: BrokerProvider;
  /** The broker's version as far as it is known, e.g. "3.9.1"; "unknown" for a broker from the environment. */
  version: string;
  /** Milliseconds from asking for the broker to it answering (0 for an external one). */
  readyInMs: number;
  /** The broker's log file, when it is on this machine. */
  logPath?: string;
  /** Stops what this module started (nothing for "env"); keepLogs keeps the local broker's directory. */
  stop(keepLogs?: boolean): Promise<void>;
}

export interface StartBrokerOptions {
  /** Progress and notices; stderr by default. */
  log?: (line: string) => void;
}

/** confluentinc/cp-kafka 8.0.0 is Apache Kafka 4.0 in KRaft mode; KAFKA_VERSION does not apply to it. */
const CONTAINER_IMAGE = "confluentinc/cp-kafka:8.0.0";

export async function startBroker(options: StartBrokerOptions = {}): Promise<Broker> {
  const log = options.log ?? ((line: string) => console.error(line));
  const forced = process.env.SLUICE_BROKER_PROVIDER;
  if (forced && !["env", "testcontainers", "local-jvm"].includes(forced)) {
    throw new Error(`SLUICE_BROKER_PROVIDER must be env, testcontainers or local-jvm, got '${forced}'.`);
  }
  const fromEnv = process.env.KAFKA_BOOTSTRAP_SERVERS?.trim();
  if (forced === "env" || (!forced && fromEnv)) {
    if (!fromEnv) throw new Error("SLUICE_BROKER_PROVIDER=env but KAFKA_BOOTSTRAP_SERVERS is not set: set it to host:port of a running broker.");
    return external(fromEnv);
  }
  if (forced === "testcontainers" || (!forced && (await dockerAnswers()))) return container();
  try {
    const broker = await startLocalBroker({ log });
    return {
      bootstrap: broker.bootstrap, provider: "local-jvm", version: broker.version,
      readyInMs: broker.timings.formatMs + broker.timings.startMs, logPath: broker.brokerLog,
      stop: (keepLogs) => broker.stop(keepLogs),
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      "No Kafka broker: KAFKA_BOOTSTRAP_SERVERS is not set, no Docker engine answered, and the local JVM broker " +
        `could not start.\n${why}`,
      { cause: error },
    );
  }
}

/** An address from the environment is used as is, but checked once so a wrong one fails here and not in every test. */
async function external(bootstrap: string): Promise<Broker> {
  // A refused connection is answered at once; the client would retry it for half a minute.
  const addresses = bootstrap.split(",").map((a) => a.trim()).filter(Boolean);
  const open = await Promise.all(addresses.map((a) => canConnect(a.slice(0, a.lastIndexOf(":")), Number(a.slice(a.lastIndexOf(":") + 1)), 3000)));
  if (!open.includes(true)) {
    throw new Error(
      `KAFKA_BOOTSTRAP_SERVERS=${bootstrap}: nothing accepts connections there. ` +
        "Start that broker (make kafka-up), or unset KAFKA_BOOTSTRAP_SERVERS to let the run start its own.",
    );
  }
  const timeoutMs = 30_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([describeBrokers(bootstrap), timeout]);
  } catch (error) {
    throw new Error(
      `KAFKA_BOOTSTRAP_SERVERS=${bootstrap} does not answer (${error instanceof Error ? error.message : String(error)}). ` +
        "Start that broker (make kafka-up), or unset KAFKA_BOOTSTRAP_SERVERS to let the run start its own.",
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
  return { bootstrap, provider: "env", version: "unknown", readyInMs: 0, stop: async () => undefined };
}

/** getContainerRuntimeClient throws when no container engine answers: a cheap yes/no. */
async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function container(): Promise<Broker> {
  const started = Date.now();
  const { KafkaContainer } = await import("@testcontainers/kafka");
  // The container sets RF 1 for offsets but leaves the transaction log at its default of 3,
  // which a single broker cannot host: transactional producers would never initialise.
  const kafka = await new KafkaContainer(CONTAINER_IMAGE)
    .withEnvironment({
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
      KAFKA_LOG_CLEANER_BACKOFF_MS: "1000",
      KAFKA_TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS: "2000",
    })
    .start();
  return {
    bootstrap: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    provider: "testcontainers",
    version: `4.0 (${CONTAINER_IMAGE})`,
    readyInMs: Date.now() - started,
    stop: async () => {
      await kafka.stop();
    },
  };
}
