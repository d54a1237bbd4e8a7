import { afterEach, describe, expect, it, vi } from "vitest";
import { PausedFetchHold } from "../../../lib/kafka/paused-fetch-hold.ts";

const tp = (partition: number) => ({ topic: "in", partition });

/** Whether `hold()` has settled after the microtasks queued so far ran. */
async function settled(hold: Promise<void>): Promise<boolean> {
  let done = false;
  void hold.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe("PausedFetchHold", () => {
  afterEach(() => vi.useRealTimers());

  it("does not hold while any assigned partition is still fetched", async () => {
    const hold = new PausedFetchHold(1_000);
    hold.assigned([tp(0), tp(1)]);
    expect(await settled(hold.hold())).toBe(true);
    hold.paused([tp(0)]);
    expect(await settled(hold.hold())).toBe(true);
    // A paused partition that is not assigned does not count towards "all paused".
    hold.paused([{ topic: "other", partition: 0 }]);
    expect(await settled(hold.hold())).toBe(true);
  });

  it("holds once every assigned partition is paused, until one resumes", async () => {
    const hold = new PausedFetchHold(60_000);
    hold.assigned([tp(0), tp(1)]);
    hold.paused([tp(0), tp(1)]);
    const held = hold.hold();
    expect(await settled(held)).toBe(false);
    hold.resumed([]);
    expect(await settled(held)).toBe(false);
    hold.resumed([tp(1)]);
    expect(await settled(held)).toBe(true);
    expect(await settled(hold.hold())).toBe(true);
  });

  it("lets a held batch go at the limit, on a new assignment and on wake", async () => {
    vi.useFakeTimers();
    const hold = new PausedFetchHold(500);
    hold.assigned([tp(0)]);
    hold.paused([tp(0)]);
    const timed = hold.hold();
    await vi.advanceTimersByTimeAsync(499);
    expect(await settled(timed)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(timed)).toBe(true);

    const reassigned = hold.hold();
    expect(await settled(reassigned)).toBe(false);
    hold.assigned([tp(0), tp(1)]);
    expect(await settled(reassigned)).toBe(true);
    // tp(1) is new and not paused: nothing to hold for.
    expect(await settled(hold.hold())).toBe(true);

    hold.paused([tp(1)]);
    const woken = hold.hold();
    expect(await settled(woken)).toBe(false);
    hold.wake();
    expect(await settled(woken)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a second hold releases the first, so no batch is left waiting", async () => {
    const hold = new PausedFetchHold(60_000);
    hold.assigned([tp(0)]);
    hold.paused([tp(0)]);
    const first = hold.hold();
    const second = hold.hold();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    hold.resumed([tp(0)]);
    expect(await settled(second)).toBe(true);
  });
});
