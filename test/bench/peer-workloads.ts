/**
 * The workloads of the side-by-side benchmark (`make bench`): each has a Sluice topology here,
 * a Kafka Streams one (kstreams/…/Workloads.java) and a Quix Streams one (quix/runner.py)
 * under the same name, writing the same output format: string keys and values, windowed
 * keys "key@windowStart". Adding a workload: an entry here, a case in each of the two peers.
 */
import { Consumed, JoinWindows, Produced, StreamsBuilder } from "../../lib/dsl/index.ts";
import { SessionWindows, TimeWindows } from "../../lib/processor/index.ts";
import { Serdes } from "../../lib/serdes/index.ts";
import type { KafkaClientName } from "../../lib/kafka/index.ts";
import type { Topology } from "../../lib/topology/index.ts";
import { numberOf } from "./generated-input.ts";

// Must equal the constants in Workloads.java and runner.py.
export const WINDOW_MS = 60_000;
export const ADVANCE_MS = 30_000;
export const GRACE_MS = 5_000;
export const SESSION_GAP_MS = 15_000;
export const JOIN_WINDOW_MS = 15_000;

/** Sluice runs once per Kafka client adapter: the same topology, SLUICE_KAFKA_CLIENT set for its runner. */
export type SystemName = "sluice-kafkajs" | "sluice-platformatic" | "kstreams" | "quix";
export const SYSTEMS: SystemName[] = ["sluice-kafkajs", "sluice-platformatic", "kstreams", "quix"];

/** The Kafka client a Sluice system runs on, or undefined for the peers. */
export function sluiceClient(system: SystemName): KafkaClientName | undefined {
  return system === "sluice-kafkajs" ? "kafkajs" : system === "sluice-platformatic" ? "platformatic" : undefined;
}

/**
 * BENCH_SYSTEMS: a comma list of system names, where "sluice" stands for Sluice on every
 * client; an unknown name fails the run before anything is loaded.
 */
export function parseSystems(text: string | undefined): SystemName[] {
  if (text === undefined || text.trim() === "") return SYSTEMS;
  const chosen = text.split(",").map((s) => s.trim()).filter(Boolean).flatMap((name): SystemName[] => {
    if (name === "sluice") return SYSTEMS.filter((s) => sluiceClient(s) !== undefined);
    if ((SYSTEMS as string[]).includes(name)) return [name as SystemName];
    throw new Error(`BENCH_SYSTEMS entry "${name}" is not a system: use sluice (both clients), ${SYSTEMS.join(", ")}`);
  });
  // In the default order, so the alternation is the same however the list was written.
  return SYSTEMS.filter((s) => chosen.includes(s));
}

/** The systems that ran, as a report's title names them: "Sluice (kafkajs) and Kafka Streams". */
export function systemsTitle(systems: SystemName[]): string {
  const clients = systems.flatMap((s) => sluiceClient(s) ?? []);
  const names = [
    ...(clients.length > 0 ? [`Sluice (${clients.join(", ")})`] : []),
    ...(systems.includes("kstreams") ? ["Kafka Streams"] : []),
    ...(systems.includes("quix") ? ["Quix Streams"] : []),
  ];
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "no system");
}

/** The topics a run reads: the main input, plus a table or a left/right pair for joins. */
export interface InputTopics {
  input: string;
  table?: string;
  left?: string;
  right?: string;
}

export interface PeerWorkload {
  name: string;
  describe: string;
  /** Distinct keys in the input ("key-<n % keys>"). */
  keys: number;
  /** main: one input topic; table: input + a table topic; left-right: two input topics. */
  shape: "main" | "table" | "left-right";
  sluice(topics: InputTopics, output: string): Topology;
  /** Why a system cannot run this workload, shown in the table instead of a figure. */
  unsupported?: Partial<Record<SystemName, string>>;
}

const strings = Consumed.with(Serdes.string(), Serdes.string());
const out = Produced.with(Serdes.string(), Serdes.string());

export const peerWorkloads: PeerWorkload[] = [
  {
    name: "passthrough",
    describe: "bytes in, bytes out",
    keys: 10_000,
    shape: "main",
    sluice({ input }, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.bytes(), Serdes.bytes())).to(output, Produced.with(Serdes.bytes(), Serdes.bytes()));
      return b.build();
    },
  },
  {
    name: "map-filter",
    describe: "keep even n (half), upper-case the value",
    keys: 10_000,
    shape: "main",
    sluice({ input }, output) {
      const b = new StreamsBuilder();
      b.stream(input, strings)
        .filter((_, v): v is string => v !== null && numberOf(v) % 2 === 0)
        .mapValues((v) => v.toUpperCase())
        .to(output, out);
      return b.build();
    },
  },
  count("count-10k-keys", 10_000),
  count("count-1m-keys", 1_000_000),
  windowCount("tumbling-count", "60 s tumbling windows, 5 s grace", () => TimeWindows.ofSizeAndGrace(WINDOW_MS, GRACE_MS)),
  windowCount("hopping-count", "60 s windows advancing 30 s, 5 s grace", () => TimeWindows.ofSizeAndGrace(WINDOW_MS, GRACE_MS).advanceBy(ADVANCE_MS)),
  {
    name: "session-count",
    describe: "session windows, 15 s inactivity gap, 5 s grace",
    keys: 10_000,
    shape: "main",
    sluice({ input }, output) {
      const b = new StreamsBuilder();
      b.stream(input, strings)
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP_MS, GRACE_MS))
        .count()
        .toStream()
        .map((w, c): readonly [string, string | null] => [`${w.key}@${w.window.startMs}`, c === null ? null : String(c)])
        .to(output, out);
      return b.build();
    },
  },
  {
    name: "stream-table-join",
    describe: "each record joined with its key's row of a 10k-row table topic",
    keys: 10_000,
    shape: "table",
    sluice({ input, table }, output) {
      const b = new StreamsBuilder();
      const rows = b.table(table!, strings);
      b.stream(input, strings)
        .filter((_, v): v is string => v !== null)
        .join(rows, (v, row) => `${numberOf(v)}:${row}`)
        .to(output, out);
      return b.build();
    },
  },
  {
    name: "stream-stream-join",
    describe: "two topics joined on key within 15 s (5 s grace)",
    keys: 10_000,
    shape: "left-right",
    sluice({ left, right }, output) {
      const b = new StreamsBuilder();
      const l = b.stream(left!, strings).filter((_, v): v is string => v !== null);
      const r = b.stream(right!, strings).filter((_, v): v is string => v !== null);
      l.join(r, (lv, rv) => `${numberOf(lv)}:${numberOf(rv)}`, JoinWindows.ofTimeDifferenceAndGrace(JOIN_WINDOW_MS, GRACE_MS)).to(output, out);
      return b.build();
    },
  },
];

function count(name: string, keys: number): PeerWorkload {
  return {
    name,
    describe: `count per key over ${keys.toLocaleString("en-US")} distinct keys (Kafka Streams and Sluice with their record caches; Quix has none)`,
    keys,
    shape: "main",
    sluice({ input }, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.string(), Serdes.bytes()))
        .groupByKey()
        .count()
        .toStream()
        .mapValues((c) => String(c))
        .to(output, out);
      return b.build();
    },
  };
}

function windowCount(name: string, describe: string, windows: () => TimeWindows): PeerWorkload {
  return {
    name,
    describe,
    keys: 10_000,
    shape: "main",
    sluice({ input }, output) {
      const b = new StreamsBuilder();
      b.stream(input, strings)
        .groupByKey()
        .windowedBy(windows())
        .count()
        .toStream()
        .map((w, c): readonly [string, string] => [`${w.key}@${w.window.startMs}`, String(c)])
        .to(output, out);
      return b.build();
    },
  };
}

export function peerWorkload(name: string): PeerWorkload {
  const found = peerWorkloads.find((w) => w.name === name);
  if (!found) throw new Error(`unknown workload ${name}; known: ${peerWorkloads.map((w) => w.name).join(", ")}`);
  return found;
}
