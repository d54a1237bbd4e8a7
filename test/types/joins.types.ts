/**
 * Type tests for joins, checked by `tsc` (no runtime): joiners see non-null values (and
 * `null` exactly where a side may be missing), inner joins drop null keys, left/outer joins
 * keep the key type, and the other side's handle decides the overload.
 */
import {
  Consumed,
  GlobalKTable,
  Joined,
  JoinWindows,
  KTable,
  Materialized,
  Named,
  Serdes,
  StreamJoined,
  StreamsBuilder,
  TableJoined,
  type KStream,
} from "../../lib/index.ts";

type Expect<T extends true> = T;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

interface Click {
  user: string;
  page: string;
}
interface User {
  name: string;
  countryId: string;
}
interface Country {
  code: string;
}

const b = new StreamsBuilder();
const clicks = b.stream("clicks", Consumed.with(Serdes.string(), Serdes.json<Click>()));
const views = b.stream("views", Consumed.with(Serdes.string(), Serdes.json<Click>()));
const users = b.table("users", Consumed.with(Serdes.string(), Serdes.json<User>()));
const countries = b.table("countries", Consumed.with(Serdes.string(), Serdes.json<Country>()));
const global = b.globalTable("countries", Consumed.with(Serdes.string(), Serdes.json<Country>()), Materialized.as("countries"));
const window = JoinWindows.ofTimeDifferenceAndGrace(60_000, 5_000);

// Stream-stream: values never null in the joiner except the missing side of left/outer joins.
const inner = clicks.join(views, (c, v, k) => ({ c, v, k }), window, StreamJoined.with(Serdes.string(), Serdes.json<Click>(), Serdes.json<Click>()));
const left = clicks.leftJoin(views, (c, v) => ({ c, v }), window);
const outer = clicks.outerJoin(views, (c, v) => ({ c, v }), window);
export type StreamStreamTypes = [
  Expect<Equal<typeof inner, KStream<string, { c: Click; v: Click; k: string }>>>,
  Expect<Equal<typeof left, KStream<string | null, { c: Click; v: Click | null }>>>,
  Expect<Equal<typeof outer, KStream<string | null, { c: Click | null; v: Click | null }>>>,
];

// Stream-table and stream-global: the table's value type, null only for leftJoin.
const enriched = clicks.join(users, (c, u) => ({ page: c.page, name: u.name }), Joined.with(Serdes.string(), Serdes.json<Click>()));
const maybe = clicks.leftJoin(users, (c, u) => u?.name ?? c.user);
const located = clicks.join(global, (k, c) => c.user, (c, country) => country.code, Named.as("locate"));
const perhaps = clicks.leftJoin(global, (k, c) => c.user, (c, country) => country?.code ?? "?");
export type StreamTableTypes = [
  Expect<Equal<typeof enriched, KStream<string, { page: string; name: string }>>>,
  Expect<Equal<typeof maybe, KStream<string | null, string>>>,
  Expect<Equal<typeof located, KStream<string | null, string>>>,
  Expect<Equal<typeof perhaps, KStream<string | null, string>>>,
  Expect<Equal<typeof global, GlobalKTable<string, Country>>>,
];

// Table-table: primary key and foreign key joins give tables of the joiner's type.
const pk = users.join(users, (a, b2) => a.name + b2.name);
const pkOuter = users.outerJoin(countries, (u, c) => ({ u, c }), Materialized.as<string, { u: User | null; c: Country | null }>("user-country"));
const fk = users.join(countries, (u) => u.countryId, (u, c) => `${u.name}@${c.code}`, TableJoined.as("user-country"));
const fkLeft = users.leftJoin(countries, (u) => u.countryId, (u, c) => c?.code ?? "none");
// Three arguments: the foreign-key form must still type the joiner's parameters.
const fkShort = users.join(countries, (u) => u.countryId, (u, c) => c.code);
const pkNamed = users.leftJoin(users, (a, other) => a.name + (other?.name ?? ""), Named.as("self"));
export type TableTableTypes = [
  Expect<Equal<typeof pk, KTable<string, string>>>,
  Expect<Equal<typeof pkOuter, KTable<string, { u: User | null; c: Country | null }>>>,
  Expect<Equal<typeof fk, KTable<string, string>>>,
  Expect<Equal<typeof fkLeft, KTable<string, string>>>,
  Expect<Equal<typeof fkShort, KTable<string, string>>>,
  Expect<Equal<typeof pkNamed, KTable<string, string>>>,
];

// A stream-stream join needs windows; the joiner of an inner join gets no nulls.
// @ts-expect-error windows are required against a stream
clicks.join(views, (c, v) => c.page + v.page);
// @ts-expect-error the inner joiner's other value is not nullable, so `null` is not a Click
clicks.join(views, (c: Click, v: Click) => c.page + v.page, window).filter((k, v: number) => v > 0);
// @ts-expect-error a table of another key type cannot join a stream
clicks.join(b.table("n", Consumed.with(Serdes.int32(), Serdes.string())), (c, n) => n);
