import { describe, expect, it } from "vitest";
import { withFetchWaitOption, withFetchWaitPerFetch } from "../../../lib/kafka/fetch-wait.ts";

/** Stands in for the client's group object: records the wait each fetch was sent with. */
class RecordingGroup {
  maxWaitTime: number;
  readonly sentWith: number[] = [];
  constructor(options: { maxWaitTimeInMs: number; retry?: object }) {
    this.maxWaitTime = options.maxWaitTimeInMs;
  }
  fetch(_nodeId: number): Promise<unknown> {
    this.sentWith.push(this.maxWaitTime);
    return Promise.resolve([]);
  }
}

describe("fetch wait per fetch", () => {
  it("asks the consumer before every fetch", async () => {
    const Group = withFetchWaitPerFetch(RecordingGroup);
    let wait = 100;
    // The client spreads the retry option into its own settings before the group gets it.
    const retry = { ...withFetchWaitOption({ retries: 5 }, () => wait) };
    const group = new Group({ maxWaitTimeInMs: 100, retry });
    await group.fetch(0);
    wait = 10;
    await group.fetch(0);
    wait = 100;
    await group.fetch(0);
    expect(group.sentWith).toEqual([100, 10, 100]);
  });

  it("keeps the configured wait for a group whose consumer did not ask", async () => {
    const Group = withFetchWaitPerFetch(RecordingGroup);
    const group = new Group({ maxWaitTimeInMs: 250, retry: { retries: 5 } });
    await group.fetch(0);
    expect(group.sentWith).toEqual([250]);
  });
});
