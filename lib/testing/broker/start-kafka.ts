/**
 * startKafka(): a real, throw-away Kafka broker for integration tests. It is the first of
 *   1. a container through testcontainers, when the package is installed and a container
 *      engine answers (image: option, SLUICE_KAFKA_IMAGE, else apache/kafka:<release>);
 *   2. the local JVM broker from Maven-resolved jars (needs Java 17+, and Maven or
 *      SLUICE_BROKER_LIBS);
 * that works. A container that cannot be had although an engine answers (say, the image
 * cannot be pulled) costs one notice line, not the run. With neither, the error names both.
 */
import { KAFKA_RELEASES, kafkaLine, type ContainerNetwork, type KafkaLine } from "./broker-config.ts";
// Only values come from here, so the declarations of this module never name testcontainers' types.
import { containerEngineProblem, ContainerUnavailable, startContainerBroker } from "./container-broker.ts";
import { startLocalBroker } from "./local-broker.ts";

export type KafkaProvider = "testcontainers" | "local-jvm";

export interface StartKafkaOptions {
  /** Force one way of running the broker; by default a container when possible, else the local JVM. */
  provider?: KafkaProvider;
  /** Kafka line of the local broker and of the default image: "3.9" (default, 3.9.1) or "4.1" (4.1.1). Default: KAFKA_VERSION. */
  kafkaVersion?: KafkaLine;
  /** Container image. Default: SLUICE_KAFKA_IMAGE, else the official `apache/kafka:<release>`. */
  image?: string;
  /** "bridge" (default, or SLUICE_KAFKA_CONTAINER_NETWORK) maps the broker's port; "host" runs the container on the host's network. */
  containerNetwork?: ContainerNetwork;
  /** Folder of the local broker's jars. Default: SLUICE_BROKER_LIBS, else a cache folder filled with Maven on first use. */
  jars?: string;
  /** How long the broker may take to answer. Default 60 s (local JVM), 180 s (container, which may pull its image first). */
  readyTimeoutMs?: number;
  /** Progress and notices. Default: stderr. */
  log?: (line: string) => void;
}

export interface StartedKafka {
  /** "host:port", as StreamsApp's bootstrapServers and TestKafka take it. */
  readonly bootstrapServers: string;
  readonly provider: KafkaProvider;
  /** The broker's release, e.g. "3.9.1". */
  readonly version: string;
  /** Milliseconds from the call to the broker answering. */
  readonly readyInMs: number;
  /** The broker's log file (local JVM broker only; a container's log is the container's). */
  readonly logPath?: string;
  /** Stops the broker and deletes its data; `keepLogs` keeps the local broker's folder and prints where it is. Safe to call twice. */
  stop(options?: { keepLogs?: boolean }): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a single-node Kafka broker for tests and resolves once it answers.
 *
 * @example
 *   const kafka = await startKafka();
 *   const app = new StreamsApp(topology, { applicationId: "orders-test", bootstrapServers: kafka.bootstrapServers });
 *   // ...
 *   await kafka.stop();
 */
export async function startKafka(options: StartKafkaOptions = {}): Promise<StartedKafka> {
  const log = options.log ?? ((line: string) => console.error(line));
  const line = options.kafkaVersion ?? kafkaLine();
  const provider = options.provider;
  if (provider !== undefined && provider !== "testcontainers" && provider !== "local-jvm") {
    throw new Error(`startKafka: provider must be "testcontainers" or "local-jvm" (or left out to pick one), got ${JSON.stringify(provider)}.`);
  }
  const since = Date.now();
  let containerProblem = provider === undefined ? await containerEngineProblem() : null;
  if (provider === "testcontainers" || (provider === undefined && containerProblem === null)) {
    try {
      return await inContainer(options, line, since);
    } catch (error) {
      if (provider === "testcontainers" || !(error instanceof ContainerUnavailable)) throw error;
      containerProblem = error.message;
      log(`${error.message}; using the local JVM broker instead.`);
    }
  }
  try {
    return await onLocalJvm(options, line, log, since);
  } catch (error) {
    if (provider === "local-jvm") throw error;
    throw new Error(
      "startKafka found no way to run a Kafka broker.\n" +
        `- In a container: ${containerProblem}.\n` +
        `- On the local JVM: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

async function inContainer(options: StartKafkaOptions, line: KafkaLine, since: number): Promise<StartedKafka> {
  const network = options.containerNetwork ?? networkFromEnv();
  const image = options.image ?? (process.env.SLUICE_KAFKA_IMAGE || `apache/kafka:${KAFKA_RELEASES[line]}`);
  const broker = await startContainerBroker({ image, network, readyTimeoutMs: options.readyTimeoutMs ?? 180_000 });
  return asStartedKafka(broker.bootstrap, "testcontainers", broker.version, Date.now() - since, undefined, () => broker.stop());
}

async function onLocalJvm(options: StartKafkaOptions, line: KafkaLine, log: (line: string) => void, since: number): Promise<StartedKafka> {
  const broker = await startLocalBroker({
    line, log, ...(options.jars !== undefined ? { libs: options.jars } : {}),
    ...(options.readyTimeoutMs !== undefined ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
  });
  return asStartedKafka(broker.bootstrap, "local-jvm", broker.version, Date.now() - since, broker.brokerLog, (keepLogs) => broker.stop(keepLogs));
}

function networkFromEnv(): ContainerNetwork {
  const value = process.env.SLUICE_KAFKA_CONTAINER_NETWORK;
  if (value === undefined || value === "" || value === "bridge") return "bridge";
  if (value === "host") return "host";
  throw new Error(`SLUICE_KAFKA_CONTAINER_NETWORK must be bridge or host, got '${value}'.`);
}

function asStartedKafka(
  bootstrapServers: string, provider: KafkaProvider, version: string, readyInMs: number,
  logPath: string | undefined, stop: (keepLogs: boolean) => Promise<void>,
): StartedKafka {
  return {
    bootstrapServers, provider, version, readyInMs,
    ...(logPath !== undefined ? { logPath } : {}),
    stop: (stopOptions) => stop(stopOptions?.keepLogs ?? false),
    [Symbol.asyncDispose]: () => stop(false),
  };
}
