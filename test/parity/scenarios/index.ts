import type { Scenario } from "../harness/scenario.ts";
import { aggregations } from "./aggregations.ts";

export interface Area {
  readonly name: string;
  readonly scenarios: readonly Scenario[];
}

/** Every scenario, by area; the Java twins register in dev.sluice.parity.Registry. */
export const AREAS: readonly Area[] = [{ name: "aggregations", scenarios: aggregations }];

const names = AREAS.flatMap((a) => a.scenarios.map((s) => s.name));
const duplicate = names.find((n, i) => names.indexOf(n) !== i);
if (duplicate) throw new Error(`Two parity scenarios are named "${duplicate}"; names must be unique (the Java twin is found by name).`);
