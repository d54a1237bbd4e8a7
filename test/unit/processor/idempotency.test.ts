import { describe, expect, it } from "vitest";
import { Consumed, IDEMPOTENCY_KEY_HEADER, Produced, Serdes, StreamsBuilder, dedupeId, idempotencyKey, withIdempotencyKey } from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

/** An external system that applies a write once per key (INSERT ... ON CONFLICT DO NOTHING). */
class LedgerTable {
  readonly rows = new Map<string, number>();
  insertOnce(id: string, amount: number): boolean {
    if (this.rows.has(id)) return false;
    this.rows.set(id, amount);
    return true;
  }
}

function outboxTopology() {
  const builder = new StreamsBuilder();
  builder
    .stream("payments", Consumed.with(Serdes.string(), Serdes.int32()))
    .processValues(withIdempotencyKey<string | null, number | null>("ledger"))
    .to("ledger-outbox", Produced.with(Serdes.string(), Serdes.int32()));
  return builder.build();
}

describe("idempotent side effects", () => {
  it("names each input record by its position, the same on every reprocessing", () => {
    expect(idempotencyKey({ topic: "payments", partition: 2, offset: 41 })).toBe("payments/2/41");
    expect(idempotencyKey({ topic: "payments", partition: 2, offset: 41 }, "ledger")).toBe("payments/2/41/ledger");
    expect(() => idempotencyKey({ topic: "payments", partition: 0, offset: -1 })).toThrow(/needs a record read from a topic/);
    expect(dedupeId("ab", "c")).not.toBe(dedupeId("a", "bc"));
    expect(dedupeId("order", 7n)).toBe(dedupeId("order", 7n));
  });

  it("stamps outbox records so a consumer that sees them twice applies each effect once", () => {
    const run = () => {
      const driver = new TopologyTestDriver(outboxTopology());
      const payments = driver.createInputTopic("payments", Serdes.string(), Serdes.int32());
      const outbox = driver.createOutputTopic("ledger-outbox", Serdes.string(), Serdes.int32());
      payments.pipeInput("alice", 30);
      payments.pipeInput("bob", 12);
      payments.pipeInput("alice", 30); // a second, real payment of the same amount
      const records = outbox.readRecordsToList();
      driver.close();
      return records;
    };
    const first = run();
    const replay = run(); // the same input processed again, as after a crash under at-least-once
    const keys = first.map((r) => String(r.headers[IDEMPOTENCY_KEY_HEADER]));
    expect(keys).toEqual(["payments/0/0/ledger", "payments/0/1/ledger", "payments/0/2/ledger"]);
    expect(replay.map((r) => String(r.headers[IDEMPOTENCY_KEY_HEADER]))).toEqual(keys);

    const ledger = new LedgerTable();
    for (const r of [...first, ...replay]) ledger.insertOnce(String(r.headers[IDEMPOTENCY_KEY_HEADER]), r.value!);
    expect([...ledger.rows.values()]).toEqual([30, 12, 30]);
  });
});
