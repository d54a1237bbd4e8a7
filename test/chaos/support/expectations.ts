import { expect } from "vitest";
import type { Verdict } from "./verifier.ts";

/** What exactly-once promises, as Kafka Streams' EOS verifier checks it. */
export function expectExactlyOnce(v: Verdict): void {
  expect(v.openTransactions, "output partitions with a transaction left open").toEqual([]);
  expect(v.groupMembers, "members left in the group").toBe(0);
  expect(v.offsetMismatches, "input partitions whose committed offset is not the end").toEqual([]);
  expect({ duplicates: v.duplicates, losses: v.losses, phantoms: v.phantoms }).toEqual({ duplicates: 0, losses: 0, phantoms: 0 });
  expect(v.misordered, "partitions whose output is not the input in order").toEqual([]);
  expect(v.recordsOut).toBe(v.recordsIn);
  if (v.aggregate) {
    expect(v.aggregate.openTransactions, "aggregate partitions with a transaction left open").toEqual([]);
    expect(v.aggregate.firstMismatch, "running aggregates against the oracle").toBeNull();
    expect(v.aggregate.storeProblems, "local stores against the oracle").toEqual([]);
  }
}

/** What at-least-once promises: every input record in the output, repeats allowed. */
export function expectAtLeastOnce(v: Verdict): void {
  expect(v.losses).toBe(0);
  expect(v.phantoms).toBe(0);
  expect(v.groupMembers, "members left in the group").toBe(0);
  expect(v.offsetMismatches, "input partitions whose committed offset is not the end").toEqual([]);
  expect(v.misordered, "first occurrences out of input order").toEqual([]);
}
