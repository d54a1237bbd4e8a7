import { Branched, Joined, Named, Repartitioned, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { advance, events, interleave, pipe } from "../harness/inputs.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, outLongs, strings, toLongs, toStrings } from "./common.ts";

const KEYS = ["a", "b", "c"];

/**
 * Orders and users arriving so that task idling decides the result: an order piped before
 * the user it needs, with a smaller timestamp on the user; an order with no user until the
 * wall clock passes max.task.idle.ms.
 */
const IDLING_STEPS: Step[] = [
  pipe("orders", "u1", "o1", 100),
  pipe("users", "u1", "Ann", 50),
  pipe("orders", "u2", "o2", 200),
  advance(50),
  advance(100),
  pipe("users", "u2", "Bob", 150),
  pipe("orders", "u2", "o3", 300),
  pipe("users", "u1", "Ann2", 250),
  pipe("orders", "u1", "o4", 400),
  advance(200),
  pipe("orders", "u3", "o5", 500),
  advance(200),
];

function idlingJoin(b: StreamsBuilder): void {
  const users = b.table("users", strings);
  b.stream("orders", strings)
    .leftJoin(users, (o, u) => `${o}+${u}`, Joined.with(Serdes.string(), Serdes.string(), Serdes.string()))
    .to("out", toStrings);
}

function withHeaders(seed: number): Step[] {
  return events({ seed, topic: "in", count: 20, keys: KEYS, stepMs: 50 }).map((s, i) => pipe(s.topic, s.key, s.value, s.timestamp, { source: `rec${i}`, kind: i % 2 ? "odd" : "even" }));
}

export const streams: Scenario[] = [
  {
    name: "split-and-merge",
    about: "split into branches (first match wins, default branch), each transformed, merged back",
    outputs: [out()],
    steps: events({ seed: 400, topic: "in", count: 30, keys: KEYS, stepMs: 50, nullKeyShare: 0.1, nullValueShare: 0.1 }),
    topology(b) {
      const branches = b
        .stream("in", strings)
        .split(Named.as("split-"))
        .branch((_k, v) => v !== null && Number(v) > 6, Branched.withFunction((s) => s.mapValues((v): string | null => `big:${v}`), "big"))
        .branch((_k, v) => v !== null && Number(v) % 2 === 0, Branched.withFunction((s) => s.mapValues((v): string | null => `even:${v}`), "even"))
        .defaultBranch(Branched.as("rest"));
      branches["split-big"]!.merge(branches["split-even"]!).merge(branches["split-rest"]!).to("out", toStrings);
    },
  },
  {
    name: "split-to-topics",
    about: "split with a consumer branch per topic and no default branch: unmatched records vanish",
    outputs: [out("big"), out("small")],
    steps: events({ seed: 401, topic: "in", count: 30, keys: KEYS, stepMs: 50, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings)
        .split()
        .branch((_k, v) => v !== null && Number(v) > 6, Branched.withConsumer((s) => s.to("big", toStrings)))
        .branch((_k, v) => v !== null && Number(v) < 3, Branched.withConsumer((s) => s.to("small", toStrings)))
        .noDefaultBranch();
    },
  },
  {
    name: "repartition-then-count",
    about: "selectKey + repartition(): records go through the repartition topic, then are counted",
    outputs: [outLongs()],
    steps: events({ seed: 402, topic: "in", count: 30, keys: KEYS, stepMs: 50, jitterMs: 100, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings)
        .selectKey((_k, v) => v)
        .repartition(Repartitioned.with(Serdes.string(), Serdes.string()))
        .groupByKey()
        .count()
        .toStream()
        .to("out", toLongs);
    },
  },
  {
    name: "merge-two-topics-count",
    about: "two input topics merged, then counted per key, in the order records were piped",
    outputs: [outLongs()],
    steps: interleave(403, events({ seed: 404, topic: "one", count: 20, keys: KEYS, stepMs: 50, jitterMs: 100 }), events({ seed: 405, topic: "two", count: 20, keys: KEYS, stepMs: 50, jitterMs: 100 })),
    topology(b) {
      b.stream("one", strings).merge(b.stream("two", strings)).groupByKey().count().toStream().to("out", toLongs);
    },
  },
  {
    name: "stateless-chain-headers",
    about: "filter, mapValues, flatMapValues and selectKey keep each record's headers and timestamp",
    outputs: [{ ...out(), headers: true }],
    steps: withHeaders(406),
    topology(b) {
      b.stream("in", strings)
        .filter((_k, v) => v !== "5")
        .mapValues((v) => `v${v}`)
        .flatMapValues((v) => [v, `${v}!`])
        .selectKey((k, v) => `${k}-${v.length}`)
        .to("out", toStrings);
    },
  },
  {
    name: "stream-table-join-task-idling",
    about: "max.task.idle.ms = 100: a record waits for the other partition, or for the wall clock",
    config: { maxTaskIdleMs: 100 },
    outputs: [out()],
    steps: IDLING_STEPS,
    topology: idlingJoin,
  },
  {
    name: "stream-table-join-without-idling",
    about: "the same input with max.task.idle.ms = 0: records are processed as they arrive",
    outputs: [out()],
    steps: IDLING_STEPS,
    topology: idlingJoin,
  },
];
