/**
 * A broker of a test file's own with the production default `group.initial.rebalance.delay.ms`
 * of 3 s (the run's shared broker sets it to 0 so consumer tests are quick): with it, every
 * new consumer group's first join costs the 3 s a production broker charges. Started like the
 * chaos suite's own broker, then restarted once with the setting appended (the last value of
 * a key in server.properties wins).
 */
import { appendFileSync } from "node:fs";
import { layoutFiles } from "../../broker/broker-config.ts";
import { startLocalBroker } from "../../broker/local-broker.ts";
import { RestartableBroker } from "../../chaos/support/own-broker.ts";

export const PRODUCTION_REBALANCE_DELAY_MS = 3_000;

export async function startSlowRebalanceBroker(): Promise<RestartableBroker> {
  const first = await startLocalBroker({ log: () => undefined });
  const broker = new RestartableBroker(first);
  try {
    await broker.hardKill();
    appendFileSync(layoutFiles(first.dir).serverProperties, `group.initial.rebalance.delay.ms=${PRODUCTION_REBALANCE_DELAY_MS}\n`);
    await broker.restart();
  } catch (error) {
    await broker.stop();
    throw error;
  }
  return broker;
}
