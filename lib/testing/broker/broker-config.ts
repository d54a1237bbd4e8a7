/**
 * What a single-node KRaft test broker is made of: which jars, which version, its settings,
 * its server.properties and its logging config. Pure functions over paths and ports, so the
 * start-up code only has to run processes.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export type KafkaLine = "3.9" | "4.1";

/**
 * How a container broker is reached: "bridge" maps its port to the same port on the host;
 * "host" shares the host's network (engines without a bridge network).
 */
export type ContainerNetwork = "bridge" | "host";

/** The exact Apache Kafka release of each supported line. */
export const KAFKA_RELEASES: Record<KafkaLine, string> = { "3.9": "3.9.1", "4.1": "4.1.1" };

/** KAFKA_VERSION picks the line; anything else is a typo we should not silently ignore. */
export function kafkaLine(value = process.env.KAFKA_VERSION): KafkaLine {
  if (value === undefined || value === "" || value === "3.9") return "3.9";
  if (value === "4.1") return "4.1";
  throw new Error(`KAFKA_VERSION must be 3.9 or 4.1, got '${value}'.`);
}

/** Where jars resolved on demand are kept between runs: $XDG_CACHE_HOME/sluice, else ~/.cache/sluice. */
export function defaultBrokerLibs(line: KafkaLine): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "sluice", `kafka-${KAFKA_RELEASES[line]}`, "libs");
}

/** The jars folder: SLUICE_BROKER_LIBS (a folder of broker jars) or the cache folder for the line. */
export function brokerLibs(line: KafkaLine, override = process.env.SLUICE_BROKER_LIBS): string {
  return override ? resolve(override) : defaultBrokerLibs(line);
}

/** Whether a folder holds jars at all; an empty or missing one is resolved (default folder) or reported. */
export function hasJars(libs: string): boolean {
  return existsSync(libs) && readdirSync(libs).some((f) => f.endsWith(".jar"));
}

/**
 * The exact broker version, read from the kafka_2.13 jar's name, so a jars folder of the
 * wrong line (SLUICE_BROKER_LIBS pointing at 3.9 while KAFKA_VERSION=4.1) is caught here
 * rather than as a confusing logging failure in the JVM.
 */
export function brokerVersion(libs: string, line: KafkaLine): string {
  const fix = `Point SLUICE_BROKER_LIBS at a folder of Kafka ${line} broker jars, or unset it so that the jars are ` +
    `resolved with Maven into ${defaultBrokerLibs(line)}.`;
  if (!existsSync(libs)) throw new Error(`The Kafka ${line} broker jars are missing: ${libs} does not exist. ${fix}`);
  const jars = readdirSync(libs).filter((f) => f.endsWith(".jar"));
  if (jars.length === 0) throw new Error(`The Kafka ${line} broker jars are missing: ${libs} holds no jars. ${fix}`);
  const core = jars.map((f) => /^kafka_2\.1[23]-(.+)\.jar$/.exec(f)?.[1]).find((v) => v !== undefined);
  if (!core) throw new Error(`${libs} holds jars but not the broker's (kafka_2.13-*.jar); it is not a broker classpath. ${fix}`);
  if (!core.startsWith(`${line}.`)) {
    throw new Error(`KAFKA_VERSION=${line} but ${libs} holds Kafka ${core}. ${fix}`);
  }
  return core;
}

/** A KRaft cluster id: 16 random bytes in URL-safe base64, as Kafka's Uuid prints them. */
export function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    // Kafka refuses ids that begin with "-" (they read as command-line flags).
    if (!id.startsWith("-")) return id;
  }
}

export interface NodeLayout {
  line: KafkaLine;
  port: number;
  controllerPort: number;
  /** Holds everything below; deleted on a clean stop. */
  dir: string;
}

export const layoutFiles = (dir: string) => ({
  serverProperties: join(dir, "server.properties"),
  logConfig: join(dir, "log4j.config"),
  brokerLog: join(dir, "broker.log"),
  /** The JVM's own stdout and stderr: crashes, class-version errors, out-of-memory. */
  jvmLog: join(dir, "jvm.log"),
  dataDir: join(dir, "data"),
});

/**
 * The settings a test broker runs with beyond its listeners: sized for one node on a shared
 * 2-core machine and for tests that wait on compaction and transaction time-outs. The
 * container broker gets the same ones, as KAFKA_* variables.
 */
export function testBrokerSettings(line: KafkaLine): Record<string, string | number> {
  const settings: Record<string, string | number> = {
    "process.roles": "broker,controller",
    "node.id": 1,
    "inter.broker.listener.name": "PLAINTEXT",
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    // One broker: internal topics cannot have more than one replica.
    "offsets.topic.replication.factor": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "min.insync.replicas": 1,
    // 50 partitions each by default; creating them on first group or transaction use costs
    // seconds on a 2-core machine and tests never need more than a few coordinators.
    "offsets.topic.num.partitions": 5,
    "transaction.state.log.num.partitions": 5,
    // The default 3 s delay before a new group's first rebalance slows every consumer test.
    "group.initial.rebalance.delay.ms": 0,
    "num.network.threads": 2,
    "num.io.threads": 2,
    "num.recovery.threads.per.data.dir": 1,
    // The cleaner allocates this buffer on the heap at start; the 128 MiB default does not fit -Xmx512m well.
    "log.cleaner.dedupe.buffer.size": 16 * 1024 * 1024,
    // Compaction tests wait for the cleaner; its default 15 s back-off would dominate them.
    "log.cleaner.backoff.ms": 1000,
    // Timed-out transactions are aborted on this check (default 10 s); fencing tests wait for it.
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 2000,
    "transaction.remove.expired.transaction.cleanup.interval.ms": 60_000,
  };
  if (line === "4.1") {
    settings["share.coordinator.state.topic.replication.factor"] = 1;
    settings["share.coordinator.state.topic.min.isr"] = 1;
  }
  return settings;
}

/** One KRaft node on 127.0.0.1: listeners on the layout's ports, data in its directory. */
export function serverProperties(node: NodeLayout): string {
  const { port, controllerPort } = node;
  const settings: Record<string, string | number> = {
    ...testBrokerSettings(node.line),
    "controller.quorum.voters": `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}`,
    "log.dirs": layoutFiles(node.dir).dataDir,
  };
  return Object.entries(settings).map(([k, v]) => `${k}=${v}`).join("\n") + "\n";
}

/** The JVM flag that points the broker's logging backend at our config file. */
export function logConfigFlag(node: NodeLayout): string {
  const file = layoutFiles(node.dir).logConfig;
  return node.line === "3.9" ? `-Dlog4j.configuration=file:${file}` : `-Dlog4j2.configurationFile=${file}`;
}

/**
 * Broker log to one file at INFO; the per-request and state-change loggers are turned down
 * because at INFO they bury the lines that explain a failure.
 */
export function logConfig(node: NodeLayout): string {
  const log = layoutFiles(node.dir).brokerLog;
  const quiet = ["kafka.request.logger", "state.change.logger", "org.apache.kafka.clients.NetworkClient"];
  if (node.line === "3.9") {
    return [
      "log4j.rootLogger=INFO, file",
      "log4j.appender.file=org.apache.log4j.FileAppender",
      `log4j.appender.file.File=${log}`,
      "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
      "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n",
      ...quiet.map((name) => `log4j.logger.${name}=WARN`),
    ].join("\n") + "\n";
  }
  const xml = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Configuration status="warn">',
    `  <Appenders><File name="file" fileName="${xml(log)}"><PatternLayout pattern="[%d] %p %m (%c)%n"/></File></Appenders>`,
    "  <Loggers>",
    ...quiet.map((name) => `    <Logger name="${name}" level="warn"/>`),
    '    <Root level="info"><AppenderRef ref="file"/></Root>',
    "  </Loggers>",
    "</Configuration>",
  ].join("\n") + "\n";
}

/**
 * A class-data-sharing archive of the classes a broker loads, made by one run of this jars
 * folder and reused by the next: loading ~60 MB of jars dominates start-up, and the archive
 * about halves it (see docs/broker.md). It lives in the jars folder, so re-resolving the jars
 * deletes it with them; a JVM that cannot use it says so and runs without it.
 */
export const cdsArchive = (libs: string) => join(libs, "broker-cds.jsa");

function cdsFlags(libs: string, dumpArchiveTo?: string): string[] {
  if (dumpArchiveTo) return [`-XX:ArchiveClassesAtExit=${dumpArchiveTo}`];
  return existsSync(cdsArchive(libs)) ? [`-XX:SharedArchiveFile=${cdsArchive(libs)}`] : [];
}

/**
 * JVM flags for the broker: the start script's GC settings with a heap sized for a shared
 * 2-core machine. `dumpArchiveTo` makes this run write the class-data archive when it exits.
 */
export function brokerJvmArgs(node: NodeLayout, libs: string, dumpArchiveTo?: string): string[] {
  return [
    "-server", "-Xms256m", "-Xmx512m", ...cdsFlags(libs, dumpArchiveTo),
    "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
    "-Djava.awt.headless=true",
    `-Dkafka.logs.dir=${node.dir}`,
    logConfigFlag(node),
    "-cp", join(libs, "*"),
    "kafka.Kafka", layoutFiles(node.dir).serverProperties,
  ];
}

/**
 * JVM flags for the short-lived format step: C1 only and the serial collector start a JVM
 * faster, which is all a one-second tool run needs.
 */
export function formatJvmArgs(node: NodeLayout, libs: string, cluster: string): string[] {
  return [
    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.awt.headless=true", ...cdsFlags(libs),
    logConfigFlag(node),
    "-cp", join(libs, "*"),
    "kafka.tools.StorageTool", "format",
    "-t", cluster, "-c", layoutFiles(node.dir).serverProperties, "--ignore-formatted",
  ];
}
