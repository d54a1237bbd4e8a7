import { seededRandom } from "../../../lib/testing/seeded-random.ts";

/** Seeded randomness for the join oracles: the same seed gives the same input. */
export const rng = seededRandom;

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function int(random: () => number, from: number, to: number): number {
  return from + Math.floor(random() * (to - from + 1));
}
