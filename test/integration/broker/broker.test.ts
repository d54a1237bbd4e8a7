import { expect, inject, test } from "vitest";
import { describeBrokers } from "../../broker/ready.ts";

// Proves the global setup's broker is up and is what the rest of the tier will talk to.
test("the run's broker answers and is a single node", async () => {
  const bootstrap = inject("kafkaBootstrap");
  expect(bootstrap).toMatch(/^[^\s:,]+:\d+/);
  expect(process.env.KAFKA_BOOTSTRAP_SERVERS).toBe(bootstrap);
  expect(await describeBrokers(bootstrap)).toBe(1);
});
