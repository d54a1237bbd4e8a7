/**
 * A seeded random number generator for generated test input: the same seed gives the same
 * sequence on every run and machine, so a failing brute-force check can be replayed from
 * its seed. Returns numbers in [0, 1), like Math.random. Not for cryptography.
 *
 * @example
 *   const random = seededRandom(42);
 *   const keys = Array.from({ length: 1000 }, () => `user-${Math.floor(random() * 50)}`);
 */
export function seededRandom(seed: number): () => number {
  // mulberry32: 32 bits of state, fast, and well spread for test data.
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
