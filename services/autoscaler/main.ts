/**
 * The lag autoscaler: `node services/autoscaler/main.ts`. Scales a Sluice app's StatefulSet
 * on its consumer group's lag; the environment variables are listed in README.md.
 * Stops cleanly on SIGTERM / Ctrl-C (exit code 0), after the poll under way.
 */
import { ConfigError, readGroupLag } from "../../lib/index.ts";
import { configFromEnv, type AutoscalerConfig } from "./config.ts";
import { defaultKubeConfig, statefulSetScale } from "./kubernetes.ts";
import { jsonLogger } from "./log.ts";
import { Autoscaler } from "./loop.ts";

const logger = jsonLogger("sluice.autoscaler");
let config: AutoscalerConfig;
try {
  config = configFromEnv();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`autoscaler: ${error.message}`);
  process.exit(2);
}

const { connection, groupId, topics, namespace, statefulSet, policy, pollIntervalMs, dryRun } = config;
const autoscaler = new Autoscaler({
  policy,
  dryRun,
  logger,
  scale: statefulSetScale(defaultKubeConfig(), namespace, statefulSet),
  async readLag() {
    const lag = await readGroupLag(connection, groupId, topics);
    return { total: lag.totalLag, partitions: lag.partitionCount };
  },
});

const stop = new AbortController();
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    logger.info(`${signal}: stopping after the poll under way`);
    stop.abort();
  });
}
logger.info("started", { groupId, topics: topics ?? "all committed", statefulSet: `${namespace}/${statefulSet}`, dryRun, pollIntervalMs, ...policy });
await autoscaler.run(pollIntervalMs, stop.signal);
logger.info("stopped");
