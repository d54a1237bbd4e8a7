/**
 * A Kafka broker in a container, started through testcontainers with the official
 * apache/kafka image's conventions: the broker is configured by KAFKA_* variables (the same
 * test settings as the local broker) and CLUSTER_ID. testcontainers is an optional peer
 * dependency, so it is imported only here, only when a container is wanted.
 */
import { clusterId, testBrokerSettings, type ContainerNetwork, type KafkaLine } from "./broker-config.ts";
import { freePorts } from "./process.ts";
import { waitUntilReady } from "./ready.ts";

export interface ContainerBrokerOptions {
  image: string;
  network: ContainerNetwork;
  readyTimeoutMs: number;
}

export interface ContainerBroker {
  bootstrap: string;
  version: string;
  image: string;
  stop(): Promise<void>;
}

/** Why no container could be had, told apart so that the caller can decide whether to fall back. */
export class ContainerUnavailable extends Error {
  readonly reason: "not-installed" | "no-engine" | "no-image" | "failed";

  constructor(reason: ContainerUnavailable["reason"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ContainerUnavailable";
    this.reason = reason;
  }
}

type Testcontainers = typeof import("testcontainers");

/** The lazy import, with the fix spelled out when the package is not there. `specifier` exists for the test of that message. */
export async function loadTestcontainers(specifier = "testcontainers"): Promise<Testcontainers> {
  try {
    return (await import(specifier)) as Testcontainers;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new ContainerUnavailable(
      "not-installed",
      `A Kafka container needs the \`${specifier}\` package, an optional peer dependency of sluice that is not installed: ` +
        `npm install --save-dev ${specifier}`,
      { cause: error },
    );
  }
}

/** Why no container can be started here (the package or the engine is missing), or null when an engine answers. */
export async function containerEngineProblem(): Promise<string | null> {
  let tc: Testcontainers;
  try {
    tc = await loadTestcontainers();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  try {
    await tc.getContainerRuntimeClient();
    return null;
  } catch (error) {
    return `no container engine answers (${firstLine(error)}): start Docker or Podman`;
  }
}

export async function startContainerBroker(options: ContainerBrokerOptions): Promise<ContainerBroker> {
  const tc = await loadTestcontainers();
  let client: Awaited<ReturnType<Testcontainers["getContainerRuntimeClient"]>>;
  try {
    client = await tc.getContainerRuntimeClient();
  } catch (error) {
    throw new ContainerUnavailable("no-engine", `No container engine answers (${firstLine(error)}). Start Docker or Podman.`, { cause: error });
  }
  await ensureImage(tc, client, options.image);

  const { image, network } = options;
  const tag = tc.ImageName.fromString(image).tag;
  const [port, controllerPort] = (await freePorts(2)) as [number, number];
  const host = network === "host" ? "127.0.0.1" : client.info.containerRuntime.host;
  const bootstrap = `${host}:${port}`;
  // Under host networking both listeners are on the host, so both ports must be free there;
  // behind a bridge only the client port is mapped, to the same number, so that the address
  // the broker advertises is the one clients reach.
  const listenHost = network === "host" ? "127.0.0.1" : "0.0.0.0";
  const controller = network === "host" ? `127.0.0.1:${controllerPort}` : "127.0.0.1:9094";
  const settings: Record<string, string | number> = {
    ...testBrokerSettings(lineOfTag(tag)),
    listeners: `PLAINTEXT://${listenHost}:${port},CONTROLLER://${controller}`,
    "advertised.listeners": `PLAINTEXT://${bootstrap}`,
    "controller.quorum.voters": `1@${controller}`,
  };
  let container = new tc.GenericContainer(image)
    .withEnvironment({ ...kafkaEnvironment(settings), CLUSTER_ID: clusterId(), KAFKA_HEAP_OPTS: "-Xms256m -Xmx512m" })
    .withWaitStrategy(tc.Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(options.readyTimeoutMs);
  container = network === "host" ? container.withNetworkMode("host") : container.withExposedPorts({ container: port, host: port });

  let started: Awaited<ReturnType<typeof container.start>>;
  try {
    started = await container.start();
  } catch (error) {
    throw new ContainerUnavailable("failed", `The Kafka container (${image}) did not start: ${firstLine(error)}`, { cause: error });
  }
  const ready = await waitUntilReady({ bootstrap, timeoutMs: options.readyTimeoutMs });
  if (!ready.ready) {
    await started.stop().catch(() => undefined);
    throw new ContainerUnavailable("failed", `The Kafka container (${image}) started but does not answer at ${bootstrap}: ${ready.reason}`);
  }
  let stopped = false;
  return {
    bootstrap,
    image,
    version: /^\d+\.\d+\.\d+$/.test(tag) ? tag : `unknown (${image})`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await started.stop({ timeout: 10_000 });
    },
  };
}

/** The image is used when the engine has it and pulled otherwise; a failed pull is told apart from a failed start. */
async function ensureImage(tc: Testcontainers, client: Awaited<ReturnType<Testcontainers["getContainerRuntimeClient"]>>, image: string): Promise<void> {
  const name = tc.ImageName.fromString(image);
  if (await client.image.exists(name)) return;
  try {
    await client.image.pull(name);
  } catch (error) {
    throw new ContainerUnavailable("no-image", `The container engine has no ${image} image and could not pull it: ${firstLine(error)}`, { cause: error });
  }
}

/**
 * A broker setting as the apache/kafka image reads it from the environment: "KAFKA_", then
 * the name in upper case with "_" doubled, "-" tripled and "." as "_".
 */
function kafkaEnvironment(settings: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [
      "KAFKA_" + key.replaceAll("_", "__").replaceAll("-", "___").replaceAll(".", "_").toUpperCase(),
      String(value),
    ]),
  );
}

/** Line-specific settings follow the image's version; a tag that names none gets the default line's. */
function lineOfTag(tag: string): KafkaLine {
  return tag.startsWith("4.") ? "4.1" : "3.9";
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}
