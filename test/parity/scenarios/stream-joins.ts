import { JoinWindows, StreamJoined, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Joined } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { advance, events, interleave, pipe } from "../harness/inputs.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, strings, toStrings, withHeaders } from "./common.ts";

export type Kind = "inner" | "left" | "outer";

/**
 * Two streams with the same few keys, out of order, some records late, null keys and null
 * values on both sides, and one record far ahead at the end that closes every window, so
 * left and outer joins emit their unmatched records.
 */
export function twoStreams(seed: number, headers = false): Step[] {
  const common = { headers, count: 25, keys: ["a", "b", "c"], stepMs: 80, jitterMs: 200, lateShare: 0.1, lateByMs: 800, nullKeyShare: 0.05, nullValueShare: 0.05 };
  const left = events({ ...common, seed: seed + 1, topic: "left", value: (i) => `L${i}` });
  const right = events({ ...common, seed: seed + 2, topic: "right", value: (i) => `R${i}` });
  const steps = interleave(seed, left, right);
  return [...steps, pipe("left", "z", "Lend", 20_000), pipe("right", "z", "Rend", 20_000)];
}

/** The joined stream every scenario writes (StreamJoins.java: join). */
export function join(b: StreamsBuilder, kind: Kind, windows: JoinWindows): void {
  const left = b.stream("left", strings);
  const right = b.stream("right", strings);
  const serdes = StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string());
  const joiner = (l: string | null, r: string | null): string => `${l}+${r}`;
  const joined = kind === "inner" ? left.join(right, joiner, windows, serdes) : kind === "left" ? left.leftJoin(right, joiner, windows, serdes) : left.outerJoin(right, joiner, windows, serdes);
  joined.to("out", toStrings);
}

/** `headers`: the input records carry headers, and the results' headers are compared. */
function scenario(name: string, about: string, kind: Kind, windows: () => JoinWindows, seed: number, headers = false): Scenario {
  return { name, about, outputs: [headers ? withHeaders(out()) : out()], steps: twoStreams(seed, headers), topology: (b) => join(b, kind, windows()) };
}

export const streamJoins: Scenario[] = [
  scenario("stream-stream-inner-nograce", "inner join, 200 ms windows, no grace", "inner", () => JoinWindows.ofTimeDifferenceWithNoGrace(200), 100),
  scenario("stream-stream-inner-grace", "inner join, 200 ms windows, 300 ms grace", "inner", () => JoinWindows.ofTimeDifferenceAndGrace(200, 300), 101),
  scenario("stream-stream-left-nograce", "left join, no grace: unmatched left records once their window closes", "left", () => JoinWindows.ofTimeDifferenceWithNoGrace(200), 102),
  scenario("stream-stream-left-grace", "left join, 300 ms grace", "left", () => JoinWindows.ofTimeDifferenceAndGrace(200, 300), 103),
  scenario("stream-stream-outer-nograce", "outer join, no grace: unmatched records of both sides", "outer", () => JoinWindows.ofTimeDifferenceWithNoGrace(200), 104),
  scenario("stream-stream-outer-grace", "outer join, 300 ms grace", "outer", () => JoinWindows.ofTimeDifferenceAndGrace(200, 300), 105),
  scenario("stream-stream-inner-asymmetric", "inner join with before(100) after(300)", "inner", () => JoinWindows.ofTimeDifferenceAndGrace(200, 100).before(100).after(300), 106),
  scenario("stream-stream-outer-headers", "headers of outer-join results, matched and emitted late unmatched", "outer", () => JoinWindows.ofTimeDifferenceAndGrace(200, 100), 108, true),
  scenario("stream-stream-left-asymmetric", "left join with before(0) after(250)", "left", () => JoinWindows.ofTimeDifferenceAndGrace(200, 100).before(0).after(250), 107),
  {
    name: "stream-stream-left-task-idling",
    about: "left join with max.task.idle.ms = 300: records wait for the other side, so both are joined in time order",
    config: { maxTaskIdleMs: 300 },
    outputs: [out()],
    // The wall clock moves now and then, so some waits end by the idle time running out.
    steps: twoStreams(109).flatMap((step, i) => (i % 9 === 8 ? [step, advance(200)] : [step])),
    topology: (b) => join(b, "left", JoinWindows.ofTimeDifferenceAndGrace(200, 100)),
  },
  {
    name: "select-key-then-stream-stream-join",
    about: "both sides re-keyed before a windowed join: each goes through its own repartition topic",
    outputs: [out()],
    steps: twoStreams(110),
    topology(b) {
      const rekey = (k: string | null, v: string | null): string | null => (v === null ? k : `${k}${v.length % 2}`);
      const left = b.stream("left", strings).selectKey(rekey);
      const right = b.stream("right", strings).selectKey(rekey);
      left
        .join(right, (l: string, r: string) => `${l}+${r}`, JoinWindows.ofTimeDifferenceAndGrace(200, 100), StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string()))
        .to("out", toStrings);
    },
  },
  {
    name: "select-key-then-stream-table-join",
    about: "a re-keyed stream joined with a table: the stream side is repartitioned first",
    outputs: [out()],
    steps: interleave(
      111,
      events({ seed: 112, topic: "left", count: 25, keys: ["x", "y"], stepMs: 60, nullValueShare: 0.05, value: (i) => `${"abc"[i % 3]}:${i}` }),
      events({ seed: 113, topic: "right", count: 15, keys: ["a", "b", "c"], stepMs: 90, nullValueShare: 0.15, value: (i) => `T${i}` }),
    ),
    topology(b) {
      const table = b.table("right", strings);
      b.stream("left", strings)
        .selectKey((k, v) => (v === null ? k : v.split(":")[0]!))
        .leftJoin(table, (l, t) => `${l}+${t}`, Joined.with(Serdes.string(), Serdes.string(), Serdes.string()))
        .to("out", toStrings);
    },
  },
  {
    name: "stream-stream-self-join",
    about: "a stream joined with itself: each record meets itself and its neighbours in the window",
    outputs: [out()],
    steps: events({ seed: 114, topic: "left", count: 25, keys: ["a", "b"], stepMs: 80, jitterMs: 150, lateShare: 0.1, lateByMs: 500, value: (i) => `L${i}` }),
    topology(b) {
      const stream = b.stream("left", strings);
      stream.join(stream, (l: string, r: string) => `${l}+${r}`, JoinWindows.ofTimeDifferenceAndGrace(150, 100), StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string())).to("out", toStrings);
    },
  },
  {
    name: "stream-stream-outer-long",
    about: "outer join over a longer input: 120 records a side over five keys",
    outputs: [out()],
    steps: interleave(
      115,
      events({ seed: 116, topic: "left", count: 120, keys: ["a", "b", "c", "d", "e"], stepMs: 40, jitterMs: 300, lateShare: 0.1, lateByMs: 900, nullValueShare: 0.03, value: (i) => `L${i}` }),
      events({ seed: 117, topic: "right", count: 120, keys: ["a", "b", "c", "d", "e"], stepMs: 40, jitterMs: 300, lateShare: 0.1, lateByMs: 900, nullKeyShare: 0.03, value: (i) => `R${i}` }),
    ),
    topology: (b) => join(b, "outer", JoinWindows.ofTimeDifferenceAndGrace(150, 200)),
  },
];
