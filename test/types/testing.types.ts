/** Type tests for the test driver and the Processor API's records. */
import { Serdes, StreamRecord, StreamsBuilder, type Headers, type KeyValuePair } from "../../lib/index.ts";
import { TopologyTestDriver, type TestRecord } from "../../lib/testing/index.ts";

type Expect<T extends true> = T;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const builder = new StreamsBuilder();
builder.stream("in").to("out");
const driver = new TopologyTestDriver(builder.build());
const input = driver.createInputTopic("in", Serdes.string(), Serdes.int64());
const output = driver.createOutputTopic("out", Serdes.string(), Serdes.int64());

input.pipeInput("k", 1n);
input.pipeInput(null, null, 5, { trace: "x" });
input.pipeRecords([{ value: 2n }, { key: "k", value: 3n, timestamp: 1 }]);
// @ts-expect-error the value serde is int64: bigint, not number
input.pipeInput("k", 1);
// @ts-expect-error records need a value (null for a tombstone)
input.pipeRecords([{ key: "k" }]);

const kv = output.readKeyValue();
const record = output.readRecord();
export type DriverTypes = [
  Expect<Equal<typeof kv, KeyValuePair<string | null, bigint | null>>>,
  Expect<Equal<typeof record, TestRecord<string, bigint>>>,
  Expect<Equal<typeof record.value, bigint | null>>,
  Expect<Equal<ReturnType<typeof output.readValuesToList>, (bigint | null)[]>>,
];

// StreamRecord helpers change only the part they replace.
const r = new StreamRecord("k", 1, 0);
const rekeyed = r.withKey(2);
const revalued = r.withValue({ n: 1 });
const both = r.withKeyValue(true, "v");
export type RecordTypes = [
  Expect<Equal<typeof rekeyed, StreamRecord<number, number>>>,
  Expect<Equal<typeof revalued, StreamRecord<string, { n: number }>>>,
  Expect<Equal<typeof both, StreamRecord<boolean, string>>>,
  Expect<Equal<ReturnType<typeof r.withTimestamp>, StreamRecord<string, number>>>,
  Expect<Equal<typeof r.headers, Headers>>,
];
// @ts-expect-error records are immutable
r.value = 2;
