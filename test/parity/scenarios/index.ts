import type { Scenario } from "../harness/scenario.ts";
import { aggregations } from "./aggregations.ts";
import { boundaries } from "./boundaries.ts";
import { differences } from "./differences.ts";
import { streamJoins } from "./stream-joins.ts";
import { requests } from "./requests.ts";
import { streams } from "./streams.ts";
import { sweep } from "./sweep.ts";
import { tableJoins } from "./table-joins.ts";
import { tables } from "./tables.ts";
import { windows } from "./windows.ts";

export interface Area {
  readonly name: string;
  readonly scenarios: readonly Scenario[];
}

/** Every scenario, by area; the Java twins register in dev.sluice.parity.Registry. */
export const AREAS: readonly Area[] = [
  { name: "aggregations", scenarios: aggregations },
  { name: "windows", scenarios: windows },
  { name: "stream-stream joins", scenarios: streamJoins },
  { name: "table joins", scenarios: tableJoins },
  { name: "tables", scenarios: tables },
  { name: "streams", scenarios: streams },
  { name: "boundaries", scenarios: boundaries },
  { name: "seed sweep", scenarios: sweep },
  { name: "requested cases", scenarios: requests },
  { name: "documented differences", scenarios: differences },
];

const names = AREAS.flatMap((a) => a.scenarios.map((s) => s.name));
const duplicate = names.find((n, i) => names.indexOf(n) !== i);
if (duplicate) throw new Error(`Two parity scenarios are named "${duplicate}"; names must be unique (the Java twin is found by name).`);
