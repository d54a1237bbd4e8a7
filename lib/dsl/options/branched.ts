import type { KStream } from "../kstream.ts";

type BranchChain<K, V> =
  | { readonly kind: "function"; readonly apply: (branch: KStream<K, V>) => KStream<K, V> }
  | { readonly kind: "consumer"; readonly apply: (branch: KStream<K, V>) => void };

/**
 * Names one branch of `split()` and, optionally, builds on it in place. The branch's key in
 * the result map, and its node's name, is the split's name followed by the branch name.
 * `withFunction` puts what the function returns in the map; `withConsumer` leaves the
 * branch out of the map (it is fully handled).
 *
 * @example
 *   const branches = stream.split(Named.as("Branch-"))
 *     .branch((k, v) => v > 100, Branched.withConsumer((big) => big.to("big"), "big"))
 *     .branch((k, v) => v > 0, Branched.withFunction((s) => s.mapValues((v) => v * 2), "positive"))
 *     .defaultBranch(Branched.as("rest"));
 *   branches["Branch-positive"]!.to("doubled");
 */
export class Branched<K, V> {
  readonly name: string | null;
  /** @internal */
  readonly chain: BranchChain<K, V> | null;

  private constructor(name: string | null, chain: BranchChain<K, V> | null) {
    this.name = name;
    this.chain = chain;
  }

  static as<K, V>(name: string): Branched<K, V> {
    return new Branched<K, V>(name, null);
  }

  static withFunction<K, V>(apply: (branch: KStream<K, V>) => KStream<K, V>, name?: string): Branched<K, V> {
    return new Branched(name ?? null, { kind: "function", apply });
  }

  static withConsumer<K, V>(apply: (branch: KStream<K, V>) => void, name?: string): Branched<K, V> {
    return new Branched(name ?? null, { kind: "consumer", apply });
  }
}
