/**
 * The container engine and Kafka image of the testcontainers tier (SLUICE_TESTCONTAINERS=1).
 * The project's machines have no registry to pull from and no bridge networking, so:
 * container-engine.sh makes dockerd answer (installing Debian's docker.io when missing),
 * kafka-image.sh builds a Kafka image from the broker jars without pulling, and the
 * environment points testcontainers and startKafka() at that image, on host networking and
 * 127.0.0.1, without Ryuk (its image cannot be pulled either). Both scripts are idempotent: once the
 * daemon runs and the image is current, this costs well under a second.
 *   node test/broker/container-setup.ts     (make container-engine)
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { brokerLibs, KAFKA_RELEASES, kafkaLine } from "../../lib/testing/broker/broker-config.ts";

export const localKafkaImage = (release = KAFKA_RELEASES[kafkaLine()]) => `sluice-local/kafka:${release}`;

export interface ContainerSetupTimings {
  engineMs: number;
  imageMs: number;
}

export function prepareContainerEngine(): ContainerSetupTimings {
  const line = kafkaLine();
  const engineMs = run("container-engine.sh", []);
  const imageMs = run("kafka-image.sh", [brokerLibs(line), localKafkaImage(KAFKA_RELEASES[line])]);
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
  // testcontainers finds the engine's address through the bridge network's gateway when it
  // believes it runs in a container (/.dockerenv exists here); there is no bridge, and under
  // host networking the broker is on this machine's loopback anyway.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";
  process.env.SLUICE_KAFKA_IMAGE ??= localKafkaImage(KAFKA_RELEASES[line]);
  process.env.SLUICE_KAFKA_CONTAINER_NETWORK ??= "host";
  return { engineMs, imageMs };
}

function run(script: string, args: string[]): number {
  const started = Date.now();
  // The scripts' progress lines go to stderr, next to the rest of the run's set-up output.
  const result = spawnSync("bash", [join(import.meta.dirname, script), ...args], { stdio: ["ignore", 2, 2] });
  if (result.status !== 0) {
    throw new Error(`test/broker/${script} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); its output is above.`);
  }
  return Date.now() - started;
}

if (import.meta.main) {
  try {
    const { engineMs, imageMs } = prepareContainerEngine();
    console.error(`container set-up: engine ${(engineMs / 1000).toFixed(1)} s, image ${(imageMs / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
