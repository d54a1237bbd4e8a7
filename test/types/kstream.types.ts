/**
 * Type tests for the DSL, checked by `tsc` (no runtime): type parameters change only where
 * an operator changes them, and misuse does not compile.
 */
import {
  Branched,
  Consumed,
  Produced,
  Repartitioned,
  Serdes,
  StreamRecord,
  StreamsBuilder,
  type FixedKeyProcessor,
  type FixedKeyProcessorContext,
  type FixedKeyRecord,
  type KStream,
  type Processor,
  type ProcessorContext,
  type Serde,
} from "../../lib/index.ts";

type Expect<T extends true> = T;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

interface Payment {
  id: string;
  amount: number;
}

const b = new StreamsBuilder();

// Sources carry nullable keys and values: Kafka records may have no key, and tombstones no value.
const payments = b.stream("payments", Consumed.with(Serdes.string(), Serdes.json<Payment>()));
const raw = b.stream("raw");
const many = b.stream(["a", "b"], Consumed.with(Serdes.int32(), Serdes.int64()));
const pattern = b.stream(/orders-.*/, Consumed.with(Serdes.bytes(), Serdes.double()));
export type SourceTypes = [
  Expect<Equal<typeof payments, KStream<string | null, Payment | null>>>,
  Expect<Equal<typeof raw, KStream<Buffer | null, Buffer | null>>>,
  Expect<Equal<typeof many, KStream<number | null, bigint | null>>>,
  Expect<Equal<typeof pattern, KStream<Buffer | null, number | null>>>,
];

// Serdes
export type SerdeTypes = [
  Expect<Equal<ReturnType<typeof Serdes.int64>, Serde<bigint>>>,
  Expect<Equal<ReturnType<Serde<string>["deserialize"]>, string | null>>,
];

// filter keeps the types, or narrows them with a type guard.
const all = payments.filter((k, v) => v === null || v.amount > 0);
const present = payments.filter((k, v) => v !== null);
const keyed = payments.filter((k, v): k is string => k !== null);
const dropped = payments.filterNot((k, v) => v === null);
export type FilterTypes = [
  Expect<Equal<typeof all, KStream<string | null, Payment | null>>>,
  Expect<Equal<typeof present, KStream<string | null, Payment>>>,
  Expect<Equal<typeof keyed, KStream<string, Payment | null>>>,
  Expect<Equal<typeof dropped, KStream<string | null, Payment | null>>>,
];

// Operators change exactly the type they change.
const amounts = present.mapValues((p) => p.amount);
const byId = present.selectKey((k, p) => p.id);
const swapped = present.map((k, p) => [p.amount, k] as const);
const exploded = present.flatMap((k, p) => [[p.id, p.amount] as const]);
const chars = present.flatMapValues((p) => p.id.split(""));
const peeked = present.peek(() => {});
const merged = present.merge(present);
const repartitioned = byId.repartition(Repartitioned.as<string, Payment>("by-id"));
export type OperatorTypes = [
  Expect<Equal<typeof amounts, KStream<string | null, number>>>,
  Expect<Equal<typeof byId, KStream<string, Payment>>>,
  Expect<Equal<typeof swapped, KStream<number, string | null>>>,
  Expect<Equal<typeof exploded, KStream<string, number>>>,
  Expect<Equal<typeof chars, KStream<string | null, string>>>,
  Expect<Equal<typeof peeked, typeof present>>,
  Expect<Equal<typeof merged, typeof present>>,
  Expect<Equal<typeof repartitioned, KStream<string, Payment>>>,
  Expect<Equal<ReturnType<typeof present.foreach>, void>>,
];

// split() keeps the stream's types in every branch.
const branches = present.split().branch((k, p) => p.amount > 100).defaultBranch();
export type BranchTypes = [Expect<Equal<typeof branches, Record<string, KStream<string | null, Payment>>>>];
present
  .split()
  .branch((k, p) => p.amount > 100, Branched.withConsumer((big) => big.mapValues((p) => p.amount).to("big", Produced.with(Serdes.string(), Serdes.double()))))
  // @ts-expect-error withFunction must return a stream of the branch's types
  .branch(() => true, Branched.withFunction((s) => s.mapValues((p) => p.amount)))
  .noDefaultBranch();

// process() may change both types; processValues() only the value.
class Enrich implements Processor<string | null, Payment, string, { id: string; big: boolean }> {
  private ctx!: ProcessorContext<string, { id: string; big: boolean }>;
  init(ctx: ProcessorContext<string, { id: string; big: boolean }>) {
    this.ctx = ctx;
  }
  process(r: StreamRecord<string | null, Payment>) {
    this.ctx.forward(r.withKeyValue(r.value.id, { id: r.value.id, big: r.value.amount > 100 }));
  }
}
class Cents implements FixedKeyProcessor<string | null, Payment, number> {
  private ctx!: FixedKeyProcessorContext<string | null, number>;
  init(ctx: FixedKeyProcessorContext<string | null, number>) {
    this.ctx = ctx;
  }
  process(r: FixedKeyRecord<string | null, Payment>) {
    this.ctx.forward(r.withValue(r.value.amount * 100));
    // @ts-expect-error a fixed-key record has no way to change its key
    r.withKey("other");
  }
}
const enriched = present.process(() => new Enrich());
const cents = present.processValues(() => new Cents(), "some-store");
export type ProcessTypes = [
  Expect<Equal<typeof enriched, KStream<string, { id: string; big: boolean }>>>,
  Expect<Equal<typeof cents, KStream<string | null, number>>>,
];

// Sinks: serdes must fit the stream's types.
present.to("ok", Produced.with(Serdes.string(), Serdes.json<Payment>()));
amounts.to("ok", Produced.with(Serdes.string(), Serdes.double()));
present.to((key, value, ctx) => `${ctx.topic}-${value.id}`);
// @ts-expect-error a number serde cannot write Payment values
present.to("bad", Produced.with(Serdes.string(), Serdes.int32()));
// @ts-expect-error a Buffer serde cannot write string keys
present.to("bad", Produced.with(Serdes.bytes(), Serdes.json<Payment>()));
// @ts-expect-error the repartition serdes must fit too
byId.repartition(Repartitioned.with(Serdes.int32(), Serdes.json<Payment>()));

// Callbacks see the stream's types, null included until filtered.
// @ts-expect-error the value may be a tombstone here
payments.mapValues((p) => p.amount);
// @ts-expect-error a processor must accept the stream's value type
payments.process(() => new Enrich());
// @ts-expect-error merge needs the same types
present.merge(amounts);
// @ts-expect-error map must return a [key, value] pair
present.map((k, p) => p.amount);
// @ts-expect-error predicates are synchronous
present.filter(async (k, p) => p.amount > 0);
// @ts-expect-error predicates get (key, value), not the record
present.filter((r: StreamRecord<string, Payment>) => true);
