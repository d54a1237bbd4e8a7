import { describe, expect, it } from "vitest";
import { SendsInFlight } from "../../../lib/runtime/sends-in-flight.ts";

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("sends in flight", () => {
  it("is busy until acknowledged, then merges the changelog ends of every send until taken", async () => {
    const sends = new SendsInFlight();
    const first = deferred<Map<string, number>>();
    sends.start("0_0", first.promise);
    expect(sends.busy("0_0")).toBe(true);
    first.resolve(new Map([["log:0", 10], ["out:0", 5]]));
    await sends.settle("0_0");
    expect(sends.busy("0_0")).toBe(false);
    sends.start("0_0", Promise.resolve(new Map([["log:0", 20]])));
    await sends.settle("0_0");
    expect(sends.takeAcknowledged("0_0")).toEqual(new Map([["log:0", 20], ["out:0", 5]]));
    expect(sends.takeAcknowledged("0_0")).toBeUndefined();
  });

  it("throws a refused send once, where it is waited for, and never as an unhandled rejection", async () => {
    const sends = new SendsInFlight();
    const send = deferred<Map<string, number>>();
    sends.start("0_1", send.promise);
    send.reject(new Error("refused"));
    // Nobody waits yet: the rejection must not escape (vitest fails a test on one).
    await new Promise((r) => setTimeout(r, 10));
    expect(sends.busy("0_1")).toBe(false);
    await expect(sends.settle("0_1")).rejects.toThrow("refused");
    await expect(sends.settle("0_1")).resolves.toBeUndefined();
  });

  it("forgets a restarted task's sends: their acknowledgement is not the new incarnation's", async () => {
    const sends = new SendsInFlight();
    const old = deferred<Map<string, number>>();
    sends.start("1_0", old.promise);
    const waiting = sends.settle("1_0");
    sends.forget("1_0");
    old.resolve(new Map([["log:0", 99]]));
    await waiting;
    expect(sends.takeAcknowledged("1_0")).toBeUndefined();
    await sends.drained();
  });
});
