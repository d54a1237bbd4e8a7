import { defineConfig } from "vitest/config";

// Three tiers: unit (no broker), integration (one real broker per run, started by the
// global setup), chaos (separate worker processes, kill -9; `make chaos`); and helm, the
// chart's render and schema tests (helm and kubernetes-validate from `make helm-tools`).
export default defineConfig({
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
          name: "integration",
          // test/package: the packed package installed into a project outside the repo.
          include: ["test/integration/**/*.test.ts", "test/package/**/*.test.ts"],
          globalSetup: ["test/broker/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
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
