import { describe, expect, it, vi } from "vitest";
import { addPartitionsSoonAfterConcurrent } from "../../../lib/kafka/concurrent-transactions.ts";

const protocolError = (type: string) => Object.assign(new Error(type), { name: "KafkaJSProtocolError", type });

describe("AddPartitionsToTxn after CONCURRENT_TRANSACTIONS", () => {
  it("is tried again 20 ms later, not after the client's 200 ms backoff, until the coordinator accepts it", async () => {
    vi.useFakeTimers();
    try {
      let attempts = 0;
      const answer = addPartitionsSoonAfterConcurrent(async () => {
        attempts++;
        if (attempts < 4) throw protocolError("CONCURRENT_TRANSACTIONS");
        return "added";
      });
      for (const expected of [2, 3, 4]) {
        await vi.advanceTimersByTimeAsync(19);
        expect(attempts).toBe(expected - 1);
        await vi.advanceTimersByTimeAsync(1);
        expect(attempts).toBe(expected);
      }
      expect(await answer).toBe("added");
    } finally {
      vi.useRealTimers();
    }
  });

  it("passes any other error to the caller at once", async () => {
    let attempts = 0;
    const call = async () => {
      attempts++;
      throw protocolError("INVALID_PRODUCER_EPOCH");
    };
    await expect(addPartitionsSoonAfterConcurrent(call)).rejects.toMatchObject({ type: "INVALID_PRODUCER_EPOCH" });
    expect(attempts).toBe(1);
  });
});
