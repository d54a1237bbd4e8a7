/**
 * Names one branch of `split()`. The branch's key in the result map, and its node's name,
 * is the split's name followed by this one.
 *
 * @example
 *   const branches = stream.split(Named.as("Branch-"))
 *     .branch((k, v) => v > 0, Branched.as("positive"))
 *     .defaultBranch(Branched.as("rest"));
 *   branches["Branch-positive"]!.to("positives");
 */
export class Branched {
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  static as(name: string): Branched {
    return new Branched(name);
  }
}
