import type { Headers, KeyValuePair } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import type { CapturedRecord, TestInput, TestRecord } from "./test-record.ts";

/** The part of the driver the topics use. */
export interface DriverPort {
  pipe(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number | undefined, headers: Headers): void;
  take(topic: string): CapturedRecord | undefined;
  pending(topic: string): number;
}

/**
 * Writes typed records into an input topic; each one is processed, with everything it
 * causes downstream, before the call returns.
 *
 * @example
 *   const input = driver.createInputTopic("words", Serdes.string(), Serdes.string());
 *   input.pipeInput("k", "hello", 1_000);
 */
export class TestInputTopic<K, V> {
  readonly name: string;
  private readonly driver: DriverPort;
  private readonly keySerde: Serde<K>;
  private readonly valueSerde: Serde<V>;

  /** @internal Use driver.createInputTopic(..). */
  constructor(driver: DriverPort, name: string, keySerde: Serde<K>, valueSerde: Serde<V>) {
    this.driver = driver;
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  pipeInput(key: K | null, value: V | null, timestamp?: number, headers: Headers = {}): void {
    this.driver.pipe(this.name, this.keySerde.serialize(this.name, key), this.valueSerde.serialize(this.name, value), timestamp, headers);
  }

  pipeRecords(records: Iterable<TestInput<K, V>>): void {
    for (const r of records) this.pipeInput(r.key ?? null, r.value, r.timestamp, r.headers);
  }
}

/**
 * Reads what the topology wrote to a topic, oldest first; reading removes the record.
 *
 * @example
 *   const output = driver.createOutputTopic("counts", Serdes.string(), Serdes.int64());
 *   expect(output.readKeyValuesToList()).toEqual([["a", 1n]]);
 */
export class TestOutputTopic<K, V> {
  readonly name: string;
  private readonly driver: DriverPort;
  private readonly keySerde: Serde<K>;
  private readonly valueSerde: Serde<V>;

  /** @internal Use driver.createOutputTopic(..). */
  constructor(driver: DriverPort, name: string, keySerde: Serde<K>, valueSerde: Serde<V>) {
    this.driver = driver;
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  isEmpty(): boolean {
    return this.driver.pending(this.name) === 0;
  }

  getQueueSize(): number {
    return this.driver.pending(this.name);
  }

  /** The next record; throws when there is none, so a missing output fails loudly. */
  readRecord(): TestRecord<K, V> {
    const raw = this.driver.take(this.name);
    if (raw === undefined) throw new Error(`No more records in output topic "${this.name}"`);
    return {
      key: this.keySerde.deserialize(this.name, raw.key),
      value: this.valueSerde.deserialize(this.name, raw.value),
      timestamp: raw.timestamp,
      headers: raw.headers,
      partition: raw.partition,
    };
  }

  readKeyValue(): KeyValuePair<K | null, V | null> {
    const r = this.readRecord();
    return [r.key, r.value];
  }

  readValue(): V | null {
    return this.readRecord().value;
  }

  readRecordsToList(): TestRecord<K, V>[] {
    const out: TestRecord<K, V>[] = [];
    while (!this.isEmpty()) out.push(this.readRecord());
    return out;
  }

  readKeyValuesToList(): KeyValuePair<K | null, V | null>[] {
    return this.readRecordsToList().map((r) => [r.key, r.value] as const);
  }

  readValuesToList(): (V | null)[] {
    return this.readRecordsToList().map((r) => r.value);
  }
}
