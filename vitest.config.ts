import { defineConfig } from "vitest/config";

// Four tiers: unit (no broker), parity (Kafka Streams' own test driver as the oracle, one JVM
// per run started by the global setup; docs/parity.md), integration (one real broker per run,
// started by the global setup), chaos (separate worker processes, kill -9; `make chaos`).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
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
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/broker/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
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
