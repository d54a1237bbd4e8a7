import { JoinWindows } from "../../../lib/dsl/index.ts";
import { SessionWindows, SlidingWindows, TimeWindows } from "../../../lib/processor/index.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, outSessions, outTimeWindowed } from "./common.ts";
import { join, twoStreams } from "./stream-joins.ts";
import { foreignKeyJoin, ordersAndUsers, tableTable, twoTables } from "./table-joins.ts";
import { prefixTrail, updates } from "./tables.ts";
import { sessionWindowed, timeWindowed, windowInput } from "./windows.ts";

/**
 * A few topologies whose results depend most on the order and timing of their input, each
 * run on several more seeds than its own area's scenario: cheap, and every seed is another
 * shuffle of stragglers, merges and tombstones. Java twins: Sweep.java.
 */
const SEEDS = [901, 902, 903, 904];

interface Base {
  readonly name: string;
  readonly about: string;
  readonly outputs: Scenario["outputs"];
  readonly steps: (seed: number) => Step[];
  readonly topology: Scenario["topology"];
}

const BASES: readonly Base[] = [
  { name: "stream-stream-outer", about: "stream-stream outer join, 200 ms windows, 100 ms grace", outputs: [out()], steps: (s) => twoStreams(s), topology: (b) => join(b, "outer", JoinWindows.ofTimeDifferenceAndGrace(200, 100)) },
  {
    name: "session-concat-update-uncached",
    about: "session aggregate with merger on update, gap 300 ms, grace 200 ms, caching disabled (a kept difference with a cache)",
    outputs: [outSessions("string")],
    steps: (s) => windowInput(s, { stepMs: 120, jitterMs: 400 }),
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(300, 200), "update", "concat", { caching: false }),
  },
  {
    name: "hopping-count-suppress",
    about: "hopping windows (1000/300), 200 ms grace, suppressed",
    outputs: [outTimeWindowed(1000)],
    steps: (s) => windowInput(s),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(1000, 200).advanceBy(300), 1000, "suppress", "count"),
  },
  {
    name: "sliding-count-update",
    about: "sliding windows (500), 300 ms grace, on update",
    outputs: [outTimeWindowed(500)],
    steps: (s) => windowInput(s),
    topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(500, 300), 500, "update", "count"),
  },
  { name: "foreign-key-left", about: "foreign-key left join", outputs: [out()], steps: (s) => ordersAndUsers(s), topology: (b) => foreignKeyJoin(b, "left") },
  { name: "table-table-outer", about: "table-table outer join", outputs: [out()], steps: (s) => twoTables(s), topology: (b) => tableTable(b, "outer") },
  { name: "table-group-by-aggregate", about: "KTable.groupBy(key prefix).aggregate with adder and subtractor", outputs: [out()], steps: (s) => updates(s), topology: prefixTrail },
];

export const sweep: Scenario[] = BASES.flatMap((base) =>
  SEEDS.map((seed) => ({ name: `sweep-${base.name}-${seed}`, about: `${base.about} (seed ${seed})`, outputs: base.outputs, steps: base.steps(seed), topology: base.topology })),
);
