import { JoinWindows, StreamJoined, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { events, interleave, pipe } from "../harness/inputs.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, strings, toStrings, withHeaders } from "./common.ts";

type Kind = "inner" | "left" | "outer";

/**
 * Two streams with the same few keys, out of order, some records late, null keys and null
 * values on both sides, and one record far ahead at the end that closes every window, so
 * left and outer joins emit their unmatched records.
 */
function twoStreams(seed: number, headers = false): Step[] {
  const common = { headers, count: 25, keys: ["a", "b", "c"], stepMs: 80, jitterMs: 200, lateShare: 0.1, lateByMs: 800, nullKeyShare: 0.05, nullValueShare: 0.05 };
  const left = events({ ...common, seed: seed + 1, topic: "left", value: (i) => `L${i}` });
  const right = events({ ...common, seed: seed + 2, topic: "right", value: (i) => `R${i}` });
  const steps = interleave(seed, left, right);
  return [...steps, pipe("left", "z", "Lend", 20_000), pipe("right", "z", "Rend", 20_000)];
}

/** The joined stream every scenario writes (StreamJoins.java: join). */
function join(b: StreamsBuilder, kind: Kind, windows: JoinWindows): void {
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
];
