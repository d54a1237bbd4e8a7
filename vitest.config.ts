import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tiers: unit (no broker), parity (Kafka Streams' own test driver as the oracle, one JVM per
// run started by the global setup; docs/parity.md), integration (one real broker per run, started by the global
// setup), testcontainers (SLUICE_TESTCONTAINERS=1: part of the integration suite again, on a
// broker in a container started by testcontainers), chaos (separate worker processes,
// kill -9; `make chaos`); and helm, the chart's render and schema tests (helm and
// kubernetes-validate from `make helm-tools`).
const inContainers = process.env.SLUICE_TESTCONTAINERS === "1";
// What the testcontainers tier runs: the Kafka boundary, the exactly-once crash subset and
// the sluice/testing tests (the startKafka() example of docs/testing.md, the container
// fallback) and the service image (a service in a container). Without the tier they run on
// the local broker, except the fallback and the image, which need a container engine.
const containerTier = ["test/integration/kafka/**/*.test.ts", "test/integration/eos/**/*.test.ts", "test/integration/testing/**/*.test.ts", "test/integration/image/**/*.test.ts"];
const needsEngine = ["test/integration/testing/container-fallback.test.ts", "test/integration/image/**/*.test.ts"];
const brokerTier = { globalSetup: ["test/broker/global-setup.ts"], testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false };

export default defineConfig({
  // Tests written as a user writes them (import from "sluice") run against the sources.
  resolve: {
    alias: [
      { find: /^sluice$/, replacement: fileURLToPath(new URL("./lib/index.ts", import.meta.url)) },
      { find: /^sluice\/testing$/, replacement: fileURLToPath(new URL("./lib/testing/index.ts", import.meta.url)) },
    ],
  },
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // Driver tests of whole services take a few seconds; a loaded 2-core machine
          // stretches them past vitest's 5 s default. A timeout is not an assertion.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "parity",
          include: ["test/parity/**/*.test.ts"],
          globalSetup: ["test/parity/harness/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: "integration",
          // test/package: the packed package installed into a project outside the repo;
          // test/conformance: the Kafka boundary, once per client adapter (docs/runtime.md).
          include: ["test/integration/**/*.test.ts", "test/package/**/*.test.ts", "test/conformance/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...(inContainers ? containerTier : needsEngine)],
          ...brokerTier,
        },
      },
      ...(inContainers
        ? [{
          test: {
            name: "testcontainers",
            include: containerTier,
            ...brokerTier,
            // After the other tiers, so that the two brokers' test files never share the two cores.
            sequence: { groupOrder: 1 },
          },
        }]
        : []),
      {
        test: {
          name: "helm",
          include: ["test/helm/**/*.test.ts"],
          // helm and kubernetes-validate are separate processes; a busy machine slows them.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "chaos",
          include: ["test/chaos/**/*.test.ts"],
          globalSetup: ["test/broker/global-setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
