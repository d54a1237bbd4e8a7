import { describe, expect, it } from "vitest";
import { DRAINING_FETCH_WAIT_MS, DrainingPartitions } from "../../../lib/kafka/draining-partitions.ts";
import { PausedFetchHold } from "../../../lib/kafka/paused-fetch-hold.ts";

const tp = (partition: number) => ({ topic: "in", partition });

describe("DrainingPartitions", () => {
  it("waits briefly only while a partition paused until drained is out", () => {
    const draining = new DrainingPartitions(100);
    draining.assigned([tp(0), tp(1), tp(2)]);
    expect(draining.fetchWaitMs()).toBe(100);
    // Paused for another reason (a task not running): nothing comes back soon.
    draining.paused([tp(0)]);
    expect(draining.fetchWaitMs()).toBe(100);
    draining.paused([tp(1)], true);
    expect(draining.fetchWaitMs()).toBe(DRAINING_FETCH_WAIT_MS);
    // Paused again without untilDrained: it no longer counts as coming back.
    draining.paused([tp(1)]);
    expect(draining.fetchWaitMs()).toBe(100);
    draining.paused([tp(1)], true);
    draining.resumed([tp(1)]);
    expect(draining.fetchWaitMs()).toBe(100);
    // A partition revoked while paused until drained is forgotten.
    draining.paused([tp(1)], true);
    draining.assigned([tp(0), tp(2)]);
    expect(draining.fetchWaitMs()).toBe(100);
  });

  it("never waits longer than the configured wait", () => {
    const draining = new DrainingPartitions(4);
    draining.paused([tp(0)], true);
    expect(draining.fetchWaitMs()).toBe(4);
  });

  it("the hold says when every partition is paused (the kafkajs consumer then keeps the full wait: no fetch goes out)", () => {
    const hold = new PausedFetchHold(60_000);
    hold.assigned([tp(0), tp(1)]);
    hold.paused([tp(0)]);
    expect(hold.allPaused()).toBe(false);
    hold.paused([tp(1)]);
    expect(hold.allPaused()).toBe(true);
    hold.resumed([tp(1)]);
    expect(hold.allPaused()).toBe(false);
  });
});
