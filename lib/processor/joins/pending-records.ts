import type { KeyValueStore } from "../../state/index.ts";

/** Which input of a join a record came from. */
export type JoinSide = "left" | "right";

/** The serializers a join needs to keep records it holds back as bytes. */
export interface JoinSerializer<T> {
  serialize(topic: string, value: T | null): Buffer | null;
  deserialize(topic: string, data: Buffer | null): T | null;
}

/** One held-back record, as `due` returns it. */
export interface PendingRecord {
  readonly side: JoinSide;
  readonly key: unknown;
  readonly value: unknown;
  readonly timestampMs: number;
}

// As in Kafka Streams' outer join store: at equal timestamps right records sort (and are emitted) first.
const SIDE_BYTE: Record<JoinSide, number> = { left: 1, right: 0 };

/**
 * The records of a left or outer stream-stream join that have not found a partner yet
 * (Kafka Streams' "outer join store"). A key-value store over bytes keyed
 * `[timestamp: uint64 BE][side: 0 right, 1 left][key bytes]` (Kafka Streams' layout), so a
 * scan from the start returns them oldest first, right before left; the value is every
 * record with that key, side and timestamp, in arrival order (`[length: uint32 BE][value
 * bytes]` repeated).
 */
export class PendingRecords {
  private readonly store: KeyValueStore<Buffer, Buffer>;
  private readonly keySerde: JoinSerializer<unknown>;
  private readonly valueSerdes: Record<JoinSide, JoinSerializer<unknown>>;

  constructor(store: KeyValueStore<Buffer, Buffer>, keySerde: JoinSerializer<unknown>, valueSerdes: Record<JoinSide, JoinSerializer<unknown>>) {
    this.store = store;
    this.keySerde = keySerde;
    this.valueSerdes = valueSerdes;
  }

  /** Holds a record back until its window closes. */
  add(side: JoinSide, key: unknown, value: unknown, timestampMs: number): void {
    const storeKey = this.storeKey(side, this.keyBytes(key), timestampMs);
    const bytes = this.valueSerdes[side].serialize(this.store.name, value) ?? Buffer.alloc(0);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    const existing = this.store.get(storeKey);
    this.store.put(storeKey, existing === null ? Buffer.concat([length, bytes]) : Buffer.concat([existing, length, bytes]));
  }

  /** A record of `side` with this key and time found a partner: none of them is pending any more. */
  remove(side: JoinSide, keyBytes: Buffer, timestampMs: number): void {
    this.store.delete(this.storeKey(side, keyBytes, timestampMs));
  }

  /**
   * Walks the held records in store order (time, then right before left, then key bytes):
   * `visit(side, t)` says whether to emit the entry (it is then taken out and returned),
   * keep it, or stop the walk. Returns the emitted records and the time of the last entry
   * visited (null: none), which Kafka Streams keeps as its "earliest pending time".
   */
  scan(visit: (side: JoinSide, timestampMs: number) => "emit" | "keep" | "stop"): { records: PendingRecord[]; lastVisitedMs: number | null } {
    const out: PendingRecord[] = [];
    let lastVisitedMs: number | null = null;
    for (const entry of this.store.all()) {
      const timestampMs = readTime(entry.key);
      lastVisitedMs = timestampMs;
      const side: JoinSide = entry.key[8] === SIDE_BYTE.left ? "left" : "right";
      const action = visit(side, timestampMs);
      if (action === "stop") break;
      if (action === "keep") continue;
      const key = this.keySerde.deserialize(this.store.name, entry.key.subarray(9));
      for (const bytes of splitValues(entry.value)) {
        out.push({ side, key, value: this.valueSerdes[side].deserialize(this.store.name, bytes), timestampMs });
      }
      this.store.delete(entry.key);
    }
    return { records: out, lastVisitedMs };
  }

  keyBytes(key: unknown): Buffer {
    return this.keySerde.serialize(this.store.name, key) ?? Buffer.alloc(0);
  }

  private storeKey(side: JoinSide, keyBytes: Buffer, timestampMs: number): Buffer {
    const key = Buffer.alloc(9 + keyBytes.length);
    writeTime(key, timestampMs);
    key[8] = SIDE_BYTE[side];
    keyBytes.copy(key, 9);
    return key;
  }
}

function writeTime(target: Buffer, timestampMs: number): void {
  target.writeUInt32BE(Math.floor(timestampMs / 0x1_0000_0000), 0);
  target.writeUInt32BE(timestampMs % 0x1_0000_0000, 4);
}

function readTime(key: Buffer): number {
  return key.readUInt32BE(0) * 0x1_0000_0000 + key.readUInt32BE(4);
}

function splitValues(packed: Buffer): Buffer[] {
  const values: Buffer[] = [];
  for (let at = 0; at + 4 <= packed.length; ) {
    const length = packed.readUInt32BE(at);
    values.push(packed.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return values;
}
