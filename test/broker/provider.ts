/**
 * Where the test run's (or the demo's, or the benchmarks') broker comes from:
 *   1. KAFKA_BOOTSTRAP_SERVERS: a broker someone already runs (CI service, `make kafka-up`);
 *   2. otherwise startKafka() from sluice/testing, the same code users' suites run, with the
 *      provider this run asks for. By default that is the local JVM broker, which runs the
 *      exact KAFKA_VERSION line; the testcontainers tier asks for a container.
 * SLUICE_BROKER_PROVIDER=env|testcontainers|local-jvm forces one.
 */
import { startKafka, type KafkaProvider } from "../../lib/testing/broker/start-kafka.ts";
import { canConnect } from "../../lib/testing/broker/process.ts";
import { describeBrokers } from "../../lib/testing/broker/ready.ts";

export type BrokerProvider = "env" | KafkaProvider;

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
  /** Overrides SLUICE_BROKER_PROVIDER and KAFKA_BOOTSTRAP_SERVERS (the testcontainers tier passes "testcontainers"). */
  provider?: BrokerProvider;
  /** Progress and notices; stderr by default. */
  log?: (line: string) => void;
}

export async function startBroker(options: StartBrokerOptions = {}): Promise<Broker> {
  const log = options.log ?? ((line: string) => console.error(line));
  const forced = options.provider ?? process.env.SLUICE_BROKER_PROVIDER;
  if (forced && !["env", "testcontainers", "local-jvm"].includes(forced)) {
    throw new Error(`SLUICE_BROKER_PROVIDER must be env, testcontainers or local-jvm, got '${forced}'.`);
  }
  const fromEnv = process.env.KAFKA_BOOTSTRAP_SERVERS?.trim();
  if (forced === "env" || (!forced && fromEnv)) {
    if (!fromEnv) throw new Error("SLUICE_BROKER_PROVIDER=env but KAFKA_BOOTSTRAP_SERVERS is not set: set it to host:port of a running broker.");
    return external(fromEnv);
  }
  const kafka = await startKafka({ provider: (forced as KafkaProvider | undefined) ?? "local-jvm", log });
  return {
    bootstrap: kafka.bootstrapServers, provider: kafka.provider, version: kafka.version, readyInMs: kafka.readyInMs,
    ...(kafka.logPath !== undefined ? { logPath: kafka.logPath } : {}),
    stop: (keepLogs) => kafka.stop({ keepLogs: keepLogs ?? false }),
  };
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
